//! [`MediaConfig`]: which files `send_media` may send, and where.

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

/// Which files `send_media` may send, and to which channels besides the default one.
///
/// ```
/// use agent_tools_builtins::media::MediaConfig;
///
/// let config = MediaConfig::default()
///     .max_file_bytes(5 * 1024 * 1024)
///     .allowed_types(["image/*", "application/pdf"])
///     .allowed_channels(["@team_updates"]);
/// assert!(config.allows("image/webp"));
/// assert!(!config.allows("text/plain"));
/// assert!(config.allows_channel("@team_updates") && !config.allows_channel("@anyone_else"));
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
    /// The channels a call may name, exactly as the sender takes them (a Telegram chat id
    /// such as `-1001234567890` or `@channelname`, a webhook's `channel` field). Empty
    /// (the default): only the sender's default channel, and a call that names any
    /// channel is refused. A model talked into posting files to a chat of the attacker's
    /// choosing thus gets a refusal before anything is read or sent.
    pub allowed_channels: Vec<String>,
}

impl Default for MediaConfig {
    fn default() -> Self {
        Self {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            allowed_types: DEFAULT_ALLOWED_TYPES
                .iter()
                .map(|&mime| mime.to_owned())
                .collect(),
            allowed_channels: Vec::new(),
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

    /// Replaces the [`allowed_channels`](Self::allowed_channels).
    pub fn allowed_channels<I, S>(mut self, channels: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_channels = channels.into_iter().map(Into::into).collect();
        self
    }

    /// Whether a call may send to `channel` (compared exactly, after trimming blanks).
    pub fn allows_channel(&self, channel: &str) -> bool {
        let channel = channel.trim();
        self.allowed_channels
            .iter()
            .any(|allowed| allowed.trim() == channel)
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
