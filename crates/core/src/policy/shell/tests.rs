use super::Script;

/// The simple commands rules see.
fn commands(text: &str) -> Vec<String> {
    Script::parse(text).commands().to_vec()
}

/// Whether deny rules see a command matching `pattern` (exact text).
fn denies(text: &str, command: &str) -> bool {
    Script::parse(text).restricted_by(|form| form == command)
}

fn transparent(text: &str) -> bool {
    Script::parse(text).opaque().is_none()
}

#[test]
fn simple_commands_are_words_after_quote_removal() {
    assert_eq!(commands("git status"), ["git status"]);
    assert_eq!(commands("  \t git\tstatus  "), ["git status"]);
    assert_eq!(commands("echo 'a;b' \"c d\" e\\ f"), ["echo a;b c d e f"]);
    assert_eq!(commands("$'\\x72m' -f v"), ["rm -f v"]);
    assert_eq!(
        commands("git status && git diff | cat; ls\npwd"),
        ["git status", "git diff", "cat", "ls", "pwd"]
    );
    assert_eq!(commands("FOO=1 cargo test > out.txt 2>&1"), ["cargo test"]);
}

#[test]
fn commands_behind_keywords_functions_and_subshells_are_seen() {
    for script in [
        "if true; then rm -f v; fi",
        "while false; do rm -f v; done",
        "for x in 1; do rm -f v; done",
        "case x in x) rm -f v;; esac",
        "f() { rm -f v; }; f",
        "(rm -f v)",
        "{ rm -f v; }",
        "echo $(rm -f v)",
        "echo `rm -f v`",
        "cat <(rm -f v)",
        "X=$(rm -f v) ls",
        "sh -c 'rm -f v'",
        "bash -lc \"rm -f v\"",
        "eval 'rm -f v'",
        "{rm,-f,v}",
        "echo ${x:-$(rm -f v)}",
    ] {
        assert!(denies(script, "rm -f v"), "{script}: {:?}", Script::parse(script));
        assert!(!transparent(script), "{script} must not be seen through");
    }
}

#[test]
fn commands_behind_wrappers_blanks_and_paths_are_seen() {
    for script in [
        "env A=1 rm -f v",
        "nohup nice -n 5 rm -f v",
        "timeout 10s sudo -u root rm -f v",
        "/bin/rm -f v",
        "find . -exec rm -f v \\;",
        "rm${IFS}-f${IFS}v",
        "rm$IFS-f v",
        "\t rm  -f\tv",
    ] {
        assert!(denies(script, "rm -f v"), "{script}: {:?}", Script::parse(script));
    }
}

#[test]
fn plain_operators_keep_a_script_transparent() {
    assert!(transparent("git status && git diff || true; ls | wc -l"));
    assert!(transparent("cargo test 2>&1 > /dev/null"));
    assert!(transparent("echo hi > notes/out.txt"));
    assert!(transparent("NAME=1 cargo test"));
}

#[test]
fn what_an_allow_rule_cannot_see_through_is_named() {
    for (script, why) in [
        ("sleep 1 &", "background"),
        ("$CMD -rf /", "command name"),
        ("echo hi > /etc/passwd", "/etc/passwd"),
        ("echo hi > .git/hooks/pre-commit", ".git"),
        ("echo hi > ../x", "../x"),
        ("echo hi > $OUT", "$OUT"),
        ("bash <<EOF\nrm -rf /\nEOF", "here-document"),
        ("python3 <<< 'import os'", "here-string"),
        ("LD_PRELOAD=/tmp/x.so ls", "LD_PRELOAD"),
        ("GIT_CONFIG_COUNT=1 git status", "GIT_CONFIG_COUNT"),
        ("source ./x.sh", "source"),
        ("echo $((a[$(id)]))", "arithmetic"),
        ("ls; if", "does not parse"),
    ] {
        let script = Script::parse(script);
        let opaque = script
            .opaque()
            .unwrap_or_else(|| panic!("{script:?} must be opaque"));
        assert!(opaque.contains(why), "{opaque} should name {why}");
    }
}

#[test]
fn a_script_that_does_not_parse_is_never_allowed_but_deny_rules_see_its_parts() {
    let script = Script::parse("ls; rm -f v; if");
    assert!(!script.allowed_by(|_| true));
    assert!(script.restricted_by(|form| form == "rm -f v"));
}

#[test]
fn allow_needs_every_command_and_a_command() {
    let script = Script::parse("git status && rm -f v");
    assert!(!script.allowed_by(|command| command.starts_with("git status")));
    assert!(script.allowed_by(|command| command.starts_with("git status") || command.starts_with("rm ")));
    assert!(!Script::parse("# only a comment").allowed_by(|_| true));
}

#[test]
fn hostile_nesting_is_not_parsed_and_does_not_crash() {
    let deep = format!("{}ls{}", "$(".repeat(10_000), ")".repeat(10_000));
    let script = Script::parse(&deep);
    assert!(script.opaque().is_some());
    let long = "ls ".repeat(40_000);
    assert!(Script::parse(&long).opaque().is_some());
}

#[test]
fn nested_subshells_read_as_arithmetic_are_still_seen() {
    // The parser takes `( (` for `((`; what is inside is still read as commands.
    for script in ["( ( /usr/bin/rm -f v ) )", "( (rm -f v) )"] {
        assert!(denies(script, "rm -f v"), "{script}: {:?}", Script::parse(script));
        assert!(!transparent(script));
    }
}

#[test]
fn a_script_nested_deep_only_once_decoded_is_not_parsed_either() {
    // `$'\x28'` is `(`: the text as written is shallow, the script `sh -c` runs is not.
    // Parsed, it overflowed the stack and aborted the process.
    let deep = format!("sh -c $'{}ls{}'", "\\x28".repeat(5_000), "\\x29".repeat(5_000));
    let script = Script::parse(&deep);
    assert!(!script.allowed_by(|_| true));
    // The decoded script was left unread: deny rules see it as text.
    assert!(script.restricted_by(|form| form.starts_with("((((((((")));
}
