//! Scaling a capture down to the size returned to the model.
//!
//! A box filter: every pixel of the result is the average of the block of source pixels
//! it covers. Each source pixel belongs to exactly one block, so nothing is skipped
//! (text stays legible as grey rather than turning into dropped strokes, as with
//! nearest-neighbour sampling), and the work is one pass over the source.

use super::raster::Rgb;

/// The image scaled down so that its longer side is at most `max_side` pixels, keeping
/// its aspect ratio; `None` when it already fits.
pub(crate) fn fit(image: &Rgb, max_side: u32) -> Option<Rgb> {
    let (width, height) = (image.width(), image.height());
    let max_side = max_side.max(1);
    let long = width.max(height);
    if long <= max_side {
        return None;
    }
    let scaled = |side: u32| {
        let side = (u64::from(side) * u64::from(max_side) + u64::from(long) / 2) / u64::from(long);
        (side as u32).max(1)
    };
    Some(box_filter(image, scaled(width), scaled(height)))
}

/// Averages `image` down to `width` x `height`, which must not be larger than it.
fn box_filter(image: &Rgb, width: u32, height: u32) -> Rgb {
    // Source column x falls in destination column `x * width / source width`.
    let columns: Vec<usize> = (0..image.width())
        .map(|x| block(x, image.width(), width))
        .collect();
    let mut pixels = Vec::with_capacity(width as usize * height as usize * 3);
    let mut sums = vec![0u64; width as usize * 3];
    let mut counts = vec![0u64; width as usize];
    let mut source_y = 0;
    for y in 0..height as usize {
        sums.fill(0);
        counts.fill(0);
        while source_y < image.height() && block(source_y, image.height(), height) == y {
            add_row(image.row(source_y), &columns, &mut sums, &mut counts);
            source_y += 1;
        }
        for (sum, count) in sums.chunks_exact(3).zip(&counts) {
            let count = (*count).max(1);
            pixels.extend(sum.iter().map(|channel| ((channel + count / 2) / count) as u8));
        }
    }
    Rgb::new(width, height, pixels).unwrap_or_else(|| unreachable!("the filter fills every pixel"))
}

/// The destination index a source index falls in, scaling `source` positions to `target`.
fn block(index: u32, source: u32, target: u32) -> usize {
    (u64::from(index) * u64::from(target) / u64::from(source)) as usize
}

fn add_row(row: &[u8], columns: &[usize], sums: &mut [u64], counts: &mut [u64]) {
    for (pixel, &column) in row.chunks_exact(3).zip(columns) {
        for (sum, &channel) in sums[column * 3..column * 3 + 3].iter_mut().zip(pixel) {
            *sum += u64::from(channel);
        }
        counts[column] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(width: u32, height: u32, color: [u8; 3]) -> Rgb {
        let pixels = color.repeat(width as usize * height as usize);
        Rgb::new(width, height, pixels).unwrap()
    }

    #[test]
    fn images_that_fit_are_left_alone() {
        assert!(fit(&solid(100, 50, [1, 2, 3]), 100).is_none());
    }

    #[test]
    fn the_long_side_becomes_the_maximum() {
        let wide = fit(&solid(3000, 1000, [10, 20, 30]), 1568).unwrap();
        assert_eq!((wide.width(), wide.height()), (1568, 523));
        assert!(wide.pixels().chunks_exact(3).all(|pixel| pixel == [10, 20, 30]));
        let tall = fit(&solid(10, 4000, [0; 3]), 100).unwrap();
        assert_eq!((tall.width(), tall.height()), (1, 100));
    }

    #[test]
    fn blocks_are_averaged() {
        // Two columns, black and white, become one grey pixel.
        let image = Rgb::new(2, 1, vec![0, 0, 0, 255, 255, 255]).unwrap();
        let scaled = fit(&image, 1).unwrap();
        assert_eq!(scaled.pixels(), [128, 128, 128]);
        // A 4x4 image with a red left half and a blue right half keeps its halves at 2x2.
        let mut pixels = Vec::new();
        for _ in 0..4 {
            pixels.extend([255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255]);
        }
        let halves = fit(&Rgb::new(4, 4, pixels).unwrap(), 2).unwrap();
        assert_eq!(halves.pixel(0, 1), [255, 0, 0]);
        assert_eq!(halves.pixel(1, 0), [0, 0, 255]);
    }

    #[test]
    fn uneven_ratios_cover_every_source_pixel() {
        let scaled = fit(&solid(7, 5, [200, 100, 50]), 3).unwrap();
        assert_eq!((scaled.width(), scaled.height()), (3, 2));
        assert!(
            scaled
                .pixels()
                .chunks_exact(3)
                .all(|pixel| pixel == [200, 100, 50])
        );
    }
}
