//! What a tool *is*, as opposed to what it does: name, description, schemas, hints.
//!
//! [`ToolMeta`] is what a typed tool declares (the `#[tool]` macro writes it from the
//! attributes and doc comment); [`ToolSpec`] adds the generated schemas and is what the
//! registry, the provider dialects and MCP read.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod argument_kind;
mod freeform;
pub(crate) mod header_argument;
mod task_support;

pub use argument_kind::ArgumentKind;
pub use freeform::{Freeform, FreeformFormat};
pub use task_support::TaskSupport;

// The rule lives in agent-tools-rules, which agent-tools-macros shares (its crate docs say why).
pub use agent_tools_rules::{ToolNameError, validate_tool_name};

/// Hints about a tool's behavior, as in MCP's `ToolAnnotations`.
///
/// They are hints for clients (e.g. to ask a user before running a destructive tool), not
/// guarantees. `None` means "not stated".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolAnnotations {
    /// A human-readable title for the tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates (only meaningful when not read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling the tool again with the same arguments has no additional effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities (e.g. the web).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

/// What a [`TypedTool`](crate::typed::TypedTool) declares about itself; the registry adds the
/// schemas to make a [`ToolSpec`].
///
/// ```
/// use std::time::Duration;
/// use agent_tools_core::tool::ToolMeta;
///
/// let meta = ToolMeta::new("read_file", "Read a UTF-8 text file.")
///     .title("Read file")
///     .read_only(true)
///     .timeout(Duration::from_secs(30));
/// assert_eq!(meta.annotations.read_only, Some(true));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolMeta {
    /// The name the model calls the tool by (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// Behavior hints, including the title.
    pub annotations: ToolAnnotations,
    /// Ask providers to enforce the schema strictly (OpenAI/Anthropic `strict`).
    pub strict: bool,
    /// The tool's own timeout, overriding the registry default.
    pub timeout: Option<Duration>,
    /// How long the tool may take, once its call is cancelled, to return what it has.
    pub cancel_grace: Option<Duration>,
    /// How many [retry](crate::error::ToolError::retry) answers in a row the model gets in a
    /// session before the tool refuses; overrides the registry's budget.
    pub retries: Option<u32>,
    /// At most this many calls of the tool run at once; the others wait.
    pub max_concurrency: Option<u32>,
    /// The most tokens of the model's context its result may take; overrides the
    /// registry's budget (see [`max_result_tokens`](Self::max_result_tokens)).
    pub max_result_tokens: Option<usize>,
    /// The tool changes files in the workspace and nothing else (see
    /// [`edits_files`](Self::edits_files)).
    pub edits_files: bool,
    /// The tool's definition is loaded on demand (see [`defer`](Self::defer)).
    pub defer: bool,
    /// The kinds of its arguments (see [`argument_kind`](Self::argument_kind)).
    pub argument_kinds: Vec<(String, ArgumentKind)>,
    /// Arguments sent also as HTTP headers, with each header's name (see
    /// [`header_argument`](Self::header_argument)).
    pub header_arguments: Vec<(String, String)>,
    /// Whether calls may run as tasks; `None` takes the registry's default (see
    /// [`task`](Self::task)).
    pub task: Option<TaskSupport>,
    /// A call becomes a task only when the tool says so (see
    /// [`explicit_task_start`](Self::explicit_task_start)).
    pub explicit_task_start: bool,
    /// How much of a call's arguments the audit log keeps at least (see
    /// [`audit_argument_bytes`](Self::audit_argument_bytes)).
    pub audit_argument_bytes: Option<usize>,
    /// The tool's freeform form, if it has one (see [`freeform`](Self::freeform)).
    pub freeform: Option<Freeform>,
}

impl ToolMeta {
    /// A tool with a name and description and no hints.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            annotations: ToolAnnotations::default(),
            strict: false,
            timeout: None,
            cancel_grace: None,
            retries: None,
            max_concurrency: None,
            max_result_tokens: None,
            edits_files: false,
            defer: false,
            argument_kinds: Vec::new(),
            header_arguments: Vec::new(),
            task: None,
            explicit_task_start: false,
            audit_argument_bytes: None,
            freeform: None,
        }
    }

    /// Lets the model call the tool with one raw text instead of JSON arguments, where
    /// the provider can (OpenAI's custom tools, offered when a request asks with
    /// [`DefinitionOptions::custom_tools`](crate::dialect::DefinitionOptions::custom_tools)):
    /// the text fills the string argument the [`Freeform`] names
    /// ([`ToolCall::freeform`](crate::ToolCall::freeform)). The JSON form stays, for every
    /// other provider and request.
    pub fn freeform(mut self, freeform: Freeform) -> Self {
        self.freeform = Some(freeform);
        self
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.annotations.title = Some(title.into());
        self
    }

    /// States whether the tool only reads.
    pub fn read_only(mut self, yes: bool) -> Self {
        self.annotations.read_only = Some(yes);
        self
    }

    /// States whether the tool may destroy data.
    pub fn destructive(mut self, yes: bool) -> Self {
        self.annotations.destructive = Some(yes);
        self
    }

    /// States whether repeating a call has no further effect.
    pub fn idempotent(mut self, yes: bool) -> Self {
        self.annotations.idempotent = Some(yes);
        self
    }

    /// States whether the tool talks to the outside world.
    pub fn open_world(mut self, yes: bool) -> Self {
        self.annotations.open_world = Some(yes);
        self
    }

    /// Asks providers to enforce the schema strictly.
    pub fn strict(mut self, yes: bool) -> Self {
        self.strict = yes;
        self
    }

    /// Sets the tool's own timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Lets the tool finish for up to `grace` after its call is cancelled, so that it can
    /// stop its work and return what it has (e.g. a command's output so far) as a
    /// `cancelled` result. The tool must watch
    /// [`ToolContext::cancellation`](crate::context::ToolContext::cancellation); without a grace the
    /// registry drops its future at once.
    pub fn cancel_grace(mut self, grace: Duration) -> Self {
        self.cancel_grace = Some(grace);
        self
    }

    /// Gives the model `retries` [retry](crate::error::ToolError::retry) answers in a row per
    /// session before the call is refused for good (overrides
    /// [`ToolRegistryBuilder::retries`](crate::registry::ToolRegistryBuilder::retries)).
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = Some(retries);
        self
    }

    /// Runs at most `limit` (at least 1) calls of the tool at once, across every registry
    /// it is in; further calls wait, and the wait counts toward their timeout.
    pub fn max_concurrency(mut self, limit: u32) -> Self {
        self.max_concurrency = Some(limit.max(1));
        self
    }

    /// Fits the tool's results to `tokens` of the model's context, counted for the
    /// dialect the result goes to ([`tokens`](crate::tokens)); what does not fit goes to
    /// the registry's [`ResultOverflow`](crate::output::ResultOverflow). Overrides the
    /// registry's [`max_result_tokens`](crate::registry::ToolRegistryBuilder::max_result_tokens).
    pub fn max_result_tokens(mut self, tokens: usize) -> Self {
        self.max_result_tokens = Some(tokens);
        self
    }

    /// States that the tool changes files inside the workspace and nothing else, as the
    /// built-in `write_file` and `edit_file` do: a
    /// [`PolicyMode::AcceptEdits`](crate::policy::PolicyMode::AcceptEdits) policy runs such tools
    /// without asking. Not an MCP hint; it is not served or read from mounted servers.
    pub fn edits_files(mut self, yes: bool) -> Self {
        self.edits_files = yes;
        self
    }

    /// Loads the tool's definition on demand: the model first sees only a tool search
    /// (the provider's own, or the registry's `tool_search`) and finds the tool through
    /// it. For tools a model rarely needs, in large tool sets; see
    /// [`ToolSearchMode`](crate::tool_search::ToolSearchMode). The registry still runs calls to a
    /// deferred tool as to any other.
    pub fn defer(mut self, yes: bool) -> Self {
        self.defer = yes;
        self
    }

    /// Declares that the top-level argument `name` is of `kind`, so that policy rules
    /// over it are decided on its parsed value (a command's simple commands, a path as
    /// the workspace resolves it) rather than on its text.
    ///
    /// ```
    /// use agent_tools_core::{tool::{ArgumentKind, ToolMeta}};
    ///
    /// let meta = ToolMeta::new("run", "Run a shell command.")
    ///     .argument_kind("command", ArgumentKind::ShellCommand);
    /// assert_eq!(meta.argument_kinds[0].1, ArgumentKind::ShellCommand);
    /// ```
    pub fn argument_kind(mut self, name: impl Into<String>, kind: ArgumentKind) -> Self {
        let name = name.into();
        self.argument_kinds.retain(|(known, _)| *known != name);
        self.argument_kinds.push((name, kind));
        self
    }

    /// Declares that the top-level argument `name` is also sent as the HTTP header
    /// `Mcp-Param-{header}` by MCP clients (2026-07-28 and later), so that a proxy in
    /// front of replicas can route on it; a request whose header disagrees with its
    /// arguments is refused. The argument must be a string, an integer or a boolean, and
    /// `header` an HTTP token; registration checks both. Its value is visible to every
    /// proxy on the way: declare no secret.
    ///
    /// ```
    /// use agent_tools_core::tool::ToolMeta;
    ///
    /// let meta = ToolMeta::new("query", "Query a region's database.").header_argument("region", "Region");
    /// assert_eq!(meta.header_arguments, [("region".to_owned(), "Region".to_owned())]);
    /// ```
    pub fn header_argument(mut self, name: impl Into<String>, header: impl Into<String>) -> Self {
        let name = name.into();
        self.header_arguments.retain(|(known, _)| *known != name);
        self.header_arguments.push((name, header.into()));
        self
    }

    /// Whether calls of the tool may run as tasks (see [`TaskSupport`]); without it, the
    /// registry's default applies.
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task = Some(support);
        self
    }

    /// A call that may run as a task runs within its request until the tool calls
    /// [`ToolContext::start_task`](crate::ToolContext::start_task), and becomes a task
    /// there: for a tool that gathers what it needs from the user first (input-required
    /// round trips, quick) and then works for long. Without it, such a call is a task from
    /// its start.
    pub fn explicit_task_start(mut self, yes: bool) -> Self {
        self.explicit_task_start = yes;
        self
    }

    /// Keeps up to `bytes` of a call's arguments (as JSON) in its audit event and span when
    /// the registry's cap
    /// ([`audit_argument_limit`](crate::registry::ToolRegistryBuilder::audit_argument_limit),
    /// 4096 by default) is lower: for a tool whose arguments are the record of what it
    /// did, such as the built-in `update_plan`'s plan. Strings are still cut at 1024
    /// bytes each and secrets still redacted.
    pub fn audit_argument_bytes(mut self, bytes: usize) -> Self {
        self.audit_argument_bytes = Some(bytes);
        self
    }

    /// Adds the schemas, making the full spec.
    pub fn into_spec(self, input_schema: Value, output_schema: Option<Value>) -> ToolSpec {
        ToolSpec {
            meta: self,
            input_schema,
            output_schema,
        }
    }
}

/// Everything the outside world knows about a tool: what it declares about itself
/// ([`ToolMeta`]) and the schemas of its arguments and output.
///
/// The input schema is the canonical JSON Schema (draft 2020-12) of the arguments; provider
/// formats are derived from it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolSpec {
    /// The name, description, hints and limits the tool declares.
    pub meta: ToolMeta,
    /// JSON Schema of the arguments; the root is an object.
    pub input_schema: Value,
    /// JSON Schema of the structured output, when the tool returns [`Json`](crate::output::Json).
    pub output_schema: Option<Value>,
}

impl ToolSpec {
    /// A spec with a name, description and input schema, and no hints.
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        ToolMeta::new(name, description).into_spec(input_schema, None)
    }

    /// The name the model calls the tool by.
    pub fn name(&self) -> &str {
        &self.meta.name
    }

    /// What the tool does, for the model.
    pub fn description(&self) -> &str {
        &self.meta.description
    }

    /// The human-readable title, if any.
    pub fn title(&self) -> Option<&str> {
        self.meta.annotations.title.as_deref()
    }

    /// The kind of the top-level argument `name`, if the tool declares one.
    pub fn argument_kind(&self, name: &str) -> Option<ArgumentKind> {
        self.meta
            .argument_kinds
            .iter()
            .find(|(known, _)| known == name)
            .map(|(_, kind)| *kind)
    }

    /// The first sentence of the description, for one-line listings.
    pub fn summary(&self) -> &str {
        first_sentence(&self.meta.description)
    }
}

/// The text up to the first sentence end (`.` followed by whitespace or the end) or the
/// first blank line.
fn first_sentence(text: &str) -> &str {
    let text = text.trim();
    let paragraph_end = text.find("\n\n").unwrap_or(text.len());
    let paragraph = &text[..paragraph_end];
    let mut chars = paragraph.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        let at_boundary = chars.peek().is_none_or(|(_, next)| next.is_whitespace());
        if c == '.' && at_boundary {
            return &paragraph[..=index];
        }
    }
    paragraph
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_provider_rule() {
        assert!(validate_tool_name("read_file").is_ok());
        assert!(validate_tool_name("fs-Read_2").is_ok());
        assert!(validate_tool_name(&"a".repeat(64)).is_ok());
        assert!(validate_tool_name(&"a".repeat(65)).is_err());
        assert!(validate_tool_name("").is_err());
        assert!(validate_tool_name("read file").is_err());
        assert!(validate_tool_name("read.file").is_err());
        assert!(validate_tool_name("lésen").is_err());
    }

    #[test]
    fn summary_is_the_first_sentence() {
        let spec = ToolSpec::new(
            "t",
            "Read a file. Lines are numbered, e.g. 1.5 is not a line.",
            Value::Null,
        );
        assert_eq!(spec.summary(), "Read a file.");
        let spec = ToolSpec::new("t", "Version 1.2 of the thing\n\nMore.", Value::Null);
        assert_eq!(spec.summary(), "Version 1.2 of the thing");
        assert_eq!(first_sentence("No period"), "No period");
    }
}
