//! [`Rgb`]: a captured image as 8-bit RGB pixels, and the cuts made to it.

use super::args::Region;

/// An image of 8-bit RGB pixels, row by row from the top left, without padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rgb {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Rgb {
    /// An image from its pixels; `None` unless there are exactly `width * height * 3`
    /// bytes.
    pub(crate) fn new(width: u32, height: u32, pixels: Vec<u8>) -> Option<Self> {
        let expected = (width as usize).checked_mul(height as usize)?.checked_mul(3)?;
        (pixels.len() == expected).then_some(Self {
            width,
            height,
            pixels,
        })
    }

    /// Width in pixels.
    pub(crate) fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub(crate) fn height(&self) -> u32 {
        self.height
    }

    /// The pixel bytes, `width * 3` per row.
    pub(crate) fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// One row's bytes.
    pub(crate) fn row(&self, y: u32) -> &[u8] {
        let stride = self.stride();
        &self.pixels[y as usize * stride..][..stride]
    }

    /// The color at (`x`, `y`).
    #[cfg(test)]
    pub(crate) fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let at = x as usize * 3;
        let row = self.row(y);
        [row[at], row[at + 1], row[at + 2]]
    }

    /// The part inside `region`, which must lie within the image (see
    /// [`Region::check`]).
    pub(crate) fn crop(&self, region: &Region) -> Rgb {
        let from = region.x as usize * 3;
        let length = region.width as usize * 3;
        let pixels = (region.y..region.y + region.height)
            .flat_map(|y| &self.row(y)[from..from + length])
            .copied()
            .collect();
        Rgb {
            width: region.width,
            height: region.height,
            pixels,
        }
    }

    /// Cuts off the rows at the bottom that repeat the last row exactly — the page's
    /// background below its content — keeping at least `min_height` rows.
    pub(crate) fn trim_bottom(&mut self, min_height: u32) {
        let Some(last) = self.height.checked_sub(1) else {
            return;
        };
        let mut run_start = last;
        while run_start > 0 && self.row(run_start - 1) == self.row(last) {
            run_start -= 1;
        }
        // One row of the background stays, so the page ends on it.
        let height = (run_start + 1).max(min_height).min(self.height);
        self.pixels.truncate(height as usize * self.stride());
        self.height = height;
    }

    fn stride(&self) -> usize {
        self.width as usize * 3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `width` x `height` image whose pixel (x, y) is `[x, y, 7]`.
    fn gradient(width: u32, height: u32) -> Rgb {
        let pixels = (0..height)
            .flat_map(|y| (0..width).flat_map(move |x| [x as u8, y as u8, 7]))
            .collect();
        Rgb::new(width, height, pixels).unwrap()
    }

    #[test]
    fn new_checks_the_length() {
        assert!(Rgb::new(2, 2, vec![0; 12]).is_some());
        assert!(Rgb::new(2, 2, vec![0; 11]).is_none());
        assert!(Rgb::new(u32::MAX, u32::MAX, Vec::new()).is_none());
    }

    #[test]
    fn crop_takes_the_region() {
        let image = gradient(10, 8);
        let cropped = image.crop(&Region {
            x: 3,
            y: 2,
            width: 4,
            height: 5,
        });
        assert_eq!((cropped.width(), cropped.height()), (4, 5));
        assert_eq!(cropped.pixel(0, 0), [3, 2, 7]);
        assert_eq!(cropped.pixel(3, 4), [6, 6, 7]);
    }

    #[test]
    fn trim_bottom_cuts_the_uniform_background() {
        let mut pixels = gradient(4, 3).pixels().to_vec();
        pixels.extend(std::iter::repeat_n(9, 4 * 3 * 20));
        let mut page = Rgb::new(4, 23, pixels).unwrap();
        page.trim_bottom(2);
        assert_eq!(page.height(), 4);
        assert_eq!(page.pixel(0, 3), [9, 9, 9]);
        let mut short = gradient(4, 3);
        short.trim_bottom(10);
        assert_eq!(short.height(), 3);
        let mut uniform = Rgb::new(2, 50, vec![5; 300]).unwrap();
        uniform.trim_bottom(20);
        assert_eq!(uniform.height(), 20);
    }
}
