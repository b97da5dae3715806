//! What a file that is not an image view_image shows is, in the words of its refusal:
//! the model learns what it asked for and which tool reads it.

use std::io::{BufReader, Read};

use agent_tools_core::ToolError;

use crate::file_kind::{self, Format};
use crate::text_format::{count_lines, human_size, plural};

/// What the refusals say view_image shows.
const SHOWN: &str = "view_image shows PNG, JPEG, GIF and WebP images";

/// The refusal of `shown` (the path as shown), of `size` bytes, whose first bytes are
/// `head` and whose `rest` follows; a text file's lines are counted from it.
pub(crate) fn refuse(shown: &str, format: &Format, head: &[u8], size: u64, rest: impl Read) -> ToolError {
    let message = if format.mime_type.starts_with("image/") {
        format!(
            "`{shown}` is {} {}, which view_image cannot show; convert it to PNG or JPEG first ({SHOWN})",
            article(format.name),
            format.name
        )
    } else if !is_text(format) {
        format!(
            "`{shown}` is a binary file ({}, {}), not an image; {SHOWN}",
            format.name,
            human_size(size)
        )
    } else if file_kind::is_svg(head) {
        format!(
            "`{shown}` is an SVG image, which view_image cannot show; read it with read_file (it is text)"
        )
    } else {
        let lines = count_lines(BufReader::new(head.chain(rest)))
            .map(|count| plural(count, "line", "lines"))
            .unwrap_or_else(|_| human_size(size));
        let encoding = if is_utf8(head) { "UTF-8" } else { "not UTF-8" };
        format!("`{shown}` is a text file ({encoding}, {lines}); {SHOWN} — use read_file")
    };
    ToolError::new(message)
}

fn is_text(format: &Format) -> bool {
    *format == file_kind::TEXT || *format == file_kind::OTHER_TEXT
}

/// Whether `head` is UTF-8, but for a character cut at its end.
fn is_utf8(head: &[u8]) -> bool {
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(error) => error.error_len().is_none(),
    }
}

/// `a` or `an` before a format's name, as it is spoken ("an AVIF image", "a HEIC image").
fn article(name: &str) -> &'static str {
    match name.chars().next() {
        Some('A' | 'E' | 'I' | 'O' | 'U') => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(head: &[u8], rest: &[u8]) -> String {
        let format = file_kind::identify(head);
        refuse("f", format, head, (head.len() + rest.len()) as u64, rest).to_string()
    }

    #[test]
    fn each_kind_is_named() {
        assert_eq!(
            refusal(b"one\ntwo\n", b"three"),
            "`f` is a text file (UTF-8, 3 lines); view_image shows PNG, JPEG, GIF and WebP images — use read_file"
        );
        assert!(refusal(b"caf\xE9\n", b"").contains("(not UTF-8, 1 line)"));
        // A character cut at the end of the first bytes is still UTF-8.
        assert!(refusal("h\u{e9}".as_bytes().split_last().unwrap().1, b"\xA9").contains("(UTF-8, 1 line)"));
        assert_eq!(
            refusal(b"%PDF-1.7\n", &[0; 2000]),
            "`f` is a binary file (PDF document, 2.0 KB), not an image; view_image shows PNG, JPEG, GIF and WebP images"
        );
        assert!(refusal(b"PK\x03\x04\x14\0", b"").contains("(ZIP archive, "));
        assert_eq!(
            refusal(b"<svg xmlns='http://www.w3.org/2000/svg'/>", b""),
            "`f` is an SVG image, which view_image cannot show; read it with read_file (it is text)"
        );
        assert!(
            refusal(b"\0\0\0\x18ftypheic\0\0\0\0", b"")
                .starts_with("`f` is a HEIC image, which view_image cannot show")
        );
        assert!(refusal(b"\0\0\0\x18ftypavif\0\0\0\0", b"").starts_with("`f` is an AVIF image"));
    }
}
