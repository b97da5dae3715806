//! Dispatch overhead: `ToolRegistry::call` of a small tool with a three-field argument
//! struct, from the JSON text a provider sends to the result — lookup, parsing,
//! validation, deserialization, the guarded call (timeout, cancellation, panic catching)
//! and output conversion — against `direct`, the same tool function called on arguments
//! deserialized with serde_json, which is the floor any framework starts from.
//!
//! `call_typed` is `call` of the same tool written with plain parameters
//! (`lookup(key: String, limit: u32, archived: bool)`): its calls take the direct path,
//! the JSON text deserialized straight into the argument struct `#[tool]` generates, with
//! no parsed value and no schema check (a user's struct, as in `call`, can carry schema
//! attributes its type does not enforce, so its calls are validated).
//!
//! `call_policy_50` is `call` on a registry with a 50-rule [`Policy`] (five rules about
//! this tool's arguments), which lets the call run.
//!
//! `call_policy_command_50` is a call of a tool whose one argument is a shell command
//! (`#[tool(kinds(command = command))]`), 200 bytes of seven commands joined by `&&`,
//! `|` and `;`, on a registry with a 50-rule policy about that argument: the script is
//! parsed and every command matched, and the eight allow rules let it run.
//!
//! `invalid_5` is a call with five argument errors, the message a model gets included,
//! against `jsonschema_5`: the `jsonschema` crate only collecting the same five errors.

use std::hint::black_box;

use agent_tools::{
    ToolCall, ToolRegistry,
    audit::{AuditEvent, AuditSink},
    policy::{Policy, PolicyMode},
    tool,
};
use criterion::{Criterion, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `lookup`.
#[derive(Deserialize, JsonSchema)]
struct LookupArgs {
    /// What to look up.
    key: String,
    /// How many results.
    limit: u32,
    /// Whether to include archived entries.
    archived: bool,
}

/// Look up a key.
#[tool(read_only)]
async fn lookup(args: LookupArgs) -> String {
    if args.archived {
        args.key
    } else {
        format!("{}:{}", args.key, args.limit)
    }
}

/// Look up a key: `lookup` with plain parameters, whose calls take the direct path (the
/// JSON text read straight into the generated argument struct, no parsed value, no schema
/// check), since the schema of such parameters says nothing their types do not.
#[tool(name = "lookup", read_only)]
async fn lookup_typed(
    /// What to look up.
    key: String,
    /// How many results.
    limit: u32,
    /// Whether to include archived entries.
    archived: bool,
) -> String {
    if archived { key } else { format!("{key}:{limit}") }
}

/// An audit sink that only counts, to measure building and redacting the event.
struct CountingSink(std::sync::atomic::AtomicU64);

impl AuditSink for CountingSink {
    fn record(&self, event: &AuditEvent) {
        black_box(event);
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

const ARGUMENTS: &str = r#"{"key": "user:42", "limit": 10, "archived": false}"#;

/// Arguments of `schedule`, five fields a model can get wrong.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct ScheduleArgs {
    /// The title.
    title: String,
    /// Minutes, 5 to 480.
    #[schemars(range(min = 5, max = 480))]
    minutes: u32,
    /// Who attends.
    attendees: Vec<String>,
    /// Send invitations.
    notify: bool,
    /// The room.
    room: Room,
}

/// A meeting room.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Room {
    Small,
    Large,
}

/// Schedule a meeting.
#[tool]
async fn schedule(args: ScheduleArgs) -> String {
    args.title
}

/// Run a shell command (only echoes it: the bench measures the policy, not a shell).
#[tool(destructive, kinds(command = command))]
async fn run(
    /// The command.
    command: String,
) -> String {
    command
}

/// Seven commands, 200 bytes, as a coding agent writes them.
const SCRIPT: &str = "git status --short && git diff --stat HEAD~3 -- src/ tests/ | head -n 40; \
                      cargo test --workspace --no-run 2>&1 | tail -n 5; \
                      ls -la target/debug/deps | wc -l && echo checked-and-done-now-and-all-good-x";

/// 50 rules about `run`'s command: 22 deny, 15 ask and 13 allow, eight of which match the
/// script's commands.
fn fifty_command_rules() -> Policy {
    let mut policy = Policy::builder().mode(PolicyMode::Default);
    for i in 0..22 {
        policy = policy.deny(format!("run(command: rm -rf /{i}*)"));
    }
    for i in 0..15 {
        policy = policy.ask(format!("run(command: curl https://{i}.test/*)"));
    }
    for i in 0..5 {
        policy = policy.allow(format!("run(command: make target{i}*)"));
    }
    for allowed in [
        "git status*",
        "git diff*",
        "head *",
        "cargo test*",
        "tail *",
        "ls*",
        "wc *",
        "echo *",
    ] {
        policy = policy.allow(format!("run(command: {allowed})"));
    }
    policy.build().expect("valid rules")
}

/// One error per field: wrong type, out of range, wrong item type, wrong type, not a
/// variant.
const FIVE_ERRORS: &str =
    r#"{"title": 7, "minutes": 1000, "attendees": ["ann", 3], "notify": "yes", "room": "huge"}"#;

/// A policy of 50 rules as a coding agent might have: most about other tools, five about
/// `lookup`'s arguments (one allows this call, after four that do not apply).
fn fifty_rules() -> Policy {
    let mut policy = Policy::builder().mode(PolicyMode::Default);
    for i in 0..15 {
        policy = policy
            .deny(format!("exec(command: rm -rf /{i}*)"))
            .ask(format!("github_{i}_*"))
            .allow(format!("write_file(path: src/{i}/**)"));
    }
    policy = policy
        .deny("lookup(key: secret:*)")
        .deny("lookup(key: admin:*)")
        .ask("lookup(key: billing:*)")
        .allow("lookup(key: team:*)")
        .allow("lookup(key: user:*)");
    policy.build().expect("valid rules")
}

fn dispatch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("dispatch");

    let registry = ToolRegistry::new();
    registry.register(LookupTool).expect("registers");
    group.bench_function("call", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = registry.call(ToolCall::new("call_1", "lookup", ARGUMENTS)).await;
            black_box(result)
        });
    });

    let typed = ToolRegistry::new();
    typed.register(LookupTypedTool).expect("registers");
    group.bench_function("call_typed", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = typed.call(ToolCall::new("call_1", "lookup", ARGUMENTS)).await;
            black_box(result)
        });
    });

    let audited = ToolRegistry::builder()
        .audit(CountingSink(std::sync::atomic::AtomicU64::new(0)))
        .build();
    audited.register(LookupTool).expect("registers");
    group.bench_function("call_audited", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = audited.call(ToolCall::new("call_1", "lookup", ARGUMENTS)).await;
            black_box(result)
        });
    });

    let governed = ToolRegistry::builder().policy(fifty_rules()).build();
    governed.register(LookupTool).expect("registers");
    let result = runtime.block_on(governed.call(ToolCall::new("call_1", "lookup", ARGUMENTS)));
    assert!(!result.is_error(), "the policy lets it run: {}", result.text());
    group.bench_function("call_policy_50", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = governed.call(ToolCall::new("call_1", "lookup", ARGUMENTS)).await;
            black_box(result)
        });
    });

    let commanded = ToolRegistry::builder().policy(fifty_command_rules()).build();
    commanded.register(RunTool).expect("registers");
    let arguments = serde_json::json!({ "command": SCRIPT }).to_string();
    assert_eq!(SCRIPT.len(), 200, "the script is 200 bytes");
    let result = runtime.block_on(commanded.call(ToolCall::new("call_1", "run", arguments.as_str())));
    assert!(!result.is_error(), "the policy lets it run: {}", result.text());
    group.bench_function("call_policy_command_50", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = commanded
                .call(ToolCall::new("call_1", "run", arguments.as_str()))
                .await;
            black_box(result)
        });
    });
    // The same tool and call without a policy: what the policy adds is the difference.
    let unruled = ToolRegistry::new();
    unruled.register(RunTool).expect("registers");
    group.bench_function("call_command", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = unruled
                .call(ToolCall::new("call_1", "run", arguments.as_str()))
                .await;
            black_box(result)
        });
    });

    group.bench_function("direct", |b| {
        b.to_async(&runtime).iter(|| async {
            let args: LookupArgs = serde_json::from_str(black_box(ARGUMENTS)).expect("valid");
            black_box(lookup(args).await)
        });
    });

    group.bench_function("call_invalid", |b| {
        b.to_async(&runtime).iter(|| async {
            let arguments = r#"{"key": 42, "limit": -1, "archive": true}"#;
            let result = registry.call(ToolCall::new("call_1", "lookup", arguments)).await;
            black_box(result)
        });
    });
    group.finish();
}

fn invalid(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let registry = ToolRegistry::new();
    registry.register(ScheduleTool).expect("registers");
    let result = runtime.block_on(registry.call(ToolCall::new("c", "schedule", FIVE_ERRORS)));
    assert_eq!(result.text().matches("\n- ").count(), 5, "{}", result.text());

    let schema = registry
        .get("schedule")
        .expect("registered")
        .spec()
        .input_schema
        .clone();
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let instance: serde_json::Value = serde_json::from_str(FIVE_ERRORS).expect("JSON");
    assert_eq!(validator.iter_errors(&instance).count(), 5);

    let mut group = c.benchmark_group("validation");
    group.bench_function("invalid_5", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = registry
                .call(ToolCall::new("call_1", "schedule", FIVE_ERRORS))
                .await;
            black_box(result)
        });
    });
    group.bench_function("jsonschema_5", |b| {
        b.iter(|| {
            let instance: serde_json::Value = serde_json::from_str(black_box(FIVE_ERRORS)).expect("JSON");
            black_box(validator.iter_errors(&instance).count())
        });
    });
    group.finish();
}

criterion_group!(benches, dispatch, invalid);
criterion_main!(benches);
