//! Decoding an image file in bounded memory.
//!
//! A file's header declares its size in pixels, and a decoder allocates the whole pixel
//! buffer from that declaration before it reads a single pixel: a PNG of a few hundred
//! bytes can declare 100,000 × 100,000 pixels (30 GB), a decompression bomb. So the
//! declared size is checked against [`MAX_SIDE`] and [`MAX_DECODED_BYTES`] as soon as the
//! header is read, and refused before anything is allocated; the `image` crate's
//! [`Limits`] are set as well, so that the codecs' own allocations (a PNG's metadata
//! chunks, a GIF's frames) are bounded too. What this does not bound: the JPEG decoder's
//! working buffers beside the output (about as large again), and the time a large but
//! allowed image takes.
//!
//! A truncated or corrupt file fails to decode and is refused: it is never passed on
//! unchanged, since a provider that cannot read an image refuses the whole request.

use std::io::Cursor;

use ::image::codecs::{gif::GifDecoder, jpeg::JpegDecoder, png::PngDecoder, webp::WebPDecoder};
use ::image::metadata::Orientation;
use ::image::{AnimationDecoder, DynamicImage, ImageDecoder, ImageError, Limits};

use super::limits::Formats;

/// The longest side decoded, in pixels (a panorama fits; Anthropic refuses over 8000).
pub(crate) const MAX_SIDE: u32 = 32_768;
/// The largest pixel buffer decoded: 256 MB, a 64-megapixel image with alpha.
pub(crate) const MAX_DECODED_BYTES: u64 = 256 * 1024 * 1024;
/// What the codecs may allocate in all: the pixels and room for their own buffers.
const MAX_ALLOC: u64 = MAX_DECODED_BYTES + 64 * 1024 * 1024;

/// A format view_image decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    Png,
    Jpeg,
    Gif,
    WebP,
}

impl Codec {
    /// The codec of a media type `file_kind` recognised.
    pub(crate) fn from_mime(mime_type: &str) -> Option<Codec> {
        match mime_type {
            "image/png" => Some(Codec::Png),
            "image/jpeg" => Some(Codec::Jpeg),
            "image/gif" => Some(Codec::Gif),
            "image/webp" => Some(Codec::WebP),
            _ => None,
        }
    }

    /// The format, as providers' limits name it.
    pub(crate) fn format(self) -> Formats {
        match self {
            Codec::Png => Formats::PNG,
            Codec::Jpeg => Formats::JPEG,
            Codec::Gif => Formats::GIF,
            Codec::WebP => Formats::WEBP,
        }
    }

    /// Its short name: `PNG`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Codec::Png => "PNG",
            Codec::Jpeg => "JPEG",
            Codec::Gif => "GIF",
            Codec::WebP => "WebP",
        }
    }
}

/// A decoded image.
#[derive(Debug)]
pub(crate) struct Decoded {
    /// The pixels, turned upright as the file's orientation says; of an animation, the
    /// first frame.
    pub(crate) image: DynamicImage,
    /// The file holds an animation (APNG, animated GIF or WebP).
    pub(crate) animated: bool,
    /// The file's metadata asked for a rotation or a flip, which `image` has had.
    pub(crate) turned: bool,
}

/// Why a file was not decoded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DecodeError {
    /// The declared size is over the bounds.
    #[error(
        "it declares {width}×{height} pixels, more than view_image decodes (at most {MAX_SIDE} pixels a side and {} MB of pixels)",
        MAX_DECODED_BYTES / 1024 / 1024
    )]
    TooLarge { width: u32, height: u32 },
    /// The codec refused it: corrupt, truncated, or over its limits.
    #[error("it cannot be decoded ({0})")]
    Invalid(#[source] ImageError),
}

/// Decodes `bytes` as `codec`, refusing what is declared too large before allocating it.
pub(crate) fn decode(bytes: &[u8], codec: Codec) -> Result<Decoded, DecodeError> {
    let reader = Cursor::new(bytes);
    match codec {
        Codec::Png => {
            // Only the memory bound while the header is read: a size over the bounds is
            // refused by `check_size`, which says what the file declared.
            let mut header_limits = limits();
            (header_limits.max_image_width, header_limits.max_image_height) = (None, None);
            let decoder = PngDecoder::with_limits(reader, header_limits).map_err(DecodeError::Invalid)?;
            let animated = decoder.is_apng().map_err(DecodeError::Invalid)?;
            still(decoder, animated)
        }
        Codec::Jpeg => still(JpegDecoder::new(reader).map_err(DecodeError::Invalid)?, false),
        Codec::WebP => {
            let decoder = WebPDecoder::new(reader).map_err(DecodeError::Invalid)?;
            let animated = decoder.has_animation();
            still(decoder, animated)
        }
        Codec::Gif => first_frame(GifDecoder::new(reader).map_err(DecodeError::Invalid)?),
    }
}

fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    limits
}

/// Refuses a declared size over the bounds, before anything is allocated for it.
fn check_size(decoder: &impl ImageDecoder, bytes_per_pixel: u64) -> Result<(), DecodeError> {
    let (width, height) = decoder.dimensions();
    let bytes = u64::from(width) * u64::from(height) * bytes_per_pixel;
    if width > MAX_SIDE || height > MAX_SIDE || bytes > MAX_DECODED_BYTES {
        return Err(DecodeError::TooLarge { width, height });
    }
    Ok(())
}

/// A still image (or an animation's default image), upright.
fn still(mut decoder: impl ImageDecoder, animated: bool) -> Result<Decoded, DecodeError> {
    check_size(&decoder, u64::from(decoder.color_type().bytes_per_pixel()))?;
    decoder.set_limits(limits()).map_err(DecodeError::Invalid)?;
    // A broken orientation tag is no reason to refuse the picture.
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(DecodeError::Invalid)?;
    image.apply_orientation(orientation);
    Ok(Decoded {
        image,
        animated,
        turned: orientation != Orientation::NoTransforms,
    })
}

/// A GIF's first frame, as it is displayed (placed on the GIF's canvas).
fn first_frame(mut decoder: GifDecoder<Cursor<&[u8]>>) -> Result<Decoded, DecodeError> {
    // Each frame is decoded to RGBA.
    check_size(&decoder, 4)?;
    decoder.set_limits(limits()).map_err(DecodeError::Invalid)?;
    let mut frames = decoder.into_frames();
    let first = match frames.next() {
        Some(frame) => frame.map_err(DecodeError::Invalid)?,
        None => return Err(DecodeError::Invalid(no_frame())),
    };
    // A second frame, even a broken one, makes the file an animation, never sent as is.
    let animated = frames.next().is_some();
    Ok(Decoded {
        image: DynamicImage::ImageRgba8(first.into_buffer()),
        animated,
        turned: false,
    })
}

fn no_frame() -> ImageError {
    ImageError::IoError(std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        "the GIF holds no image",
    ))
}
