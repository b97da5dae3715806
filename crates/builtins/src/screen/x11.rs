//! Capturing an X display: one `GetImage` of the root window over `x11rb`'s pure-Rust
//! connection, on a Unix socket this module opens itself ([`super::display`] says why
//! not x11rb's `connect`). Blocking: call it from [`super::blocking`].

use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::time::Duration;

use agent_tools_core::ToolError;
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};
use x11rb::reexports::x11rb_protocol::xauth;
use x11rb::rust_connection::{DefaultStream, RustConnection};

use super::display::LocalDisplay;
use super::pixels::PixelFormat;
use super::raster::Rgb;

/// How long a whole capture may take before its socket is shut down.
const DEADLINE: Duration = Duration::from_secs(20);

/// Shuts a socket down if the work on it has not finished by the deadline. x11rb waits on
/// its socket with `poll(2)` and no timeout, so a socket that accepts and never answers
/// (something other than an X server at `/tmp/.X11-unix/XN`) would hold the blocking
/// thread for good; shutting the socket down makes that wait fail at once.
pub(crate) struct Deadline {
    /// Dropped when the work is done, which ends the watching thread without a shutdown.
    _done: mpsc::Sender<()>,
}

impl Deadline {
    fn arm(stream: UnixStream, after: Duration) -> Self {
        let (done, finished) = mpsc::channel::<()>();
        let watch = move || {
            if finished.recv_timeout(after) == Err(mpsc::RecvTimeoutError::Timeout) {
                let _ = stream.shutdown(Shutdown::Both);
            }
        };
        // Without a thread there is no deadline, as before; the registry's timeout still
        // ends the call.
        let _ = std::thread::Builder::new()
            .name("x11-deadline".into())
            .spawn(watch);
        Self { _done: done }
    }
}

/// Connects to the local X server of `display`, with the cookie `$XAUTHORITY` (or
/// `~/.Xauthority`) holds for it, if any. The connection is shut down after `within`
/// unless the returned [`Deadline`] has been dropped by then.
pub(crate) fn connect(display: LocalDisplay, within: Duration) -> Result<(RustConnection, Deadline), String> {
    let path = display.socket_path();
    let stream = UnixStream::connect(&path).map_err(|error| format!("{}: {error}", path.display()))?;
    let deadline = Deadline::arm(stream.try_clone().map_err(|error| error.to_string())?, within);
    let (stream, (family, address)) =
        DefaultStream::from_unix_stream(stream).map_err(|error| error.to_string())?;
    // As x11rb does: an unreadable authority file means trying without a cookie.
    let (auth_name, auth_data) = xauth::get_auth(family, &address, display.number)
        .ok()
        .flatten()
        .unwrap_or_default();
    let connection =
        RustConnection::connect_to_stream_with_auth_info(stream, display.screen, auth_name, auth_data)
            .map_err(|error| match error {
                x11rb::errors::ConnectError::IoError(_) => format!(
                    "{error} (no answer within {}, or the socket closed: is an X server listening there?)",
                    humantime::format_duration(within)
                ),
                other => other.to_string(),
            })?;
    Ok((connection, deadline))
}

/// The whole screen of `display` (e.g. `:0`; the screen number in `:0.1` picks the
/// screen) as RGB. Only a local display is reached, through its Unix socket.
pub(crate) fn capture(display: &str) -> Result<Rgb, ToolError> {
    let local = LocalDisplay::parse(display).map_err(ToolError::new)?;
    let screen_number = local.screen;
    let (connection, _deadline) = connect(local, DEADLINE).map_err(|error| {
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
