//! Response bodies decoded to text by their charset (read up to a cap by
//! [`read_capped`](crate::capped_body::read_capped)).

use encoding_rs::{Encoding, UTF_8};

/// Decodes a body to text: a byte order mark wins, then the `charset` of the
/// `Content-Type`, then (for HTML) a `<meta>` charset declaration, then UTF-8. Bytes
/// invalid in the encoding become U+FFFD.
pub(crate) fn decode(bytes: &[u8], content_type: Option<&str>, html: bool) -> String {
    let declared = content_type
        .and_then(charset_param)
        .or_else(|| html.then(|| meta_charset(bytes)).flatten());
    let encoding = declared
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .unwrap_or(UTF_8);
    let (text, _, _) = encoding.decode(bytes);
    text.into_owned()
}

/// The `charset` parameter of a `Content-Type` value.
fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']).to_owned())
    })
}

/// The charset an HTML document declares in its first 1024 bytes, as browsers look for
/// it: `<meta charset="…">` or `<meta http-equiv="Content-Type" content="…; charset=…">`.
fn meta_charset(bytes: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]).to_ascii_lowercase();
    head.split("<meta").skip(1).find_map(|tag| {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        let after = &tag[tag.find("charset")? + "charset".len()..];
        let value = after.trim_start().strip_prefix('=')?.trim_start();
        let value = value.trim_start_matches(['"', '\'']);
        let end = value
            .find(|c: char| matches!(c, '"' | '\'' | ';' | '/') || c.is_whitespace())
            .unwrap_or(value.len());
        let label = &value[..end];
        // A page cannot declare itself UTF-16 from inside; browsers read such pages as UTF-8.
        (!label.is_empty()).then(|| label.replace("utf-16", "utf-8"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charset_from_the_content_type() {
        assert_eq!(
            decode(b"caf\xe9", Some("text/plain; charset=ISO-8859-1"), false),
            "café"
        );
        assert_eq!(
            decode(b"caf\xe9", Some("text/html; charset=\"windows-1252\""), true),
            "café"
        );
        assert_eq!(decode("café".as_bytes(), Some("text/plain"), false), "café");
    }

    #[test]
    fn charset_from_a_meta_tag_in_html_only() {
        let html = b"<html><head><meta charset=\"windows-1252\"><title>caf\xe9</title>";
        assert!(decode(html, Some("text/html"), true).contains("café"));
        assert!(decode(html, None, false).contains("caf\u{FFFD}"));
        let http_equiv =
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\"><p>\xe9</p>";
        assert!(decode(http_equiv, None, true).contains("<p>é</p>"));
    }

    #[test]
    fn the_header_wins_over_meta_and_a_bom_wins_over_both() {
        let html = "<meta charset=\"windows-1252\"><p>é</p>".as_bytes();
        assert!(decode(html, Some("text/html; charset=utf-8"), true).contains("<p>é</p>"));
        let bom = b"\xef\xbb\xbfcaf\xc3\xa9";
        assert_eq!(
            decode(bom, Some("text/plain; charset=windows-1252"), false),
            "café"
        );
    }

    #[test]
    fn unknown_or_utf16_labels_fall_back_to_utf8() {
        assert_eq!(
            decode("é".as_bytes(), Some("text/plain; charset=klingon"), false),
            "é"
        );
        assert!(decode("<meta charset=utf-16><p>é".as_bytes(), None, true).contains("<p>é"));
    }
}
