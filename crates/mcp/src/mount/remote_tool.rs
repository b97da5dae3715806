//! A remote MCP tool as a tool of our registry, and the rules for importing a
//! `tools/list` result.

use std::collections::HashSet;
use std::sync::Arc;

use agent_tools_core::validation::ArgValidator;
use agent_tools_core::{
    Tool, ToolContext, ToolError, ToolOutput,
    tool::{BoxFuture, ToolAnnotations, ToolMeta, ToolSpec, validate_tool_name},
};
use rmcp::model::Tool as McpTool;
use serde_json::Value;

use super::MountOptions;
use super::connection::Connection;

/// A tool of a mounted server: its spec as served (renamed), and the connection that
/// runs it.
pub(super) struct RemoteTool {
    spec: ToolSpec,
    remote_name: String,
    connection: Arc<Connection>,
}

impl Imported {
    /// Whether `other` would mount the same tools (names, descriptions, schemas) and
    /// skip the same ones.
    pub(super) fn same_as(&self, other: &Imported) -> bool {
        self.skipped == other.skipped
            && self.tools.len() == other.tools.len()
            && self
                .tools
                .iter()
                .zip(&other.tools)
                .all(|(mine, theirs)| mine.spec() == theirs.spec())
    }

    /// The local names of the tools.
    pub(super) fn names(&self) -> Vec<String> {
        self.tools
            .iter()
            .map(|tool| tool.spec().meta.name.clone())
            .collect()
    }
}

impl Tool for RemoteTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, arguments: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move { self.connection.call(&self.remote_name, arguments, &ctx).await })
    }
}

/// A `tools/list` result made into tools.
#[derive(Clone)]
pub(super) struct Imported {
    pub(super) tools: Vec<Arc<dyn Tool>>,
    /// (remote name, reason) of the tools left out.
    pub(super) skipped: Vec<(String, String)>,
}

/// Makes tools of the remote tools `options.filter` selects, skipping (with a warning)
/// those whose local name is invalid, repeated or `taken`, or whose input schema the
/// registry cannot use.
pub(super) fn import(
    remote: Vec<McpTool>,
    options: &MountOptions,
    connection: &Arc<Connection>,
    taken: impl Fn(&str) -> bool,
) -> Imported {
    let mut imported = Imported {
        tools: Vec::new(),
        skipped: Vec::new(),
    };
    let mut seen = HashSet::new();
    for tool in remote {
        let remote_name = tool.name.to_string();
        if let Some(filter) = &options.filter
            && !filter(&remote_name)
        {
            continue;
        }
        let spec = match spec(tool, options, &seen, &taken) {
            Ok(spec) => spec,
            Err(reason) => {
                tracing::warn!(
                    server = %connection.server_name(),
                    tool = %remote_name,
                    %reason,
                    "skipping a tool of a mounted MCP server"
                );
                imported.skipped.push((remote_name, reason));
                continue;
            }
        };
        seen.insert(spec.meta.name.clone());
        imported.tools.push(Arc::new(RemoteTool {
            spec,
            remote_name,
            connection: connection.clone(),
        }));
    }
    imported
}

/// Our spec for a remote tool, or why it cannot be mounted.
fn spec(
    tool: McpTool,
    options: &MountOptions,
    seen: &HashSet<String>,
    taken: impl Fn(&str) -> bool,
) -> Result<ToolSpec, String> {
    let name = format!("{}{}", options.prefix, tool.name);
    validate_tool_name(&name)
        .map_err(|reason| format!("`{name}` is not a valid tool name here: {reason}"))?;
    if seen.contains(&name) {
        return Err(format!("the server lists `{name}` twice"));
    }
    if taken(&name) {
        return Err(format!("a local tool is already named `{name}`"));
    }
    let input_schema = Value::Object(tool.input_schema.as_ref().clone());
    ArgValidator::new(&input_schema).map_err(|reason| format!("its input schema is unusable: {reason}"))?;
    let output_schema = tool
        .output_schema
        .as_ref()
        .map(|schema| Value::Object(schema.as_ref().clone()));
    let annotations = tool.annotations.unwrap_or_default();
    let mut meta = ToolMeta::new(
        name,
        tool.description.map(|text| text.into_owned()).unwrap_or_default(),
    );
    meta.annotations = ToolAnnotations {
        title: tool.title.or(annotations.title),
        read_only: annotations.read_only_hint,
        destructive: annotations.destructive_hint,
        idempotent: annotations.idempotent_hint,
        open_world: annotations.open_world_hint,
    };
    if let Some(timeout) = options.timeout {
        meta = meta.timeout(timeout);
    }
    Ok(meta.defer(options.defer).into_spec(input_schema, output_schema))
}
