//! Only configured channels: a channel the model names must be on the allow-list, and a
//! refused one sends nothing — the local servers see no request at all.

use agent_tools_core::{ToolCall, ToolRegistry};
use axum::http::StatusCode;
use axum::response::IntoResponse;

use super::*;
use crate::media::TelegramSender;

fn telegram_ok(_: &Upload) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        r#"{"ok":true,"result":{"message_id":1}}"#,
    )
        .into_response()
}

fn to(channel: &str) -> SendMediaArgs {
    SendMediaArgs {
        channel: Some(channel.to_owned()),
        ..args(&["a.png"])
    }
}

#[tokio::test]
async fn by_default_only_the_default_chat_is_reachable() {
    let (addr, uploads) = server(|_| StatusCode::OK.into_response()).await;
    let (_temp, ws) = workspace(&[("a.png", PNG)]);
    let error = send(&ws, &webhook(addr), to("#attacker")).await.unwrap_err();
    assert_eq!(
        error,
        "Nothing was sent: `#attacker` is not a channel this application sends to; only the default \
         channel may be used: leave `channel` out"
    );
    assert!(uploads.lock().unwrap().is_empty(), "the webhook saw a request");

    let (addr, uploads) = server(telegram_ok).await;
    let sender = TelegramSender::new("123456:AAH-token", "-1001")
        .unwrap()
        .base_url(format!("http://{addr}"));
    let error = send(&ws, &sender, to("@attacker_chat")).await.unwrap_err();
    assert!(error.contains("`@attacker_chat` is not a channel"), "{error}");
    assert!(uploads.lock().unwrap().is_empty(), "the Bot API saw a request");
    // The default chat still works.
    send(&ws, &sender, args(&["a.png"])).await.unwrap();
    assert_eq!(
        uploads.lock().unwrap()[0].text("chat_id").as_deref(),
        Some("-1001")
    );
}

#[tokio::test]
async fn a_channel_off_the_list_is_refused_naming_the_allowed_ones() {
    let (addr, uploads) = server(telegram_ok).await;
    let (_temp, ws) = workspace(&[("a.png", PNG)]);
    let sender = TelegramSender::new("123456:AAH-token", "-1001")
        .unwrap()
        .base_url(format!("http://{addr}"));
    let config = MediaConfig::default().allowed_channels(["@team", " -1002 "]);
    for refused in ["@Team", "-10021", "@team; @other", "-1001"] {
        let error = send_with(&ws, &sender, &config, to(refused)).await.unwrap_err();
        assert_eq!(
            error,
            format!(
                "Nothing was sent: `{refused}` is not a channel this application sends to; the channels \
                 allowed are the default one (leave `channel` out) and `@team`, `-1002`"
            )
        );
    }
    assert!(uploads.lock().unwrap().is_empty(), "the Bot API saw a request");
    send_with(&ws, &sender, &config, to(" -1002")).await.unwrap();
    assert_eq!(
        uploads.lock().unwrap()[0].text("chat_id").as_deref(),
        Some("-1002")
    );
}

#[tokio::test]
async fn the_media_section_sets_the_allow_list_of_the_registered_tool() {
    let (addr, uploads) = server(|_| StatusCode::OK.into_response()).await;
    let (temp, _ws) = workspace(&[("a.png", PNG)]);
    let config: crate::BuiltinConfig = toml::from_str(&format!(
        "[media]\nwebhook_url = \"http://{addr}/hook\"\nallowed_channels = [\"#reports\"]\n"
    ))
    .unwrap();
    let registry = ToolRegistry::new();
    crate::register_all(&registry, Some(temp.path().to_path_buf()), &config).unwrap();
    let call = |channel: &str| {
        let arguments = serde_json::json!({"paths": ["a.png"], "channel": channel});
        ToolCall::new("1", "send_media", arguments)
    };
    let refused = registry.call(call("#general")).await;
    assert!(refused.is_error(), "{}", refused.text());
    assert!(
        refused.text().contains("`#general` is not a channel"),
        "{}",
        refused.text()
    );
    assert!(uploads.lock().unwrap().is_empty(), "the webhook saw a request");
    let sent = registry.call(call("#reports")).await;
    assert!(!sent.is_error(), "{}", sent.text());
    assert_eq!(
        uploads.lock().unwrap()[0].text("channel").as_deref(),
        Some("#reports")
    );
}
