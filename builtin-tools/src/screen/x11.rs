//! Capturing an X display: one `GetImage` of the root window over `x11rb`'s pure-Rust
//! connection. Blocking: call it from [`super::blocking`].

use tool_core::ToolError;
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};
use x11rb::rust_connection::RustConnection;

use super::pixels::PixelFormat;
use super::raster::Rgb;

/// The whole screen of `display` (e.g. `:0`; the screen number in `:0.1` picks the
/// screen) as RGB.
pub(crate) fn capture(display: &str) -> Result<Rgb, ToolError> {
    let (connection, screen_number) = RustConnection::connect(Some(display)).map_err(|error| {
        ToolError::new(format!(
            "cannot connect to the X display `{display}`: {error}; is an X server (or Xvfb) running there?"
        ))
    })?;
    let x_error = |error: &dyn std::fmt::Display| {
        ToolError::new(format!(
            "the X server at `{display}` failed to send the screen: {error}"
        ))
    };
    let setup = connection.setup();
    let screen = setup
        .roots
        .get(screen_number)
        .ok_or_else(|| ToolError::new(format!("the X display `{display}` has no screen {screen_number}")))?;
    let (width, height) = (screen.width_in_pixels, screen.height_in_pixels);
    let image = connection
        .get_image(ImageFormat::Z_PIXMAP, screen.root, 0, 0, width, height, u32::MAX)
        .map_err(|error| x_error(&error))?
        .reply()
        .map_err(|error| x_error(&error))?;
    PixelFormat::of(setup, screen, image.depth, image.visual)?.convert(&image.data, width, height)
}
