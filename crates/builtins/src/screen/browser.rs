//! Rendering a web page with headless Chromium.
//!
//! Before Chromium starts, the URL must be `http` or `https` (`file:`, `data:` or
//! `chrome:` URLs would show local files or the browser's internals), and its host must
//! pass the web tools' SSRF guard: an IP literal is judged by its address, a host name
//! by every address it resolves to. A refused page is an error before any browser runs.
//!
//! Everything else the page makes Chromium fetch (redirects, frames, images, scripts,
//! WebSockets) is checked too: Chromium's only way out is a [`GuardedProxy`] that
//! applies the same guard to every connection and connects to the address it approved,
//! so a public page cannot frame `http://127.0.0.1/` or the metadata address into the
//! screenshot, and no name is resolved twice (DNS rebinding). `<-loopback>` takes away
//! Chromium's habit of going to loopback addresses without its proxy; QUIC and WebRTC,
//! which do not use an HTTP proxy, are turned off. With
//! [`allow_private_network`](ScreenshotConfig::allow_private_network) there is nothing
//! to check, and no proxy.
//!
//! `--no-sandbox` is passed only when running as root: Chromium refuses to start as root
//! with its sandbox on, and containers and CI usually run as root. Otherwise the
//! sandbox stays on.
//!
//! Chromium's `--screenshot` captures the window, and its command line has no full-page
//! option (that takes the DevTools protocol). A `full_page` capture therefore renders in
//! a window [`full_page_height`](ScreenshotConfig::full_page_height) pixels tall and cuts
//! off the uniform background below the content, keeping at least the window height the
//! call asked for. Elements sized to the viewport (`100vh`) stretch to that tall window.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use agent_tools_core::ToolError;
use url::{Host, Url};

use super::args::PageRequest;
use super::config::ScreenshotConfig;
use super::raster::Rgb;
use super::{blocking, codec, process};
use crate::web::FetchConfig;
use crate::web::proxy::GuardedProxy;
use crate::web::ssrf_guard::SsrfGuard;

/// The names Chromium is looked for under on `PATH`.
const CHROMIUM_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// Renders `page` and returns its screenshot.
pub(crate) async fn capture(config: &ScreenshotConfig, page: &PageRequest) -> Result<Rgb, ToolError> {
    let url = parse(&page.url)?;
    let proxy = guarded_proxy(config, &url).await?;
    let chromium = locate(config)?;
    let dir = tempfile::tempdir()
        .map_err(|error| ToolError::new(format!("cannot create a temporary directory: {error}")))?;
    let output = dir.path().join("page.png");
    let height = if page.full_page {
        config.full_page_height.max(page.height)
    } else {
        page.height
    };
    let window = Window {
        width: page.width,
        height,
    };
    let proxy_addr = proxy.as_ref().map(GuardedProxy::addr);
    let args = arguments(&url, proxy_addr, dir.path(), &output, window);
    let png = process::run_for_file(&chromium, &args, &output, config.timeout).await?;
    let (full_page, min_height) = (page.full_page, page.height);
    let image = blocking(move || {
        let mut image = codec::decode(&png, "Chromium")?;
        if full_page {
            image.trim_bottom(min_height);
        }
        Ok(image)
    })
    .await?;
    // The profile and the screenshot are removed here, and the proxy stops; the
    // processes are gone already.
    drop((dir, proxy));
    Ok(image)
}

/// The URL, if it is an http(s) URL.
fn parse(raw: &str) -> Result<Url, ToolError> {
    let url = Url::parse(raw.trim())
        .map_err(|error| ToolError::invalid_arguments(format!("`{raw}` is not a valid URL: {error}")))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        scheme => Err(ToolError::invalid_arguments(format!(
            "only http and https pages can be rendered, not `{scheme}:` URLs"
        ))),
    }
}

/// Applies the SSRF guard to the page's own host, then starts the proxy that applies it
/// to everything Chromium fetches; `None` when the guard is off.
async fn guarded_proxy(config: &ScreenshotConfig, url: &Url) -> Result<Option<GuardedProxy>, ToolError> {
    if config.allow_private_network {
        return Ok(None);
    }
    let guard = SsrfGuard::trusting(false, &config.trusted_hosts);
    let refused =
        |error: &dyn std::fmt::Display| ToolError::new(format!("refusing to render {url}: {error}"));
    guard.check_url(url).map_err(|error| refused(&error))?;
    if let Some(Host::Domain(name)) = url.host() {
        guard.resolve(name).await.map_err(|error| refused(&error))?;
    }
    GuardedProxy::start(guard, FetchConfig::default().connect_timeout)
        .await
        .map(Some)
        .map_err(|error| {
            ToolError::new(format!(
                "cannot start the proxy Chromium fetches through: {error}"
            ))
        })
}

/// The Chromium binary: the configured one, or the first found on `PATH`.
fn locate(config: &ScreenshotConfig) -> Result<PathBuf, ToolError> {
    match &config.chromium {
        Some(path) if process::is_executable(path) => Ok(path.clone()),
        Some(path) => Err(ToolError::new(format!(
            "Chromium is configured at `{}`, but no executable file is there; install Chromium \
             (e.g. `apt-get install chromium`) or correct the path",
            path.display()
        ))),
        None => process::find_program(CHROMIUM_NAMES).ok_or_else(|| {
            ToolError::new(
                "no Chromium found to render the page (looked for chromium, chromium-browser and \
                 google-chrome on PATH); install it, e.g. `apt-get install chromium`",
            )
        }),
    }
}

/// The size of the browser window.
#[derive(Debug, Clone, Copy)]
struct Window {
    width: u32,
    height: u32,
}

/// Chromium's command line for one screenshot.
fn arguments(
    url: &Url,
    proxy: Option<SocketAddr>,
    dir: &Path,
    output: &Path,
    window: Window,
) -> Vec<OsString> {
    let mut args: Vec<OsString> = [
        "--headless",
        "--disable-gpu",
        // /dev/shm is small in containers; Chromium then crashes on large pages.
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        // Colors as the page gives them, not converted to a display profile.
        "--force-color-profile=srgb",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-sync",
        "--mute-audio",
    ]
    .into_iter()
    .map(OsString::from)
    .collect();
    if running_as_root() {
        args.push("--no-sandbox".into());
    }
    if let Some(proxy) = proxy {
        args.extend(
            [
                format!("--proxy-server=http://{proxy}"),
                "--proxy-bypass-list=<-loopback>".to_owned(),
                "--disable-quic".to_owned(),
                "--force-webrtc-ip-handling-policy=disable_non_proxied_udp".to_owned(),
            ]
            .map(OsString::from),
        );
    }
    let mut with_path = |flag: &str, path: &Path| {
        let mut arg = OsString::from(flag);
        arg.push(path);
        args.push(arg);
    };
    with_path("--user-data-dir=", &dir.join("profile"));
    with_path("--screenshot=", output);
    args.push(format!("--window-size={},{}", window.width, window.height).into());
    // Parsed and re-serialized, the URL starts with `http`, never with `-`.
    args.push(url.as_str().into());
    args
}

fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_urls_are_rendered() {
        assert!(parse("https://example.com/a?b").is_ok());
        for url in [
            "file:///etc/passwd",
            "data:text/html,hi",
            "chrome://settings",
            "javascript:1",
        ] {
            let error = parse(url).unwrap_err().to_string();
            assert!(error.starts_with("only http and https"), "{url}: {error}");
        }
        assert!(
            parse("not a url")
                .unwrap_err()
                .to_string()
                .contains("not a valid URL")
        );
    }

    #[tokio::test]
    async fn private_hosts_are_refused_before_a_proxy_starts() {
        let guarded = ScreenshotConfig::default();
        for url in [
            "http://127.0.0.1/",
            "http://localhost:8080/",
            "http://[::1]/",
            "http://169.254.169.254/",
        ] {
            let error = guarded_proxy(&guarded, &parse(url).unwrap())
                .await
                .unwrap_err()
                .to_string();
            assert!(error.starts_with("refusing to render"), "{url}: {error}");
        }
        let public = guarded_proxy(&guarded, &parse("http://1.1.1.1/").unwrap()).await;
        assert!(public.unwrap().is_some());
        let open = ScreenshotConfig::default().allow_private_network(true);
        let private = guarded_proxy(&open, &parse("http://127.0.0.1/").unwrap()).await;
        assert!(private.unwrap().is_none());
    }

    #[test]
    fn the_command_line_proxies_and_sizes() {
        let url = parse("https://example.com/page").unwrap();
        let window = Window {
            width: 800,
            height: 600,
        };
        let args = arguments(
            &url,
            Some(SocketAddr::from(([127, 0, 0, 1], 4000))),
            Path::new("/tmp/x"),
            Path::new("/tmp/x/page.png"),
            window,
        );
        let args: Vec<String> = args.into_iter().map(|arg| arg.into_string().unwrap()).collect();
        for expected in [
            "--headless",
            "--proxy-server=http://127.0.0.1:4000",
            "--proxy-bypass-list=<-loopback>",
            "--user-data-dir=/tmp/x/profile",
            "--screenshot=/tmp/x/page.png",
            "--window-size=800,600",
        ] {
            assert!(
                args.iter().any(|arg| arg == expected),
                "{expected} missing from {args:?}"
            );
        }
        assert_eq!(args.last().map(String::as_str), Some("https://example.com/page"));
        assert_eq!(args.iter().any(|arg| arg == "--no-sandbox"), running_as_root());
    }
}
