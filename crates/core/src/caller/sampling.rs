//! Asking the caller's model: [`SamplingRequest`] out, [`SamplingResponse`] back.
//!
//! The shapes follow MCP's `sampling/createMessage` (2025-11-25), tools included.

use serde_json::Value;

use crate::output::Content;

/// Who speaks in a [`SamplingMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The user (or the tool, speaking for it).
    User,
    /// The model.
    Assistant,
}

impl Role {
    /// The role as MCP writes it: `user` or `assistant`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One part of a sampling message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SamplingContent {
    /// Text, an image or audio.
    Part(Content),
    /// The model asks for a tool call (in a response, or replayed in a request).
    ToolUse {
        /// Pairs the call with its result.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments.
        input: Value,
    },
    /// The result of a tool the model asked for.
    ToolResult {
        /// The [`ToolUse`](Self::ToolUse) id it answers.
        tool_use_id: String,
        /// What the tool returned.
        content: Vec<Content>,
        /// The tool failed.
        is_error: bool,
    },
}

impl SamplingContent {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Part(Content::text(text))
    }
}

/// A message of the conversation sent to the caller's model.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: Vec<SamplingContent>,
}

impl SamplingMessage {
    /// A message of `role` with `content`.
    pub fn new(role: Role, content: Vec<SamplingContent>) -> Self {
        Self { role, content }
    }

    /// A user message of one text part.
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, vec![SamplingContent::text(text)])
    }

    /// An assistant message of one text part.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, vec![SamplingContent::text(text)])
    }
}

/// A request for the caller's model to write the next message.
///
/// ```
/// use agent_tools_core::{caller::{SamplingMessage, SamplingRequest}};
///
/// let request = SamplingRequest::new(vec![SamplingMessage::user("Summarise: …")], 200)
///     .with_system_prompt("You write one-line summaries.");
/// assert_eq!(request.max_tokens, 200);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// At most this many tokens in the answer.
    pub max_tokens: u32,
    /// A system prompt the caller may use.
    pub system_prompt: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Stop generating at any of these.
    pub stop_sequences: Vec<String>,
    /// MCP's `modelPreferences` (hints and priorities), as JSON.
    pub model_preferences: Option<Value>,
    /// Tools the model may call, as MCP tool definitions (e.g. from
    /// [`ToolRegistry::definitions`](crate::registry::ToolRegistry::definitions) with
    /// [`Dialect::Mcp`](crate::dialect::Dialect::Mcp)); only clients that declare sampling with
    /// tools accept them.
    pub tools: Vec<Value>,
    /// MCP's `toolChoice` (`{"mode": "auto" | "required" | "none"}`).
    pub tool_choice: Option<Value>,
    /// Provider-specific metadata passed through.
    pub metadata: Option<Value>,
    /// MCP's `includeContext` (`none`, `thisServer`, `allServers`: which servers'
    /// context the caller may add), passed through as written. MCP 2025-11-25
    /// deprecates all but `none`.
    pub include_context: Option<String>,
}

impl SamplingRequest {
    /// A request for at most `max_tokens` tokens answering `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u32) -> Self {
        Self {
            messages,
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: None,
            tools: Vec::new(),
            tool_choice: None,
            metadata: None,
            include_context: None,
        }
    }

    /// Sets the system prompt.
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the temperature.
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Offers the model these tools (MCP tool definitions).
    pub fn with_tools(mut self, tools: Vec<Value>) -> Self {
        self.tools = tools;
        self
    }
}

/// The caller's model's answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingResponse {
    /// Who speaks (the model: `assistant`).
    pub role: Role,
    /// What it said, tool calls included.
    pub content: Vec<SamplingContent>,
    /// The model that answered, as the caller names it.
    pub model: String,
    /// Why it stopped (`endTurn`, `maxTokens`, `stopSequence`, `toolUse`, or the
    /// caller's own word).
    pub stop_reason: Option<String>,
}

impl SamplingResponse {
    /// An answer of `content` by `model`.
    pub fn new(model: impl Into<String>, content: Vec<SamplingContent>) -> Self {
        Self {
            role: Role::Assistant,
            content,
            model: model.into(),
            stop_reason: None,
        }
    }

    /// Sets why the model stopped.
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// The text parts joined by newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|part| match part {
                SamplingContent::Part(Content::Text { text, .. }) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }
}
