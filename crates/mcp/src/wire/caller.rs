//! Between agent-tools-core's caller requests ([`LogMessage`], [`ElicitRequest`],
//! [`SamplingRequest`] and their answers) and MCP's wire shapes, both ways: serving sends
//! ours to the client, mounting receives a remote server's and passes them on.
//!
//! Like [`tools`], this goes through JSON: content parts use the one
//! mapping of [`Dialect::Mcp`], so every content kind MCP and we share crosses the same
//! way in a tool result and in a sampling message.

// MCP 2026-07-28 deprecates logging and sampling (SEP-2577) and rmcp marks their types so;
// clients on 2025-11-25 and earlier, nearly all of today's, use them.
#![allow(deprecated)]

use agent_tools_core::{
    Dialect, ToolOutput, ToolResult,
    caller::{
        CallerError, ElicitAction, ElicitRequest, ElicitResponse, LogLevel, LogMessage, Role, Root,
        SamplingContent, SamplingMessage, SamplingRequest, SamplingResponse,
    },
    output::Content,
};
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction,
    LoggingMessageNotificationParam,
};
use serde_json::{Map, Value, json};

use super::tools;

/// A log message as `notifications/message` params.
pub(crate) fn log_notification(message: LogMessage) -> Option<LoggingMessageNotificationParam> {
    let mut params = json!({"level": message.level.as_str(), "data": message.data});
    if let Some(logger) = message.logger {
        params["logger"] = logger.into();
    }
    serde_json::from_value(params).ok()
}

/// A remote server's log message as ours.
pub(crate) fn log_message(params: &LoggingMessageNotificationParam) -> Option<LogMessage> {
    let wire = serde_json::to_value(params).ok()?;
    let level: LogLevel = serde_json::from_value(wire.get("level")?.clone()).ok()?;
    let mut message = LogMessage::new(level, params.data.clone());
    message.logger = params.logger.clone();
    Some(message)
}

/// The level of a client's `logging/setLevel`.
pub(crate) fn log_level(level: rmcp::model::LoggingLevel) -> Option<LogLevel> {
    serde_json::to_value(level)
        .ok()
        .and_then(|level| serde_json::from_value(level).ok())
}

/// Our question as `elicitation/create` params; a form MCP's restricted schema cannot
/// express is refused here, before anything is sent.
pub(crate) fn elicit_params(request: ElicitRequest) -> Result<ElicitRequestParams, CallerError> {
    match request {
        ElicitRequest::Form {
            message,
            requested_schema,
        } => {
            let requested_schema = serde_json::from_value(requested_schema).map_err(|error| {
                CallerError::UnsupportedForm(format!("MCP cannot carry this form: {error}"))
            })?;
            Ok(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message,
                requested_schema,
            })
        }
        ElicitRequest::Url {
            message,
            url,
            elicitation_id,
        } => Ok(ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message,
            url,
            elicitation_id,
        }),
        other => Err(CallerError::UnsupportedForm(format!(
            "MCP has no elicitation of this kind: {other:?}"
        ))),
    }
}

/// A remote server's question as ours.
pub(crate) fn elicit_request(params: ElicitRequestParams) -> Result<ElicitRequest, String> {
    match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => {
            let schema = serde_json::to_value(requested_schema).map_err(|error| error.to_string())?;
            Ok(ElicitRequest::form(message, schema))
        }
        ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } => Ok(ElicitRequest::url(message, url, elicitation_id)),
        _ => Err("an elicitation mode this server does not know".to_owned()),
    }
}

/// Our caller's roots as MCP's answer to `roots/list`.
pub(crate) fn roots_result(roots: Vec<Root>) -> rmcp::model::ListRootsResult {
    let roots = roots
        .into_iter()
        .map(|root| {
            let mut wire = rmcp::model::Root::new(root.uri);
            wire.name = root.name;
            wire
        })
        .collect();
    rmcp::model::ListRootsResult::new(roots)
}

/// `modelPreferences` as the server wrote them: rmcp holds the priorities as `f32`.
fn model_preferences(params: &CreateMessageRequestParams, wire: &Value) -> Option<Value> {
    let mut preferences = wire.get("modelPreferences").cloned()?;
    let typed = params.model_preferences.as_ref()?;
    let priorities = [
        ("costPriority", typed.cost_priority),
        ("speedPriority", typed.speed_priority),
        ("intelligencePriority", typed.intelligence_priority),
    ];
    for (name, priority) in priorities {
        if let Some(priority) = priority {
            preferences[name] = tools::f32_as_sent(priority).into();
        }
    }
    Some(preferences)
}

/// The client's answer as ours.
pub(crate) fn elicit_response(result: ElicitResult) -> ElicitResponse {
    let action = match result.action {
        ElicitationAction::Accept => ElicitAction::Accept,
        ElicitationAction::Decline => ElicitAction::Decline,
        _ => ElicitAction::Cancel,
    };
    let mut response = ElicitResponse::new(action);
    response.content = result.content.and_then(|content| match content {
        Value::Object(content) => Some(content),
        _ => None,
    });
    response
}

/// Our answer as MCP's.
pub(crate) fn elicit_result(response: ElicitResponse) -> ElicitResult {
    let action = match response.action {
        ElicitAction::Accept => ElicitationAction::Accept,
        ElicitAction::Decline => ElicitationAction::Decline,
        ElicitAction::Cancel => ElicitationAction::Cancel,
    };
    let mut result = ElicitResult::new(action);
    result.content = response.content.map(Value::Object);
    result
}

/// Our sampling request as `sampling/createMessage` params, as JSON: the numbers as
/// given. (rmcp's params hold `temperature` and the priorities as `f32`, and write its
/// params through a JSON value, so `0.7` would reach the client as
/// `0.699999988079071`; the JSON is checked against its shape, then sent as it is.)
pub(crate) fn sampling_params(request: SamplingRequest) -> Result<Value, CallerError> {
    let messages: Vec<Value> = request
        .messages
        .into_iter()
        .map(|message| json!({"role": message.role.as_str(), "content": wire_message_content(message.content)}))
        .collect();
    let mut params = json!({"messages": messages, "maxTokens": request.max_tokens});
    let optional = [
        ("systemPrompt", request.system_prompt.map(Value::from)),
        ("includeContext", request.include_context.map(Value::from)),
        ("temperature", request.temperature.map(Value::from)),
        ("modelPreferences", request.model_preferences),
        ("toolChoice", request.tool_choice),
        ("metadata", request.metadata),
        (
            "stopSequences",
            non_empty(request.stop_sequences.into_iter().map(Value::from).collect()),
        ),
        ("tools", non_empty(request.tools)),
    ];
    for (name, value) in optional {
        if let Some(value) = value {
            params[name] = value;
        }
    }
    match serde_json::from_value::<CreateMessageRequestParams>(params.clone()) {
        Ok(_) => Ok(params),
        Err(error) => Err(CallerError::failed(format!(
            "MCP cannot carry this sampling request: {error}"
        ))),
    }
}

/// A remote server's sampling request as ours.
pub(crate) fn sampling_request(params: &CreateMessageRequestParams) -> Result<SamplingRequest, String> {
    let wire = serde_json::to_value(params).map_err(|error| error.to_string())?;
    let messages = wire["messages"]
        .as_array()
        .map(|messages| messages.iter().map(sampling_message).collect())
        .unwrap_or_default();
    let mut request = SamplingRequest::new(messages, params.max_tokens);
    request.system_prompt = params.system_prompt.clone();
    request.temperature = params.temperature.map(tools::f32_as_sent);
    request.stop_sequences = params.stop_sequences.clone().unwrap_or_default();
    request.model_preferences = model_preferences(params, &wire);
    request.include_context = wire
        .get("includeContext")
        .and_then(Value::as_str)
        .map(str::to_owned);
    request.tools = wire
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    request.tool_choice = wire.get("toolChoice").cloned();
    request.metadata = params.metadata.clone();
    Ok(request)
}

/// The client's answer as ours.
pub(crate) fn sampling_response(result: &CreateMessageResult) -> Result<SamplingResponse, CallerError> {
    let wire = serde_json::to_value(result).map_err(CallerError::failed)?;
    let message = sampling_message(&wire);
    let mut response = SamplingResponse::new(result.model.clone(), message.content);
    response.role = message.role;
    response.stop_reason = result.stop_reason.clone();
    Ok(response)
}

/// Our answer as MCP's.
pub(crate) fn sampling_result(response: SamplingResponse) -> Result<CreateMessageResult, String> {
    let mut wire = json!({
        "role": response.role.as_str(),
        "content": wire_message_content(response.content),
        "model": response.model,
    });
    if let Some(reason) = response.stop_reason {
        wire["stopReason"] = reason.into();
    }
    serde_json::from_value(wire).map_err(|error| error.to_string())
}

/// A `{role, content}` object, its content one block or an array of them.
fn sampling_message(wire: &Value) -> SamplingMessage {
    let role = match wire.get("role").and_then(Value::as_str) {
        Some("assistant") => Role::Assistant,
        _ => Role::User,
    };
    let content = match wire.get("content") {
        Some(Value::Array(blocks)) => blocks.iter().map(sampling_content).collect(),
        Some(block) => vec![sampling_content(block)],
        None => Vec::new(),
    };
    SamplingMessage::new(role, content)
}

fn sampling_content(block: &Value) -> SamplingContent {
    let field = |name: &str| {
        block
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match block.get("type").and_then(Value::as_str) {
        Some("tool_use") => SamplingContent::ToolUse {
            id: field("id"),
            name: field("name"),
            input: block.get("input").cloned().unwrap_or(Value::Object(Map::new())),
        },
        Some("tool_result") => SamplingContent::ToolResult {
            tool_use_id: field("toolUseId"),
            content: block
                .get("content")
                .and_then(Value::as_array)
                .map(|parts| parts.iter().map(tools::content_part).collect())
                .unwrap_or_default(),
            is_error: block.get("isError").and_then(Value::as_bool).unwrap_or(false),
        },
        _ => SamplingContent::Part(tools::content_part(block)),
    }
}

/// A message's content: one block as itself (all that protocol 2025-06-18 allows),
/// several as an array (2025-11-25).
fn wire_message_content(content: Vec<SamplingContent>) -> Value {
    let mut blocks: Vec<Value> = content.into_iter().map(wire_content).collect();
    match blocks.len() {
        1 => blocks.remove(0),
        _ => Value::Array(blocks),
    }
}

fn wire_content(content: SamplingContent) -> Value {
    match content {
        SamplingContent::ToolUse { id, name, input } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        SamplingContent::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => json!({
            "type": "tool_result",
            "toolUseId": tool_use_id,
            "content": wire_parts(content),
            "isError": is_error,
        }),
        SamplingContent::Part(part) => wire_parts(vec![part]).into_iter().next().unwrap_or(Value::Null),
        other => json!({"type": "text", "text": format!("{other:?}")}),
    }
}

/// Content parts as MCP writes them, through [`Dialect::Mcp`]'s rendering of a result.
fn wire_parts(content: Vec<Content>) -> Vec<Value> {
    let output = ToolOutput {
        content,
        ..ToolOutput::default()
    };
    let rendered = Dialect::Mcp.tool_result(&ToolResult::new("", "", output));
    match rendered.get("content") {
        Some(Value::Array(parts)) => parts.clone(),
        _ => Vec::new(),
    }
}

fn non_empty(values: Vec<Value>) -> Option<Value> {
    (!values.is_empty()).then_some(Value::Array(values))
}

#[cfg(test)]
mod tests;
