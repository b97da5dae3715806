//! `target: url` with headless Chromium, against pages served on 127.0.0.1.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::response::{Html, Redirect};
use axum::routing::get;

use super::{close, returned_image, saved, saved_path, workspace};
use crate::screen::{ScreenshotArgs, ScreenshotConfig, screenshot};

const PAGE: &str = r#"<!doctype html><html><body style="margin:0;background:#3366cc"></body></html>"#;
const LONG_PAGE: &str = r#"<!doctype html><html><body style="margin:0;background:#0000ff">
<div style="height:1500px;background:#ff0000"></div></body></html>"#;

/// Serves the test pages on a fresh loopback port until the test's runtime ends.
async fn serve() -> SocketAddr {
    let app = Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/long", get(|| async { Html(LONG_PAGE) }));
    serve_app(app).await
}

/// Serves `app` on a fresh loopback port until the test's runtime ends.
async fn serve_app(app: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// A configuration that renders loopback pages with the installed Chromium, or `None`
/// (the test is skipped, or fails under CI) when there is none.
fn local_config() -> Option<ScreenshotConfig> {
    let chromium = test_support::require_chromium()?;
    Some(
        ScreenshotConfig::default()
            .chromium(chromium)
            .allow_private_network(true),
    )
}

fn page(url: String, width: u32, height: u32) -> ScreenshotArgs {
    ScreenshotArgs {
        url: Some(url),
        width: Some(width),
        height: Some(height),
        ..ScreenshotArgs::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_page_is_rendered_with_its_background() {
    let Some(config) = local_config() else { return };
    let addr = serve().await;
    let (dir, ws) = workspace();
    let output = screenshot(&ws, &config, page(format!("http://{addr}/"), 400, 300))
        .await
        .unwrap();
    let image = saved(dir.path(), &saved_path(&output));
    assert_eq!((image.width(), image.height()), (400, 300));
    for (x, y) in [(0, 0), (200, 150), (399, 299)] {
        assert!(
            close(image.pixel(x, y), [0x33, 0x66, 0xcc], 2),
            "{:?} at {x},{y}",
            image.pixel(x, y)
        );
    }
    assert_eq!(returned_image(&output), image);
    let text = output.text_content();
    assert!(
        text.starts_with(&format!(
            "Screenshot of http://{addr}/ in a 400x300 window saved to"
        )),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_page_capture_ends_below_the_content() {
    let Some(config) = local_config() else { return };
    let config = config.full_page_height(3000);
    let addr = serve().await;
    let (dir, ws) = workspace();
    let args = ScreenshotArgs {
        full_page: Some(true),
        ..page(format!("http://{addr}/long"), 400, 300)
    };
    let output = screenshot(&ws, &config, args).await.unwrap();
    let image = saved(dir.path(), &saved_path(&output));
    assert_eq!(image.width(), 400);
    assert!(
        (1501..=1510).contains(&image.height()),
        "height {}",
        image.height()
    );
    assert!(close(image.pixel(10, 1400), [255, 0, 0], 2));
    assert!(close(image.pixel(10, image.height() - 1), [0, 0, 255], 2));
    // Returned scaled to the default 1568 px on the long side: here it fits.
    assert_eq!(returned_image(&output), image);
}

#[tokio::test]
async fn the_guard_refuses_loopback_before_chromium_starts() {
    let (_dir, ws) = workspace();
    // No Chromium is there: the guard's refusal shows it never came to starting one.
    let config = ScreenshotConfig::default().chromium("/nonexistent/chromium");
    for (url, reason) in [
        ("http://127.0.0.1/", "127.0.0.1 is a loopback address"),
        ("http://localhost:3000/", "`localhost` names this machine"),
        ("http://[::ffff:10.0.0.1]/", "is a private address"),
    ] {
        let error = screenshot(&ws, &config, page(url.into(), 400, 300))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("refusing to render http://") && error.ends_with(reason),
            "{error}"
        );
    }
}

#[tokio::test]
async fn a_missing_chromium_is_a_clear_error() {
    let (_dir, ws) = workspace();
    let config = ScreenshotConfig::default()
        .chromium("/nonexistent/chromium")
        .allow_private_network(true);
    let error = screenshot(&ws, &config, page("http://127.0.0.1:9/".into(), 400, 300))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Chromium is configured at `/nonexistent/chromium`, but no executable file is there; install \
         Chromium (e.g. `apt-get install chromium`) or correct the path"
    );
}

#[tokio::test]
async fn local_files_are_not_rendered() {
    let (_dir, ws) = workspace();
    let config = ScreenshotConfig::default().allow_private_network(true);
    let error = screenshot(&ws, &config, page("file:///etc/passwd".into(), 400, 300))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "only http and https pages can be rendered, not `file:` URLs"
    );
}

/// A page on a trusted host that pulls in a stylesheet from its own host and, from a
/// private address, a frame, an image and a redirect target.
const FRAMING_PAGE: &str = r#"<!doctype html><html><head>
<link rel="stylesheet" href="/style.css"></head><body>
<iframe src="http://127.0.0.1:PRIVATE/frame" style="position:absolute;left:100px;top:100px;width:200px;height:100px"></iframe>
<img src="http://127.0.0.1:PRIVATE/image.png" width="50" height="50">
<img src="http://localhost:PRIVATE/image.png" width="50" height="50">
</body></html>"#;

/// Serves `/framing`, `/style.css` (counted) and `/redirect`, which sends the browser to
/// `private`.
async fn serve_framing(private: SocketAddr) -> (SocketAddr, Arc<AtomicUsize>) {
    let styles = Arc::new(AtomicUsize::new(0));
    let page = FRAMING_PAGE.replace("PRIVATE", &private.port().to_string());
    let counted = styles.clone();
    let app = Router::new()
        .route("/framing", get(move || async move { Html(page) }))
        .route(
            "/style.css",
            get(move || async move {
                counted.fetch_add(1, Ordering::SeqCst);
                (
                    [("content-type", "text/css")],
                    "body{margin:0;background:#00aa00}",
                )
            }),
        )
        .route(
            "/redirect",
            get(move || async move { Redirect::to(&format!("http://{private}/secret")) }),
        );
    (serve_app(app).await, styles)
}

/// A server on loopback that counts every request; the guard must keep Chromium from it.
async fn serve_private() -> (SocketAddr, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let app = Router::new().fallback(move || async move {
        counted.fetch_add(1, Ordering::SeqCst);
        Html(r#"<body style="background:#ff0000">private</body>"#)
    });
    (serve_app(app).await, hits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_page_loads_from_private_addresses_is_refused() {
    let Some(config) = local_config() else { return };
    let chromium = config.chromium.unwrap();
    let (private, private_hits) = serve_private().await;
    let (public, styles) = serve_framing(private).await;
    // `page.test` stands in for a public site: trusted, it may be on loopback.
    let config = ScreenshotConfig::default()
        .chromium(chromium)
        .trusted_host("page.test", public);
    let (dir, ws) = workspace();
    let port = public.port();

    let output = screenshot(
        &ws,
        &config,
        page(format!("http://page.test:{port}/framing"), 400, 300),
    )
    .await
    .unwrap();
    let image = saved(dir.path(), &saved_path(&output));
    // The page's own stylesheet came through the proxy.
    assert_eq!(styles.load(Ordering::SeqCst), 1);
    assert!(
        close(image.pixel(390, 290), [0x00, 0xaa, 0x00], 2),
        "{:?}",
        image.pixel(390, 290)
    );
    // The frame shows no red page from the private server.
    assert!(
        !close(image.pixel(200, 150), [0xff, 0x00, 0x00], 30),
        "{:?}",
        image.pixel(200, 150)
    );

    let redirected = screenshot(
        &ws,
        &config,
        page(format!("http://page.test:{port}/redirect"), 400, 300),
    )
    .await;
    assert!(redirected.is_ok(), "{redirected:?}");
    assert_eq!(
        private_hits.load(Ordering::SeqCst),
        0,
        "Chromium reached the private server"
    );
}
