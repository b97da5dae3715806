//! What each subcommand does once the registry is ready.

use crate::{Definition, DefinitionOptions, Tool, ToolCall, ToolRegistry};

use super::{CliError, Io};

/// `list`: `name  [hints]  summary`, one tool per line, names aligned.
pub(super) fn list(registry: &ToolRegistry, io: &mut Io<'_>) -> Result<(), CliError> {
    let tools = registry.tools();
    if tools.is_empty() {
        writeln!(io.stderr, "no tools are registered").map_err(CliError::output)?;
        return Ok(());
    }
    let width = tools.iter().map(|tool| tool.spec().name.len()).max().unwrap_or(0);
    for tool in &tools {
        let spec = tool.spec();
        let hints = hints(tool.as_ref());
        let hints = if hints.is_empty() {
            String::new()
        } else {
            format!("[{}] ", hints.join(", "))
        };
        // One line per tool, though a first sentence may wrap in the doc comment.
        let summary = spec.summary().split_whitespace().collect::<Vec<_>>().join(" ");
        writeln!(io.stdout, "{:width$}  {hints}{summary}", spec.name).map_err(CliError::output)?;
    }
    Ok(())
}

fn hints(tool: &dyn Tool) -> Vec<&'static str> {
    let annotations = &tool.spec().annotations;
    let flags = [
        (annotations.read_only, "read-only"),
        (annotations.destructive, "destructive"),
        (annotations.idempotent, "idempotent"),
        (annotations.open_world, "open-world"),
    ];
    flags
        .into_iter()
        .filter(|(value, _)| *value == Some(true))
        .map(|(_, label)| label)
        .collect()
}

/// `schema`: the definitions as a pretty JSON array; what a dialect could not express
/// goes to stderr.
pub(super) fn schema(
    registry: &ToolRegistry,
    options: DefinitionOptions,
    only: Option<&str>,
    io: &mut Io<'_>,
) -> Result<(), CliError> {
    let rendered = match only {
        None => registry.rendered_definitions(options),
        Some(name) => {
            let subset = registry
                .subset(&[name])
                .map_err(|_| unknown_tool(registry, name))?;
            subset.rendered_definitions(options)
        }
    };
    for definition in &rendered {
        report_issues(definition, options, io)?;
    }
    let values: Vec<&serde_json::Value> = rendered.iter().map(|definition| &definition.value).collect();
    let text = serde_json::to_string_pretty(&values)
        .map_err(|error| CliError(format!("cannot print definitions: {error}")))?;
    writeln!(io.stdout, "{text}").map_err(CliError::output)
}

/// One stderr line per fallback (`note:`) and per problem (`warning:`).
fn report_issues(
    definition: &Definition,
    options: DefinitionOptions,
    io: &mut Io<'_>,
) -> Result<(), CliError> {
    let name = definition_name(&definition.value);
    let dialect = options.dialect;
    let notes = definition.fallbacks.iter().map(|issue| ("note", issue));
    let warnings = definition.problems.iter().map(|issue| ("warning", issue));
    for (level, issue) in notes.chain(warnings) {
        writeln!(io.stderr, "{level}: `{name}` ({dialect}): {issue}").map_err(CliError::output)?;
    }
    Ok(())
}

/// The tool name in any dialect's shape.
fn definition_name(definition: &serde_json::Value) -> &str {
    let name = definition
        .get("name")
        .or_else(|| definition.pointer("/function/name"));
    name.and_then(serde_json::Value::as_str).unwrap_or("?")
}

fn unknown_tool(registry: &ToolRegistry, name: &str) -> CliError {
    let names = registry.names();
    let available = if names.is_empty() {
        "no tools are registered".to_owned()
    } else {
        format!("available: {}", names.join(", "))
    };
    CliError(format!("no tool named `{name}` ({available})"))
}

/// `call`: one call through the registry. Returns whether the result was an error.
pub(super) async fn call(
    registry: &ToolRegistry,
    name: &str,
    arguments: Option<&str>,
    json: bool,
    io: &mut Io<'_>,
) -> Result<bool, CliError> {
    let arguments = match arguments {
        Some("-") => {
            let mut text = String::new();
            io.stdin
                .read_to_string(&mut text)
                .map_err(|error| CliError(format!("cannot read arguments from stdin: {error}")))?;
            text
        }
        Some(text) => text.to_owned(),
        None => "{}".to_owned(),
    };
    let result = registry.call(ToolCall::new("cli-1", name, arguments)).await;
    if json {
        let rendered = serde_json::json!({
            "call_id": result.call_id,
            "name": result.name,
            "outcome": result.outcome,
            "content": result.output.content,
            "structured": result.output.structured,
            "is_error": result.output.is_error,
            "duration_ms": result.duration.as_secs_f64() * 1000.0,
            "repairs": result.repairs,
        });
        let text = serde_json::to_string_pretty(&rendered)
            .map_err(|error| CliError(format!("cannot print the result: {error}")))?;
        writeln!(io.stdout, "{text}").map_err(CliError::output)?;
    } else {
        let text = result.text();
        if !text.is_empty() {
            writeln!(io.stdout, "{}", text.trim_end_matches('\n')).map_err(CliError::output)?;
        }
    }
    Ok(result.is_error())
}
