//! What the webhook and Telegram senders share: the HTTP client, the multipart part of a
//! file, sending files one by one, and failures in words a model can use.
//!
//! URLs never appear in failures: a webhook's path and a bot's token are secrets, and
//! `reqwest` names the URL in its errors, so it is stripped from them.

use std::future::Future;
use std::time::Duration;

use agent_tools_core::ToolError;
use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use url::Url;

use super::MediaFile;
use crate::capped_body::read_capped;
use crate::{BoxError, SetupError};

/// How long connecting may take by default.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one upload may take by default, from connecting to the answer.
pub(super) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Most of an answer read; a chat service answers with a short JSON object.
const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// Most characters of an answer quoted in a failure.
const EXCERPT_CHARS: usize = 300;

/// Why a file was not sent.
pub(super) enum Failure {
    /// The service was not reached (no connection, no answer in time): the files after
    /// this one are not tried.
    Unreachable(String),
    /// The service answered with a refusal, or the request could not be made.
    Refused(String),
}

/// The HTTP client of a sender. Redirects are not followed: the address is configured,
/// and following one would re-send a file (and a token in the path) somewhere else.
pub(super) fn client() -> Result<reqwest::Client, SetupError> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|source| SetupError::HttpClient {
            component: "send_media",
            source,
        })
}

/// Sends `files` in order with `send`, the caption with the first file only (a chat shows
/// it once, under the first item). After a file whose service was unreachable, the rest
/// are reported as not tried rather than each waiting for its own timeout.
pub(super) async fn one_by_one<'a, F, Fut>(
    files: &'a [MediaFile],
    caption: Option<&'a str>,
    mut send: F,
) -> Vec<Result<(), BoxError>>
where
    F: FnMut(&'a MediaFile, Option<&'a str>) -> Fut,
    Fut: Future<Output = Result<(), Failure>>,
{
    let mut results = Vec::with_capacity(files.len());
    let mut unreachable = None;
    for (index, file) in files.iter().enumerate() {
        let result = match &unreachable {
            Some(reason) => Err(format!("not tried, since the previous file failed: {reason}").into()),
            None => match send(file, caption.filter(|_| index == 0)).await {
                Ok(()) => Ok(()),
                Err(Failure::Refused(reason)) => Err(reason.into()),
                Err(Failure::Unreachable(reason)) => Err(unreachable.insert(reason).clone().into()),
            },
        };
        results.push(result);
    }
    results
}

/// The multipart part carrying `file`, with its name and media type.
pub(super) fn file_part(file: &MediaFile) -> Result<Part, Failure> {
    Part::bytes(file.bytes.clone())
        .file_name(file.name.clone())
        .mime_str(&file.mime_type)
        .map_err(|_| Failure::Refused(format!("`{}` is not a media type", file.mime_type)))
}

/// What a service answered: its status and the start of its body.
pub(super) struct Answer {
    /// The HTTP status.
    pub(super) status: StatusCode,
    /// The body, at most [`MAX_ANSWER_BYTES`].
    pub(super) body: Vec<u8>,
}

impl Answer {
    /// A failure quoting the status and the start of the body: "`service` answered HTTP
    /// 500 Internal Server Error: …".
    pub(super) fn refusal(&self, service: &str) -> Failure {
        let excerpt = self.excerpt();
        let quoted = if excerpt.is_empty() {
            String::new()
        } else {
            format!(": {excerpt}")
        };
        Failure::Refused(format!("{service} answered HTTP {}{quoted}", self.status))
    }

    /// The start of the body, on one line.
    fn excerpt(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match line.char_indices().nth(EXCERPT_CHARS) {
            Some((end, _)) => format!("{}…", &line[..end]),
            None => line,
        }
    }
}

/// POSTs `form` to `url` and reads the answer; `service` names the other end in failures.
pub(super) async fn post(
    client: &reqwest::Client,
    url: Url,
    form: Form,
    timeout: Duration,
    service: &str,
) -> Result<Answer, Failure> {
    let unreachable = |error| Failure::Unreachable(describe(error, timeout, service));
    let response = client
        .post(url)
        .multipart(form)
        .timeout(timeout)
        .send()
        .await
        .map_err(unreachable)?;
    let status = response.status();
    let body = read_capped(response, MAX_ANSWER_BYTES)
        .await
        .map_err(unreachable)?;
    Ok(Answer {
        status,
        body: body.bytes,
    })
}

/// A request error in words, without its URL.
fn describe(error: reqwest::Error, timeout: Duration, service: &str) -> String {
    if error.is_timeout() {
        return format!("{service} did not answer within {} s", timeout.as_secs_f64());
    }
    format!(
        "cannot reach {service}: {}",
        ToolError::from_error(error.without_url())
    )
}
