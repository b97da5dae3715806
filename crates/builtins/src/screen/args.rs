//! The arguments of `screenshot` as the model gives them, and the capture they ask for
//! once checked.

use agent_tools_core::ToolError;
use schemars::JsonSchema;
use serde::Deserialize;

use super::config::ScreenshotConfig;
use super::display::LocalDisplay;

/// Smallest browser window side accepted, in pixels.
pub(crate) const MIN_WINDOW_SIDE: u32 = 64;
/// Largest browser window side accepted, in pixels.
pub(crate) const MAX_WINDOW_SIDE: u32 = 8192;

/// What `screenshot` captures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The desktop as it is shown on the display.
    #[default]
    Screen,
    /// A web page, rendered in a headless browser.
    Url,
}

/// A rectangle in pixels, from the top-left corner of the screen or page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct Region {
    /// Left edge, in pixels from the left of the screen (or page).
    pub x: u32,
    /// Top edge, in pixels from the top of the screen (or page).
    pub y: u32,
    /// Width in pixels.
    #[schemars(range(min = 1))]
    pub width: u32,
    /// Height in pixels.
    #[schemars(range(min = 1))]
    pub height: u32,
}

impl Region {
    /// Refuses a region that is empty or does not lie within a `width` x `height` image.
    pub(crate) fn check(&self, width: u32, height: u32, of: &str) -> Result<(), ToolError> {
        let right = u64::from(self.x) + u64::from(self.width);
        let bottom = u64::from(self.y) + u64::from(self.height);
        if self.width == 0 || self.height == 0 {
            return Err(ToolError::invalid_arguments(format!(
                "region {self} is empty: width and height must be at least 1"
            )));
        }
        if right > u64::from(width) || bottom > u64::from(height) {
            return Err(ToolError::invalid_arguments(format!(
                "region {self} does not fit the {width}x{height} {of}: it must end at x <= {width} \
                 and y <= {height}"
            )));
        }
        Ok(())
    }
}

impl std::fmt::Display for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Region { x, y, width, height } = self;
        write!(f, "{width}x{height} at x={x}, y={y}")
    }
}

/// Arguments of `screenshot`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ScreenshotArgs {
    /// What to capture: `screen` (the default) takes a picture of the desktop; `url`
    /// renders the web page at `url` in a headless browser and takes a picture of it.
    pub target: Option<Target>,
    /// The http or https URL of the page to render. Giving a URL implies `target: url`.
    pub url: Option<String>,
    /// Capture only this rectangle instead of everything, in pixels of the full-size
    /// screen or page. An image returned earlier may have been scaled down: convert its
    /// coordinates as its text says.
    pub region: Option<Region>,
    /// The X display of this machine to capture, like `:0` or `:99` (no host names).
    /// Leave it out to use the configured display. Only for `target: screen`.
    pub display: Option<String>,
    /// Where to save the PNG: a path inside the workspace ending in `.png`. Default
    /// `screenshots/screenshot-<time>.png`.
    pub save_to: Option<String>,
    /// Capture the whole length of the page instead of the first window-full. Only for
    /// `target: url`.
    pub full_page: Option<bool>,
    /// Width of the browser window in pixels (default 1280). Only for `target: url`.
    #[schemars(range(min = MIN_WINDOW_SIDE, max = MAX_WINDOW_SIDE))]
    pub width: Option<u32>,
    /// Height of the browser window in pixels (default 800). Only for `target: url`.
    #[schemars(range(min = MIN_WINDOW_SIDE, max = MAX_WINDOW_SIDE))]
    pub height: Option<u32>,
}

/// What to capture, once the arguments are checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// The desktop; `display` is the X display the call named, if any.
    Screen {
        /// The display the call asked for.
        display: Option<String>,
    },
    /// A web page.
    Page(PageRequest),
}

/// A web page to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageRequest {
    /// The URL as given (parsed and checked by the browser module).
    pub(crate) url: String,
    /// Window width in pixels.
    pub(crate) width: u32,
    /// Window height in pixels.
    pub(crate) height: u32,
    /// Capture the page's whole length.
    pub(crate) full_page: bool,
}

impl Source {
    /// The capture `args` ask for; contradictory or out-of-range arguments are refused.
    pub(crate) fn from_args(args: &ScreenshotArgs, config: &ScreenshotConfig) -> Result<Self, ToolError> {
        let target = args.target.unwrap_or(if args.url.is_some() {
            Target::Url
        } else {
            Target::Screen
        });
        match target {
            Target::Screen => Self::screen(args),
            Target::Url => Self::page(args, config).map(Source::Page),
        }
    }

    fn screen(args: &ScreenshotArgs) -> Result<Self, ToolError> {
        let page_only = [
            ("url", args.url.is_some()),
            ("full_page", args.full_page.is_some()),
            ("width", args.width.is_some()),
            ("height", args.height.is_some()),
        ];
        if let Some((name, _)) = page_only.iter().find(|(_, given)| *given) {
            return Err(ToolError::invalid_arguments(format!(
                "`{name}` applies to `target: url` only; to capture part of the screen, use `region`"
            )));
        }
        if let Some(display) = &args.display {
            check_local_display(display)?;
        }
        Ok(Source::Screen {
            display: args.display.clone(),
        })
    }

    fn page(args: &ScreenshotArgs, config: &ScreenshotConfig) -> Result<PageRequest, ToolError> {
        let Some(url) = args.url.clone() else {
            return Err(ToolError::invalid_arguments(
                "`target: url` needs a `url` to render",
            ));
        };
        if args.display.is_some() {
            return Err(ToolError::invalid_arguments(
                "`display` applies to `target: screen` only; pages are rendered off-screen",
            ));
        }
        Ok(PageRequest {
            url,
            width: window_side("width", args.width, config.window_width)?,
            height: window_side("height", args.height, config.window_height)?,
            full_page: args.full_page.unwrap_or(false),
        })
    }

    /// A phrase for the output saying what was captured.
    pub(crate) fn describe(&self) -> String {
        match self {
            Source::Screen { .. } => "the screen".to_owned(),
            Source::Page(page) => {
                let length = if page.full_page { ", full length" } else { "" };
                format!("{} in a {}x{} window{length}", page.url, page.width, page.height)
            }
        }
    }
}

fn window_side(name: &str, given: Option<u32>, default: u32) -> Result<u32, ToolError> {
    let side = given.unwrap_or(default);
    if !(MIN_WINDOW_SIDE..=MAX_WINDOW_SIDE).contains(&side) {
        return Err(ToolError::invalid_arguments(format!(
            "`{name}` must be between {MIN_WINDOW_SIDE} and {MAX_WINDOW_SIDE} pixels, not {side}"
        )));
    }
    Ok(side)
}

/// Refuses a display a model names unless it is a local one (`:N`, `:N.S`, `unix:N`):
/// a display like `host:0` would make the tool connect to another machine's X server,
/// or probe a port.
fn check_local_display(display: &str) -> Result<(), ToolError> {
    LocalDisplay::parse(display)
        .map(drop)
        .map_err(|error| ToolError::invalid_arguments(format!("`display`: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(args: ScreenshotArgs) -> Result<Source, String> {
        Source::from_args(&args, &ScreenshotConfig::default()).map_err(|error| error.to_string())
    }

    #[test]
    fn the_target_follows_from_the_url() {
        assert_eq!(
            source(ScreenshotArgs::default()),
            Ok(Source::Screen { display: None })
        );
        let page = source(ScreenshotArgs {
            url: Some("http://example.com/".into()),
            width: Some(640),
            ..ScreenshotArgs::default()
        });
        assert_eq!(
            page,
            Ok(Source::Page(PageRequest {
                url: "http://example.com/".into(),
                width: 640,
                height: 800,
                full_page: false
            }))
        );
    }

    #[test]
    fn contradictory_arguments_are_refused() {
        let no_url = source(ScreenshotArgs {
            target: Some(Target::Url),
            ..ScreenshotArgs::default()
        });
        assert!(no_url.unwrap_err().contains("needs a `url`"));
        let width_for_screen = source(ScreenshotArgs {
            width: Some(100),
            ..ScreenshotArgs::default()
        });
        assert!(
            width_for_screen
                .unwrap_err()
                .contains("`width` applies to `target: url`")
        );
        let display_for_page = source(ScreenshotArgs {
            url: Some("http://example.com/".into()),
            display: Some(":0".into()),
            ..ScreenshotArgs::default()
        });
        assert!(display_for_page.unwrap_err().contains("`display` applies"));
        let tiny = source(ScreenshotArgs {
            url: Some("http://example.com/".into()),
            height: Some(10),
            ..ScreenshotArgs::default()
        });
        assert!(tiny.unwrap_err().contains("between 64 and 8192"));
    }

    #[test]
    fn only_local_displays_may_be_named() {
        for display in [":0", ":99", ":1.0", "unix:0"] {
            assert!(check_local_display(display).is_ok(), "{display}");
        }
        for display in [
            "evil.example:0",
            "10.0.0.1:0",
            "localhost:0",
            ":",
            ":1.",
            "0",
            ":a",
        ] {
            assert!(check_local_display(display).is_err(), "{display}");
        }
    }

    #[test]
    fn regions_must_fit() {
        let region = |x, y, width, height| Region { x, y, width, height };
        assert!(region(0, 0, 320, 240).check(320, 240, "screen").is_ok());
        assert!(region(300, 0, 20, 1).check(320, 240, "screen").is_ok());
        let error = region(300, 0, 21, 1)
            .check(320, 240, "screen")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "region 21x1 at x=300, y=0 does not fit the 320x240 screen: it must end at x <= 320 and y <= 240"
        );
        assert!(
            region(0, 0, 0, 5)
                .check(320, 240, "screen")
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
        assert!(region(u32::MAX, 0, 1, 1).check(320, 240, "screen").is_err());
    }
}
