//! Which desktop to capture and how: an X display through [`super::x11`], else a Wayland
//! desktop through `grim`, else macOS through `screencapture`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use agent_tools_core::ToolError;

use super::config::ScreenshotConfig;
use super::raster::Rgb;
use super::{blocking, codec, process, x11};

/// The message for a machine with nothing to capture.
pub(crate) const NO_DISPLAY: &str = "no display: set DISPLAY or run under Xvfb";

/// How the desktop is captured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Backend {
    /// An X display, read with x11rb.
    X11(String),
    /// A Wayland desktop, through the `grim` command.
    Grim(PathBuf),
    /// A macOS desktop, through the `screencapture` command.
    ScreenCapture(PathBuf),
}

/// What the environment offers for capturing, read at each call.
#[derive(Debug, Clone, Default)]
pub(crate) struct Environment {
    /// `$DISPLAY`, when set and not empty.
    pub(crate) x_display: Option<String>,
    /// Whether `$WAYLAND_DISPLAY` is set.
    pub(crate) wayland: bool,
    /// `grim` on `PATH`.
    pub(crate) grim: Option<PathBuf>,
    /// `screencapture` on `PATH`, on macOS.
    pub(crate) screencapture: Option<PathBuf>,
}

impl Environment {
    /// The environment of this process.
    pub(crate) fn current() -> Self {
        let set = |name| std::env::var(name).ok().filter(|value| !value.is_empty());
        Self {
            x_display: set("DISPLAY"),
            wayland: set("WAYLAND_DISPLAY").is_some(),
            grim: process::find_program(&["grim"]),
            screencapture: if cfg!(target_os = "macos") {
                process::find_program(&["screencapture"])
            } else {
                None
            },
        }
    }
}

/// The backend for a capture: the display the call named, else the configured one,
/// else `$DISPLAY`; without an X display, `grim` on Wayland or `screencapture` on
/// macOS.
pub(crate) fn choose(
    requested: Option<&str>,
    config: &ScreenshotConfig,
    env: Environment,
) -> Result<Backend, ToolError> {
    let x_display = requested
        .map(str::to_owned)
        .or_else(|| config.display.clone())
        .or(env.x_display);
    if let Some(display) = x_display {
        return Ok(Backend::X11(display));
    }
    match (env.wayland, env.grim, env.screencapture) {
        (true, Some(grim), _) => Ok(Backend::Grim(grim)),
        (_, _, Some(screencapture)) => Ok(Backend::ScreenCapture(screencapture)),
        (true, None, _) => Err(ToolError::new(format!(
            "{NO_DISPLAY} (WAYLAND_DISPLAY is set, but capturing a Wayland desktop needs the `grim` command)"
        ))),
        _ => Err(ToolError::new(NO_DISPLAY)),
    }
}

/// Captures the desktop.
pub(crate) async fn capture(config: &ScreenshotConfig, requested: Option<&str>) -> Result<Rgb, ToolError> {
    match choose(requested, config, Environment::current())? {
        Backend::X11(display) => blocking(move || x11::capture(&display)).await,
        Backend::Grim(grim) => by_command(config, &grim, &[]).await,
        Backend::ScreenCapture(screencapture) => by_command(config, &screencapture, &["-x"]).await,
    }
}

/// Captures with a command that takes its output file as its last argument.
async fn by_command(config: &ScreenshotConfig, program: &Path, flags: &[&str]) -> Result<Rgb, ToolError> {
    let dir = tempfile::tempdir()
        .map_err(|error| ToolError::new(format!("cannot create a temporary directory: {error}")))?;
    let output = dir.path().join("screen.png");
    let mut args: Vec<OsString> = flags.iter().map(OsString::from).collect();
    args.push(output.clone().into_os_string());
    let png = process::run_for_file(program, &args, &output, config.timeout).await?;
    let name = program.display().to_string();
    blocking(move || codec::decode(&png, &name)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Environment {
        Environment::default()
    }

    #[test]
    fn the_named_display_wins_then_the_configured_one_then_display() {
        let config = ScreenshotConfig::default();
        let with_display = Environment {
            x_display: Some(":5".into()),
            ..env()
        };
        assert_eq!(
            choose(None, &config, with_display.clone()).unwrap(),
            Backend::X11(":5".into())
        );
        let configured = config.clone().display(":7");
        assert_eq!(
            choose(None, &configured, with_display.clone()).unwrap(),
            Backend::X11(":7".into())
        );
        assert_eq!(
            choose(Some(":9"), &configured, with_display).unwrap(),
            Backend::X11(":9".into())
        );
    }

    #[test]
    fn wayland_and_macos_need_their_commands() {
        let config = ScreenshotConfig::default();
        let wayland = Environment {
            wayland: true,
            grim: Some("/usr/bin/grim".into()),
            ..env()
        };
        assert_eq!(
            choose(None, &config, wayland).unwrap(),
            Backend::Grim("/usr/bin/grim".into())
        );
        let mac = Environment {
            screencapture: Some("/usr/sbin/screencapture".into()),
            ..env()
        };
        assert_eq!(
            choose(None, &config, mac).unwrap(),
            Backend::ScreenCapture("/usr/sbin/screencapture".into())
        );
        let no_grim = Environment {
            wayland: true,
            ..env()
        };
        let error = choose(None, &config, no_grim).unwrap_err().to_string();
        assert!(
            error.starts_with(NO_DISPLAY) && error.contains("`grim`"),
            "{error}"
        );
    }

    #[test]
    fn no_display_at_all_is_a_clear_error() {
        let error = choose(None, &ScreenshotConfig::default(), env()).unwrap_err();
        assert_eq!(error.to_string(), "no display: set DISPLAY or run under Xvfb");
    }
}
