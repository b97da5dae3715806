//! A served call's questions answered in a later request: MCP 2026-07-28's
//! input-required results (SEP-2322).
//!
//! From 2026-07-28 a server may not send the client requests of its own (no
//! `elicitation/create` or `sampling/createMessage` on the call's stream); a call that
//! needs input ends with an `InputRequiredResult` naming its questions, and the client
//! calls again with the answers. [`InputRound`] is the [`Caller`] of such a call: a
//! question it has an answer for is answered at once; one it has not is noted and never
//! answered, and [`run_round`] ends the call there, dropping it, with every question it
//! asked up to that point. The next request runs the call again from its start, with the
//! answers (and the values the tool kept) from the sealed state and the request.
//!
//! So a tool runs once per round: what it does before asking is done again unless it is
//! kept with [`ToolContext::remember`](agent_tools_core::ToolContext::remember). Questions
//! asked without a name (`elicit`, `sample`, `list_roots`) are named by kind and order
//! (`elicit-1`, …), which holds as long as the tool asks in the same order each run.
//!
//! An answer that does not fit its question (a number where an elicitation result
//! belongs) ends the call with a protocol error (`-32602`) naming the question; answers
//! to questions the tool did not ask are ignored. A question of a kind the client did not
//! declare (its `clientCapabilities`) fails in the tool with `NotAvailable`, as on a
//! session; if the call then fails, the client is told which capability it lacked
//! ([`InputRound::undeclared`]: the request ends with `-32021`, HTTP 400), since a call
//! that could not ask is one the client can make work by declaring it.
//!
//! Log messages go to the client only when the request asked for them with a log level
//! in its `_meta` (2026-07-28 has no session to set one on), as notifications on the
//! call's own stream.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::pin;
use std::sync::Mutex;
use std::task::Poll;

use agent_tools_core::approval::APPROVAL_QUESTION;
use agent_tools_core::caller::{
    Caller, CallerError, ElicitRequest, ElicitResponse, InputRequest, InputResponse, LogMessage, Root,
    SamplingRequest, SamplingResponse,
};
use agent_tools_core::tool::BoxFuture;
use futures_util::task::AtomicWaker;
use rmcp::model::ClientCapabilities;
use serde_json::{Value, json};

use super::request_state::RoundState;
use crate::wire::caller;

/// The caller of one run of a call under MCP 2026-07-28.
pub(crate) struct InputRound {
    /// Answers by question name: the state's and the request's.
    answers: BTreeMap<String, Value>,
    capabilities: ClientCapabilities,
    /// Where log messages go: the client, when the request named a level.
    log: Option<Box<dyn Caller>>,
    /// A task's round: its questions are kept in the task's store, and who answered each
    /// is known.
    task: Option<BTreeMap<String, String>>,
    /// The call may become a task here when the tool says so (`ToolContext::start_task`).
    may_start_task: bool,
    /// Wakes [`run_round`] when a question is asked from another task than the call's
    /// own (a mounted server's request, a task the tool spawned): without it the round
    /// would not notice the question until the call is polled again, which may be never.
    waker: AtomicWaker,
    inner: Mutex<RoundInner>,
}

#[derive(Default)]
struct RoundInner {
    /// Questions asked and not answered in this run.
    asked: BTreeMap<String, InputRequest>,
    /// Answers the tool used in this run, carried to the next one.
    used: BTreeMap<String, Value>,
    /// Values the tool kept.
    kept: BTreeMap<String, Value>,
    /// Questions asked without a name, counted by kind.
    unnamed: HashMap<&'static str, usize>,
    /// The capabilities (`sampling`, …) of questions the client could not be asked.
    undeclared: serde_json::Map<String, Value>,
    /// The tool asked to go on as a task.
    start_task: bool,
    /// What the run was ended for: the questions asked (or the task's start), for the
    /// audit record of the dropped call.
    suspended: Option<Vec<String>>,
    /// The first answer that did not fit its question.
    invalid: Option<String>,
}

/// How a run ended.
pub(crate) enum RoundEnd<T> {
    /// The call finished.
    Finished(T),
    /// The call asked these questions; the state holds what the next run needs.
    InputRequired(BTreeMap<String, InputRequest>, RoundState),
    /// An answer did not fit its question.
    InvalidAnswer(String),
    /// The tool asked to go on as a task, which starts from the state.
    StartTask(RoundState),
}

impl InputRound {
    /// A run with the answers of `state` (earlier rounds) and `responses` (this request),
    /// for a client that declared `capabilities`.
    pub(crate) fn new(
        state: RoundState,
        responses: BTreeMap<String, Value>,
        capabilities: ClientCapabilities,
    ) -> Self {
        let mut answers = state.answers;
        answers.extend(responses);
        Self {
            answers,
            capabilities,
            log: None,
            task: None,
            may_start_task: false,
            waker: AtomicWaker::new(),
            inner: Mutex::new(RoundInner {
                kept: state.kept,
                ..RoundInner::default()
            }),
        }
    }

    /// The same round sending the tool's log messages to `log` (a caller that filters
    /// them by the request's level).
    pub(crate) fn with_log(mut self, log: impl Caller) -> Self {
        self.log = Some(Box::new(log));
        self
    }

    /// The same round as one of a task's, whose questions wait in the task's store (so
    /// an approval an approver deferred is asked here) and whose answers were given by
    /// those `answered_by` names.
    pub(crate) fn for_task(mut self, answered_by: BTreeMap<String, String>) -> Self {
        self.task = Some(answered_by);
        self
    }

    /// The same round, in which the call becomes a task where the tool says so
    /// (`ToolContext::start_task`): the round ends there with [`RoundEnd::StartTask`].
    pub(crate) fn may_start_task(mut self) -> Self {
        self.may_start_task = true;
        self
    }

    /// The client capabilities the call's questions needed and the client did not
    /// declare, as `requiredCapabilities` of a `-32021` error (`{"sampling": {}}`);
    /// `None` when every question could be asked.
    pub(crate) fn undeclared(&self) -> Option<ClientCapabilities> {
        let undeclared = self.inner().undeclared.clone();
        if undeclared.is_empty() {
            return None;
        }
        serde_json::from_value(Value::Object(undeclared)).ok()
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, RoundInner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn declared(&self, request: &InputRequest) -> bool {
        match request {
            InputRequest::Elicit(ElicitRequest::Url { .. }) => self
                .capabilities
                .elicitation
                .as_ref()
                .is_some_and(|elicitation| elicitation.url.is_some()),
            InputRequest::Elicit(_) => self.capabilities.elicitation.is_some(),
            InputRequest::Sample(_) => self.capabilities.sampling.is_some(),
            InputRequest::ListRoots => self.capabilities.roots.is_some(),
            _ => false,
        }
    }

    /// The next name for a question of `kind` asked without one.
    fn unnamed_key(&self, kind: &'static str) -> String {
        let mut inner = self.inner();
        let count = inner.unnamed.entry(kind).or_default();
        *count += 1;
        format!("{kind}-{count}")
    }

    /// Asks `request` under the next name for its `kind` (`elicit-1`, …) and takes the
    /// answer of that kind (`pick`; the answer was read as the question's kind).
    fn ask_unnamed<T: Send + 'static>(
        &self,
        kind: &'static str,
        request: InputRequest,
        pick: fn(InputResponse) -> Option<T>,
    ) -> BoxFuture<'_, Result<T, CallerError>> {
        let key = self.unnamed_key(kind);
        Box::pin(async move {
            let response = self.ask_named(key, request).await?;
            pick(response)
                .ok_or_else(|| CallerError::failed("the answer is of another kind than the question"))
        })
    }

    async fn ask_named(&self, key: String, request: InputRequest) -> Result<InputResponse, CallerError> {
        // A task's approval may be answered from elsewhere than the client (a person
        // with `agent-tools approvals`), so it is asked whatever the client declared.
        let approval_of_task = self.task.is_some() && key == APPROVAL_QUESTION;
        if !approval_of_task && !self.declared(&request) {
            let (capability, value) = capability_of(&request);
            self.inner().undeclared.insert(capability.to_owned(), value);
            return Err(CallerError::not_available(request.what()));
        }
        let Some(answer) = self.answers.get(&key) else {
            self.inner().asked.insert(key, request);
            self.waker.wake();
            // Never answered in this run: `run_round` ends it here.
            return std::future::pending().await;
        };
        match response_for(&request, answer.clone()) {
            Ok(response) => {
                self.inner().used.insert(key, answer.clone());
                Ok(response)
            }
            Err(problem) => {
                let message = format!("the answer to `{key}` {problem}");
                self.inner().invalid.get_or_insert(message.clone());
                self.waker.wake();
                Err(CallerError::failed(message))
            }
        }
    }
}

impl Caller for InputRound {
    /// Logging is deprecated in 2026-07-28 (SEP-2577): unless the request named a level,
    /// the message goes only to the `tracing` event `ToolContext::log` emits.
    fn log(&self, message: LogMessage) {
        if let Some(log) = &self.log {
            log.log(message);
        }
    }

    fn elicit(&self, request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
        self.ask_unnamed(
            "elicit",
            InputRequest::elicit(request),
            InputResponse::into_elicit,
        )
    }

    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, Result<SamplingResponse, CallerError>> {
        self.ask_unnamed(
            "sample",
            InputRequest::sample(request),
            InputResponse::into_sample,
        )
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Vec<Root>, CallerError>> {
        self.ask_unnamed("roots", InputRequest::ListRoots, InputResponse::into_roots)
    }

    fn ask(&self, key: &str, request: InputRequest) -> BoxFuture<'_, Result<InputResponse, CallerError>> {
        Box::pin(self.ask_named(key.to_owned(), request))
    }

    fn recall(&self, key: &str) -> Option<Value> {
        self.inner().kept.get(key).cloned()
    }

    fn keep(&self, key: &str, value: Value) {
        self.inner().kept.insert(key.to_owned(), value);
    }

    fn asks_later(&self) -> bool {
        self.task.is_some()
    }

    fn waiting_for(&self) -> Option<Vec<String>> {
        self.inner().suspended.clone()
    }

    fn start_task(&self) -> BoxFuture<'_, Result<(), CallerError>> {
        if self.task.is_some() || !self.may_start_task {
            return Box::pin(std::future::ready(Ok(())));
        }
        self.inner().start_task = true;
        self.waker.wake();
        // Never returns in this run: `run_round` ends it here.
        Box::pin(std::future::pending())
    }

    fn answered_by(&self, key: &str) -> Option<String> {
        self.task.as_ref()?.get(key).cloned()
    }
}

/// Runs `call` with `round` as its caller until it finishes, asks a question it has no
/// answer for or asks to go on as a task; then the call is dropped (cancelled where it
/// waits) and the questions it asked so far, or the task's start, are returned. Questions asked together (`join`) are all in one round.
pub(crate) async fn run_round<T>(round: &InputRound, call: impl Future<Output = T>) -> RoundEnd<T> {
    let mut call = pin!(call);
    std::future::poll_fn(|cx| {
        round.waker.register(cx.waker());
        let finished = call.as_mut().poll(cx);
        let mut inner = round.inner();
        if let Some(problem) = inner.invalid.take() {
            return Poll::Ready(RoundEnd::InvalidAnswer(problem));
        }
        if let Poll::Ready(output) = finished {
            return Poll::Ready(RoundEnd::Finished(output));
        }
        if inner.asked.is_empty() && !inner.start_task {
            return Poll::Pending;
        }
        let asked = std::mem::take(&mut inner.asked);
        inner.suspended = Some(match asked.is_empty() {
            true => vec!["its start as a task".to_owned()],
            false => asked.keys().cloned().collect(),
        });
        let state = RoundState::new(std::mem::take(&mut inner.used), std::mem::take(&mut inner.kept));
        // Questions asked on the way are answered before the task starts.
        match asked.is_empty() {
            true => Poll::Ready(RoundEnd::StartTask(state)),
            false => Poll::Ready(RoundEnd::InputRequired(asked, state)),
        }
    })
    .await
}

/// The client capability a question of `request`'s kind needs, as a `ClientCapabilities`
/// member: its name and value.
fn capability_of(request: &InputRequest) -> (&'static str, Value) {
    match request {
        InputRequest::Elicit(ElicitRequest::Url { .. }) => ("elicitation", json!({"url": {}})),
        InputRequest::Sample(_) => ("sampling", json!({})),
        InputRequest::ListRoots => ("roots", json!({})),
        _ => ("elicitation", json!({})),
    }
}

/// The answer `value` read as the response to `request`, or what is wrong with it.
// Roots are deprecated in 2026-07-28 (SEP-2577) yet one of the three questions SEP-2322
// lets a server ask, and clients answer them.
#[allow(deprecated)]
fn response_for(request: &InputRequest, value: Value) -> Result<InputResponse, String> {
    match request {
        InputRequest::Elicit(_) => serde_json::from_value(value)
            .map(|result| InputResponse::Elicit(caller::elicit_response(result)))
            .map_err(|error| format!("is not an elicitation result: {error}")),
        InputRequest::Sample(_) => serde_json::from_value(value)
            .map_err(|error| format!("is not a sampling result: {error}"))
            .and_then(|result| {
                caller::sampling_response(&result)
                    .map(InputResponse::Sample)
                    .map_err(|error| error.to_string())
            }),
        InputRequest::ListRoots => serde_json::from_value::<rmcp::model::ListRootsResult>(value)
            .map(|result| {
                InputResponse::Roots(
                    result
                        .roots
                        .into_iter()
                        .map(|root| {
                            let named = Root::new(root.uri);
                            match root.name {
                                Some(name) => named.with_name(name),
                                None => named,
                            }
                        })
                        .collect(),
                )
            })
            .map_err(|error| format!("is not a roots/list result: {error}")),
        _ => Err("answers a question this server does not ask".to_owned()),
    }
}

/// `request` as the wire's `InputRequest` (a JSON-RPC request without an id).
pub(crate) fn wire_request(request: InputRequest) -> Result<rmcp::model::InputRequest, CallerError> {
    let wire = match request {
        InputRequest::Elicit(request) => {
            json!({"method": "elicitation/create", "params": caller::elicit_params(request)?})
        }
        InputRequest::Sample(request) => {
            json!({"method": "sampling/createMessage", "params": caller::sampling_params(*request)?})
        }
        InputRequest::ListRoots => json!({"method": "roots/list", "params": {}}),
        _ => return Err(CallerError::failed("a question this server cannot send")),
    };
    serde_json::from_value(wire).map_err(CallerError::failed)
}
