//! Encoding an image that cannot be sent as it is: PNG or JPEG, within a byte limit.
//!
//! The format follows the pixels, not the file's name or its old format:
//!
//! - **PNG** for an image with transparency (JPEG has none: transparent parts would turn
//!   black) and for one of at most [`FEW_COLOURS`] colours (diagrams, flat interfaces,
//!   text on a plain background), which PNG stores exactly and small;
//! - **JPEG** at quality [`QUALITIES`]`[0]` otherwise: photographs, and screenshots whose
//!   scaling blended their colours, which PNG stores several times larger, for no detail
//!   a model sees. Every provider takes both.
//!
//! When the encoding is over the limit, JPEG's quality goes down a step at a time
//! ([`QUALITIES`]), a PNG without transparency becomes JPEG, and when nothing else is left
//! the image is scaled to three quarters and tried again.

use std::collections::HashSet;
use std::io::Cursor;

use ::image::codecs::{
    jpeg::JpegEncoder,
    png::{CompressionType, FilterType as PngFilter, PngEncoder},
};
use ::image::{DynamicImage, GenericImageView, ImageError};

use super::resize::resize;

/// At most this many distinct colours make an image "flat": PNG.
pub(crate) const FEW_COLOURS: usize = 256;
/// JPEG qualities, tried in turn while the encoding is over the limit.
pub(crate) const QUALITIES: [u8; 3] = [85, 70, 55];
/// An image is not scaled below this many pixels a side to meet a byte limit.
const SMALLEST_SIDE: u32 = 16;

/// How an image was encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Png,
    Jpeg { quality: u8 },
}

impl Encoding {
    /// Its media type.
    pub(crate) fn mime_type(self) -> &'static str {
        match self {
            Encoding::Png => "image/png",
            Encoding::Jpeg { .. } => "image/jpeg",
        }
    }
}

/// An encoded image.
#[derive(Debug)]
pub(crate) struct Encoded {
    pub(crate) bytes: Vec<u8>,
    pub(crate) encoding: Encoding,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// Why no encoding fitted.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EncodeError {
    #[error("cannot encode the image: {0}")]
    Codec(#[from] ImageError),
    #[error("cannot encode the image in {limit} bytes, even at {SMALLEST_SIDE} pixels a side")]
    TooLarge { limit: u64 },
}

/// `image` encoded in at most `limit` bytes, as PNG or JPEG (see the module docs).
pub(crate) fn encode_within(image: DynamicImage, limit: u64) -> Result<Encoded, EncodeError> {
    let transparent = has_transparency(&image);
    let mut image = if transparent {
        DynamicImage::ImageRgba8(image.into_rgba8())
    } else {
        DynamicImage::ImageRgb8(image.into_rgb8())
    };
    let mut encoding = match transparent || is_flat(&image) {
        true => Encoding::Png,
        false => Encoding::Jpeg {
            quality: QUALITIES[0],
        },
    };
    loop {
        let bytes = encode(&image, encoding)?;
        if bytes.len() as u64 <= limit {
            let (width, height) = image.dimensions();
            return Ok(Encoded {
                bytes,
                encoding,
                width,
                height,
            });
        }
        match smaller(encoding, transparent) {
            Some(next) => encoding = next,
            None => image = shrunk(&image).ok_or(EncodeError::TooLarge { limit })?,
        }
    }
}

/// The next encoding to try at the same size, if any.
fn smaller(encoding: Encoding, transparent: bool) -> Option<Encoding> {
    match encoding {
        Encoding::Png if transparent => None,
        Encoding::Png => Some(Encoding::Jpeg {
            quality: QUALITIES[0],
        }),
        Encoding::Jpeg { quality } => QUALITIES
            .iter()
            .find(|&&lower| lower < quality)
            .map(|&quality| Encoding::Jpeg { quality }),
    }
}

/// The image at three quarters of its size, unless that is too small.
fn shrunk(image: &DynamicImage) -> Option<DynamicImage> {
    let (width, height) = (image.width() * 3 / 4, image.height() * 3 / 4);
    (width.min(height) >= SMALLEST_SIDE).then(|| resize(image, width, height))
}

fn encode(image: &DynamicImage, encoding: Encoding) -> Result<Vec<u8>, ImageError> {
    let mut bytes = Cursor::new(Vec::new());
    match encoding {
        Encoding::Png => image.write_with_encoder(PngEncoder::new_with_quality(
            &mut bytes,
            CompressionType::Default,
            PngFilter::Adaptive,
        ))?,
        Encoding::Jpeg { quality } => {
            image.write_with_encoder(JpegEncoder::new_with_quality(&mut bytes, quality))?
        }
    }
    Ok(bytes.into_inner())
}

/// Whether some pixel is not fully opaque.
fn has_transparency(image: &DynamicImage) -> bool {
    match image {
        DynamicImage::ImageRgba8(pixels) => pixels.pixels().any(|pixel| pixel.0[3] < u8::MAX),
        DynamicImage::ImageLumaA8(pixels) => pixels.pixels().any(|pixel| pixel.0[1] < u8::MAX),
        other if other.color().has_alpha() => other.to_rgba8().pixels().any(|pixel| pixel.0[3] < u8::MAX),
        _ => false,
    }
}

/// Whether the image has at most [`FEW_COLOURS`] colours (stops counting past them).
fn is_flat(image: &DynamicImage) -> bool {
    let mut seen = HashSet::with_capacity(FEW_COLOURS + 1);
    for (_, _, pixel) in image.pixels() {
        if seen.insert(pixel.0) && seen.len() > FEW_COLOURS {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::image::{Rgb, RgbImage, Rgba, RgbaImage};

    /// Noise: every pixel a different colour, which no encoder compresses much.
    fn noise(width: u32, height: u32) -> DynamicImage {
        let mut state = 0x2545_f491_u32;
        DynamicImage::ImageRgb8(RgbImage::from_fn(width, height, |_, _| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let [r, g, b, _] = state.to_le_bytes();
            Rgb([r, g, b])
        }))
    }

    #[test]
    fn the_format_follows_the_pixels() {
        let flat = DynamicImage::ImageRgb8(RgbImage::from_fn(300, 200, |x, _| Rgb([(x % 50) as u8, 0, 0])));
        assert_eq!(encode_within(flat, u64::MAX).unwrap().encoding, Encoding::Png);
        let photo = encode_within(noise(300, 200), u64::MAX).unwrap();
        assert_eq!(photo.encoding, Encoding::Jpeg { quality: 85 });
        assert_eq!(&photo.bytes[..3], b"\xFF\xD8\xFF");
        // Transparency keeps PNG however many colours there are.
        let mut see_through = noise(300, 200).into_rgba8();
        see_through.put_pixel(0, 0, Rgba([1, 2, 3, 0]));
        let encoded = encode_within(DynamicImage::ImageRgba8(see_through), u64::MAX).unwrap();
        assert_eq!(encoded.encoding, Encoding::Png);
        // An alpha channel that is opaque everywhere is no transparency.
        let opaque = DynamicImage::ImageRgba8(RgbaImage::from_pixel(10, 10, Rgba([9, 9, 9, 255])));
        assert!(!has_transparency(&opaque));
    }

    #[test]
    fn the_byte_limit_is_met() {
        let image = noise(800, 600);
        let generous = encode_within(image.clone(), u64::MAX).unwrap();
        let limit = generous.bytes.len() as u64 / 3;
        let tight = encode_within(image.clone(), limit).unwrap();
        assert!(tight.bytes.len() as u64 <= limit);
        assert!(matches!(tight.encoding, Encoding::Jpeg { quality } if quality < 85));
        // Far below what quality can reach: the image is scaled down.
        let tiny = encode_within(image, 20_000).unwrap();
        assert!(tiny.bytes.len() <= 20_000);
        assert!(tiny.width < 800);
        assert!((f64::from(tiny.width) / f64::from(tiny.height) - 4.0 / 3.0).abs() < 0.02);
    }

    #[test]
    fn transparent_images_shrink_rather_than_turn_to_jpeg() {
        let mut see_through = noise(400, 400).into_rgba8();
        see_through.put_pixel(0, 0, Rgba([1, 2, 3, 0]));
        let encoded = encode_within(DynamicImage::ImageRgba8(see_through), 100_000).unwrap();
        assert_eq!(encoded.encoding, Encoding::Png);
        assert!(encoded.bytes.len() <= 100_000 && encoded.width < 400);
        let error = encode_within(noise(64, 64), 10).unwrap_err();
        assert!(matches!(error, EncodeError::TooLarge { limit: 10 }), "{error}");
    }
}
