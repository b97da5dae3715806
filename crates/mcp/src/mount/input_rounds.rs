//! A mounted tool's input-required results (MCP 2026-07-28, SEP-2322): a server that
//! needs an answer ends the call with its questions and an opaque `requestState`, and
//! the call is made again with the answers and that state.
//!
//! The questions go to the caller of the call in flight, as questions a server asks
//! during a call do on a 2025-11-25 session ([`requests`](super::requests)): our own MCP
//! client when we serve the call — which, on 2026-07-28, gets them in an input-required
//! result of ours — else the registry's [`Caller`](agent_tools_core::caller::Caller).
//! They are asked by the server's names, so an application that answers by name (or our
//! own input-required result) sees the server's; a later round's names get the round
//! number, since a server may reuse a name for another question in another round.
//!
//! The state is sent back as it came, never read; a result without one gets a retry
//! without one. Each retry is a new request with a new id, and nothing of a round
//! reaches any other call.

use std::time::Duration;

use agent_tools_core::ToolContext;
use agent_tools_core::caller::{CallerError, InputRequest};
use futures_util::future::try_join_all;
use rmcp::model::{InputRequiredResult, InputResponses};

use crate::wire::input;

/// How many input-required results one call answers before the server counts as one
/// that never finishes (rmcp's bound for its own clients).
pub(super) const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// What the next request of a call carries.
pub(super) struct Retry {
    pub(super) input_responses: Option<InputResponses>,
    pub(super) request_state: Option<String>,
}

/// Why a round could not be answered.
pub(super) enum RoundError {
    /// The caller could not or would not answer (or the call was cancelled meanwhile).
    Caller(CallerError),
    /// The server's result makes no sense: a question of no known kind, or nothing
    /// asked and no state to come back with.
    Malformed(String),
}

/// Answers `result`, the server's answer to round `round` (counted from 1) of the call
/// `ctx`: its questions asked of the call's caller at once (so they can reach a person
/// together), its state kept for the retry.
pub(super) async fn answer(
    result: InputRequiredResult,
    round: usize,
    ctx: &ToolContext,
) -> Result<Retry, RoundError> {
    let requests = result.input_requests.unwrap_or_default();
    if requests.is_empty() {
        let Some(state) = result.request_state else {
            return Err(RoundError::Malformed(
                "it asked for input without asking anything or giving a state".to_owned(),
            ));
        };
        // Only a state: the server wants the call again later (work in progress). A short
        // pause, growing with the rounds, keeps this from becoming a busy loop.
        tokio::time::sleep(state_only_pause(round)).await;
        return Ok(Retry {
            input_responses: None,
            request_state: Some(state),
        });
    }
    let mut questions = Vec::with_capacity(requests.len());
    for (key, request) in requests {
        let request = input::input_request(request)
            .map_err(|why| RoundError::Malformed(format!("its question `{key}` is not one: {why}")))?;
        questions.push((key, request));
    }
    let answers = try_join_all(
        questions
            .into_iter()
            .map(|(key, request)| ask(ctx, key, request, round)),
    )
    .await?;
    Ok(Retry {
        input_responses: Some(answers.into_iter().collect()),
        request_state: result.request_state,
    })
}

/// Asks one question; its answer under the server's name for it.
async fn ask(
    ctx: &ToolContext,
    key: String,
    request: InputRequest,
    round: usize,
) -> Result<(String, serde_json::Value), RoundError> {
    let asked_as = match round {
        1 => key.clone(),
        round => format!("{key}#{round}"),
    };
    let response = ctx.ask(&asked_as, request).await.map_err(RoundError::Caller)?;
    let value = input::input_response(response)
        .map_err(|why| RoundError::Caller(CallerError::failed(format!("the answer to `{key}`: {why}"))))?;
    Ok((key, value))
}

/// The pause before a retry that answers nothing: 50 ms doubling to at most 400 ms.
fn state_only_pause(round: usize) -> Duration {
    let doublings = u32::try_from(round.saturating_sub(1).min(3)).unwrap_or(3);
    Duration::from_millis(50 << doublings)
}
