//! `send_media` through [`TelegramSender`](crate::media::TelegramSender), against a local
//! stand-in for the Bot API.

use std::net::SocketAddr;

use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;

use super::*;
use crate::media::TelegramSender;

const TOKEN: &str = "123456:AAH-secret_token";

fn telegram(addr: SocketAddr, default_chat: &str) -> TelegramSender {
    TelegramSender::new(TOKEN, default_chat)
        .unwrap()
        .base_url(format!("http://{addr}/"))
}

fn json(status: StatusCode, body: impl Into<String>) -> Response {
    (status, [(CONTENT_TYPE, "application/json")], body.into()).into_response()
}

fn ok(_: &Upload) -> Response {
    json(StatusCode::OK, r#"{"ok":true,"result":{"message_id":7}}"#)
}

#[tokio::test]
async fn images_are_photos_and_the_rest_documents_to_the_default_chat() {
    let (addr, uploads) = server(ok).await;
    let (_temp, ws) = workspace(&[("a.png", PNG), ("b.pdf", PDF), ("c.gif", b"GIF89a\x01\0\x01\0")]);
    let request = SendMediaArgs {
        caption: Some("  Weekly report  ".into()),
        ..args(&["a.png", "b.pdf", "c.gif"])
    };
    let text = send(&ws, &telegram(addr, "-1001"), request).await.unwrap();
    assert!(
        text.starts_with("Sent 3 files to the default channel:\n"),
        "{text}"
    );
    let uploads = uploads.lock().unwrap();
    let paths: Vec<&str> = uploads.iter().map(|upload| upload.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            format!("/bot{TOKEN}/sendPhoto"),
            format!("/bot{TOKEN}/sendDocument"),
            format!("/bot{TOKEN}/sendDocument"),
        ]
    );
    assert_eq!(uploads[0].file(), ("photo", "a.png", "image/png", PNG));
    assert_eq!(uploads[1].file(), ("document", "b.pdf", "application/pdf", PDF));
    assert_eq!(
        uploads[2].file().0,
        "document",
        "GIFs go as documents, which keep them animated"
    );
    assert!(
        uploads
            .iter()
            .all(|upload| upload.text("chat_id").as_deref() == Some("-1001"))
    );
    assert_eq!(uploads[0].text("caption").as_deref(), Some("Weekly report"));
    assert!(uploads[1..].iter().all(|upload| upload.text("caption").is_none()));
}

#[tokio::test]
async fn a_channel_overrides_the_default_chat() {
    let (addr, uploads) = server(ok).await;
    let (_temp, ws) = workspace(&[("a.png", PNG)]);
    let request = SendMediaArgs {
        channel: Some("@team_updates".into()),
        ..args(&["a.png"])
    };
    let config = MediaConfig::default().allowed_channels(["-1002", "@team_updates"]);
    let text = send_with(&ws, &telegram(addr, "-1001"), &config, request)
        .await
        .unwrap();
    assert_eq!(
        text,
        "Sent 1 file to `@team_updates`:\n- `a.png` (image/png, 22 B): sent"
    );
    assert_eq!(
        uploads.lock().unwrap()[0].text("chat_id").as_deref(),
        Some("@team_updates")
    );
}

#[tokio::test]
async fn telegrams_description_is_the_failure() {
    let (addr, _) = server(|upload| match upload.file().1 {
        "b.pdf" => json(
            StatusCode::BAD_REQUEST,
            r#"{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}"#,
        ),
        _ => ok(upload),
    })
    .await;
    let (_temp, ws) = workspace(&[("a.png", PNG), ("b.pdf", PDF)]);
    let text = send(&ws, &telegram(addr, "-1001"), args(&["a.png", "b.pdf"]))
        .await
        .unwrap();
    assert_eq!(
        text,
        "Sent 1 of 2 files to the default channel:\n\
         - `a.png` (image/png, 22 B): sent\n\
         - `b.pdf` (application/pdf, 29 B): not sent: Telegram refused it (HTTP 400): Bad Request: chat not found"
    );
}

#[tokio::test]
async fn an_http_500_without_telegram_json_is_a_failure_line() {
    let (addr, _) = server(|_| (StatusCode::INTERNAL_SERVER_ERROR, "<h1>oops</h1>").into_response()).await;
    let (_temp, ws) = workspace(&[("a.png", PNG)]);
    let error = send(&ws, &telegram(addr, "-1001"), args(&["a.png"]))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        "Nothing was sent to the default channel:\n\
         - `a.png` (image/png, 22 B): not sent: Telegram answered HTTP 500 Internal Server Error: <h1>oops</h1>"
    );
}

#[tokio::test]
async fn without_a_default_chat_a_channel_is_required() {
    let (addr, uploads) = server(ok).await;
    let (_temp, ws) = workspace(&[("a.png", PNG)]);
    let error = send(&ws, &telegram(addr, ""), args(&["a.png"]))
        .await
        .unwrap_err();
    assert!(error.contains("not sent: no chat to send to"), "{error}");
    assert!(uploads.lock().unwrap().is_empty());
}

#[tokio::test]
async fn the_token_never_shows() {
    let sender = telegram(closed_port().await, "-1001");
    let debug = format!("{sender:?}");
    assert!(
        debug.contains("<redacted>") && !debug.contains("secret_token"),
        "{debug}"
    );
    let (_temp, ws) = workspace(&[("a.png", PNG)]);
    let error = send(&ws, &sender, args(&["a.png"])).await.unwrap_err();
    assert!(error.contains("not sent: cannot reach Telegram: "), "{error}");
    assert!(!error.contains("secret_token"), "{error}");
    let (addr, _) = server(|_| {
        json(
            StatusCode::UNAUTHORIZED,
            r#"{"ok":false,"description":"Unauthorized"}"#,
        )
    })
    .await;
    let error = send(&ws, &telegram(addr, "-1001"), args(&["a.png"]))
        .await
        .unwrap_err();
    assert!(
        error.ends_with("not sent: Telegram refused it (HTTP 401): Unauthorized"),
        "{error}"
    );
    let (addr, _) = server(|upload| {
        let description = format!("no method at {}", upload.path);
        json(
            StatusCode::NOT_FOUND,
            serde_json::json!({"ok": false, "description": description}).to_string(),
        )
    })
    .await;
    let error = send(&ws, &telegram(addr, "-1001"), args(&["a.png"]))
        .await
        .unwrap_err();
    assert!(
        error.ends_with("no method at /bot<redacted>/sendPhoto"),
        "{error}"
    );
}

#[test]
fn malformed_tokens_are_refused_without_echoing_them() {
    assert_eq!(
        TelegramSender::new("  ", "1").unwrap_err().to_string(),
        "no Telegram bot token is configured"
    );
    let error = TelegramSender::new("123:abc/../evil?x=", "1")
        .unwrap_err()
        .to_string();
    assert!(!error.contains("evil"), "{error}");
}
