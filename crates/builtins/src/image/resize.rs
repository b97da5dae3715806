//! Scaling an image down to a size a provider takes.
//!
//! Two passes. When the image is at least twice the target in both directions, a box
//! filter first averages it down to twice the target (`image`'s `thumbnail`: integer
//! arithmetic, one pass, and no buffer but its output); then [`FILTER`] makes the final
//! step. The filter alone would do, but `image` runs it through a floating-point buffer of
//! the source's width × the target's height (16 bytes a pixel): the first pass keeps that
//! buffer, and the time, bounded by the target's size rather than the source's. Averaging
//! down to twice the target loses nothing the final filter would keep (Pillow's
//! `reducing_gap` does the same).
//!
//! The filter was chosen by measurement (`benches/view_image.rs`, `view_image/filter`):
//! see [`FILTER`].

use ::image::DynamicImage;
use ::image::imageops::FilterType;

/// The final step's filter: Catmull-Rom, a bicubic filter, sharper than the triangle
/// (bilinear) filter on text and about as fast after the box pass; Lanczos3 was no
/// sharper to look at and slower (figures in the guide's chapter on the built-in tools).
pub(crate) const FILTER: FilterType = FilterType::CatmullRom;

/// `image` scaled to `width` × `height`, which must not be larger.
pub(crate) fn resize(image: &DynamicImage, width: u32, height: u32) -> DynamicImage {
    let (double_width, double_height) = (width.saturating_mul(2), height.saturating_mul(2));
    if image.width() >= double_width && image.height() >= double_height {
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
    use ::image::{Rgb, RgbImage};

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
}
