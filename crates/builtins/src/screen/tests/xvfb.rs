//! An Xvfb server for one test, and a known pattern of windows drawn on it.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, CreateWindowAux, Screen, WindowClass};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::{COPY_DEPTH_FROM_PARENT, COPY_FROM_PARENT};

use super::super::display::LocalDisplay;
use super::super::raster::Rgb;
use super::super::x11;

/// The pattern: a red screen with a blue and a green rectangle.
pub(super) const RED: [u8; 3] = [255, 0, 0];
pub(super) const BLUE: [u8; 3] = [0, 0, 255];
pub(super) const GREEN: [u8; 3] = [0, 255, 0];
/// The blue rectangle: x, y, width, height.
pub(super) const BLUE_RECT: [u16; 4] = [40, 30, 100, 60];
/// The green rectangle: x, y, width, height.
pub(super) const GREEN_RECT: [u16; 4] = [200, 150, 80, 50];

/// Display numbers handed out in this test process.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// A running Xvfb, killed when dropped.
pub(super) struct Xvfb {
    child: Child,
    /// Its display, like `:1234`.
    pub(super) display: String,
}

impl Xvfb {
    /// Starts Xvfb with one screen of `geometry` (like `320x240x24`) on a free display,
    /// or returns `None` when it is not installed (the test is skipped, or fails under CI).
    pub(super) fn start(geometry: &str) -> Option<Self> {
        let program = test_support::require_program("Xvfb", "apt-get install xvfb")?;
        for _ in 0..20 {
            let number = free_display_number();
            let child = Command::new(&program)
                .arg(format!(":{number}"))
                .args(["-screen", "0", geometry, "-nolisten", "tcp"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("Xvfb starts");
            let mut xvfb = Xvfb {
                child,
                display: format!(":{number}"),
            };
            if xvfb.wait_for_socket(number) {
                return Some(xvfb);
            }
            // Another process took the display first; try the next.
        }
        panic!("Xvfb did not start on any of 20 displays");
    }

    /// Polls until the server accepts a connection; false when it exited instead. (The
    /// socket's file appears at `bind`, before the server listens: a connection then is
    /// refused, so the file alone does not say the server is ready.)
    fn wait_for_socket(&mut self, number: u32) -> bool {
        let socket = format!("/tmp/.X11-unix/X{number}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if std::os::unix::net::UnixStream::connect(&socket).is_ok() {
                return true;
            }
            if self.child.try_wait().expect("Xvfb can be waited for").is_some() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("Xvfb on :{number} did not accept connections on {socket} within 20 s");
    }
}

impl Drop for Xvfb {
    /// Stops the server with SIGTERM, so that it removes its socket and lock file, and
    /// with SIGKILL if it has not exited within 5 s.
    fn drop(&mut self) {
        // Our own child, not reaped yet, so the pid is still its.
        if let Some(pid) = i32::try_from(self.child.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A display number with no server, from this process's id and a counter.
pub(super) fn free_display_number() -> u32 {
    loop {
        let number = 1000 + (std::process::id() % 3000) * 16 + NEXT.fetch_add(1, Ordering::Relaxed);
        let taken = Path::new(&format!("/tmp/.X11-unix/X{number}")).exists()
            || Path::new(&format!("/tmp/.X{number}-lock")).exists();
        if !taken {
            return number;
        }
    }
}

/// The pattern's windows, shown as long as this connection is open.
pub(super) struct Pattern {
    _connection: RustConnection,
    _deadline: x11::Deadline,
}

impl Pattern {
    /// Draws the pattern on `display` and waits until a capture shows it.
    pub(super) fn show(display: &str) -> Self {
        let local = LocalDisplay::parse(display).unwrap();
        let (connection, deadline) = x11::connect(local, Duration::from_secs(3600)).unwrap();
        let screen = connection.setup().roots[local.screen].clone();
        let full = [0, 0, screen.width_in_pixels, screen.height_in_pixels];
        let background = window(&connection, screen.root, full, pixel(&screen, RED));
        window(&connection, background, BLUE_RECT, pixel(&screen, BLUE));
        window(&connection, background, GREEN_RECT, pixel(&screen, GREEN));
        connection.map_subwindows(background).unwrap();
        connection.map_window(background).unwrap();
        connection.sync().unwrap();
        wait_until_shown(display);
        Self {
            _connection: connection,
            _deadline: deadline,
        }
    }
}

/// Creates an unmanaged window filled with `background` at `[x, y, width, height]`.
fn window(connection: &RustConnection, parent: u32, rect: [u16; 4], background: u32) -> u32 {
    let id = connection.generate_id().unwrap();
    let [x, y, width, height] = rect;
    let aux = CreateWindowAux::new()
        .background_pixel(background)
        .override_redirect(1);
    connection
        .create_window(
            COPY_DEPTH_FROM_PARENT,
            id,
            parent,
            x as i16,
            y as i16,
            width,
            height,
            0,
            WindowClass::INPUT_OUTPUT,
            COPY_FROM_PARENT,
            &aux,
        )
        .unwrap();
    id
}

/// The pixel value of a pure red, green or blue on the screen's visual.
fn pixel(screen: &Screen, color: [u8; 3]) -> u32 {
    let visual = screen
        .allowed_depths
        .iter()
        .flat_map(|depth| &depth.visuals)
        .find(|visual| visual.visual_id == screen.root_visual)
        .unwrap();
    let masks = [visual.red_mask, visual.green_mask, visual.blue_mask];
    masks
        .iter()
        .zip(color)
        .filter(|(_, value)| *value == 255)
        .map(|(mask, _)| *mask)
        .sum()
}

/// Polls captures until the pattern is on the screen.
fn wait_until_shown(display: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let image = x11::capture(display).unwrap();
        if shows_pattern(&image) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the pattern did not appear on {display}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether `image` (the whole screen) shows the pattern at its known points.
pub(super) fn shows_pattern(image: &Rgb) -> bool {
    image.pixel(5, 5) == RED
        && image.pixel(u32::from(BLUE_RECT[0]) + 1, u32::from(BLUE_RECT[1]) + 1) == BLUE
        && image.pixel(u32::from(GREEN_RECT[0]) + 79, u32::from(GREEN_RECT[1]) + 49) == GREEN
}
