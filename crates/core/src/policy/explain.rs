//! [`Explanation`]: a policy's verdict on one call, what its rules saw and why, so that
//! people can test their rules before a model does.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Decision, Reason};
use crate::spec::ArgumentKind;

/// What a policy does with one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Verdict {
    /// The call runs.
    Allow,
    /// The call needs a person's approval.
    Ask,
    /// The call is refused.
    Deny,
}

impl Verdict {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One argument as the rules saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenArgument {
    name: String,
    kind: Option<ArgumentKind>,
    seen: Vec<String>,
}

impl SeenArgument {
    pub(super) fn new(name: &str, kind: Option<ArgumentKind>, seen: Vec<String>) -> Self {
        Self {
            name: name.to_owned(),
            kind,
            seen,
        }
    }

    /// The argument's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its declared kind; `None` for a plain value.
    pub fn kind(&self) -> Option<ArgumentKind> {
        self.kind
    }

    /// What the rules saw, one line each (`command: git status`,
    /// `lands on: .env (in the workspace)`).
    pub fn seen(&self) -> &[String] {
        &self.seen
    }
}

/// A policy's verdict on a call, with what decided it ([`Policy::explain`](super::Policy::explain)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    tool: String,
    verdict: Verdict,
    /// The rule or mode that decided; `None` when an allow rule did.
    reason: Option<Reason>,
    arguments: Vec<SeenArgument>,
}

impl Explanation {
    /// `mode` is the mode's reason when the mode decided.
    pub(super) fn new(
        tool: String,
        decision: Decision,
        mode: Option<Reason>,
        arguments: Vec<SeenArgument>,
    ) -> Self {
        let (verdict, reason) = match decision {
            Decision::Allow => (Verdict::Allow, mode),
            Decision::Ask(reason) => (Verdict::Ask, Some(reason)),
            Decision::Deny(reason) => (Verdict::Deny, Some(reason)),
        };
        Self {
            tool,
            verdict,
            reason,
            arguments,
        }
    }

    /// The verdict.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// What decided an `ask` or `deny`, or an `allow` by the mode; `None` when allow
    /// rules did.
    pub fn reason(&self) -> Option<&Reason> {
        self.reason.as_ref()
    }

    /// The arguments the rules looked at, as they saw them.
    pub fn arguments(&self) -> &[SeenArgument] {
        &self.arguments
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {}", self.tool, self.verdict)?;
        match &self.reason {
            Some(reason) => writeln!(f, "  decided by {reason}")?,
            None => writeln!(f, "  decided by the allow rules of its arguments")?,
        }
        for argument in &self.arguments {
            let kind = argument.kind.map_or("plain value", ArgumentKind::as_str);
            writeln!(f, "  {} ({kind}):", argument.name)?;
            for line in &argument.seen {
                writeln!(f, "    {}", line.escape_debug())?;
            }
        }
        Ok(())
    }
}
