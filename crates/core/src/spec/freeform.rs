//! A tool's freeform form: the model writes one raw text (constrained by a grammar)
//! instead of JSON arguments, and the text fills one string argument.
//!
//! OpenAI's Responses and Chat Completions APIs offer such tools as *custom tools*
//! (`{"type": "custom", …, "format": {"type": "grammar", "syntax": "lark", …}}`), and the
//! model answers with a custom tool call whose `input` is the text. Models trained on a
//! format (Codex's patches) write it more reliably there than escaped inside a JSON
//! string. The registry offers the form only when a request asks for it
//! ([`DefinitionOptions::custom_tools`](crate::dialect::DefinitionOptions::custom_tools)),
//! and [`ToolCall::freeform`](crate::ToolCall::freeform) turns such a call back into the
//! tool's arguments, so validation, the policy and the audit log see an ordinary call.

/// How a tool takes raw text, and which of its arguments the text fills.
///
/// ```
/// use agent_tools_core::tool::{Freeform, FreeformFormat, ToolMeta};
///
/// let meta = ToolMeta::new("run_sql", "Run a query.")
///     .freeform(Freeform::lark("start: /SELECT .+/", "query"));
/// let freeform = meta.freeform.unwrap();
/// assert_eq!(freeform.argument, "query");
/// assert!(matches!(freeform.format, FreeformFormat::Lark(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Freeform {
    /// What the text must look like.
    pub format: FreeformFormat,
    /// The string argument the text becomes.
    pub argument: String,
}

/// What a freeform text must look like.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FreeformFormat {
    /// Any text.
    Text,
    /// Text the grammar (Lark syntax, as OpenAI's grammars take it) accepts.
    Lark(String),
    /// Text the regular expression accepts.
    Regex(String),
}

impl Freeform {
    /// Text accepted by the Lark `grammar`, filling `argument`.
    pub fn lark(grammar: impl Into<String>, argument: impl Into<String>) -> Self {
        Self {
            format: FreeformFormat::Lark(grammar.into()),
            argument: argument.into(),
        }
    }

    /// Text matching the regular expression `pattern`, filling `argument`.
    pub fn regex(pattern: impl Into<String>, argument: impl Into<String>) -> Self {
        Self {
            format: FreeformFormat::Regex(pattern.into()),
            argument: argument.into(),
        }
    }

    /// Any text, filling `argument`.
    pub fn text(argument: impl Into<String>) -> Self {
        Self {
            format: FreeformFormat::Text,
            argument: argument.into(),
        }
    }
}
