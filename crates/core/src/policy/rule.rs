//! One policy rule: `TOOL`, or `TOOL(ARG: GLOB)`.
//!
//! `TOOL` is a tool name, or a glob over tool names (`github_*`); `ARG` names a top-level
//! argument, and `GLOB` is matched against its value as [`value`](super::value) explains.
//! A rule with an argument does not apply to a call without that argument.

use std::sync::Arc;

use super::glob::Glob;

/// A parsed rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    source: Arc<str>,
    tool: Glob,
    argument: Option<(Box<str>, Glob)>,
}

impl Rule {
    /// Parses `source`; the error says what is wrong, for a message naming the rule.
    pub(crate) fn parse(source: &str) -> Result<Self, String> {
        let text = source.trim();
        if text.is_empty() {
            return Err("a rule cannot be empty".to_owned());
        }
        let (tool, argument) = match text.split_once('(') {
            None => (text, None),
            Some((tool, rest)) => {
                let inner = rest
                    .strip_suffix(')')
                    .ok_or("a rule with `(` must end with `)`: `TOOL(ARG: GLOB)`")?;
                (tool.trim_end(), Some(argument(inner)?))
            }
        };
        if tool.is_empty() {
            return Err("the rule names no tool: `TOOL` or `TOOL(ARG: GLOB)`".to_owned());
        }
        if let Some(bad) = tool.chars().find(|c| !is_tool_glob_char(*c)) {
            return Err(format!(
                "`{bad}` cannot be in a tool name; names have letters, digits, `_` and `-`, \
                 and a rule's may have `*` and `?`"
            ));
        }
        Ok(Self {
            source: text.into(),
            tool: Glob::new(tool).map_err(|_| "the tool glob ends with a lone `\\`".to_owned())?,
            argument,
        })
    }

    /// The rule as written.
    pub(crate) fn source(&self) -> &Arc<str> {
        &self.source
    }

    /// Whether the rule is about tool `name` (whatever its arguments).
    pub(crate) fn names_tool(&self, name: &str) -> bool {
        self.tool.matches(name)
    }

    /// The argument the rule is about, if any.
    pub(crate) fn argument_name(&self) -> Option<&str> {
        self.argument.as_ref().map(|(name, _)| &**name)
    }

    /// The glob over the argument's value; `None` for a rule about the whole tool.
    pub(crate) fn glob(&self) -> Option<&Glob> {
        self.argument.as_ref().map(|(_, glob)| glob)
    }
}

/// `ARG: GLOB`, inside the parentheses.
fn argument(inner: &str) -> Result<(Box<str>, Glob), String> {
    let (name, glob) = inner
        .split_once(':')
        .ok_or("inside the parentheses goes `ARG: GLOB`, e.g. `exec(command: git status*)`")?;
    let (name, glob) = (name.trim(), glob.trim());
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-') {
        return Err(format!(
            "`{name}` is not an argument name; name a top-level argument, e.g. `command` or `path`"
        ));
    }
    if glob.is_empty() {
        return Err(format!("the glob for `{name}` is empty; `*` matches any value"));
    }
    let glob = Glob::new(glob).map_err(|_| format!("the glob for `{name}` ends with a lone `\\`"))?;
    Ok((name.into(), glob))
}

fn is_tool_glob_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*' | '?')
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::policy::seen::Seen;

    fn restricts(rule: &Rule, value: Value) -> bool {
        Seen::of(&value, None, None).restricted_by(rule)
    }

    fn permits(rule: &Rule, value: Value) -> bool {
        Seen::of(&value, None, None).allowed_by(std::slice::from_ref(rule))
    }

    #[test]
    fn tool_rules_name_tools_by_glob() {
        let rule = Rule::parse("github_*").unwrap();
        assert!(rule.names_tool("github_create_issue"));
        assert!(!rule.names_tool("gitlab_create_issue"));
        assert_eq!(rule.argument_name(), None);
        assert!(restricts(&rule, json!("anything")));
    }

    #[test]
    fn argument_rules_match_the_named_argument() {
        let rule = Rule::parse("exec(command: git status*)").unwrap();
        assert!(rule.names_tool("exec"));
        assert_eq!(rule.argument_name(), Some("command"));
        assert!(permits(&rule, json!("git status --short")));
        assert!(!permits(&rule, json!("git status; rm -rf ~")));
        assert_eq!(&**rule.source(), "exec(command: git status*)");
    }

    #[test]
    fn a_rewritten_path_cannot_slip_past_a_rule() {
        let allow = Rule::parse("write_file(path: src/**)").unwrap();
        assert!(permits(&allow, json!("src/lib.rs")));
        assert!(!permits(&allow, json!("src/../.env")));
        let deny = Rule::parse("write_file(path: .env)").unwrap();
        assert!(restricts(&deny, json!("./.env")));
        assert!(restricts(&deny, json!("src/../.env")));
    }

    #[test]
    fn bad_rules_say_what_is_wrong() {
        let problem = |rule: &str| Rule::parse(rule).unwrap_err();
        assert!(problem("").contains("empty"));
        assert!(problem("exec(command: ls").contains("must end with `)`"));
        assert!(problem("exec(ls)").contains("`ARG: GLOB`"));
        assert!(problem("(command: ls)").contains("names no tool"));
        assert!(problem("ex ec").contains("` ` cannot be in a tool name"));
        assert!(problem("exec(my arg: x)").contains("not an argument name"));
        assert!(problem("exec(command: )").contains("empty"));
        assert!(problem(r"exec(command: x\)").contains("lone"));
    }
}
