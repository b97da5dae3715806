//! What a file holds, from its bytes: text, an image, or other binary data — and, for the
//! formats worth naming, their media type and the file name extensions that claim them.
//!
//! One table, [`FORMATS`], serves every tool that judges content: `read_file` and
//! `web_fetch` ask [`sniff`] whether bytes are text, an image a model can look at, or
//! something else; `send_media` asks [`identify`] for the media type of a whole file and
//! [`claimed_by_name`] what its extension says it is; `view_image` asks [`is_svg`] whether
//! text is a picture it cannot show.

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

/// Bytes expected at an offset from the start of a file.
type Magic = (usize, &'static [u8]);

/// A file format, recognised by its content.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Format {
    /// What it is, for messages: `PNG image`, `ELF executable`.
    pub(crate) name: &'static str,
    /// Its media (MIME) type.
    pub(crate) mime_type: &'static str,
    /// Whether a model can look at it as image content.
    viewable: bool,
    /// Its signatures: the content is in this format when every magic of one matches.
    signatures: &'static [&'static [Magic]],
    /// The lowercase file name extensions that claim this format.
    extensions: &'static [&'static str],
}

impl Format {
    const fn new(
        name: &'static str,
        mime_type: &'static str,
        signatures: &'static [&'static [Magic]],
    ) -> Self {
        Self {
            name,
            mime_type,
            viewable: false,
            signatures,
            extensions: &[],
        }
    }

    const fn viewable(mut self) -> Self {
        self.viewable = true;
        self
    }

    const fn extensions(mut self, extensions: &'static [&'static str]) -> Self {
        self.extensions = extensions;
        self
    }

    /// The coarse kind `read_file` and `web_fetch` act on.
    fn kind(&self) -> FileKind {
        if self.viewable {
            FileKind::Image(self.mime_type)
        } else {
            FileKind::Binary(self.name)
        }
    }

    fn matches(&self, head: &[u8]) -> bool {
        self.signatures.iter().any(|signature| {
            signature
                .iter()
                .all(|(offset, magic)| head.get(*offset..).is_some_and(|rest| rest.starts_with(magic)))
        })
    }
}

/// An ISO base media file (MP4 and its relatives): a small `ftyp` box first, whose size
/// starts with three zero bytes, and then the major brand.
macro_rules! iso_media {
    ($($brand:literal),+) => {
        &[$(&[(0, b"\0\0\0"), (4, $brand)]),+]
    };
}

/// The formats recognised by signature, most specific first.
const FORMATS: &[Format] = &[
    Format::new("PNG image", "image/png", &[&[(0, b"\x89PNG\r\n\x1a\n")]])
        .viewable()
        .extensions(&["png"]),
    Format::new("JPEG image", "image/jpeg", &[&[(0, b"\xFF\xD8\xFF")]])
        .viewable()
        .extensions(&["jpg", "jpeg"]),
    Format::new("GIF image", "image/gif", &[&[(0, b"GIF87a")], &[(0, b"GIF89a")]])
        .viewable()
        .extensions(&["gif"]),
    Format::new("WebP image", "image/webp", &[&[(0, b"RIFF"), (8, b"WEBP")]])
        .viewable()
        .extensions(&["webp"]),
    Format::new("PDF document", "application/pdf", &[&[(0, b"%PDF-")]]).extensions(&["pdf"]),
    Format::new("WAV audio", "audio/wav", &[&[(0, b"RIFF"), (8, b"WAVE")]]).extensions(&["wav"]),
    Format::new(
        "MP3 audio",
        "audio/mpeg",
        &[
            &[(0, b"ID3\x02")],
            &[(0, b"ID3\x03")],
            &[(0, b"ID3\x04")],
            &[(0, b"\xFF\xFB")],
            &[(0, b"\xFF\xFA")],
            &[(0, b"\xFF\xF3")],
            &[(0, b"\xFF\xF2")],
        ],
    )
    .extensions(&["mp3"]),
    Format::new("Ogg audio", "audio/ogg", &[&[(0, b"OggS\0")]]).extensions(&["ogg", "oga", "opus"]),
    Format::new("MPEG-4 audio", "audio/mp4", iso_media!(b"ftypM4A ")).extensions(&["m4a"]),
    Format::new("QuickTime video", "video/quicktime", iso_media!(b"ftypqt  ")).extensions(&["mov"]),
    Format::new(
        "HEIC image",
        "image/heic",
        iso_media!(b"ftypheic", b"ftypheix", b"ftypmif1"),
    )
    .extensions(&["heic", "heif"]),
    Format::new("AVIF image", "image/avif", iso_media!(b"ftypavif")).extensions(&["avif"]),
    Format::new("MP4 video", "video/mp4", iso_media!(b"ftyp")).extensions(&["mp4", "m4v"]),
    Format::new(
        "WebM or Matroska video",
        "video/webm",
        &[&[(0, b"\x1A\x45\xDF\xA3")]],
    )
    .extensions(&["webm", "mkv"]),
    Format::new(
        "ZIP archive",
        "application/zip",
        &[&[(0, b"PK\x03\x04")], &[(0, b"PK\x05\x06")]],
    )
    .extensions(&["zip"]),
    Format::new("gzip data", "application/gzip", &[&[(0, b"\x1F\x8B")]]).extensions(&["gz", "tgz"]),
    Format::new(
        "ELF executable",
        "application/x-executable",
        &[&[(0, b"\x7FELF")]],
    ),
    Format::new(
        "SQLite database",
        "application/vnd.sqlite3",
        &[&[(0, b"SQLite format 3\0")]],
    )
    .extensions(&["sqlite", "sqlite3"]),
];

/// UTF-8 text without NUL bytes.
pub(crate) const TEXT: Format = Format::new("UTF-8 text", "text/plain", &[]).extensions(&["txt"]);
/// Text in some other encoding (or corrupt UTF-8): no NUL bytes, but not valid UTF-8.
pub(crate) const OTHER_TEXT: Format =
    Format::new("text that is not valid UTF-8", "application/octet-stream", &[]);
/// Binary data of no recognised format.
pub(crate) const BINARY: Format = Format::new("binary data", "application/octet-stream", &[]);

/// The format whose signature `head` starts with.
fn by_signature(head: &[u8]) -> Option<&'static Format> {
    FORMATS.iter().find(|format| format.matches(head))
}

/// Classifies a file by its first bytes (8 KiB are plenty). Text is what has no NUL byte,
/// the rule git and ripgrep use.
pub(crate) fn sniff(head: &[u8]) -> FileKind {
    match by_signature(head) {
        Some(format) => format.kind(),
        None if memchr::memchr(0, head).is_some() => BINARY.kind(),
        None => FileKind::Text,
    }
}

/// The format of a whole file's `bytes`: a recognised signature, else [`TEXT`] when the
/// bytes are valid UTF-8 without NUL, else [`OTHER_TEXT`] or [`BINARY`].
pub(crate) fn identify(bytes: &[u8]) -> &'static Format {
    match by_signature(bytes) {
        Some(format) => format,
        None if memchr::memchr(0, bytes).is_some() => &BINARY,
        None if std::str::from_utf8(bytes).is_ok() => &TEXT,
        None => &OTHER_TEXT,
    }
}

/// Whether text (a file's first bytes) is an SVG document: its first markup, after any
/// XML declaration, comments and doctype, is an `<svg` element — read, lowercased, from
/// the first `<svg` or the first other element, whichever comes first.
pub(crate) fn is_svg(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    // Skip `<?…?>`, `<!…>` (comments, doctype) until the first element.
    while let Some(after) = rest.strip_prefix("<?").or_else(|| rest.strip_prefix("<!")) {
        let end = match after.strip_prefix("--") {
            Some(comment) => comment.find("-->").map(|at| at + 5),
            None => after.find('>').map(|at| at + 1),
        };
        let Some(end) = end else { return false };
        rest = after[end..].trim_start();
    }
    rest.strip_prefix("<svg")
        .is_some_and(|after| after.starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/'))
}

/// The format a file name's extension claims (case-insensitive), if it is a known one.
pub(crate) fn claimed_by_name(name: &str) -> Option<&'static Format> {
    let (_, extension) = name.rsplit_once('.')?;
    let extension = extension.to_ascii_lowercase();
    FORMATS
        .iter()
        .chain([&TEXT])
        .find(|format| format.extensions.contains(&extension.as_str()))
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

    #[test]
    fn media_types_from_content() {
        let mime = |bytes: &[u8]| identify(bytes).mime_type;
        assert_eq!(mime(b"ID3\x04\0\0\0\0\0\x21TIT2"), "audio/mpeg");
        assert_eq!(mime(b"\xFF\xFB\x90\x64\0\0"), "audio/mpeg");
        assert_eq!(mime(b"OggS\0\x02\0\0"), "audio/ogg");
        assert_eq!(mime(b"RIFF\x24\0\0\0WAVEfmt "), "audio/wav");
        assert_eq!(mime(b"\0\0\0\x20ftypisom\0\0\x02\0"), "video/mp4");
        assert_eq!(mime(b"\0\0\0\x18ftypheic\0\0\0\0"), "image/heic");
        assert_eq!(mime(b"\0\0\0\x1CftypM4A \0\0\0\0"), "audio/mp4");
        assert_eq!(mime(b"PK\x03\x04\x14\0"), "application/zip");
        assert_eq!(mime(b"\x7FELF\x02\x01\x01\0"), "application/x-executable");
        assert_eq!(mime("plain ☃ text\n".as_bytes()), "text/plain");
        assert_eq!(identify(b"caf\xE9\n"), &OTHER_TEXT);
        assert_eq!(identify(b"a\0b"), &BINARY);
        // Text that merely starts like a signature is still text.
        assert_eq!(mime(b"ID3 tags hold the title\n"), "text/plain");
        assert_eq!(mime(b"abcdftyp is a box\n"), "text/plain");
    }

    #[test]
    fn svg_is_told_from_other_text() {
        assert!(is_svg(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"));
        let declared =
            "\u{feff}<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<!DOCTYPE svg>\n<SVG width=\"1\">";
        assert!(is_svg(declared.as_bytes()));
        assert!(!is_svg(b"<html><svg></svg></html>"));
        assert!(!is_svg(b"<svgfoo/>"));
        assert!(!is_svg(b"plain text mentioning <svg>"));
        assert!(!is_svg(b"<!-- never closed <svg>"));
    }

    #[test]
    fn extensions_claim_formats() {
        let claimed = |name: &str| claimed_by_name(name).map(|format| format.mime_type);
        assert_eq!(claimed("photo.PNG"), Some("image/png"));
        assert_eq!(claimed("dir.v2/photo.jpeg"), Some("image/jpeg"));
        assert_eq!(claimed("notes.txt"), Some("text/plain"));
        assert_eq!(claimed("clip.m4v"), Some("video/mp4"));
        assert_eq!(claimed("notes.md"), None);
        assert_eq!(claimed("Makefile"), None);
    }
}
