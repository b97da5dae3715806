//! The `[policy]` section — of the `--policy` file, or of the `--config` file — as a
//! [`Policy`] for the registry the command line builds.
//!
//! ```toml
//! [policy]
//! mode = "default"        # default | read_only | bypass
//! deny = ["exec(command: rm -rf*)"]
//! ask = ["web_fetch"]
//! allow = ["exec(command: git status*)", "write_file(path: src/**)"]
//! ```

use std::path::Path;

use serde::Deserialize;

use crate::{Policy, PolicyMode, RuleList};

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
    builder.build().map_err(|error| file.bad_rules(error))
}
