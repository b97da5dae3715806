//! The permission policy on a registry, through the facade: refused calls never reach the
//! tool, say why, and are audited as `denied`; the policy follows the registry's tools
//! wherever they come from (registered later, merged in, derived views).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_tools::{
    MemoryAudit, Outcome, Policy, PolicyMode, ToolCall, ToolContext, ToolRegistry, ToolVerdict, tool,
};
use serde_json::json;

/// How many times a tool body ran.
#[derive(Clone, Default)]
struct Runs(Arc<AtomicUsize>);

impl Runs {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// Run a shell command.
#[tool(destructive, open_world)]
async fn exec(
    ctx: &ToolContext,
    /// The command.
    command: String,
) -> String {
    if let Some(runs) = ctx.extension::<Runs>() {
        runs.0.fetch_add(1, Ordering::SeqCst);
    }
    format!("ran {command}")
}

/// Read a file.
#[tool(read_only)]
async fn read_file(
    ctx: &ToolContext,
    /// The path.
    path: String,
) -> String {
    if let Some(runs) = ctx.extension::<Runs>() {
        runs.0.fetch_add(1, Ordering::SeqCst);
    }
    format!("read {path}")
}

fn registry(policy: Policy) -> (ToolRegistry, MemoryAudit, Runs) {
    let audit = MemoryAudit::new();
    let runs = Runs::default();
    let registry = ToolRegistry::builder()
        .policy(policy)
        .audit(audit.clone())
        .extension(runs.clone())
        .build();
    registry.register(ExecTool).unwrap();
    registry.register(ReadFileTool).unwrap();
    (registry, audit, runs)
}

fn coding_policy() -> Policy {
    Policy::builder()
        .mode(PolicyMode::Default)
        .deny("exec(command: rm *)")
        .allow("exec(command: git status*)")
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_denied_call_never_runs_names_its_rule_and_is_audited() {
    let (registry, audit, runs) = registry(coding_policy());
    let result = registry
        .call(ToolCall::new(
            "c1",
            "exec",
            json!({"command": "git status; rm -rf ~"}),
        ))
        .await;
    assert!(result.is_error());
    assert_eq!(result.outcome, Outcome::Denied);
    assert!(
        result.text().contains("the deny rule `exec(command: rm *)`"),
        "{}",
        result.text()
    );
    assert!(result.text().contains("Do not retry"), "{}", result.text());
    assert_eq!(runs.count(), 0, "the tool did not run");
    let events = audit.events();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].outcome, Outcome::Denied);
    assert_eq!(events[0].outcome.as_str(), "denied");
}

#[tokio::test]
async fn allowed_calls_run_and_asking_without_an_approver_refuses() {
    let (registry, audit, runs) = registry(coding_policy());
    let allowed = registry
        .call(ToolCall::new(
            "c1",
            "exec",
            json!({"command": "git status --short"}),
        ))
        .await;
    assert_eq!(allowed.outcome, Outcome::Ok, "{}", allowed.text());
    let read = registry
        .call(ToolCall::new("c2", "read_file", json!({"path": "a"})))
        .await;
    assert_eq!(read.outcome, Outcome::Ok, "read-only tools run in default mode");
    assert_eq!(runs.count(), 2);

    // Not allowed by a rule, and destructive: default mode asks, and no one can answer.
    let asked = registry
        .call(ToolCall::new("c3", "exec", json!({"command": "cargo publish"})))
        .await;
    assert_eq!(asked.outcome, Outcome::Denied);
    assert!(
        asked.text().contains("needs a person's approval"),
        "{}",
        asked.text()
    );
    assert!(asked.text().contains("policy mode `default`"), "{}", asked.text());
    assert_eq!(runs.count(), 2, "the asked call did not run");
    assert_eq!(audit.events().last().unwrap().outcome, Outcome::Denied);
}

#[tokio::test]
async fn invalid_arguments_are_reported_before_the_policy_is_asked() {
    let (registry, _, _) = registry(coding_policy());
    let result = registry
        .call(ToolCall::new("c1", "exec", json!({"command": 1})))
        .await;
    assert_eq!(result.outcome, Outcome::InvalidArguments);
}

#[tokio::test]
async fn tools_added_later_merged_in_or_seen_through_views_follow_the_policy() {
    let policy = Policy::builder().mode(PolicyMode::ReadOnly).build().unwrap();
    let registry = ToolRegistry::builder().policy(policy).build();
    let other = ToolRegistry::new();
    other.register(ExecTool).unwrap();
    registry.merge(&other).unwrap();
    registry.register(ReadFileTool).unwrap();

    let exec = || ToolCall::new("c", "exec", json!({"command": "ls"}));
    assert_eq!(registry.call(exec()).await.outcome, Outcome::Denied, "merged in");
    assert_eq!(
        other.call(exec()).await.outcome,
        Outcome::Ok,
        "the source has no policy"
    );
    let view = registry.subset(&["exec"]).unwrap();
    assert_eq!(view.call(exec()).await.outcome, Outcome::Denied, "a derived view");
    let session = registry.session("s1");
    assert_eq!(
        session.call(exec()).await.outcome,
        Outcome::Denied,
        "a session handle"
    );
    let read = registry
        .call(ToolCall::new("c", "read_file", json!({"path": "a"})))
        .await;
    assert_eq!(read.outcome, Outcome::Ok, "registered after the policy");
}

#[test]
fn listings_can_show_what_the_policy_does_with_each_tool() {
    let (registry, _, _) = registry(coding_policy());
    let policy = coding_policy();
    let verdicts: Vec<(String, ToolVerdict)> = registry
        .tools()
        .iter()
        .map(|tool| (tool.spec().name.clone(), policy.verdict_for_tool(tool.spec())))
        .collect();
    assert_eq!(verdicts[0], ("exec".to_owned(), ToolVerdict::DependsOnArguments));
    assert_eq!(verdicts[1], ("read_file".to_owned(), ToolVerdict::Allowed));
}
