//! [`MediaConfig`]: which files `send_media` may send.

/// The default [`MediaConfig::max_file_bytes`]: 20 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;

/// The default [`MediaConfig::allowed_types`]: common images, PDF, plain text, and common
/// audio and video.
pub const DEFAULT_ALLOWED_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "application/pdf",
    "text/plain",
    "audio/mpeg",
    "audio/ogg",
    "video/mp4",
];

/// Which files `send_media` may send.
///
/// ```
/// use builtin_tools::media::MediaConfig;
///
/// let config = MediaConfig::default()
///     .max_file_bytes(5 * 1024 * 1024)
///     .allowed_types(["image/*", "application/pdf"]);
/// assert!(config.allows("image/webp"));
/// assert!(!config.allows("text/plain"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MediaConfig {
    /// Largest file sent, in bytes. Default [`DEFAULT_MAX_FILE_BYTES`] (20 MiB).
    pub max_file_bytes: u64,
    /// The media types that may be sent, as detected from content: exact types
    /// (`image/png`) or a whole family (`image/*`), case-insensitive. Default
    /// [`DEFAULT_ALLOWED_TYPES`].
    pub allowed_types: Vec<String>,
}

impl Default for MediaConfig {
    fn default() -> Self {
        Self {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            allowed_types: DEFAULT_ALLOWED_TYPES
                .iter()
                .map(|&mime| mime.to_owned())
                .collect(),
        }
    }
}

impl MediaConfig {
    /// Sets [`max_file_bytes`](Self::max_file_bytes).
    pub fn max_file_bytes(mut self, max: u64) -> Self {
        self.max_file_bytes = max;
        self
    }

    /// Replaces the [`allowed_types`](Self::allowed_types).
    pub fn allowed_types<I, S>(mut self, types: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_types = types.into_iter().map(Into::into).collect();
        self
    }

    /// Whether files of `mime_type` may be sent.
    pub fn allows(&self, mime_type: &str) -> bool {
        self.allowed_types.iter().any(|allowed| {
            let allowed = allowed.trim();
            match allowed.strip_suffix("/*") {
                Some(family) => mime_type
                    .split_once('/')
                    .is_some_and(|(top, _)| top.eq_ignore_ascii_case(family)),
                None => allowed.eq_ignore_ascii_case(mime_type),
            }
        })
    }
}
