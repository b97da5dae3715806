//! Hooks around every call, through the facade: before the tool (refuse, rewrite, answer,
//! allow without asking) and after it (change the output), in the order they were added,
//! with the policy deciding after the hooks.

use std::sync::{Arc, Mutex};

use agent_tools::{
    ToolCall, ToolOutput, ToolRegistry,
    audit::Outcome,
    hooks::{BeforeCall, Hook, HookCall},
    policy::Policy,
    registry::ToolRegistryBuilder,
    tool,
    tool::BoxFuture,
};
use serde_json::{Value, json};

/// Run a shell command.
#[tool(destructive)]
async fn exec(
    /// The command.
    command: String,
) -> Result<String, agent_tools::ToolError> {
    if command == "fail" {
        return Err(agent_tools::ToolError::new("it failed with token=abc123"));
    }
    Ok(format!("ran {command} token=abc123"))
}

/// A hook that answers every call with `before`, records what it saw, and appends
/// `mark` to outputs.
struct Scripted {
    before: Box<dyn Fn(&Value) -> BeforeCall + Send + Sync>,
    seen: Arc<Mutex<Vec<Value>>>,
    mark: &'static str,
}

impl Hook for Scripted {
    fn before_call<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, BeforeCall> {
        self.seen.lock().unwrap().push(call.arguments.clone());
        let answer = (self.before)(call.arguments);
        Box::pin(async move { answer })
    }

    fn after_call<'a>(
        &'a self,
        _call: &'a HookCall<'a>,
        _outcome: Outcome,
        output: ToolOutput,
    ) -> BoxFuture<'a, ToolOutput> {
        let text = format!("{}{}", output.text_content(), self.mark);
        Box::pin(async move {
            ToolOutput {
                content: vec![agent_tools::output::Content::text(text)],
                ..output
            }
        })
    }
}

fn hook(
    mark: &'static str,
    before: impl Fn(&Value) -> BeforeCall + Send + Sync + 'static,
) -> (Scripted, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let hook = Scripted {
        before: Box::new(before),
        seen: seen.clone(),
        mark,
    };
    (hook, seen)
}

fn build(builder: ToolRegistryBuilder) -> ToolRegistry {
    let registry = builder.build();
    registry.register(ExecTool).unwrap();
    registry
}

fn exec_call(command: &str) -> ToolCall {
    ToolCall::new("c1", "exec", json!({"command": command}))
}

/// Redacts `token=…` from every output: what an after hook is for.
struct Redact;

impl Hook for Redact {
    fn after_call<'a>(
        &'a self,
        _call: &'a HookCall<'a>,
        _outcome: Outcome,
        output: ToolOutput,
    ) -> BoxFuture<'a, ToolOutput> {
        let text = output.text_content().replace("abc123", "[redacted]");
        Box::pin(async move {
            ToolOutput {
                content: vec![agent_tools::output::Content::text(text)],
                ..output
            }
        })
    }
}

#[tokio::test]
async fn hooks_run_in_order_before_and_after_the_tool() {
    let (first, first_saw) = hook(" [1]", |arguments| {
        if arguments["command"] == "ls" {
            BeforeCall::Rewrite(json!({"command": "ls -la"}))
        } else {
            BeforeCall::Continue
        }
    });
    let (second, second_saw) = hook(" [2]", |_| BeforeCall::Continue);
    let registry = build(ToolRegistry::builder().hook(first).hook(second).hook(Redact));
    let result = registry.call(exec_call("ls")).await;
    assert_eq!(result.outcome, Outcome::Ok);
    assert_eq!(result.text(), "ran ls -la token=[redacted] [1] [2]");
    assert_eq!(first_saw.lock().unwrap()[0], json!({"command": "ls"}));
    assert_eq!(
        second_saw.lock().unwrap()[0],
        json!({"command": "ls -la"}),
        "the rewrite"
    );

    // After hooks see error results of tools that ran, too.
    let failed = registry.call(exec_call("fail")).await;
    assert_eq!(failed.outcome, Outcome::Error);
    assert_eq!(failed.text(), "it failed with token=[redacted] [1] [2]");
}

#[tokio::test]
async fn a_hook_refuses_or_answers_and_the_tool_does_not_run() {
    let (deny, _) = hook("", |arguments| match arguments["command"].as_str() {
        Some("deploy") => BeforeCall::Deny("deploys go through CI".into()),
        Some("whoami") => BeforeCall::Answer(ToolOutput::text("agent")),
        _ => BeforeCall::Continue,
    });
    let (later, later_saw) = hook(" [after]", |_| BeforeCall::Continue);
    let registry = build(ToolRegistry::builder().hook(deny).hook(later));
    let refused = registry.call(exec_call("deploy")).await;
    assert_eq!(refused.outcome, Outcome::Denied);
    assert_eq!(
        refused.text(),
        "deploys go through CI",
        "no after hook on a refusal"
    );
    let answered = registry.call(exec_call("whoami")).await;
    assert_eq!(answered.outcome, Outcome::Ok);
    assert_eq!(answered.text(), "agent", "the tool did not run");
    assert!(
        later_saw.lock().unwrap().is_empty(),
        "the first refusal or answer ends the call"
    );
}

#[tokio::test]
async fn rewrites_are_validated_and_the_policy_decides_after_the_hooks() {
    let (rewrite, _) = hook("", |arguments| match arguments["command"].as_str() {
        Some("bad") => BeforeCall::Rewrite(json!({"command": 42})),
        Some("sneaky") => BeforeCall::Rewrite(json!({"command": "rm -rf ~"})),
        Some("trusted") => BeforeCall::Allow,
        _ => BeforeCall::Continue,
    });
    let policy = Policy::builder().deny("exec(command: rm *)").build().unwrap();
    let registry = build(ToolRegistry::builder().policy(policy).hook(rewrite));
    let invalid = registry.call(exec_call("bad")).await;
    assert_eq!(invalid.outcome, Outcome::InvalidArguments);
    assert!(
        invalid.text().contains("rewritten by a hook"),
        "{}",
        invalid.text()
    );
    let denied = registry.call(exec_call("sneaky")).await;
    assert_eq!(denied.outcome, Outcome::Denied, "{}", denied.text());
    // `exec` is destructive: default mode asks, and no one can be asked ...
    assert_eq!(registry.call(exec_call("ls")).await.outcome, Outcome::Denied);
    // ... unless a hook allows it.
    let allowed = registry.call(exec_call("trusted")).await;
    assert_eq!(allowed.outcome, Outcome::Ok, "{}", allowed.text());
}
