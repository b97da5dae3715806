//! `plan`: the plans models keep with `update_plan`, read from the workspace's state
//! directory, where every process serving or calling the workspace's tools writes them
//! (see `agent_tools::builtins::plan`). Nothing is registered or mounted for it.

use std::path::Path;

use agent_tools::builtins::plan::{Plan, Plans};

use super::{CliError, EXIT_OK, EXIT_TOOL_ERROR, Io};

/// `plan [--session ID] [--json]` for the workspace at `root`.
pub(super) fn show(root: &Path, session: Option<&str>, json: bool, io: &mut Io<'_>) -> Result<u8, CliError> {
    let plans =
        Plans::for_workspace(root).map_err(|error| CliError(format!("cannot find the plans: {error}")))?;
    let listed = match session {
        Some(id) => plans.get(Some(id)).into_iter().collect(),
        None => plans
            .list()
            .map_err(|error| CliError(format!("cannot read the plans: {error}")))?,
    };
    if let (Some(id), []) = (session, listed.as_slice()) {
        writeln!(
            io.stderr,
            "agent-tools: session `{}` has no plan (see `agent-tools plan`)",
            id.escape_debug()
        )
        .map_err(CliError::output)?;
        return Ok(EXIT_TOOL_ERROR);
    }
    let text = match json {
        true => json_text(session.is_some(), &listed)?,
        false => checklists(&listed, &plans),
    };
    writeln!(io.stdout, "{text}").map_err(CliError::output)?;
    Ok(EXIT_OK)
}

/// The plan (`one`) or the array of plans, pretty.
fn json_text(one: bool, plans: &[Plan]) -> Result<String, CliError> {
    let printed = match (one, plans) {
        (true, [plan]) => serde_json::to_string_pretty(plan),
        _ => serde_json::to_string_pretty(plans),
    };
    printed.map_err(|error| CliError(format!("cannot print the plans: {error}")))
}

/// Each plan under a line naming its session, when and how far along it is, then its
/// explanation and checklist, indented; plans apart by a blank line.
fn checklists(listed: &[Plan], plans: &Plans) -> String {
    if listed.is_empty() {
        let place = plans
            .directory()
            .map(|dir| format!(" (plans are kept in {})", dir.display()))
            .unwrap_or_default();
        return format!("no session of this workspace has a plan{place}");
    }
    let shown: Vec<String> = listed
        .iter()
        .map(|plan| {
            let session = match &plan.session {
                Some(id) => format!("session {}", id.escape_debug()),
                None => "calls without a session".to_owned(),
            };
            let updated = humantime::format_rfc3339_seconds(plan.updated_at);
            let mut text = format!("{session} (updated {updated}): {}", plan.summary());
            let explanation = plan.explanation.iter().flat_map(|text| text.lines());
            for line in explanation.chain(plan.to_string().lines()) {
                text.push_str("\n  ");
                text.push_str(line);
            }
            text
        })
        .collect();
    shown.join("\n\n")
}
