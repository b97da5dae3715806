//! The plan tool, `update_plan`: the model keeps a short list of steps with their status
//! (Codex's `update_plan`, Claude Code's `TodoWrite`), which the person watching sees, and
//! rewrites it whole as it works.
//!
//! # One tool for every model
//!
//! The arguments are Codex's (`{explanation?, plan: [{step, status}]}`, statuses
//! `pending`, `in_progress`, `completed`); Claude Code's `TodoWrite` (`todos: [{content,
//! status, activeForm}]`) says the same with other names and adds `activeForm`, the step
//! in the present continuous, which a checklist does not need (`[~]` marks the step in
//! progress). So there is one tool, whose description calls it the to-do list as well;
//! a Claude model uses it as it would `TodoWrite`.
//!
//! # The rules
//!
//! At most one step `in_progress`, every step one non-empty line of at most 256
//! characters, at most 50 steps (`rules.rs`). A plan that breaks them is refused with
//! every problem named, and the previous plan is kept.
//!
//! # Where plans are kept
//!
//! [`Plans`] keeps one plan per session (`ToolContext::session_id`; calls without one
//! share a plan): in memory, where a hook or an approver holding a clone reads it, and,
//! when it has a directory, in a file per session (`files.rs`), written before the memory
//! changes. [`register_all`](crate::register_all) gives it the workspace's state directory,
//! `$XDG_DATA_HOME/agent-tools/workspaces/<name>-<hash>/plans/` (`state_dir.rs`), outside
//! the workspace, where the sandboxed `exec` cannot write, so a command cannot rewrite the
//! plan a person is reading; `agent-tools plan` reads it from another process. Memory
//! holds the [`MAX_SESSIONS_IN_MEMORY`] sessions updated last; an older session's plan is
//! read from its file.
//!
//! What this does not stop: with `exec`'s `sandbox = "none"` a command can change anything
//! the user can, plan files included; and the plan is the model's own account of its work,
//! not a check of it.

mod error;
mod files;
mod plans;
mod rules;
mod steps;
mod update;

pub use error::PlanError;
pub use plans::{MAX_SESSIONS_IN_MEMORY, Plans};
pub use rules::{MAX_EXPLANATION_CHARS, MAX_STEP_CHARS, MAX_STEPS};
pub use steps::{Plan, PlanStep, StepStatus};
pub use update::UpdatePlanArgs;
pub(crate) use update::{PlanOutput, update_plan};
