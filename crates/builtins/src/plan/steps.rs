//! What a plan is: [`Plan`], its [`PlanStep`]s and their [`StepStatus`], and the
//! checklist a plan is shown as.

use std::fmt;
use std::time::SystemTime;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Being worked on now (at most one step at a time).
    InProgress,
    /// Done.
    Completed,
}

impl StepStatus {
    /// The checklist's box: `[ ]` pending, `[~]` in progress, `[x]` completed.
    pub fn mark(self) -> &'static str {
        match self {
            Self::Pending => "[ ]",
            Self::InProgress => "[~]",
            Self::Completed => "[x]",
        }
    }
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct PlanStep {
    /// What to do, as one short line (a few words; at most 256 characters), e.g. "Add the
    /// parser tests".
    pub step: String,
    /// `pending`, `in_progress` (the one step being worked on) or `completed`.
    pub status: StepStatus,
}

impl PlanStep {
    /// A step.
    pub fn new(step: impl Into<String>, status: StepStatus) -> Self {
        Self {
            step: step.into(),
            status,
        }
    }
}

/// The plan of one session, as the model last set it with `update_plan`.
///
/// It serializes as the tool's structured output and as the file a session's plan is kept
/// in: `{"session", "explanation", "plan": [{"step", "status"}], "updated_at"}` — the
/// steps under `plan`, the argument's name, so a host reads the call's arguments and its
/// result alike. [`Display`](fmt::Display) writes the checklist, one step a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Plan {
    /// The session the plan belongs to; `None` for calls that name no session, which
    /// share one plan.
    pub session: Option<String>,
    /// What the model said about its last change, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// The steps, in order.
    #[serde(rename = "plan")]
    pub steps: Vec<PlanStep>,
    /// When the model last set it (RFC 3339, UTC).
    #[serde(with = "humantime_serde")]
    #[schemars(with = "String")]
    pub updated_at: SystemTime,
}

impl Plan {
    /// How many steps are completed.
    pub fn completed(&self) -> usize {
        self.steps
            .iter()
            .filter(|step| step.status == StepStatus::Completed)
            .count()
    }

    /// The step in progress, if one is.
    pub fn in_progress(&self) -> Option<&PlanStep> {
        self.steps
            .iter()
            .find(|step| step.status == StepStatus::InProgress)
    }

    /// One line on where the plan stands: `2 of 5 steps completed, in progress: Write
    /// the parser`, or `no steps`.
    pub fn summary(&self) -> String {
        let total = self.steps.len();
        if total == 0 {
            return "no steps".to_owned();
        }
        let noun = if total == 1 { "step" } else { "steps" };
        let mut line = format!("{} of {total} {noun} completed", self.completed());
        if let Some(step) = self.in_progress() {
            line.push_str(&format!(", in progress: {}", step.step));
        }
        line
    }
}

/// The checklist: `[x] done`, `[~] in progress`, `[ ] pending`, one step a line (no
/// line break after the last); `(no steps)` for an empty plan.
impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.steps.is_empty() {
            return f.write_str("(no steps)");
        }
        for (index, step) in self.steps.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{} {}", step.status.mark(), step.step)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(steps: &[(&str, StepStatus)]) -> Plan {
        Plan {
            session: Some("s".to_owned()),
            explanation: None,
            steps: steps
                .iter()
                .map(|(step, status)| PlanStep::new(*step, *status))
                .collect(),
            updated_at: SystemTime::UNIX_EPOCH,
        }
    }

    #[test]
    fn a_plan_renders_as_a_checklist_with_a_summary() {
        use StepStatus::*;
        let plan = plan(&[
            ("Read the code", Completed),
            ("Write the parser", InProgress),
            ("Update the docs", Pending),
        ]);
        assert_eq!(
            plan.to_string(),
            "[x] Read the code\n[~] Write the parser\n[ ] Update the docs"
        );
        assert_eq!(
            plan.summary(),
            "1 of 3 steps completed, in progress: Write the parser"
        );
        let empty = self::plan(&[]);
        assert_eq!(empty.to_string(), "(no steps)");
        assert_eq!(empty.summary(), "no steps");
        assert_eq!(
            self::plan(&[("Ship", Pending)]).summary(),
            "0 of 1 step completed"
        );
    }

    #[test]
    fn a_plan_serializes_with_its_steps_under_plan_and_reads_back() {
        let plan = plan(&[("Ship", StepStatus::InProgress)]);
        let json = serde_json::to_value(&plan).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "session": "s",
                "plan": [{"step": "Ship", "status": "in_progress"}],
                "updated_at": "1970-01-01T00:00:00Z",
            })
        );
        assert_eq!(serde_json::from_value::<Plan>(json).unwrap(), plan);
    }
}
