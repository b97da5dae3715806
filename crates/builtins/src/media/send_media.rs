//! The `send_media` tool: check every file, then send them all and report each.

use crate::{BoxError, Workspace};
use agent_tools_core::{ToolError, error::error_chain};
use schemars::JsonSchema;
use serde::Deserialize;

use super::load::{Loaded, load};
use super::{MediaConfig, MediaFile, MediaSender};
use crate::text_format::human_size;

/// Most files one call sends.
pub const MAX_FILES: usize = 10;
/// Longest caption, in characters (Telegram's limit for media captions).
pub const MAX_CAPTION_CHARS: usize = 1024;

/// Arguments of `send_media`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SendMediaArgs {
    /// The files to send, as paths relative to the workspace root: 1 to 10, sent in this
    /// order. Nothing is sent unless every file can be: each must exist, be within the
    /// size limit, be of a type the application allows (typically images, PDF, plain
    /// text, common audio and video) judged by its content, and have a name that matches
    /// its content.
    #[schemars(length(min = 1, max = 10))]
    pub paths: Vec<String>,
    /// Text shown with the files (with the first one), at most 1024 characters.
    #[schemars(length(max = 1024))]
    pub caption: Option<String>,
    /// Leave it out to send to the default channel (the usual case). Only a channel the
    /// application allows may be named here (for Telegram, a chat id such as
    /// `-1001234567890` or `@channelname`); any other is refused.
    pub channel: Option<String>,
}

/// Sends workspace files to a chat channel, all or nothing: every file is checked first
/// and every problem reported at once; only when all pass are they sent, and the result
/// says for each whether it was sent. Fails when nothing could be sent.
pub(crate) async fn send_media(
    ws: &Workspace,
    sender: &dyn MediaSender,
    config: &MediaConfig,
    args: SendMediaArgs,
) -> Result<String, ToolError> {
    check_arguments(&args)?;
    let caption = non_blank(args.caption.as_deref());
    let channel = non_blank(args.channel.as_deref());
    if let Some(channel) = channel {
        check_channel(config, channel)?;
    }
    let (shown, files): (Vec<String>, Vec<MediaFile>) = load_all(ws, config, args.paths)
        .await?
        .into_iter()
        .map(|loaded| (loaded.shown, loaded.file))
        .unzip();
    let results = sender.send(&files, caption, channel).await;
    report(&shown, &files, &results, channel)
}

fn check_arguments(args: &SendMediaArgs) -> Result<(), ToolError> {
    if args.paths.is_empty() || args.paths.len() > MAX_FILES {
        return Err(ToolError::invalid_arguments(format!(
            "`paths` has {} entries; give 1 to {MAX_FILES} files (send more in further calls)",
            args.paths.len()
        )));
    }
    let caption_chars = args
        .caption
        .as_deref()
        .map_or(0, |caption| caption.chars().count());
    if caption_chars > MAX_CAPTION_CHARS {
        return Err(ToolError::invalid_arguments(format!(
            "`caption` has {caption_chars} characters; at most {MAX_CAPTION_CHARS} are allowed"
        )));
    }
    Ok(())
}

/// Refuses a channel the application did not allow, before any file is read.
fn check_channel(config: &MediaConfig, channel: &str) -> Result<(), ToolError> {
    if config.allows_channel(channel) {
        return Ok(());
    }
    let allowed = match config.allowed_channels.as_slice() {
        [] => "only the default channel may be used: leave `channel` out".to_owned(),
        channels => {
            let named: Vec<String> = channels
                .iter()
                .map(|channel| format!("`{}`", channel.trim()))
                .collect();
            format!(
                "the channels allowed are the default one (leave `channel` out) and {}",
                named.join(", ")
            )
        }
    };
    Err(ToolError::invalid_arguments(format!(
        "Nothing was sent: `{channel}` is not a channel this application sends to; {allowed}"
    )))
}

fn non_blank(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|text| !text.is_empty())
}

/// Loads and checks every file (off the async threads: this is file I/O), or fails with
/// one line per file that cannot be sent.
async fn load_all(
    ws: &Workspace,
    config: &MediaConfig,
    paths: Vec<String>,
) -> Result<Vec<Loaded>, ToolError> {
    let (ws, config) = (ws.clone(), config.clone());
    let outcomes = tokio::task::spawn_blocking(move || {
        paths
            .iter()
            .map(|path| load(&ws, path, &config))
            .collect::<Vec<_>>()
    })
    .await
    .map_err(|error| ToolError::new(format!("reading the files failed: {error}")))?;
    let total = outcomes.len();
    let problems: Vec<&String> = outcomes
        .iter()
        .filter_map(|outcome| outcome.as_ref().err())
        .collect();
    if !problems.is_empty() {
        return Err(ToolError::new(format!(
            "Nothing was sent: {} of {} cannot be sent. Fix or leave out these and call send_media \
             again:\n{}",
            problems.len(),
            count(total),
            bullets(problems)
        )));
    }
    Ok(outcomes.into_iter().filter_map(Result::ok).collect())
}

/// What happened to each file; an error when none was sent.
fn report(
    shown: &[String],
    files: &[MediaFile],
    results: &[Result<(), BoxError>],
    channel: Option<&str>,
) -> Result<String, ToolError> {
    let lines = shown.iter().zip(files).enumerate().map(|(index, (shown, file))| {
        let outcome = match results.get(index) {
            Some(Ok(())) => "sent".to_owned(),
            Some(Err(error)) => format!("not sent: {}", error_chain(&**error)),
            None => "not sent: the channel reported no result for it".to_owned(),
        };
        let size = human_size(u64::try_from(file.bytes.len()).unwrap_or(u64::MAX));
        format!("`{shown}` ({}, {size}): {outcome}", file.mime_type)
    });
    let lines = bullets(lines);
    let sent = results
        .iter()
        .take(files.len())
        .filter(|result| result.is_ok())
        .count();
    let target = channel.map_or_else(
        || "the default channel".to_owned(),
        |channel| format!("`{channel}`"),
    );
    match sent {
        0 => Err(ToolError::new(format!("Nothing was sent to {target}:\n{lines}"))),
        sent if sent == files.len() => Ok(format!("Sent {} to {target}:\n{lines}", count(sent))),
        sent => Ok(format!(
            "Sent {sent} of {} to {target}:\n{lines}",
            count(files.len())
        )),
    }
}

/// `1 file`, `2 files`.
fn count(files: usize) -> String {
    if files == 1 {
        "1 file".to_owned()
    } else {
        format!("{files} files")
    }
}

/// One `- ` line per item.
fn bullets(items: impl IntoIterator<Item = impl std::fmt::Display>) -> String {
    let lines: Vec<String> = items.into_iter().map(|item| format!("- {item}")).collect();
    lines.join("\n")
}
