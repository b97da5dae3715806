//! `send_media` through [`WebhookSender`](crate::media::WebhookSender).

use axum::http::StatusCode;
use axum::response::IntoResponse;

use super::*;

#[tokio::test]
async fn each_file_is_a_multipart_post_with_caption_and_channel() {
    let (addr, uploads) = server(|_| StatusCode::NO_CONTENT.into_response()).await;
    let (_temp, ws) = workspace(&[("charts/q3.png", PNG), ("notes.md", "# Q3 ☃\n".as_bytes())]);
    let request = SendMediaArgs {
        caption: Some("Q3 numbers".into()),
        channel: Some("#reports".into()),
        ..args(&["charts/q3.png", "notes.md"])
    };
    let config = MediaConfig::default().allowed_channels(["#reports"]);
    let text = send_with(&ws, &webhook(addr), &config, request).await.unwrap();
    assert_eq!(
        text,
        "Sent 2 files to `#reports`:\n\
         - `charts/q3.png` (image/png, 22 B): sent\n\
         - `notes.md` (text/plain, 9 B): sent"
    );
    let uploads = uploads.lock().unwrap();
    assert_eq!(uploads.len(), 2);
    assert!(uploads.iter().all(|upload| upload.path == "/hooks/secret-path"));
    assert_eq!(uploads[0].file(), ("file", "q3.png", "image/png", PNG));
    assert_eq!(uploads[0].text("caption").as_deref(), Some("Q3 numbers"));
    assert_eq!(uploads[0].text("channel").as_deref(), Some("#reports"));
    assert_eq!(
        uploads[1].file(),
        ("file", "notes.md", "text/plain", "# Q3 ☃\n".as_bytes())
    );
    assert_eq!(
        uploads[1].text("caption"),
        None,
        "the caption goes with the first file only"
    );
    assert_eq!(uploads[1].text("channel").as_deref(), Some("#reports"));
}

#[tokio::test]
async fn no_channel_means_no_channel_field() {
    let (addr, uploads) = server(|_| StatusCode::OK.into_response()).await;
    let (_temp, ws) = workspace(&[("report.pdf", PDF)]);
    let text = send(&ws, &webhook(addr), args(&["report.pdf"])).await.unwrap();
    assert_eq!(
        text,
        "Sent 1 file to the default channel:\n- `report.pdf` (application/pdf, 29 B): sent"
    );
    let uploads = uploads.lock().unwrap();
    assert_eq!(uploads[0].file(), ("file", "report.pdf", "application/pdf", PDF));
    assert_eq!(
        (uploads[0].text("channel"), uploads[0].text("caption")),
        (None, None)
    );
}

#[tokio::test]
async fn an_http_error_is_a_failure_line_for_that_file() {
    let (addr, uploads) = server(|upload| match upload.file().1 {
        "b.pdf" => (StatusCode::INTERNAL_SERVER_ERROR, "disk full\n").into_response(),
        _ => StatusCode::OK.into_response(),
    })
    .await;
    let (_temp, ws) = workspace(&[("a.png", PNG), ("b.pdf", PDF), ("c.txt", b"hello")]);
    let text = send(&ws, &webhook(addr), args(&["a.png", "b.pdf", "c.txt"]))
        .await
        .unwrap();
    assert_eq!(
        text,
        "Sent 2 of 3 files to the default channel:\n\
         - `a.png` (image/png, 22 B): sent\n\
         - `b.pdf` (application/pdf, 29 B): not sent: the webhook answered HTTP 500 Internal Server Error: \
         disk full\n\
         - `c.txt` (text/plain, 5 B): sent"
    );
    assert_eq!(uploads.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn nothing_sent_is_an_error() {
    let (addr, _) = server(|_| StatusCode::FORBIDDEN.into_response()).await;
    let (_temp, ws) = workspace(&[("a.png", PNG)]);
    let error = send(&ws, &webhook(addr), args(&["a.png"])).await.unwrap_err();
    assert_eq!(
        error,
        "Nothing was sent to the default channel:\n\
         - `a.png` (image/png, 22 B): not sent: the webhook answered HTTP 403 Forbidden"
    );
}

#[tokio::test]
async fn an_unreachable_webhook_fails_every_file_without_showing_its_url() {
    let addr = closed_port().await;
    let (_temp, ws) = workspace(&[("a.png", PNG), ("b.pdf", PDF)]);
    let error = send(&ws, &webhook(addr), args(&["a.png", "b.pdf"]))
        .await
        .unwrap_err();
    let lines: Vec<&str> = error.lines().collect();
    assert_eq!(lines.len(), 3, "{error}");
    assert!(
        lines[1].starts_with("- `a.png` (image/png, 22 B): not sent: cannot reach the webhook: "),
        "{error}"
    );
    assert!(
        lines[2].starts_with("- `b.pdf` (application/pdf, 29 B): not sent: not tried, since the previous"),
        "{error}"
    );
    assert!(!error.contains("secret-path"), "{error}");
}

#[test]
fn only_http_urls_and_no_secrets_in_debug() {
    assert!(
        WebhookSender::new("ftp://example.com/x")
            .unwrap_err()
            .to_string()
            .contains("http or https")
    );
    assert!(WebhookSender::new("not a url").is_err());
    let sender = WebhookSender::new("https://hooks.example.com/services/T0/B0/s3cr3t").unwrap();
    let debug = format!("{sender:?}");
    assert!(
        debug.contains("https://hooks.example.com") && !debug.contains("s3cr3t"),
        "{debug}"
    );
}
