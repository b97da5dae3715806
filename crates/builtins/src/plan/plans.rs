//! [`Plans`]: the plans of a registry's sessions, in memory and, when given a directory,
//! in files other processes read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use super::error::PlanError;
use super::files;
use super::rules;
use super::steps::{Plan, PlanStep};
use crate::state_dir::{self, StateDirError};

/// Most sessions whose plans are kept in memory; past it, the plan updated longest ago is
/// dropped from memory (its file stays, and [`Plans::get`] still reads it).
pub const MAX_SESSIONS_IN_MEMORY: usize = 256;

/// The plans `update_plan` keeps, one per session (calls without a session share one).
/// Cheap to clone: clones share the plans.
///
/// The tool writes through it; an application, a hook or an approver holding a clone reads
/// the current plan of any session with [`get`](Self::get). Give the same handle to the
/// tools ([`BuiltinsBuilder::plans`](crate::BuiltinsBuilder::plans), or
/// [`BuiltinConfig::plans`](crate::BuiltinConfig::plans) for
/// [`register_all`](crate::register_all)) and keep a clone.
///
/// With a directory ([`in_directory`](Self::in_directory),
/// [`for_workspace`](Self::for_workspace)) each update is also written to a file there,
/// before it is kept in memory: another process (`agent-tools plan`) reads it, and a plan
/// outlives the process. Without one ([`new`](Self::new)) plans live only in memory.
///
/// ```
/// use agent_tools_builtins::plan::Plans;
///
/// let plans = Plans::new();
/// assert!(plans.get(Some("session-1")).is_none());
/// assert!(plans.directory().is_none());
/// ```
#[derive(Clone, Default)]
pub struct Plans {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    directory: Option<PathBuf>,
    recent: Mutex<Recent>,
    /// One update at a time, the file written before the map changes, so that the two
    /// never disagree on which update came last.
    writing: Mutex<()>,
}

/// The plans in memory, each with the number of the update that set it.
#[derive(Default)]
struct Recent {
    updates: u64,
    plans: HashMap<Option<String>, (u64, Plan)>,
}

impl std::fmt::Debug for Plans {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plans")
            .field("directory", &self.inner.directory)
            .field("in_memory", &self.recent().plans.len())
            .finish()
    }
}

impl Plans {
    /// Plans kept in memory only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Plans kept in memory and written to `directory` (created, private, when the first
    /// plan is written), one file per session.
    pub fn in_directory(directory: impl Into<PathBuf>) -> Self {
        Self {
            inner: Arc::new(Inner {
                directory: Some(directory.into()),
                ..Inner::default()
            }),
        }
    }

    /// Plans of the workspace at `workspace_root` (canonical, as
    /// [`Workspace::root`](crate::Workspace::root) gives it), in its state directory outside
    /// the workspace: `$XDG_DATA_HOME/agent-tools/workspaces/<name>-<hash>/plans/` (or under
    /// `~/.local/share`), where the memory tools keep their database. Creates nothing.
    pub fn for_workspace(workspace_root: &Path) -> Result<Self, PlanError> {
        Self::for_workspace_with_env(workspace_root, &|name| std::env::var(name).ok())
    }

    /// [`for_workspace`](Self::for_workspace) with the environment (`XDG_DATA_HOME`,
    /// `HOME`) given as a function. Fails when neither is set to an absolute path, and when
    /// the data directory lies inside the workspace (where commands could change the plans).
    pub fn for_workspace_with_env(
        workspace_root: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, PlanError> {
        match state_dir::workspace_dir(workspace_root, env) {
            Ok(dir) => Ok(Self::in_directory(dir.join("plans"))),
            Err(StateDirError::NoDataDirectory) => Err(PlanError::NoDataDirectory),
            Err(StateDirError::InWorkspace { path }) => Err(PlanError::DataDirectoryInWorkspace { path }),
        }
    }

    /// The directory plans are written to; `None` when they are kept in memory only.
    pub fn directory(&self) -> Option<&Path> {
        self.inner.directory.as_deref()
    }

    /// The current plan of `session` (`None` for calls without a session): the one in
    /// memory, else the one in its file. `None` when the session has no plan, or its file
    /// cannot be read.
    pub fn get(&self, session: Option<&str>) -> Option<Plan> {
        let key = session.map(str::to_owned);
        if let Some((_, plan)) = self.recent().plans.get(&key) {
            return Some(plan.clone());
        }
        let directory = self.directory()?;
        files::read(directory, session).ok().flatten()
    }

    /// Every session's plan, the one updated last first: those in memory and those in the
    /// directory's files (written by this process earlier, or by another serving the same
    /// workspace). Fails only when the directory cannot be read; a file that does not
    /// hold a plan is left out.
    pub fn list(&self) -> Result<Vec<Plan>, PlanError> {
        let mut by_session: HashMap<Option<String>, Plan> = match self.directory() {
            Some(directory) => files::read_all(directory)?
                .into_iter()
                .map(|plan| (plan.session.clone(), plan))
                .collect(),
            None => HashMap::new(),
        };
        for (session, (_, plan)) in &self.recent().plans {
            by_session.insert(session.clone(), plan.clone());
        }
        let mut plans: Vec<Plan> = by_session.into_values().collect();
        plans.sort_by(|a, b| {
            b.updated_at
                .cmp(&a.updated_at)
                .then_with(|| a.session.cmp(&b.session))
        });
        Ok(plans)
    }

    /// Replaces `session`'s plan, after checking it against the rules; writes its file
    /// first when there is a directory, so a failed write changes nothing. Returns the
    /// plan as kept: steps and explanation trimmed, an empty explanation none.
    pub(crate) fn update(
        &self,
        session: Option<&str>,
        explanation: Option<String>,
        steps: Vec<PlanStep>,
    ) -> Result<Plan, PlanError> {
        let problems = rules::problems(explanation.as_deref(), &steps);
        if !problems.is_empty() {
            return Err(PlanError::Invalid { problems });
        }
        let plan = Plan {
            session: session.map(str::to_owned),
            explanation: explanation
                .map(|text| text.trim().to_owned())
                .filter(|text| !text.is_empty()),
            steps: steps
                .into_iter()
                .map(|step| PlanStep::new(step.step.trim(), step.status))
                .collect(),
            updated_at: SystemTime::now(),
        };
        let _writing = self.inner.writing.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(directory) = self.directory() {
            files::write(directory, &plan)?;
        }
        self.recent().insert(plan.clone());
        Ok(plan)
    }

    fn recent(&self) -> std::sync::MutexGuard<'_, Recent> {
        self.inner.recent.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Recent {
    /// Keeps `plan` as its session's, dropping the plan updated longest ago when more
    /// than [`MAX_SESSIONS_IN_MEMORY`] sessions have one.
    fn insert(&mut self, plan: Plan) {
        self.updates += 1;
        self.plans.insert(plan.session.clone(), (self.updates, plan));
        if self.plans.len() > MAX_SESSIONS_IN_MEMORY {
            let oldest = self
                .plans
                .iter()
                .min_by_key(|(_, (update, _))| *update)
                .map(|(session, _)| session.clone());
            if let Some(session) = oldest {
                self.plans.remove(&session);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::StepStatus;

    fn steps(text: &str) -> Vec<PlanStep> {
        vec![PlanStep::new(text, StepStatus::InProgress)]
    }

    #[test]
    fn updates_replace_the_plan_of_their_session_only() {
        let plans = Plans::new();
        plans.update(Some("a"), None, steps("first")).unwrap();
        plans.update(Some("b"), None, steps("other")).unwrap();
        let kept = plans
            .update(Some("a"), Some("  reworded \n".into()), steps("  second "))
            .unwrap();
        assert_eq!(kept.steps, steps("second"));
        assert_eq!(kept.explanation.as_deref(), Some("reworded"));
        assert_eq!(plans.clone().get(Some("a")), Some(kept));
        assert_eq!(plans.get(Some("b")).unwrap().steps, steps("other"));
        assert_eq!(plans.get(None), None);
        let sessions: Vec<_> = plans
            .list()
            .unwrap()
            .into_iter()
            .map(|plan| plan.session)
            .collect();
        assert_eq!(sessions, [Some("a".to_owned()), Some("b".to_owned())]);
    }

    #[test]
    fn a_refused_update_keeps_the_previous_plan() {
        let plans = Plans::new();
        plans.update(None, None, steps("kept")).unwrap();
        let mut two = steps("one");
        two.extend(steps("two"));
        let error = plans.update(None, None, two).unwrap_err();
        assert!(matches!(error, PlanError::Invalid { .. }), "{error}");
        assert_eq!(plans.get(None).unwrap().steps, steps("kept"));
    }

    #[test]
    fn memory_keeps_the_most_recent_sessions_and_files_keep_all() {
        let temp = tempfile::tempdir().unwrap();
        let plans = Plans::in_directory(temp.path().join("plans"));
        for n in 0..=MAX_SESSIONS_IN_MEMORY {
            plans.update(Some(&format!("s{n}")), None, steps("work")).unwrap();
        }
        let recent = plans.recent();
        assert_eq!(recent.plans.len(), MAX_SESSIONS_IN_MEMORY);
        assert!(!recent.plans.contains_key(&Some("s0".to_owned())));
        drop(recent);
        assert_eq!(
            plans.get(Some("s0")).unwrap().steps,
            steps("work"),
            "read from its file"
        );
        assert_eq!(plans.list().unwrap().len(), MAX_SESSIONS_IN_MEMORY + 1);

        let memory_only = Plans::new();
        for n in 0..=MAX_SESSIONS_IN_MEMORY {
            memory_only
                .update(Some(&format!("s{n}")), None, steps("work"))
                .unwrap();
        }
        assert_eq!(memory_only.get(Some("s0")), None);
        assert!(memory_only.get(Some("s1")).is_some());
    }

    #[test]
    fn a_failed_write_changes_nothing() {
        let temp = tempfile::tempdir().unwrap();
        // The directory's place is taken by a file: nothing can be written there.
        let blocked = temp.path().join("plans");
        std::fs::write(&blocked, "").unwrap();
        let plans = Plans::in_directory(&blocked);
        let error = plans.update(Some("s"), None, steps("lost")).unwrap_err();
        assert!(matches!(error, PlanError::Directory { .. }), "{error}");
        assert_eq!(plans.get(Some("s")), None);
    }
}
