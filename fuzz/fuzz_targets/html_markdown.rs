//! HTML → Markdown / text extraction (what `web_fetch` does with a page) on arbitrary
//! bytes.
//!
//! The first byte picks the `Content-Type` (HTML with and without a charset, XHTML,
//! none, so the bytes are sniffed; a few non-HTML types) and the format (Markdown or
//! plain text); the rest is the body. Runs through
//! `builtins::web::__fuzz::render_body`, the classification and conversion
//! `web_fetch` applies after a fetch.
//!
//! Checked: no panic, and (run with `-timeout=5 -max_len=65536`) bounded time.

#![no_main]

use builtins::web::__fuzz::render_body;
use builtins::web::FetchFormat;
use libfuzzer_sys::fuzz_target;

const CONTENT_TYPES: &[Option<&str>] = &[
    Some("text/html"),
    Some("text/html; charset=utf-8"),
    Some("text/html; charset=windows-1252"),
    Some("text/html; charset=shift_jis"),
    Some("text/html; charset=utf-16"),
    Some("application/xhtml+xml"),
    None,
    Some("application/octet-stream"),
    Some("text/plain"),
    Some("application/json"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let content_type = CONTENT_TYPES[usize::from(selector & 0x0f) % CONTENT_TYPES.len()];
    let format = if selector & 0x10 == 0 {
        FetchFormat::Markdown
    } else {
        FetchFormat::Text
    };
    if let Some((Some(title), _text)) =
        render_body(content_type, body, "https://example.com/dir/page.html", format)
    {
        assert!(!title.trim().is_empty(), "an empty title is no title");
    }
});
