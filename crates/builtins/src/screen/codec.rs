//! PNG in and out: captures are saved and returned as PNG, and the capture commands
//! (Chromium, `grim`, `screencapture`) hand theirs over as PNG files.

use std::io::Cursor;

use agent_tools_core::ToolError;
use png::{BitDepth, ColorType, Transformations};

use super::raster::Rgb;

/// Encodes an image as an 8-bit RGB PNG.
pub(crate) fn encode(image: &Rgb) -> Result<Vec<u8>, ToolError> {
    let failed = |error: png::EncodingError| ToolError::new(format!("cannot encode the PNG: {error}"));
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, image.width(), image.height());
    encoder.set_color(ColorType::Rgb);
    encoder.set_depth(BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(failed)?;
    writer.write_image_data(image.pixels()).map_err(failed)?;
    writer.finish().map_err(failed)?;
    Ok(bytes)
}

/// Decodes a PNG of any color type and depth to 8-bit RGB; transparency is dropped.
/// `what` names the image's origin for messages.
pub(crate) fn decode(bytes: &[u8], what: &str) -> Result<Rgb, ToolError> {
    let failed = |error: png::DecodingError| ToolError::new(format!("cannot read {what}'s PNG: {error}"));
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(Transformations::EXPAND | Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(failed)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| ToolError::new(format!("{what}'s PNG is too large to decode")))?;
    let mut buffer = vec![0; size];
    let info = reader.next_frame(&mut buffer).map_err(failed)?;
    buffer.truncate(info.buffer_size());
    let pixels = to_rgb(buffer, info.color_type);
    Rgb::new(info.width, info.height, pixels)
        .ok_or_else(|| ToolError::new(format!("{what}'s PNG has an unexpected layout")))
}

/// 8-bit samples of `color` (after expansion: no palette) as RGB triples.
fn to_rgb(samples: Vec<u8>, color: ColorType) -> Vec<u8> {
    match color {
        ColorType::Rgb | ColorType::Indexed => samples,
        ColorType::Rgba => samples
            .chunks_exact(4)
            .flat_map(|pixel| [pixel[0], pixel[1], pixel[2]])
            .collect(),
        ColorType::Grayscale => samples.iter().flat_map(|&gray| [gray; 3]).collect(),
        ColorType::GrayscaleAlpha => samples.chunks_exact(2).flat_map(|pixel| [pixel[0]; 3]).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgb_round_trips() {
        let image = Rgb::new(3, 2, (0..18).collect()).unwrap();
        assert_eq!(decode(&encode(&image).unwrap(), "the test").unwrap(), image);
    }

    #[test]
    fn other_color_types_become_rgb() {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, 2, 1);
        encoder.set_color(ColorType::GrayscaleAlpha);
        encoder.set_depth(BitDepth::Sixteen);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&[0x80, 0, 0xff, 0xff, 0xff, 0xff, 0, 0])
            .unwrap();
        writer.finish().unwrap();
        let image = decode(&bytes, "the test").unwrap();
        assert_eq!(image.pixels(), [0x80, 0x80, 0x80, 0xff, 0xff, 0xff]);
    }

    #[test]
    fn garbage_is_an_error() {
        let error = decode(b"not a png", "grim").unwrap_err().to_string();
        assert!(error.starts_with("cannot read grim's PNG"), "{error}");
    }
}
