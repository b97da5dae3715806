//! The call pipeline: look up → parse → validate → run isolated → result (+ audit).
//!
//! A call whose arguments nothing but the tool reads skips parsing and validation: its
//! JSON text is deserialized straight into the tool's arguments when the schema says
//! nothing more than their type (`registry/direct/`); a failed read goes the usual way.
//!
//! Every step that can fail because of what a model sent ends the call with an error
//! result that says what was wrong; none of them returns `Err` or panics.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use futures_util::StreamExt as _;
use futures_util::future::join_all;
use futures_util::stream;

use super::arguments::{self, ParsedArguments};
use super::call::CallOptions;
use super::direct::CallArguments;
use super::gate::{Gated, Refusal};
use super::hook_chain::{Ended, Passed, Whose};
use super::isolation::{Bounds, StartedTool, Stopped, TimeLimit, run_isolated, start_tool};
use super::output_limit::limit_output;
use super::recorder::{AuditRecorder, Storing};
use super::result_budget;
use super::{Entry, ToolArguments, ToolCall, ToolRegistry, ToolResult};
use crate::audit::AuditDetails;
use crate::call_state::{CallCancellation, CallState};
use crate::context::{CallParts, PathsPinned, Principal};
use crate::policy::ToolRules;
use crate::suggest;
use crate::tool::BoxFuture;
use crate::validation::InvalidArguments;
use crate::{
    approval::PendingCall,
    audit::Outcome,
    context::{Extensions, ToolContext},
    dialect::DefinitionOptions,
    error::ToolErrorKind,
    output::ToolOutput,
    tokens::ResultBudget,
    tool_search::ToolVisibility,
};
use serde_json::Value;

/// At most this many names are listed after "unknown tool".
const LISTED_NAMES: usize = 30;

/// What a call produced, before it is stamped with id and duration.
pub(super) struct Finished {
    outcome: Outcome,
    output: ToolOutput,
    repairs: Vec<String>,
    pending: Option<Box<PendingCall>>,
}

impl Finished {
    pub(super) fn failure(outcome: Outcome, message: String) -> Self {
        Self {
            outcome,
            output: ToolOutput::error(message),
            repairs: Vec::new(),
            pending: None,
        }
    }
}

/// What the usual way to a call's arguments needs to know about the call.
struct Checked<'a> {
    entry: &'a Entry,
    /// The policy's rules for the tool, when the registry has a policy.
    rules: Option<&'a ToolRules>,
    call_id: &'a str,
    name: &'a str,
}

/// A call the pipeline let through, ready to run.
pub(super) struct Admitted<'a> {
    pub(super) entry: &'a Entry,
    pub(super) call_id: &'a str,
    pub(super) started: Instant,
    pub(super) options: CallOptions,
    /// Where the tool's context records audit details, when the call is audited.
    pub(super) audit_details: Option<AuditDetails>,
}

/// A call whose tool has started, with what its run and its end need.
pub(super) struct Running<'a> {
    entry: &'a Entry,
    session_id: Option<Arc<str>>,
    /// The arguments and principal the hooks after the call see; only when there are
    /// hooks, and boxed since most registries have none.
    kept: Option<Box<(Value, Option<Arc<Principal>>)>>,
    budget: Option<ResultBudget>,
    /// The call's id and cancellation, shared with the tool's context.
    call: Arc<CallState>,
    limit: Option<TimeLimit>,
}

impl Running<'_> {
    /// The started tool run isolated within the call's limits.
    fn run<'s>(
        &'s self,
        tool: StartedTool<'s>,
    ) -> impl Future<Output = Result<ToolOutput, Stopped>> + Send + 's {
        let bounds = Bounds {
            cancellation: self.call.cancellation(),
            limit: &self.limit,
            permits: &self.entry.permits,
            cancel_grace: &self.entry.cancel_grace,
        };
        run_isolated(tool, bounds)
    }
}

/// How a call whose tool has run ends: now, or after the hooks and the result budget
/// (boxed, since most calls have neither).
enum Ending<'a> {
    Now(Finished),
    Later(BoxFuture<'a, Finished>),
}

impl ToolRegistry {
    /// Runs one call. Never fails: unknown tools, bad arguments, tool errors, timeouts,
    /// cancellation and panics all come back as an error result for the model.
    ///
    /// Used as an `async fn` is (`registry.call(call).await`); the future is `Send`.
    //
    // Written as an `async move` block and kept to one level of steps rather than a chain
    // of `async fn`s: a call's future is moved whole at every step (and by its caller),
    // an `async fn` keeps its arguments twice, and each awaited `async fn` is one more
    // copy of everything it holds. The rare parts (the usual way to the arguments, hooks,
    // budgets) are boxed.
    #[allow(clippy::manual_async_fn)]
    pub fn call(&self, mut call: ToolCall) -> impl Future<Output = ToolResult> + Send + '_ {
        async move {
            let started = Instant::now();
            if call.options.session_id.is_none() {
                call.options.session_id = self.session_id.clone();
            }
            let mut recorder =
                AuditRecorder::begin(self.config(), started, &call.id, &call.name, &call.options);
            if let Some(context) = recorder.span_context() {
                call.options.trace_context = Some(context);
            }
            let finished = 'call: {
                let (entry, rules) = match self.find(&call, &mut recorder) {
                    Ok(found) => found,
                    Err(finished) => break 'call *finished,
                };
                // Straight from the text when nothing needs the parsed value
                // (`registry/direct/`); else, or when that read fails, the usual way.
                let (arguments, repairs) = match self.direct_call(&entry, &call.arguments) {
                    Some(direct) => (CallArguments::Direct(direct), Vec::new()),
                    None => {
                        let checked = Checked {
                            entry: &entry,
                            rules: rules.as_deref(),
                            call_id: &call.id,
                            name: &call.name,
                        };
                        // Nothing reads them after this step.
                        let arguments =
                            std::mem::replace(&mut call.arguments, ToolArguments::Value(Value::Null));
                        let options = &mut call.options;
                        match Box::pin(self.check_and_allow(checked, arguments, options, &mut recorder)).await
                        {
                            Ok((value, repairs)) => (CallArguments::Value(value), repairs),
                            Err(finished) => break 'call finished,
                        }
                    }
                };
                let admitted = Admitted {
                    entry: &entry,
                    call_id: &call.id,
                    started,
                    options: std::mem::take(&mut call.options),
                    audit_details: recorder.details(),
                };
                let (running, tool) = match self.start_admitted(admitted, arguments) {
                    Ok(started) => started,
                    Err(finished) => break 'call *finished,
                };
                // `finish_running`'s steps, here rather than awaited as one more future.
                let run = running.run(tool).await;
                let finished = match self.end_run(running, run) {
                    Ending::Now(finished) => finished,
                    Ending::Later(ending) => ending.await,
                };
                Finished { repairs, ..finished }
            };
            let (id, name) = (std::mem::take(&mut call.id), std::mem::take(&mut call.name));
            let (result, storing) = self.result(started, id, name, finished, recorder);
            if let Some(storing) = storing {
                // Boxed: only sinks that store in the background have anything to wait for.
                Box::pin(storing.wait()).await;
            }
            result
        }
    }

    /// The entry of the tool `call` names and the policy's rules for it, or the answer
    /// for a tool the call does not know of.
    fn find(
        &self,
        call: &ToolCall,
        recorder: &mut AuditRecorder<'_>,
    ) -> Result<(Entry, Option<Arc<ToolRules>>), Box<Finished>> {
        // A tool the call may not know of is, for it, not registered (`visible.rs`).
        let visibility = self.visibility_of(&call.options);
        self.lookup_seen(&call.name, visibility).ok_or_else(|| {
            recorder.raw_arguments(&call.arguments);
            let message = self.unknown_tool_message(&call.name, visibility);
            Box::new(Finished::failure(Outcome::UnknownTool, message))
        })
    }

    /// The result of a finished call, cut to the output limit and recorded, and what the
    /// audit sinks that store in the background still have to store before it may be
    /// returned.
    pub(super) fn result(
        &self,
        started: Instant,
        call_id: String,
        name: String,
        finished: Finished,
        recorder: AuditRecorder<'_>,
    ) -> (ToolResult, Option<Storing>) {
        let (output, output_bytes) = match self.config().max_output_bytes {
            Some(max) => {
                let (output, size) = limit_output(finished.output, max);
                (output, Some(size))
            }
            None => (finished.output, None),
        };
        let result = ToolResult {
            call_id,
            name,
            output,
            outcome: finished.outcome,
            duration: started.elapsed(),
            repairs: finished.repairs,
            pending: finished.pending,
        };
        let storing = recorder.finish(&result, output_bytes);
        (result, storing)
    }

    /// Runs calls concurrently; results come back in the order of `calls`. Honors the
    /// builder's [`max_concurrency`](super::ToolRegistryBuilder::max_concurrency).
    pub async fn call_all(&self, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        match self.config().max_concurrency {
            Some(limit) => self.call_all_with_limit(calls, limit).await,
            None => join_all(calls.into_iter().map(|call| self.call(call))).await,
        }
    }

    /// Runs calls with at most `limit` in flight; results in the order of `calls`.
    pub async fn call_all_with_limit(&self, calls: Vec<ToolCall>, limit: usize) -> Vec<ToolResult> {
        stream::iter(calls)
            .map(|call| self.call(call))
            .buffered(limit.max(1))
            .collect()
            .await
    }

    /// The usual way to a call's arguments: parsed and repaired, recorded, validated,
    /// through the hooks before the call and the policy. The value the tool runs on and
    /// the repairs, or how the call ended.
    async fn check_and_allow(
        &self,
        checked: Checked<'_>,
        arguments: ToolArguments,
        options: &mut CallOptions,
        recorder: &mut AuditRecorder<'_>,
    ) -> Result<(Value, Vec<String>), Finished> {
        let Checked {
            entry,
            rules,
            call_id,
            name,
        } = checked;
        let meta = &entry.tool.spec().meta;
        recorder.argument_bytes(meta.audit_argument_bytes);
        let freeform = meta.freeform.as_ref().map(|form| form.argument.as_str());
        let ParsedArguments { value, repairs } = match arguments::parse(arguments, freeform) {
            Ok(parsed) => parsed,
            Err(rejected) => {
                recorder.raw_arguments(&rejected.arguments);
                let message = format!("the arguments for `{name}` {}", rejected.problem);
                return Err(Finished::failure(Outcome::InvalidArguments, message));
            }
        };
        recorder.arguments(&value);
        let value = match entry.checked(value) {
            Ok(value) => value,
            Err(invalid) => {
                return Err(Finished {
                    repairs,
                    ..Finished::failure(Outcome::InvalidArguments, invalid.to_string())
                });
            }
        };
        // The hooks and asking for approval are boxed: calls without them keep this future
        // small (it is moved whole at each await, and initialized for every call).
        let passed = if self.config().hooks.is_empty() {
            Passed {
                arguments: value,
                allowed: false,
            }
        } else {
            let whose = Whose {
                call_id,
                session_id: options.session_id.as_deref(),
                principal: options.principal.as_deref(),
            };
            match Box::pin(self.before_hooks(entry, whose, value)).await {
                Ok(passed) => passed,
                Err(stopped) => {
                    return Err(Finished {
                        repairs,
                        ..stopped.into()
                    });
                }
            }
        };
        let Some(rules) = rules else {
            return Ok((passed.arguments, repairs));
        };
        let gated = Gated {
            entry,
            call_id,
            options: &*options,
            allowed_by_hook: passed.allowed,
        };
        match self.gate(rules, gated, passed.arguments, recorder).await {
            Ok((value, pinned)) => {
                if pinned {
                    options
                        .extensions
                        .get_or_insert_with(Extensions::new)
                        .insert(PathsPinned);
                }
                Ok((value, repairs))
            }
            Err(refusal) => Err(Finished {
                repairs,
                ..Ended::Refused(refusal).into()
            }),
        }
    }

    /// The start of a call the policy let through: the session cap, then its tool started
    /// with its context. Synchronous, so that the future that then awaits the tool holds
    /// only what [`Running`] keeps.
    pub(super) fn start_admitted<'a>(
        &self,
        call: Admitted<'a>,
        arguments: CallArguments<'a>,
    ) -> Result<(Running<'a>, StartedTool<'a>), Box<Finished>> {
        let Admitted {
            entry,
            call_id,
            started,
            mut options,
            audit_details,
        } = call;
        let session_id = options.session_id.clone();
        if let Some(max) = self.config().max_calls_per_session
            && !self.config().session_calls.admit(session_id.as_ref(), max)
        {
            let name = &entry.name;
            let message = format!(
                "`{name}` was not run: this session has made {max} tool calls, the most it may \
                 make. Do not call tools again; answer with what you have, or tell the user."
            );
            return Err(Box::new(Finished::failure(Outcome::Denied, message)));
        }
        // The hooks after the call see its arguments and principal; kept only when there
        // are hooks (and then the arguments are a value: `registry/direct/`).
        let kept = match &arguments {
            CallArguments::Value(value) if !self.config().hooks.is_empty() => {
                Some(Box::new((value.clone(), options.principal.clone())))
            }
            _ => None,
        };
        // A timeout too long to add to the clock is no limit at all.
        let limit = options
            .timeout
            .or(entry.timeout)
            .or(self.config().default_timeout)
            .and_then(|timeout| {
                Some(TimeLimit {
                    deadline: started.checked_add(timeout)?,
                    timeout,
                })
            });
        let budget = self.result_budget(entry, &options);
        let state = CallState::new(call_id, CallCancellation::new(options.cancellation.take()));
        let running = Running {
            entry,
            session_id,
            kept,
            budget,
            call: Arc::new(state),
            limit,
        };
        let ctx = self.context(&running, options, audit_details);
        Ok((running, start_tool(entry.tool.as_ref(), arguments, ctx)))
    }

    /// The rest of a started call: the tool run isolated within its limits, then
    /// [`end_run`](Self::end_run).
    pub(super) async fn finish_running(&self, running: Running<'_>, tool: StartedTool<'_>) -> Finished {
        let run = running.run(tool).await;
        match self.end_run(running, run) {
            Ending::Now(finished) => finished,
            Ending::Later(ending) => ending.await,
        }
    }

    /// How a call whose tool has run ends: its outcome and output through the retry
    /// budget, then the hooks after it and the result budget, when the registry has them.
    fn end_run<'a>(&'a self, running: Running<'a>, run: Result<ToolOutput, Stopped>) -> Ending<'a> {
        let entry = running.entry;
        let retried = matches!(&run, Err(Stopped::Failed(error)) if error.kind() == ToolErrorKind::Retry);
        let (outcome, output) = settle(&entry.name, run);
        let output = self.count_retries(entry, running.session_id.as_ref(), retried, output);
        if running.kept.is_none() && running.budget.is_none() {
            return Ending::Now(Finished {
                outcome,
                output,
                repairs: Vec::new(),
                pending: None,
            });
        }
        Ending::Later(Box::pin(self.after_run(running, outcome, output)))
    }

    /// The hooks after a call and its result budget.
    async fn after_run(&self, running: Running<'_>, outcome: Outcome, mut output: ToolOutput) -> Finished {
        let entry = running.entry;
        let session_id = running.session_id.as_deref();
        if let Some(kept) = running.kept {
            let (arguments, principal) = *kept;
            let whose = Whose {
                call_id: running.call.id(),
                session_id,
                principal: principal.as_deref(),
            };
            output = self.after_hooks(entry, whose, &arguments, outcome, output).await;
        }
        if let Some(budget) = running.budget {
            let whose = result_budget::Whose {
                call_id: running.call.id(),
                tool: &entry.name,
                session_id,
            };
            let overflow = self.config().result_overflow.as_deref();
            output = result_budget::fit(budget, output, overflow, whose).await;
        }
        Finished {
            outcome,
            output,
            repairs: Vec::new(),
            pending: None,
        }
    }

    /// What the call's result may take of the model's context, if anything limits it.
    fn result_budget(&self, entry: &Entry, options: &CallOptions) -> Option<ResultBudget> {
        let config = self.config();
        let dialect = options
            .extensions
            .as_ref()
            .and_then(|extensions| extensions.get::<DefinitionOptions>())
            .or_else(|| config.extensions.get::<DefinitionOptions>())
            .map(|options| options.dialect);
        result_budget::budget_of(
            entry.max_result_tokens,
            config.max_result_tokens,
            options.max_result_chars,
            dialect,
        )
    }

    /// Keeps the tool's retry budget: a retry answer past it becomes a final error.
    fn count_retries(
        &self,
        entry: &Entry,
        session: Option<&Arc<str>>,
        retried: bool,
        output: ToolOutput,
    ) -> ToolOutput {
        let Some(budget) = entry.retries.or(self.config().retries) else {
            return output;
        };
        let counts = &self.config().retry_counts;
        if !retried {
            counts.reset(session, &entry.name);
            return output;
        }
        let count = counts.retried(session, &entry.name);
        if count <= budget {
            return output;
        }
        let name = &entry.name;
        ToolOutput::error(format!(
            "`{name}` asked for a corrected call {count} times in a row; its budget of {budget} \
             retries is spent. Stop calling `{name}` for this and tell the user what went wrong. \
             The last answer was: {}",
            output.text_content()
        ))
    }

    /// The context the tool of `running` runs with.
    fn context(
        &self,
        running: &Running<'_>,
        options: CallOptions,
        audit_details: Option<AuditDetails>,
    ) -> ToolContext {
        let config = self.config();
        ToolContext::for_call(CallParts {
            session_end: config.sessions.token(options.session_id.as_ref()),
            session_id: options.session_id,
            call: running.call.clone(),
            tool_name: running.entry.name.clone(),
            deadline: running.limit.map(|limit| limit.deadline),
            extensions: config.extensions.clone(),
            call_extensions: options.extensions,
            progress: options.progress,
            caller: options.caller.or_else(|| config.caller.clone()),
            principal: options.principal,
            trace_context: options.trace_context,
            result_budget: running.budget,
            audit_details,
        })
    }

    fn unknown_tool_message(&self, name: &str, visibility: Option<&ToolVisibility>) -> String {
        let seen = self.seen_names(visibility);
        let names = seen.iter().map(|name| &**name);
        let similar = suggest::similar_names(name, names.clone());
        let mut message = format!("unknown tool `{name}`.");
        if let Some((best, others)) = similar.split_first() {
            message.push_str(&format!(" Did you mean `{best}`"));
            for other in others {
                message.push_str(&format!(" or `{other}`"));
            }
            message.push('?');
        }
        let available: Vec<&str> = names.clone().take(LISTED_NAMES).collect();
        if available.is_empty() {
            message.push_str(" No tools are available.");
        } else {
            message.push_str(&format!(" Available tools: {}", available.join(", ")));
            let more = seen.len().saturating_sub(LISTED_NAMES);
            if more > 0 {
                message.push_str(&format!(" and {more} more"));
            }
            message.push('.');
        }
        message
    }
}

impl From<Ended> for Finished {
    fn from(ended: Ended) -> Self {
        match ended {
            Ended::Refused(Refusal {
                pending: Some(pending),
                message,
                outcome,
            }) => Finished {
                outcome,
                // Not an error: the call has not failed, it waits.
                output: ToolOutput::text(message),
                repairs: Vec::new(),
                pending: Some(pending),
            },
            Ended::Refused(refusal) => Finished::failure(refusal.outcome, refusal.message),
            Ended::Answered(output) => Finished {
                outcome: if output.is_error {
                    Outcome::Error
                } else {
                    Outcome::Ok
                },
                output,
                repairs: Vec::new(),
                pending: None,
            },
        }
    }
}

/// Names the outcome of an isolated run and writes the message the model sees.
fn settle(name: &str, run: Result<ToolOutput, Stopped>) -> (Outcome, ToolOutput) {
    match run {
        Ok(output) if output.is_error => (Outcome::Error, output),
        Ok(output) => (Outcome::Ok, output),
        Err(Stopped::Failed(error)) => match error.kind() {
            ToolErrorKind::InvalidArguments => {
                let message = InvalidArguments::new(name, vec![error.message().to_owned()]);
                (Outcome::InvalidArguments, ToolOutput::error(message.to_string()))
            }
            ToolErrorKind::Cancelled => (Outcome::Cancelled, ToolOutput::error(error.message())),
            ToolErrorKind::TimedOut => (Outcome::Timeout, ToolOutput::error(error.message())),
            _ => (Outcome::Error, ToolOutput::error(error.message())),
        },
        Err(Stopped::TimedOut(limit)) => (
            Outcome::Timeout,
            ToolOutput::error(format!(
                "`{name}` did not finish within {} and was stopped; try a smaller or simpler request",
                humantime::format_duration(limit)
            )),
        ),
        Err(Stopped::Cancelled) => (
            Outcome::Cancelled,
            ToolOutput::error(format!("`{name}` was cancelled before it finished")),
        ),
        Err(Stopped::Panicked(message)) => (
            Outcome::Panicked,
            ToolOutput::error(format!(
                "`{name}` failed with an internal error ({message}); this is a bug in the tool, not a problem with your arguments"
            )),
        ),
    }
}
