//! What an argument *is*, beyond its JSON type, so that policy rules over it are decided
//! on what the tool will do with it (see [`crate::policy`]).

use std::fmt;

/// The kind of a tool argument, as the tool declares it
/// ([`ToolMeta::argument_kind`](crate::spec::ToolMeta::argument_kind), or
/// `#[tool(kinds(command = command, cwd = path))]`).
///
/// A rule over an argument with a kind sees the parsed value: the simple commands of a
/// shell script, the path a file operation will land on, a normalized URL, the names of
/// environment variables. An argument without a kind (every argument of a mounted MCP
/// tool) is a plain value, matched as text in several forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ArgumentKind {
    /// A shell script the tool runs (`exec`'s `command`).
    ShellCommand,
    /// A path the tool resolves in its workspace (`write_file`'s `path`).
    WorkspacePath,
    /// A URL the tool fetches (`web_fetch`'s `url`).
    Url,
    /// Environment variables the tool sets for a program: an object of names to values,
    /// or an array of `{"name": …, "value": …}` objects (`exec`'s `env`).
    Environment,
    /// A patch in Codex's format ([`crate::patch`]) the tool applies in its workspace
    /// (`apply_patch`'s `input`): rules see every path it names, each as a
    /// [`WorkspacePath`](Self::WorkspacePath).
    Patch,
}

impl ArgumentKind {
    /// The name in `#[tool(kinds(…))]` and in explanations: `command`, `path`, `url`,
    /// `env`, `patch`.
    pub fn as_str(self) -> &'static str {
        match self {
            ArgumentKind::ShellCommand => "command",
            ArgumentKind::WorkspacePath => "path",
            ArgumentKind::Url => "url",
            ArgumentKind::Environment => "env",
            ArgumentKind::Patch => "patch",
        }
    }

    /// The kind named `name` (see [`as_str`](Self::as_str)).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Self::ShellCommand,
            Self::WorkspacePath,
            Self::Url,
            Self::Environment,
            Self::Patch,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == name)
    }
}

impl fmt::Display for ArgumentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
