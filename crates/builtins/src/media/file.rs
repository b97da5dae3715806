//! [`MediaFile`]: one checked file, ready for a [`MediaSender`](super::MediaSender).

use std::fmt;

/// A file ready to send: its name, its media type (detected from its content) and its
/// bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct MediaFile {
    /// The file's name, without its directories (`chart.png`).
    pub name: String,
    /// Its media type, detected from its content (`image/png`).
    pub mime_type: String,
    /// Its content.
    pub bytes: Vec<u8>,
}

/// Shows the size, not the bytes.
impl fmt::Debug for MediaFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MediaFile")
            .field("name", &self.name)
            .field("mime_type", &self.mime_type)
            .field("bytes", &format_args!("<{} bytes>", self.bytes.len()))
            .finish()
    }
}
