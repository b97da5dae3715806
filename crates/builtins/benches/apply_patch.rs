//! `apply_patch` of a 20-file patch (three hunks each) in a 5,000-file tree, through the
//! registry as a model's call goes, against `git apply` of the same change as a unified
//! diff, measured in the same run.
//!
//! Both start from the same files: the 20 patched files are written back before every
//! iteration (`iter_batched`, outside the measurement). `git apply` is a process per
//! iteration, as an agent that shells out to it would pay.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::{ToolCall, ToolRegistry};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::json;

const FILES: usize = 5_000;
const PATCHED: usize = 20;
const LINES: usize = 80;
/// The lines each patched file changes (0-based), each a hunk of its own.
const CHANGED: [usize; 3] = [10, 40, 70];

fn file_name(index: usize) -> String {
    format!("src/module_{}/file_{index}.rs", index / 100)
}

fn content(index: usize) -> String {
    (0..LINES)
        .map(|line| format!("    let value_{line} = compute({index}, {line}); // line {line}\n"))
        .collect()
}

/// The patched files: every 250th.
fn patched() -> impl Iterator<Item = usize> {
    (0..PATCHED).map(|n| n * (FILES / PATCHED))
}

fn changed_line(index: usize, line: usize) -> String {
    format!("    let value_{line} = compute_faster({index}, {line}); // changed")
}

/// The change in Codex's format: three hunks per file, three lines of context.
fn codex_patch() -> String {
    let mut text = String::from("*** Begin Patch\n");
    for index in patched() {
        let original = content(index);
        let lines: Vec<&str> = original.lines().collect();
        let _ = writeln!(text, "*** Update File: {}", file_name(index));
        for line in CHANGED {
            text.push_str("@@\n");
            for context in &lines[line - 3..line] {
                let _ = writeln!(text, " {context}");
            }
            let _ = writeln!(text, "-{}", lines[line]);
            let _ = writeln!(text, "+{}", changed_line(index, line));
            for context in &lines[line + 1..line + 4] {
                let _ = writeln!(text, " {context}");
            }
        }
    }
    text.push_str("*** End Patch\n");
    text
}

/// The same change as `git apply` takes it.
fn unified_diff() -> String {
    let mut text = String::new();
    for index in patched() {
        let name = file_name(index);
        let _ = writeln!(text, "diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}");
        let original = content(index);
        let lines: Vec<&str> = original.lines().collect();
        for line in CHANGED {
            let _ = writeln!(text, "@@ -{} +{} @@", hunk_range(line), hunk_range(line));
            for context in &lines[line - 3..line] {
                let _ = writeln!(text, " {context}");
            }
            let _ = writeln!(text, "-{}", lines[line]);
            let _ = writeln!(text, "+{}", changed_line(index, line));
            for context in &lines[line + 1..line + 4] {
                let _ = writeln!(text, " {context}");
            }
        }
    }
    text
}

/// `START,7` (1-based) for the seven lines around a changed line.
fn hunk_range(line: usize) -> String {
    format!("{},7", line - 3 + 1)
}

fn reset(root: &Path) {
    for index in patched() {
        std::fs::write(root.join(file_name(index)), content(index)).expect("the file is written back");
    }
}

fn expected_after(index: usize) -> String {
    content(index)
        .lines()
        .enumerate()
        .map(|(line, text)| match CHANGED.contains(&line) {
            true => format!("{}\n", changed_line(index, line)),
            false => format!("{text}\n"),
        })
        .collect()
}

fn check(root: &Path, what: &str) {
    for index in patched() {
        let now = std::fs::read_to_string(root.join(file_name(index))).expect("readable");
        assert_eq!(
            now,
            expected_after(index),
            "{what} changed file {index} as expected"
        );
    }
}

fn apply_patch_vs_git_apply(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let temp = tempfile::tempdir().expect("a temporary directory");
    let root = temp.path().join("tree");
    for index in 0..FILES {
        let path = root.join(file_name(index));
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("directories");
        std::fs::write(path, content(index)).expect("the file is written");
    }
    let diff_path = temp.path().join("change.diff");
    std::fs::write(&diff_path, unified_diff()).expect("the diff is written");
    let ws = Workspace::open(&root).expect("the workspace opens");
    let registry = ToolRegistry::new();
    Arc::new(Builtins::new(ws).expect("the default configuration is valid"))
        .register_all(&registry)
        .expect("the tools register");
    let arguments = json!({"input": codex_patch()});
    let apply = || {
        let registry = &registry;
        let arguments = arguments.clone();
        async move { registry.call(ToolCall::new("c", "apply_patch", arguments)).await }
    };
    let git_apply = || {
        let status = Command::new("git")
            .arg("apply")
            .arg(&diff_path)
            .current_dir(&root)
            .status()
            .expect("git runs");
        assert!(status.success(), "git apply succeeds");
    };
    // Both make the same change.
    let result = runtime.block_on(apply());
    assert!(!result.is_error(), "the patch applies: {}", result.text());
    check(&root, "apply_patch");
    reset(&root);
    git_apply();
    check(&root, "git apply");

    let mut group = c.benchmark_group("apply_patch");
    group.sample_size(30).measurement_time(Duration::from_secs(5));
    group.bench_function("20_files_registry", |b| {
        b.iter_batched(
            || reset(&root),
            |()| black_box(runtime.block_on(apply())),
            BatchSize::PerIteration,
        )
    });
    group.bench_function("20_files_git_apply", |b| {
        b.iter_batched(|| reset(&root), |()| git_apply(), BatchSize::PerIteration)
    });
    group.finish();
}

criterion_group!(benches, apply_patch_vs_git_apply);
criterion_main!(benches);
