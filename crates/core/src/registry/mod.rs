//! [`ToolRegistry`]: holds tools, describes them to providers, and dispatches calls.
//!
//! A registry is a cheap handle (`Clone` shares it) to a table of tools that is replaced
//! as a whole on every change (copy on write). A call takes the current table once, so
//! it sees a consistent snapshot while tools are registered or removed around it.

mod arguments;
mod call;
mod changes;
mod compose;
mod definitions;
mod direct;
mod dispatch;
mod gate;
mod hook_chain;
mod isolation;
mod limits;
mod output_limit;
mod recorder;
mod result_budget;
mod resume;
mod sessions;
mod visible;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use serde_json::Value;

pub use call::{ToolArguments, ToolCall, ToolResult};
pub use changes::ToolChanges;
pub(crate) use isolation::panic_message;

use crate::approval::{PendingCalls, SessionGrants};
use crate::audit::redact::Redactor;
use crate::policy::ToolRules;
use crate::tool_search::{self, Deferral, TOOL_SEARCH};
use crate::validation::{ArgValidator, InvalidArguments};
use crate::{
    approval::Approver,
    audit::AuditSink,
    caller::Caller,
    context::Extensions,
    error::RegistryError,
    hooks::Hook,
    output::ResultOverflow,
    policy::Policy,
    spec::{TaskSupport, ToolSpec, header_argument, validate_tool_name},
    tool::Tool,
    toolset::Toolset,
    tracer::CallTracer,
};
use changes::ChangeSender;
use definitions::DefinitionCache;

/// Timeout for calls when neither the call nor the tool sets one.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Results are cut down to this many bytes by default (see [`ToolRegistryBuilder::max_output_bytes`]).
const DEFAULT_MAX_OUTPUT_BYTES: usize = 4 * 1024 * 1024;

/// Recorded arguments are capped at this many bytes of JSON by default.
const DEFAULT_AUDIT_ARGUMENT_BYTES: usize = 4096;

/// A set of tools with validation, safe dispatch and an audit log.
///
/// A registry is a cheap handle (`Clone` shares it) to a table of tools that is replaced
/// as a whole on every change (copy on write). A call takes the current table once, so
/// it sees a consistent snapshot while tools are registered or removed around it.
///
/// ```
/// # async fn example() -> Result<(), agent_tools_core::error::RegistryError> {
/// use serde_json::{json, Value};
/// use agent_tools_core::{ToolCall, ToolContext, ToolError, ToolRegistry, tool::DynamicTool};
///
/// let registry = ToolRegistry::new();
/// registry.register(DynamicTool::new(
///     "echo",
///     "Repeat the text.",
///     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
///     |args: Value, _ctx: ToolContext| async move {
///         Ok::<_, ToolError>(args["text"].as_str().unwrap_or_default().to_owned())
///     },
/// ))?;
/// let result = registry.call(ToolCall::new("call_1", "echo", r#"{"text": "hi"}"#)).await;
/// assert_eq!(result.text(), "hi");
/// let result = registry.call(ToolCall::new("call_2", "echo", r#"{}"#)).await;
/// assert!(result.is_error());
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ToolRegistry {
    shared: Arc<Shared>,
    /// Stamped on calls that don't name their own session (see [`ToolRegistry::session`]).
    session_id: Option<Arc<str>>,
}

struct Shared {
    table: RwLock<Arc<ToolTable>>,
    config: Config,
    changes: ChangeSender,
}

/// Settings fixed when the registry is built and inherited by registries derived from it.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) default_timeout: Option<Duration>,
    pub(crate) sinks: Arc<[Arc<dyn AuditSink>]>,
    pub(crate) tracer: Option<Arc<dyn CallTracer>>,
    pub(crate) redactor: Redactor,
    pub(crate) extensions: Extensions,
    pub(crate) max_concurrency: Option<usize>,
    pub(crate) max_output_bytes: Option<usize>,
    pub(crate) max_result_tokens: Option<usize>,
    pub(crate) result_overflow: Option<Arc<dyn ResultOverflow>>,
    pub(crate) caller: Option<Arc<dyn Caller>>,
    pub(crate) policy: Option<Policy>,
    pub(crate) approver: Option<Arc<dyn Approver>>,
    /// Tools a person let run for the rest of a session; shared with derived registries.
    pub(crate) grants: Arc<SessionGrants>,
    /// Calls whose approval was deferred; shared with derived registries.
    pub(crate) pending: Arc<PendingCalls>,
    pub(crate) hooks: Arc<[Arc<dyn Hook>]>,
    /// The retry budget of tools that set none; `None`: unlimited.
    pub(crate) retries: Option<u32>,
    pub(crate) retry_counts: Arc<limits::RetryCounts>,
    pub(crate) max_calls_per_session: Option<u64>,
    pub(crate) session_calls: Arc<limits::SessionCalls>,
    /// The end of each session (`sessions.rs`); shared with derived registries.
    pub(crate) sessions: Arc<sessions::Sessions>,
    /// Which tools are deferred besides those marked so.
    pub(crate) deferral: Deferral,
    /// Whether calls of tools that state nothing may run as tasks.
    pub(crate) task_support: TaskSupport,
}

/// The tools, in registration order, with a name index, and the policy's rules for each
/// (worked out once per table, so a call does not match every rule's tool glob).
#[derive(Clone, Default)]
struct ToolTable {
    entries: Vec<Entry>,
    /// Hashed with foldhash, not SipHash: it is looked up on every call, and its keys are
    /// the registered names, so a model's names only look up and cannot flood it.
    index: HashMap<Arc<str>, usize, foldhash::fast::RandomState>,
    /// Parallel to `entries`; empty without a policy.
    rules: Vec<Arc<ToolRules>>,
    /// Parallel to `entries`: whether each is deferred.
    deferred: Vec<bool>,
    /// Where the registry's own `tool_search` is, while any tool is deferred.
    search: Option<usize>,
}

/// A registered tool with its compiled validator; one `Arc`, so a call's lookup costs a
/// single reference count.
#[derive(Clone)]
pub(crate) struct Entry(Arc<EntryData>);

pub(crate) struct EntryData {
    pub(crate) name: Arc<str>,
    pub(crate) tool: Arc<dyn Tool>,
    pub(crate) validator: Arc<ArgValidator>,
    /// The tool's own timeout, read once from its spec.
    pub(crate) timeout: Option<Duration>,
    /// The tool's own retry budget, read once from its spec.
    pub(crate) retries: Option<u32>,
    /// The tool's own result budget in tokens, read once from its spec.
    pub(crate) max_result_tokens: Option<usize>,
    /// How long it may wind down once cancelled, read once from its spec.
    pub(crate) cancel_grace: Option<Duration>,
    /// Its definitions, rendered once per set of options.
    pub(crate) definitions: DefinitionCache,
    /// Permits for its calls, when it limits how many run at once.
    pub(crate) permits: Option<Arc<tokio::sync::Semaphore>>,
    /// Whether its arguments may be read straight from a call's JSON text (`direct/`),
    /// asked once.
    pub(crate) direct: bool,
}

impl std::ops::Deref for Entry {
    type Target = EntryData;

    fn deref(&self) -> &EntryData {
        &self.0
    }
}

impl Entry {
    /// Checks the name and compiles the schema: everything that can be wrong with a tool
    /// is found here, at registration, not at its first call.
    fn new(tool: Arc<dyn Tool>) -> Result<Self, RegistryError> {
        let validator = checked_validator(tool.spec())?;
        Ok(Self::from_parts(tool, Arc::new(validator)))
    }

    /// `arguments` as the tool takes them (optional `null`s dropped), or what is wrong
    /// with them, as the model reads it. Validation of a call, and again of arguments a
    /// hook or a person changed.
    pub(crate) fn checked(&self, mut arguments: Value) -> Result<Value, InvalidArguments> {
        self.validator.drop_optional_nulls(&mut arguments);
        match self.validator.validate(&arguments) {
            Ok(()) => Ok(arguments),
            Err(problems) => Err(InvalidArguments::new(&*self.name, problems)),
        }
    }

    /// An entry for a tool whose schema is already compiled; named after its spec.
    pub(crate) fn from_parts(tool: Arc<dyn Tool>, validator: Arc<ArgValidator>) -> Self {
        let spec = tool.spec();
        Self(Arc::new(EntryData {
            name: spec.meta.name.as_str().into(),
            timeout: spec.meta.timeout,
            retries: spec.meta.retries,
            max_result_tokens: spec.meta.max_result_tokens,
            cancel_grace: spec.meta.cancel_grace,
            permits: spec.meta.max_concurrency.map(|limit| {
                Arc::new(tokio::sync::Semaphore::new(
                    usize::try_from(limit).unwrap_or(usize::MAX),
                ))
            }),
            direct: tool.__takes_direct_arguments() && !crate::direct::numbers_keep_their_text(),
            tool,
            validator,
            definitions: DefinitionCache::default(),
        }))
    }
}

/// What registration checks about a spec: a valid name, header arguments that can be
/// served, and a usable input schema, which it compiles. Also run by the test `#[tool]`
/// generates for every tool.
pub(crate) fn checked_validator(spec: &ToolSpec) -> Result<ArgValidator, RegistryError> {
    validate_tool_name(&spec.meta.name).map_err(|source| RegistryError::InvalidName {
        name: spec.meta.name.clone(),
        source,
    })?;
    header_argument::check(&spec.input_schema, &spec.meta.header_arguments).map_err(|reason| {
        RegistryError::InvalidHeaderArgument {
            tool: spec.meta.name.clone(),
            reason,
        }
    })?;
    ArgValidator::new(&spec.input_schema).map_err(|source| RegistryError::InvalidSchema {
        tool: spec.meta.name.clone(),
        source,
    })
}

impl ToolTable {
    /// The table of `entries`, with the registry's `tool_search` over the deferred ones
    /// (made anew: the search indexes the tools of one table).
    fn from_entries(mut entries: Vec<Entry>, config: &Config) -> Self {
        entries.retain(|entry| !tool_search::is_registry_search(entry.tool.spec()));
        let mut deferred: Vec<bool> = entries
            .iter()
            .map(|entry| config.deferral.defers(entry.tool.spec()))
            .collect();
        let mut search = None;
        let named_search = entries.iter().any(|entry| &*entry.name == TOOL_SEARCH);
        if deferred.contains(&true) && !named_search {
            let catalog = entries
                .iter()
                .zip(&deferred)
                .filter(|(_, deferred)| **deferred)
                .map(|(entry, _)| entry.tool.clone())
                .collect();
            search = Some(entries.len());
            entries.push(tool_search::search_entry(catalog));
            deferred.push(false);
        }
        let policy = config.policy.as_ref();
        let index = entries
            .iter()
            .enumerate()
            .map(|(position, entry)| (entry.name.clone(), position))
            .collect();
        let rules = policy.map_or_else(Vec::new, |policy| {
            entries
                .iter()
                .map(|entry| Arc::new(policy.rules_for(entry.tool.spec())))
                .collect()
        });
        Self {
            entries,
            index,
            rules,
            deferred,
            search,
        }
    }

    fn get(&self, name: &str) -> Option<&Entry> {
        self.index.get(name).map(|&position| &self.entries[position])
    }

    /// The entry for `name` and the policy's rules for it.
    fn lookup(&self, name: &str) -> Option<(Entry, Option<Arc<ToolRules>>)> {
        let &position = self.index.get(name)?;
        Some((self.entries[position].clone(), self.rules.get(position).cloned()))
    }
}

/// Configures a [`ToolRegistry`].
///
/// ```
/// use std::time::Duration;
/// use agent_tools_core::{ToolRegistry, audit::MemoryAudit};
///
/// let audit = MemoryAudit::new();
/// let registry = ToolRegistry::builder()
///     .default_timeout(Duration::from_secs(30))
///     .audit(audit.clone())
///     .build();
/// assert!(registry.is_empty());
/// ```
#[must_use]
pub struct ToolRegistryBuilder {
    default_timeout: Option<Duration>,
    sinks: Vec<Arc<dyn AuditSink>>,
    tracer: Option<Arc<dyn CallTracer>>,
    audit_argument_bytes: usize,
    extensions: Extensions,
    max_concurrency: Option<usize>,
    max_output_bytes: Option<usize>,
    max_result_tokens: Option<usize>,
    result_overflow: Option<Arc<dyn ResultOverflow>>,
    caller: Option<Arc<dyn Caller>>,
    policy: Option<Policy>,
    approver: Option<Arc<dyn Approver>>,
    hooks: Vec<Arc<dyn Hook>>,
    retries: Option<u32>,
    max_calls_per_session: Option<u64>,
    deferral: Deferral,
    task_support: TaskSupport,
}

impl Default for ToolRegistryBuilder {
    fn default() -> Self {
        Self {
            default_timeout: Some(DEFAULT_TIMEOUT),
            sinks: Vec::new(),
            tracer: None,
            audit_argument_bytes: DEFAULT_AUDIT_ARGUMENT_BYTES,
            extensions: Extensions::new(),
            max_concurrency: None,
            max_output_bytes: Some(DEFAULT_MAX_OUTPUT_BYTES),
            max_result_tokens: None,
            result_overflow: None,
            caller: None,
            policy: None,
            approver: None,
            hooks: Vec::new(),
            retries: None,
            max_calls_per_session: None,
            task_support: TaskSupport::Forbidden,
            deferral: Deferral::default(),
        }
    }
}

impl ToolRegistryBuilder {
    /// Timeout for calls whose tool and call set none (default 60 s).
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// No timeout unless the tool or the call sets one.
    pub fn no_default_timeout(mut self) -> Self {
        self.default_timeout = None;
        self
    }

    /// Sends an audit event for every call to `sink` (may be called several times).
    pub fn audit(mut self, sink: impl AuditSink) -> Self {
        self.sinks.push(Arc::new(sink));
        self
    }

    /// Starts a span for every call with `tracer` (the last one given wins); see
    /// [`CallTracer`].
    pub fn tracer(mut self, tracer: impl CallTracer) -> Self {
        self.tracer = Some(Arc::new(tracer));
        self
    }

    /// Caps recorded arguments (and traced ones) at `bytes` of JSON (default 4096).
    pub fn audit_argument_limit(mut self, bytes: usize) -> Self {
        self.audit_argument_bytes = bytes;
        self
    }

    /// Makes `value` available to every tool through
    /// [`ToolContext::extension`](crate::context::ToolContext::extension).
    pub fn extension<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }

    /// Fits every result to `tokens` of the model's context, counted for the dialect the
    /// result goes to (the call's [`DefinitionOptions`](crate::dialect::DefinitionOptions);
    /// see [`tokens`](crate::tokens) for how each is counted); a tool's own
    /// [`max_result_tokens`](crate::tool::ToolMeta::max_result_tokens) wins. The text
    /// is kept line by line while it fits and ends with a note saying how much was left
    /// out and where it is: with a [`result_overflow`](Self::result_overflow) store, the
    /// whole result is kept there for the model to page through. Default: no budget.
    pub fn max_result_tokens(mut self, tokens: usize) -> Self {
        self.max_result_tokens = Some(tokens);
        self
    }

    /// Keeps the whole text of results that did not fit their budget (see
    /// [`max_result_tokens`](Self::max_result_tokens)); without one the rest is left out.
    pub fn result_overflow(mut self, store: impl ResultOverflow) -> Self {
        self.result_overflow = Some(Arc::new(store));
        self
    }

    /// Runs at most `limit` calls of one [`ToolRegistry::call_all`] at a time.
    pub fn max_concurrency(mut self, limit: usize) -> Self {
        self.max_concurrency = Some(limit.max(1));
        self
    }

    /// Cuts every result down to about `bytes` (text, base64 data and structured JSON
    /// counted; default 4 MiB): the text that crosses the limit is cut, later parts are
    /// left out, and a note tells the model how much. A guard against runaway tools, not
    /// context management — tools should keep their own output sensible.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = Some(bytes);
        self
    }

    /// Answers tools' log messages, questions ([elicitation](crate::context::ToolContext::elicit))
    /// and [sampling](crate::context::ToolContext::sample) requests for calls that come without a
    /// caller of their own ([`ToolCall::with_caller`]; an MCP server gives each call its
    /// client). Without one, questions and sampling fail with a "not available" error.
    pub fn caller(mut self, caller: impl Caller) -> Self {
        self.caller = Some(Arc::new(caller));
        self
    }

    /// Decides every call by `policy` after its arguments are validated and before the
    /// tool runs: refused calls, and calls that need an approval no one can give, end
    /// with an error result and the audit outcome [`Outcome::Denied`](crate::audit::Outcome::Denied).
    /// Without a policy every valid call runs.
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Decides the calls the [policy](Self::policy) asks about, for calls without an
    /// approver of their own ([`ToolCall::with_approver`]). Without one, the call's
    /// [caller](Self::caller) is asked by a form when it can be (over MCP, the client), and
    /// otherwise the call is refused; see [`Approver`].
    pub fn approver(mut self, approver: impl Approver) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Runs `hook` around every call, after the hooks added before it; see
    /// [`Hook`].
    pub fn hook(mut self, hook: impl Hook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Gives the model `retries` [retry](crate::error::ToolError::retry) answers in a row per
    /// tool and session; the next one ends with a final error saying the budget is spent.
    /// A tool's own budget (`#[tool(retries = N)]`) wins. Default: unlimited.
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = Some(retries);
        self
    }

    /// Runs at most `max` calls per session ([`ToolCall::with_session_id`],
    /// [`ToolRegistry::session`]; calls without a session count together); later calls
    /// are refused. Calls that fail validation or the policy do not count.
    pub fn max_calls_per_session(mut self, max: u64) -> Self {
        self.max_calls_per_session = Some(max);
        self
    }

    /// Results are passed on whatever their size.
    pub fn no_output_limit(mut self) -> Self {
        self.max_output_bytes = None;
        self
    }

    /// Defers every tool except those named in `core`, now and registered later
    /// (mounted ones included): the model is shown the core tools and a tool search, and
    /// loads the rest on demand. See [`ToolSearchMode`](crate::tool_search::ToolSearchMode).
    ///
    /// ```
    /// use agent_tools_core::{Dialect, ToolOutput, ToolRegistry, dialect::DefinitionOptions, tool::DynamicTool, search::ToolSearchMode};
    ///
    /// let registry = ToolRegistry::builder().defer_all_except(["read"]).build();
    /// for name in ["read", "send_email", "create_invoice"] {
    ///     let tool = DynamicTool::new(name, "A tool.", serde_json::json!({"type": "object"}), |_, _| async {
    ///         Ok::<_, agent_tools_core::ToolError>(ToolOutput::text("done"))
    ///     });
    ///     registry.register(tool).unwrap();
    /// }
    /// let names = |definitions: Vec<serde_json::Value>| -> Vec<String> {
    ///     definitions.iter().map(|d| d["function"]["name"].as_str().unwrap().to_owned()).collect()
    /// };
    /// assert_eq!(names(registry.definitions(Dialect::OpenAiChat)), ["read", "tool_search"]);
    /// let all = DefinitionOptions::new(Dialect::OpenAiChat).tool_search(ToolSearchMode::LoadAll);
    /// assert_eq!(names(registry.definitions_with(all)).len(), 3);
    /// ```
    pub fn defer_all_except<I, S>(mut self, core: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.deferral = Deferral::all_except(core.into_iter().map(Into::into).collect());
        self
    }

    /// Whether calls of the tools that state nothing ([`ToolMeta::task`](crate::spec::ToolMeta::task))
    /// may run as tasks when served over MCP; default [`TaskSupport::Forbidden`]. Make
    /// it [`TaskSupport::Optional`] when most tools are slow (a build, a crawl) or ask a
    /// person, so that their calls survive the request that made them.
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// Defers every tool: the model starts with only the tool search.
    pub fn defer_all(self) -> Self {
        self.defer_all_except(std::iter::empty::<String>())
    }

    /// Builds an empty registry.
    pub fn build(self) -> ToolRegistry {
        ToolRegistry::with_config(
            Config {
                default_timeout: self.default_timeout,
                sinks: self.sinks.into(),
                tracer: self.tracer,
                redactor: Redactor::new(self.audit_argument_bytes),
                extensions: self.extensions,
                max_concurrency: self.max_concurrency,
                max_output_bytes: self.max_output_bytes,
                max_result_tokens: self.max_result_tokens,
                result_overflow: self.result_overflow,
                caller: self.caller,
                policy: self.policy,
                approver: self.approver,
                grants: Arc::default(),
                pending: Arc::default(),
                hooks: self.hooks.into(),
                retries: self.retries,
                retry_counts: Arc::default(),
                max_calls_per_session: self.max_calls_per_session,
                session_calls: Arc::default(),
                sessions: Arc::default(),
                deferral: self.deferral,
                task_support: self.task_support,
            },
            ToolTable::default(),
        )
    }
}

impl Default for ToolRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolRegistry {
    /// An empty registry with default settings (60 s timeout, no audit).
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// Configures a registry.
    pub fn builder() -> ToolRegistryBuilder {
        ToolRegistryBuilder::default()
    }

    fn with_config(config: Config, table: ToolTable) -> Self {
        Self {
            shared: Arc::new(Shared {
                table: RwLock::new(Arc::new(table)),
                config,
                changes: ChangeSender::default(),
            }),
            session_id: None,
        }
    }

    /// Registers a tool; fails on a duplicate or invalid name or an unusable schema.
    pub fn register(&self, tool: impl Tool) -> Result<(), RegistryError> {
        self.register_shared(Arc::new(tool))
    }

    /// Registers a tool that is already shared.
    pub fn register_shared(&self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.insert_all(vec![Entry::new(tool)?])
    }

    /// Registers every tool of a toolset, all or none; returns their names.
    pub fn register_toolset<S: Toolset>(&self, toolset: Arc<S>) -> Result<Vec<String>, RegistryError> {
        let entries = toolset
            .tools()
            .into_iter()
            .map(Entry::new)
            .collect::<Result<Vec<_>, _>>()?;
        let names = entries.iter().map(|entry| entry.name.to_string()).collect();
        self.insert_all(entries)?;
        Ok(names)
    }

    /// Removes a tool; returns it if it was registered. Calls already running finish.
    pub fn unregister(&self, name: &str) -> Option<Arc<dyn Tool>> {
        let removed = self.get(name)?;
        self.replace_tools(&[name], Vec::new()).ok()?;
        Some(removed)
    }

    /// Removes the tools named in `remove` (names not registered are skipped) and
    /// registers `add`, as one change: a call sees the table before or after, never in
    /// between, and [`changes`](Self::changes) wakes once. Fails without changing
    /// anything if a new tool's name is invalid, its schema unusable, or its name taken
    /// by a tool that stays. Used to follow a remote tool list that changed.
    pub fn replace_tools(&self, remove: &[&str], add: Vec<Arc<dyn Tool>>) -> Result<(), RegistryError> {
        let new_entries = add.into_iter().map(Entry::new).collect::<Result<Vec<_>, _>>()?;
        self.edit_table(|entries| {
            entries.retain(|entry| !remove.contains(&&*entry.name));
            entries.extend(new_entries);
        })
    }

    /// Adds entries atomically: if any name is taken (or repeated), nothing is added.
    fn insert_all(&self, new_entries: Vec<Entry>) -> Result<(), RegistryError> {
        self.edit_table(|entries| entries.extend(new_entries))
    }

    /// Applies `edit` to a copy of the entries and installs the result, unless it
    /// repeats a name; then tells observers.
    fn edit_table(&self, edit: impl FnOnce(&mut Vec<Entry>)) -> Result<(), RegistryError> {
        {
            let mut table = self.shared.table.write().unwrap_or_else(PoisonError::into_inner);
            let mut entries = table.entries.clone();
            edit(&mut entries);
            let edited = ToolTable::from_entries(entries, self.config());
            if edited.index.len() != edited.entries.len() {
                let repeated = edited
                    .entries
                    .iter()
                    .enumerate()
                    .find(|(position, entry)| edited.index[&entry.name] != *position)
                    .map(|(_, entry)| entry.name.to_string())
                    .unwrap_or_default();
                return Err(RegistryError::DuplicateName { name: repeated });
            }
            *table = Arc::new(edited);
        }
        self.shared.changes.notify();
        Ok(())
    }

    /// A handle that does not keep the registry alive, for background tasks the
    /// registry's own tools own (which would otherwise keep it alive in a cycle).
    pub fn downgrade(&self) -> WeakToolRegistry {
        WeakToolRegistry {
            shared: Arc::downgrade(&self.shared),
            session_id: self.session_id.clone(),
        }
    }

    /// Wakes when tools are registered or removed; see [`ToolChanges`].
    pub fn changes(&self) -> ToolChanges {
        self.shared.changes.subscribe()
    }

    /// The current table; cheap (one reference count).
    fn table(&self) -> Arc<ToolTable> {
        self.shared
            .table
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The entry for `name`, without holding the table.
    pub(crate) fn entry(&self, name: &str) -> Option<Entry> {
        let table = self.shared.table.read().unwrap_or_else(PoisonError::into_inner);
        table.get(name).cloned()
    }

    /// The entry for `name` and the policy's rules for it, without holding the table.
    fn lookup(&self, name: &str) -> Option<(Entry, Option<Arc<ToolRules>>)> {
        let table = self.shared.table.read().unwrap_or_else(PoisonError::into_inner);
        table.lookup(name)
    }

    /// The tool registered under `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.entry(name).map(|entry| entry.tool.clone())
    }

    /// Whether a tool is registered under `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.entry(name).is_some()
    }

    /// The names of all tools, in registration order.
    pub fn names(&self) -> Vec<String> {
        self.table()
            .entries
            .iter()
            .map(|entry| entry.name.to_string())
            .collect()
    }

    /// Sends `event` to the registry's audit sinks, and returns once the sinks that store
    /// in the background have stored it: for what happens to tools outside their calls,
    /// such as a mounted tool held back ([`AuditEvent::notice`](crate::audit::AuditEvent::notice)).
    /// The tracer, which traces calls, does not see it.
    pub async fn record_audit(&self, event: &crate::audit::AuditEvent) {
        let sinks = &self.shared.config.sinks;
        for sink in sinks.iter() {
            sink.record(event);
        }
        if let Some(storing) = recorder::Storing::of(sinks) {
            storing.wait().await;
        }
    }

    /// All tools, in registration order.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.table()
            .entries
            .iter()
            .map(|entry| entry.tool.clone())
            .collect()
    }

    /// Whether the tool named `name` is deferred: marked so
    /// ([`ToolMeta::defer`](crate::spec::ToolMeta::defer)), or left out of the core set of
    /// [`defer_all_except`](ToolRegistryBuilder::defer_all_except).
    pub fn is_deferred(&self, name: &str) -> bool {
        let table = self.table();
        table
            .index
            .get(name)
            .is_some_and(|&position| table.deferred[position])
    }

    /// Whether calls of the tool named `name` may run as tasks: what the tool states,
    /// else the registry's default ([`ToolRegistryBuilder::task_support`]); `None` when
    /// no such tool is registered.
    pub fn task_support(&self, name: &str) -> Option<TaskSupport> {
        let entry = self.entry(name)?;
        Some(entry.tool.spec().meta.task.unwrap_or(self.config().task_support))
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.table().entries.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A handle to the same registry that stamps `session_id` on every call that does not
    /// name its own session.
    pub fn session(&self, session_id: impl Into<Arc<str>>) -> ToolRegistry {
        Self {
            shared: self.shared.clone(),
            session_id: Some(session_id.into()),
        }
    }

    /// The session this handle stamps on calls, if any.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Whether the registry keeps results that did not fit their budget (see
    /// [`ToolRegistryBuilder::result_overflow`]).
    pub fn keeps_results(&self) -> bool {
        self.config().result_overflow.is_some()
    }

    /// The text of a result that did not fit its budget, which the registry's
    /// [`ResultOverflow`] kept at `uri` (the link a cut result carries); `None` for a URI
    /// it does not know. A server answers a client's read of the link with it.
    pub async fn kept_result(&self, uri: &str) -> Option<String> {
        self.config().result_overflow.as_ref()?.read(uri).await
    }

    pub(crate) fn config(&self) -> &Config {
        &self.shared.config
    }
}

/// A [`ToolRegistry`] handle that does not keep it alive; from
/// [`ToolRegistry::downgrade`].
#[derive(Clone, Debug)]
pub struct WeakToolRegistry {
    shared: std::sync::Weak<Shared>,
    session_id: Option<Arc<str>>,
}

impl WeakToolRegistry {
    /// The registry, unless every [`ToolRegistry`] handle to it is gone.
    pub fn upgrade(&self) -> Option<ToolRegistry> {
        Some(ToolRegistry {
            shared: self.shared.upgrade()?,
            session_id: self.session_id.clone(),
        })
    }
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .field("default_timeout", &self.shared.config.default_timeout)
            .field("audit_sinks", &self.shared.config.sinks.len())
            .field("session_id", &self.session_id)
            .finish()
    }
}

#[cfg(test)]
mod tests;
