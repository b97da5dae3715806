//! Deciding calls whose approval was deferred ([`Approval::Defer`]): in the process that
//! deferred them, or in another after [`ToolRegistry::restore`].
//!
//! A resumed call goes through the end of the pipeline like any call — validation, the
//! policy's deny rules, the person's answer, limits, the tool, the hooks after it, the
//! output limit and an audit event — but not through the hooks before it, which ran
//! before it was deferred. What this does not do: it does not check who decides. The
//! application authenticates the person before it calls [`ToolRegistry::resume`], and
//! keeps stored calls where only it can change them (a changed call is validated and
//! checked against the deny rules again, but an allowed one runs as stored).

use std::sync::Arc;
use std::time::Instant;

use super::call::CallOptions;
use super::direct::CallArguments;
use super::dispatch::{Admitted, Finished};
use super::gate::{Approved, denied};
use super::hook_chain::Ended;
use super::recorder::AuditRecorder;
use super::{ToolRegistry, ToolResult};
use crate::policy::Decision;
use crate::{
    approval::{Approval, PendingCall, ResumeError},
    audit::Outcome,
    policy::Policy,
};

impl ToolRegistry {
    /// Decides the pending call `id` ([`ToolResult::pending`]) and, unless `decision`
    /// refuses or defers it again, runs it: the result is the call's, as
    /// [`call`](Self::call) would have returned it with the approval given then. Each id
    /// is resumed once.
    ///
    /// ```
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// use agent_tools_core::{ToolCall, ToolRegistry, approval::{Approval, ApproveLater}, audit::Outcome, policy::Policy};
    /// # use agent_tools_core::{ToolContext, ToolError, tool::DynamicTool};
    ///
    /// let policy = Policy::builder().ask("deploy").build()?;
    /// let registry = ToolRegistry::builder().policy(policy).approver(ApproveLater).build();
    /// # registry.register(DynamicTool::new("deploy", "Deploy.", serde_json::json!({"type": "object"}),
    /// #     |_, _: ToolContext| async { Ok::<_, ToolError>("deployed") }))?;
    /// let waiting = registry.call(ToolCall::new("call_1", "deploy", "{}")).await;
    /// assert_eq!(waiting.outcome, Outcome::Pending);
    /// let stored = serde_json::to_string(waiting.pending().unwrap())?; // kept by the app
    ///
    /// // Later — perhaps in another process, with a registry built the same way:
    /// let pending: agent_tools_core::approval::PendingCall = serde_json::from_str(&stored)?;
    /// let id = pending.id.clone();
    /// registry.restore(pending); // not needed in the process that deferred it
    /// let result = registry.resume(&id, Approval::AllowOnce).await?;
    /// assert_eq!(result.text(), "deployed");
    /// # Ok(()) }
    /// ```
    pub async fn resume(&self, id: &str, decision: Approval) -> Result<ToolResult, ResumeError> {
        let pending = self
            .config()
            .pending
            .take(id)
            .ok_or_else(|| ResumeError::UnknownId { id: id.to_owned() })?;
        Ok(self.resume_call(pending, decision).await)
    }

    /// Keeps `pending`, a call deferred here or in another process (read back from where
    /// the application stored it), so that [`resume`](Self::resume) can decide it. A call
    /// with the same id is replaced.
    pub fn restore(&self, pending: PendingCall) {
        self.config().pending.insert(pending);
    }

    /// The calls waiting for a decision in this registry and those derived from it, in the
    /// order of their ids.
    pub fn pending_calls(&self) -> Vec<PendingCall> {
        self.config().pending.list()
    }

    async fn resume_call(&self, pending: PendingCall, decision: Approval) -> ToolResult {
        let started = Instant::now();
        // The call is made as it was: in its session, for its principal.
        let mut options = CallOptions {
            session_id: pending.session_id.as_deref().map(Arc::from),
            principal: pending.principal.clone().map(Arc::new),
            ..CallOptions::default()
        };
        let (call_id, name) = (pending.call_id.clone(), pending.tool.clone());
        let mut recorder = AuditRecorder::begin(self.config(), started, &call_id, &name, &options);
        if let Some(context) = recorder.span_context() {
            options.trace_context = Some(context);
        }
        if let Some(entry) = self.entry(&name) {
            recorder.argument_bytes(entry.tool.spec().meta.audit_argument_bytes);
        }
        recorder.arguments(&pending.arguments);
        let finished = self
            .decide_resumed(started, pending, options, decision, &mut recorder)
            .await;
        let (result, storing) = self.result(started, call_id, name, finished, recorder);
        if let Some(storing) = storing {
            storing.wait().await;
        }
        result
    }

    async fn decide_resumed(
        &self,
        started: Instant,
        pending: PendingCall,
        options: CallOptions,
        decision: Approval,
        recorder: &mut AuditRecorder<'_>,
    ) -> Finished {
        let Some((entry, rules)) = self.lookup(&pending.tool) else {
            let message = format!(
                "`{}` was approved but is no longer available, so it did not run",
                pending.tool
            );
            return Finished::failure(Outcome::UnknownTool, message);
        };
        // The tool, its schema or the stored call may have changed since it was deferred.
        let arguments = match entry.checked(pending.arguments.clone()) {
            Ok(arguments) => arguments,
            Err(invalid) => return Finished::failure(Outcome::InvalidArguments, invalid.to_string()),
        };
        if let Some(rules) = &rules
            && let Decision::Deny(reason) = Policy::decide(rules, &arguments)
        {
            return Ended::Refused(denied(&entry.name, &reason)).into();
        }
        let call_id = pending.call_id.clone();
        let approved = Approved {
            entry: &entry,
            rules: rules.as_deref(),
            session: options.session_id.as_ref(),
        };
        // Deferred again: the same call, kept under the same id.
        let defer = |arguments| PendingCall { arguments, ..pending };
        let arguments = match self.apply_approval(approved, arguments, decision, defer, recorder) {
            Ok(arguments) => arguments,
            Err(refusal) => return Ended::Refused(refusal).into(),
        };
        let admitted = Admitted {
            entry: &entry,
            call_id: &call_id,
            started,
            options,
            audit_details: recorder.details(),
        };
        match self.start_admitted(admitted, CallArguments::Value(arguments)) {
            Ok((running, tool)) => self.finish_running(running, tool).await,
            Err(finished) => *finished,
        }
    }
}
