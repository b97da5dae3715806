//! `screenshot`: a picture of the desktop or of a web page, saved in the workspace and
//! returned to the model as an image.
//!
//! The desktop is read from the X server with `x11rb`'s pure-Rust connection: no Xlib,
//! no libxcb, nothing to link, so the crate builds on machines without X development
//! packages and a screenshot needs nothing but a local display (Xvfb on a server). Only
//! local X servers are reached, through their Unix socket: never TCP, so a display name
//! cannot become a probe of a port (the `display` module has the rule and says why).
//! Wayland (`grim`) and macOS (`screencapture`) desktops are captured through their
//! commands when no X display is set.
//!
//! Web pages are rendered by headless Chromium. The URL is a model's choice, so it goes
//! through the same SSRF guard as `web_fetch` before Chromium is started — a page on
//! `127.0.0.1` or the cloud metadata address is refused without a browser ever seeing
//! it — and everything the page then loads (redirects, frames, images, scripts) reaches
//! the network only through a proxy that applies the same guard to each connection, so
//! a hostile page cannot frame a private address into the screenshot either.
//!
//! The saved PNG keeps every pixel; the image returned is scaled down to at most
//! [`DEFAULT_MAX_IMAGE_SIDE`] pixels on its long side, the size vision models work at:
//! a larger image costs more tokens and is scaled down by the model's provider anyway.
//! The text beside it says where the file is and how the returned size relates to the
//! captured one, so that coordinates read off the image can be mapped back.

mod args;
mod browser;
mod codec;
mod config;
mod desktop;
mod display;
mod pixels;
mod process;
mod raster;
mod save;
mod scale;
mod x11;

use crate::Workspace;
use agent_tools_core::{ToolError, ToolOutput};

pub use args::{Region, ScreenshotArgs, Target};
pub use config::{DEFAULT_MAX_IMAGE_SIDE, ScreenshotConfig};

use args::Source;

/// Captures the screen or renders a URL, saves the PNG in the workspace and returns it
/// (scaled down to at most [`ScreenshotConfig::max_image_side`]) with a line saying
/// where it was saved and at what sizes.
pub(crate) async fn screenshot(
    ws: &Workspace,
    config: &ScreenshotConfig,
    args: ScreenshotArgs,
) -> Result<ToolOutput, ToolError> {
    let source = Source::from_args(&args, config)?;
    let path = save::target_path(ws, config, args.save_to.as_deref())?;
    let (image, described) = match &source {
        Source::Screen { display } => (desktop::capture(config, display.as_deref()).await?, "screen"),
        Source::Page(page) => (browser::capture(config, page).await?, "page"),
    };
    let shot = save::Shot {
        image,
        region: args.region,
        of: described,
    };
    let ws = ws.clone();
    let max_side = config.max_image_side;
    let saved = blocking(move || save::save(&ws, &path, shot, max_side)).await?;
    Ok(saved.into_output(source.describe()))
}

/// Runs blocking work (X11 round trips, PNG coding, file writes) off the async runtime.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| ToolError::new(format!("the screenshot task failed: {error}")))?
}

#[cfg(test)]
mod tests;
