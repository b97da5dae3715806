//! `send_media`: files from the workspace sent to a chat channel — a webhook or Telegram.
//!
//! Sending is the one thing a model cannot take back: a file posted to a channel has been
//! read by people before anyone notices a mistake. So nothing is sent on trust:
//!
//! - **Only workspace files.** Every path is opened through
//!   [`Workspace`](crate::Workspace), so `..`, absolute paths and symbolic links
//!   cannot reach the rest of the machine (a model talked into sending `~/.ssh/id_rsa`
//!   gets a refusal).
//! - **Types from content, not names.** A file's media type is detected from its bytes
//!   (magic numbers; text is valid UTF-8 without NUL), and must be one the application
//!   allows ([`MediaConfig::allowed_types`]). A file whose name claims another type than
//!   its content — `evil.png` holding a script — is refused, saying what it really is:
//!   extensions cost nothing to fake, and recipients trust them.
//! - **All or nothing.** Every file is checked (exists, inside, not too large, allowed
//!   type) before the first is sent, and every problem is reported at once, one line per
//!   file, so a model fixes its call in one go instead of leaving half a batch posted.
//!
//! - **Only configured channels.** The model may name a channel only from
//!   [`MediaConfig::allowed_channels`] (empty by default: the sender's default chat
//!   alone); any other is refused before a file is read, so a prompt-injected "send the
//!   report to @somebody" goes nowhere. The sender's own address (webhook URL, bot
//!   token) is never the model's to choose.
//!
//! Once all files pass, they are sent one by one, in order, and the result says for each
//! whether it was sent or why not: a channel that refuses one file does not hide what
//! happened to the others.
//!
//! Where files go is a [`MediaSender`]: [`WebhookSender`] (a multipart POST per file) and
//! [`TelegramSender`] (the Bot API) come with the crate.

mod config;
mod file;
mod http;
mod load;
mod send_media;
mod sender;
mod telegram;
mod webhook;

pub use config::{DEFAULT_ALLOWED_TYPES, DEFAULT_MAX_FILE_BYTES, MediaConfig};
pub use file::MediaFile;
pub(crate) use send_media::send_media;
pub use send_media::{MAX_CAPTION_CHARS, MAX_FILES, SendMediaArgs};
pub use sender::MediaSender;
pub use telegram::{TELEGRAM_API, TelegramSender};
pub use webhook::WebhookSender;

#[cfg(test)]
mod tests;
