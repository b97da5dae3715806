//! [`WebhookSender`]: files POSTed to a URL as `multipart/form-data`, one request per file.

use std::fmt;
use std::time::Duration;

use agent_tools_core::tool::BoxFuture;
use reqwest::multipart::Form;
use url::Url;

use super::http::{self, Failure};
use super::{MediaFile, MediaSender};
use crate::{BoxError, SetupError};

/// How failures name the other end.
const SERVICE: &str = "the webhook";

/// Sends each file to a webhook as its own `multipart/form-data` POST, with the parts:
///
/// - `file`: the file, with its name and media type;
/// - `caption`: the caption, with the first file only;
/// - `channel`: the channel the model chose, when it chose one.
///
/// One request per file keeps requests small (ten files of 20 MiB would be one request of
/// 200 MiB) and gives each file its own result. Any 2xx answer means sent; anything else
/// is a failure quoting the status and the start of the answer.
///
/// The URL is never shown in full (webhook paths are often secrets): `Debug` and
/// failures show at most its origin.
///
/// ```
/// use agent_tools_builtins::media::WebhookSender;
///
/// let sender = WebhookSender::new("https://hooks.example.com/T000/B000/s3cr3t-path").unwrap();
/// assert!(!format!("{sender:?}").contains("s3cr3t-path"));
/// ```
#[derive(Clone)]
pub struct WebhookSender {
    client: reqwest::Client,
    url: Url,
    timeout: Duration,
}

impl fmt::Debug for WebhookSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookSender")
            .field(
                "url",
                &format_args!("{}/<redacted>", self.url.origin().ascii_serialization()),
            )
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl WebhookSender {
    /// A sender POSTing to `url`, an `http` or `https` URL; fails on anything else.
    pub fn new(url: impl AsRef<str>) -> Result<Self, SetupError> {
        let url = Url::parse(url.as_ref()).map_err(SetupError::WebhookUrl)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(SetupError::WebhookScheme {
                scheme: url.scheme().to_owned(),
            });
        }
        Ok(Self {
            client: http::client()?,
            url,
            timeout: http::DEFAULT_TIMEOUT,
        })
    }

    /// How long one upload may take, from connecting to the answer. Default 60 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn send_one(
        &self,
        file: &MediaFile,
        caption: Option<&str>,
        channel: Option<&str>,
    ) -> Result<(), Failure> {
        let mut form = Form::new().part("file", http::file_part(file)?);
        if let Some(caption) = caption {
            form = form.text("caption", caption.to_owned());
        }
        if let Some(channel) = channel {
            form = form.text("channel", channel.to_owned());
        }
        let answer = http::post(&self.client, self.url.clone(), form, self.timeout, SERVICE).await?;
        if answer.status.is_success() {
            return Ok(());
        }
        Err(answer.refusal(SERVICE))
    }
}

impl MediaSender for WebhookSender {
    fn send<'a>(
        &'a self,
        files: &'a [MediaFile],
        caption: Option<&'a str>,
        channel: Option<&'a str>,
    ) -> BoxFuture<'a, Vec<Result<(), BoxError>>> {
        Box::pin(http::one_by_one(files, caption, move |file, caption| {
            self.send_one(file, caption, channel)
        }))
    }
}
