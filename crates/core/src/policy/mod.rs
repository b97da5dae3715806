//! Permission policy: which validated calls run, which need a person's approval, and
//! which are refused — decided before the tool runs, the same way for local tools,
//! mounted MCP tools and tools served over MCP.
//!
//! A [`Policy`] has three lists of rules and a [`PolicyMode`]. Rules are `TOOL` or
//! `TOOL(ARG: GLOB)`: `github_*`, `exec(command: git status*)`, `write_file(path: src/**)`,
//! `web_fetch(url: https://docs.rs/*)`. For a call, the first that applies decides:
//!
//! 1. a `deny` rule — the call is refused;
//! 2. an `ask` rule — it needs approval;
//! 3. an `allow` rule — it runs;
//! 4. the mode: `default` asks before destructive and open-world tools and runs the rest,
//!    `accept_edits` also runs the tools that only edit files in the workspace
//!    ([`ToolMeta::edits_files`](crate::spec::ToolMeta::edits_files)), `read_only` runs
//!    read-only tools and refuses the rest, `bypass` runs everything.
//!
//! A tool's hints are read as MCP defines their defaults: a tool not marked read-only is
//! taken as destructive and open-world unless it says otherwise, so an unannotated tool
//! asks under `default`; a read-only tool asks only if it is marked open-world. A refused call is an error result that names the rule (or mode)
//! and tells the model not to retry it; its audit outcome is
//! [`Outcome::Denied`](crate::audit::Outcome::Denied).
//!
//! What a rule sees depends on the argument's [`ArgumentKind`], which the tool declares:
//! the simple commands of a shell script as a shell parses it (`shell.rs`), the path a
//! file operation lands on with links followed (`path.rs`), the URL as the fetcher parses
//! it, the names of environment variables; an argument without a kind is matched as text,
//! as a normalized path and cut at shell operators (`value.rs`). The table is in
//! `seen.rs`. Deny and ask rules apply when any form matches; an allow rule only when
//! what the call will do is all in view and matched, and a value that does not parse is
//! never allowed by a rule. Environment variables that change what a program runs
//! ([`is_dangerous_variable`]) are refused unless an allow rule names them exactly, and
//! variables the model sets must be allowed by name for an allow rule to let the call run.
//!
//! [`Policy::explain`] shows what the rules saw and which one decided.
//!
//! What a policy does not do: it cannot know what a program does with its arguments —
//! an allowed `python x.py` runs whatever `x.py` says. Rules over commands say what is
//! routine; the shell sandbox is what confines a command.

mod explain;
pub(crate) mod glob;
mod path;
mod rule;
mod seen;
mod shell;
mod value;
mod variables;

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::spec::{ArgumentKind, ToolSpec};
pub use explain::{Explanation, SeenArgument, Verdict};
pub use glob::{Glob, GlobError};
use rule::Rule;
use seen::Seen;
pub use variables::is_dangerous_variable;

/// What a policy does with calls no rule decides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PolicyMode {
    /// Destructive and open-world tools ask; the rest run.
    ///
    /// A tool that declares none of `read_only`, `destructive` and `open_world` counts
    /// as destructive and open-world (MCP's defaults), so it asks too — and with no one
    /// to ask (no [`Approver`](crate::approval::Approver), no client that answers questions) it is
    /// refused, with a message that says so. To let such a tool run, do one of:
    ///
    /// ```
    /// # use agent_tools_core::{policy::{Policy, PolicyMode}};
    /// // 1. say what it does: `#[tool(read_only)]`, or
    /// //    `#[tool(destructive = false, open_world = false)]` for a tool that changes
    /// //    only what it owns;
    /// // 2. allow it by name:
    /// let policy = Policy::builder().allow("my_tool").build()?;
    /// // 3. or pick a mode that runs it (deny and ask rules still apply):
    /// let policy = Policy::builder().mode(PolicyMode::Bypass).deny("exec(command: rm *)").build()?;
    /// # Ok::<(), agent_tools_core::policy::PolicyError>(())
    /// ```
    #[default]
    Default,
    /// As `Default`, but tools that only edit files in the workspace
    /// ([`ToolMeta::edits_files`](crate::spec::ToolMeta::edits_files): the built-in `write_file`
    /// and `edit_file`) run without asking too.
    AcceptEdits,
    /// Only read-only tools run; everything else is refused.
    ReadOnly,
    /// Everything runs (deny and ask rules still apply).
    Bypass,
}

impl PolicyMode {
    /// The snake_case name, as in a policy file.
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyMode::Default => "default",
            PolicyMode::AcceptEdits => "accept_edits",
            PolicyMode::ReadOnly => "read_only",
            PolicyMode::Bypass => "bypass",
        }
    }
}

impl fmt::Display for PolicyMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which list a rule is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RuleList {
    /// Calls the rule applies to are refused.
    Deny,
    /// Calls the rule applies to need approval.
    Ask,
    /// Calls the rule applies to run.
    Allow,
}

impl RuleList {
    /// `deny`, `ask` or `allow`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleList::Deny => "deny",
            RuleList::Ask => "ask",
            RuleList::Allow => "allow",
        }
    }
}

/// The rules and the mode; cheap to clone. Built with [`Policy::builder`].
///
/// ```
/// use agent_tools_core::{policy::{Policy, PolicyMode}};
///
/// let policy = Policy::builder()
///     .mode(PolicyMode::Default)
///     .deny("exec(command: rm -rf*)")
///     .allow("exec(command: git status*)")
///     .allow("write_file(path: src/**)")
///     .build()?;
/// assert_eq!(policy.mode(), PolicyMode::Default);
/// # Ok::<(), agent_tools_core::policy::PolicyError>(())
/// ```
#[derive(Clone)]
pub struct Policy {
    inner: Arc<PolicyInner>,
}

struct PolicyInner {
    mode: PolicyMode,
    rules: Lists,
    examples: Vec<PolicyExample>,
    /// The workspace paths are resolved in (canonical when it exists).
    workspace: Option<Arc<Path>>,
}

/// Collects a policy's mode and rules; [`build`](Self::build) checks every rule.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct PolicyBuilder {
    mode: PolicyMode,
    rules: Vec<(RuleList, String)>,
    workspace: Option<std::path::PathBuf>,
    examples: Vec<PolicyExample>,
}

/// A call and the verdict a policy's author expects for it (`[[policy.example]]`),
/// checked by [`Policy::failing_examples`] — as Codex checks a rule's `match` cases — so
/// that a rule that does not say what its author meant is found when the file loads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct PolicyExample {
    /// The tool called.
    pub tool: String,
    /// Its arguments (default: none).
    #[serde(default = "no_arguments")]
    pub arguments: Value,
    /// The verdict expected.
    pub expect: Verdict,
}

impl PolicyExample {
    /// A call of `tool` with `arguments`, expected to get `expect`.
    pub fn new(tool: impl Into<String>, arguments: Value, expect: Verdict) -> Self {
        Self {
            tool: tool.into(),
            arguments,
            expect,
        }
    }
}

fn no_arguments() -> Value {
    Value::Object(serde_json::Map::new())
}

impl PolicyBuilder {
    /// The directory the tools' workspace paths are relative to, so that rules over an
    /// argument of kind [`WorkspacePath`](ArgumentKind::WorkspacePath) see where a path
    /// lands: absolute paths inside it, `..` and links inside it resolved. Without one,
    /// paths are normalized as text only.
    pub fn workspace(mut self, root: impl Into<std::path::PathBuf>) -> Self {
        self.workspace = Some(root.into());
        self
    }

    /// What happens to calls no rule decides (default [`PolicyMode::Default`]).
    pub fn mode(mut self, mode: PolicyMode) -> Self {
        self.mode = mode;
        self
    }

    /// Adds an example call and its expected verdict ([`Policy::failing_examples`]).
    pub fn example(mut self, example: PolicyExample) -> Self {
        self.examples.push(example);
        self
    }

    /// Refuses calls `rule` applies to, in every mode.
    pub fn deny(self, rule: impl Into<String>) -> Self {
        self.rule(RuleList::Deny, rule)
    }

    /// Asks for approval of calls `rule` applies to, unless a deny rule refuses them.
    pub fn ask(self, rule: impl Into<String>) -> Self {
        self.rule(RuleList::Ask, rule)
    }

    /// Runs calls `rule` applies to, unless a deny or ask rule applies too.
    pub fn allow(self, rule: impl Into<String>) -> Self {
        self.rule(RuleList::Allow, rule)
    }

    /// Adds `rule` to `list`.
    pub fn rule(mut self, list: RuleList, rule: impl Into<String>) -> Self {
        self.rules.push((list, rule.into()));
        self
    }

    /// The policy, or an error naming every rule that does not parse.
    pub fn build(self) -> Result<Policy, PolicyError> {
        let workspace = self.workspace.map(canonical);
        let mut inner = PolicyInner {
            mode: self.mode,
            rules: Lists::default(),
            examples: self.examples,
            workspace,
        };
        let mut problems = Vec::new();
        for (list, source) in self.rules {
            match Rule::parse(&source) {
                Ok(rule) => inner.rules.get_mut(list).push(rule),
                Err(problem) => problems.push(RuleProblem {
                    list,
                    rule: source,
                    problem,
                }),
            }
        }
        if !problems.is_empty() {
            return Err(PolicyError { problems });
        }
        Ok(Policy {
            inner: Arc::new(inner),
        })
    }
}

/// Rules that do not parse, each with what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    problems: Vec<RuleProblem>,
}

/// One rule that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RuleProblem {
    list: RuleList,
    rule: String,
    problem: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        write!(
            f,
            "{count} invalid policy rule{}: ",
            if count == 1 { "" } else { "s" }
        )?;
        for (position, RuleProblem { list, rule, problem }) in self.problems.iter().enumerate() {
            let separator = if position == 0 { "" } else { "; " };
            write!(f, "{separator}{} rule `{rule}`: {problem}", list.as_str())?;
        }
        Ok(())
    }
}

impl std::error::Error for PolicyError {}

impl Policy {
    /// Starts a policy: mode [`PolicyMode::Default`], no rules.
    pub fn builder() -> PolicyBuilder {
        PolicyBuilder::default()
    }

    /// The same rules, with paths resolved against `root` (see
    /// [`PolicyBuilder::workspace`]): for a policy read from a file before the workspace
    /// was known.
    #[must_use]
    pub fn with_workspace(&self, root: impl Into<std::path::PathBuf>) -> Policy {
        let root: std::path::PathBuf = root.into();
        Policy {
            inner: Arc::new(PolicyInner {
                mode: self.inner.mode,
                rules: self.inner.rules.clone(),
                examples: self.inner.examples.clone(),
                workspace: Some(canonical(root)),
            }),
        }
    }

    /// The mode.
    pub fn mode(&self) -> PolicyMode {
        self.inner.mode
    }

    /// The rules that name tool `spec`, grouped for its calls to check, and what the mode
    /// does with it.
    pub(crate) fn rules_for(&self, spec: &ToolSpec) -> ToolRules {
        self.grouped_rules(spec, false)
    }

    /// [`rules_for`](Self::rules_for); with `every_kind`, also the arguments with a kind
    /// that no rule names, for an explanation to show.
    fn grouped_rules(&self, spec: &ToolSpec, every_kind: bool) -> ToolRules {
        let name = &spec.meta.name;
        let mut rules = ToolRules {
            wide: Lists::default(),
            arguments: Vec::new(),
            by_mode: self.by_mode(spec),
            workspace: self.inner.workspace.clone(),
        };
        for list in [RuleList::Deny, RuleList::Ask, RuleList::Allow] {
            for rule in self
                .inner
                .rules
                .get(list)
                .iter()
                .filter(|rule| rule.names_tool(name))
            {
                rules.add(list, rule.clone());
            }
        }
        for (argument, kind) in &spec.meta.argument_kinds {
            let group = rules.group(argument);
            group.kind = Some(*kind);
        }
        // Arguments no rule names need no look, except variables, which are checked
        // whatever the rules say.
        rules.arguments.retain(|group| {
            every_kind || group.kind == Some(ArgumentKind::Environment) || !group.rules.is_empty()
        });
        rules
    }

    /// What the policy does with tool `spec` before seeing any arguments: for listings.
    pub fn verdict_for_tool(&self, spec: &ToolSpec) -> ToolVerdict {
        let rules = self.rules_for(spec);
        let narrow = |list: RuleList| {
            rules
                .arguments
                .iter()
                .any(|group| !group.rules.get(list).is_empty())
        };
        if let Some(rule) = rules.wide.deny.first() {
            return ToolVerdict::Denied(Reason::rule(RuleList::Deny, rule));
        }
        if narrow(RuleList::Deny) {
            return ToolVerdict::DependsOnArguments;
        }
        if let Some(rule) = rules.wide.ask.first() {
            return ToolVerdict::Asks(Reason::rule(RuleList::Ask, rule));
        }
        if narrow(RuleList::Ask) {
            return ToolVerdict::DependsOnArguments;
        }
        // Variables that change what runs are refused whatever else allows the call.
        let allowed = if spec
            .meta
            .argument_kinds
            .iter()
            .any(|(_, kind)| *kind == ArgumentKind::Environment)
        {
            ToolVerdict::DependsOnArguments
        } else {
            ToolVerdict::Allowed
        };
        if !rules.wide.allow.is_empty() {
            return allowed;
        }
        match rules.by_mode {
            Decision::Allow => allowed,
            _ if narrow(RuleList::Allow) => ToolVerdict::DependsOnArguments,
            Decision::Ask(reason) => ToolVerdict::Asks(reason),
            Decision::Deny(reason) => ToolVerdict::Denied(reason),
        }
    }

    /// Decides a call with validated `arguments` by `rules`, which are
    /// [`rules_for`](Self::rules_for) its tool. Each argument a rule names is looked up
    /// and parsed once, for all three lists.
    pub(crate) fn decide(rules: &ToolRules, arguments: &Value) -> Decision {
        Self::decide_seeing(rules, arguments, |_, _| {}).0
    }

    /// [`decide`](Self::decide), showing `see` each argument as the rules saw it; also
    /// whether the mode decided.
    fn decide_seeing<'v>(
        rules: &'v ToolRules,
        arguments: &'v Value,
        mut see: impl FnMut(&'v ArgumentRules, &Seen<'v>),
    ) -> (Decision, bool) {
        let decision = |decision| (decision, false);
        if let Some(rule) = rules.wide.deny.first() {
            return decision(Decision::Deny(Reason::rule(RuleList::Deny, rule)));
        }
        let mut ask = rules.wide.ask.first();
        let mut allowed = !rules.wide.allow.is_empty();
        // Variables the model set that no allow rule names: an allow rule about another
        // argument does not cover them (a rule on the whole tool does).
        let mut variables_covered = true;
        for group in &rules.arguments {
            // A rule about an argument the call does not have does not apply.
            let Some(value) = argument(arguments, &group.name) else {
                continue;
            };
            let seen = Seen::of(value, group.kind, rules.workspace.as_deref());
            see(group, &seen);
            // Deny rules of every argument come before any ask or allow.
            if let Some(rule) = group.rules.deny.iter().find(|rule| seen.restricted_by(rule)) {
                return decision(Decision::Deny(Reason::rule(RuleList::Deny, rule)));
            }
            if group.kind == Some(ArgumentKind::Environment) {
                let refused = variables::refused(seen.variables(), &group.rules.allow);
                if !refused.is_empty() {
                    return decision(Decision::Deny(Reason {
                        by: DecidedBy::Variables { names: refused },
                    }));
                }
            }
            if ask.is_none() {
                ask = group.rules.ask.iter().find(|rule| seen.restricted_by(rule));
            }
            if group.kind == Some(ArgumentKind::Environment) {
                variables_covered &= seen.variables().is_empty() || seen.allowed_by(&group.rules.allow);
            } else if !allowed && ask.is_none() {
                allowed = seen.allowed_by(&group.rules.allow);
            }
        }
        if let Some(rule) = ask {
            return decision(Decision::Ask(Reason::rule(RuleList::Ask, rule)));
        }
        if allowed && (variables_covered || !rules.wide.allow.is_empty()) {
            return decision(Decision::Allow);
        }
        (rules.by_mode.clone(), true)
    }

    /// The examples ([`PolicyBuilder::example`]) whose verdict is not the one expected,
    /// each as a message with the explanation; `spec_of` finds a tool by name (an
    /// example naming no tool fails too).
    pub fn failing_examples(&self, spec_of: impl Fn(&str) -> Option<ToolSpec>) -> Vec<String> {
        let mut failures = Vec::new();
        for example in &self.inner.examples {
            let Some(spec) = spec_of(&example.tool) else {
                failures.push(format!(
                    "the example calls `{}`, which is not a tool here",
                    example.tool
                ));
                continue;
            };
            let explained = self.explain(&spec, &example.arguments);
            if explained.verdict() != example.expect {
                failures.push(format!(
                    "the example `{} {}` expects {} but gets {explained}",
                    example.tool, example.arguments, example.expect,
                ));
            }
        }
        failures
    }

    /// [`decide`](Self::decide), and where the call's path arguments land as the decision
    /// saw them, for the tool to act on ([`PinnedPaths`]).
    pub(crate) fn decide_pinning(rules: &ToolRules, arguments: &Value) -> (Decision, PinnedPaths) {
        let mut pins = Vec::new();
        let (decision, _) = Self::decide_seeing(rules, arguments, |group, seen| {
            if let Some((written, landing)) = seen.pinnable() {
                pins.push(Pin {
                    argument: group.name.clone(),
                    written: written.to_owned(),
                    landing: landing.to_owned(),
                });
            }
        });
        (decision, PinnedPaths(pins))
    }

    /// What the policy does with a call of `spec` with validated `arguments`, what its
    /// rules saw in each argument, and why: for people testing their rules
    /// (`agent-tools policy check`).
    ///
    /// ```
    /// use serde_json::json;
    /// use agent_tools_core::{tool::{ArgumentKind, ToolMeta}, policy::{Policy, Verdict}};
    ///
    /// let exec = ToolMeta::new("exec", "Run a command.")
    ///     .argument_kind("command", ArgumentKind::ShellCommand)
    ///     .into_spec(json!({"type": "object"}), None);
    /// let policy = Policy::builder().allow("exec(command: git status*)").build()?;
    /// let explained = policy.explain(&exec, &json!({"command": "git status; rm -rf ~"}));
    /// assert_eq!(explained.verdict(), Verdict::Ask);
    /// assert!(explained.to_string().contains("command: rm -rf ~"));
    /// # Ok::<(), agent_tools_core::policy::PolicyError>(())
    /// ```
    pub fn explain(&self, spec: &ToolSpec, arguments: &Value) -> Explanation {
        let rules = self.grouped_rules(spec, true);
        let mut seen_arguments = Vec::new();
        let (decision, by_mode) = Self::decide_seeing(&rules, arguments, |group, seen| {
            seen_arguments.push(SeenArgument::new(
                &group.name,
                group.kind,
                seen.describe(&group.rules.allow),
            ));
        });
        let mode = by_mode.then(|| Reason {
            by: DecidedBy::Mode {
                mode: self.mode(),
                declares_nothing: false,
            },
        });
        Explanation::new(spec.meta.name.clone(), decision, mode, seen_arguments)
    }

    fn by_mode(&self, spec: &ToolSpec) -> Decision {
        let hints = &spec.meta.annotations;
        let read_only = hints.read_only == Some(true);
        // MCP's defaults: a tool that is not read-only is destructive and open-world
        // unless it says otherwise. A read-only tool asks only when it says it reaches an
        // open world (fetching a page tells the page's owner what the agent is doing).
        let changes_things =
            !read_only && (hints.destructive != Some(false) || hints.open_world != Some(false));
        let risky = changes_things || hints.open_world == Some(true);
        let declares_nothing =
            hints.read_only.is_none() && hints.destructive.is_none() && hints.open_world.is_none();
        let reason = Reason {
            by: DecidedBy::Mode {
                mode: self.mode(),
                declares_nothing,
            },
        };
        match self.mode() {
            PolicyMode::Bypass => Decision::Allow,
            PolicyMode::ReadOnly if read_only => Decision::Allow,
            PolicyMode::ReadOnly => Decision::Deny(reason),
            PolicyMode::AcceptEdits if spec.meta.edits_files => Decision::Allow,
            PolicyMode::Default | PolicyMode::AcceptEdits if risky => Decision::Ask(reason),
            PolicyMode::Default | PolicyMode::AcceptEdits => Decision::Allow,
        }
    }
}

/// Where a call's path arguments land, as its policy decision saw them: applied to the
/// arguments the tool gets, so that the tool writes where the rules looked, and the tool
/// told ([`ToolContext::paths_pinned`](crate::context::ToolContext::paths_pinned)) to follow no
/// link on the way, so that a link swapped in after the decision cannot redirect it.
#[derive(Debug, Default)]
pub(crate) struct PinnedPaths(Vec<Pin>);

#[derive(Debug)]
struct Pin {
    argument: Box<str>,
    /// The value the decision saw.
    written: String,
    /// Where it lands, relative to the workspace, links followed.
    landing: String,
}

impl PinnedPaths {
    /// Puts each landing in place of the value the decision saw, where the argument still
    /// holds that value (a person's edit was decided again, and is left as edited).
    /// Whether any path is pinned.
    pub(crate) fn apply(&self, arguments: &mut Value) -> bool {
        let mut pinned = false;
        for pin in &self.0 {
            let Some(value) = arguments.get_mut(&*pin.argument) else {
                continue;
            };
            if value.as_str() == Some(pin.written.as_str()) {
                *value = Value::String(pin.landing.clone());
                pinned = true;
            }
        }
        pinned
    }
}

/// A workspace root as paths under it resolve: canonical, when it exists.
fn canonical(root: std::path::PathBuf) -> Arc<Path> {
    Arc::from(root.canonicalize().unwrap_or(root))
}

/// The value of the top-level argument `name`. Arguments are a handful of keys, and
/// comparing each costs less than hashing one (serde_json's map hashes with SipHash); a
/// large object is looked up by hash.
fn argument<'v>(arguments: &'v Value, name: &str) -> Option<&'v Value> {
    let map = arguments.as_object()?;
    if map.len() > 16 {
        return map.get(name);
    }
    map.iter().find(|(key, _)| *key == name).map(|(_, value)| value)
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sources =
            |rules: &[Rule]| -> Vec<String> { rules.iter().map(|rule| rule.source().to_string()).collect() };
        f.debug_struct("Policy")
            .field("mode", &self.inner.mode)
            .field("deny", &sources(&self.inner.rules.deny))
            .field("ask", &sources(&self.inner.rules.ask))
            .field("allow", &sources(&self.inner.rules.allow))
            .finish()
    }
}

/// The rules of a policy that name one tool: those about the tool as a whole, and those
/// about one argument, grouped by it.
#[derive(Debug, Clone)]
pub(crate) struct ToolRules {
    wide: Lists,
    arguments: Vec<ArgumentRules>,
    /// What the mode does with the tool, from its hints.
    by_mode: Decision,
    workspace: Option<Arc<Path>>,
}

#[derive(Debug, Clone)]
struct ArgumentRules {
    name: Box<str>,
    /// What the tool declares the argument is; `None` for a plain value.
    kind: Option<ArgumentKind>,
    rules: Lists,
}

/// Rules by list.
#[derive(Debug, Clone, Default)]
struct Lists {
    deny: Vec<Rule>,
    ask: Vec<Rule>,
    allow: Vec<Rule>,
}

impl Lists {
    fn is_empty(&self) -> bool {
        self.deny.is_empty() && self.ask.is_empty() && self.allow.is_empty()
    }

    fn get(&self, list: RuleList) -> &[Rule] {
        match list {
            RuleList::Deny => &self.deny,
            RuleList::Ask => &self.ask,
            RuleList::Allow => &self.allow,
        }
    }

    fn get_mut(&mut self, list: RuleList) -> &mut Vec<Rule> {
        match list {
            RuleList::Deny => &mut self.deny,
            RuleList::Ask => &mut self.ask,
            RuleList::Allow => &mut self.allow,
        }
    }
}

impl ToolRules {
    fn add(&mut self, list: RuleList, rule: Rule) {
        let Some(name) = rule.argument_name() else {
            self.wide.get_mut(list).push(rule);
            return;
        };
        let name = name.to_owned();
        self.group(&name).rules.get_mut(list).push(rule);
    }

    /// The rules about argument `name`, added empty if there are none yet.
    fn group(&mut self, name: &str) -> &mut ArgumentRules {
        let position = match self.arguments.iter().position(|group| &*group.name == name) {
            Some(position) => position,
            None => {
                self.arguments.push(ArgumentRules {
                    name: name.into(),
                    kind: None,
                    rules: Lists::default(),
                });
                self.arguments.len() - 1
            }
        };
        &mut self.arguments[position]
    }
}

/// What the policy decided about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Run it.
    Allow,
    /// Ask a person first.
    Ask(Reason),
    /// Refuse it.
    Deny(Reason),
}

/// What the policy does with a tool's calls, seen before their arguments
/// ([`Policy::verdict_for_tool`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolVerdict {
    /// Every call runs.
    Allowed,
    /// Every call needs approval.
    Asks(Reason),
    /// Every call is refused.
    Denied(Reason),
    /// Rules over its arguments decide call by call.
    DependsOnArguments,
}

/// Which rule, or the mode, decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    by: DecidedBy,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum DecidedBy {
    Rule {
        list: RuleList,
        rule: Arc<str>,
    },
    Mode {
        mode: PolicyMode,
        /// The tool states none of MCP's hints, so their defaults decided.
        declares_nothing: bool,
    },
    /// Environment variables that change what a program runs, which no rule allows.
    Variables {
        names: Vec<String>,
    },
}

impl Reason {
    fn rule(list: RuleList, rule: &Rule) -> Self {
        Self {
            by: DecidedBy::Rule {
                list,
                rule: rule.source().clone(),
            },
        }
    }

    /// The rule that decided, with its list; `None` when the mode did.
    pub fn rule_text(&self) -> Option<(RuleList, &str)> {
        match &self.by {
            DecidedBy::Rule { list, rule } => Some((*list, rule)),
            DecidedBy::Mode { .. } | DecidedBy::Variables { .. } => None,
        }
    }

    /// Whether the mode decided about a tool that states none of `read_only`,
    /// `destructive` and `open_world`, so that MCP's defaults (destructive, open-world)
    /// counted: the fix may be to state them.
    pub fn by_undeclared_hints(&self) -> bool {
        matches!(
            self.by,
            DecidedBy::Mode {
                declares_nothing: true,
                ..
            }
        )
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match &self.by {
            DecidedBy::Rule { list, rule } => return write!(f, "the {} rule `{rule}`", list.as_str()),
            DecidedBy::Mode { mode, .. } => *mode,
            DecidedBy::Variables { names } => {
                let names = names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>();
                return write!(
                    f,
                    "environment variable{} {}, which change{} what a program runs; no rule \
                     allows {} by name (`TOOL(ARG: NAME)` in `allow`)",
                    if names.len() == 1 { "" } else { "s" },
                    names.join(", "),
                    if names.len() == 1 { "s" } else { "" },
                    if names.len() == 1 { "it" } else { "them" },
                );
            }
        };
        f.write_str(match mode {
            PolicyMode::Default => {
                "policy mode `default`, which asks before destructive and open-world tools"
            }
            PolicyMode::AcceptEdits => {
                "policy mode `accept_edits`, which asks before destructive and open-world tools \
                 other than file edits in the workspace"
            }
            PolicyMode::ReadOnly => "policy mode `read_only`, which runs only read-only tools",
            PolicyMode::Bypass => "policy mode `bypass`",
        })?;
        if self.by_undeclared_hints() {
            f.write_str(
                "; the tool declares none of `read_only`, `destructive` and `open_world`, so \
                 MCP's defaults count it as destructive and open-world",
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
