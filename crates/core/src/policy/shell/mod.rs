//! Shell commands as a shell will run them, for rules over an argument of kind
//! [`ArgumentKind::ShellCommand`](crate::spec::ArgumentKind::ShellCommand).
//!
//! The value is parsed as a bash script (by `brush-parser`, a bash grammar in pure Rust;
//! bash is a superset of the `/bin/sh` that `exec` runs by default, so reading the script
//! as bash sees at least what the shell will run). A rule's glob is then matched against
//! each **simple command**: its words after quote removal (`'a;b'` is `a;b`, `$'\x72m'`
//! is `rm`, `a\ b` is `a b`), joined by one space, with assignments (`X=1`) and
//! redirections (`> out`) set aside, and with an unquoted `$IFS` taken as the blank it
//! expands to. Tabs and runs of blanks between words are one space.
//!
//! **Deny and ask rules** see every simple command anywhere in the script: after
//! keywords (`if`, `while`, `for`, `case`), in functions, brace groups and subshells,
//! in command and process substitutions, in `sh -c '…'`/`bash -c '…'` and `eval`
//! arguments, behind wrappers that run another command (`env`, `command`, `exec`,
//! `nohup`, `nice`, `timeout`, `xargs`, `sudo`, `find -exec`, …; the command is also
//! seen without them), with a path-qualified name also seen by its last segment
//! (`/bin/rm` is `rm` too), and the whole text as written.
//!
//! **An allow rule** applies only to a script it can see through: simple commands joined
//! by `;`, newlines, `&&`, `||` and `|`, **each** matched by an allow rule of the
//! argument. Anything else makes every allow rule step aside, so the mode decides
//! (in `default` mode the call asks): a compound command (`if`, loops, `case`, `{ }`,
//! `( )`, `[[ ]]`, functions), `&`, a command or process substitution, an arithmetic
//! expansion, a variable or brace expansion in the command name, `eval`, `source`, a
//! shell's `-c`, a here-document or here-string feeding a shell or interpreter, an
//! assignment to a variable that changes what a program runs
//! ([`is_dangerous_variable`](crate::policy::is_dangerous_variable)),
//! output redirected anywhere but `/dev/null`, `/dev/stdout`, `/dev/stderr` or a plain
//! relative path in the workspace outside `.git`, and a script that does not parse.
//!
//! What this does not do: it cannot know what a program does with its arguments
//! (`git -c core.pager=… log`, `python x.py`, `make`); an allow rule on such a program
//! allows what that program can do. Rules over commands say what is routine; the shell
//! sandbox confines what a command can reach.

mod walk;
mod words;

use super::value::cut_commands;

/// Longer scripts are not parsed (they fall to the mode, and deny rules see their text
/// cut at operators): the parser recurses, and a model's script is rarely this long. The
/// limits hold for every script read, nested ones too: a script inside `sh -c $'…'` is
/// decoded first, and its nesting does not show in the text as written.
const MAX_PARSED_LEN: usize = 64 * 1024;

/// Deeper nesting of brackets is not parsed, for the same reason.
const MAX_NESTING: usize = 64;

/// A shell command value, parsed: what rules over it see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Script<'a> {
    /// The script as written, which deny and ask rules see too.
    text: &'a str,
    /// Every simple command, in the order they appear, nested ones included.
    commands: Vec<String>,
    /// What else deny and ask rules see: commands without their wrappers, by their
    /// name's last segment, scripts that were not read.
    also: Vec<String>,
    /// Why no allow rule can see through the script, if one cannot.
    opaque: Option<String>,
}

impl<'a> Script<'a> {
    /// Parses `text`.
    pub(crate) fn parse(text: &'a str) -> Self {
        let mut walk = walk::Walk::default();
        match walk.script(text) {
            Ok(()) => Self {
                text,
                commands: walk.commands,
                also: walk.also,
                opaque: walk.opaque,
            },
            // Deny rules see the text cut at every operator character, and no allow
            // rule applies.
            Err(problem) => Self {
                text,
                commands: Vec::new(),
                also: rough_commands(text).collect(),
                opaque: Some(format!("the command does not parse: {problem}")),
            },
        }
    }

    /// Whether a deny or ask rule's glob applies: it matches the text, a simple command
    /// or another form of one.
    pub(crate) fn restricted_by(&self, matches: impl Fn(&str) -> bool) -> bool {
        matches(self.text) || self.commands.iter().chain(&self.also).any(|form| matches(form))
    }

    /// Whether allow rules apply: the script can be seen through, has a command, and
    /// `matches` (any allow rule of the argument) matches each of them.
    pub(crate) fn allowed_by(&self, matches: impl Fn(&str) -> bool) -> bool {
        self.opaque.is_none() && !self.commands.is_empty() && self.commands.iter().all(|c| matches(c))
    }

    /// The simple commands, as rules see them.
    pub(crate) fn commands(&self) -> &[String] {
        &self.commands
    }

    /// Why no allow rule can see through the script.
    pub(crate) fn opaque(&self) -> Option<&str> {
        self.opaque.as_deref()
    }
}

/// What a text no parser read may run, roughly: its parts between operator characters,
/// each also with its first word's path dropped (`/bin/rm -f v` is also `rm -f v`).
fn rough_commands(text: &str) -> impl Iterator<Item = String> + '_ {
    cut_commands(text).flat_map(|part| {
        let (first, rest) = part.split_once(' ').unwrap_or((part, ""));
        let program = walk::last_segment(first);
        let renamed = (program != first).then(|| format!("{program} {rest}").trim_end().to_owned());
        std::iter::once(part.to_owned()).chain(renamed)
    })
}

/// Whether `text` is small and shallow enough to give the parser, which recurses.
fn within_parse_limits(text: &str) -> bool {
    text.len() <= MAX_PARSED_LEN && nesting(text) <= MAX_NESTING
}

/// The deepest nesting of `(`, `{` and `[` in `text`, quotes ignored (an upper bound).
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for byte in text.bytes() {
        match byte {
            b'(' | b'{' | b'[' | b'`' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests;
