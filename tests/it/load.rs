//! The registry under load (issue 8): ten thousand calls of the built-in file and memory
//! tools and two custom tools through `call_all_with_limit` at a concurrency of 256, with
//! a JSONL audit log; and tools registered, removed and replaced while a thousand calls
//! are in flight.
//!
//! Bounded: each test finishes in seconds on two loaded cores, and asserts nothing about
//! timing except that it ends.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agent_tools::builtins::{self, BuiltinConfig};
use agent_tools::{
    Tool, ToolCall, ToolContext, ToolError, ToolRegistry,
    audit::{AuditEvent, JsonlAudit, Outcome},
    tool,
    tool::DynamicTool,
};
use serde_json::{Value, json};

use rng::Rng;
use test_support::rng;

/// Calls in all, of which the first `WARM_UP` are not counted for memory growth.
const CALLS: usize = 10_000;
const WARM_UP: usize = 2_000;
const BATCH: usize = 1_000;
const CONCURRENCY: usize = 256;

/// Resident set growth allowed between the end of the warm-up and the end of the run.
///
/// What legitimately grows after the warm-up: glibc's malloc arenas (up to 8 per core,
/// each keeping freed memory for reuse, fragmented by 256 overlapping calls),
/// blocking-pool threads started when more blocking calls overlap than before (stack
/// pages they touched), `file_search`'s parallel walks (one thread per core per search,
/// with grep buffers), and the SQLite page caches of the memory store's five connections
/// (at most 2 MiB each) as its table grows. Measured on the 2-core machine: 20–32 MiB
/// over these 8,000 calls, growing more slowly batch after batch (a plateau: 30,000
/// calls add only ~15 MiB more). So the limit has 2× slack for scheduling noise and
/// catches a leak of about 4 KiB or more per call (8,000 × 4 KiB = 32 MiB on top), such
/// as keeping each call's result, arguments or context; it cannot see a small one.
const RSS_GROWTH_LIMIT: u64 = 64 * 1024 * 1024;

/// Add two integers.
#[tool(read_only)]
async fn add(
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
) -> String {
    tokio::task::yield_now().await;
    (a + b).to_string()
}

/// Upper-case a text (a plain `fn`: runs on the blocking pool).
#[tool(read_only)]
fn shout(
    /// The text.
    text: String,
) -> String {
    text.to_uppercase()
}

/// Resident set size of this process, from `/proc/self/statm` (pages × page size).
fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * u64::try_from(rustix::param::page_size()).unwrap()
}

/// A workspace with files to read, list, search and edit.
fn populate(root: &Path) {
    for i in 0..20 {
        let mut text = String::new();
        for line in 0..50 {
            text.push_str(&format!("file {i} line {line}\n"));
        }
        if i % 4 == 0 {
            text.push_str("a needle in the haystack\n");
        }
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join(format!("docs/file-{i}.txt")), text).unwrap();
    }
    std::fs::create_dir_all(root.join("edit")).unwrap();
    for i in 0..40 {
        std::fs::write(root.join(format!("edit/e-{i}.txt")), "first\nsecond\nthird\n").unwrap();
    }
}

/// Whether a result's text is right.
type Check = Box<dyn Fn(&str) -> bool + Send>;

/// The call number `i`, and a check of its result.
fn load_call(i: usize) -> (ToolCall, Check) {
    let id = format!("load-{i}");
    let slot = i % 100;
    let (name, arguments, check): (&str, Value, Check) = match slot {
        0..20 => {
            let (a, b) = (i as i64, 7 * i as i64);
            let expected = (a + b).to_string();
            (
                "add",
                json!({"a": a, "b": b}),
                Box::new(move |text| text == expected),
            )
        }
        20..35 => {
            let text = format!("call {i} ").repeat(1024)[..4096].to_owned();
            let expected = text.to_uppercase();
            (
                "shout",
                json!({"text": text}),
                Box::new(move |out| out == expected),
            )
        }
        35..55 => {
            let n = i % 20;
            let path = format!("docs/file-{n}.txt");
            let expected = format!("file {n} line 49");
            (
                "read_file",
                json!({"path": path}),
                Box::new(move |out| out.contains(&expected)),
            )
        }
        55..65 => (
            "list_dir",
            json!({"path": "docs"}),
            Box::new(|out| out.contains("file-19.txt")),
        ),
        65..70 => (
            "file_search",
            json!({"pattern": "needle", "path": "docs", "literal": true}),
            Box::new(|out| out.contains("file-0.txt") && out.contains("file-16.txt")),
        ),
        70..75 => (
            "write_file",
            json!({"path": format!("out/w-{}.txt", i % 40), "content": format!("write {i}\n")}),
            Box::new(|out| out.contains("out/w-")),
        ),
        75..80 => (
            "edit_file",
            json!({"path": format!("edit/e-{}.txt", i % 40), "start_line": 2, "new_text": format!("edit {i}")}),
            Box::new(|out| out.contains("edit/e-")),
        ),
        80..85 => (
            "memory_write",
            json!({"content": format!("memory {i} about topic{}", i % 10), "tags": ["load"]}),
            Box::new(|out| out.starts_with("Saved memory #")),
        ),
        85..95 => (
            "memory_search",
            json!({"query": format!("topic{}", i % 10), "limit": 5}),
            Box::new(|out| out.contains("topic")),
        ),
        _ => (
            "memory_read",
            json!({"recent": 3}),
            Box::new(|out| out.contains("memor")),
        ),
    };
    (ToolCall::new(id, name, arguments), check)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_calls_at_256_concurrency_audit_every_call_once_in_flat_memory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    populate(&root);
    let audit_path = dir.path().join("audit.jsonl");
    let registry = ToolRegistry::builder()
        .default_timeout(Duration::from_secs(120))
        .audit(JsonlAudit::open(&audit_path).unwrap())
        .build();
    let mut config = BuiltinConfig::default();
    config.memory.path = Some(dir.path().join("memory.db"));
    let names = builtins::register_all(&registry, Some(root.clone()), &config).unwrap();
    for expected in [
        "read_file",
        "write_file",
        "edit_file",
        "list_dir",
        "file_search",
        "memory_write",
    ] {
        assert!(
            names.iter().any(|name| name == expected),
            "{expected} not in {names:?}"
        );
    }
    registry.register(AddTool).unwrap();
    registry.register(ShoutTool).unwrap();
    // Memories for the first searches and reads to find (not audited as load calls).
    for topic in 0..10 {
        let seed = ToolCall::new(
            format!("seed-{topic}"),
            "memory_write",
            json!({"content": format!("seed memory about topic{topic}")}),
        );
        assert!(!registry.call(seed).await.is_error());
    }

    let started = Instant::now();
    let mut rss_after_warm_up = 0;
    let mut rss_samples = Vec::new();
    for batch_start in (0..CALLS).step_by(BATCH) {
        let (calls, checks): (Vec<_>, Vec<_>) = (batch_start..batch_start + BATCH).map(load_call).unzip();
        let results = registry.call_all_with_limit(calls, CONCURRENCY).await;
        assert_eq!(results.len(), BATCH);
        for (offset, (result, check)) in results.iter().zip(&checks).enumerate() {
            let i = batch_start + offset;
            assert_eq!(result.call_id, format!("load-{i}"));
            assert_eq!(
                result.outcome,
                Outcome::Ok,
                "call {i} ({}): {}",
                result.name,
                result.text()
            );
            assert!(
                check(&result.text()),
                "call {i} ({}) returned {:?}",
                result.name,
                result.text()
            );
        }
        drop(results);
        let rss = rss_bytes();
        rss_samples.push(rss / 1024);
        if batch_start + BATCH == WARM_UP {
            rss_after_warm_up = rss;
        }
    }
    let elapsed = started.elapsed();
    let rss_at_end = rss_bytes();
    eprintln!(
        "{CALLS} calls in {elapsed:?}; RSS after each batch (KiB): {rss_samples:?}; growth after warm-up: {} KiB",
        rss_at_end.saturating_sub(rss_after_warm_up) / 1024
    );
    assert!(
        rss_at_end.saturating_sub(rss_after_warm_up) < RSS_GROWTH_LIMIT,
        "RSS grew from {} KiB to {} KiB after the warm-up (samples {rss_samples:?})",
        rss_after_warm_up / 1024,
        rss_at_end / 1024
    );

    // Exactly one whole JSON line per call, matched by call id.
    let log = std::fs::read_to_string(&audit_path).unwrap();
    assert!(log.ends_with('\n'));
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (number, line) in log.lines().enumerate() {
        let event: AuditEvent = serde_json::from_str(line).unwrap_or_else(|error| {
            panic!(
                "audit line {} is not one event ({error}): {line:.200}",
                number + 1
            )
        });
        if event.call_id.starts_with("seed-") {
            continue;
        }
        assert_eq!(event.outcome, Outcome::Ok, "{line:.300}");
        *seen.entry(event.call_id).or_default() += 1;
    }
    let expected: HashSet<String> = (0..CALLS).map(|i| format!("load-{i}")).collect();
    let repeated: Vec<_> = seen.iter().filter(|(_, count)| **count != 1).collect();
    assert!(
        repeated.is_empty(),
        "call ids audited more than once: {repeated:?}"
    );
    let audited: HashSet<String> = seen.into_keys().collect();
    let missing: Vec<_> = expected.difference(&audited).take(10).collect();
    let unexpected: Vec<_> = audited.difference(&expected).take(10).collect();
    assert!(
        missing.is_empty() && unexpected.is_empty(),
        "missing {missing:?}, unexpected {unexpected:?}"
    );
    assert_eq!(log.lines().count(), CALLS + 10);
}

/// The tools that come and go.
const CHURNED: [&str; 6] = ["t0", "t1", "t2", "t3", "t4", "t5"];

/// A tool that names itself and its generation in its output, after yielding a few
/// times so that the table changes while it runs.
fn named_tool(name: &str, generation: usize) -> Arc<dyn Tool> {
    let label = format!("{name}@{generation}");
    Arc::new(DynamicTool::new(
        name,
        "Say who you are.",
        json!({"type": "object", "properties": {"hold": {"type": "integer"}}}),
        move |args: Value, _ctx: ToolContext| {
            let label = label.clone();
            async move {
                for _ in 0..args["hold"].as_u64().unwrap_or(0) {
                    tokio::task::yield_now().await;
                }
                Ok::<_, ToolError>(label)
            }
        },
    ))
}

/// One random change of the table: remove, add, or replace tools.
fn churn_once(registry: &ToolRegistry, rng: &mut Rng, generation: &AtomicUsize) {
    let name = CHURNED[rng.below(CHURNED.len() as u64) as usize];
    let generation = generation.fetch_add(1, Ordering::Relaxed);
    match rng.below(3) {
        0 => {
            registry.unregister(name);
        }
        // Fails when the name is taken; that is part of the churn.
        1 => {
            let _ = registry.register_shared(named_tool(name, generation));
        }
        _ => {
            let other = CHURNED[rng.below(CHURNED.len() as u64) as usize];
            let mut add = vec![named_tool(name, generation)];
            if other != name {
                add.push(named_tool(other, generation));
            }
            registry.replace_tools(&[name, other], add).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_come_and_go_while_a_thousand_calls_are_in_flight() {
    const CALLS: usize = 1_000;
    let registry = ToolRegistry::builder()
        .default_timeout(Duration::from_secs(60))
        .build();
    registry.register_shared(named_tool("stable", 0)).unwrap();
    for name in CHURNED {
        registry.register_shared(named_tool(name, 0)).unwrap();
    }
    let generation = Arc::new(AtomicUsize::new(1));
    let done = Arc::new(AtomicBool::new(false));

    // Churn on its own task (another worker thread) until every call has returned.
    let churn = {
        let registry = registry.clone();
        let generation = generation.clone();
        let done = done.clone();
        tokio::spawn(async move {
            let mut rng = Rng(0x5EED_0001);
            let mut changes = 0usize;
            while !done.load(Ordering::Acquire) {
                churn_once(&registry, &mut rng, &generation);
                changes += 1;
                tokio::task::yield_now().await;
            }
            changes
        })
    };

    // A thousand calls at once, each starting after a random number of yields (so the
    // lookups are spread over the churn) and holding for a few more inside the tool.
    let mut rng = Rng(0x5EED_0002);
    let tasks: Vec<_> = (0..CALLS)
        .map(|i| {
            let name = if i % 10 == 0 {
                "stable"
            } else {
                CHURNED[rng.below(CHURNED.len() as u64) as usize]
            };
            let delay = rng.below(40);
            let hold = rng.below(20);
            let registry = registry.clone();
            let generation = generation.clone();
            let mut local = Rng(i as u64);
            tokio::spawn(async move {
                for _ in 0..delay {
                    tokio::task::yield_now().await;
                }
                // Every tenth call also changes the table itself, right before its call.
                if i % 10 == 5 {
                    churn_once(&registry, &mut local, &generation);
                }
                let call = ToolCall::new(format!("c{i}"), name, json!({"hold": hold}));
                (name, registry.call(call).await)
            })
        })
        .collect();
    let mut ran = 0;
    let mut unknown = 0;
    for task in tasks {
        let (name, result) = task.await.expect("no call panics");
        assert_eq!(result.name, name);
        match result.outcome {
            Outcome::Ok => {
                let text = result.text();
                let (ran_as, _generation) = text.split_once('@').unwrap();
                assert_eq!(ran_as, name, "call of `{name}` ran `{text}`");
                ran += 1;
            }
            Outcome::UnknownTool => {
                let text = result.text();
                assert!(text.starts_with(&format!("unknown tool `{name}`.")), "{text}");
                assert_ne!(name, "stable");
                unknown += 1;
            }
            other => panic!("call of `{name}` ended {other:?}: {}", result.text()),
        }
    }
    done.store(true, Ordering::Release);
    let changes = churn.await.expect("the churn does not panic");
    eprintln!("{ran} calls ran, {unknown} found their tool gone; {changes} changes by the churn task");
    assert_eq!(ran + unknown, CALLS);
    assert!(ran >= CALLS / 10, "the stable tool always runs");
    assert!(unknown > 0, "some calls should have found their tool removed");

    // The registry is consistent afterwards: every name once, each callable.
    let names = registry.names();
    let distinct: HashSet<_> = names.iter().collect();
    assert_eq!(distinct.len(), names.len(), "{names:?}");
    for name in &names {
        let result = registry.call(ToolCall::new("after", name.as_str(), "{}")).await;
        assert_eq!(result.outcome, Outcome::Ok, "{name}: {}", result.text());
        assert!(result.text().starts_with(&format!("{name}@")));
    }
}
