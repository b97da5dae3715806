//! Tool definitions in the request format of each provider.
//!
//! Every dialect is a transformation of the one canonical schema in [`ToolSpec`]
//! (JSON Schema 2020-12), because providers reject different things: Gemini `$ref`,
//! `additionalProperties` and `const`; OpenAI strict optional fields, `oneOf` and
//! `minLength`; Anthropic strict numeric bounds and recursion; Anthropic any `oneOf` at
//! the root. The transformations keep the meaning — constraints a provider cannot
//! enforce move into descriptions, and the registry still validates every call against
//! the canonical schema — and what cannot be kept is reported as a [`SchemaIssue`].
//!
//! | dialect | module |
//! |---|---|
//! | OpenAI Chat / Responses (+ strict) | `openai` |
//! | Anthropic (+ strict) | `anthropic` |
//! | Gemini (`parameters` or `parametersJsonSchema`) | `gemini` |
//! | MCP | `mcp` |

mod anthropic;
mod describe;
mod flatten;
mod gemini;
mod issue;
mod keywords;
mod mcp;
mod names;
mod openai;
mod refs;
mod results;
mod strict;
mod tree;

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

pub use issue::SchemaIssue;
pub(crate) use tree::{accepts_null, resolve};

use crate::{spec::ToolSpec, tool_search::ToolSearchMode};

/// A provider's tool definition format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions: `{"type":"function","function":{name,description,parameters,strict?}}`.
    OpenAiChat,
    /// OpenAI Responses: `{"type":"function",name,description,parameters,strict}`.
    OpenAiResponses,
    /// Anthropic Messages: `{name,description,input_schema,strict?}`.
    Anthropic,
    /// Google Gemini: `{name,description,parameters}` (OpenAPI subset) or
    /// `{name,description,parametersJsonSchema}`.
    Gemini,
    /// Model Context Protocol (2025-06-18 and later):
    /// `{name,title?,description,inputSchema,outputSchema?,annotations?}`.
    Mcp,
}

impl Dialect {
    /// Every dialect, in a stable order.
    pub const ALL: [Dialect; 5] = [
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
    ];

    /// The dialect's identifier, as the CLI spells it: `openai-chat`, `openai-responses`,
    /// `anthropic`, `gemini`, `mcp`.
    pub fn id(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "openai-chat",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Mcp => "mcp",
        }
    }

    /// Whether the provider has a strict mode (schema-constrained arguments).
    pub fn has_strict_mode(self) -> bool {
        matches!(
            self,
            Dialect::OpenAiChat | Dialect::OpenAiResponses | Dialect::Anthropic
        )
    }

    /// The definition of one tool in this format, with [`Strict::Auto`].
    pub fn definition(self, spec: &ToolSpec) -> Value {
        DefinitionOptions::new(self).render(spec).value
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A dialect identifier that is not one of [`Dialect::id`]'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.id()).collect();
        write!(
            f,
            "unknown dialect `{}` (expected one of: {})",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .into_iter()
            .find(|dialect| dialect.id() == text)
            .ok_or_else(|| UnknownDialect(text.to_owned()))
    }
}

/// Whether definitions ask the provider to constrain arguments to the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Strict {
    /// Strict where it is the provider's default or the tool asks for it
    /// (`#[tool(strict)]`), and the schema has a strict form; otherwise not strict, with
    /// the reasons in [`Definition::fallbacks`]. OpenAI definitions are strict by
    /// default (as the Responses API itself is); Anthropic ones only when the tool asks.
    #[default]
    Auto,
    /// Strict for every tool whose schema has a strict form.
    Always,
    /// Never strict.
    Never,
}

/// Which Gemini field carries the arguments' schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GeminiSchema {
    /// `parameters` (OpenAPI subset) when the schema fits it, `parametersJsonSchema`
    /// otherwise (recursive types, maps).
    #[default]
    Auto,
    /// Always `parameters`; what does not fit is reported in [`Definition::problems`].
    OpenApi,
    /// Always `parametersJsonSchema`.
    JsonSchema,
}

/// How to render definitions: the dialect and its options.
///
/// ```
/// use agent_tools_core::{Dialect, dialect::{DefinitionOptions, Strict}, tool::ToolSpec};
///
/// let spec = ToolSpec::new("echo", "Repeat.", serde_json::json!({
///     "type": "object",
///     "properties": {"text": {"type": "string"}},
///     "additionalProperties": false,
/// }));
/// let definition = DefinitionOptions::new(Dialect::OpenAiResponses).render(&spec);
/// assert!(definition.strict);
/// assert_eq!(definition.value["parameters"]["properties"]["text"]["type"], serde_json::json!(["string", "null"]));
///
/// let loose = DefinitionOptions::new(Dialect::OpenAiResponses).strict(Strict::Never).render(&spec);
/// assert_eq!(loose.value["strict"], false);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct DefinitionOptions {
    /// The provider format.
    pub dialect: Dialect,
    /// Whether to make definitions strict.
    pub strict: Strict,
    /// For Gemini: `parameters` or `parametersJsonSchema`.
    pub gemini_schema: GeminiSchema,
    /// How [deferred](crate::spec::ToolMeta::defer) tools are offered.
    pub tool_search: ToolSearchMode,
    /// For OpenAI: offer tools with a [freeform form](crate::spec::ToolMeta::freeform) as
    /// custom tools, which the model calls with raw text (default off: an application
    /// that turns it on must pass those calls back with
    /// [`ToolCall::freeform`](crate::ToolCall::freeform)).
    pub custom_tools: bool,
}

impl DefinitionOptions {
    /// Options for `dialect` with [`Strict::Auto`], [`GeminiSchema::Auto`] and
    /// [`ToolSearchMode::Native`].
    pub fn new(dialect: Dialect) -> Self {
        Self {
            dialect,
            strict: Strict::Auto,
            gemini_schema: GeminiSchema::Auto,
            tool_search: ToolSearchMode::Native,
            custom_tools: false,
        }
    }

    /// Offers tools that have a freeform form as OpenAI custom tools (Responses:
    /// `{"type": "custom", "name", "description", "format"}`; Chat Completions: the same
    /// inside `"custom"`), whose calls carry raw text; other dialects, and tools without
    /// the form, are unchanged. Off by default, so that an application never receives a
    /// kind of call it does not handle.
    pub fn custom_tools(mut self, yes: bool) -> Self {
        self.custom_tools = yes;
        self
    }

    /// Sets how deferred tools are offered.
    pub fn tool_search(mut self, mode: ToolSearchMode) -> Self {
        self.tool_search = mode;
        self
    }

    /// Sets the strict policy.
    pub fn strict(mut self, strict: Strict) -> Self {
        self.strict = strict;
        self
    }

    /// Sets the Gemini schema field.
    pub fn gemini_schema(mut self, gemini_schema: GeminiSchema) -> Self {
        self.gemini_schema = gemini_schema;
        self
    }

    /// Whether a tool's definition should be strict, if its schema allows.
    pub fn wants_strict(&self, spec: &ToolSpec) -> bool {
        if !self.dialect.has_strict_mode() {
            return false;
        }
        match self.strict {
            Strict::Never => false,
            Strict::Always => true,
            Strict::Auto => spec.meta.strict || self.dialect != Dialect::Anthropic,
        }
    }

    /// The definition of one tool, with what could not be expressed.
    pub fn render(&self, spec: &ToolSpec) -> Definition {
        let mut definition = Definition::new(Value::Null);
        if let Err(reason) = self.dialect.check_name(&spec.meta.name) {
            definition.problems.push(SchemaIssue::new("", reason.to_string()));
        }
        definition.value = match self.dialect {
            Dialect::OpenAiChat | Dialect::OpenAiResponses
                if self.custom_tools && spec.meta.freeform.is_some() =>
            {
                openai::custom_definition(spec, self.dialect)
            }
            Dialect::OpenAiChat | Dialect::OpenAiResponses => {
                let (schema, strict) = self.parameters(spec, &mut definition, openai::strict_schema);
                openai::definition(spec, self.dialect, schema, strict)
            }
            Dialect::Anthropic => {
                let (schema, strict) = self.parameters(spec, &mut definition, anthropic::strict_schema);
                anthropic::definition(spec, schema, strict)
            }
            Dialect::Gemini => gemini::definition(spec, self.gemini_schema, &mut definition),
            Dialect::Mcp => mcp::definition(spec, &mut definition),
        };
        definition
    }

    /// The root-flattened schema, made strict by `make_strict` when wanted and possible.
    fn parameters(
        &self,
        spec: &ToolSpec,
        definition: &mut Definition,
        make_strict: fn(&Value) -> Result<Value, Vec<SchemaIssue>>,
    ) -> (Value, bool) {
        let mut schema = spec.input_schema.clone();
        if let Err(issue) = flatten::flatten_root_union(&mut schema) {
            definition.problems.push(issue);
        }
        if !self.wants_strict(spec) {
            return (schema, false);
        }
        match make_strict(&schema) {
            Ok(strict) => {
                definition.strict = true;
                (strict, true)
            }
            Err(issues) => {
                definition.fallbacks.extend(issues);
                (schema, false)
            }
        }
    }
}

/// One tool's definition in one dialect, and what the dialect could not express.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Definition {
    /// The definition, in the provider's request shape.
    pub value: Value,
    /// Whether the definition is strict.
    pub strict: bool,
    /// Why a preferred form was not used: why the schema is not strict (when strict was
    /// wanted), why Gemini gets `parametersJsonSchema`, why MCP has no output schema.
    /// The definition is still usable.
    pub fallbacks: Vec<SchemaIssue>,
    /// What the provider will reject. Empty for a usable definition.
    pub problems: Vec<SchemaIssue>,
}

impl Definition {
    pub(crate) fn new(value: Value) -> Self {
        Self {
            value,
            strict: false,
            fallbacks: Vec::new(),
            problems: Vec::new(),
        }
    }
}
