//! The `[policy]` section — of the `--policy` file, or of the `--config` file — as a
//! [`Policy`] for the registry the command line builds.
//!
//! ```toml
//! [policy]
//! mode = "default"        # default | read_only | bypass
//! deny = ["exec(command: rm -rf*)"]
//! ask = ["web_fetch"]
//! allow = ["exec(command: git status*)", "write_file(path: src/**)"]
//!
//! # Calls and the verdict they must get, checked whenever the file is loaded:
//! [[policy.example]]
//! tool = "exec"
//! arguments = { command = "git status && rm -rf ~" }
//! expect = "deny"
//! ```

use std::path::Path;

use serde::Deserialize;

use agent_tools::{
    ToolRegistry,
    policy::{Policy, PolicyBuilder, PolicyExample, PolicyMode, RuleList},
};

use super::toml_file::{ConfigError, FileKind, TomlFile};

/// `[policy]` as written; every key may be left out.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicySection {
    #[serde(default)]
    mode: PolicyMode,
    #[serde(default)]
    deny: Vec<String>,
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    allow: Vec<String>,
    /// `[[policy.example]]`: calls and the verdicts they must get.
    #[serde(default)]
    example: Vec<PolicyExample>,
}

/// A policy file: `[policy]` and nothing else.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    #[serde(default)]
    policy: PolicySection,
}

/// A config file's `[policy]`; its other keys are read elsewhere.
#[derive(Debug, Deserialize)]
struct ConfigPolicy {
    policy: Option<PolicySection>,
}

/// The `--policy` file's policy. A file without `[policy]` is mode `default` with no
/// rules, the same as an empty section.
pub(super) fn load(path: &Path) -> Result<Policy, ConfigError> {
    let file = TomlFile::read(path, FileKind::Policy)?;
    let PolicyFile { policy } = file.parse()?;
    build(&file, policy)
}

/// The `[policy]` section of a config `file`, if it has one.
pub(super) fn in_config(file: &TomlFile<'_>) -> Result<Option<Policy>, ConfigError> {
    let ConfigPolicy { policy } = file.parse()?;
    policy.map(|section| build(file, section)).transpose()
}

fn build(file: &TomlFile<'_>, section: PolicySection) -> Result<Policy, ConfigError> {
    let lists = [
        (RuleList::Deny, section.deny),
        (RuleList::Ask, section.ask),
        (RuleList::Allow, section.allow),
    ];
    let builder = lists
        .into_iter()
        .flat_map(|(list, rules)| rules.into_iter().map(move |rule| (list, rule)))
        .fold(Policy::builder().mode(section.mode), |builder, (list, rule)| {
            builder.rule(list, rule)
        });
    let builder = section.example.into_iter().fold(builder, PolicyBuilder::example);
    builder.build().map_err(|error| file.bad_rules(error))
}

/// Checks the policy's `[[policy.example]]` calls against the tools in `registry`; the
/// error lists every example whose verdict is not the expected one.
pub(super) fn check_examples(policy: Option<&Policy>, registry: &ToolRegistry) -> Result<(), String> {
    let Some(policy) = policy else {
        return Ok(());
    };
    let failures = policy.failing_examples(|name| registry.get(name).map(|tool| tool.spec().clone()));
    if failures.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the policy's examples do not hold:\n{}",
        failures.join("\n")
    ))
}

/// `policy check TOOL ARGS`: what the policy does with the call, and why.
pub(super) fn check(
    policy: Option<&Policy>,
    registry: &ToolRegistry,
    tool: &str,
    arguments: &str,
) -> Result<String, String> {
    let policy = policy.ok_or("`policy check` needs a policy: --policy FILE, or [policy] in --config")?;
    let Some(found) = registry.get(tool) else {
        return Err(format!("there is no tool `{tool}`"));
    };
    let arguments: serde_json::Value =
        serde_json::from_str(arguments).map_err(|error| format!("the arguments are not JSON: {error}"))?;
    Ok(policy.explain(found.spec(), &arguments).to_string())
}
