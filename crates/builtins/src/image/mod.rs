//! `view_image`: an image in the workspace — a screenshot a test produced, a diagram, a
//! mockup — shown to the model, at a size its provider takes.
//!
//! The path is opened through [`Workspace`] following no symbolic link
//! at all ([`Workspace::following_no_links`](crate::Workspace::following_no_links)): an
//! image is something to look at, never a reason to follow a link, so `..`, absolute paths
//! outside the root and links (even to files inside) are refused by the kernel at the
//! open. What the file is comes from its bytes (`file_kind`), not its name: text, SVG,
//! HEIC, PDFs and other files are refused with what they are and which tool reads them
//! (`refusal.rs`).
//!
//! PNG, JPEG, GIF and WebP are decoded in bounded memory (`decode.rs`: a declared size is
//! checked before it is allocated, so a decompression bomb costs nothing). Then:
//!
//! - an image the provider takes as it is — within its size in pixels and bytes, in a
//!   format it takes, not animated and needing no turn — is returned unchanged, bytes and
//!   media type;
//! - anything else is scaled down to fit (`resize.rs`, keeping the aspect ratio) and
//!   encoded as PNG or JPEG within the provider's byte limit (`encode.rs`); of an
//!   animation, the first frame.
//!
//! The provider is the dialect the call's result goes to
//! ([`ToolContext::dialect`](agent_tools_core::ToolContext::dialect)); its limits, with
//! their sources, are one table in `limits.rs`. A call that names no dialect, or MCP's,
//! gets an image every provider takes. The text beside the image says the file, its
//! format, its size in pixels and bytes, and what was done to it, so that coordinates read
//! off a scaled image can be mapped back.

mod args;
mod decode;
mod encode;
mod limits;
mod refusal;
mod resize;

use std::io::Read;

use agent_tools_core::{
    Dialect, ToolError, ToolOutput,
    output::{Content, Image},
};

use crate::file_kind;
use crate::text_format::human_size;
use crate::{Workspace, WorkspaceError};

pub use args::ViewImageArgs;

use decode::{Codec, Decoded, decode};
use encode::{Encoded, Encoding, encode_within};
use limits::ProviderLimits;
use resize::resize;

/// The largest file read: images are far smaller, after decoding even more so.
pub(crate) const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// The first bytes, from which a file's kind is told.
const HEAD_BYTES: u64 = 8192;

/// Shows the image at `args.path`, scaled for `dialect`'s provider (every provider's, when
/// `None`).
pub(crate) fn view_image(
    ws: &Workspace,
    dialect: Option<Dialect>,
    args: ViewImageArgs,
) -> Result<ToolOutput, ToolError> {
    let mut opened = ws
        .following_no_links()
        .open_file(&args.path)
        .map_err(|error| match error {
            WorkspaceError::LinkOnTheWay { path } => ToolError::new(format!(
                "`{path}` is or passes through a symbolic link, which view_image does not follow; \
                 give the path of the image itself"
            )),
            other => other.into(),
        })?;
    let shown = Workspace::display(&opened.path);
    let size = opened.metadata.len();
    let read_error = |error: std::io::Error| ToolError::new(format!("cannot read `{shown}`: {error}"));
    let mut bytes = Vec::new();
    (&mut opened.file)
        .take(HEAD_BYTES)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    let format = file_kind::identify(&bytes);
    let Some(codec) = Codec::from_mime(format.mime_type) else {
        return Err(refusal::refuse(&shown, format, &bytes, size, opened.file));
    };
    if size > MAX_FILE_BYTES {
        return Err(ToolError::new(format!(
            "`{shown}` is a {} image of {}, more than the {} view_image reads",
            codec.name(),
            human_size(size),
            human_size(MAX_FILE_BYTES)
        )));
    }
    opened
        .file
        .take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    let decoded = decode(&bytes, codec).map_err(|error| {
        ToolError::new(format!(
            "`{shown}` is a {} file that cannot be shown: {error}",
            codec.name()
        ))
    })?;
    let limits = ProviderLimits::for_dialect(dialect);
    let header = header(&shown, codec, &decoded, bytes.len() as u64);
    if sendable_as_is(codec, &decoded, bytes.len() as u64, &limits) {
        let note = format!("{header}; sent unchanged");
        let image = Image::new(format.mime_type, bytes);
        return Ok(ToolOutput::text(note).with_content(Content::from(image)));
    }
    let what = Conversion::of(codec, &decoded, bytes.len() as u64, &limits);
    let (width, height) = limits.fitted(decoded.image.width(), decoded.image.height());
    let image = match (width, height) == (decoded.image.width(), decoded.image.height()) {
        true => decoded.image,
        false => resize(&decoded.image, width, height),
    };
    let encoded =
        encode_within(image, limits.bytes).map_err(|error| ToolError::new(format!("`{shown}`: {error}")))?;
    let note = format!("{header}; {}", what.describe(&limits, &encoded));
    let image = Image::new(encoded.encoding.mime_type(), encoded.bytes);
    Ok(ToolOutput::text(note).with_content(Content::from(image)))
}

/// "`shot.png`: PNG image, 4000×3000 pixels, 2.1 MB".
fn header(shown: &str, codec: Codec, decoded: &Decoded, size: u64) -> String {
    let (width, height) = (decoded.image.width(), decoded.image.height());
    let animated = if decoded.animated { ", animated" } else { "" };
    format!(
        "`{shown}`: {} image, {width}×{height} pixels, {}{animated}",
        codec.name(),
        human_size(size)
    )
}

/// Whether the file can go to the provider byte for byte.
fn sendable_as_is(codec: Codec, decoded: &Decoded, size: u64, limits: &ProviderLimits) -> bool {
    !decoded.animated
        && !decoded.turned
        && limits.formats.contains(codec.format())
        && limits.fits(decoded.image.width(), decoded.image.height())
        && size <= limits.bytes
}

/// Why an image was encoded again, for the text beside it.
struct Conversion {
    /// The size before scaling, when it did not fit.
    scaled_from: Option<(u32, u32)>,
    animated: bool,
    turned: bool,
    /// The provider does not take the format.
    format_refused: Option<&'static str>,
    /// The file has more bytes than the provider takes.
    too_many_bytes: bool,
}

impl Conversion {
    fn of(codec: Codec, decoded: &Decoded, size: u64, limits: &ProviderLimits) -> Conversion {
        let (width, height) = (decoded.image.width(), decoded.image.height());
        Conversion {
            scaled_from: (!limits.fits(width, height)).then_some((width, height)),
            animated: decoded.animated,
            turned: decoded.turned,
            format_refused: (!limits.formats.contains(codec.format())).then_some(codec.name()),
            too_many_bytes: size > limits.bytes,
        }
    }

    /// "scaled from 4000×3000 to 1238×928 for Anthropic; sent as JPEG (quality 85, 180.2 KB)".
    fn describe(&self, limits: &ProviderLimits, encoded: &Encoded) -> String {
        let provider = limits.provider;
        let mut done = Vec::new();
        if self.animated {
            // Whatever the provider takes, an animation goes as one frame.
            done.push("its first frame is shown".to_owned());
        } else if let Some(format) = self.format_refused {
            done.push(format!("{provider} takes no {format} images"));
        }
        if self.turned {
            done.push("turned upright as its metadata says".to_owned());
        }
        if let Some((width, height)) = self.scaled_from {
            done.push(format!(
                "scaled from {width}×{height} to {}×{} for {provider}",
                encoded.width, encoded.height
            ));
        } else if self.too_many_bytes {
            done.push(format!(
                "more than the {} an image for {provider} may have, so encoded again at {}×{}",
                human_size(limits.bytes),
                encoded.width,
                encoded.height
            ));
        }
        let encoding = match encoded.encoding {
            Encoding::Png => "PNG".to_owned(),
            Encoding::Jpeg { quality } => format!("JPEG (quality {quality})"),
        };
        done.push(format!(
            "sent as {encoding}, {}",
            human_size(encoded.bytes.len() as u64)
        ));
        done.join("; ")
    }
}

#[cfg(test)]
mod tests;
