//! No TCP: a display name never becomes a connection to a port. A listener on
//! 127.0.0.1 at 6000+N — the port x11rb's own `connect` tries for display N, also for
//! `:N` when its socket is missing — counts every connection; each display below that
//! would reach it must fail with a clear message and leave the listener untouched.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::workspace;
use super::xvfb::free_display_number;
use crate::Workspace;
use crate::screen::{ScreenshotArgs, ScreenshotConfig, screenshot};

/// A display number without an X socket whose X11 port is free, and the number of
/// connections a listener on that port (IPv4 and, where possible, IPv6 loopback) took.
async fn listening_x_port() -> (u32, Arc<AtomicUsize>) {
    loop {
        let number = free_display_number();
        let Ok(port) = u16::try_from(6000 + number) else {
            continue;
        };
        let Ok(listener) = tokio::net::TcpListener::bind(("127.0.0.1", port)).await else {
            continue;
        };
        let seen = Arc::new(AtomicUsize::new(0));
        count_connections(listener, &seen);
        if let Ok(listener) = tokio::net::TcpListener::bind(("::1", port)).await {
            count_connections(listener, &seen);
        }
        return (number, seen);
    }
}

/// Counts and closes every connection, so a client that got through fails at once
/// instead of waiting for an X server's answer.
fn count_connections(listener: tokio::net::TcpListener, seen: &Arc<AtomicUsize>) {
    let seen = Arc::clone(seen);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
}

/// The error of a screen capture of `display`, which must fail.
async fn capture_error(ws: &Workspace, display: &str) -> String {
    let args = ScreenshotArgs {
        display: Some(display.to_owned()),
        ..ScreenshotArgs::default()
    };
    screenshot(ws, &ScreenshotConfig::default(), args)
        .await
        .unwrap_err()
        .to_string()
}

#[tokio::test]
async fn no_display_name_reaches_a_tcp_port() {
    let (number, seen) = listening_x_port().await;
    let (_dir, ws) = workspace();
    let not_local = |display: &str| format!("`{display}` is not a local X display");

    // What a model may name: only `:N`, and with no socket there it fails, with no
    // TCP fallback.
    let display = format!(":{number}");
    let error = capture_error(&ws, &display).await;
    assert!(
        error.starts_with(&format!(
            "cannot connect to the X display `{display}`: /tmp/.X11-unix/X{number}: "
        )),
        "{error}"
    );
    for named in [format!("localhost:{number}"), format!("127.0.0.1:{number}")] {
        let error = capture_error(&ws, &named).await;
        assert!(error.contains(&not_local(&named)), "{error}");
    }

    // What a configuration (or $DISPLAY) may say: the same rule.
    for configured in [
        format!(":{number}"),
        format!("unix:{number}"),
        format!("localhost:{number}"),
        format!("127.0.0.1:{number}"),
        format!("[::1]:{number}"),
        format!("tcp/localhost:{number}"),
        format!("localhost:{number}.0"),
    ] {
        let config = ScreenshotConfig::default().display(configured.clone());
        let error = screenshot(&ws, &config, ScreenshotArgs::default())
            .await
            .unwrap_err()
            .to_string();
        let expected = if configured.starts_with(':') || configured.starts_with("unix:") {
            format!("cannot connect to the X display `{configured}`")
        } else {
            not_local(&configured)
        };
        assert!(error.contains(&expected), "{configured}: {error}");
    }
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "a display name reached the TCP port"
    );

    // The listener does count: a connection of our own shows up.
    let _probe = tokio::net::TcpStream::connect(("127.0.0.1", 6000 + number as u16))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen.load(Ordering::SeqCst) == 0 {
        assert!(
            Instant::now() < deadline,
            "the listener never saw our own connection"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Something at a display's socket that accepts and never answers (not an X server) would
/// hold the capture's thread for good: the deadline shuts the socket down and the
/// connection fails, saying why.
#[test]
fn a_socket_that_never_answers_is_given_up_at_the_deadline() {
    use crate::screen::display::LocalDisplay;
    use crate::screen::x11;
    let local = LocalDisplay::parse(&format!(":{}", free_display_number())).unwrap();
    std::fs::create_dir_all("/tmp/.X11-unix").unwrap();
    let listener = std::os::unix::net::UnixListener::bind(local.socket_path()).unwrap();
    let silent = std::thread::spawn(move || listener.accept().map(|(stream, _)| stream));
    // On a thread of its own, so that without the deadline this test fails, not hangs.
    let (sent, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || sent.send(x11::connect(local, Duration::from_millis(500)).err()));
    let result = received.recv_timeout(Duration::from_secs(60));
    let _ = std::fs::remove_file(local.socket_path());
    let error = result
        .expect("the connection gave up")
        .expect("no X server answered");
    assert!(error.contains("no answer within 500ms"), "{error}");
    assert!(
        silent.join().unwrap().is_ok(),
        "the connection reached the silent socket"
    );
}
