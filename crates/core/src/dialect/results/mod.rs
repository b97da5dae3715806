//! A tool's result in the message format of each provider.
//!
//! What each format can carry differs:
//!
//! | dialect | carries natively | the rest |
//! |---|---|---|
//! | OpenAI Chat | text | as text |
//! | OpenAI Responses | text, PNG/JPEG/WebP/GIF images (`input_image`), PDFs (`input_file`) | as `input_text` |
//! | Anthropic | text, JPEG/PNG/GIF/WebP images, PDFs (`document`) | as `text` blocks |
//! | Gemini | JSON `response`, PNG/JPEG/WebP images and PDFs as inline data parts | in the `response` |
//! | MCP | everything: audio, resource links, annotations, `structuredContent` | — |
//!
//! "As text" means: text and text resources as they are, a resource link as a readable
//! link line, and for anything else (audio everywhere but MCP, images a provider
//! cannot take, binary files) a note that names what was left out and why, so the
//! model knows something was there.
//!
//! Annotations: a part whose audience leaves out the assistant is for the user (MCP:
//! "who the intended customer of this data is"); providers' renderings are what the
//! model reads, so such a part is replaced there by a note saying that something was
//! shown to the user only — the model can then answer "what do you see in the chart"
//! honestly instead of not knowing the chart exists. Priority and last-modified are
//! not rendered for models. MCP passes all annotations on; its client decides.

mod anthropic;
mod gemini;
mod mcp;
mod openai;
mod text;

use serde_json::Value;

use super::Dialect;
use crate::{
    output::{Content, ToolOutput},
    registry::ToolResult,
};

impl Dialect {
    /// The result of a call as this provider expects it in the next request:
    ///
    /// - OpenAI Chat: `{"role":"tool","tool_call_id","content"}` (text);
    /// - OpenAI Responses: `{"type":"function_call_output","call_id","output"}` (text, or
    ///   `input_text`/`input_image`/`input_file` parts when there are images or PDFs);
    /// - Anthropic: a `tool_result` block with text, image and document blocks and
    ///   `is_error`;
    /// - Gemini: a `functionResponse` part with `response.output` or `response.error`,
    ///   images and PDFs as inline `parts`;
    /// - MCP: a `CallToolResult` (`content` with every kind of part and its
    ///   annotations, `structuredContent`, `isError`).
    ///
    /// A part meant for the user only (its annotations' audience leaves out the
    /// assistant) becomes a short note in every provider's rendering; see the module
    /// documentation for what each format carries.
    pub fn tool_result(self, result: &ToolResult) -> Value {
        match self {
            Dialect::OpenAiChat => openai::chat(result),
            Dialect::OpenAiResponses => openai::responses(result),
            Dialect::Anthropic => anthropic::tool_result(result),
            Dialect::Gemini => gemini::function_response(result),
            Dialect::Mcp => mcp::call_tool_result(&result.output),
        }
    }
}

/// A part as a provider rendering (what the model reads) sees it.
#[derive(Debug, Clone, Copy)]
enum ModelPart<'a> {
    /// Shown to the model; the provider carries it natively or as text.
    Shown(&'a Content),
    /// Meant for the user only: the model gets a note in its place.
    ForUser(&'a Content),
}

/// The parts of `output` as the model is to see them, in order.
fn model_parts(output: &ToolOutput) -> impl Iterator<Item = ModelPart<'_>> {
    output.content.iter().map(|part| {
        if part.excludes_the_model() {
            ModelPart::ForUser(part)
        } else {
            ModelPart::Shown(part)
        }
    })
}

/// Every part as text, for a format that carries nothing else. Structured output
/// stands in when there is no content.
fn text_of(output: &ToolOutput) -> String {
    if output.content.is_empty() {
        return output
            .structured
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default();
    }
    let parts: Vec<String> = model_parts(output).map(text::part_as_text).collect();
    parts.join("\n")
}

/// Whether `mime_type` is one of `accepted` (media types are case-insensitive).
fn is_one_of(mime_type: &str, accepted: &[&str]) -> bool {
    accepted
        .iter()
        .any(|accepted| mime_type.eq_ignore_ascii_case(accepted))
}

/// A binary resource that is a PDF: the one document type every provider with
/// documents takes.
fn pdf_blob(part: &Content) -> Option<(&str, &str)> {
    match part {
        Content::Resource {
            uri,
            mime_type: Some(mime_type),
            contents: crate::output::ResourceContents::Blob(data),
            ..
        } if mime_type.eq_ignore_ascii_case("application/pdf") => Some((uri, data)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
