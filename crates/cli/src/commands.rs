//! What each subcommand does once the registry is ready.

use agent_tools::testing::{provider_rule_violations, tool_list_violations};
use agent_tools::{
    Tool, ToolCall, ToolRegistry,
    dialect::{Definition, DefinitionOptions},
    policy::{Policy, Reason, ToolVerdict},
    search::ToolSearchMode,
};

use super::{CliError, Io};

/// `list`: `name  [hints]  summary`, one tool per line, names aligned; with a policy,
/// what it does with the tool's calls in a column after the name.
pub(super) fn list(
    registry: &ToolRegistry,
    policy: Option<&Policy>,
    io: &mut Io<'_>,
) -> Result<(), CliError> {
    let tools = registry.tools();
    if tools.is_empty() {
        writeln!(io.stderr, "no tools are registered").map_err(CliError::output)?;
        return Ok(());
    }
    let width = tools
        .iter()
        .map(|tool| tool.spec().meta.name.len())
        .max()
        .unwrap_or(0);
    let verdicts: Vec<String> = match policy {
        Some(policy) => tools
            .iter()
            .map(|tool| verdict_label(policy, &policy.verdict_for_tool(tool.spec())))
            .collect(),
        None => Vec::new(),
    };
    let verdict_width = verdicts
        .iter()
        .map(|label| label.chars().count())
        .max()
        .unwrap_or(0);
    for (index, tool) in tools.iter().enumerate() {
        let spec = tool.spec();
        let hints = hints(tool.as_ref(), registry.is_deferred(&spec.meta.name));
        let hints = if hints.is_empty() {
            String::new()
        } else {
            format!("[{}] ", hints.join(", "))
        };
        // One line per tool, though a first sentence may wrap in the doc comment.
        let summary = spec.summary().split_whitespace().collect::<Vec<_>>().join(" ");
        let verdict = match verdicts.get(index) {
            Some(label) => format!("{label:verdict_width$}  "),
            None => String::new(),
        };
        writeln!(io.stdout, "{:width$}  {verdict}{hints}{summary}", spec.meta.name)
            .map_err(CliError::output)?;
    }
    Ok(())
}

/// What `policy` does with a tool's calls, in a few words: `allowed`, `asks (ask rule
/// `web_fetch`)`, `denied (policy mode `read_only`)`, `depends on arguments`.
fn verdict_label(policy: &Policy, verdict: &ToolVerdict) -> String {
    let why = |reason: &Reason| match reason.rule_text() {
        Some((list, rule)) => format!("{} rule `{rule}`", list.as_str()),
        // The long form explains the mode; `--help` and the README do that here.
        None => format!("policy mode `{}`", policy.mode()),
    };
    match verdict {
        ToolVerdict::Allowed => "allowed".to_owned(),
        ToolVerdict::Asks(reason) => format!("asks ({})", why(reason)),
        ToolVerdict::Denied(reason) => format!("denied ({})", why(reason)),
        ToolVerdict::DependsOnArguments => "depends on arguments".to_owned(),
        // A verdict this version does not know yet: say so rather than guess.
        _ => "decided by the policy".to_owned(),
    }
}

fn hints(tool: &dyn Tool, deferred: bool) -> Vec<&'static str> {
    let annotations = &tool.spec().meta.annotations;
    let flags = [
        (annotations.read_only, "read-only"),
        (annotations.destructive, "destructive"),
        (annotations.idempotent, "idempotent"),
        (annotations.open_world, "open-world"),
        (Some(deferred), "deferred"),
    ];
    flags
        .into_iter()
        .filter(|(value, _)| *value == Some(true))
        .map(|(_, label)| label)
        .collect()
}

/// `schema`: the definitions as a pretty JSON array; what a dialect could not express,
/// and what its provider would reject, goes to stderr. Returns how many definitions the
/// provider would reject.
pub(super) fn schema(
    registry: &ToolRegistry,
    options: DefinitionOptions,
    only: Option<&str>,
    io: &mut Io<'_>,
) -> Result<usize, CliError> {
    let rendered = match only {
        None => registry.rendered_definitions(options),
        Some(name) => {
            if !registry.contains(name) {
                return Err(unknown_tool(registry, name));
            }
            // A deferred tool is not in a local search's list: show it as it is loaded.
            let offered = registry.rendered_definitions(options);
            let shown = offered
                .iter()
                .any(|definition| definition_name(&definition.value) == name);
            let options = match shown {
                true => options,
                false => options.tool_search(ToolSearchMode::LoadAll),
            };
            let mut rendered = registry.rendered_definitions(options);
            rendered.retain(|definition| definition_name(&definition.value) == name);
            rendered
        }
    };
    let mut rejected = 0;
    for definition in &rendered {
        if report_issues(definition, options, io)? {
            rejected += 1;
        }
    }
    let values: Vec<serde_json::Value> = rendered
        .iter()
        .map(|definition| definition.value.clone())
        .collect();
    if only.is_none() {
        for violation in tool_list_violations(options.dialect, &values) {
            writeln!(
                io.stderr,
                "error: the tool list ({}): {violation}",
                options.dialect
            )
            .map_err(CliError::output)?;
            rejected += 1;
        }
    }
    let text = serde_json::to_string_pretty(&values)
        .map_err(|error| CliError(format!("cannot print definitions: {error}")))?;
    writeln!(io.stdout, "{text}").map_err(CliError::output)?;
    Ok(rejected)
}

/// One stderr line per fallback (`note:`), per problem the dialect found and per
/// provider rule the definition breaks (`error:`). Returns whether there was an error:
/// the provider would reject the definition.
///
/// The rules are checked a second time, independently of the dialect code
/// ([`provider_rule_violations`]), because a mounted server's schemas can be anything,
/// not only what `#[tool]` generates and its tests check.
fn report_issues(
    definition: &Definition,
    options: DefinitionOptions,
    io: &mut Io<'_>,
) -> Result<bool, CliError> {
    let name = definition_name(&definition.value);
    let dialect = options.dialect;
    let violations = provider_rule_violations(dialect, &definition.value);
    let notes = definition
        .fallbacks
        .iter()
        .map(|issue| ("note", issue.to_string()));
    let problems = definition
        .problems
        .iter()
        .map(|issue| ("error", issue.to_string()));
    let broken = violations
        .iter()
        .map(|violation| ("error", format!("breaks a provider rule: {violation}")));
    for (level, issue) in notes.chain(problems).chain(broken) {
        writeln!(io.stderr, "{level}: `{name}` ({dialect}): {issue}").map_err(CliError::output)?;
    }
    Ok(!definition.problems.is_empty() || !violations.is_empty())
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

/// `call`: one call through the registry, in `session` if given. Returns whether the
/// result was an error.
pub(super) async fn call(
    registry: &ToolRegistry,
    name: &str,
    arguments: Option<&str>,
    json: bool,
    session: Option<&str>,
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
    let mut call = ToolCall::new("cli-1", name, arguments);
    if let Some(session) = session {
        call = call.with_session_id(session);
    }
    let result = registry.call(call).await;
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

#[cfg(test)]
mod tests {
    use agent_tools::{Dialect, tool::ToolSpec};

    use super::*;

    fn report(definition: &Definition, options: DefinitionOptions) -> (bool, String) {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let mut io = Io {
            stdin: &mut "".as_bytes(),
            stdout: &mut stdout,
            stderr: &mut stderr,
        };
        let rejected = report_issues(definition, options, &mut io).unwrap();
        (rejected, String::from_utf8(stderr).unwrap())
    }

    /// A definition the dialect saw no problem in can still break a provider's rule (a
    /// mounted server's schemas are not what `#[tool]` makes); the independent checkers
    /// catch it.
    #[test]
    fn a_broken_provider_rule_is_a_rejection_even_when_the_dialect_saw_none() {
        let spec = ToolSpec::new(
            "hello",
            "Say hello.",
            serde_json::json!({"type": "object", "properties": {"who": {"type": "string"}}}),
        );
        let options = DefinitionOptions::new(Dialect::Gemini);
        let mut definition = options.render(&spec);
        assert_eq!(report(&definition, options), (false, String::new()));

        definition.value["parameters"]["properties"]["who"]["const"] = "you".into();
        assert!(definition.problems.is_empty());
        let (rejected, stderr) = report(&definition, options);
        assert!(rejected, "{stderr}");
        assert!(
            stderr.starts_with("error: `hello` (gemini): breaks a provider rule: parameters/properties/who"),
            "{stderr}"
        );
    }
}
