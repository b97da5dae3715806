//! What a mount decides about each tool a server lists before a model sees it, as
//! settings and as the report it gives: the change against the lock file, what the checks
//! of its name and texts found, and whether it is offered.
//!
//! The checks and their rules are `agent_tools_core::untrusted`'s; [`review`](super::review)
//! applies them and the lock file to a listing.

use std::fmt::{self, Write as _};

use agent_tools_core::tool::BoxFuture;
use agent_tools_core::untrusted::{Confusable, Finding};
use serde_json::{Value, json};

/// What a mount does with a tool whose definition is not the one pinned in its lock file:
/// changed since, added since, or (with
/// [`MountOptions::require_pinned`](super::MountOptions::require_pinned)) never pinned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OnChange {
    /// Hold it back until a person accepts the new definition: the mount's
    /// [`DefinitionReviewer`] when it has one, else [`McpMount::accept`](super::McpMount::accept)
    /// (`agent-tools mounts accept`). The default.
    #[default]
    Ask,
    /// Hold it back without asking; a person can still accept it.
    Deny,
    /// Pin the new definition and offer it; the change is still reported and logged.
    Accept,
}

/// What a mount does with a tool whose name or texts the checks flag (see
/// `agent_tools_core::untrusted`). A name confusable with another tool's is refused
/// whatever this says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OnSuspicious {
    /// Hold it back until a person accepts it (its definition is then pinned, and offered
    /// while it stays the same). The default.
    #[default]
    Ask,
    /// Never offer it.
    Deny,
    /// Offer it with the flagged passages (and invisible characters) taken out.
    Strip,
}

/// How a tool's definition differs from the one pinned for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// The server lists a tool the lock file does not have.
    Added,
    /// The definition is not the pinned one.
    Changed,
    /// A pinned tool the server no longer lists.
    Removed,
}

impl Change {
    /// `added`, `changed` or `removed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "added",
            Self::Changed => "changed",
            Self::Removed => "removed",
        }
    }
}

/// What became of a listed tool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Offered as listed (invisible characters taken out of its texts).
    Offered,
    /// Offered with the flagged passages taken out ([`OnSuspicious::Strip`]).
    Stripped,
    /// Not offered, for this reason.
    Withheld(String),
}

/// One finding of the checks, and where in the definition it was.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Flagged {
    /// The text it is in, as a JSON pointer into the definition: `/description`,
    /// `/inputSchema/properties/path/description`.
    pub at: String,
    /// What was found.
    pub finding: Finding,
}

/// What a mount found about one tool of its server, and what it decided.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolReview {
    /// The tool's name on the server.
    pub remote_name: String,
    /// Its name in the registry (the mount's prefix and the remote name).
    pub name: String,
    /// The hash of the definition as listed (`sha256:…`); of the pinned one for a removed
    /// tool.
    pub sha256: String,
    /// Whether the definition offered is the one pinned in the lock file.
    pub pinned: bool,
    /// How the definition differs from the pinned one, if it does.
    pub change: Option<Change>,
    /// A unified diff from the pinned definition to the listed one, when they differ.
    pub diff: Option<String>,
    /// What the checks of its texts found.
    pub findings: Vec<Flagged>,
    /// Another tool its name can pass for, if any (then it is refused).
    pub confusable: Option<Confusable>,
    /// Whether it is offered.
    pub decision: Decision,
}

impl ToolReview {
    /// The `mount` audit detail about the tool, the same on each of its calls' records
    /// and on the record of its being held back: the server, the remote name, the
    /// definition's hash, whether it is pinned, and, when there are any, the change, the
    /// findings (`at`, `rule`, `excerpt`) and the tool its name passes for.
    pub(super) fn audit_detail(&self, server: &str) -> Value {
        let mut detail = json!({
            "server": server,
            "tool": self.remote_name,
            "definition_sha256": self.sha256,
            "pinned": self.pinned,
        });
        if let Some(change) = self.change {
            detail["change"] = change.as_str().into();
        }
        if !self.findings.is_empty() {
            let findings = self.findings.iter().map(|flagged| {
                json!({"at": flagged.at, "rule": flagged.finding.rule.as_str(), "excerpt": flagged.finding.excerpt})
            });
            detail["findings"] = Value::Array(findings.collect());
        }
        if let Some(confusable) = &self.confusable {
            detail["confusable_with"] = confusable.other.clone().into();
        }
        detail
    }

    /// Whether there is anything to say about the tool: a change, a finding, a confusable
    /// name, or a decision other than offering it as listed.
    pub fn is_notable(&self) -> bool {
        self.change.is_some()
            || !self.findings.is_empty()
            || self.confusable.is_some()
            || self.decision != Decision::Offered
    }

    /// The start of [`sha256`](Self::sha256) that names the definition when a person
    /// accepts it ([`McpMount::accept_as_reviewed`](super::McpMount::accept_as_reviewed)):
    /// `sha256:` and 16 hex digits.
    pub fn short_sha256(&self) -> &str {
        let end = "sha256:".len() + super::review::REVIEWED_HASH_DIGITS;
        self.sha256.get(..end).unwrap_or(&self.sha256)
    }

    /// The review for a person, several lines: the tool and its decision, then the change
    /// (with the [`short_sha256`](Self::short_sha256) that accepts it) and each finding
    /// with the rule's explanation; the diff with `with_diff`.
    pub fn explain(&self, with_diff: bool) -> String {
        let pinned = if self.pinned { ", pinned" } else { "" };
        let mut text = format!("{} ({}{pinned})", self.name, self.decision);
        if let Some(change) = self.change {
            let _ = write!(
                text,
                "\n  definition {} since it was pinned ({})",
                change.as_str(),
                self.short_sha256()
            );
        }
        if let Some(confusable) = &self.confusable {
            let _ = write!(
                text,
                "\n  name: confusable with `{}`: {}",
                confusable.other, confusable.reason
            );
        }
        for flagged in &self.findings {
            let _ = write!(
                text,
                "\n  {}: {} — {}",
                flagged.at,
                flagged.finding,
                flagged.finding.rule.explain()
            );
        }
        if with_diff && let Some(diff) = &self.diff {
            for line in diff.lines() {
                let _ = write!(text, "\n    {line}");
            }
        }
        text
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Offered => f.write_str("offered"),
            Self::Stripped => f.write_str("offered with flagged passages removed"),
            Self::Withheld(reason) => write!(f, "withheld: {reason}"),
        }
    }
}

/// A person who decides, while the mount lists its server's tools, whether a changed,
/// added or suspicious definition is offered ([`OnChange::Ask`], [`OnSuspicious::Ask`]).
/// Accepting pins the listed definition in the lock file.
///
/// The command line asks the person at the terminal; without a reviewer, such tools wait
/// for [`McpMount::accept`](super::McpMount::accept).
pub trait DefinitionReviewer: Send + Sync + 'static {
    /// Whether to accept the tool `review` describes (`server` names its server); its
    /// [`diff`](ToolReview::diff) and [`findings`](ToolReview::findings) say what changed and
    /// what was found.
    fn accept<'a>(&'a self, server: &'a str, review: &'a ToolReview) -> BoxFuture<'a, bool>;
}
