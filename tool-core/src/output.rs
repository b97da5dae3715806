//! What a tool returns: [`ToolOutput`], its [`Content`] parts, and [`IntoToolOutput`], the
//! conversion from the types tool functions actually return.

use base64::Engine as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The result of a tool: content parts for the model, optional structured data, and
/// whether it is an error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// The parts shown to the model, in order.
    pub content: Vec<Content>,
    /// Machine-readable output matching the tool's output schema ([`Json`] sets it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// The output describes a failure.
    #[serde(default)]
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful output of one text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            ..Self::default()
        }
    }

    /// An error output of one text part.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(message)
        }
    }

    /// Adds structured content.
    pub fn with_structured(mut self, structured: Value) -> Self {
        self.structured = Some(structured);
        self
    }

    /// Appends a content part.
    pub fn with_content(mut self, content: Content) -> Self {
        self.content.push(content);
        self
    }

    /// All text parts joined by newlines (images and resources are left out).
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|part| match part {
                Content::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// Approximate size in bytes: text, encoded data and structured JSON.
    pub fn byte_len(&self) -> usize {
        let content: usize = self.content.iter().map(Content::byte_len).sum();
        content + self.structured.as_ref().map_or(0, json_len)
    }
}

/// One part of a tool's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// e.g. `image/png`.
        mime_type: String,
        /// The image bytes in standard base64.
        data: String,
    },
    /// A resource (a file, a document) embedded in the output.
    Resource {
        /// Where the resource lives, e.g. `file:///workspace/notes.md`.
        uri: String,
        /// Its media type, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its contents.
        #[serde(flatten)]
        contents: ResourceContents,
    },
}

/// The contents of an embedded resource: text or binary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceContents {
    /// UTF-8 text.
    Text(String),
    /// Binary data in standard base64.
    Blob(String),
}

impl Content {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }

    /// A text resource.
    pub fn text_resource(uri: impl Into<String>, mime_type: Option<String>, text: impl Into<String>) -> Self {
        Content::Resource {
            uri: uri.into(),
            mime_type,
            contents: ResourceContents::Text(text.into()),
        }
    }

    /// A binary resource; the bytes are base64-encoded.
    pub fn blob_resource(uri: impl Into<String>, mime_type: Option<String>, bytes: &[u8]) -> Self {
        Content::Resource {
            uri: uri.into(),
            mime_type,
            contents: ResourceContents::Blob(base64::engine::general_purpose::STANDARD.encode(bytes)),
        }
    }

    /// Its size as [`ToolOutput::byte_len`] counts it.
    pub(crate) fn byte_len(&self) -> usize {
        match self {
            Content::Text { text } => text.len(),
            Content::Image { data, .. } => data.len(),
            Content::Resource { contents, .. } => match contents {
                ResourceContents::Text(text) | ResourceContents::Blob(text) => text.len(),
            },
        }
    }
}

/// The length of `value` as compact JSON, counted without building the text (this runs
/// for every call: the output limit and the audit log both measure outputs).
pub(crate) fn json_len(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing a `Value` into a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

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
        }
    }
}

/// Structured output: `Json(value)` returns `value` as JSON text *and* as structured content,
/// and gives the tool an output schema generated from `T`.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Serialize;
/// use tool_core::{IntoToolOutput, Json};
///
/// #[derive(Serialize, JsonSchema)]
/// struct Weather { celsius: f64 }
///
/// let output = Json(Weather { celsius: 21.5 }).into_tool_output();
/// assert_eq!(output.text_content(), r#"{"celsius":21.5}"#);
/// assert!(Json::<Weather>::output_schema().is_some());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

/// Converts what a tool function returns into a [`ToolOutput`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "not a tool output",
    note = "return `String`, `&str`, `()`, `serde_json::Value`, `Json<T>` (T: Serialize + JsonSchema), `Image` or `ToolOutput`, or implement `IntoToolOutput` for `{Self}`",
    note = "to report failures, return `Result<{Self}, E>` where `E` implements `Display` or `Into<ToolError>`"
)]
pub trait IntoToolOutput {
    /// Performs the conversion.
    fn into_tool_output(self) -> ToolOutput;

    /// The JSON Schema of the structured output, if this type produces one.
    fn output_schema() -> Option<Value> {
        None
    }
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> ToolOutput {
        self
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

impl IntoToolOutput for &str {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::text(self)
    }
}

/// No content: the call succeeded and there is nothing to say.
impl IntoToolOutput for () {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::default()
    }
}

/// JSON as text; no structured content, since there is no schema to describe it.
impl IntoToolOutput for Value {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput::text(self.to_string())
    }
}

impl IntoToolOutput for Image {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput {
            content: vec![self.into()],
            ..ToolOutput::default()
        }
    }
}

impl IntoToolOutput for Content {
    fn into_tool_output(self) -> ToolOutput {
        ToolOutput {
            content: vec![self],
            ..ToolOutput::default()
        }
    }
}

impl<T: Serialize + JsonSchema> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> ToolOutput {
        match serde_json::to_value(&self.0) {
            Ok(value) => ToolOutput::text(value.to_string()).with_structured(value),
            Err(error) => ToolOutput::error(format!("the tool's output could not be serialized: {error}")),
        }
    }

    fn output_schema() -> Option<Value> {
        Some(crate::schema::output_schema_for::<T>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_produce_the_expected_parts() {
        assert_eq!("hi".into_tool_output(), ToolOutput::text("hi"));
        assert_eq!(().into_tool_output().content, vec![]);
        let json = serde_json::json!({"a": 1}).into_tool_output();
        assert_eq!(json.text_content(), r#"{"a":1}"#);
        assert!(json.structured.is_none());
        let image = Image::png(vec![1, 2, 3]).into_tool_output();
        assert_eq!(
            image.content,
            vec![Content::Image {
                mime_type: "image/png".into(),
                data: "AQID".into()
            }]
        );
    }

    #[test]
    fn content_serializes_with_a_type_tag() {
        let resource = Content::text_resource("file:///a.txt", None, "hello");
        assert_eq!(
            serde_json::to_value(&resource).unwrap(),
            serde_json::json!({"type": "resource", "uri": "file:///a.txt", "text": "hello"})
        );
        let back: Content = serde_json::from_value(serde_json::to_value(&resource).unwrap()).unwrap();
        assert_eq!(back, resource);
    }

    #[test]
    fn text_content_skips_non_text_parts() {
        let output = ToolOutput::text("a")
            .with_content(Image::png(vec![0]).into())
            .with_content(Content::text("b"));
        assert_eq!(output.text_content(), "a\nb");
        assert_eq!(output.byte_len(), 1 + 4 + 1);
    }
}
