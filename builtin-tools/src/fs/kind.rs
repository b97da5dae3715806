//! What a file holds, from its first bytes: text, an image, or other binary data.

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// Text (possibly not valid UTF-8).
    Text,
    /// An image a model can look at, with its media type.
    Image(&'static str),
    /// Other binary data, with a name for it.
    Binary(&'static str),
}

/// Signatures of the formats worth naming; checked in order.
const SIGNATURES: &[(&[u8], FileKind)] = &[
    (b"\x89PNG\r\n\x1a\n", FileKind::Image("image/png")),
    (b"\xFF\xD8\xFF", FileKind::Image("image/jpeg")),
    (b"GIF87a", FileKind::Image("image/gif")),
    (b"GIF89a", FileKind::Image("image/gif")),
    (b"%PDF-", FileKind::Binary("PDF document")),
    (b"PK\x03\x04", FileKind::Binary("ZIP archive")),
    (b"\x1F\x8B", FileKind::Binary("gzip data")),
    (b"\x7FELF", FileKind::Binary("ELF executable")),
    (b"SQLite format 3\0", FileKind::Binary("SQLite database")),
];

/// Classifies a file by its first bytes (8 KiB are plenty). Text is what has no NUL byte,
/// the rule git and ripgrep use.
pub(crate) fn sniff(head: &[u8]) -> FileKind {
    if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        return FileKind::Image("image/webp");
    }
    if let Some((_, kind)) = SIGNATURES.iter().find(|(magic, _)| head.starts_with(magic)) {
        return *kind;
    }
    if memchr::memchr(0, head).is_some() {
        FileKind::Binary("binary data")
    } else {
        FileKind::Text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_signatures() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\nrest"), FileKind::Image("image/png"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), FileKind::Image("image/webp"));
        assert_eq!(sniff(b"%PDF-1.7"), FileKind::Binary("PDF document"));
        assert_eq!(sniff(b"abc\0def"), FileKind::Binary("binary data"));
        assert_eq!(sniff("héllo\n".as_bytes()), FileKind::Text);
        assert_eq!(sniff(b""), FileKind::Text);
    }
}
