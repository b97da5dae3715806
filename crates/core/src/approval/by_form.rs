//! Approval by asking the call's [`Caller`] to put a form to its user (over MCP,
//! `elicitation/create` to the client, or for a 2026-07-28 client the question `approval`
//! of an input-required result, answered in its next request).

use serde_json::{Value, json};

use super::{Approval, ApprovalRequest};
use crate::caller::{Caller, CallerError, ElicitAction, ElicitRequest, InputRequest};

/// The form's choices: (value, title).
const CHOICES: [(&str, &str); 3] = [
    ("allow_once", "Allow once"),
    ("allow_always", "Allow for this session"),
    ("deny", "Deny"),
];

/// The name an approval's question goes by (see [`Caller::ask`]): a client that answers in
/// a later request (MCP 2026-07-28) answers it under this name, and so does a person
/// answering a task's approval from elsewhere (`agent-tools approvals allow ID`), with a
/// form answer whose `decision` is `allow_once`, `allow_always` or `deny` (and a `reason`).
pub const APPROVAL_QUESTION: &str = "approval";

/// Asks `caller`'s user about `request`; `None` when the caller cannot put a form to
/// anyone.
pub(crate) async fn ask_by_form(caller: &dyn Caller, request: &ApprovalRequest) -> Option<Approval> {
    let form = ElicitRequest::form(request.question(), form_schema());
    let answer = caller
        .ask(APPROVAL_QUESTION, InputRequest::elicit(form))
        .await
        .and_then(|answer| {
            answer
                .into_elicit()
                .ok_or_else(|| CallerError::failed("the answer is of another kind than the question"))
        });
    match answer {
        Ok(response) => Some(match response.action {
            ElicitAction::Accept => from_form(response.content.as_ref()),
            ElicitAction::Decline => Approval::Deny(Some("the user declined".to_owned())),
            ElicitAction::Cancel => Approval::Deny(Some("the user dismissed the question".to_owned())),
        }),
        Err(CallerError::NotAvailable { .. }) => None,
        Err(error) => Some(Approval::Deny(Some(format!(
            "the user could not be asked ({error})"
        )))),
    }
}

/// The choice MCP's restricted form schema can carry: a titled single-select enum
/// (SEP-1330) and a free-text reason.
fn form_schema() -> Value {
    let choices: Vec<Value> = CHOICES
        .iter()
        .map(|(value, title)| json!({"const": value, "title": title}))
        .collect();
    json!({
        "type": "object",
        "properties": {
            "decision": {"type": "string", "title": "Decision", "oneOf": choices, "default": "allow_once"},
            "reason": {"type": "string", "title": "Reason", "description": "When denying: what to tell the model"}
        },
        "required": ["decision"]
    })
}

fn from_form(content: Option<&serde_json::Map<String, Value>>) -> Approval {
    let field = |name: &str| {
        content
            .and_then(|content| content.get(name))
            .and_then(Value::as_str)
    };
    match field("decision") {
        Some("allow_once") => Approval::AllowOnce,
        Some("allow_always") => Approval::AllowAlways,
        Some("deny") => Approval::Deny(
            field("reason")
                .filter(|reason| !reason.is_empty())
                .map(str::to_owned),
        ),
        // Anything else is not a yes.
        other => Approval::Deny(Some(format!(
            "the answer was not one of the choices ({})",
            other.unwrap_or("no decision")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;

    fn answer(value: Value) -> Approval {
        from_form(value.as_object())
    }

    #[test]
    fn answers_become_approvals_and_anything_odd_is_a_no() {
        assert_eq!(answer(json!({"decision": "allow_once"})), Approval::AllowOnce);
        assert_eq!(answer(json!({"decision": "allow_always"})), Approval::AllowAlways);
        assert_eq!(
            answer(json!({"decision": "deny", "reason": "not on main"})),
            Approval::Deny(Some("not on main".into()))
        );
        assert_eq!(
            answer(json!({"decision": "deny", "reason": ""})),
            Approval::Deny(None)
        );
        assert!(matches!(
            answer(json!({"decision": "yes"})),
            Approval::Deny(Some(_))
        ));
        assert!(matches!(from_form(None), Approval::Deny(Some(_))));
        assert!(matches!(from_form(Some(&Map::new())), Approval::Deny(Some(_))));
    }

    #[test]
    fn the_form_is_one_mcp_can_carry() {
        let schema = form_schema();
        assert_eq!(
            schema["properties"]["decision"]["oneOf"].as_array().map(Vec::len),
            Some(3)
        );
        assert_eq!(schema["required"], json!(["decision"]));
    }
}
