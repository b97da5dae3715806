//! [`MediaSender`]: where `send_media` delivers files.

use agent_tools_core::tool::BoxFuture;

use super::MediaFile;
use crate::BoxError;

/// Where media goes: a chat channel. [`WebhookSender`](super::WebhookSender) and
/// [`TelegramSender`](super::TelegramSender) come with the crate; anything else (Slack, a
/// test double) implements this.
///
/// `send` gets only files that passed every check, and returns one result per file, in
/// order: `Ok` when it was delivered, `Err` with a reason the model can read (never a
/// secret such as a token) when not. It must not panic.
pub trait MediaSender: Send + Sync + 'static {
    /// Sends `files` in order, with `caption` (the sender decides where it goes, e.g. with
    /// the first file) to `channel`, or to the sender's default channel when `None`.
    fn send<'a>(
        &'a self,
        files: &'a [MediaFile],
        caption: Option<&'a str>,
        channel: Option<&'a str>,
    ) -> BoxFuture<'a, Vec<Result<(), BoxError>>>;
}
