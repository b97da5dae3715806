//! Checks for tests: would every provider accept a tool's definition?
//!
//! A schema problem is otherwise found in production, as a provider's 400 response to a
//! request that carries every tool. [`check_tool`] renders a tool in every dialect — both
//! strict and non-strict where the provider has a strict mode — and runs the result
//! through [`provider_rule_violations`], checkers written from each provider's
//! documentation independently of the dialect code. The test `#[tool]` emits for every
//! tool calls it, so `cargo test` catches these problems.
//!
//! `check_tool::<ReadFileTool>()` checks a `#[tool]` type, [`check_registry`] everything
//! registered, [`check_spec`] a hand-written spec:
//!
//! ```
//! use agent_tools_core::testing::check_spec;
//! use agent_tools_core::tool::ToolSpec;
//!
//! let spec = ToolSpec::new("env", "Set environment variables.", serde_json::json!({
//!     "type": "object",
//!     "properties": {"vars": {"type": "object", "additionalProperties": {"type": "string"}}},
//!     "required": ["vars"],
//! }));
//! // Maps have no strict form, but the tool is not marked strict: every provider
//! // accepts the fallback definitions.
//! check_spec(&spec).unwrap();
//! ```

mod rules;

use std::fmt;

pub use rules::{provider_rule_violations, tool_list_violations};

use crate::{
    dialect::{DefinitionOptions, Dialect, Strict},
    registry::ToolRegistry,
    spec::ToolSpec,
    typed::TypedTool,
};

/// One thing wrong with a tool's definition.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// The tool's name.
    pub tool: String,
    /// The dialect that has the problem; `None` for problems in every dialect (an
    /// invalid name or schema).
    pub dialect: Option<Dialect>,
    /// What is wrong.
    pub message: String,
}

/// Every problem found by a check; `Display` lists them per tool and dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    problems: Vec<Problem>,
}

impl CheckReport {
    /// The problems, grouped by tool.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    fn into_result(self) -> Result<(), CheckReport> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut tool = None;
        for problem in &self.problems {
            if tool != Some(&problem.tool) {
                writeln!(f, "tool `{}`:", problem.tool)?;
                tool = Some(&problem.tool);
            }
            let dialect = problem.dialect.map_or("all dialects", Dialect::id);
            writeln!(f, "  {dialect}: {}", problem.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for CheckReport {}

/// Checks a typed tool without an instance (its state may be unavailable in tests).
pub fn check_tool<T: TypedTool>() -> Result<(), CheckReport> {
    check_spec(&crate::typed::build_spec::<T>())
}

/// Checks every tool of a registry.
pub fn check_registry(registry: &ToolRegistry) -> Result<(), CheckReport> {
    let problems = registry
        .tools()
        .iter()
        .flat_map(|tool| problems(tool.spec()))
        .collect();
    CheckReport { problems }.into_result()
}

/// Checks one spec: a usable name and schema, and for every dialect a definition the
/// provider accepts. A tool marked strict must have a strict form where the provider
/// has a strict mode.
pub fn check_spec(spec: &ToolSpec) -> Result<(), CheckReport> {
    CheckReport {
        problems: problems(spec),
    }
    .into_result()
}

fn problems(spec: &ToolSpec) -> Vec<Problem> {
    let mut found = Vec::new();
    let mut add = |dialect: Option<Dialect>, message: String| {
        let problem = Problem {
            tool: spec.meta.name.clone(),
            dialect,
            message,
        };
        if !found.contains(&problem) {
            found.push(problem);
        }
    };
    if let Err(error) = crate::registry::checked_validator(spec) {
        add(None, error.to_string());
        return found;
    }
    for options in renderings() {
        let dialect = Some(options.dialect);
        let definition = options.render(spec);
        for issue in &definition.problems {
            add(dialect, issue.to_string());
        }
        if spec.meta.strict && options.strict == Strict::Always && !definition.strict {
            for issue in &definition.fallbacks {
                add(dialect, format!("the tool is marked strict, but {issue}"));
            }
        }
        for violation in provider_rule_violations(options.dialect, &definition.value) {
            add(
                dialect,
                format!("the definition breaks a provider rule: {violation}"),
            );
        }
    }
    found
}

/// Every form a definition can take: strict and not where the provider has a strict
/// mode, the default form elsewhere.
fn renderings() -> impl Iterator<Item = DefinitionOptions> {
    Dialect::ALL.into_iter().flat_map(|dialect| {
        let stricts: &[Strict] = if dialect.has_strict_mode() {
            &[Strict::Always, Strict::Never]
        } else {
            &[Strict::Auto]
        };
        stricts
            .iter()
            .map(move |strict| DefinitionOptions::new(dialect).strict(*strict))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::spec::ToolMeta;

    fn spec(strict: bool, schema: serde_json::Value) -> ToolSpec {
        ToolMeta::new("t", "Test.").strict(strict).into_spec(schema, None)
    }

    #[test]
    fn a_plain_tool_passes_everywhere() {
        let schema = json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["path"],
            "additionalProperties": false
        });
        check_spec(&spec(false, schema)).unwrap();
    }

    #[test]
    fn a_strict_tool_without_a_strict_form_fails() {
        let schema = json!({
            "type": "object",
            "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}},
            "required": ["env"],
            "additionalProperties": false
        });
        check_spec(&spec(false, schema.clone())).unwrap();
        let report = check_spec(&spec(true, schema)).unwrap_err();
        let text = report.to_string();
        assert!(
            text.starts_with("tool `t`:\n  openai-chat: the tool is marked strict, but `/properties/env`"),
            "{text}"
        );
        assert!(text.contains("anthropic: the tool is marked strict"), "{text}");
    }

    #[test]
    fn an_unusable_schema_is_one_problem() {
        let report = check_spec(&spec(false, json!({"type": "string"}))).unwrap_err();
        assert_eq!(report.problems().len(), 1);
        assert_eq!(report.problems()[0].dialect, None);
    }
}
