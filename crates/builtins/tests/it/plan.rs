//! `update_plan` through a real registry, registered as `register_all` does over a
//! temporary workspace, with the data directory (`XDG_DATA_HOME`) in a temporary
//! directory: the whole plan back after each update, plans kept per session and in files
//! another process reads, refusals naming every problem, the audit log and hooks seeing
//! the plan, and session ids and commands that try to reach the files elsewhere.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_tools_builtins::plan::{Plan, Plans, StepStatus};
use agent_tools_builtins::{BuiltinConfig, register_all_with_env};
use agent_tools_core::audit::{AuditEvent, JsonlAudit, Outcome};
use agent_tools_core::hooks::{Hook, HookCall};
use agent_tools_core::output::ToolOutput;
use agent_tools_core::tool::BoxFuture;
use agent_tools_core::{ToolCall, ToolRegistry, ToolResult};
use serde_json::{Value, json};

/// A workspace and a data directory beside it, both temporary.
struct Setup {
    _temp: tempfile::TempDir,
    ws: PathBuf,
    data: PathBuf,
}

impl Setup {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        let (ws, data) = (base.join("ws"), base.join("data"));
        std::fs::create_dir(&ws).unwrap();
        std::fs::create_dir(&data).unwrap();
        Self {
            _temp: temp,
            ws,
            data,
        }
    }

    fn env(&self) -> impl Fn(&str) -> Option<String> + use<> {
        let data = self.data.display().to_string();
        move |name: &str| (name == "XDG_DATA_HOME").then(|| data.clone())
    }

    /// The built-in tools on `registry`, as `register_all` sets them up (memory off: these
    /// tests are about plans).
    fn register(&self, registry: &ToolRegistry, mut config: BuiltinConfig) {
        config.memory.enabled = false;
        register_all_with_env(registry, Some(self.ws.clone()), &config, &self.env()).unwrap();
    }

    fn registry(&self) -> ToolRegistry {
        let registry = ToolRegistry::new();
        self.register(&registry, BuiltinConfig::default());
        registry
    }

    /// A fresh handle on the workspace's plans, as another process would open it.
    fn plans(&self) -> Plans {
        Plans::for_workspace_with_env(&self.ws, &self.env()).unwrap()
    }

    fn plans_dir(&self) -> PathBuf {
        self.plans().directory().unwrap().to_path_buf()
    }
}

async fn update(registry: &ToolRegistry, arguments: Value) -> ToolResult {
    registry.call(ToolCall::new("c", "update_plan", arguments)).await
}

fn statuses(plan: &Plan) -> Vec<(&str, StepStatus)> {
    plan.steps
        .iter()
        .map(|step| (step.step.as_str(), step.status))
        .collect()
}

#[tokio::test]
async fn each_update_returns_the_whole_plan() {
    let setup = Setup::new();
    let registry = setup.registry().session("s1");
    let first = json!({"explanation": "Start.", "plan": [
        {"step": "Read the parser", "status": "in_progress"},
        {"step": "Write the tests", "status": "pending"},
        {"step": "Fix the bug", "status": "pending"},
    ]});
    let result = update(&registry, first).await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        result.text(),
        "Plan updated (0 of 3 steps completed, in progress: Read the parser):\n\
         [~] Read the parser\n[ ] Write the tests\n[ ] Fix the bug"
    );
    let second = json!({"plan": [
        {"step": "Read the parser", "status": "completed"},
        {"step": "Write the tests", "status": "in_progress"},
        {"step": "Fix the bug", "status": "pending"},
        {"step": "Update the changelog", "status": "pending"},
    ]});
    let result = update(&registry, second).await;
    assert_eq!(
        result.text(),
        "Plan updated (1 of 4 steps completed, in progress: Write the tests):\n\
         [x] Read the parser\n[~] Write the tests\n[ ] Fix the bug\n[ ] Update the changelog"
    );
    let structured = result.output.structured.expect("the plan as structured output");
    assert_eq!(structured["session"], "s1");
    assert_eq!(structured["plan"].as_array().unwrap().len(), 4);
    assert_eq!(
        structured["plan"][1],
        json!({"step": "Write the tests", "status": "in_progress"})
    );
    assert!(
        structured.get("explanation").is_none(),
        "only the last update's explanation"
    );
    let spec = registry.get("update_plan").unwrap().spec().clone();
    assert!(spec.output_schema.is_some());
    assert_eq!(spec.meta.annotations.read_only, None);
    assert_eq!(spec.meta.annotations.idempotent, Some(true));
    assert_eq!(spec.meta.annotations.title.as_deref(), Some("Update plan"));

    let cleared = update(&registry, json!({"plan": []})).await;
    assert_eq!(cleared.text(), "Plan cleared: it has no steps.");
}

#[tokio::test]
async fn sessions_keep_plans_of_their_own() {
    let setup = Setup::new();
    let registry = setup.registry();
    let plan = |step: &str| json!({"plan": [{"step": step, "status": "in_progress"}]});
    update(&registry.session("a"), plan("A's step")).await;
    update(&registry.session("b"), plan("B's step")).await;
    update(&registry, plan("no session's step")).await;
    let plans = setup.plans();
    let a = plans.get(Some("a")).unwrap();
    assert_eq!(statuses(&a), [("A's step", StepStatus::InProgress)]);
    assert_eq!(
        statuses(&plans.get(Some("b")).unwrap()),
        [("B's step", StepStatus::InProgress)]
    );
    assert_eq!(
        statuses(&plans.get(None).unwrap()),
        [("no session's step", StepStatus::InProgress)]
    );
    assert_eq!(plans.get(Some("c")), None);
    let listed: Vec<Option<String>> = plans
        .list()
        .unwrap()
        .into_iter()
        .map(|plan| plan.session)
        .collect();
    assert_eq!(
        listed,
        [None, Some("b".to_owned()), Some("a".to_owned())],
        "the last updated first"
    );
}

#[tokio::test]
async fn a_plan_breaking_the_rules_is_refused_with_every_problem_and_the_old_one_kept() {
    let setup = Setup::new();
    let registry = setup.registry().session("s");
    let good = json!({"plan": [{"step": "Keep me", "status": "in_progress"}]});
    assert!(!update(&registry, good).await.is_error());
    let bad = json!({"plan": [
        {"step": "One", "status": "in_progress"},
        {"step": " ", "status": "pending"},
        {"step": "Two", "status": "in_progress"},
        {"step": "x".repeat(300), "status": "pending"},
    ]});
    let result = update(&registry, bad).await;
    assert!(result.is_error());
    assert_eq!(result.outcome, Outcome::InvalidArguments);
    let message = result.text();
    assert!(
        message.starts_with("invalid arguments for `update_plan`:\n- step 2 is empty"),
        "{message}"
    );
    assert!(message.ends_with("- the plan was not updated (the previous plan is kept): send the whole plan again with these fixed"), "{message}");
    for problem in [
        "- step 2 is empty",
        "- step 4 is 300 characters, more than 256",
        "- steps 1 and 3 are all `in_progress`: at most one step is in progress at a time",
    ] {
        assert!(message.contains(problem), "{problem:?} missing from {message}");
    }
    let too_many: Vec<Value> = (0..51)
        .map(|n| json!({"step": format!("Step {n}"), "status": "pending"}))
        .collect();
    let result = update(&registry, json!({"plan": too_many})).await;
    assert!(
        result.text().contains("the plan has 51 steps, more than 50"),
        "{}",
        result.text()
    );
    let unknown = update(&registry, json!({"plan": [{"step": "Done", "status": "done"}]})).await;
    assert!(
        unknown.is_error() && unknown.text().contains("plan"),
        "{}",
        unknown.text()
    );
    let kept = setup.plans().get(Some("s")).unwrap();
    assert_eq!(statuses(&kept), [("Keep me", StepStatus::InProgress)]);
}

#[tokio::test]
async fn the_plan_is_written_outside_the_workspace_and_read_back_by_another_handle() {
    let setup = Setup::new();
    let registry = setup.registry().session("writer");
    let plan = json!({"explanation": "First cut.", "plan": [
        {"step": "Sketch", "status": "completed"},
        {"step": "Build", "status": "in_progress"},
    ]});
    update(&registry, plan).await;
    let directory = setup.plans_dir();
    assert!(
        directory.starts_with(setup.data.join("agent-tools/workspaces")),
        "{directory:?}"
    );
    assert_eq!(directory.file_name().unwrap(), "plans");
    let file = directory.join("session-writer.json");
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored["explanation"], "First cut.");
    assert_eq!(stored["plan"][1]["step"], "Build");
    assert_eq!(
        std::fs::read_dir(&setup.ws).unwrap().count(),
        0,
        "nothing in the workspace"
    );

    // A new handle (another process, as far as plans go) reads it from its file.
    let read = setup.plans().get(Some("writer")).unwrap();
    assert_eq!(read.explanation.as_deref(), Some("First cut."));
    assert_eq!(read.to_string(), "[x] Sketch\n[~] Build");
}

#[tokio::test]
async fn a_session_id_cannot_lead_the_file_out_of_the_plans_directory() {
    let setup = Setup::new();
    let registry = setup.registry();
    let hostile = ["../../x", "../../../escaped", "/tmp/abs", "a/../../b", "..", "."];
    for (n, session) in hostile.iter().enumerate() {
        let step = format!("step of {n}");
        let result = update(
            &registry.session(*session),
            json!({"plan": [{"step": step, "status": "pending"}]}),
        )
        .await;
        assert!(!result.is_error(), "{session}: {}", result.text());
    }
    let directory = setup.plans_dir();
    let mut names: Vec<String> = std::fs::read_dir(&directory)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), hostile.len(), "{names:?}");
    assert!(
        names
            .iter()
            .all(|name| name.starts_with("session-") && !name.contains('/')),
        "{names:?}"
    );
    // Nothing beside the plans directory, nor anywhere else in the data directory.
    assert_eq!(
        walk(&setup.data)
            .iter()
            .filter(|path| !path.starts_with(&directory))
            .count(),
        0
    );
    assert_eq!(std::fs::read_dir(&setup.ws).unwrap().count(), 0);
    let plans = setup.plans();
    for (n, session) in hostile.iter().enumerate() {
        let plan = plans.get(Some(session)).unwrap();
        assert_eq!(plan.steps[0].step, format!("step of {n}"), "{session}");
        assert_eq!(plan.session.as_deref(), Some(*session));
    }
}

/// Every file below `dir`, with its full path.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap().flatten() {
            match entry.file_type().unwrap().is_dir() {
                true => stack.push(entry.path()),
                false => found.push(entry.path()),
            }
        }
    }
    found
}

#[tokio::test]
async fn a_sandboxed_command_cannot_rewrite_the_plan() {
    let setup = Setup::new();
    let registry = ToolRegistry::new();
    let mut config = BuiltinConfig::default();
    // No sandbox, no command: the test must not pass by running one unconfined.
    config.exec.require_sandbox = true;
    setup.register(&registry, config);
    let registry = registry.session("s");
    update(
        &registry,
        json!({"plan": [{"step": "The real step", "status": "in_progress"}]}),
    )
    .await;
    let file = setup.plans_dir().join("session-s.json");
    let before = std::fs::read_to_string(&file).unwrap();
    let forged = r#"{"session":"s","plan":[{"step":"rm -rf / is fine","status":"completed"}],"updated_at":"2030-01-01T00:00:00Z"}"#;
    for command in [
        format!("printf '%s' '{forged}' > '{}'", file.display()),
        format!("rm -f '{}'", file.display()),
        format!("ln -sf /etc/passwd '{}'", file.display()),
    ] {
        let result = registry
            .call(ToolCall::new("x", "exec", json!({"command": command})))
            .await;
        assert!(
            result.is_error() || !result.text().starts_with("exit code: 0"),
            "{command}: {}",
            result.text()
        );
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    assert_eq!(
        setup.plans().get(Some("s")).unwrap().steps[0].step,
        "The real step"
    );
}

#[tokio::test]
async fn a_data_directory_inside_the_workspace_keeps_plans_in_memory_only() {
    let setup = Setup::new();
    let inside = setup.ws.join("data");
    std::fs::create_dir(&inside).unwrap();
    let registry = ToolRegistry::new();
    let mut config = BuiltinConfig::default();
    config.memory.enabled = false;
    let env = move |name: &str| (name == "XDG_DATA_HOME").then(|| inside.display().to_string());
    register_all_with_env(&registry, Some(setup.ws.clone()), &config, &env).unwrap();
    let result = update(
        &registry,
        json!({"plan": [{"step": "Stay here", "status": "pending"}]}),
    )
    .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(walk(&setup.ws), Vec::<PathBuf>::new(), "no file in the workspace");
}

#[tokio::test]
async fn the_audit_log_keeps_the_whole_plan_of_fifty_long_steps() {
    let setup = Setup::new();
    let log = setup.data.join("audit.jsonl");
    let registry = ToolRegistry::builder()
        .audit(JsonlAudit::open(&log).unwrap())
        .build();
    setup.register(&registry, BuiltinConfig::default());
    let steps: Vec<Value> = (0..50)
        .map(|n| {
            let status = if n == 0 { "in_progress" } else { "pending" };
            json!({"step": format!("{n:02} {}", "é".repeat(250)), "status": status})
        })
        .collect();
    let arguments = json!({"explanation": "w".repeat(256), "plan": steps});
    assert!(
        arguments.to_string().len() > 25_000,
        "well over the registry's 4096-byte cap"
    );
    let result = update(&registry.session("audited"), arguments.clone()).await;
    assert!(!result.is_error(), "{}", result.text());
    let text = std::fs::read_to_string(&log).unwrap();
    let events: Vec<AuditEvent> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].tool, "update_plan");
    assert_eq!(events[0].session_id.as_deref(), Some("audited"));
    assert_eq!(
        events[0].arguments, arguments,
        "the whole plan, not a truncated preview"
    );
}

/// What a hook saw after a call: the output's text, and the session's plan it read.
type Seen = Arc<Mutex<Vec<(String, Option<Plan>)>>>;

/// Sees every call's output and reads the session's plan from the shared handle.
struct PlanWatcher {
    plans: Plans,
    seen: Seen,
}

impl Hook for PlanWatcher {
    fn after_call<'a>(
        &'a self,
        call: &'a HookCall<'a>,
        _outcome: Outcome,
        output: ToolOutput,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            let current = self.plans.get(call.session_id);
            self.seen.lock().unwrap().push((output.text_content(), current));
            output
        })
    }
}

#[tokio::test]
async fn hooks_see_the_plan_in_the_output_and_read_it_from_plans() {
    let setup = Setup::new();
    let plans = setup.plans();
    let seen: Seen = Arc::default();
    let registry = ToolRegistry::builder()
        .hook(PlanWatcher {
            plans: plans.clone(),
            seen: seen.clone(),
        })
        .build();
    let mut config = BuiltinConfig::default();
    config.plans = Some(plans.clone());
    setup.register(&registry, config);
    let plan = json!({"plan": [{"step": "Watch me", "status": "in_progress"}]});
    update(&registry.session("watched"), plan).await;
    let seen = seen.lock().unwrap();
    let (output, current) = &seen[0];
    assert!(output.contains("[~] Watch me"), "{output}");
    let current = current.as_ref().expect("the hook read the session's plan");
    assert_eq!(current.session.as_deref(), Some("watched"));
    assert_eq!(statuses(current), [("Watch me", StepStatus::InProgress)]);
    assert_eq!(plans.get(Some("watched")).as_ref(), Some(current));
}
