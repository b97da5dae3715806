//! Deferred approval: a call the policy asks about ends pending, is kept as JSON, and is
//! decided later with `ToolRegistry::resume` — in the same process, or in a new process
//! after `ToolRegistry::restore`. And previews: what an approver is shown of a call.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use agent_tools::{
    ToolCall, ToolError, ToolRegistry,
    approval::{Approval, ApprovalRequest, ApproveLater, Approver, PendingCall, ResumeError},
    audit::{JsonlAudit, MemoryAudit, Outcome},
    policy::Policy,
    tool,
    tool::BoxFuture,
};
use serde_json::json;

/// Where `deploy` leaves its marks.
struct Site(PathBuf);

/// Deploy a service: leaves a file named after it in the site directory.
#[tool(destructive, preview = preview_deploy)]
fn deploy(
    site: &Site,
    /// The service to deploy.
    service: String,
) -> Result<String, ToolError> {
    std::fs::write(site.0.join(&service), "deployed").map_err(ToolError::new)?;
    Ok(format!("deployed {service}"))
}

fn preview_deploy(site: &Site, args: &DeployArgs) -> Option<String> {
    let target = site.0.join(&args.service);
    Some(if target.exists() {
        format!("replaces the running {}", args.service)
    } else {
        format!("starts {} for the first time", args.service)
    })
}

fn policy() -> Policy {
    Policy::builder()
        .ask("deploy")
        .deny("deploy(service: billing*)")
        .build()
        .unwrap()
}

fn deferring_registry(site: &Path, audit: MemoryAudit) -> ToolRegistry {
    let registry = ToolRegistry::builder()
        .policy(policy())
        .approver(ApproveLater)
        .audit(audit)
        .build();
    registry.register(DeployTool::new(Site(site.to_owned()))).unwrap();
    registry
}

fn deploy_call(id: &str, service: &str) -> ToolCall {
    ToolCall::new(id, "deploy", json!({ "service": service })).with_session_id("chat-1")
}

fn outcomes(audit: &MemoryAudit) -> Vec<Outcome> {
    audit.events().iter().map(|event| event.outcome).collect()
}

#[tokio::test]
async fn a_deferred_call_waits_and_runs_once_when_allowed() {
    let site = tempfile::tempdir().unwrap();
    let audit = MemoryAudit::new();
    let registry = deferring_registry(site.path(), audit.clone());

    let waiting = registry.call(deploy_call("call_1", "web")).await;
    assert_eq!(waiting.outcome, Outcome::Pending);
    assert!(!waiting.is_error(), "waiting is not failing");
    assert!(
        waiting.text().contains("waiting for a person's approval"),
        "{}",
        waiting.text()
    );
    let pending = waiting.pending().expect("a pending call").clone();
    assert_eq!(
        (
            pending.call_id.as_str(),
            pending.tool.as_str(),
            pending.session_id.as_deref()
        ),
        ("call_1", "deploy", Some("chat-1"))
    );
    assert_eq!(pending.preview.as_deref(), Some("starts web for the first time"));
    assert!(
        pending.reason.contains("the ask rule `deploy`"),
        "{}",
        pending.reason
    );
    assert!(!site.path().join("web").exists(), "nothing ran");
    assert_eq!(registry.pending_calls(), std::slice::from_ref(&pending));

    let result = registry.resume(&pending.id, Approval::AllowOnce).await.unwrap();
    assert_eq!(
        (result.outcome, result.text()),
        (Outcome::Ok, "deployed web".to_owned())
    );
    assert_eq!(result.call_id, "call_1");
    assert!(site.path().join("web").exists());
    assert_eq!(outcomes(&audit), [Outcome::Pending, Outcome::Ok]);
    assert_eq!(audit.events()[1].session_id.as_deref(), Some("chat-1"));

    // Each pending call is decided once.
    let again = registry.resume(&pending.id, Approval::AllowOnce).await;
    assert_eq!(
        again.unwrap_err(),
        ResumeError::UnknownId {
            id: pending.id.clone()
        }
    );
    assert!(registry.pending_calls().is_empty());
}

#[tokio::test]
async fn a_resumed_call_can_be_denied_edited_or_deferred_again() {
    let site = tempfile::tempdir().unwrap();
    let audit = MemoryAudit::new();
    let registry = deferring_registry(site.path(), audit.clone());
    let defer = |id: &'static str| {
        let registry = registry.clone();
        async move {
            let result = registry.call(deploy_call(id, "web")).await;
            result.pending().expect("pending").id.clone()
        }
    };

    let id = defer("c1").await;
    let denied = registry
        .resume(&id, Approval::Deny(Some("freeze until Monday".into())))
        .await
        .unwrap();
    assert_eq!(denied.outcome, Outcome::Denied);
    assert!(denied.text().contains("freeze until Monday"), "{}", denied.text());

    let id = defer("c2").await;
    let again = registry.resume(&id, Approval::Defer).await.unwrap();
    assert_eq!(again.outcome, Outcome::Pending);
    assert_eq!(
        again.pending().map(|pending| pending.id.as_str()),
        Some(id.as_str())
    );
    assert_eq!(registry.pending_calls().len(), 1, "kept under the same id");

    let edited = registry
        .resume(&id, Approval::AllowEdited(json!({"service": "web-canary"})))
        .await
        .unwrap();
    assert_eq!(edited.text(), "deployed web-canary");
    assert!(!site.path().join("web").exists());

    let id = defer("c3").await;
    let invalid = registry
        .resume(&id, Approval::AllowEdited(json!({"service": 5})))
        .await
        .unwrap();
    assert_eq!(invalid.outcome, Outcome::InvalidArguments, "{}", invalid.text());
    let id = defer("c4").await;
    let refused = registry
        .resume(&id, Approval::AllowEdited(json!({"service": "billing"})))
        .await
        .unwrap();
    assert_eq!(
        refused.outcome,
        Outcome::Denied,
        "an edit still meets the deny rules"
    );
    assert!(!site.path().join("billing").exists());
}

#[tokio::test]
async fn a_stored_call_cannot_run_what_the_policy_or_schema_refuses() {
    let site = tempfile::tempdir().unwrap();
    let registry = deferring_registry(site.path(), MemoryAudit::new());
    let waiting = registry.call(deploy_call("c1", "web")).await;
    let mut stored = serde_json::to_value(waiting.pending().unwrap()).unwrap();
    let restore = |changed: serde_json::Value| {
        let call: PendingCall = serde_json::from_value(changed).unwrap();
        let id = call.id.clone();
        registry.restore(call);
        id
    };

    // Changed where it was stored: the deny rules and the schema still hold.
    stored["arguments"] = json!({"service": "billing-eu"});
    let id = restore(stored.clone());
    let result = registry.resume(&id, Approval::AllowOnce).await.unwrap();
    assert_eq!(result.outcome, Outcome::Denied, "{}", result.text());
    stored["arguments"] = json!({"service": "web", "force": true});
    let id = restore(stored.clone());
    let result = registry.resume(&id, Approval::AllowOnce).await.unwrap();
    assert_eq!(result.outcome, Outcome::InvalidArguments, "{}", result.text());
    stored["tool"] = json!("drop_database");
    let id = restore(stored);
    let result = registry.resume(&id, Approval::AllowOnce).await.unwrap();
    assert_eq!(result.outcome, Outcome::UnknownTool, "{}", result.text());
    assert_eq!(std::fs::read_dir(site.path()).unwrap().count(), 0, "nothing ran");
}

/// The environment variable that makes `resumes_in_a_new_process` the child's half.
const CHILD: &str = "AGENT_TOOLS_TEST_RESUME_CHILD";

#[tokio::test]
async fn a_call_deferred_in_one_process_is_resumed_in_another() {
    if let Ok(dir) = std::env::var(CHILD) {
        return resume_as_child(Path::new(&dir)).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir(&site).unwrap();
    let audit_log = dir.path().join("audit.jsonl");
    let registry = process_registry(&site, &audit_log);
    let waiting = registry.call(deploy_call("call_9", "api")).await;
    assert_eq!(waiting.outcome, Outcome::Pending);
    let stored = serde_json::to_string(waiting.pending().unwrap()).unwrap();
    std::fs::write(dir.path().join("pending.json"), stored).unwrap();
    drop(registry);

    // The same test, run again as a new process that sees only what was stored.
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "approval_later::a_call_deferred_in_one_process_is_resumed_in_another",
            "--nocapture",
        ])
        .env(CHILD, dir.path())
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
    assert!(printed.contains("RESUMED: deployed api"), "{printed}");
    assert_eq!(std::fs::read_to_string(site.join("api")).unwrap(), "deployed");
    let audit = std::fs::read_to_string(&audit_log).unwrap();
    let events: Vec<serde_json::Value> = audit
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let seen: Vec<(&str, &str)> = events
        .iter()
        .map(|event| {
            (
                event["call_id"].as_str().unwrap(),
                event["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, [("call_9", "pending"), ("call_9", "ok")]);
}

/// A registry as each process builds it: the same tools, policy and audit log.
fn process_registry(site: &Path, audit_log: &Path) -> ToolRegistry {
    let registry = ToolRegistry::builder()
        .policy(policy())
        .approver(ApproveLater)
        .audit(JsonlAudit::open(audit_log).unwrap())
        .build();
    registry.register(DeployTool::new(Site(site.to_owned()))).unwrap();
    registry
}

async fn resume_as_child(dir: &Path) {
    let registry = process_registry(&dir.join("site"), &dir.join("audit.jsonl"));
    let stored = std::fs::read_to_string(dir.join("pending.json")).unwrap();
    let pending: PendingCall = serde_json::from_str(&stored).unwrap();
    let id = pending.id.clone();
    assert_eq!(
        registry.resume(&id, Approval::AllowOnce).await.unwrap_err(),
        ResumeError::UnknownId { id: id.clone() },
        "a new process knows only what it is given"
    );
    registry.restore(pending);
    let result = registry.resume(&id, Approval::AllowOnce).await.unwrap();
    println!("RESUMED: {}", result.text());
}

/// Keeps every request it is asked, and allows.
#[derive(Clone, Default)]
struct Recording(Arc<Mutex<Vec<ApprovalRequest>>>);

impl Approver for Recording {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Approval> {
        self.0.lock().unwrap().push(request.clone());
        Box::pin(async { Approval::AllowOnce })
    }
}

/// Format the disk (whose preview panics).
#[tool(destructive, preview = broken_preview)]
fn format_disk() -> String {
    "formatted".to_owned()
}

fn broken_preview(_args: &FormatDiskArgs) -> Option<String> {
    panic!("the preview is broken")
}

/// `deploy` over a site where `web` already runs, in a registry under `policy` whose
/// approver records what it is asked and allows it.
fn asking_registry(policy: Policy) -> (tempfile::TempDir, Recording, ToolRegistry) {
    let site = tempfile::tempdir().unwrap();
    std::fs::write(site.path().join("web"), "old").unwrap();
    let approver = Recording::default();
    let registry = ToolRegistry::builder()
        .policy(policy)
        .approver(approver.clone())
        .build();
    registry
        .register(DeployTool::new(Site(site.path().to_owned())))
        .unwrap();
    (site, approver, registry)
}

#[tokio::test]
async fn an_approver_sees_the_tools_preview_and_a_broken_preview_breaks_nothing() {
    let (_site, approver, registry) = asking_registry(policy());
    registry.register(FormatDiskTool).unwrap();

    let result = registry.call(deploy_call("c1", "web")).await;
    assert_eq!(result.text(), "deployed web");
    let formatted = registry.call(ToolCall::new("c2", "format_disk", "{}")).await;
    assert_eq!(formatted.text(), "formatted", "the call goes on");

    let requests = approver.0.lock().unwrap().clone();
    assert_eq!(requests[0].preview.as_deref(), Some("replaces the running web"));
    assert!(
        requests[0]
            .question()
            .contains("\nWhat it would do:\n  │ replaces the running web\n"),
        "{}",
        requests[0].question()
    );
    let broken = requests[1].preview.as_deref().unwrap_or_default();
    assert!(broken.contains("the preview is broken"), "{broken}");
}

#[tokio::test]
async fn a_prefixed_tool_keeps_its_preview() {
    let (_site, approver, tools) = asking_registry(Policy::builder().ask("ops_deploy").build().unwrap());
    let prefixed = tools.with_prefix("ops_").unwrap();

    let result = prefixed
        .call(ToolCall::new("c1", "ops_deploy", json!({"service": "web"})))
        .await;
    assert_eq!(result.text(), "deployed web");
    let requests = approver.0.lock().unwrap().clone();
    assert_eq!(requests[0].tool, "ops_deploy");
    assert_eq!(requests[0].preview.as_deref(), Some("replaces the running web"));
}
