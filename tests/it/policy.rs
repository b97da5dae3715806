//! The permission policy on a registry, through the facade: refused calls never reach the
//! tool, say why, and are audited as `denied`; the policy follows the registry's tools
//! wherever they come from (registered later, merged in, derived views); calls it asks
//! about go to an approver, or to the caller's user as a form.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_tools::{
    ToolCall, ToolContext, ToolRegistry,
    approval::{Approval, ApprovalRequest, Approver},
    audit::{MemoryAudit, Outcome},
    caller::{Caller, CallerError, ElicitAction, ElicitRequest, ElicitResponse},
    context::CancellationToken,
    policy::{Policy, PolicyMode, ToolVerdict},
    tool,
    tool::BoxFuture,
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

/// Add two numbers. (No hints: MCP's defaults count it as destructive and open-world.)
#[tool]
async fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

#[tokio::test]
async fn a_first_policy_over_a_tool_without_hints_says_how_to_let_it_run() {
    // A user's first policy: one deny rule, default mode, no approver.
    let policy = Policy::builder().deny("exec(command: rm *)").build().unwrap();
    let registry = ToolRegistry::builder().policy(policy.clone()).build();
    registry.register(AddTool).unwrap();
    let refused = registry
        .call(ToolCall::new("c1", "add", json!({"a": 1, "b": 2})))
        .await;
    assert_eq!(refused.outcome, Outcome::Denied);
    assert_eq!(
        refused.text(),
        "`add` was not run: it needs a person's approval (policy mode `default`, which asks \
         before destructive and open-world tools; the tool declares none of `read_only`, \
         `destructive` and `open_world`, so MCP's defaults count it as destructive and \
         open-world), and no one can be asked here. Do not retry it; tell the user, who can let \
         it run: allow it in the policy (the rule `add`), pick a policy mode that runs it, or set \
         an approver who is asked; if it changes nothing outside, mark the tool \
         `#[tool(read_only)]` (or `#[tool(destructive = false, open_world = false)]`)."
    );
    // Each way the message names lets it run.
    let allowed = Policy::builder()
        .deny("exec(command: rm *)")
        .allow("add")
        .build()
        .unwrap();
    let bypass = Policy::builder().mode(PolicyMode::Bypass).build().unwrap();
    for policy in [allowed, bypass] {
        let registry = ToolRegistry::builder().policy(policy).build();
        registry.register(AddTool).unwrap();
        let result = registry
            .call(ToolCall::new("c2", "add", json!({"a": 1, "b": 2})))
            .await;
        assert_eq!(result.text(), "3");
    }
    // A tool that states its hints is judged by them, and the message does not blame them.
    let registry = ToolRegistry::builder().policy(policy).build();
    registry.register(ExecTool).unwrap();
    let refused = registry
        .call(ToolCall::new("c3", "exec", json!({"command": "ls"})))
        .await;
    assert!(!refused.text().contains("declares none"), "{}", refused.text());
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
        .map(|tool| {
            (
                tool.spec().meta.name.clone(),
                policy.verdict_for_tool(tool.spec()),
            )
        })
        .collect();
    assert_eq!(verdicts[0], ("exec".to_owned(), ToolVerdict::DependsOnArguments));
    assert_eq!(verdicts[1], ("read_file".to_owned(), ToolVerdict::Allowed));
}

/// Answers every request with the next of its answers, and counts the requests.
struct Scripted {
    answers: std::sync::Mutex<Vec<Approval>>,
    asked: Arc<AtomicUsize>,
}

impl Scripted {
    fn new(answers: Vec<Approval>) -> (Self, Arc<AtomicUsize>) {
        let asked = Arc::new(AtomicUsize::new(0));
        let approver = Self {
            answers: std::sync::Mutex::new(answers.into_iter().rev().collect()),
            asked: asked.clone(),
        };
        (approver, asked)
    }
}

impl Approver for Scripted {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        assert!(
            request.question().contains(&request.tool),
            "{}",
            request.question()
        );
        let answer = self.answers.lock().unwrap().pop().expect("an answer left");
        Box::pin(async move { answer })
    }
}

fn approved_registry(answers: Vec<Approval>) -> (ToolRegistry, Runs, Arc<AtomicUsize>) {
    let (approver, asked) = Scripted::new(answers);
    let runs = Runs::default();
    let registry = ToolRegistry::builder()
        .policy(coding_policy())
        .approver(approver)
        .extension(runs.clone())
        .build();
    registry.register(ExecTool).unwrap();
    (registry, runs, asked)
}

fn publish(id: &str) -> ToolCall {
    ToolCall::new(id, "exec", json!({"command": "cargo publish"}))
}

#[tokio::test]
async fn an_approver_allows_once_or_for_the_session() {
    let (registry, runs, asked) = approved_registry(vec![
        Approval::AllowOnce,
        Approval::AllowAlways,
        Approval::AllowOnce,
    ]);
    let once = registry.call(publish("c1")).await;
    assert_eq!(once.outcome, Outcome::Ok, "{}", once.text());
    assert_eq!((asked.load(Ordering::SeqCst), runs.count()), (1, 1));

    let session = registry.session("s1");
    assert_eq!(session.call(publish("c2")).await.outcome, Outcome::Ok);
    assert_eq!(session.call(publish("c3")).await.outcome, Outcome::Ok);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "allowed always: not asked again in s1"
    );
    assert_eq!(
        registry.session("s2").call(publish("c4")).await.outcome,
        Outcome::Ok
    );
    assert_eq!(asked.load(Ordering::SeqCst), 3, "another session is asked");
    assert_eq!(runs.count(), 4);

    // A grant does not beat a deny rule.
    let denied = session
        .call(ToolCall::new("c5", "exec", json!({"command": "rm -rf target"})))
        .await;
    assert_eq!(denied.outcome, Outcome::Denied);
}

#[tokio::test]
async fn an_approver_denies_with_a_reason_the_model_reads() {
    let (registry, runs, _) = approved_registry(vec![Approval::Deny(Some("not on a Friday".into()))]);
    let result = registry.call(publish("c1")).await;
    assert_eq!(result.outcome, Outcome::Denied);
    assert!(
        result.text().contains("the user refused it: not on a Friday"),
        "{}",
        result.text()
    );
    assert_eq!(runs.count(), 0);
}

#[tokio::test]
async fn edited_arguments_are_validated_and_checked_again() {
    let (registry, runs, _) = approved_registry(vec![
        Approval::AllowEdited(json!({"command": "cargo publish --dry-run"})),
        Approval::AllowEdited(json!({"command": 7})),
        Approval::AllowEdited(json!({"command": "rm -rf ~"})),
    ]);
    let edited = registry.call(publish("c1")).await;
    assert_eq!(edited.text(), "ran cargo publish --dry-run");
    let invalid = registry.call(publish("c2")).await;
    assert_eq!(invalid.outcome, Outcome::InvalidArguments, "{}", invalid.text());
    assert!(
        invalid.text().contains("edited by the user"),
        "{}",
        invalid.text()
    );
    let denied = registry.call(publish("c3")).await;
    assert_eq!(denied.outcome, Outcome::Denied, "{}", denied.text());
    assert_eq!(runs.count(), 1);
}

#[tokio::test]
async fn a_calls_own_approver_wins_and_cancelling_stops_the_wait() {
    let (registry, runs, registry_asked) = approved_registry(vec![]);
    let (own, own_asked) = Scripted::new(vec![Approval::AllowOnce]);
    let result = registry.call(publish("c1").with_approver(Arc::new(own))).await;
    assert_eq!(result.outcome, Outcome::Ok, "{}", result.text());
    assert_eq!(own_asked.load(Ordering::SeqCst), 1);
    assert_eq!(registry_asked.load(Ordering::SeqCst), 0);

    /// Never answers.
    struct Silent;
    impl Approver for Silent {
        fn approve<'a>(&'a self, _request: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
            Box::pin(std::future::pending())
        }
    }
    let token = CancellationToken::new();
    let waiting = registry.call(
        publish("c2")
            .with_approver(Arc::new(Silent))
            .with_cancellation(token.clone()),
    );
    let (result, ()) = tokio::join!(waiting, async { token.cancel() });
    assert_eq!(result.outcome, Outcome::Cancelled, "{}", result.text());
    assert_eq!(runs.count(), 1);
}

/// A caller whose user answers forms with `answer`.
struct FormAnswers(Option<ElicitResponse>);

impl Caller for FormAnswers {
    fn elicit(&self, request: ElicitRequest) -> BoxFuture<'_, Result<ElicitResponse, CallerError>> {
        let ElicitRequest::Form { requested_schema, .. } = &request else {
            panic!("a form: {request:?}");
        };
        assert_eq!(requested_schema["required"], json!(["decision"]));
        let answer = self.0.clone();
        Box::pin(
            async move { answer.ok_or_else(|| CallerError::not_available("ask the user (elicitation)")) },
        )
    }
}

#[tokio::test]
async fn without_an_approver_the_callers_user_is_asked_by_a_form() {
    let accept = |decision: &str| {
        let content = json!({"decision": decision}).as_object().cloned().unwrap();
        Some(ElicitResponse::accept(content))
    };
    let cases = [
        (accept("allow_once"), Outcome::Ok, "ran cargo publish"),
        (accept("deny"), Outcome::Denied, "the user refused it"),
        (
            Some(ElicitResponse::new(ElicitAction::Decline)),
            Outcome::Denied,
            "the user declined",
        ),
        (
            Some(ElicitResponse::new(ElicitAction::Cancel)),
            Outcome::Denied,
            "dismissed",
        ),
        (None, Outcome::Denied, "no one can be asked"),
    ];
    for (answer, outcome, text) in cases {
        let registry = ToolRegistry::builder()
            .policy(coding_policy())
            .caller(FormAnswers(answer))
            .build();
        registry.register(ExecTool).unwrap();
        let result = registry.call(publish("c1")).await;
        assert_eq!(result.outcome, outcome, "{}", result.text());
        assert!(result.text().contains(text), "{}", result.text());
    }
}
