//! `update_plan`: the model replaces its session's plan, and reads it back whole.

use agent_tools_core::ToolError;
use agent_tools_core::output::{IntoToolOutput, ToolOutput};
use agent_tools_core::schema::output_schema_for;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::plans::Plans;
use super::steps::{Plan, PlanStep};

/// Arguments of `update_plan` (Codex's `UpdatePlanArgs`).
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct UpdatePlanArgs {
    /// What changed in the plan and why, in a sentence (at most 256 characters), when
    /// steps were added, dropped or reworded; leave it out when only statuses changed.
    pub explanation: Option<String>,
    /// The whole plan, in order: every step with its status, done ones included (at most
    /// 50 steps). It replaces the previous plan; an empty list clears it.
    pub plan: Vec<PlanStep>,
}

/// The plan after an update: the checklist as text for the model, the plan as structured
/// output (the tool's output schema is [`Plan`]'s).
pub(crate) struct PlanOutput(Plan);

// Not a type a user returns: kept out of the compiler's list of what a tool may return.
#[diagnostic::do_not_recommend]
impl IntoToolOutput for PlanOutput {
    fn into_tool_output(self) -> ToolOutput {
        let text = match self.0.steps.is_empty() {
            true => "Plan cleared: it has no steps.".to_owned(),
            false => format!("Plan updated ({}):\n{}", self.0.summary(), self.0),
        };
        match serde_json::to_value(&self.0) {
            Ok(value) => ToolOutput::text(text).with_structured(value),
            Err(_) => ToolOutput::text(text),
        }
    }

    fn output_schema() -> Option<Value> {
        Some(output_schema_for::<Plan>())
    }
}

/// Replaces the plan of the call's `session` with the model's, if it keeps the rules.
pub(crate) fn update_plan(
    plans: &Plans,
    session: Option<&str>,
    args: UpdatePlanArgs,
) -> Result<PlanOutput, ToolError> {
    Ok(PlanOutput(plans.update(session, args.explanation, args.plan)?))
}
