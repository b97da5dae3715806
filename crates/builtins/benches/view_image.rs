//! `view_image` of a 4000×3000 photograph, as PNG and as JPEG, scaled for Anthropic
//! (1238×928, JPEG): decoding, scaling and encoding, through the registry as a user's
//! call goes (JSON arguments, validation, the sync body on the blocking pool).
//!
//! `view_image/filter` measures what chose the scaling filter, in the same run: the
//! 4000×3000 image scaled to 1238×928 by `image`'s filters alone, and after a box filter's
//! pass down to twice the target (which `view_image` makes first only for sources so wide
//! that the filter's buffer would grow large).

use std::hint::black_box;
use std::io::Cursor;
use std::sync::Arc;

use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::{Dialect, ToolCall, ToolRegistry, dialect::DefinitionOptions};
use criterion::{Criterion, criterion_group, criterion_main};
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use serde_json::json;

const WIDTH: u32 = 4000;
const HEIGHT: u32 = 3000;
const TARGET: (u32, u32) = (1238, 928);

/// A photograph's stand-in: smooth gradients with sensor noise, which neither PNG nor JPEG
/// compresses away.
fn photo() -> DynamicImage {
    let mut state = 0x9e37_79b9_u32;
    DynamicImage::ImageRgb8(RgbImage::from_fn(WIDTH, HEIGHT, |x, y| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let noise = (state % 24) as u8;
        Rgb([
            ((x * 200 / WIDTH) as u8).saturating_add(noise),
            ((y * 200 / HEIGHT) as u8).saturating_add(noise),
            (((x + y) * 100 / (WIDTH + HEIGHT)) as u8).saturating_add(noise),
        ])
    }))
}

fn encoded(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut bytes = Cursor::new(Vec::new());
    image.write_to(&mut bytes, format).expect("the image encodes");
    bytes.into_inner()
}

fn scaled_for_anthropic(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let temp = tempfile::tempdir().expect("a temporary directory");
    let photo = photo();
    for (name, format) in [("photo.png", ImageFormat::Png), ("photo.jpg", ImageFormat::Jpeg)] {
        let bytes = encoded(&photo, format);
        eprintln!("{name}: {} bytes", bytes.len());
        std::fs::write(temp.path().join(name), bytes).expect("the file is written");
    }
    let ws = Workspace::open(temp.path()).expect("the workspace opens");
    let registry = ToolRegistry::new();
    Arc::new(Builtins::new(ws).expect("the default configuration is valid"))
        .register_all(&registry)
        .expect("the tools register");
    let view = |path: &'static str| {
        let registry = &registry;
        async move {
            let call = ToolCall::new("c", "view_image", json!({"path": path}))
                .with_definition_options(DefinitionOptions::new(Dialect::Anthropic));
            registry.call(call).await
        }
    };
    for path in ["photo.png", "photo.jpg"] {
        let result = runtime.block_on(view(path));
        assert!(!result.is_error(), "the image is shown: {}", result.text());
        assert!(
            result.text().contains("to 1238×928 for Anthropic"),
            "{}",
            result.text()
        );
        eprintln!("{}", result.text());
    }

    let mut group = c.benchmark_group("view_image");
    group.sample_size(10);
    group.bench_function("png_4000x3000_anthropic", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(view("photo.png").await) })
    });
    group.bench_function("jpeg_4000x3000_anthropic", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(view("photo.jpg").await) })
    });
    group.finish();

    let mut group = c.benchmark_group("view_image/filter");
    group.sample_size(10);
    let (width, height) = TARGET;
    for (name, filter) in [
        ("triangle", FilterType::Triangle),
        ("catmull_rom", FilterType::CatmullRom),
        ("lanczos3", FilterType::Lanczos3),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| black_box(photo.resize_exact(width, height, filter)))
        });
        group.bench_function(format!("box_then_{name}"), |b| {
            b.iter(|| {
                black_box(
                    photo
                        .thumbnail_exact(width * 2, height * 2)
                        .resize_exact(width, height, filter),
                )
            })
        });
    }
    group.bench_function("box_only", |b| {
        b.iter(|| black_box(photo.thumbnail_exact(width, height)))
    });
    group.finish();
}

criterion_group!(benches, scaled_for_anthropic);
criterion_main!(benches);
