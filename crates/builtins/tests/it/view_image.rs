//! `view_image` through the registry, as a model's call goes: real image files of every
//! format in a temporary workspace, scaled for each dialect the call names; files that are
//! not images; decompression bombs, with the memory they cost counted; paths that leave
//! the workspace or pass through links.

use std::io::Cursor;
use std::sync::Arc;

use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::output::Content;
use agent_tools_core::{Dialect, ToolCall, ToolRegistry, ToolResult, dialect::DefinitionOptions};
use base64::Engine as _;
use image::codecs::gif::GifEncoder;
use image::{DynamicImage, Frame, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};
use serde_json::json;

use crate::allocations;

const MIB: usize = 1024 * 1024;

struct Scene {
    dir: tempfile::TempDir,
    registry: ToolRegistry,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ws")).unwrap();
        let registry = ToolRegistry::new();
        let builtins = Builtins::new(Workspace::open(dir.path().join("ws")).unwrap()).unwrap();
        Arc::new(builtins).register_all(&registry).unwrap();
        Scene { dir, registry }
    }

    fn write(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.dir.path().join("ws").join(name), bytes).unwrap();
    }

    async fn view(&self, path: &str, dialect: Option<Dialect>) -> ToolResult {
        let mut call = ToolCall::new("c", "view_image", json!({"path": path}));
        if let Some(dialect) = dialect {
            call = call.with_definition_options(DefinitionOptions::new(dialect));
        }
        self.registry.call(call).await
    }

    /// The image a call returned, decoded, with its media type and bytes.
    async fn shown(&self, path: &str, dialect: Option<Dialect>) -> Shown {
        let result = self.view(path, dialect).await;
        assert!(!result.is_error(), "{path}: {}", result.text());
        let (mime_type, data) = result
            .output
            .content
            .iter()
            .find_map(|part| match part {
                Content::Image { mime_type, data, .. } => Some((mime_type.clone(), data.clone())),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{path}: no image in {:?}", result.text()));
        let bytes = base64::engine::general_purpose::STANDARD.decode(&data).unwrap();
        let format = image::guess_format(&bytes).unwrap();
        let image = image::load_from_memory(&bytes).unwrap();
        Shown {
            text: result.text(),
            mime_type,
            base64_len: data.len(),
            bytes,
            format,
            image,
        }
    }
}

struct Shown {
    text: String,
    mime_type: String,
    base64_len: usize,
    bytes: Vec<u8>,
    format: ImageFormat,
    image: DynamicImage,
}

impl Shown {
    fn size(&self) -> (u32, u32) {
        (self.image.width(), self.image.height())
    }
}

fn encoded(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Cursor::new(Vec::new());
    image.write_to(&mut bytes, format).unwrap();
    bytes.into_inner()
}

/// Smooth colours with noise, as a photograph has: no encoder makes it small.
fn photo(width: u32, height: u32) -> DynamicImage {
    let mut state = 0x9e37_79b9_u32;
    DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, y| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let noise = (state % 32) as u8;
        Rgb([
            ((x * 200 / width) as u8).saturating_add(noise),
            ((y * 200 / height) as u8).saturating_add(noise),
            noise.wrapping_mul(7),
        ])
    }))
}

fn animated_gif(frames: &[[u8; 4]]) -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut encoder = GifEncoder::new(&mut bytes);
        for colour in frames {
            let frame = RgbaImage::from_pixel(30, 20, Rgba(*colour));
            encoder.encode_frame(Frame::new(frame)).unwrap();
        }
    }
    bytes
}

#[tokio::test]
async fn each_format_comes_back_with_its_type_and_size() {
    let scene = Scene::new();
    let picture = photo(320, 240);
    let png = encoded(&picture, ImageFormat::Png);
    scene.write("shot.png", &png);
    scene.write("photo.jpg", &encoded(&picture, ImageFormat::Jpeg));
    let webp = encoded(&picture, ImageFormat::WebP);
    scene.write("lossless.webp", &webp);
    let still_gif = animated_gif(&[[200, 0, 0, 255]]);
    scene.write("still.gif", &still_gif);
    scene.write("moving.gif", &animated_gif(&[[0, 0, 200, 255], [0, 200, 0, 255]]));

    let shown = scene.shown("shot.png", None).await;
    assert_eq!(
        (shown.mime_type.as_str(), shown.size()),
        ("image/png", (320, 240))
    );
    assert_eq!(shown.bytes, png, "small enough: the file itself");
    assert!(
        shown.text.starts_with("`shot.png`: PNG image, 320×240 pixels, ")
            && shown.text.ends_with("; sent unchanged"),
        "{}",
        shown.text
    );

    let shown = scene.shown("photo.jpg", None).await;
    assert_eq!(
        (shown.mime_type.as_str(), shown.format, shown.size()),
        ("image/jpeg", ImageFormat::Jpeg, (320, 240))
    );

    let shown = scene.shown("lossless.webp", Some(Dialect::Gemini)).await;
    assert_eq!(
        (shown.mime_type.as_str(), shown.size()),
        ("image/webp", (320, 240))
    );
    assert_eq!(shown.bytes, webp);
    assert_eq!(shown.image.to_rgb8(), picture.to_rgb8(), "lossless");

    // A still GIF goes as it is to a provider that takes GIF, as PNG to the others.
    let shown = scene.shown("still.gif", Some(Dialect::Anthropic)).await;
    assert_eq!(
        (shown.mime_type.as_str(), shown.bytes.as_slice()),
        ("image/gif", still_gif.as_slice())
    );
    let shown = scene.shown("still.gif", None).await;
    assert_eq!(
        (shown.mime_type.as_str(), shown.format, shown.size()),
        ("image/png", ImageFormat::Png, (30, 20))
    );
    assert!(
        shown.text.contains("any provider takes no GIF images"),
        "{}",
        shown.text
    );

    // An animation: its first frame, whatever the provider.
    for dialect in [None, Some(Dialect::Anthropic), Some(Dialect::OpenAiResponses)] {
        let shown = scene.shown("moving.gif", dialect).await;
        assert_eq!(
            (shown.mime_type.as_str(), shown.size()),
            ("image/png", (30, 20)),
            "{dialect:?}"
        );
        assert_eq!(
            shown.image.to_rgba8().get_pixel(15, 10).0,
            [0, 0, 200, 255],
            "the first frame"
        );
        assert!(
            shown.text.contains("GIF image, 30×20 pixels, ")
                && shown
                    .text
                    .contains(", animated; its first frame is shown; sent as PNG, "),
            "{}",
            shown.text
        );
    }
}

#[tokio::test]
async fn oversized_images_are_scaled_to_each_dialects_limit() {
    let _heavy = allocations::heavy().await;
    let scene = Scene::new();
    let picture = photo(5000, 3000);
    scene.write("big.jpg", &encoded(&picture, ImageFormat::Jpeg));
    scene.write("big.png", &encoded(&picture, ImageFormat::Png));
    drop(picture);
    // (dialect, size, bytes the provider takes: of the file, or of its base64)
    let expected = [
        (None, (1280, 768), Limit::Base64(5 * MIB)),
        (Some(Dialect::Mcp), (1280, 768), Limit::Base64(5 * MIB)),
        (Some(Dialect::Anthropic), (1384, 830), Limit::Base64(5 * MIB)),
        (Some(Dialect::OpenAiChat), (1280, 768), Limit::File(20_000_000)),
        (
            Some(Dialect::OpenAiResponses),
            (1280, 768),
            Limit::File(20_000_000),
        ),
        (Some(Dialect::Gemini), (3072, 1843), Limit::File(7_000_000)),
    ];
    for (dialect, size, limit) in expected {
        for path in ["big.jpg", "big.png"] {
            let shown = scene.shown(path, dialect).await;
            assert_eq!(shown.size(), size, "{path} for {dialect:?}: {}", shown.text);
            assert_eq!(shown.mime_type, "image/jpeg", "a photograph: {}", shown.text);
            assert!(
                limit.allows(&shown),
                "{path} for {dialect:?}: {} bytes",
                shown.bytes.len()
            );
            let provider = match dialect {
                Some(Dialect::Anthropic) => "Anthropic",
                Some(Dialect::OpenAiChat | Dialect::OpenAiResponses) => "OpenAI",
                Some(Dialect::Gemini) => "Gemini",
                _ => "any provider",
            };
            let scaled = format!(
                "; scaled from 5000×3000 to {}×{} for {provider}; sent as JPEG (quality ",
                size.0, size.1
            );
            assert!(shown.text.contains(&scaled), "{}", shown.text);
        }
    }
}

#[tokio::test]
async fn images_over_the_byte_limit_are_encoded_again() {
    let _heavy = allocations::heavy().await;
    let scene = Scene::new();
    // Within Gemini's 3072 pixels a side, but noise makes the PNG (3.2 MB) larger than a
    // result carries (4 MiB of base64 by default: 3.0 MB).
    let mut state = 7u32;
    let noise = RgbImage::from_fn(1200, 900, |_, _| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let [r, g, b, _] = state.to_be_bytes();
        Rgb([r, g, b])
    });
    let png = encoded(&DynamicImage::ImageRgb8(noise), ImageFormat::Png);
    assert!(png.len() > 3_240_000, "{} bytes", png.len());
    scene.write("noise.png", &png);
    let shown = scene.shown("noise.png", Some(Dialect::Gemini)).await;
    assert!(shown.base64_len < 4 * MIB, "{} bytes of base64", shown.base64_len);
    assert!(
        shown
            .text
            .contains("; more than the 3.0 MB an image for Gemini may have, so encoded again at "),
        "{}",
        shown.text
    );
}

enum Limit {
    File(usize),
    Base64(usize),
}

impl Limit {
    fn allows(&self, shown: &Shown) -> bool {
        match self {
            Limit::File(limit) => shown.bytes.len() <= *limit,
            Limit::Base64(limit) => shown.base64_len <= *limit,
        }
    }
}

#[tokio::test]
async fn files_that_are_not_images_are_refused_saying_what_they_are() {
    let scene = Scene::new();
    let lines: String = (1..=12).map(|n| format!("note {n}\n")).collect();
    scene.write("notes.txt", lines.as_bytes());
    scene.write("report.pdf", b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n");
    scene.write(
        "bundle.zip",
        b"PK\x03\x04\x14\x00\x00\x00\x08\x00rest of the archive",
    );
    scene.write(
        "logo.svg",
        b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>\n",
    );
    scene.write("photo.heic", b"\0\0\0\x18ftypheic\0\0\0\0mif1heic");
    scene.write("renamed.png", b"just text, whatever the name says\n");
    let refusal = |path: &'static str| {
        let scene = &scene;
        async move {
            let result = scene.view(path, None).await;
            assert!(result.is_error(), "{path}: {}", result.text());
            result.text()
        }
    };
    assert_eq!(
        refusal("notes.txt").await,
        "`notes.txt` is a text file (UTF-8, 12 lines); view_image shows PNG, JPEG, GIF and WebP images — use read_file"
    );
    assert!(
        refusal("report.pdf")
            .await
            .starts_with("`report.pdf` is a binary file (PDF document, ")
    );
    assert!(
        refusal("bundle.zip")
            .await
            .starts_with("`bundle.zip` is a binary file (ZIP archive, ")
    );
    assert_eq!(
        refusal("logo.svg").await,
        "`logo.svg` is an SVG image, which view_image cannot show; read it with read_file (it is text)"
    );
    assert!(refusal("photo.heic").await.starts_with(
        "`photo.heic` is a HEIC image, which view_image cannot show; convert it to PNG or JPEG first"
    ));
    assert!(
        refusal("renamed.png")
            .await
            .starts_with("`renamed.png` is a text file (UTF-8, 1 line)")
    );
}

/// A PNG of `width` × `height` RGB pixels whose data stops after a few rows: all a decoder
/// needs to allocate the whole image is its header.
fn png_declaring(width: u32, height: u32) -> Vec<u8> {
    fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        png.extend_from_slice(&crc.sum().to_be_bytes());
    }
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    // 8 bits, RGB, deflate, adaptive filtering, not interlaced.
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    let rows = vec![0; (width as usize * 3 + 1) * 4];
    let mut data = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut data, &rows).unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut png, b"IHDR", &header);
    chunk(&mut png, b"IDAT", &data.finish().unwrap());
    chunk(&mut png, b"IEND", &[]);
    png
}

/// A small real JPEG whose frame header is changed to declare `width` × `height` pixels.
fn jpeg_declaring(width: u16, height: u16) -> Vec<u8> {
    let mut jpeg = encoded(&photo(16, 16), ImageFormat::Jpeg);
    let frame = jpeg
        .windows(2)
        .position(|marker| marker == [0xFF, 0xC0])
        .expect("a baseline frame header");
    // Marker, length, precision, then height and width.
    jpeg[frame + 5..frame + 7].copy_from_slice(&height.to_be_bytes());
    jpeg[frame + 7..frame + 9].copy_from_slice(&width.to_be_bytes());
    jpeg
}

#[tokio::test]
async fn decompression_bombs_are_refused_before_they_are_allocated() {
    let scene = Scene::new();
    // 100,000 × 100,000 pixels, 30 GB, in a few hundred bytes.
    let huge = png_declaring(100_000, 100_000);
    assert!(huge.len() < 2048, "{} bytes", huge.len());
    scene.write("huge.png", &huge);
    // 12,000 × 12,000 RGB: 432 MB, within the `image` crate's own default limit (512 MB)
    // but over view_image's 256 MB, so only view_image's bound stops it.
    scene.write("large.png", &png_declaring(12_000, 12_000));
    scene.write("huge.jpg", &jpeg_declaring(60_000, 60_000));

    let measurement = allocations::measure().await;
    let results = [
        scene.view("huge.png", None).await,
        scene.view("large.png", Some(Dialect::Anthropic)).await,
        scene.view("huge.jpg", None).await,
    ];
    let peak = measurement.peak();
    drop(measurement);

    let texts: Vec<String> = results.iter().map(ToolResult::text).collect();
    assert!(results.iter().all(ToolResult::is_error), "{texts:?}");
    assert!(
        texts[0].starts_with("`huge.png` is a PNG file that cannot be shown: it declares 100000×100000 pixels, more than view_image decodes"),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].contains("it declares 12000×12000 pixels"),
        "{}",
        texts[1]
    );
    assert!(
        texts[2].contains("JPEG file that cannot be shown: it declares 60000×60000 pixels"),
        "{}",
        texts[2]
    );
    // The files and the registry's work; nowhere near the hundreds of megabytes declared.
    assert!(peak < 16 * MIB, "peak memory grew by {} MiB", peak / MIB);
}

#[tokio::test]
async fn paths_outside_the_workspace_or_through_links_are_refused() {
    let scene = Scene::new();
    let png = encoded(&photo(8, 8), ImageFormat::Png);
    std::fs::write(scene.dir.path().join("secret.png"), &png).unwrap();
    scene.write("inside.png", &png);
    std::fs::create_dir(scene.dir.path().join("ws/shots")).unwrap();
    scene.write("shots/real.png", &png);
    let ws = scene.dir.path().join("ws");
    std::os::unix::fs::symlink(scene.dir.path().join("secret.png"), ws.join("out.png")).unwrap();
    std::os::unix::fs::symlink("inside.png", ws.join("alias.png")).unwrap();
    std::os::unix::fs::symlink("shots", ws.join("linked")).unwrap();

    let outside = scene.dir.path().join("secret.png");
    for (path, expected) in [
        ("../secret.png", "`../secret.png` is outside the workspace"),
        (outside.to_str().unwrap(), "is outside the workspace"),
        (
            "out.png",
            "`out.png` is or passes through a symbolic link, which view_image does not follow",
        ),
        ("alias.png", "`alias.png` is or passes through a symbolic link"),
        (
            "linked/real.png",
            "`linked/real.png` is or passes through a symbolic link",
        ),
    ] {
        let result = scene.view(path, None).await;
        assert!(result.is_error(), "{path}: {}", result.text());
        assert!(result.text().contains(expected), "{path}: {}", result.text());
    }
    // The same files by their own paths are shown.
    assert_eq!(scene.shown("shots/real.png", None).await.bytes, png);
}
