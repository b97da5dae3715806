//! [`TelegramSender`]: files sent to a chat through the Telegram Bot API.

use std::fmt;
use std::time::Duration;

use agent_tools_core::tool::BoxFuture;
use reqwest::multipart::Form;
use serde::Deserialize;
use url::Url;

use super::http::{self, Answer, Failure};
use super::{MediaFile, MediaSender};
use crate::{BoxError, SetupError};

/// The Telegram Bot API's address.
pub const TELEGRAM_API: &str = "https://api.telegram.org";
/// How failures name the other end.
const SERVICE: &str = "Telegram";
/// The media types Telegram shows as photos.
const PHOTO_TYPES: &[&str] = &["image/jpeg", "image/png", "image/webp"];
/// Largest photo the Bot API accepts; larger images go as documents.
const MAX_PHOTO_BYTES: usize = 10 * 1024 * 1024;

/// Sends files to a Telegram chat with a bot: photos (PNG, JPEG and WebP up to 10 MB)
/// with `sendPhoto`, everything else — GIFs included, which `sendPhoto` would flatten to a
/// still — with `sendDocument`, one call per file, in order. The chat is the channel the
/// model chose (a chat id or `@channelname`), else the default chat; the caption goes with
/// the first file. A file counts as sent when Telegram answers `{"ok":true}`; otherwise
/// the failure is Telegram's `description`.
///
/// The bot token is a secret: `Debug` shows `<redacted>`, and failures never contain it.
///
/// ```
/// use agent_tools_builtins::media::TelegramSender;
///
/// let sender = TelegramSender::new("123456:ABC-secret", "-1001234567890").unwrap();
/// assert!(!format!("{sender:?}").contains("ABC-secret"));
/// ```
#[derive(Clone)]
pub struct TelegramSender {
    client: reqwest::Client,
    token: String,
    default_chat_id: String,
    base_url: String,
    timeout: Duration,
}

impl fmt::Debug for TelegramSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TelegramSender")
            .field("token", &"<redacted>")
            .field("default_chat_id", &self.default_chat_id)
            .field("base_url", &self.base_url)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl TelegramSender {
    /// A sender for the bot with `bot_token`, to `default_chat_id` when the model names no
    /// channel (empty: the model must always name one). Fails on an empty token or one
    /// with characters Telegram tokens do not have.
    pub fn new(bot_token: impl Into<String>, default_chat_id: impl Into<String>) -> Result<Self, SetupError> {
        let token = bot_token.into().trim().to_owned();
        if token.is_empty() {
            return Err(SetupError::MissingTelegramToken);
        }
        let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-');
        if !token.chars().all(valid) {
            return Err(SetupError::InvalidTelegramToken);
        }
        Ok(Self {
            client: http::client()?,
            token,
            default_chat_id: default_chat_id.into().trim().to_owned(),
            base_url: TELEGRAM_API.to_owned(),
            timeout: http::DEFAULT_TIMEOUT,
        })
    }

    /// Sets the Bot API's address, [`TELEGRAM_API`] by default (for a local Bot API
    /// server, or a test).
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into().trim_end_matches('/').to_owned();
        self
    }

    /// How long one upload may take, from connecting to the answer. Default 60 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn send_one(&self, file: &MediaFile, caption: Option<&str>, chat_id: &str) -> Result<(), Failure> {
        let (method, field) = if is_photo(file) {
            ("sendPhoto", "photo")
        } else {
            ("sendDocument", "document")
        };
        let mut form = Form::new()
            .text("chat_id", chat_id.to_owned())
            .part(field, http::file_part(file)?);
        if let Some(caption) = caption {
            form = form.text("caption", caption.to_owned());
        }
        let answer = http::post(
            &self.client,
            self.method_url(method)?,
            form,
            self.timeout,
            SERVICE,
        )
        .await?;
        verdict(&answer)
    }

    /// `{base_url}/bot{token}/{method}`.
    fn method_url(&self, method: &str) -> Result<Url, Failure> {
        Url::parse(&format!("{}/bot{}/{method}", self.base_url, self.token)).map_err(|error| {
            Failure::Refused(format!(
                "the Telegram API address `{}` is not a valid URL ({error})",
                self.base_url
            ))
        })
    }

    /// `failure` with any trace of the token removed.
    fn redacted(&self, failure: Failure) -> Failure {
        let redact = |reason: String| reason.replace(&self.token, "<redacted>");
        match failure {
            Failure::Unreachable(reason) => Failure::Unreachable(redact(reason)),
            Failure::Refused(reason) => Failure::Refused(redact(reason)),
        }
    }
}

impl MediaSender for TelegramSender {
    fn send<'a>(
        &'a self,
        files: &'a [MediaFile],
        caption: Option<&'a str>,
        channel: Option<&'a str>,
    ) -> BoxFuture<'a, Vec<Result<(), BoxError>>> {
        let chat_id = channel.unwrap_or(&self.default_chat_id);
        Box::pin(http::one_by_one(
            files,
            caption,
            move |file, caption| async move {
                if chat_id.is_empty() {
                    return Err(Failure::Refused(
                    "no chat to send to: the application set no default Telegram chat, so `channel` must \
                     name one of the chats it allows"
                        .into(),
                ));
                }
                self.send_one(file, caption, chat_id)
                    .await
                    .map_err(|failure| self.redacted(failure))
            },
        ))
    }
}

fn is_photo(file: &MediaFile) -> bool {
    PHOTO_TYPES.contains(&file.mime_type.as_str()) && file.bytes.len() <= MAX_PHOTO_BYTES
}

/// Telegram's answer to every method: `{"ok":true,…}` or `{"ok":false,"description":…}`.
#[derive(Deserialize)]
struct Reply {
    ok: bool,
    #[serde(default)]
    description: Option<String>,
}

/// Whether Telegram took the file, from its answer.
fn verdict(answer: &Answer) -> Result<(), Failure> {
    match serde_json::from_slice::<Reply>(&answer.body) {
        Ok(Reply { ok: true, .. }) => Ok(()),
        Ok(Reply { description, .. }) => Err(Failure::Refused(format!(
            "Telegram refused it (HTTP {}): {}",
            answer.status.as_u16(),
            description.as_deref().unwrap_or("no reason given")
        ))),
        Err(_) => Err(answer.refusal(SERVICE)),
    }
}
