//! A courtesy guard against obviously destructive commands. Not a security boundary.
//!
//! Deny-lists over shell text are bypassed in minutes (`$(printf rm) -rf /`, base64 into
//! `sh`, `python3 -c 'shutil.rmtree(…)'`); the boundary is the sandbox
//! ([`ExecSandbox`](crate::ExecSandbox)). The guard only stops a model from running the
//! classic accidents by mistake, and says so when it does. Patterns are regular
//! expressions, checked against every segment of the command (split at `;`, `&&`, `||`,
//! `|`, `&`, newlines and command substitutions) and against the whole command; a segment
//! that matches an allow pattern is let through.

use regex::Regex;

use crate::SetupError;

/// Compiled deny and allow patterns.
#[derive(Debug, Clone)]
pub(crate) struct CommandGuard {
    deny: Vec<Regex>,
    allow: Vec<Regex>,
}

impl CommandGuard {
    /// Compiles the patterns; an invalid one is a configuration error.
    pub(crate) fn new(deny: &[String], allow: &[String]) -> Result<Self, SetupError> {
        let compile = |patterns: &[String]| -> Result<Vec<Regex>, SetupError> {
            patterns
                .iter()
                .map(|pattern| {
                    Regex::new(pattern).map_err(|error| SetupError::GuardPattern {
                        pattern: pattern.clone(),
                        source: Box::new(PatternError(error)),
                    })
                })
                .collect()
        };
        Ok(Self {
            deny: compile(deny)?,
            allow: compile(allow)?,
        })
    }

    /// The reason a command is refused, if it is.
    pub(crate) fn check(&self, command: &str) -> Result<(), String> {
        let segments = std::iter::once(command).chain(segments(command));
        for segment in segments {
            let segment = segment.trim();
            if segment.is_empty() || self.allow.iter().any(|allow| allow.is_match(segment)) {
                continue;
            }
            if let Some(deny) = self.deny.iter().find(|deny| deny.is_match(segment)) {
                return Err(format!(
                    "refused by the command guard: `{segment}` matches the deny pattern `{}`. The guard stops \
                     common destructive commands; if this one is really intended, ask the user to run it",
                    deny.as_str()
                ));
            }
        }
        Ok(())
    }
}

/// A pattern's regex error in one line: the regex crate's messages point at the pattern
/// over several lines, of which the last says what is wrong.
#[derive(Debug)]
struct PatternError(regex::Error);

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.0.to_string();
        let reason = text.lines().last().unwrap_or_default();
        f.write_str(reason.trim_start_matches("error: "))
    }
}

impl std::error::Error for PatternError {}

/// The pieces a shell would run separately.
fn segments(command: &str) -> impl Iterator<Item = &str> {
    command
        .split(['\n', ';', '&', '|', '`', '(', ')'])
        .map(|segment| segment.trim_start_matches('$'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::exec::DEFAULT_DENY;

    fn default_guard() -> CommandGuard {
        let deny: Vec<String> = DEFAULT_DENY.iter().map(ToString::to_string).collect();
        CommandGuard::new(&deny, &[]).unwrap()
    }

    #[test]
    fn classic_accidents_are_refused() {
        let guard = default_guard();
        for command in [
            "rm -rf /",
            "rm -rf /*",
            "rm -fr ~",
            "sudo rm -r -f $HOME",
            "cd x && rm -Rf / ",
            "ls; rm -rf --no-preserve-root /tmp",
            "echo $(rm -rf /)",
            "mkfs.ext4 /dev/sda1",
            "dd if=/dev/zero of=/dev/sda bs=1M",
            "cat x > /dev/nvme0n1",
            "shutdown -h now",
            "sudo reboot",
            ":(){ :|:& };:",
            "chmod -R 777 /",
        ] {
            let error = guard.check(command).unwrap_err();
            assert!(
                error.starts_with("refused by the command guard"),
                "{command}: {error}"
            );
        }
    }

    #[test]
    fn ordinary_commands_pass() {
        let guard = default_guard();
        for command in [
            "rm -rf target",
            "rm -rf ./build/",
            "rm file.txt",
            "ls -la /",
            "cargo test -- --nocapture",
            "grep -r 'reboot' docs/",
            "echo done | tee log.txt",
            "dd if=input.img of=output.img",
        ] {
            assert!(guard.check(command).is_ok(), "{command}");
        }
    }

    #[test]
    fn allow_patterns_make_exceptions_and_bad_patterns_are_reported() {
        let deny = vec![r"\bcurl\b".to_owned()];
        let guard = CommandGuard::new(&deny, &[r"^curl https://internal\.example/".to_owned()]).unwrap();
        assert!(guard.check("curl https://internal.example/x").is_ok());
        assert!(guard.check("curl https://elsewhere.example/").is_err());
        assert!(
            CommandGuard::new(&["(".to_owned()], &[])
                .unwrap_err()
                .to_string()
                .starts_with("invalid exec settings: invalid guard pattern `(`: unclosed group")
        );
    }
}
