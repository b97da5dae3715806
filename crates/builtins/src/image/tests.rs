//! `view_image` on real files, called directly; the registry's path (dialects, links,
//! bombs) is in `tests/it/view_image.rs`.

use std::io::Cursor;

use ::image::{DynamicImage, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};
use base64::Engine as _;

use super::*;

fn workspace() -> (tempfile::TempDir, Workspace) {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    (temp, ws)
}

fn encoded(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Cursor::new(Vec::new());
    image.write_to(&mut bytes, format).unwrap();
    bytes.into_inner()
}

fn gradient(width: u32, height: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |x, y| {
        Rgb([(x * 255 / width) as u8, (y * 255 / height) as u8, 128])
    }))
}

/// The call's text and its image: media type and bytes.
fn view(ws: &Workspace, dialect: Option<Dialect>, path: &str) -> Result<(String, String, Vec<u8>), String> {
    let output =
        view_image(ws, dialect, ViewImageArgs { path: path.into() }).map_err(|error| error.to_string())?;
    let image = output.content.iter().find_map(|part| match part {
        Content::Image { mime_type, data, .. } => Some((mime_type.clone(), data.clone())),
        _ => None,
    });
    let (mime_type, data) = image.expect("an image part");
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
    Ok((output.text_content(), mime_type, bytes))
}

#[test]
fn small_images_are_sent_unchanged() {
    let (temp, ws) = workspace();
    let png = encoded(&gradient(64, 48), ImageFormat::Png);
    std::fs::write(temp.path().join("small.png"), &png).unwrap();
    let (text, mime_type, bytes) = view(&ws, None, "small.png").unwrap();
    assert_eq!(mime_type, "image/png");
    assert_eq!(bytes, png);
    assert_eq!(
        text,
        format!(
            "`small.png`: PNG image, 64×48 pixels, {}; sent unchanged",
            human_size(png.len() as u64)
        )
    );
}

#[test]
fn large_images_say_how_they_were_scaled() {
    let (temp, ws) = workspace();
    std::fs::write(
        temp.path().join("wide.jpg"),
        encoded(&gradient(4000, 3000), ImageFormat::Jpeg),
    )
    .unwrap();
    let (text, mime_type, bytes) = view(&ws, Some(Dialect::Anthropic), "wide.jpg").unwrap();
    assert!(
        text.contains("JPEG image, 4000×3000 pixels")
            && text.contains("; scaled from 4000×3000 to 1238×928 for Anthropic; sent as "),
        "{text}"
    );
    let decoded = ::image::load_from_memory(&bytes).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (1238, 928));
    // A smooth gradient has many colours: JPEG.
    assert_eq!(mime_type, "image/jpeg");
}

#[test]
fn gifs_become_png_for_providers_that_take_none() {
    let (temp, ws) = workspace();
    let flat = DynamicImage::ImageRgba8(RgbaImage::from_fn(40, 30, |x, _| {
        Rgba([(x * 6) as u8, 0, 0, 255])
    }));
    let gif = encoded(&flat, ImageFormat::Gif);
    std::fs::write(temp.path().join("flat.gif"), &gif).unwrap();
    let (text, mime_type, bytes) = view(&ws, Some(Dialect::Anthropic), "flat.gif").unwrap();
    assert_eq!(
        (mime_type.as_str(), bytes.as_slice()),
        ("image/gif", gif.as_slice()),
        "{text}"
    );
    let (text, mime_type, bytes) = view(&ws, Some(Dialect::Gemini), "flat.gif").unwrap();
    assert_eq!(mime_type, "image/png");
    assert!(
        text.ends_with(&format!(
            "; Gemini takes no GIF images; sent as PNG, {}",
            human_size(bytes.len() as u64)
        )),
        "{text}"
    );
    let decoded = ::image::load_from_memory(&bytes).unwrap().to_rgba8();
    assert_eq!(decoded.get_pixel(5, 5), flat.to_rgba8().get_pixel(5, 5));
}

#[test]
fn corrupt_and_truncated_images_are_refused() {
    let (temp, ws) = workspace();
    let png = encoded(&gradient(300, 200), ImageFormat::Png);
    std::fs::write(temp.path().join("cut.png"), &png[..png.len() / 2]).unwrap();
    let error = view(&ws, None, "cut.png").unwrap_err();
    assert!(
        error.starts_with("`cut.png` is a PNG file that cannot be shown: it cannot be decoded ("),
        "{error}"
    );
    let mut jpeg = encoded(&gradient(300, 200), ImageFormat::Jpeg);
    jpeg.truncate(600);
    std::fs::write(temp.path().join("cut.jpg"), &jpeg).unwrap();
    let error = view(&ws, None, "cut.jpg").unwrap_err();
    assert!(error.contains("JPEG file that cannot be shown"), "{error}");
    std::fs::write(temp.path().join("fake.webp"), b"RIFF\x10\0\0\0WEBPVP8 garbage!").unwrap();
    let error = view(&ws, None, "fake.webp").unwrap_err();
    assert!(error.contains("WebP file that cannot be shown"), "{error}");
}

#[test]
fn photographs_are_turned_upright_as_their_metadata_says() {
    use ::image::ImageEncoder as _;
    use ::image::codecs::jpeg::JpegEncoder;
    let (temp, ws) = workspace();
    // A TIFF-structured Exif block with one entry: orientation 6, "turn 90° clockwise".
    let exif = [
        b"II*\0".as_slice(),
        &[8, 0, 0, 0, 1, 0],
        &[0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0],
        &[0, 0, 0, 0],
    ]
    .concat();
    let sideways = gradient(40, 20).to_rgb8();
    let mut jpeg = Vec::new();
    let mut encoder = JpegEncoder::new_with_quality(&mut jpeg, 90);
    encoder.set_exif_metadata(exif).unwrap();
    encoder
        .write_image(sideways.as_raw(), 40, 20, ::image::ExtendedColorType::Rgb8)
        .unwrap();
    std::fs::write(temp.path().join("phone.jpg"), &jpeg).unwrap();
    let (text, _, bytes) = view(&ws, None, "phone.jpg").unwrap();
    let upright = ::image::load_from_memory(&bytes).unwrap();
    assert_eq!((upright.width(), upright.height()), (20, 40), "{text}");
    assert!(
        text.contains("JPEG image, 20×40 pixels, ")
            && text.contains("; turned upright as its metadata says; sent as "),
        "{text}"
    );
}
