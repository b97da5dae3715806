//! Faults (issue 8): tools that panic, hang or flood; a full disk under `write_file`,
//! `memory_write` and the audit log; and the `agent-tools` binary killed in the middle of
//! `write_file`, `edit_file` and `memory_write`.
//!
//! The disk is "full" through `RLIMIT_FSIZE`, set in the child before it runs the binary,
//! with `SIGXFSZ` ignored so that a write past the limit fails with `EFBIG` (no root, no
//! tmpfs), or through `/dev/full` (`ENOSPC`) for the in-process audit log. Every test is
//! bounded in time and count; the kill tests print how long they took.

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_tools::builtins::{self, BuiltinConfig};
use agent_tools::{
    ToolCall, ToolRegistry,
    audit::{AuditEvent, JsonlAudit, MemoryAudit, Outcome},
    tool,
};
use serde_json::json;

use rng::Rng;
use test_support::rng;

// ---------------------------------------------------------------------------------------
// Chaos tools
// ---------------------------------------------------------------------------------------

/// Size of a "huge" output.
const HUGE: usize = 1024 * 1024;

/// The chaos registry's output limit; a huge output is cut down to it.
const OUTPUT_LIMIT: usize = 64 * 1024;

/// Room for the note that says what was cut.
const NOTE: usize = 200;
/// The timeout of calls that hang.
const HANG_TIMEOUT: Duration = Duration::from_millis(300);
/// How long the blocking chaos tool "hangs" (it holds a blocking-pool thread, so it ends;
/// the call ends at its timeout long before).
const BLOCKING_HANG: Duration = Duration::from_millis(1500);

/// What both chaos tools do for the modes that do not wait: `None` for `hang` and
/// `spin`, which each does its own way.
fn misbehave(mode: &str, n: u64) -> Option<Result<String, String>> {
    match mode {
        "ok" => Some(Ok(format!("ok {n}"))),
        "error" => Some(Err(format!("failed on purpose {n}"))),
        "panic" => panic!("chaos panic {n}"),
        "huge" => Some(Ok("x".repeat(HUGE))),
        "hang" | "spin" => None,
        other => Some(Err(format!("unknown mode {other}"))),
    }
}

/// Misbehave as told: `ok`, `error`, `panic`, `hang`, `spin` or `huge`.
#[tool]
async fn chaos(
    /// What to do.
    mode: String,
    /// The call's number, echoed.
    n: u64,
) -> Result<String, String> {
    if let Some(result) = misbehave(&mode, n) {
        return result;
    }
    match mode.as_str() {
        "hang" => std::future::pending().await,
        _ => loop {
            tokio::task::yield_now().await;
        },
    }
}

/// The same on the blocking pool (a plain `fn`); `hang` and `spin` sleep for a while.
#[tool]
fn chaos_blocking(
    /// What to do.
    mode: String,
    /// The call's number, echoed.
    n: u64,
) -> Result<String, String> {
    misbehave(&mode, n).unwrap_or_else(|| {
        std::thread::sleep(BLOCKING_HANG);
        Ok("woke up too late".to_owned())
    })
}

/// Keeps the chaos tools' panics (contained by the registry, and expected) out of the
/// test output; every other panic is printed as usual.
fn quiet_chaos_panics() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info.payload().downcast_ref::<String>().map(String::as_str);
            if !message.is_some_and(|message| message.starts_with("chaos panic ")) {
                default(info);
            }
        }));
    });
}

const MODES: [&str; 6] = ["ok", "error", "panic", "hang", "spin", "huge"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_tools_panic_hang_and_flood_and_the_registry_stays_usable() {
    const CALLS: usize = 400;
    const BATCH: usize = 100;
    let audit = MemoryAudit::new();
    let registry = ToolRegistry::builder()
        .default_timeout(Duration::from_secs(60))
        .max_output_bytes(OUTPUT_LIMIT)
        .audit(audit.clone())
        .build();
    registry.register(ChaosTool).unwrap();
    registry.register(ChaosBlockingTool).unwrap();

    quiet_chaos_panics();
    let mut rng = Rng(0xC4A05);
    let plan: Vec<(&str, &str)> = (0..CALLS)
        .map(|_| {
            let tool = if rng.below(3) == 0 {
                "chaos_blocking"
            } else {
                "chaos"
            };
            (tool, MODES[rng.below(MODES.len() as u64) as usize])
        })
        .collect();
    let started = Instant::now();
    let mut seen = [0usize; MODES.len()];
    for batch in (0..CALLS).step_by(BATCH) {
        let calls = (batch..batch + BATCH)
            .map(|n| {
                let (tool, mode) = plan[n];
                // Only calls meant to hang get the short timeout, so a slow start of the
                // blocking pool on a loaded machine never turns another mode into a timeout.
                let timeout = if matches!(mode, "hang" | "spin") {
                    HANG_TIMEOUT
                } else {
                    Duration::from_secs(60)
                };
                ToolCall::new(format!("chaos-{n}"), tool, json!({"mode": mode, "n": n})).with_timeout(timeout)
            })
            .collect();
        let results = registry.call_all_with_limit(calls, 64).await;
        for (offset, result) in results.iter().enumerate() {
            let n = batch + offset;
            let (tool, mode) = plan[n];
            seen[MODES.iter().position(|m| *m == mode).unwrap()] += 1;
            let text = result.text();
            let context = format!("call {n} ({tool}, {mode}): {:?} {:.200}", result.outcome, text);
            match mode {
                "ok" => assert!(
                    result.outcome == Outcome::Ok && text == format!("ok {n}"),
                    "{context}"
                ),
                "error" => assert!(
                    result.outcome == Outcome::Error && text.contains(&format!("failed on purpose {n}")),
                    "{context}"
                ),
                "panic" => assert!(
                    result.outcome == Outcome::Panicked
                        && text.contains(&format!("chaos panic {n}"))
                        && text.contains("internal error"),
                    "{context}"
                ),
                "hang" | "spin" => {
                    assert!(result.outcome == Outcome::Timeout, "{context}");
                    assert!(text.contains("did not finish within 300ms"), "{context}");
                    assert!(
                        result.duration >= HANG_TIMEOUT,
                        "{context} after {:?}",
                        result.duration
                    );
                }
                // Cut at the registry's limit, with a note saying how much was left out.
                "huge" => assert!(
                    result.outcome == Outcome::Ok
                        && text.len() <= OUTPUT_LIMIT + NOTE
                        && text.ends_with(&format!("{} of {HUGE} bytes left out]", HUGE - OUTPUT_LIMIT)),
                    "{context}"
                ),
                _ => unreachable!(),
            }
        }
    }
    let elapsed = started.elapsed();
    eprintln!("{CALLS} chaos calls in {elapsed:?}; per mode {MODES:?}: {seen:?}");
    assert!(
        seen.iter().all(|count| *count > 0),
        "every mode was drawn: {seen:?}"
    );
    // Bounded: the hangs ended at their timeouts, not at some later point.
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");

    // One audit event per call, with the result's outcome; huge outputs are recorded at
    // the size the caller got.
    let events = audit.events();
    assert_eq!(events.len(), CALLS);
    for event in &events {
        let n: usize = event.call_id.strip_prefix("chaos-").unwrap().parse().unwrap();
        let expected = match plan[n].1 {
            "ok" | "huge" => Outcome::Ok,
            "error" => Outcome::Error,
            "panic" => Outcome::Panicked,
            _ => Outcome::Timeout,
        };
        assert_eq!(event.outcome, expected, "{event:?}");
        if plan[n].1 == "huge" {
            assert!(event.output_bytes > OUTPUT_LIMIT && event.output_bytes <= OUTPUT_LIMIT + NOTE);
        }
    }

    // Still usable: a normal call of each tool works.
    for tool in ["chaos", "chaos_blocking"] {
        let result = registry
            .call(ToolCall::new("after", tool, json!({"mode": "ok", "n": 7})))
            .await;
        assert_eq!((result.outcome, result.text()), (Outcome::Ok, "ok 7".to_owned()));
    }
    assert_eq!(registry.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn built_in_tools_cap_huge_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::new();
    let mut config = BuiltinConfig::default();
    config.memory.enabled = false;
    builtins::register_all(&registry, Some(dir.path().to_path_buf()), &config).unwrap();

    // 5000 lines of 1000 characters: 5 MB, of which read_file returns at most 256 KiB.
    let line = "abcdefghij".repeat(100);
    let text: String = (0..5000).map(|_| format!("{line}\n")).collect();
    std::fs::write(dir.path().join("big.txt"), &text).unwrap();
    let result = registry
        .call(ToolCall::new(
            "r",
            "read_file",
            json!({"path": "big.txt", "limit": 5000}),
        ))
        .await;
    assert_eq!(result.outcome, Outcome::Ok, "{:.300}", result.text());
    let out = result.text();
    assert!(
        out.len() <= 256 * 1024 + 512,
        "read_file returned {} bytes",
        out.len()
    );
    assert!(
        out.contains("[output capped at 256.0 KB]"),
        "{}",
        &out[out.len() - 300..]
    );
    assert!(out.contains("more lines; continue with offset="));

    // A command printing 3 MB: exec returns about 30 KiB, head and tail.
    let result = registry
        .call(ToolCall::new(
            "e",
            "exec",
            json!({"command": "yes 0123456789 | head -c 3000000; echo THE-END"}),
        ))
        .await;
    assert_eq!(result.outcome, Outcome::Ok, "{:.300}", result.text());
    let out = result.text();
    assert!(out.len() <= 30 * 1024 + 512, "exec returned {} bytes", out.len());
    assert!(out.starts_with("exit code: 0"), "{:.200}", out);
    assert!(out.contains("bytes omitted"), "{:.500}", out);
    assert!(out.trim_end().ends_with("THE-END"), "{}", &out[out.len() - 200..]);
}

// ---------------------------------------------------------------------------------------
// A full disk
// ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_under_the_audit_log_fails_no_call() {
    // `/dev/full` takes every write with ENOSPC.
    let audit = Arc::new(JsonlAudit::open("/dev/full").unwrap());
    let memory = MemoryAudit::new();
    let registry = ToolRegistry::builder()
        .audit(ForwardAudit(audit.clone()))
        .audit(memory.clone())
        .build();
    registry.register(ChaosTool).unwrap();
    let calls = (0..50)
        .map(|n| ToolCall::new(format!("c{n}"), "chaos", json!({"mode": "ok", "n": n})))
        .collect();
    let results = registry.call_all(calls).await;
    for (n, result) in results.iter().enumerate() {
        assert_eq!((result.outcome, result.text()), (Outcome::Ok, format!("ok {n}")));
    }
    assert_eq!(audit.failed_writes(), 50);
    assert_eq!(memory.events().len(), 50, "the other sink still gets every event");
}

/// Shares a sink so the test can read its counters.
struct ForwardAudit(Arc<JsonlAudit>);

impl agent_tools::audit::AuditSink for ForwardAudit {
    fn record(&self, event: &AuditEvent) {
        self.0.record(event);
    }
}

/// `agent-tools ARGS…` with the JSON `stdin`, limited to files of `file_size_limit`
/// bytes when given.
fn run_binary(args: &[&str], stdin: &str, file_size_limit: Option<u64>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(limit) = file_size_limit {
        limit_file_size(&mut command, limit);
    }
    let mut child = command.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_owned();
    let writer = std::thread::spawn(move || input.write_all(stdin.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    output
}

/// Makes writes past `bytes` fail with EFBIG in the child (instead of killing it).
// Needs unsafe: it runs code between fork and exec (`pre_exec`), and ignoring a signal has
// no safe form.
#[allow(unsafe_code)]
fn limit_file_size(command: &mut Command, bytes: u64) {
    // SAFETY: between fork and exec the closure only calls `setrlimit` and `signal`, which
    // are async-signal-safe, and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // An ignored signal stays ignored across exec.
            if libc::signal(libc::SIGXFSZ, libc::SIG_IGN) == libc::SIG_ERR {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The files of a directory, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_full_disk_during_write_file_keeps_the_old_file_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("notes.txt"), "the old content\n").unwrap();
    let ws_arg = ws.to_str().unwrap();
    let big = "new content line\n".repeat(8192); // 136 KiB
    let arguments = json!({"path": "notes.txt", "content": big}).to_string();

    // An append used to leave the part that fitted behind while reporting the failure,
    // and one that created its file left an empty file behind.
    let cases = [
        ("overwrite", "notes.txt"),
        ("append", "notes.txt"),
        ("create_new", "fresh.txt"),
        ("append", "fresh.txt"),
    ];
    for (mode, path) in cases {
        let arguments = json!({"path": path, "content": big, "mode": mode}).to_string();
        let output = run_binary(
            &["--workspace", ws_arg, "call", "write_file", "-"],
            &arguments,
            Some(64 * 1024),
        );
        assert_eq!(output.status.code(), Some(1), "{mode}: {output:?}");
        assert_eq!(
            text(&output.stdout).trim_end(),
            format!("`{path}`: File too large (os error 27)"),
            "{mode}"
        );
        let kept = std::fs::read_to_string(ws.join("notes.txt")).unwrap();
        assert!(
            kept == "the old content\n",
            "{mode}: the file now holds {} bytes: {kept:.80?}",
            kept.len()
        );
        assert_eq!(
            entries(&ws),
            ["notes.txt"],
            "{mode}: no file appears, no temporary file is left"
        );
    }

    // With room again, the same write goes through.
    let output = run_binary(
        &["--workspace", ws_arg, "call", "write_file", "-"],
        &arguments,
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(std::fs::read_to_string(ws.join("notes.txt")).unwrap(), big);
    assert_eq!(entries(&ws), ["notes.txt"]);
}

/// Opens the memory database as a fresh process would and checks it: SQLite's and FTS5's
/// integrity checks pass. Returns the content of each keyed memory, by key.
fn check_memory_db(path: &Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    conn.execute(
        "INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')",
        [],
    )
    .expect("the full-text index matches the memories");
    let mut select = conn
        .prepare("SELECT key, content FROM memories WHERE key IS NOT NULL ORDER BY key")
        .unwrap();
    select
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_full_disk_during_memory_write_keeps_the_database_whole() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().to_str().unwrap();
    let db = dir.path().join("memory.db");
    let db_arg = db.to_str().unwrap();
    let args = |tool: &'static str| ["--workspace", ws, "--memory-db", db_arg, "call", tool, "-"];
    let keep = json!({"content": "the deploy runs on Fridays", "key": "deploy"}).to_string();
    let output = run_binary(&args("memory_write"), &keep, None);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let db_size = std::fs::metadata(&db).unwrap().len();

    // 60 KiB of content needs more than the 16 KiB of room above the database, while the
    // limit leaves room for SQLite's 32 KiB shared-memory file.
    let limit = db_size.max(32 * 1024) + 16 * 1024;
    let large = json!({"content": "lorem ipsum dolor ".repeat(3400), "key": "large"}).to_string();
    let output = run_binary(&args("memory_write"), &large, Some(limit));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(
        text(&output.stdout).trim_end(),
        "memory store error: SQLite: disk I/O error (the disk may be full or failing; the \
         database is kept as it was)",
        "SQLite reports EFBIG as a generic I/O error"
    );
    assert_eq!(
        check_memory_db(&db),
        [("deploy".to_owned(), "the deploy runs on Fridays".to_owned())]
    );

    // So little room that SQLite cannot even set up its shared memory: the database
    // does not open, and says so.
    let output = run_binary(&args("memory_write"), &large, Some(4096));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(
        text(&output.stdout).trim_end(),
        "cannot open the memory database: SQLite: disk I/O error (the disk may be full or \
         failing; the database is kept as it was)"
    );
    assert_eq!(check_memory_db(&db).len(), 1);

    // With room again, writes and reads work, the old memory included.
    let output = run_binary(&args("memory_write"), &large, None);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let read = json!({"key": "deploy"}).to_string();
    let output = run_binary(&args("memory_read"), &read, None);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(text(&output.stdout).contains("the deploy runs on Fridays"));
    assert_eq!(check_memory_db(&db).len(), 2);
}

#[test]
fn a_full_disk_under_the_audit_log_does_not_fail_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let audit = dir.path().join("audit.jsonl");
    let global = [
        "--workspace",
        ws.to_str().unwrap(),
        "--audit-log",
        audit.to_str().unwrap(),
    ];
    let call = |path: &str, limit: Option<u64>| {
        let arguments = json!({"path": path, "content": "hello\n"}).to_string();
        let args: Vec<&str> = global
            .iter()
            .copied()
            .chain(["call", "write_file", "-"])
            .collect();
        run_binary(&args, &arguments, limit)
    };
    let output = call("first.txt", None);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let size = std::fs::metadata(&audit).unwrap().len();

    // No room at all after the log's end; then room for part of a line.
    for (path, room) in [("second.txt", 0), ("third.txt", 40)] {
        let output = call(path, Some(size + room));
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        assert_eq!(
            text(&output.stdout).trim_end(),
            format!("Created `{path}` with 1 line (6 B).")
        );
        assert_eq!(std::fs::read_to_string(ws.join(path)).unwrap(), "hello\n");
        // The call succeeds, but the one relying on the log hears of the lost event.
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains("warning: 1 audit event(s) could not be written to"),
            "{stderr}"
        );
    }

    // The calls whose events did not fit left no partial line to corrupt the next one.
    let output = call("fourth.txt", None);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let log = std::fs::read_to_string(&audit).unwrap();
    let events: Vec<AuditEvent> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {line}")))
        .collect();
    let paths: Vec<&str> = events
        .iter()
        .map(|event| event.arguments["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["first.txt", "fourth.txt"]);
}

// ---------------------------------------------------------------------------------------
// Killed in the middle
// ---------------------------------------------------------------------------------------

/// Kills per tool.
const KILLS: usize = 100;

/// `agent-tools ARGS…` reading its arguments from stdin, which a thread feeds.
fn spawn_call(args: &[&str], stdin: String) -> (Child, std::thread::JoinHandle<()>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // The write fails with a broken pipe when the child dies first; that is expected.
    let writer = std::thread::spawn(move || drop(input.write_all(stdin.as_bytes())));
    (child, writer)
}

/// Runs one call to its end; returns how long it took.
fn call_to_end(args: &[&str], stdin: String) -> Duration {
    let started = Instant::now();
    let (mut child, writer) = spawn_call(args, stdin);
    let status = child.wait().unwrap();
    writer.join().unwrap();
    assert!(status.success(), "{args:?}: {status}");
    started.elapsed()
}

/// Runs the call of `arguments(version)` KILLS times, each killed with SIGKILL after a
/// random delay between 0 and 1.5 times the time an uninterrupted call takes, and after
/// each asks `check` which version survived (it must be the old or the new one).
/// Returns (kept old, got new) counts.
fn kill_repeatedly(
    args: &[&str],
    arguments: impl Fn(usize) -> String,
    check: impl Fn(usize) -> usize,
    seed: u64,
) -> (usize, usize) {
    // The calibration run writes version 1 over version 0.
    let full = call_to_end(args, arguments(1));
    assert_eq!(check(1), 1);
    let window = full.as_micros() as u64 * 3 / 2;
    let mut rng = Rng(seed);
    let mut version = 1;
    let (mut old, mut new) = (0, 0);
    for _ in 0..KILLS {
        let (mut child, writer) = spawn_call(args, arguments(version + 1));
        std::thread::sleep(Duration::from_micros(rng.below(window)));
        // Fails only if the child already exited, which is one of the outcomes.
        let _ = child.kill();
        child.wait().unwrap();
        writer.join().unwrap();
        let survived = check(version);
        if survived == version + 1 {
            new += 1;
            version += 1;
        } else {
            old += 1;
        }
    }
    // An uninterrupted call still works afterwards.
    call_to_end(args, arguments(version + 1));
    assert_eq!(check(version + 1), version + 1);
    (old, new)
}

/// Content of version `v`: a marker line and about 1 MiB more, different per version.
fn file_version(v: usize) -> String {
    let mut text = format!("version {v}\n");
    let line = format!("{v:08} {}\n", "payload ".repeat(15));
    text.push_str(&line.repeat(8192));
    text
}

/// Which of versions `v` and `v + 1` `content` (of `what`) is; panics on anything else.
fn which_version(what: &str, content: &str, v: usize, expected: impl Fn(usize) -> String) -> usize {
    if content == expected(v) {
        v
    } else if content == expected(v + 1) {
        v + 1
    } else {
        let start: String = content.chars().take(60).collect();
        panic!(
            "{what} holds neither version {v} nor {} ({} bytes, starting {start:?})",
            v + 1,
            content.len(),
        );
    }
}

/// Which of versions `v` and `v + 1` the file at `path` holds.
fn file_holds(path: &Path, v: usize, expected: impl Fn(usize) -> String) -> usize {
    let content = std::fs::read_to_string(path).unwrap();
    which_version(&path.display().to_string(), &content, v, expected)
}

fn workspace_with(dir: &Path, content: &str) -> PathBuf {
    let ws = dir.join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(ws.join("target.txt"), content).unwrap();
    ws
}

/// Prints where the kills landed and checks they landed on both sides of the switch to
/// the new content, so both outcomes were really exercised.
fn report_kills(tool: &str, started: Instant, old: usize, new: usize) {
    eprintln!(
        "{tool}: {KILLS} kills in {:?}: {old} kept the old content, {new} the new",
        started.elapsed()
    );
    assert!(
        old > 0 && new > 0,
        "kills landed before and after the switch: {old} / {new}"
    );
}

/// After the last, uninterrupted write, no temporary file is left.
fn assert_only_target(ws: &Path) {
    assert_eq!(entries(ws), ["target.txt"]);
}

/// Kills `tool` KILLS times while it changes `target.txt`, which starts as `expected(0)`
/// (a 1 MiB file): `arguments(v)` makes version `v`, `expected(v)` is the file then.
fn kill_file_tool(
    tool: &str,
    arguments: impl Fn(usize) -> String,
    expected: impl Fn(usize) -> String + Copy,
    seed: u64,
) {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace_with(dir.path(), &expected(0));
    let args = ["--workspace", ws.to_str().unwrap(), "call", tool, "-"];
    let target = ws.join("target.txt");
    let (old, new) = kill_repeatedly(&args, arguments, |v| file_holds(&target, v, expected), seed);
    assert_only_target(&ws);
    report_kills(tool, started, old, new);
}

#[test]
fn write_file_killed_at_any_point_leaves_the_old_or_the_new_content() {
    let arguments = |v: usize| json!({"path": "target.txt", "content": file_version(v)}).to_string();
    kill_file_tool("write_file", arguments, file_version, 1);
}

#[test]
fn edit_file_killed_at_any_point_leaves_the_old_or_the_new_content() {
    // The edit changes the marker line of a 1 MiB file; `edited(v)` is the file after v
    // edits (the body stays version 0's).
    let edited = |v: usize| file_version(0).replacen("version 0\n", &format!("version {v}\n"), 1);
    let arguments = |v: usize| {
        json!({"path": "target.txt", "old_text": format!("version {}\n", v - 1), "new_text": format!("version {v}\n")})
            .to_string()
    };
    kill_file_tool("edit_file", arguments, edited, 2);
}

#[test]
fn memory_write_killed_at_any_point_leaves_a_sound_database() {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("memory.db");
    let args = [
        "--workspace",
        dir.path().to_str().unwrap(),
        "--memory-db",
        db.to_str().unwrap(),
        "call",
        "memory_write",
        "-",
    ];
    // Version v of the memory under key `note`, about 32 KiB (FTS indexing included).
    let content = |v: usize| format!("note version {v}: {}", format!("word{v} ").repeat(4000));
    let arguments =
        |v: usize| json!({"content": content(v), "key": "note", "tags": [format!("v{v}")]}).to_string();
    let check = |v: usize| {
        let memories = check_memory_db(&db);
        assert_eq!(memories.len(), 1, "one keyed memory");
        let (key, stored) = &memories[0];
        assert_eq!(key, "note");
        which_version("the memory", stored, v, content)
    };
    let (old, new) = kill_repeatedly(&args, arguments, check, 3);
    report_kills("memory_write", started, old, new);
}
