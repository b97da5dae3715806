//! Which tools a token's scopes reach: [`ScopeMap`].

use std::fmt;

use agent_tools_core::{
    context::Principal,
    policy::{Glob, GlobError},
    tool::ToolSpec,
};

/// Which scopes reach which tools, for a server that admits OAuth tokens.
///
/// Each rule grants one scope a set of tools: those whose names match one of its globs,
/// and, for a `read_only` rule, only those marked read-only. A token reaches a tool when
/// any of its scopes has a rule that grants it: the tool is listed to it, and its calls
/// run (subject to the registry's policy as usual). A call of a tool the token does not
/// reach is refused with `403 insufficient_scope`, naming the scopes that would reach it,
/// so that a client can ask its user for them. Nothing else shows such a tool to the
/// token: the registry's `tool_search` neither finds nor loads it, and an unknown tool's
/// error does not suggest it (see [`ToolVisibility`](agent_tools_core::search::ToolVisibility)). An empty map restricts nothing: every
/// valid token reaches every tool.
///
/// ```
/// use agent_tools_mcp::oauth::ScopeMap;
///
/// let scopes = ScopeMap::new()
///     .read_only("mcp:read", ["*"])?
///     .grant("mcp:write", ["*"])?
///     .grant("mcp:github", ["gh_*"])?;
/// assert_eq!(scopes.names(), ["mcp:read", "mcp:write", "mcp:github"]);
/// # Ok::<(), agent_tools_core::policy::GlobError>(())
/// ```
#[derive(Clone, Default)]
pub struct ScopeMap {
    rules: Vec<ScopeRule>,
}

#[derive(Clone)]
struct ScopeRule {
    scope: String,
    tools: Vec<Glob>,
    read_only: bool,
}

impl ScopeMap {
    /// A map that restricts nothing until a rule is added.
    pub fn new() -> Self {
        Self::default()
    }

    /// Grants `scope` the tools whose names match one of `tools` (globs: `*`, `gh_*`).
    pub fn grant<T: AsRef<str>>(
        self,
        scope: impl Into<String>,
        tools: impl IntoIterator<Item = T>,
    ) -> Result<Self, GlobError> {
        self.rule(scope.into(), tools, false)
    }

    /// Grants `scope` the read-only tools among those matching `tools`.
    pub fn read_only<T: AsRef<str>>(
        self,
        scope: impl Into<String>,
        tools: impl IntoIterator<Item = T>,
    ) -> Result<Self, GlobError> {
        self.rule(scope.into(), tools, true)
    }

    fn rule<T: AsRef<str>>(
        mut self,
        scope: String,
        tools: impl IntoIterator<Item = T>,
        read_only: bool,
    ) -> Result<Self, GlobError> {
        let tools = tools
            .into_iter()
            .map(|tool| Glob::new(tool.as_ref()))
            .collect::<Result<_, _>>()?;
        self.rules.push(ScopeRule {
            scope,
            tools,
            read_only,
        });
        Ok(self)
    }

    /// Whether the map restricts anything.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The scopes named, in the order of their first rule (for the protected resource
    /// metadata's `scopes_supported`).
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for rule in &self.rules {
            if !names.contains(&rule.scope.as_str()) {
                names.push(&rule.scope);
            }
        }
        names
    }

    /// Whether `principal`'s scopes reach `tool`.
    pub fn allows(&self, principal: &Principal, tool: &ToolSpec) -> bool {
        self.is_empty()
            || self
                .rules
                .iter()
                .any(|rule| principal.has_scope(&rule.scope) && rule.grants(tool))
    }

    /// The scopes that would reach `tool`, in the map's order.
    pub fn scopes_for(&self, tool: &ToolSpec) -> Vec<&str> {
        let mut scopes: Vec<&str> = Vec::new();
        for rule in self.rules.iter().filter(|rule| rule.grants(tool)) {
            if !scopes.contains(&rule.scope.as_str()) {
                scopes.push(&rule.scope);
            }
        }
        scopes
    }
}

impl ScopeRule {
    fn grants(&self, tool: &ToolSpec) -> bool {
        (!self.read_only || tool.meta.annotations.read_only == Some(true))
            && self.tools.iter().any(|glob| glob.matches(&tool.meta.name))
    }
}

impl fmt::Debug for ScopeMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for rule in &self.rules {
            list.entry(&format_args!(
                "{}{} -> {:?}",
                rule.scope,
                if rule.read_only { " (read-only)" } else { "" },
                rule.tools
            ));
        }
        list.finish()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(name: &str, read_only: bool) -> ToolSpec {
        let mut spec = ToolSpec::new(name, "A tool.", json!({"type": "object"}));
        spec.meta.annotations.read_only = Some(read_only);
        spec
    }

    #[test]
    fn a_scope_reaches_the_tools_its_rules_grant() {
        let scopes = ScopeMap::new()
            .read_only("mcp:read", ["*"])
            .unwrap()
            .grant("mcp:write", ["*"])
            .unwrap()
            .grant("mcp:github", ["gh_*"])
            .unwrap();
        let reader = Principal::new("r").with_scopes(["mcp:read"]);
        let github = Principal::new("g").with_scopes(["mcp:github"]);
        let nobody = Principal::new("n");
        let (read_file, exec, gh_issue) = (
            tool("read_file", true),
            tool("exec", false),
            tool("gh_issue", false),
        );
        assert!(scopes.allows(&reader, &read_file));
        assert!(!scopes.allows(&reader, &exec));
        assert!(scopes.allows(&github, &gh_issue));
        assert!(!scopes.allows(&github, &exec));
        assert!(!scopes.allows(&nobody, &read_file));
        assert_eq!(scopes.scopes_for(&exec), ["mcp:write"]);
        assert_eq!(scopes.scopes_for(&gh_issue), ["mcp:write", "mcp:github"]);
        assert!(
            ScopeMap::new().allows(&nobody, &exec),
            "an empty map restricts nothing"
        );
    }
}
