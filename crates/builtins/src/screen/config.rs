//! [`ScreenshotConfig`]: where screenshots are taken from and saved, and the limits of
//! the images and the browser.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The longest side of a returned image unless configured otherwise: the size vision
/// models take in without scaling it down themselves.
pub const DEFAULT_MAX_IMAGE_SIDE: u32 = 1568;

/// How `screenshot` captures and saves.
///
/// ```
/// use agent_tools_builtins::screen::ScreenshotConfig;
///
/// let config = ScreenshotConfig::default().display(":99").max_image_side(800);
/// assert_eq!(config.save_dir, "screenshots");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ScreenshotConfig {
    /// The X display captured when a call names none. `None` (the default) reads
    /// `$DISPLAY` at each capture.
    pub display: Option<String>,
    /// The workspace directory screenshots are saved in when a call gives no `save_to`.
    /// Default `screenshots`.
    pub save_dir: String,
    /// The Chromium (or Chrome) binary for `target: url`. `None` (the default) looks for
    /// `chromium`, `chromium-browser`, `google-chrome` and `google-chrome-stable` on
    /// `PATH` at each call.
    pub chromium: Option<PathBuf>,
    /// Turn the SSRF guard off for `target: url`: loopback and private network pages,
    /// and whatever they load, may be rendered. Off by default.
    pub allow_private_network: bool,
    /// Host names let through the SSRF guard, each resolving to its address only; see
    /// [`trusted_host`](Self::trusted_host). None by default.
    pub trusted_hosts: Vec<(String, SocketAddr)>,
    /// The longest side of the returned image, in pixels; larger captures are scaled
    /// down (the saved file keeps its full size). Default [`DEFAULT_MAX_IMAGE_SIDE`].
    pub max_image_side: u32,
    /// How long a capture command (Chromium, `grim`, `screencapture`) may run before it
    /// is killed. Default 30 s.
    pub timeout: Duration,
    /// Browser window width when a call gives none. Default 1280.
    pub window_width: u32,
    /// Browser window height when a call gives none. Default 800.
    pub window_height: u32,
    /// Height of the window a `full_page` capture renders in, the most of a page's
    /// length it can show. Default 8000.
    pub full_page_height: u32,
}

impl Default for ScreenshotConfig {
    fn default() -> Self {
        Self {
            display: None,
            save_dir: "screenshots".to_owned(),
            chromium: None,
            allow_private_network: false,
            trusted_hosts: Vec::new(),
            max_image_side: DEFAULT_MAX_IMAGE_SIDE,
            timeout: Duration::from_secs(30),
            window_width: 1280,
            window_height: 800,
            full_page_height: 8000,
        }
    }
}

impl ScreenshotConfig {
    /// Sets the [`display`](Self::display) captured by default.
    pub fn display(mut self, display: impl Into<String>) -> Self {
        self.display = Some(display.into());
        self
    }

    /// Sets the [`save_dir`](Self::save_dir).
    pub fn save_dir(mut self, dir: impl Into<String>) -> Self {
        self.save_dir = dir.into();
        self
    }

    /// Sets the [`chromium`](Self::chromium) binary.
    pub fn chromium(mut self, path: impl Into<PathBuf>) -> Self {
        self.chromium = Some(path.into());
        self
    }

    /// Sets [`allow_private_network`](Self::allow_private_network).
    pub fn allow_private_network(mut self, allow: bool) -> Self {
        self.allow_private_network = allow;
        self
    }

    /// Lets one host name through the SSRF guard, as
    /// [`FetchConfig::trusted_host`](crate::web::FetchConfig::trusted_host) does for
    /// `web_fetch`: pages on `name` (and what they load from it) are fetched from
    /// `address` whatever DNS says. The port of `address` is used when the page's URL
    /// gives none (for `https`, when it is 443). Only the name is exempt: a frame or
    /// redirect from it to another private host is refused.
    pub fn trusted_host(mut self, name: impl Into<String>, address: SocketAddr) -> Self {
        self.trusted_hosts.push((name.into(), address));
        self
    }

    /// Sets [`max_image_side`](Self::max_image_side) (at least 1).
    pub fn max_image_side(mut self, pixels: u32) -> Self {
        self.max_image_side = pixels.max(1);
        self
    }

    /// Sets the capture command [`timeout`](Self::timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the default browser window size.
    pub fn window_size(mut self, width: u32, height: u32) -> Self {
        self.window_width = width;
        self.window_height = height;
        self
    }

    /// Sets [`full_page_height`](Self::full_page_height).
    pub fn full_page_height(mut self, pixels: u32) -> Self {
        self.full_page_height = pixels;
        self
    }
}
