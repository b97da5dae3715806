//! Saving a capture in the workspace and telling the model what it got.

use std::time::SystemTime;

use crate::{Workspace, WriteMode};
use agent_tools_core::{
    ToolError, ToolOutput,
    output::{Content, Image},
};

use super::args::Region;
use super::config::ScreenshotConfig;
use super::raster::Rgb;
use super::{codec, scale};

/// Where the capture will be saved: `save_to`, or a time-stamped name in the
/// configured directory. Checked before capturing, so that a path outside the workspace
/// or a read-only workspace costs no capture.
pub(crate) fn target_path(
    ws: &Workspace,
    config: &ScreenshotConfig,
    save_to: Option<&str>,
) -> Result<String, ToolError> {
    let path = match save_to {
        Some(path) if !path.to_ascii_lowercase().ends_with(".png") => {
            return Err(ToolError::invalid_arguments(format!(
                "`save_to` must end in `.png`, the format screenshots are saved in, not `{path}`"
            )));
        }
        Some(path) => path.to_owned(),
        None => default_name(&config.save_dir, SystemTime::now()),
    };
    ws.relative_path(&path).map_err(ToolError::invalid_arguments)?;
    if ws.is_read_only() {
        return Err(ToolError::new(
            "the workspace is read-only, so the screenshot cannot be saved",
        ));
    }
    Ok(path)
}

/// `<dir>/screenshot-<UTC time to the millisecond>.png`, without colons.
fn default_name(dir: &str, time: SystemTime) -> String {
    let stamp = humantime::format_rfc3339_millis(time)
        .to_string()
        .replace(':', "-");
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        format!("screenshot-{stamp}.png")
    } else {
        format!("{dir}/screenshot-{stamp}.png")
    }
}

/// A capture on its way to the workspace.
#[derive(Debug)]
pub(crate) struct Shot {
    /// The whole screen or page.
    pub(crate) image: Rgb,
    /// The part to keep, if not all.
    pub(crate) region: Option<Region>,
    /// What the image is of, for messages: `screen` or `page`.
    pub(crate) of: &'static str,
}

/// A saved capture and the image returned for it.
#[derive(Debug)]
pub(crate) struct Saved {
    path: String,
    full_size: (u32, u32),
    region: Option<Region>,
    of: &'static str,
    saved_size: (u32, u32),
    returned_size: (u32, u32),
    returned_png: Vec<u8>,
}

/// Crops the capture to its region, saves it at `path` and scales a copy down to at most
/// `max_side` pixels for the model. Blocking.
pub(crate) fn save(ws: &Workspace, path: &str, shot: Shot, max_side: u32) -> Result<Saved, ToolError> {
    let Shot { image, region, of } = shot;
    let full_size = (image.width(), image.height());
    let image = match &region {
        Some(region) => {
            region.check(image.width(), image.height(), of)?;
            image.crop(region)
        }
        None => image,
    };
    let png = codec::encode(&image)?;
    let written = ws.write_file(path, &png, WriteMode::Overwrite)?;
    let (returned_size, returned_png) = match scale::fit(&image, max_side) {
        Some(smaller) => ((smaller.width(), smaller.height()), codec::encode(&smaller)?),
        None => ((image.width(), image.height()), png),
    };
    Ok(Saved {
        path: Workspace::display(&written.path),
        full_size,
        region,
        of,
        saved_size: (image.width(), image.height()),
        returned_size,
        returned_png,
    })
}

impl Saved {
    /// The tool's output: a line on what was saved where, then the image. `what` says
    /// what was captured (`the screen`, a URL and its window).
    pub(crate) fn into_output(self, what: String) -> ToolOutput {
        let (width, height) = self.saved_size;
        let (full_width, full_height) = self.full_size;
        let captured = match &self.region {
            Some(region) => {
                format!(
                    "the region {region} of {what} ({full_width}x{full_height} px {})",
                    self.of
                )
            }
            None => what,
        };
        let mut text = format!(
            "Screenshot of {captured} saved to `{}` ({width}x{height} px).",
            self.path
        );
        let (returned_width, returned_height) = self.returned_size;
        if self.returned_size == self.saved_size {
            text.push_str(" The image below is at full size.");
        } else {
            let factor = f64::from(width) / f64::from(returned_width);
            text.push_str(&format!(
                " The image below is scaled down to {returned_width}x{returned_height} px: multiply \
                 coordinates in it by {factor:.2} for pixels of the saved image."
            ));
        }
        if let Some(Region { x, y, .. }) = self.region {
            text.push_str(&format!(
                " Add x={x}, y={y} to pixels of the saved image for {} coordinates.",
                self.of
            ));
        }
        ToolOutput::text(text).with_content(Content::from(Image::png(self.returned_png)))
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    #[test]
    fn default_names_carry_the_time() {
        let time = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        assert_eq!(
            default_name("screenshots/", time),
            "screenshots/screenshot-2023-11-14T22-13-20.123Z.png"
        );
        assert_eq!(default_name("", time), "screenshot-2023-11-14T22-13-20.123Z.png");
    }

    #[test]
    fn save_to_is_checked_before_capturing() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let config = ScreenshotConfig::default();
        let path = target_path(&ws, &config, Some("shots/a.PNG")).unwrap();
        assert_eq!(path, "shots/a.PNG");
        assert!(
            target_path(&ws, &config, None)
                .unwrap()
                .starts_with("screenshots/screenshot-")
        );
        let outside = target_path(&ws, &config, Some("../a.png"))
            .unwrap_err()
            .to_string();
        assert!(outside.contains("outside the workspace"), "{outside}");
        let jpeg = target_path(&ws, &config, Some("a.jpg")).unwrap_err().to_string();
        assert!(jpeg.contains("must end in `.png`"), "{jpeg}");
        let read_only = target_path(&ws.clone().read_only(true), &config, None)
            .unwrap_err()
            .to_string();
        assert!(read_only.contains("read-only"), "{read_only}");
    }

    #[test]
    fn the_text_says_what_was_saved_and_returned() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let image = Rgb::new(40, 20, vec![9; 40 * 20 * 3]).unwrap();
        let region = Region {
            x: 4,
            y: 2,
            width: 20,
            height: 10,
        };
        let shot = Shot {
            image,
            region: Some(region),
            of: "screen",
        };
        let output = save(&ws, "out/a.png", shot, 10)
            .unwrap()
            .into_output("the screen".into());
        assert_eq!(
            output.text_content(),
            "Screenshot of the region 20x10 at x=4, y=2 of the screen (40x20 px screen) saved to \
             `out/a.png` (20x10 px). The image below is scaled down to 10x5 px: multiply coordinates \
             in it by 2.00 for pixels of the saved image. Add x=4, y=2 to pixels of the saved image \
             for screen coordinates."
        );
        let saved = codec::decode(&std::fs::read(dir.path().join("out/a.png")).unwrap(), "test").unwrap();
        assert_eq!((saved.width(), saved.height()), (20, 10));
    }
}
