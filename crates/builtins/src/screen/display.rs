//! Which X server a display name may reach: a local one, through its Unix socket only.
//!
//! x11rb's own `connect` reads `host:N` as TCP to port 6000+N, and even `:N` falls back
//! to TCP on `localhost` when the socket is missing. A display number named by a model
//! (or planted in a configuration) would then become a probe of a loopback port, and a
//! host name a connection to another machine. So the display is parsed here: only
//! `:N`, `:N.S`, `unix:N` and `unix:N.S` are accepted, and they mean the socket
//! `/tmp/.X11-unix/XN`, nothing else — no host part, no `tcp/` or other protocol, no
//! socket path (which would let a display name reach any Unix socket on the machine).
//!
//! The abstract socket `@/tmp/.X11-unix/XN` that Xorg also listens on is not tried. It
//! lives in the network namespace, not the file system, so any process sharing the
//! namespace can bind the name first — a sandboxed `exec` command among them (Landlock
//! scopes connecting to abstract sockets, not binding them) — and pose as the X server
//! to be captured; the named socket sits in `/tmp/.X11-unix`, which such a command
//! cannot write. Every local X server (Xorg, Xvfb, Xwayland) creates the named socket.
//!
//! What this does not cover: displays forwarded over SSH (`localhost:10.0`) and other
//! TCP displays are refused; run the agent where the display is.

use std::path::PathBuf;

/// A local X display: its number and the screen picked in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LocalDisplay {
    /// `N` in `:N`.
    pub(crate) number: u16,
    /// `S` in `:N.S`; 0 when not given.
    pub(crate) screen: usize,
}

impl LocalDisplay {
    /// Parses `:N`, `:N.S`, `unix:N` or `unix:N.S`; anything else is refused with a
    /// message saying what is accepted.
    pub(crate) fn parse(display: &str) -> Result<Self, String> {
        Self::parse_local(display).ok_or_else(|| {
            format!(
                "`{display}` is not a local X display: screenshots are taken only from an X server on \
                 this machine, through its socket in /tmp/.X11-unix (`:0`, `:99`, `:1.0`, `unix:0`), \
                 never over the network"
            )
        })
    }

    fn parse_local(display: &str) -> Option<Self> {
        let (host, rest) = display.split_once(':')?;
        if !host.is_empty() && host != "unix" {
            return None;
        }
        let (number, screen) = match rest.split_once('.') {
            Some((number, screen)) => (number, Some(screen)),
            None => (rest, None),
        };
        Some(Self {
            number: digits(number)?,
            screen: screen.map_or(Some(0), digits)?,
        })
    }

    /// The server's socket, `/tmp/.X11-unix/XN`.
    pub(crate) fn socket_path(self) -> PathBuf {
        PathBuf::from(format!("/tmp/.X11-unix/X{}", self.number))
    }
}

/// A number written in ASCII digits only (no sign, no blanks).
fn digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_socket_displays_parse() {
        let local = |number, screen| Ok(LocalDisplay { number, screen });
        assert_eq!(LocalDisplay::parse(":0"), local(0, 0));
        assert_eq!(LocalDisplay::parse(":99"), local(99, 0));
        assert_eq!(LocalDisplay::parse(":1.2"), local(1, 2));
        assert_eq!(LocalDisplay::parse("unix:5"), local(5, 0));
        assert_eq!(LocalDisplay::parse("unix:5.1"), local(5, 1));
        for display in [
            "localhost:0",
            "127.0.0.1:0",
            "[::1]:0",
            "::1:0",
            "evil.example:0",
            "tcp/localhost:0",
            "unix/:0",
            "/tmp/.X11-unix/X0",
            "/var/run/docker.sock:0",
            ":",
            ":1.",
            "0",
            ":a",
            ": 1",
            ":+1",
            ":70000",
            "",
        ] {
            let error = LocalDisplay::parse(display).unwrap_err();
            assert!(error.contains("is not a local X display"), "{display}: {error}");
        }
        assert_eq!(
            LocalDisplay::parse(":42").unwrap().socket_path(),
            PathBuf::from("/tmp/.X11-unix/X42")
        );
    }
}
