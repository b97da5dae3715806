//! `agent-tools plan`, with the real binary: a plan set by `agent-tools call update_plan`
//! in one process is shown by `agent-tools plan` in another, from the workspace's state
//! directory (`XDG_DATA_HOME` in a temporary directory, never the real home).

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

struct Dirs {
    _temp: tempfile::TempDir,
    ws: PathBuf,
    data: PathBuf,
}

fn dirs() -> Dirs {
    let temp = tempfile::tempdir().unwrap();
    let (ws, data) = (temp.path().join("ws"), temp.path().join("data"));
    std::fs::create_dir(&ws).unwrap();
    Dirs {
        _temp: temp,
        ws,
        data,
    }
}

fn binary(dirs: &Dirs, args: &[&str]) -> Output {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("--workspace")
        .arg(&dirs.ws)
        .args(args)
        .env("XDG_DATA_HOME", &dirs.data)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_plan_set_by_call_is_shown_by_plan_in_another_process() {
    let dirs = dirs();
    let empty = binary(&dirs, &["plan"]);
    assert_eq!(empty.status.code(), Some(0));
    assert!(
        stdout(&empty).starts_with("no session of this workspace has a plan"),
        "{}",
        stdout(&empty)
    );

    let plan = r#"{"explanation": "Found the cause.", "plan": [
        {"step": "Reproduce the bug", "status": "completed"},
        {"step": "Fix the parser", "status": "in_progress"},
        {"step": "Add a test", "status": "pending"}]}"#;
    let called = binary(&dirs, &["call", "update_plan", plan]);
    assert_eq!(
        called.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&called.stderr)
    );
    assert_eq!(
        stdout(&called),
        "Plan updated (1 of 3 steps completed, in progress: Fix the parser):\n\
         [x] Reproduce the bug\n[~] Fix the parser\n[ ] Add a test\n"
    );
    let session = r#"{"plan": [{"step": "Review", "status": "in_progress"}]}"#;
    let called = binary(&dirs, &["call", "--session", "review-7", "update_plan", session]);
    assert_eq!(
        called.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&called.stderr)
    );

    let shown = binary(&dirs, &["plan"]);
    assert_eq!(shown.status.code(), Some(0));
    let text = stdout(&shown);
    let (latest, earlier) = text.split_once("\n\n").expect("two plans");
    assert!(latest.starts_with("session review-7 (updated "), "{text}");
    assert!(
        latest.ends_with("): 0 of 1 step completed, in progress: Review\n  [~] Review"),
        "{text}"
    );
    assert!(earlier.starts_with("calls without a session (updated "), "{text}");
    assert!(
        earlier.ends_with(
            "): 1 of 3 steps completed, in progress: Fix the parser\n  Found the cause.\n  \
             [x] Reproduce the bug\n  [~] Fix the parser\n  [ ] Add a test\n"
        ),
        "{text}"
    );

    let one = binary(&dirs, &["plan", "--session", "review-7", "--json"]);
    assert_eq!(one.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(json["session"], "review-7");
    assert_eq!(
        json["plan"][0],
        serde_json::json!({"step": "Review", "status": "in_progress"})
    );
    let all: Value = serde_json::from_slice(&binary(&dirs, &["plan", "--json"]).stdout).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 2);
    assert_eq!(all[1]["explanation"], "Found the cause.");

    let missing = binary(&dirs, &["plan", "--session", "nobody"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("session `nobody` has no plan"));
    assert_eq!(
        std::fs::read_dir(&dirs.ws).unwrap().count(),
        0,
        "nothing in the workspace"
    );
    assert!(dirs.data.join("agent-tools/workspaces").is_dir());
}

#[test]
fn a_refused_plan_is_an_error_naming_each_problem() {
    let dirs = dirs();
    let bad = r#"{"plan": [{"step": "", "status": "in_progress"}, {"step": "B", "status": "in_progress"}]}"#;
    let called = binary(&dirs, &["call", "update_plan", bad]);
    assert_eq!(called.status.code(), Some(1));
    let text = stdout(&called);
    assert!(text.contains("- step 1 is empty"), "{text}");
    assert!(text.contains("- steps 1 and 2 are all `in_progress`"), "{text}");
    let shown = binary(&dirs, &["plan"]);
    assert!(stdout(&shown).starts_with("no session of this workspace has a plan"));
}
