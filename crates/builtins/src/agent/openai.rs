//! A real agent loop over any OpenAI-compatible chat-completions endpoint.
//!
//! Each turn sends the conversation and the tool definitions; when the model answers
//! with tool calls, they run through the registry — in parallel, validated, timed out
//! and audited like any other call — and their results go back as `tool` messages. The
//! loop ends with the model's first answer without tool calls, or after
//! `max_iterations` turns, which is reported as a failure rather than passed off as an
//! answer.
//!
//! With deferred tools (see `agent_tools_core::search::ToolSearchMode`), the model starts with the
//! tools that are not deferred and `tool_search`; the definitions a search returns are
//! added to every later request of the run, so the model can call what it found.

use std::time::Duration;

use agent_tools_core::{Dialect, ToolCall, ToolRegistry, dialect::DefinitionOptions, tool::BoxFuture};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::runner::AgentRunner;
use crate::{BoxError, SetupError};

/// The instructions a sub-agent starts with unless configured otherwise.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a sub-agent working on one task for another agent. \
Use the tools to do the task, then answer with the result: what you did, what you found, \
and anything that failed. Be complete; your answer is all the other agent will see.";

/// Runs agents against an OpenAI-compatible endpoint (`{base_url}/chat/completions`).
#[derive(Clone)]
pub struct OpenAiCompatibleRunner {
    client: reqwest::Client,
    base_url: String,
    model: String,
    api_key: Option<String>,
    system_prompt: String,
    max_iterations: usize,
}

impl std::fmt::Debug for OpenAiCompatibleRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiCompatibleRunner")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("max_iterations", &self.max_iterations)
            .finish()
    }
}

impl OpenAiCompatibleRunner {
    /// A runner for `model` at `base_url` (e.g. `https://api.openai.com/v1`), at most 20
    /// turns, 120 s per model request.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Result<Self, SetupError> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .no_proxy()
            .build()
            .map_err(|source| SetupError::HttpClient {
                component: "spawn",
                source,
            })?;
        Ok(Self {
            client,
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            model: model.into(),
            api_key: None,
            system_prompt: DEFAULT_SYSTEM_PROMPT.to_owned(),
            max_iterations: 20,
        })
    }

    /// Sends `Authorization: Bearer <key>`.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Replaces the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = prompt.into();
        self
    }

    /// The most model turns before giving up.
    pub fn max_iterations(mut self, turns: usize) -> Self {
        self.max_iterations = turns.max(1);
        self
    }

    async fn run_loop(
        &self,
        task: String,
        tools: ToolRegistry,
        cancel: CancellationToken,
    ) -> Result<String, String> {
        let options = DefinitionOptions::new(Dialect::OpenAiChat);
        let mut definitions = tools.definitions_with(options);
        let mut messages = vec![
            json!({"role": "system", "content": self.system_prompt}),
            json!({"role": "user", "content": task}),
        ];
        for _ in 0..self.max_iterations {
            let message = tokio::select! {
                () = cancel.cancelled() => return Err("cancelled".into()),
                message = self.complete(&messages, &definitions) => message?,
            };
            let calls: Vec<ToolCall> = tool_calls(&message)?
                .into_iter()
                .map(|call| call.with_definition_options(options))
                .collect();
            messages.push(message.clone());
            if calls.is_empty() {
                return Ok(message["content"].as_str().unwrap_or_default().to_owned());
            }
            let results = tokio::select! {
                () = cancel.cancelled() => return Err("cancelled".into()),
                results = tools.call_all(calls) => results,
            };
            for result in &results {
                load_found(&tools, result.found_definitions(), &mut definitions);
            }
            messages.extend(
                results
                    .iter()
                    .map(|result| Dialect::OpenAiChat.tool_result(result)),
            );
        }
        Err(format!(
            "stopped after {} model turns without a final answer (max_iterations)",
            self.max_iterations
        ))
    }

    /// One chat-completions request; the assistant message of the first choice.
    async fn complete(&self, messages: &[Value], tools: &[Value]) -> Result<Value, String> {
        let mut body = json!({"model": self.model, "messages": messages});
        if !tools.is_empty() {
            body["tools"] = json!(tools);
        }
        let mut request = self
            .client
            .post(format!("{}/chat/completions", self.base_url))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request
            .send()
            .await
            .map_err(|error| format!("the model request failed: {error}"))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|error| format!("reading the model's answer failed: {error}"))?;
        if !status.is_success() {
            let excerpt: String = text.chars().take(500).collect();
            return Err(format!("the model endpoint answered {status}: {excerpt}"));
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|error| format!("the model's answer is not JSON: {error}"))?;
        value
            .pointer("/choices/0/message")
            .cloned()
            .ok_or_else(|| "the model's answer has no choices[0].message".to_owned())
    }
}

/// Adds the found definitions not yet offered, of tools the registry has.
fn load_found(tools: &ToolRegistry, found: &[Value], definitions: &mut Vec<Value>) {
    let name = |definition: &Value| {
        definition
            .pointer("/function/name")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    for definition in found {
        let Some(found_name) = name(definition) else {
            continue;
        };
        let offered = definitions
            .iter()
            .any(|offered| name(offered).as_deref() == Some(&found_name));
        if !offered && tools.contains(&found_name) {
            definitions.push(definition.clone());
        }
    }
}

/// The tool calls an assistant message asks for.
fn tool_calls(message: &Value) -> Result<Vec<ToolCall>, String> {
    let Some(calls) = message.get("tool_calls").and_then(Value::as_array) else {
        return Ok(Vec::new());
    };
    calls
        .iter()
        .map(|call| {
            let id = call["id"].as_str().ok_or("a tool call has no id")?;
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .ok_or("a tool call has no name")?;
            let arguments = call
                .pointer("/function/arguments")
                .and_then(Value::as_str)
                .unwrap_or("{}");
            Ok(ToolCall::new(id, name, arguments))
        })
        .collect()
}

impl AgentRunner for OpenAiCompatibleRunner {
    fn run(
        &self,
        task: String,
        tools: ToolRegistry,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<String, BoxError>> {
        Box::pin(async move { Ok(self.run_loop(task, tools, cancel).await?) })
    }
}
