//! Media a tool returns as bytes: [`Image`] and [`Audio`], each becoming its
//! [`Content`] part with the bytes base64-encoded.

use base64::Engine as _;

use super::{Content, IntoToolOutput, ToolOutput};

/// An image a tool returns; becomes [`Content::Image`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    mime_type: String,
    data: Vec<u8>,
}

impl Image {
    /// An image of the given media type from its encoded bytes.
    pub fn new(mime_type: impl Into<String>, data: Vec<u8>) -> Self {
        Self {
            mime_type: mime_type.into(),
            data,
        }
    }

    /// A PNG image from its encoded bytes.
    pub fn png(data: Vec<u8>) -> Self {
        Self::new("image/png", data)
    }

    /// The media type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The encoded bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }
}

impl From<Image> for Content {
    fn from(image: Image) -> Self {
        Content::Image {
            mime_type: image.mime_type,
            data: base64::engine::general_purpose::STANDARD.encode(&image.data),
            annotations: None,
        }
    }
}

impl IntoToolOutput for Image {
    fn into_tool_output(self) -> ToolOutput {
        Content::from(self).into_tool_output()
    }
}

/// Audio a tool returns (a recording, synthesized speech); becomes [`Content::Audio`].
///
/// ```
/// use agent_tools_core::{output::{Audio, Content, IntoToolOutput}};
///
/// let output = Audio::wav(b"RIFF".to_vec()).into_tool_output();
/// assert!(matches!(&output.content[0], Content::Audio { mime_type, data, .. }
///     if mime_type == "audio/wav" && data == "UklGRg=="));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audio {
    mime_type: String,
    data: Vec<u8>,
}

impl Audio {
    /// Audio of the given media type (e.g. `audio/mpeg`) from its encoded bytes.
    pub fn new(mime_type: impl Into<String>, data: Vec<u8>) -> Self {
        Self {
            mime_type: mime_type.into(),
            data,
        }
    }

    /// WAV audio from its encoded bytes.
    pub fn wav(data: Vec<u8>) -> Self {
        Self::new("audio/wav", data)
    }

    /// The media type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The encoded bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }
}

impl From<Audio> for Content {
    fn from(audio: Audio) -> Self {
        Content::Audio {
            mime_type: audio.mime_type,
            data: base64::engine::general_purpose::STANDARD.encode(&audio.data),
            annotations: None,
        }
    }
}

impl IntoToolOutput for Audio {
    fn into_tool_output(self) -> ToolOutput {
        Content::from(self).into_tool_output()
    }
}
