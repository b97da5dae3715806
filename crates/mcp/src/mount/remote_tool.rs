//! A remote MCP tool as a tool of our registry, and the rules for importing a
//! `tools/list` result once it is reviewed.
//!
//! Each call records where the tool came from in its audit event and span (the
//! `mount` detail: the server, the tool's remote name, its definition's hash, whether
//! that definition is pinned, and what the checks found in a definition offered all the
//! same), and its result passes the invisible-character filter
//! before the model reads it (unless the mount turned it off): text parts, embedded text
//! resources and every string of the structured content. What was removed is noted in
//! the same detail (`result_removed`). The filter removes characters only; instructions
//! in plain words in a result pass, as they do in any web page.

use std::collections::HashSet;
use std::sync::Arc;

use agent_tools_core::output::{Content, ResourceContents};
use agent_tools_core::untrusted::{self, RemovedCharacters};
use agent_tools_core::validation::ArgValidator;
use agent_tools_core::{
    Tool, ToolContext, ToolError, ToolOutput,
    tool::{BoxFuture, ToolAnnotations, ToolMeta, ToolSpec, validate_tool_name},
};
use rmcp::model::Tool as McpTool;
use serde_json::Value;

use super::MountOptions;
use super::connection::Connection;
use super::review::Reviewed;
use super::trust::ToolReview;

/// A tool of a mounted server: its spec as served (renamed), and the connection that
/// runs it.
pub(super) struct RemoteTool {
    spec: ToolSpec,
    remote_name: String,
    connection: Arc<Connection>,
    /// Its calls' `mount` audit detail ([`ToolReview::audit_detail`]), made once.
    provenance: Value,
    /// Take invisible characters out of results.
    filter_results: bool,
}

impl Imported {
    /// Whether `other` would mount the same tools (names, descriptions, schemas) and
    /// skip the same ones.
    pub(super) fn same_as(&self, other: &Imported) -> bool {
        self.skipped == other.skipped
            && self.reviews == other.reviews
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
        Box::pin(async move {
            let mut output = self.connection.call(&self.remote_name, arguments, &ctx).await?;
            let removed = if self.filter_results {
                filter_invisible(&mut output)
            } else {
                RemovedCharacters::default()
            };
            ctx.audit_detail("mount", self.provenance(&removed));
            Ok(output)
        })
    }
}

impl RemoteTool {
    /// The call's `mount` audit detail.
    fn provenance(&self, removed: &RemovedCharacters) -> Value {
        let mut detail = self.provenance.clone();
        if !removed.is_empty() {
            detail["result_removed"] = Value::String(removed.to_string());
        }
        detail
    }
}

/// Takes invisible characters out of every text of `output` a model reads; returns what
/// was taken out.
fn filter_invisible(output: &mut ToolOutput) -> RemovedCharacters {
    let mut removed = RemovedCharacters::default();
    let mut filter = |text: &mut String| {
        let stripped = untrusted::strip_invisible(text);
        if !stripped.removed.is_empty() {
            removed.merge(&stripped.removed);
            *text = stripped.text.into_owned();
        }
    };
    for content in &mut output.content {
        match content {
            Content::Text { text, .. } => filter(text),
            Content::Resource {
                contents: ResourceContents::Text(text),
                ..
            } => filter(text),
            _ => {}
        }
    }
    if let Some(structured) = &mut output.structured {
        strings_of(structured, &mut filter);
    }
    removed
}

/// Calls `each` on every string in `value`.
fn strings_of(value: &mut Value, each: &mut impl FnMut(&mut String)) {
    match value {
        Value::String(text) => each(text),
        Value::Array(items) => items.iter_mut().for_each(|item| strings_of(item, each)),
        Value::Object(members) => members.values_mut().for_each(|member| strings_of(member, each)),
        _ => {}
    }
}

/// A `tools/list` result made into tools.
#[derive(Clone)]
pub(super) struct Imported {
    pub(super) tools: Vec<Arc<dyn Tool>>,
    /// (remote name, reason) of the tools left out.
    pub(super) skipped: Vec<(String, String)>,
    /// What the review found about each listed tool (and each pinned one gone).
    pub(super) reviews: Vec<ToolReview>,
}

/// Makes tools of the reviewed tools offered, skipping (with a warning) those whose
/// local name is invalid, repeated or `taken`, or whose input schema the registry cannot
/// use.
pub(super) fn import(
    reviewed: Reviewed,
    options: &MountOptions,
    connection: &Arc<Connection>,
    taken: impl Fn(&str) -> bool,
) -> Imported {
    let mut imported = Imported {
        tools: Vec::new(),
        skipped: Vec::new(),
        reviews: reviewed.reviews(),
    };
    let mut seen = HashSet::new();
    for entry in reviewed.entries {
        let Some(tool) = entry.offer else {
            continue;
        };
        let remote_name = tool.name.to_string();
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
            provenance: entry.review.audit_detail(connection.server_name()),
            filter_results: !options.unfiltered_results,
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
