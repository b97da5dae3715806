//! What a fetched body holds, and how it becomes text for the model.
//!
//! The `Content-Type` decides when it says something definite (HTML, JSON, text, an
//! image); when it is missing or generic (`application/octet-stream`, an unknown
//! `application/*`), the first bytes decide, as they do for `read_file`.

use schemars::JsonSchema;
use serde::Deserialize;

use super::body::decode;
use super::deadline::{Deadline, Stopped};
use super::html;
use crate::file_kind::{FileKind, sniff};

/// How `web_fetch` renders a page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FetchFormat {
    /// HTML reduced to its main content, as Markdown; JSON pretty-printed; text as is.
    #[default]
    Markdown,
    /// HTML reduced to its main content, as plain text; JSON pretty-printed; text as is.
    Text,
    /// The body as the server sent it (decoded to text), HTML markup included.
    Raw,
}

/// What a body holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// An HTML page.
    Html,
    /// A JSON document.
    Json,
    /// Other text: plain, CSV, XML, source code, …
    Text,
    /// An image a model can look at, with its media type.
    Image(&'static str),
    /// Anything else, described: `application/pdf (PDF document)`.
    Binary(String),
}

/// A body turned into text: the title and notes are an HTML page's.
pub(crate) type Rendered = html::Page;

/// Classifies a body by its `Content-Type` and, where that is not definite, its bytes.
pub(crate) fn classify(content_type: Option<&str>, body: &[u8]) -> BodyKind {
    let mime = content_type
        .and_then(|value| value.split(';').next())
        .map(|mime| mime.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let head = &body[..body.len().min(8192)];
    match mime.as_str() {
        "text/html" | "application/xhtml+xml" => BodyKind::Html,
        "application/json" | "text/json" => BodyKind::Json,
        _ if mime.ends_with("+json") => BodyKind::Json,
        _ if mime.starts_with("text/") || mime.ends_with("+xml") || is_textual_application(&mime) => {
            BodyKind::Text
        }
        _ if ["image/", "audio/", "video/", "font/"]
            .iter()
            .any(|kind| mime.starts_with(kind)) =>
        {
            match sniff(head) {
                FileKind::Image(mime) => BodyKind::Image(mime),
                _ => BodyKind::Binary(mime),
            }
        }
        _ => sniffed(&mime, head),
    }
}

fn is_textual_application(mime: &str) -> bool {
    matches!(
        mime,
        "application/xml"
            | "application/javascript"
            | "application/ecmascript"
            | "application/x-javascript"
            | "application/x-sh"
            | "application/yaml"
            | "application/x-yaml"
            | "application/toml"
            | "application/sql"
            | "application/graphql"
    )
}

/// A body of no definite type, judged by its first bytes.
fn sniffed(mime: &str, head: &[u8]) -> BodyKind {
    match sniff(head) {
        FileKind::Image(mime) => BodyKind::Image(mime),
        FileKind::Binary(kind) if mime.is_empty() => BodyKind::Binary(kind.to_owned()),
        FileKind::Binary(kind) => BodyKind::Binary(format!("{mime} ({kind})")),
        FileKind::Text if looks_like_html(head) => BodyKind::Html,
        FileKind::Text => BodyKind::Text,
    }
}

fn looks_like_html(head: &[u8]) -> bool {
    let start = String::from_utf8_lossy(&head[..head.len().min(512)]).to_ascii_lowercase();
    let start = start.trim_start();
    start.starts_with("<!doctype html") || start.starts_with("<html")
}

/// Renders a textual body (`kind` is HTML, JSON or text) in `format`, or stops at
/// `deadline`.
pub(crate) fn render(
    kind: &BodyKind,
    body: &[u8],
    content_type: Option<&str>,
    url: &str,
    format: FetchFormat,
    deadline: &Deadline,
) -> Result<Rendered, Stopped> {
    let is_html = *kind == BodyKind::Html;
    let text = decode(body, content_type, is_html);
    let plain = |text: String| Rendered {
        title: None,
        text,
        notes: Vec::new(),
    };
    Ok(match (kind, format) {
        (BodyKind::Html, FetchFormat::Raw) => Rendered {
            title: html::extract_title(&text, deadline)?,
            text,
            notes: Vec::new(),
        },
        (BodyKind::Html, format) => html::extract(&text, url, format == FetchFormat::Markdown, deadline)?,
        (BodyKind::Json, FetchFormat::Markdown | FetchFormat::Text) => plain(pretty_json(text)),
        _ => plain(text),
    })
}

/// JSON pretty-printed, or as it came when it does not parse (e.g. cut by the body cap).
fn pretty_json(text: String) -> String {
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_now(kind: &BodyKind, body: &[u8], format: FetchFormat) -> Rendered {
        render(kind, body, None, "https://x/", format, &Deadline::none()).unwrap()
    }

    #[test]
    fn the_content_type_decides_when_definite() {
        assert_eq!(classify(Some("text/html; charset=utf-8"), b""), BodyKind::Html);
        assert_eq!(classify(Some("Application/JSON"), b""), BodyKind::Json);
        assert_eq!(classify(Some("application/problem+json"), b""), BodyKind::Json);
        assert_eq!(classify(Some("text/csv"), b"a,b"), BodyKind::Text);
        assert_eq!(classify(Some("image/svg+xml"), b"<svg/>"), BodyKind::Text);
        assert_eq!(classify(Some("application/rss+xml"), b"<rss/>"), BodyKind::Text);
        assert_eq!(
            classify(Some("image/png"), b"\x89PNG\r\n\x1a\n"),
            BodyKind::Image("image/png")
        );
        assert_eq!(
            classify(Some("image/png"), b"<html>"),
            BodyKind::Binary("image/png".into())
        );
        assert_eq!(
            classify(Some("video/mp4"), b"...."),
            BodyKind::Binary("video/mp4".into())
        );
    }

    #[test]
    fn the_bytes_decide_otherwise() {
        assert_eq!(classify(None, b"GIF89a..."), BodyKind::Image("image/gif"));
        assert_eq!(
            classify(Some("application/pdf"), b"%PDF-1.7"),
            BodyKind::Binary("application/pdf (PDF document)".into())
        );
        assert_eq!(
            classify(None, b"\0\x01\x02"),
            BodyKind::Binary("binary data".into())
        );
        assert_eq!(classify(None, b"  <!DOCTYPE html><html>"), BodyKind::Html);
        assert_eq!(
            classify(Some("application/octet-stream"), b"just text"),
            BodyKind::Text
        );
    }

    #[test]
    fn json_is_pretty_printed_unless_raw() {
        let body = br#"{"b":1,"a":[true,null]}"#;
        let pretty = render_now(&BodyKind::Json, body, FetchFormat::Markdown);
        assert_eq!(
            pretty.text,
            "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null\n  ]\n}"
        );
        let raw = render_now(&BodyKind::Json, body, FetchFormat::Raw);
        assert_eq!(raw.text, r#"{"b":1,"a":[true,null]}"#);
        let cut = render_now(&BodyKind::Json, br#"{"b":1,"#, FetchFormat::Text);
        assert_eq!(cut.text, r#"{"b":1,"#);
    }

    #[test]
    fn raw_html_keeps_its_markup_and_title() {
        let body = b"<html><head><title>T</title></head><body><p>x</p></body></html>";
        let raw = render_now(&BodyKind::Html, body, FetchFormat::Raw);
        assert_eq!(raw.title.as_deref(), Some("T"));
        assert_eq!(raw.text, String::from_utf8_lossy(body));
    }
}
