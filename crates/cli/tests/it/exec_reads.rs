//! `exec` reading what it should not: the user's keys, another project's secrets, the
//! system's password hashes — through the command line, as the agent runs, with a home
//! directory of the test's own. Each attack is run again with its defence switched off by
//! configuration (`deny_read = []`, `read = "all"`), which must let it through, so that a
//! refusal is known to come from the sandbox. A toolchain (Python, git, a C compiler) must
//! still work under `read = "workspace"`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

/// A private key's contents, recognisable in any output.
const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY----- agent-tools-test-key";
/// Another project's secret.
const SECRET: &str = "API_TOKEN=agent-tools-test-secret";

/// A home directory with keys, a workspace, and another project beside it.
struct Machine {
    _temp: tempfile::TempDir,
    home: PathBuf,
    workspace: PathBuf,
    other: PathBuf,
}

impl Machine {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        let (home, workspace, other) = (base.join("home"), base.join("ws"), base.join("other"));
        for dir in [
            home.join(".ssh"),
            home.join(".aws"),
            workspace.clone(),
            other.clone(),
        ] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), KEY).unwrap();
        std::fs::write(home.join(".aws/credentials"), KEY).unwrap();
        std::fs::write(home.join(".profile"), "profile-is-readable").unwrap();
        std::fs::write(other.join(".env"), SECRET).unwrap();
        Self {
            _temp: temp,
            home,
            workspace,
            other,
        }
    }

    /// `agent-tools call exec COMMAND` with `config` as the configuration file and this
    /// machine's home directory: whether it succeeded, and what it printed.
    fn exec(&self, config: &str, command: &str) -> (bool, String) {
        let config_file = self.workspace.join("../config.toml");
        std::fs::write(&config_file, format!("[exec]\nrequire_sandbox = true\n{config}")).unwrap();
        let arguments = json!({ "command": command }).to_string();
        let output = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
            .arg("--workspace")
            .arg(&self.workspace)
            .arg("--config")
            .arg(&config_file)
            .args(["call", "exec", &arguments])
            .env("HOME", &self.home)
            .output()
            .unwrap();
        let text =
            String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
        (output.status.success(), text)
    }
}

/// A TOML string of `path`.
fn toml(path: &Path) -> String {
    json!(path.to_str().unwrap()).to_string()
}

fn assert_refused(text: &str, secret: &str) {
    assert!(
        !text.contains(secret) && text.contains("Permission denied"),
        "the read was not refused:\n{text}"
    );
}

#[test]
fn the_users_keys_are_hidden_by_default_and_readable_only_when_the_setting_says_so() {
    let machine = Machine::new();
    for attack in [
        "cat ~/.ssh/id_ed25519",
        "cat ~/.aws/credentials",
        "cd ~/.ssh && cat id_ed25519",
    ] {
        let (ok, text) = machine.exec("", attack);
        assert!(ok, "{text}");
        assert_refused(&text, KEY);
        // The result says what was hidden.
        assert!(text.contains("hidden by `deny_read`: "), "{text}");
        assert!(text.contains("~/.ssh") && text.contains("~/.aws"), "{text}");
    }
    // A link in the workspace leads to the same file, and is refused the same way.
    let (_, text) = machine.exec("", "ln -s ~/.ssh/id_ed25519 key && cat key");
    assert_refused(&text, KEY);
    // The rest of the home directory stays readable, and listable.
    let (_, text) = machine.exec("", "cat ~/.profile && ls -a ~");
    assert!(
        text.contains("profile-is-readable") && text.contains(".ssh"),
        "{text}"
    );

    // Positive control: the same read with nothing hidden.
    let (_, text) = machine.exec("deny_read = []\n", "cat ~/.ssh/id_ed25519");
    assert!(text.contains(KEY), "{text}");
}

#[test]
fn another_projects_secrets_are_hidden_under_read_workspace() {
    let machine = Machine::new();
    let confined = "read = \"workspace\"\n";
    for attack in [
        "cat ../other/.env",
        &format!("cat {}/.env", machine.other.display()),
    ] {
        let (ok, text) = machine.exec(confined, attack);
        assert!(ok, "{text}");
        assert_refused(&text, SECRET);
        assert!(text.contains("reading is confined to the workspace"), "{text}");
    }
    // The home directory is outside too.
    let (_, text) = machine.exec(confined, "cat ~/.profile");
    assert_refused(&text, "profile-is-readable");
    // The workspace and the command's TMPDIR are readable.
    let (_, text) = machine.exec(
        confined,
        "echo in-ws > f && cat f && echo in-tmp > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"",
    );
    assert!(text.contains("in-ws") && text.contains("in-tmp"), "{text}");
    // `allow_read` opens a path again.
    let allowed = format!("{confined}allow_read = [{}]\n", toml(&machine.other));
    let (_, text) = machine.exec(&allowed, "cat ../other/.env");
    assert!(text.contains(SECRET), "{text}");

    // Positive control: `read = "all"` reads it.
    let (_, text) = machine.exec("read = \"all\"\n", "cat ../other/.env");
    assert!(text.contains(SECRET), "{text}");
}

#[test]
fn deny_read_hides_matching_paths_under_read_all() {
    let machine = Machine::new();
    let parent = machine.other.parent().unwrap();
    let hidden = format!("deny_read = [{}]\n", toml(&parent.join("*/.env")));
    let (_, text) = machine.exec(&hidden, "cat ../other/.env");
    assert_refused(&text, SECRET);
    assert!(text.contains("other/.env"), "{text}");
    // A link inside the workspace to the hidden file is refused too.
    let (_, text) = machine.exec(&hidden, "ln -s ../other/.env e && cat e");
    assert_refused(&text, SECRET);
    // Positive control: the default list does not name it.
    let (_, text) = machine.exec("", "cat ../other/.env");
    assert!(text.contains(SECRET), "{text}");
}

#[test]
fn the_systems_password_hashes_are_hidden_by_default() {
    if !Path::new("/etc/shadow").exists() {
        return;
    }
    let machine = Machine::new();
    let (_, text) = machine.exec("", "cat /etc/shadow");
    assert!(text.contains("Permission denied"), "{text}");
    assert!(text.contains("/etc/shadow"), "{text}");
    // The rest of /etc is readable.
    let (_, text) = machine.exec("", "cat /etc/passwd");
    assert!(text.contains("root:"), "{text}");
}

#[test]
fn bad_patterns_are_refused_at_setup_naming_the_setting() {
    let machine = Machine::new();
    let (ok, text) = machine.exec("deny_read = [\"~/**/.env\"]\n", "true");
    assert!(
        !ok && text.contains("deny_read `~/**/.env`") && text.contains("**"),
        "{text}"
    );
    let (ok, text) = machine.exec("allow_read = [\"../x\"]\n", "true");
    assert!(!ok && text.contains("allow_read `../x`"), "{text}");
}

/// The directories python3 needs, wherever this machine keeps it (a pyenv in the home
/// directory is outside the system's paths).
fn python_paths() -> Vec<PathBuf> {
    let output = Command::new("python3")
        .args([
            "-c",
            "import sys, os; print(sys.base_prefix); print(os.path.realpath(sys.executable))",
        ])
        .output()
        .unwrap();
    let mut paths: Vec<PathBuf> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    // The `python3` found on PATH may be a shim in front of the interpreter.
    let found = Command::new("sh")
        .args(["-c", "command -v python3"])
        .output()
        .unwrap();
    let shim = PathBuf::from(String::from_utf8(found.stdout).unwrap().trim());
    if let Some(dir) = shim.parent().and_then(Path::parent) {
        paths.push(dir.to_path_buf());
    }
    paths
}

#[test]
fn a_toolchain_works_under_read_workspace() {
    let python = test_support::require_program("python3", "apt-get install python3");
    let git = test_support::require_program("git", "apt-get install git");
    let cc = test_support::require_program("cc", "apt-get install gcc");
    if python.is_none() || git.is_none() || cc.is_none() {
        return;
    }
    let machine = Machine::new();
    let allow: Vec<String> = python_paths().iter().map(|path| toml(path)).collect();
    let config = format!("read = \"workspace\"\nallow_read = [{}]\n", allow.join(", "));
    let (_, text) = machine.exec(
        &config,
        "python3 -c 'import json, ssl; print(json.dumps([6 * 7]))'",
    );
    assert!(text.contains("[42]"), "{text}");
    let (_, text) = machine.exec(
        &config,
        "git init -q . && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m first && git log --oneline",
    );
    assert!(text.contains("first"), "{text}");
    let (_, text) = machine.exec(
        &config,
        "printf '#include <stdio.h>\\nint main(void){puts(\"compiled\");return 0;}\\n' > m.c && cc m.c -o m && ./m",
    );
    assert!(text.contains("compiled"), "{text}");
}
