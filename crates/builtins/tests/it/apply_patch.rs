//! `apply_patch` through a registry, on scenarios kept as data: each directory of
//! `tests/apply_patch/` holds `before/` (the workspace's files, if any), `patch` (the
//! call's input), and either `after/` (the files afterwards) or `error` (text the error
//! result contains; the files must then be as before). An optional `setup` file makes what
//! git cannot keep, one command a line: `write PATH TEXT` (`\n` and `\t` escaped) and
//! `symlink TARGET LINK`, where `$OUTSIDE` is a directory outside the workspace holding
//! `secret.txt`, which no scenario may change.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::{ToolCall, ToolRegistry};
use serde_json::json;

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/apply_patch")
}

/// Every file under `root` (links as `-> TARGET`), by relative path.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                files.insert(name, format!("-> {}", target.display()).into_bytes());
            } else if kind.is_dir() {
                pending.push(path);
            } else {
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn copy_tree(from: &Path, to: &Path) {
    for (name, bytes) in tree(from) {
        let path = to.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

fn set_up(script: &str, root: &Path, outside: &Path) {
    for line in script.lines().filter(|line| !line.trim().is_empty()) {
        let line = line.replace("$OUTSIDE", &outside.display().to_string());
        let mut words = line.splitn(3, ' ');
        match (words.next(), words.next(), words.next()) {
            (Some("write"), Some(path), Some(text)) => {
                let path = root.join(path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text.replace("\\n", "\n").replace("\\t", "\t")).unwrap();
            }
            (Some("symlink"), Some(target), Some(link)) => {
                std::os::unix::fs::symlink(target, root.join(link)).unwrap();
            }
            _ => panic!("bad setup line: {line}"),
        }
    }
}

fn show(files: &BTreeMap<String, Vec<u8>>) -> String {
    files
        .iter()
        .map(|(name, bytes)| format!("== {name}\n{}", String::from_utf8_lossy(bytes)))
        .collect()
}

/// Runs one scenario; the problem, if it does not go as written.
async fn run(dir: &Path) -> Result<(), String> {
    let temp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    let root = temp.path();
    if dir.join("before").is_dir() {
        copy_tree(&dir.join("before"), root);
    }
    if let Ok(script) = std::fs::read_to_string(dir.join("setup")) {
        set_up(&script, root, outside.path());
    }
    let before = tree(root);
    let registry = ToolRegistry::new();
    let builtins = Builtins::new(Workspace::open(root).unwrap()).unwrap();
    Arc::new(builtins).register_all(&registry).unwrap();
    let patch = std::fs::read_to_string(dir.join("patch")).unwrap();
    let result = registry
        .call(ToolCall::new("call-1", "apply_patch", json!({"input": patch})))
        .await;
    let text = result.text();
    if tree(outside.path()) != BTreeMap::from([("secret.txt".to_owned(), b"secret\n".to_vec())]) {
        return Err("the directory outside the workspace changed".to_owned());
    }
    let after = tree(root);
    match std::fs::read_to_string(dir.join("error")) {
        Ok(expected) => {
            if !result.is_error() || !text.contains(expected.trim_end()) {
                return Err(format!("expected an error containing:\n{expected}\ngot:\n{text}"));
            }
            if after != before {
                return Err(format!("the failed patch changed files:\n{}", show(&after)));
            }
        }
        Err(_) => {
            if result.is_error() {
                return Err(format!("the patch failed:\n{text}"));
            }
            let mut expected = tree(&dir.join("after"));
            // What the setup made and the patch did not name is still there.
            for (name, bytes) in &before {
                if name.starts_with(".git") || bytes.starts_with(b"-> ") {
                    expected.entry(name.clone()).or_insert_with(|| bytes.clone());
                }
            }
            if after != expected {
                return Err(format!(
                    "the files differ from after/:\n{}\nexpected:\n{}\nresult:\n{text}",
                    show(&after),
                    show(&expected)
                ));
            }
        }
    }
    Ok(())
}

#[tokio::test]
async fn every_scenario_goes_as_written() {
    let mut names: Vec<PathBuf> = std::fs::read_dir(scenarios())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    names.sort();
    assert!(names.len() >= 20, "the scenarios are there: {names:?}");
    let mut failures = Vec::new();
    for dir in &names {
        if let Err(problem) = run(dir).await {
            failures.push(format!(
                "--- {}: {problem}",
                dir.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn a_patch_that_is_not_one_gets_the_line_and_what_was_expected() {
    let temp = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::new();
    Arc::new(Builtins::new(Workspace::open(temp.path()).unwrap()).unwrap())
        .register_all(&registry)
        .unwrap();
    let result = registry
        .call(ToolCall::new(
            "call-1",
            "apply_patch",
            json!({"input": "*** Begin Patch\n*** Update File: a.txt\n@@\noops\n*** End Patch"}),
        ))
        .await;
    assert!(result.is_error());
    assert!(
        result.text().contains(
            "invalid patch at line 4: expected a hunk line starting with ' ' (context), '-' (removed) or '+' (added), found `oops`"
        ),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn a_custom_tool_call_runs_the_patch_through_the_registry() {
    use agent_tools_core::Dialect;
    use agent_tools_core::dialect::DefinitionOptions;

    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("a.txt"), "one\n").unwrap();
    let registry = ToolRegistry::new();
    Arc::new(Builtins::new(Workspace::open(temp.path()).unwrap()).unwrap())
        .register_all(&registry)
        .unwrap();
    // Offered as a custom tool with the grammar when the request asks.
    let definitions =
        registry.definitions_with(DefinitionOptions::new(Dialect::OpenAiResponses).custom_tools(true));
    let offered = definitions
        .iter()
        .find(|definition| definition["name"] == "apply_patch")
        .unwrap();
    assert_eq!(offered["type"], "custom");
    assert_eq!(offered["format"]["syntax"], "lark");
    assert!(
        offered["format"]["definition"]
            .as_str()
            .unwrap()
            .starts_with("start: begin file+ end")
    );
    // The model's raw text comes back as the call's input.
    let result = registry
        .call(ToolCall::freeform(
            "call_1",
            "apply_patch",
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n",
        ))
        .await;
    assert!(!result.is_error(), "{}", result.text());
    assert!(
        result
            .text()
            .starts_with("Applied the patch: 1 file changed.\nM a.txt\n")
    );
    assert_eq!(
        std::fs::read_to_string(temp.path().join("a.txt")).unwrap(),
        "two\n"
    );
}

#[tokio::test]
async fn the_policy_stops_a_patch_touching_a_denied_path_and_accept_edits_runs_the_rest() {
    use agent_tools_core::audit::Outcome;
    use agent_tools_core::policy::{Policy, PolicyMode};

    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    std::fs::write(root.join(".env"), "SECRET=1\n").unwrap();
    let policy = Policy::builder()
        .workspace(root)
        .mode(PolicyMode::AcceptEdits)
        .deny("apply_patch(input: .env)")
        .build()
        .unwrap();
    let registry = ToolRegistry::builder().policy(policy).build();
    Arc::new(Builtins::new(Workspace::open(root).unwrap()).unwrap())
        .register_all(&registry)
        .unwrap();
    let call = |patch: &str| {
        let registry = registry.clone();
        let input = format!("*** Begin Patch\n{patch}*** End Patch\n");
        async move {
            registry
                .call(ToolCall::new("c", "apply_patch", json!({"input": input})))
                .await
        }
    };
    let denied = [
        "*** Update File: a.txt\n@@\n-a\n+b\n*** Update File: .env\n@@\n-SECRET=1\n+SECRET=2\n",
        "*** Update File: a.txt\n*** Move to: .env\n",
        "*** Add File: ./sub/../.env\n+X=1\n",
    ];
    for patch in denied {
        let result = call(patch).await;
        assert_eq!(result.outcome, Outcome::Denied, "{patch}: {}", result.text());
        assert!(
            result.text().contains("apply_patch(input: .env)"),
            "{}",
            result.text()
        );
    }
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");
    assert_eq!(std::fs::read_to_string(root.join(".env")).unwrap(), "SECRET=1\n");
    // Under accept_edits a patch that touches no denied path runs without asking.
    let result = call("*** Update File: a.txt\n@@\n-a\n+b\n").await;
    assert_eq!(result.outcome, Outcome::Ok, "{}", result.text());
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "b\n");
}
