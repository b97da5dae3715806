//! The call pipeline: look up → parse → validate → run isolated → result (+ audit).
//!
//! A call whose arguments nothing but the tool reads skips parsing and validation: its
//! JSON text is deserialized straight into the tool's arguments when the schema says
//! nothing more than their type (`registry/direct/`); a failed read goes the usual way.
//!
//! Every step that can fail because of what a model sent ends the call with an error
//! result that says what was wrong; none of them returns `Err` or panics.

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
use super::isolation::{Stopped, TimeLimit, run_isolated};
use super::output_limit::limit_output;
use super::recorder::{AuditRecorder, Storing};
use super::result_budget;
use super::{Entry, ToolArguments, ToolCall, ToolRegistry, ToolResult};
use crate::audit::AuditDetails;
use crate::context::{CallCancellation, CallParts, PathsPinned};
use crate::policy::ToolRules;
use crate::suggest;
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

impl ToolRegistry {
    /// Runs one call. Never fails: unknown tools, bad arguments, tool errors, timeouts,
    /// cancellation and panics all come back as an error result for the model.
    pub async fn call(&self, call: ToolCall) -> ToolResult {
        let started = Instant::now();
        let ToolCall {
            id,
            name,
            arguments,
            mut options,
        } = call;
        if options.session_id.is_none() {
            options.session_id = self.session_id.clone();
        }
        let mut recorder = AuditRecorder::begin(self.config(), started, &id, &name, &options);
        if let Some(context) = recorder.span_context() {
            options.trace_context = Some(context);
        }
        let finished = self
            .execute(started, &id, &name, arguments, options, &mut recorder)
            .await;
        let (result, storing) = self.result(started, id, name, finished, recorder);
        if let Some(storing) = storing {
            storing.wait().await;
        }
        result
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

    async fn execute(
        &self,
        started: Instant,
        call_id: &str,
        name: &str,
        arguments: ToolArguments,
        mut options: CallOptions,
        recorder: &mut AuditRecorder<'_>,
    ) -> Finished {
        // A tool the call may not know of is, for it, not registered (`visible.rs`).
        let visibility = self.visibility_of(&options);
        let Some((entry, rules)) = self.lookup_seen(name, visibility) else {
            recorder.raw_arguments(&arguments);
            let message = self.unknown_tool_message(name, visibility);
            return Finished::failure(Outcome::UnknownTool, message);
        };
        // Straight from the text when nothing needs the parsed value (`registry/direct/`);
        // else, or when that read fails, the usual way from the same text.
        let (arguments, repairs) = match self.direct_call(&entry, &arguments) {
            Some(call) => (CallArguments::Direct(call), Vec::new()),
            None => {
                let checked = Checked {
                    entry: &entry,
                    rules: rules.as_deref(),
                    call_id,
                    name,
                };
                match self
                    .check_and_allow(checked, arguments, &mut options, recorder)
                    .await
                {
                    Ok((value, repairs)) => (CallArguments::Value(value), repairs),
                    Err(finished) => return finished,
                }
            }
        };
        let admitted = Admitted {
            entry: &entry,
            call_id,
            started,
            options,
            audit_details: recorder.details(),
        };
        Finished {
            repairs,
            ..self.run_admitted(admitted, arguments).await
        }
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
        recorder.argument_bytes(entry.tool.spec().meta.audit_argument_bytes);
        let freeform = entry
            .tool
            .spec()
            .meta
            .freeform
            .as_ref()
            .map(|form| form.argument.as_str());
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

    /// The rest of a call the policy let through: the session cap, the tool (isolated,
    /// within its limits), the retry budget and the hooks after it.
    pub(super) async fn run_admitted<'a>(
        &self,
        call: Admitted<'a>,
        arguments: CallArguments<'a>,
    ) -> Finished {
        let Admitted {
            entry,
            call_id,
            started,
            mut options,
            audit_details,
        } = call;
        let name = &*entry.name;
        let session_id = options.session_id.clone();
        if let Some(max) = self.config().max_calls_per_session
            && !self.config().session_calls.admit(session_id.as_ref(), max)
        {
            let message = format!(
                "`{name}` was not run: this session has made {max} tool calls, the most it may \
                 make. Do not call tools again; answer with what you have, or tell the user."
            );
            return Finished::failure(Outcome::Denied, message);
        }
        // The hooks after the call see its arguments and principal; kept only when there
        // are hooks (and then the arguments are a value: `registry/direct/`).
        let kept = match &arguments {
            CallArguments::Value(value) if !self.config().hooks.is_empty() => {
                Some((value.clone(), options.principal.clone()))
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
        let cancellation = Arc::new(CallCancellation::new(options.cancellation.take()));
        let ctx = self
            .context(
                entry,
                call_id,
                options,
                limit,
                cancellation.clone(),
                audit_details,
            )
            .with_result_budget(budget);
        let permits = entry.permits.clone();
        let run = run_isolated(
            entry.tool.as_ref(),
            arguments,
            ctx,
            &cancellation,
            limit,
            permits,
            entry.cancel_grace,
        )
        .await;
        let retried = matches!(&run, Err(Stopped::Failed(error)) if error.kind() == ToolErrorKind::Retry);
        let (outcome, mut output) = settle(name, run);
        output = self.count_retries(entry, session_id.as_ref(), retried, output);
        if let Some((arguments, principal)) = kept {
            let whose = Whose {
                call_id,
                session_id: session_id.as_deref(),
                principal: principal.as_deref(),
            };
            output = Box::pin(self.after_hooks(entry, whose, &arguments, outcome, output)).await;
        }
        if let Some(budget) = budget {
            let whose = result_budget::Whose {
                call_id,
                tool: name,
                session_id: session_id.as_deref(),
            };
            let overflow = self.config().result_overflow.as_deref();
            output = Box::pin(result_budget::fit(budget, output, overflow, whose)).await;
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

    fn context(
        &self,
        entry: &Entry,
        call_id: &str,
        options: CallOptions,
        limit: Option<TimeLimit>,
        cancellation: Arc<CallCancellation>,
        audit_details: Option<AuditDetails>,
    ) -> ToolContext {
        ToolContext::for_call(CallParts {
            session_end: self.config().sessions.token(options.session_id.as_ref()),
            session_id: options.session_id,
            call_id: call_id.into(),
            tool_name: entry.name.clone(),
            cancellation,
            deadline: limit.map(|limit| limit.deadline),
            extensions: self.config().extensions.clone(),
            call_extensions: options.extensions,
            progress: options.progress,
            caller: options.caller.or_else(|| self.config().caller.clone()),
            principal: options.principal,
            trace_context: options.trace_context,
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
