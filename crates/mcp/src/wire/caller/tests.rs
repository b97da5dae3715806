use agent_tools_core::{caller::SamplingMessage, output::Image};
use serde_json::json;

use super::*;

#[test]
fn a_sampling_request_crosses_both_ways_intact() {
    let mut request = SamplingRequest::new(
        vec![
            SamplingMessage::user("look"),
            SamplingMessage::new(
                Role::Assistant,
                vec![
                    SamplingContent::text("calling"),
                    SamplingContent::ToolUse {
                        id: "t1".into(),
                        name: "zoom".into(),
                        input: json!({"x": 1}),
                    },
                ],
            ),
            SamplingMessage::new(
                Role::User,
                vec![SamplingContent::ToolResult {
                    tool_use_id: "t1".into(),
                    content: vec![Image::png(vec![1, 2]).into()],
                    is_error: false,
                }],
            ),
        ],
        64,
    )
    .with_system_prompt("be brief")
    // Neither is an `f32` exactly, which is how rmcp holds them.
    .with_temperature(0.7)
    .with_tools(vec![json!({"name": "zoom", "inputSchema": {"type": "object"}})]);
    request.stop_sequences = vec!["END".into()];
    request.model_preferences = Some(json!({"hints": [{"name": "claude"}], "costPriority": 0.3}));
    request.include_context = Some("thisServer".into());
    let wire = sampling_params(request.clone()).unwrap();
    // The numbers as given (rmcp holds them as `f32`).
    assert_eq!(wire["temperature"], json!(0.7));
    assert_eq!(wire["modelPreferences"]["costPriority"], json!(0.3));
    let params: CreateMessageRequestParams = serde_json::from_value(wire.clone()).unwrap();
    assert_eq!(
        wire["messages"][0]["content"],
        json!({"type": "text", "text": "look"}),
        "one block stays one"
    );
    assert_eq!(wire["messages"][1]["content"][1]["type"], "tool_use");
    assert_eq!(sampling_request(&params).unwrap(), request);
}

#[test]
fn a_sampling_answer_crosses_both_ways_intact() {
    let response =
        SamplingResponse::new("m-1", vec![SamplingContent::text("hi")]).with_stop_reason("endTurn");
    let result = sampling_result(response.clone()).unwrap();
    assert_eq!(sampling_response(&result).unwrap(), response);
}

#[test]
fn a_form_mcp_cannot_carry_is_refused_before_sending() {
    let nested = json!({"type": "object", "properties": {"inner": {"type": "object"}}});
    let error = elicit_params(ElicitRequest::form("?", nested)).unwrap_err();
    assert!(matches!(error, CallerError::UnsupportedForm(_)), "{error}");
    let form = json!({"type": "object", "properties": {"ok": {"type": "boolean", "default": true}}});
    let params = elicit_params(ElicitRequest::form("Proceed?", form.clone())).unwrap();
    assert_eq!(
        elicit_request(params).unwrap(),
        ElicitRequest::form("Proceed?", form)
    );
}

#[test]
fn log_messages_keep_level_logger_and_data() {
    let message = LogMessage::new(LogLevel::Critical, json!({"disk": "full"})).with_logger("df");
    let params = log_notification(message.clone()).unwrap();
    assert_eq!(serde_json::to_value(&params).unwrap()["level"], "critical");
    assert_eq!(log_message(&params), Some(message));
}
