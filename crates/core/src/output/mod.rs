//! What a tool returns: [`ToolOutput`], its [`Content`] parts (with their
//! [`ContentAnnotations`]), and [`IntoToolOutput`], the conversion from the types tool
//! functions actually return.

mod annotations;
mod content;
mod media;
mod overflow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use annotations::{Audience, ContentAnnotations};
pub use content::{Content, ResourceContents};
pub use media::{Audio, Image};
pub use overflow::{KeptResult, OverflowedResult, ResultOverflow};

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

    /// All text parts joined by newlines, whatever their audience (images, audio,
    /// resources and resource links are left out).
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|part| match part {
                Content::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// Approximate size in bytes: text, encoded data, resource links' strings,
    /// annotations and structured JSON.
    pub fn byte_len(&self) -> usize {
        let content: usize = self.content.iter().map(Content::byte_len).sum();
        content + self.structured.as_ref().map_or(0, json_len)
    }
}

/// The length of `value` as compact JSON, counted without building the text (this runs
/// for every call: the output limit and the audit log both measure outputs).
pub(crate) fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
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
    // Our values (JSON, annotations) have string keys, and the writer never fails:
    // serializing cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// Structured output: `Json(value)` returns `value` as JSON text *and* as structured content,
/// and gives the tool an output schema generated from `T`.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Serialize;
/// use agent_tools_core::{output::{IntoToolOutput, Json}};
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
    note = "return `String`, `&str`, `()`, `serde_json::Value`, `Json<T>` (T: Serialize + JsonSchema), `Image`, `Audio`, `Content` or `ToolOutput`, or implement `IntoToolOutput` for `{Self}`",
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
                data: "AQID".into(),
                annotations: None
            }]
        );
        let audio = Audio::new("audio/mpeg", vec![1, 2, 3]).into_tool_output();
        assert_eq!(
            audio.content,
            vec![Content::Audio {
                mime_type: "audio/mpeg".into(),
                data: "AQID".into(),
                annotations: None
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
        let for_user = ContentAnnotations::new().audience([Audience::User]);
        let output = ToolOutput::text("a")
            .with_content(Image::png(vec![0]).into())
            .with_content(Audio::wav(vec![0]).into())
            .with_content(Content::resource_link("file:///l", "l"))
            .with_content(Content::text("b").with_annotations(for_user));
        assert_eq!(output.text_content(), "a\nb");
        let annotations = r#"{"audience":["user"]}"#.len();
        assert_eq!(output.byte_len(), 1 + 4 + 4 + (9 + 1) + (1 + annotations));
    }
}
