//! The workspace sandbox under attack: every way out we know of, against real files,
//! symbolic links, FIFOs, racing threads and killed processes. The file tools are called
//! through a registry, as a model would call them.
//!
//! Layout of each test's temporary directory:
//!
//! ```text
//! base/ws/            the workspace (tools are confined here)
//! base/ws2/ ws_evil/ ws.bak/ ws-old/ outside/   siblings, each with secret.txt
//! ```

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agent_tools::builtins::Builtins;
use agent_tools::builtins::Workspace;
use agent_tools::{ToolCall, ToolRegistry, ToolResult, audit::Outcome};
use serde_json::{Value, json};

const SIBLINGS: [&str; 5] = ["ws2", "ws_evil", "ws.bak", "ws-old", "outside"];

struct Sandbox {
    _temp: tempfile::TempDir,
    base: PathBuf,
    ws: PathBuf,
    registry: ToolRegistry,
}

impl Sandbox {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        let ws = base.join("ws");
        std::fs::create_dir(&ws).unwrap();
        for sibling in SIBLINGS {
            std::fs::create_dir(base.join(sibling)).unwrap();
            std::fs::write(base.join(sibling).join("secret.txt"), secret(sibling)).unwrap();
        }
        std::fs::write(ws.join("a.txt"), "inside\n").unwrap();
        let registry = ToolRegistry::builder()
            .default_timeout(Duration::from_secs(20))
            .build();
        let workspace = Workspace::open(&ws).unwrap();
        Arc::new(Builtins::new(workspace).unwrap())
            .register_all(&registry)
            .unwrap();
        Self {
            _temp: temp,
            base,
            ws,
            registry,
        }
    }

    async fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        self.registry.call(ToolCall::new("c", tool, arguments)).await
    }

    async fn read(&self, path: &str) -> ToolResult {
        self.call("read_file", json!({ "path": path })).await
    }

    async fn write(&self, path: &str, content: &str) -> ToolResult {
        self.call("write_file", json!({ "path": path, "content": content }))
            .await
    }

    /// Every sibling's secret is still exactly as written, and no sibling gained files.
    fn assert_outside_untouched(&self) {
        for sibling in SIBLINGS {
            let dir = self.base.join(sibling);
            assert_eq!(
                std::fs::read_to_string(dir.join("secret.txt")).unwrap(),
                secret(sibling)
            );
            let entries = std::fs::read_dir(&dir).unwrap().count();
            assert_eq!(entries, 1, "nothing was created in {}", dir.display());
        }
    }
}

fn secret(sibling: &str) -> String {
    format!("SECRET-{sibling}\n")
}

/// The call failed because the path leads outside the workspace.
fn assert_refused(result: &ToolResult, what: &str) {
    assert!(result.is_error(), "{what}: must fail, got {}", result.text());
    assert!(
        result.text().contains("outside the workspace"),
        "{what}: {}",
        result.text()
    );
    assert!(!result.text().contains("SECRET"), "{what}: {}", result.text());
}

#[tokio::test]
async fn traversal_and_absolute_paths_outside_are_refused() {
    let sandbox = Sandbox::new();
    let base = sandbox.base.display().to_string();
    let mut attempts = vec![
        "../outside/secret.txt".to_owned(),
        "../../../../etc/passwd".to_owned(),
        "/etc/passwd".to_owned(),
        "sub/../../ws2/secret.txt".to_owned(),
        "./../ws/../outside/secret.txt".to_owned(),
        format!("{base}/ws/../outside/secret.txt"),
        format!("/proc/self/root{base}/outside/secret.txt"),
        format!("/proc/self/root{base}/ws/a.txt"),
    ];
    for sibling in SIBLINGS {
        attempts.push(format!("{base}/{sibling}/secret.txt"));
    }
    for path in &attempts {
        assert_refused(&sandbox.read(path).await, path);
        assert_refused(&sandbox.write(path, "pwned").await, path);
        let edit = json!({"path": path, "old_text": "SECRET", "new_text": "pwned"});
        assert_refused(&sandbox.call("edit_file", edit).await, path);
        assert_refused(&sandbox.call("list_dir", json!({ "path": path })).await, path);
        let search = json!({"pattern": "SECRET", "path": path});
        assert_refused(&sandbox.call("file_search", search).await, path);
    }
    sandbox.assert_outside_untouched();
}

#[tokio::test]
async fn leaving_and_reentering_is_refused_but_odd_names_inside_work() {
    let sandbox = Sandbox::new();
    assert_refused(&sandbox.read("sub/../../ws/a.txt").await, "leave and re-enter");
    for name in [
        "..foo",
        "foo..",
        "...",
        "~/notes.txt",
        "dir with space/ünïcödé 文件.txt",
    ] {
        let written = sandbox.write(name, "ok\n").await;
        assert!(!written.is_error(), "{name}: {}", written.text());
        let read = sandbox.read(name).await;
        assert!(read.text().ends_with("     1\tok\n"), "{name}: {}", read.text());
        assert!(sandbox.ws.join(name).is_file(), "{name} is inside the workspace");
    }
    let listing = sandbox
        .call("list_dir", json!({"recursive": true, "include_hidden": true}))
        .await;
    assert!(listing.text().contains("ünïcödé 文件.txt"), "{}", listing.text());
    assert!(
        listing.text().contains("notes.txt"),
        "`~` is an ordinary directory name"
    );
}

#[tokio::test]
async fn empty_and_nul_paths_are_refused() {
    let sandbox = Sandbox::new();
    for path in ["", "a.txt\0../../outside/secret.txt"] {
        assert_refused(&sandbox.read(path).await, path);
        assert_refused(&sandbox.write(path, "x").await, path);
    }
}

#[tokio::test]
async fn a_symlinked_file_pointing_out_is_refused_for_every_tool() {
    let sandbox = Sandbox::new();
    let target = sandbox.base.join("outside/secret.txt");
    symlink(&target, sandbox.ws.join("abs-link")).unwrap();
    symlink("../outside/secret.txt", sandbox.ws.join("rel-link")).unwrap();
    for link in ["abs-link", "rel-link"] {
        assert_refused(&sandbox.read(link).await, link);
        assert_refused(&sandbox.write(link, "pwned").await, link);
        let append = json!({"path": link, "content": "pwned", "mode": "append"});
        assert_refused(&sandbox.call("write_file", append).await, link);
        let edit = json!({"path": link, "old_text": "SECRET", "new_text": "pwned"});
        assert_refused(&sandbox.call("edit_file", edit).await, link);
    }
    sandbox.assert_outside_untouched();
}

#[tokio::test]
async fn a_symlinked_directory_pointing_out_creates_nothing_outside() {
    let sandbox = Sandbox::new();
    symlink(sandbox.base.join("outside"), sandbox.ws.join("out-dir")).unwrap();
    symlink("../ws2", sandbox.ws.join("rel-dir")).unwrap();
    for dir in ["out-dir", "rel-dir"] {
        assert_refused(&sandbox.read(&format!("{dir}/secret.txt")).await, dir);
        assert_refused(&sandbox.write(&format!("{dir}/new.txt"), "pwned").await, dir);
        assert_refused(
            &sandbox.write(&format!("{dir}/deep/er/new.txt"), "pwned").await,
            dir,
        );
        assert_refused(&sandbox.call("list_dir", json!({ "path": dir })).await, dir);
    }
    sandbox.assert_outside_untouched();
}

#[tokio::test]
async fn symlink_chains_are_followed_only_while_they_stay_inside() {
    let sandbox = Sandbox::new();
    std::fs::create_dir(sandbox.ws.join("sub")).unwrap();
    // Escaping: a → sub/b → ../../outside/secret.txt.
    symlink("sub/b", sandbox.ws.join("a")).unwrap();
    symlink("../../outside/secret.txt", sandbox.ws.join("sub/b")).unwrap();
    assert_refused(&sandbox.read("a").await, "escaping chain");
    assert_refused(&sandbox.write("a", "pwned").await, "escaping chain");
    // Staying inside: c → sub/d → ../a.txt.
    symlink("sub/d", sandbox.ws.join("c")).unwrap();
    symlink("../a.txt", sandbox.ws.join("sub/d")).unwrap();
    assert_eq!(
        sandbox.read("c").await.text(),
        "`c`: lines 1-1 of 1\n     1\tinside\n"
    );
    let written = sandbox.write("c", "changed\n").await;
    assert_eq!(
        written.text(),
        "Replaced the content of `a.txt` with 1 line (8 B)."
    );
    assert_eq!(
        std::fs::read_to_string(sandbox.ws.join("a.txt")).unwrap(),
        "changed\n"
    );
    sandbox.assert_outside_untouched();
}

#[tokio::test]
async fn a_dangling_symlink_to_outside_is_not_a_write_target() {
    let sandbox = Sandbox::new();
    let target = sandbox.base.join("outside/created-by-attack.txt");
    symlink(&target, sandbox.ws.join("dangling")).unwrap();
    symlink("../outside/also-created.txt", sandbox.ws.join("rel-dangling")).unwrap();
    for link in ["dangling", "rel-dangling"] {
        assert_refused(&sandbox.write(link, "pwned").await, link);
        let create = json!({"path": link, "content": "pwned", "mode": "create_new"});
        assert_refused(&sandbox.call("write_file", create).await, link);
    }
    assert!(!target.exists());
    sandbox.assert_outside_untouched();
}

#[tokio::test]
async fn proc_magic_links_are_refused() {
    let sandbox = Sandbox::new();
    symlink("/proc/self/root/etc/passwd", sandbox.ws.join("passwd")).unwrap();
    symlink("/proc/self/cwd", sandbox.ws.join("cwd")).unwrap();
    assert_refused(&sandbox.read("passwd").await, "/proc/self/root link");
    assert_refused(&sandbox.read("cwd/Cargo.toml").await, "/proc/self/cwd link");
    assert_refused(&sandbox.write("cwd/pwned.txt", "x").await, "/proc/self/cwd link");
}

#[tokio::test]
async fn a_fifo_does_not_hang_read_file() {
    let sandbox = Sandbox::new();
    let status = std::process::Command::new("mkfifo")
        .arg(sandbox.ws.join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let result = sandbox.read("pipe").await;
    assert_eq!(result.outcome, Outcome::Error, "{}", result.text());
    assert_eq!(result.text(), "`pipe` is a FIFO, not a regular file");
    let edit = json!({"path": "pipe", "old_text": "a", "new_text": "b"});
    assert_eq!(sandbox.call("edit_file", edit).await.outcome, Outcome::Error);
    assert_eq!(
        sandbox.write("pipe", "x").await.text(),
        "`pipe` is a FIFO, not a regular file"
    );
}

#[tokio::test]
async fn listing_never_leaves_and_ends_on_cycles() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.ws.join("sub/deeper")).unwrap();
    symlink(sandbox.base.join("outside"), sandbox.ws.join("sub/out")).unwrap();
    symlink("..", sandbox.ws.join("sub/deeper/up")).unwrap();
    symlink(".", sandbox.ws.join("self")).unwrap();
    let args = json!({"recursive": true, "max_depth": 10, "include_hidden": true, "limit": 2000});
    let listing = sandbox.call("list_dir", args).await;
    assert!(!listing.is_error(), "{}", listing.text());
    assert!(!listing.text().contains("secret.txt"), "{}", listing.text());
    assert!(listing.text().contains("up -> .."), "{}", listing.text());
    std::fs::write(
        sandbox.ws.join("sub/deeper/found.txt"),
        "SECRET-like but inside\n",
    )
    .unwrap();
    for mode in ["content", "files"] {
        let pattern = if mode == "content" { "SECRET" } else { "*.txt" };
        let args =
            json!({"pattern": pattern, "mode": mode, "include_hidden": true, "respect_gitignore": false});
        let found = sandbox.call("file_search", args).await;
        assert!(!found.is_error(), "{}", found.text());
        assert!(found.text().contains("sub/deeper/found.txt"), "{}", found.text());
        assert!(
            !found.text().contains("secret.txt") && !found.text().contains("SECRET-outside"),
            "{}",
            found.text()
        );
    }
}

/// A thread swaps `swap` between a regular file and a symlink to a secret outside, as
/// fast as it can, while the tools read and write it. The kernel resolves each open
/// beneath the root, so no interleaving can reach the secret.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_a_symlink_swap_never_reaches_outside() {
    let sandbox = Sandbox::new();
    let swap = sandbox.ws.join("swap");
    let secret_path = sandbox.base.join("outside/secret.txt");
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (swap, secret_path, stop) = (swap.clone(), secret_path.clone(), stop.clone());
        std::thread::spawn(move || swap_forever(&swap, &secret_path, &stop))
    };
    let mut reads_inside = 0;
    for round in 0..400 {
        let read = sandbox.read("swap").await;
        assert!(!read.text().contains("SECRET"), "round {round}: {}", read.text());
        reads_inside += usize::from(read.text().contains("inside-content"));
        let _ = sandbox.write("swap", "written by the tool\n").await;
        let append = json!({"path": "swap", "content": "appended\n", "mode": "append"});
        let _ = sandbox.call("write_file", append).await;
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(std::fs::read_to_string(&secret_path).unwrap(), secret("outside"));
    assert!(reads_inside > 0, "the race exercised both states");
}

/// Replaces `swap` by a regular file, then by a symlink to `secret`, until `stop`.
fn swap_forever(swap: &Path, secret: &Path, stop: &AtomicBool) {
    let staged_file = swap.with_extension("file");
    let staged_link = swap.with_extension("link");
    while !stop.load(Ordering::Relaxed) {
        std::fs::write(&staged_file, "inside-content\n").unwrap();
        std::fs::rename(&staged_file, swap).unwrap();
        let _ = std::fs::remove_file(&staged_link);
        symlink(secret, &staged_link).unwrap();
        std::fs::rename(&staged_link, swap).unwrap();
    }
}

/// The same race with a directory: `dir` flips between a real directory and a symlink
/// to `outside/` while files are written into it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_a_directory_swap_never_writes_outside() {
    let sandbox = Sandbox::new();
    let dir = sandbox.ws.join("dir");
    let outside = sandbox.base.join("outside");
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (dir, outside, stop) = (dir.clone(), outside.clone(), stop.clone());
        std::thread::spawn(move || {
            let staged_dir = dir.with_extension("real");
            let staged_link = dir.with_extension("link");
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::create_dir(&staged_dir);
                let _ = std::fs::remove_dir_all(&dir).or_else(|_| std::fs::remove_file(&dir));
                let _ = std::fs::rename(&staged_dir, &dir);
                let _ = std::fs::remove_file(&staged_link);
                let _ = symlink(&outside, &staged_link);
                let _ = std::fs::remove_dir_all(&dir);
                let _ = std::fs::rename(&staged_link, &dir);
            }
        })
    };
    for round in 0..300 {
        let _ = sandbox.write(&format!("dir/file-{round}.txt"), "x").await;
        let read = sandbox.read("dir/secret.txt").await;
        assert!(!read.text().contains("SECRET"), "round {round}: {}", read.text());
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    sandbox.assert_outside_untouched();
}

/// A writer process killed in the middle of an atomic write leaves the old content
/// whole, and the next successful write clears the temporary file it left.
#[test]
fn a_killed_writer_leaves_the_old_content_intact() {
    let sandbox = Sandbox::new();
    let old = "A".repeat(16 * 1024 * 1024);
    let new = "B".repeat(16 * 1024 * 1024);
    std::fs::write(sandbox.ws.join("big.txt"), &old).unwrap();
    let arguments = json!({"path": "big.txt", "content": new}).to_string();
    let mut killed_mid_write = 0;
    for _ in 0..10 {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
            .args([
                "--workspace",
                sandbox.ws.to_str().unwrap(),
                "call",
                "write_file",
                "-",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, arguments.as_bytes()).unwrap();
        drop(stdin);
        // Kill the writer as soon as its temporary file appears.
        loop {
            if temp_files(&sandbox.ws) > 0 {
                child.kill().unwrap();
                killed_mid_write += 1;
                break;
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
        }
        child.wait().unwrap();
        let content = std::fs::read_to_string(sandbox.ws.join("big.txt")).unwrap();
        assert!(
            content == old || content == new,
            "the file is whole: {} bytes",
            content.len()
        );
    }
    assert!(killed_mid_write > 0, "at least one writer was killed mid-write");
    let result = std::process::Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .args([
            "--workspace",
            sandbox.ws.to_str().unwrap(),
            "call",
            "write_file",
            r#"{"path": "big.txt", "content": "done"}"#,
        ])
        .output()
        .unwrap();
    assert!(result.status.success());
    assert_eq!(
        std::fs::read_to_string(sandbox.ws.join("big.txt")).unwrap(),
        "done"
    );
    assert_eq!(temp_files(&sandbox.ws), 0, "no temporary file stays behind");
}

fn temp_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".agent-tools.tmp"))
        .count()
}
