//! Issue 27's attacks on the policy, performed for real through the command line with a
//! policy file: each is refused (or asks, which with no one to ask is a refusal), and
//! each has a control showing that the same call really does what the rule forbids when
//! the rule is not there.

use super::{Dirs, stdout};

/// Runs `exec` with `command` (and `env`, as exec takes it) under `policy`; the output.
fn exec(dirs: &Dirs, policy: &str, command: &str, env: &[(&str, &str)]) -> std::process::Output {
    let env: Vec<serde_json::Value> = env
        .iter()
        .map(|(name, value)| serde_json::json!({"name": name, "value": value}))
        .collect();
    let arguments = serde_json::json!({"command": command, "env": env}).to_string();
    dirs.run(&["--policy", policy, "call", "exec", &arguments])
}

/// Scripts that all run `rm -f v`, hidden from a text glob in different ways.
const HIDDEN_RM: &[&str] = &[
    "if true; then rm -f v; fi",
    " rm -f v",
    "\trm\t-f v",
    "f() { rm -f v; }; f",
    "(rm -f v)",
    "{ rm -f v; }",
    "echo $(rm -f v)",
    "echo `rm -f v`",
    "A=1 rm -f v",
    "rm${IFS}-f${IFS}v",
    "sh -c 'rm -f v'",
    "true && /bin/rm -f v",
    "env rm -f v",
];

#[test]
fn a_deny_rule_sees_commands_behind_keywords_blanks_substitutions_and_ifs() {
    let dirs = Dirs::new();
    let deny = dirs.file(
        "deny.toml",
        "[policy]\nmode = \"bypass\"\ndeny = [\"exec(command: rm *)\"]\n",
    );
    let bypass = dirs.file("bypass.toml", "[policy]\nmode = \"bypass\"\n");
    let victim = dirs.ws().join("v");
    for script in HIDDEN_RM {
        std::fs::write(&victim, "keep").unwrap();
        let refused = exec(&dirs, &deny, script, &[]);
        assert_eq!(refused.status.code(), Some(1), "{script}: {}", stdout(&refused));
        assert!(
            stdout(&refused).contains("the deny rule `exec(command: rm *)`"),
            "{script}: {}",
            stdout(&refused)
        );
        assert!(victim.exists(), "{script} ran under the deny rule");
        // Control: without the rule, the script does remove the file.
        let ran = exec(&dirs, &bypass, script, &[]);
        assert!(!victim.exists(), "{script} does not remove v: {}", stdout(&ran));
    }
}

#[test]
fn an_allow_rule_does_not_run_what_follows_a_url_shaped_value() {
    let dirs = Dirs::new();
    let policy = dirs.file(
        "allow-ls.toml",
        "[policy]\nmode = \"default\"\nallow = [\"exec(command: ls*)\"]\n",
    );
    let pwned = dirs.ws().join("pwned");
    // `ls+x://…` has no blank and a scheme: it once passed for a URL, which is not cut
    // at `;`, so `ls*` allowed the whole of it.
    for script in [
        "ls+x://;touch${IFS}pwned",
        "ls http://x/;touch pwned",
        "ls $(touch pwned)",
    ] {
        let refused = exec(&dirs, &policy, script, &[]);
        assert_eq!(refused.status.code(), Some(1), "{script}: {}", stdout(&refused));
        assert!(
            stdout(&refused).contains("needs a person's approval"),
            "{script}: {}",
            stdout(&refused)
        );
        assert!(!pwned.exists(), "{script} ran `touch` under `allow ls*`");
    }
    // Control: without a policy, the URL-shaped script does run `touch`.
    let bypass = dirs.file("bypass.toml", "[policy]\nmode = \"bypass\"\n");
    exec(&dirs, &bypass, "ls+x://;touch${IFS}pwned", &[]);
    assert!(pwned.exists(), "the control must show the attack works");
    // Control: what the rule allows runs.
    let listed = exec(&dirs, &policy, "ls -a", &[]);
    assert_eq!(listed.status.code(), Some(0), "{}", stdout(&listed));
    assert!(stdout(&listed).contains("x"), "{}", stdout(&listed));
}

#[test]
fn a_path_rule_sees_where_a_write_lands() {
    let dirs = Dirs::new();
    let policy = dirs.file(
        "paths.toml",
        "[policy]\nmode = \"accept_edits\"\ndeny = [\"write_file(path: .env)\"]\n",
    );
    let env = dirs.ws().join(".env");
    std::fs::write(&env, "TOKEN=real\n").unwrap();
    std::fs::create_dir(dirs.ws().join("allowed")).unwrap();
    std::os::unix::fs::symlink("../.env", dirs.ws().join("allowed/notes.txt")).unwrap();
    let absolute = env.to_str().unwrap().to_owned();
    for path in [
        absolute.as_str(),
        "allowed/notes.txt",
        "allowed//../.env",
        "./x/../.env",
    ] {
        let arguments = serde_json::json!({"path": path, "content": "TOKEN=stolen\n"}).to_string();
        let refused = dirs.run(&["--policy", &policy, "call", "write_file", &arguments]);
        assert_eq!(refused.status.code(), Some(1), "{path}: {}", stdout(&refused));
        assert!(
            stdout(&refused).contains("the deny rule `write_file(path: .env)`"),
            "{path}: {}",
            stdout(&refused)
        );
        assert_eq!(
            std::fs::read_to_string(&env).unwrap(),
            "TOKEN=real\n",
            "{path} replaced .env"
        );
    }
    // Control: without the rule, the link does lead the write to `.env`.
    let open = dirs.file("open.toml", "[policy]\nmode = \"accept_edits\"\n");
    let arguments = r#"{"path": "allowed/notes.txt", "content": "TOKEN=stolen\n"}"#;
    let written = dirs.run(&["--policy", &open, "call", "write_file", arguments]);
    assert_eq!(written.status.code(), Some(0), "{}", stdout(&written));
    assert_eq!(std::fs::read_to_string(&env).unwrap(), "TOKEN=stolen\n");
}

/// `git status` with git configured through the environment to run `touch pwned`.
const GIT_RUNS_A_COMMAND: &[(&str, &str)] = &[
    ("GIT_CONFIG_COUNT", "1"),
    ("GIT_CONFIG_KEY_0", "core.fsmonitor"),
    ("GIT_CONFIG_VALUE_0", "touch pwned; false"),
];

#[test]
fn variables_that_change_what_a_command_runs_are_refused_by_name() {
    let dirs = Dirs::new();
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dirs.ws())
        .status();
    assert!(
        init.is_ok_and(|status| status.success()),
        "this test needs git on PATH"
    );
    let policy = dirs.file(
        "git.toml",
        "[policy]\nmode = \"default\"\nallow = [\"exec(command: git status*)\"]\n",
    );
    let pwned = dirs.ws().join("pwned");
    let refused = exec(&dirs, &policy, "git status", GIT_RUNS_A_COMMAND);
    assert_eq!(refused.status.code(), Some(1), "{}", stdout(&refused));
    let said = stdout(&refused);
    assert!(
        said.contains("`GIT_CONFIG_COUNT`") && said.contains("`GIT_CONFIG_KEY_0`"),
        "{said}"
    );
    assert!(!pwned.exists(), "git ran the configured command");

    // A harmless variable no rule names makes the allowed command ask.
    let asked = exec(&dirs, &policy, "git status", &[("GREETING", "hi")]);
    assert!(
        stdout(&asked).contains("needs a person's approval"),
        "{}",
        stdout(&asked)
    );

    // Control: allowed by name, the variables do make `git status` run the command.
    let named = dirs.file(
        "git-named.toml",
        "[policy]\nmode = \"default\"\nallow = [\n  \"exec(command: git status*)\",\n  \
         \"exec(env: GIT_CONFIG_COUNT)\",\n  \"exec(env: GIT_CONFIG_KEY_0)\",\n  \
         \"exec(env: GIT_CONFIG_VALUE_0)\",\n]\n",
    );
    let ran = exec(&dirs, &named, "git status", GIT_RUNS_A_COMMAND);
    assert_eq!(ran.status.code(), Some(0), "{}", stdout(&ran));
    assert!(
        pwned.exists(),
        "the control must show the attack works: {}",
        stdout(&ran)
    );
}

#[test]
fn policy_check_explains_a_verdict_and_examples_are_checked_on_load() {
    let dirs = Dirs::new();
    let policy = dirs.file(
        "explained.toml",
        r#"
[policy]
deny = ["exec(command: rm *)"]
allow = ["exec(command: git status*)"]

[[policy.example]]
tool = "exec"
arguments = { command = "git status && rm -rf ~" }
expect = "deny"

[[policy.example]]
tool = "exec"
arguments = { command = "git status --short" }
expect = "allow"
"#,
    );
    let checked = dirs.run(&[
        "--policy",
        &policy,
        "policy",
        "check",
        "exec",
        r#"{"command": "if true; then rm -rf ~; fi"}"#,
    ]);
    assert_eq!(checked.status.code(), Some(0), "{}", super::stderr(&checked));
    let said = stdout(&checked);
    for line in [
        "exec: deny",
        "decided by the deny rule `exec(command: rm *)`",
        "command: rm -rf ~",
        "it has an `if` statement",
    ] {
        assert!(said.contains(line), "{line} missing from:\n{said}");
    }

    let wrong = dirs.file(
        "wrong.toml",
        r#"
[policy]
allow = ["exec(command: git *)"]

[[policy.example]]
tool = "exec"
arguments = { command = "git status; rm -rf ~" }
expect = "allow"
"#,
    );
    let refused = dirs.run(&["--policy", &wrong, "list"]);
    assert_eq!(refused.status.code(), Some(2));
    let said = super::stderr(&refused);
    assert!(
        said.contains("examples do not hold") && said.contains("expects allow but gets exec: ask"),
        "{said}"
    );
}

#[test]
fn the_readme_policy_check_shows_what_the_command_prints() {
    let readme = include_str!("../../../../../docs/guide/cli.md");
    let prompt = "$ agent-tools --policy policy.toml policy check ";
    let start = readme.find(prompt).expect("a policy check example") + prompt.len();
    let block = &readme[start..start + readme[start..].find("```").expect("the block's end")];
    let (command_line, shown) = block.split_once('\n').expect("output after the command");
    let (tool, arguments) = command_line.split_once(' ').expect("TOOL 'ARGS'");
    let arguments = arguments.trim_matches('\'');
    let dirs = Dirs::new();
    let policy = dirs.file("policy.toml", &super::readme_policy());
    let checked = dirs.run(&["--policy", &policy, "policy", "check", tool, arguments]);
    assert_eq!(
        stdout(&checked),
        shown,
        "README.md's `policy check` example is out of date"
    );
}
