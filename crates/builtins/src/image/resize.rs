//! Scaling an image down to a size a provider takes.
//!
//! [`FILTER`] does it in one pass where it can. `image` runs a filter through a
//! floating-point buffer of the source's width × the target's height (16 bytes a pixel):
//! for a wide source and a tall target that buffer grows large (a 16,384-pixel-wide image
//! scaled to Gemini's 3072 pixels: 800 MB). When it would pass [`FILTER_BUFFER_BYTES`] and
//! the source is at least twice the target in both directions, a box filter first averages
//! the image down to twice the target (`image`'s `thumbnail`: integer arithmetic, no buffer
//! but its output), which keeps the buffer under twice the target's size × 16 bytes and
//! loses nothing the final filter would keep (Pillow's `reducing_gap` does the same).

use ::image::DynamicImage;
use ::image::imageops::FilterType;

/// The filter: the triangle (bilinear) filter, whose support `image` widens by the scale
/// when it scales down, so every source pixel weighs in (no aliasing). Chosen by
/// measurement (`benches/view_image.rs`, group `view_image/filter`: a 4000×3000 image to
/// 1238×928): the fastest, 207 ms of CPU against Catmull-Rom's 245 and Lanczos3's 342
/// (sharper filters a model's vision does not need at this scale); a box pass first made
/// it slower (387 ms), so it is kept for what it saves in memory.
pub(crate) const FILTER: FilterType = FilterType::Triangle;

/// The largest floating-point buffer the filter may use before a box pass comes first.
pub(crate) const FILTER_BUFFER_BYTES: u64 = 128 * 1024 * 1024;

/// `image` scaled to `width` × `height`, which must not be larger.
pub(crate) fn resize(image: &DynamicImage, width: u32, height: u32) -> DynamicImage {
    resize_within(image, width, height, FILTER_BUFFER_BYTES)
}

fn resize_within(image: &DynamicImage, width: u32, height: u32, buffer_bytes: u64) -> DynamicImage {
    let (double_width, double_height) = (width.saturating_mul(2), height.saturating_mul(2));
    let buffer = u64::from(image.width()) * u64::from(height) * 16;
    if buffer > buffer_bytes && image.width() >= double_width && image.height() >= double_height {
        image
            .thumbnail_exact(double_width, double_height)
            .resize_exact(width, height, FILTER)
    } else {
        image.resize_exact(width, height, FILTER)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::image::{Luma, Rgb, RgbImage};

    #[test]
    fn sizes_and_colours_are_kept() {
        let red = DynamicImage::ImageRgb8(RgbImage::from_pixel(1000, 600, Rgb([200, 10, 10])));
        for (width, height) in [(100, 60), (499, 299), (900, 540)] {
            let scaled = resize(&red, width, height);
            assert_eq!((scaled.width(), scaled.height()), (width, height));
            let pixel = scaled.to_rgb8().get_pixel(width / 2, height / 2).0;
            assert_eq!(pixel, [200, 10, 10]);
        }
    }

    #[test]
    fn halves_stay_apart() {
        // A left half black and a right half white keep their halves at a tenth of the size.
        let halves = RgbImage::from_fn(
            1000,
            100,
            |x, _| if x < 500 { Rgb([0; 3]) } else { Rgb([255; 3]) },
        );
        let scaled = resize(&DynamicImage::ImageRgb8(halves), 100, 10).to_rgb8();
        assert_eq!(scaled.get_pixel(10, 5).0, [0; 3]);
        assert_eq!(scaled.get_pixel(90, 5).0, [255; 3]);
    }

    #[test]
    fn fine_detail_averages_out_with_or_without_the_box_pass() {
        let stripes = DynamicImage::ImageLuma8(::image::GrayImage::from_fn(1200, 900, |x, _| {
            Luma([if x % 2 == 0 { 0 } else { 254 }])
        }));
        // The filter's buffer for 150 rows of 1200 pixels is 2.9 MB: over 1 MB, under 128 MB.
        for budget in [1024 * 1024, FILTER_BUFFER_BYTES] {
            let scaled = resize_within(&stripes, 200, 150, budget);
            assert_eq!((scaled.width(), scaled.height()), (200, 150));
            // One-pixel stripes average to grey, not to one of their colours (no aliasing).
            let grey = scaled.to_luma8().get_pixel(100, 75).0[0];
            assert!((120..=134).contains(&grey), "{budget}: {grey}");
        }
    }
}
