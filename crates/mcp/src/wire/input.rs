//! A remote server's input-required result (MCP 2026-07-28, SEP-2322) as questions for
//! our caller, and our caller's answers as the `inputResponses` of the retry: the mount's
//! side of the exchange whose serving side is `serve/input_round.rs`.
//!
//! Each question and answer crosses through [`caller`]'s mapping of the same kind, so an
//! elicitation or sampling request reads the same whether a server sent it during a call
//! (2025-11-25) or in an input-required result.

// Sampling and roots are deprecated for 2026-07-28 (SEP-2577), yet they are two of the
// three questions SEP-2322 lets a server ask.
#![allow(deprecated)]

use agent_tools_core::caller::{InputRequest, InputResponse};
use serde_json::Value;

use super::caller;

/// The remote server's question `request` as ours.
pub(crate) fn input_request(request: rmcp::model::InputRequest) -> Result<InputRequest, String> {
    match request {
        rmcp::model::InputRequest::Elicitation(request) => {
            caller::elicit_request(request.params).map(InputRequest::Elicit)
        }
        rmcp::model::InputRequest::CreateMessage(request) => {
            caller::sampling_request(&request.params).map(InputRequest::sample)
        }
        rmcp::model::InputRequest::ListRoots(_) => Ok(InputRequest::ListRoots),
        _ => Err("a kind of question this client does not know".to_owned()),
    }
}

/// Our caller's `response` as the value of its question's entry in `inputResponses`.
pub(crate) fn input_response(response: InputResponse) -> Result<Value, String> {
    let value = match response {
        InputResponse::Elicit(response) => serde_json::to_value(caller::elicit_result(response)),
        InputResponse::Sample(response) => serde_json::to_value(caller::sampling_result(response)?),
        InputResponse::Roots(roots) => serde_json::to_value(caller::roots_result(roots)),
        _ => return Err("an answer of a kind MCP cannot carry".to_owned()),
    };
    value.map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use agent_tools_core::caller::{ElicitAction, ElicitRequest, ElicitResponse, Root};
    use serde_json::json;

    use super::*;

    fn wire(request: Value) -> rmcp::model::InputRequest {
        serde_json::from_value(request).expect("an input request")
    }

    #[test]
    fn each_kind_of_question_reads_as_ours() {
        let form = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
        let elicit = wire(
            json!({"method": "elicitation/create", "params": {"message": "Sure?", "requestedSchema": form}}),
        );
        assert_eq!(
            input_request(elicit),
            Ok(InputRequest::Elicit(ElicitRequest::form("Sure?", form)))
        );
        let sample = wire(json!({"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}], "maxTokens": 5
        }}));
        let Ok(InputRequest::Sample(sample)) = input_request(sample) else {
            panic!("a sampling request");
        };
        assert_eq!(sample.max_tokens, 5);
        let roots = wire(json!({"method": "roots/list"}));
        assert_eq!(input_request(roots), Ok(InputRequest::ListRoots));
    }

    #[test]
    fn answers_take_the_wire_shape_of_their_kind() {
        let mut accepted = ElicitResponse::new(ElicitAction::Accept);
        accepted.content = json!({"ok": true}).as_object().cloned();
        assert_eq!(
            input_response(InputResponse::Elicit(accepted)),
            Ok(json!({"action": "accept", "content": {"ok": true}}))
        );
        let roots = vec![
            Root::new("file:///work").with_name("work"),
            Root::new("file:///tmp"),
        ];
        assert_eq!(
            input_response(InputResponse::Roots(roots)),
            Ok(json!({"roots": [{"uri": "file:///work", "name": "work"}, {"uri": "file:///tmp"}]}))
        );
    }
}
