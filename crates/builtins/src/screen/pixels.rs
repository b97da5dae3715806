//! Converting an X server's ZPixmap image data to RGB.
//!
//! The server sends pixels in its own format: so many bits per pixel (from the pixmap
//! format of the image's depth), rows padded to the scanline pad, multi-byte pixels in
//! the server's byte order, and the color channels wherever the visual's masks put them
//! (`0xff0000` for red on most 24-bit displays, `0xf800` on 16-bit ones). All of these
//! are read from the connection setup rather than assumed.

use agent_tools_core::ToolError;
use x11rb::protocol::xproto::{ImageOrder, Screen, Setup, VisualClass, Visualid};

use super::raster::Rgb;

/// How the pixels of one image are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PixelFormat {
    /// Bytes per pixel: 1 to 4.
    bytes_per_pixel: usize,
    /// Rows are padded to a multiple of this many bits.
    scanline_pad: usize,
    /// Multi-byte pixels have their most significant byte first.
    msb_first: bool,
    /// Red, green and blue.
    channels: [Channel; 3],
}

/// Where a color channel's bits are in a pixel value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Channel {
    shift: u32,
    bits: u32,
}

impl Channel {
    fn from_mask(mask: u32) -> Self {
        Self {
            shift: mask.trailing_zeros().min(31),
            bits: mask.count_ones(),
        }
    }

    /// The channel of `pixel` scaled to 8 bits.
    fn value(self, pixel: u32) -> u8 {
        let max = (1u64 << self.bits) - 1;
        let raw = u64::from(pixel >> self.shift) & max;
        // A channel without bits (max 0) reads as 0.
        (raw * 255 + max / 2).checked_div(max).unwrap_or(0) as u8
    }
}

impl PixelFormat {
    /// The format of an image of `depth` on `visual`, from the connection setup.
    pub(crate) fn of(setup: &Setup, screen: &Screen, depth: u8, visual: Visualid) -> Result<Self, ToolError> {
        let visual_type = screen
            .allowed_depths
            .iter()
            .flat_map(|allowed| &allowed.visuals)
            .find(|candidate| candidate.visual_id == visual)
            .ok_or_else(|| ToolError::new(format!("the X server did not describe visual {visual:#x}")))?;
        if visual_type.class != VisualClass::TRUE_COLOR {
            return Err(ToolError::new(format!(
                "the display uses a {:?} visual; only TrueColor displays (depth 15 and up) can be captured",
                visual_type.class
            )));
        }
        let format = setup
            .pixmap_formats
            .iter()
            .find(|format| format.depth == depth)
            .ok_or_else(|| ToolError::new(format!("the X server has no pixmap format for depth {depth}")))?;
        Self::new(
            format.bits_per_pixel,
            format.scanline_pad,
            setup.image_byte_order == ImageOrder::MSB_FIRST,
            [
                visual_type.red_mask,
                visual_type.green_mask,
                visual_type.blue_mask,
            ],
        )
    }

    /// A format from its parts; only whole-byte pixels of up to 32 bits are supported.
    pub(crate) fn new(
        bits_per_pixel: u8,
        scanline_pad: u8,
        msb_first: bool,
        masks: [u32; 3],
    ) -> Result<Self, ToolError> {
        if !matches!(bits_per_pixel, 8 | 16 | 24 | 32) || !matches!(scanline_pad, 8 | 16 | 32) {
            return Err(ToolError::new(format!(
                "unsupported X pixel format: {bits_per_pixel} bits per pixel, rows padded to {scanline_pad} bits"
            )));
        }
        Ok(Self {
            bytes_per_pixel: usize::from(bits_per_pixel / 8),
            scanline_pad: usize::from(scanline_pad),
            msb_first,
            channels: masks.map(Channel::from_mask),
        })
    }

    /// Bytes per row of an image `width` pixels wide, padding included.
    fn stride(self, width: usize) -> usize {
        let bits = width * self.bytes_per_pixel * 8;
        bits.div_ceil(self.scanline_pad) * self.scanline_pad / 8
    }

    /// Converts `data`, a `width` x `height` image in this format, to RGB.
    pub(crate) fn convert(self, data: &[u8], width: u16, height: u16) -> Result<Rgb, ToolError> {
        let (width, height) = (usize::from(width), usize::from(height));
        let stride = self.stride(width);
        if data.len() < stride * height {
            return Err(ToolError::new(format!(
                "the X server sent {} bytes for a {width}x{height} image that needs {}",
                data.len(),
                stride * height
            )));
        }
        let mut pixels = Vec::with_capacity(width * height * 3);
        for row in data.chunks_exact(stride).take(height) {
            for pixel in row[..width * self.bytes_per_pixel].chunks_exact(self.bytes_per_pixel) {
                let value = self.value(pixel);
                pixels.extend(self.channels.map(|channel| channel.value(value)));
            }
        }
        Rgb::new(width as u32, height as u32, pixels)
            .ok_or_else(|| ToolError::new("the captured image has an unexpected size"))
    }

    fn value(self, bytes: &[u8]) -> u32 {
        let accumulate = |value: u32, byte: &u8| (value << 8) | u32::from(*byte);
        if self.msb_first {
            bytes.iter().fold(0, accumulate)
        } else {
            bytes.iter().rev().fold(0, accumulate)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RGB888: [u32; 3] = [0xff_0000, 0x00_ff00, 0x00_00ff];

    #[test]
    fn thirty_two_bits_least_significant_byte_first() {
        let format = PixelFormat::new(32, 32, false, RGB888).unwrap();
        // Pixel 0x00ff8000 (orange) and 0x000000ff (blue), as stored on little-endian servers.
        let data = [0x00, 0x80, 0xff, 0x00, 0xff, 0x00, 0x00, 0x00];
        let image = format.convert(&data, 2, 1).unwrap();
        assert_eq!(image.pixels(), [0xff, 0x80, 0x00, 0x00, 0x00, 0xff]);
    }

    #[test]
    fn twenty_four_bits_most_significant_byte_first_with_padding() {
        let format = PixelFormat::new(24, 32, true, RGB888).unwrap();
        // One 24-bit pixel per row, padded to 4 bytes; two rows.
        let data = [0x12, 0x34, 0x56, 0xee, 0xab, 0xcd, 0xef, 0xee];
        let image = format.convert(&data, 1, 2).unwrap();
        assert_eq!(image.pixels(), [0x12, 0x34, 0x56, 0xab, 0xcd, 0xef]);
    }

    #[test]
    fn sixteen_bit_565_is_scaled_to_eight_bits() {
        let format = PixelFormat::new(16, 32, false, [0xf800, 0x07e0, 0x001f]).unwrap();
        // Pure red (0xf800), and half-bright green (0x0400: 32 of 63).
        let data = [0x00, 0xf8, 0x00, 0x04];
        let image = format.convert(&data, 2, 1).unwrap();
        assert_eq!(image.pixels(), [255, 0, 0, 0, 130, 0]);
    }

    #[test]
    fn bgr_masks_are_honoured() {
        let format = PixelFormat::new(32, 32, false, [0x00_00ff, 0x00_ff00, 0xff_0000]).unwrap();
        let image = format.convert(&[0x11, 0x22, 0x33, 0x00], 1, 1).unwrap();
        assert_eq!(image.pixels(), [0x11, 0x22, 0x33]);
    }

    #[test]
    fn short_data_and_odd_formats_are_errors() {
        let format = PixelFormat::new(32, 32, false, RGB888).unwrap();
        assert!(format.convert(&[0; 7], 2, 1).is_err());
        assert!(PixelFormat::new(4, 32, false, RGB888).is_err());
        assert!(PixelFormat::new(32, 7, false, RGB888).is_err());
    }
}
