//! `mounts lock|verify|diff|accept` and `list --explain`: the mounted servers' tool
//! definitions against the lock file, and what the checks found.
//!
//! `verify` and `diff` mount with nothing pinned and nothing offered that is not pinned
//! (`mounts::Pinning::Compare`), so comparing never changes the lock file; `lock` and
//! `accept` pin what the servers list now through [`McpMount::accept`].

use agent_tools::mcp::McpMount;
use agent_tools::mcp::trust::{LockFile, ToolReview};

use super::args::MountsCommand;
use super::mounts::Mounted;
use super::{CliError, EXIT_OK, EXIT_TOOL_ERROR, Io};

/// Runs `command` over the servers `mounted`.
pub(super) async fn run(
    command: &MountsCommand,
    mounted: &Mounted,
    lock: Option<&LockFile>,
    io: &mut Io<'_>,
) -> Result<u8, CliError> {
    let lock = lock.ok_or_else(|| {
        CliError(
            "no lock file: give --lock FILE, or --config FILE (the lock file is then agent-tools.lock beside it)"
                .to_owned(),
        )
    })?;
    match command {
        MountsCommand::Lock { names } => {
            for (name, handle) in selected(mounted, names)? {
                accept(handle, name, &[]).await?;
                let pinned = handle.reviews().iter().filter(|review| review.pinned).count();
                line(
                    io,
                    &format!("pinned {pinned} tools of `{name}` in {}", lock.path().display()),
                )?;
            }
            Ok(EXIT_OK)
        }
        MountsCommand::Accept { name, tools } => {
            let (name, handle) = selected(mounted, std::slice::from_ref(name))?
                .into_iter()
                .next()
                .ok_or_else(|| CliError(format!("no mount is named `{name}`")))?;
            let tools: Vec<(&str, Option<&str>)> = tools.iter().map(|tool| reviewed_hash(tool)).collect();
            let reviews = handle.reviews();
            if let Some((unknown, _)) = tools
                .iter()
                .find(|(tool, _)| !reviews.iter().any(|review| review.remote_name == *tool))
            {
                return Err(CliError(format!(
                    "`{name}` has no tool `{unknown}` to accept (name it as the server does, without the prefix)"
                )));
            }
            accept(handle, name, &tools).await?;
            for review in handle.reviews().iter().filter(|review| review.is_notable()) {
                line(io, &review.explain(false))?;
            }
            line(io, &format!("accepted in {}", lock.path().display()))?;
            Ok(EXIT_OK)
        }
        MountsCommand::Verify { names } => {
            let mut differences = 0;
            let selected = selected(mounted, names)?;
            for (name, handle) in &selected {
                for review in handle.reviews() {
                    if let Some(change) = review.change {
                        differences += 1;
                        line(
                            io,
                            &format!("{name}: `{}` {}", review.remote_name, change.as_str()),
                        )?;
                    }
                }
            }
            if differences > 0 {
                line(
                    io,
                    &format!(
                        "{differences} definitions differ from {}; see `agent-tools mounts diff`",
                        lock.path().display()
                    ),
                )?;
                return Ok(EXIT_TOOL_ERROR);
            }
            line(
                io,
                &format!(
                    "the tools of {} mounts are as pinned in {}",
                    selected.len(),
                    lock.path().display()
                ),
            )?;
            Ok(EXIT_OK)
        }
        MountsCommand::Diff { names } => {
            for (name, handle) in selected(mounted, names)? {
                for review in handle.reviews().iter().filter(|review| review.is_notable()) {
                    line(io, &format!("{name}: {}", review.explain(true)))?;
                    if review.change.is_some() {
                        line(
                            io,
                            &format!(
                                "  to accept exactly this definition: mounts accept {name} {}@{}",
                                review.remote_name,
                                review.short_sha256()
                            ),
                        )?;
                    }
                }
            }
            Ok(EXIT_OK)
        }
    }
}

/// `list --explain`: for each mount, every tool with something to say about it, also the
/// ones held back.
pub(super) fn explain(mounted: &Mounted, io: &mut Io<'_>) -> Result<(), CliError> {
    for (name, handle) in mounted.handles() {
        let reviews = handle.reviews();
        let notable: Vec<&ToolReview> = reviews.iter().filter(|review| review.is_notable()).collect();
        let pinned = reviews.iter().filter(|review| review.pinned).count();
        line(
            io,
            &format!(
                "\nmount `{name}` ({}): {} tools listed, {pinned} pinned, {} to note",
                handle.server(),
                reviews.len(),
                notable.len()
            ),
        )?;
        for review in notable {
            line(io, &review.explain(false))?;
        }
    }
    Ok(())
}

/// The mounts named in `names` (every mount when empty); an unknown name is an error.
fn selected<'a>(mounted: &'a Mounted, names: &[String]) -> Result<Vec<(&'a str, &'a McpMount)>, CliError> {
    if let Some(unknown) = names
        .iter()
        .find(|name| !mounted.handles().iter().any(|(mount, _)| mount == *name))
    {
        return Err(CliError(format!(
            "no mount is named `{unknown}` (mounts come from --mount and [[mount]] in --config)"
        )));
    }
    Ok(mounted
        .handles()
        .iter()
        .filter(|(name, _)| names.is_empty() || names.contains(name))
        .map(|(name, handle)| (name.as_str(), handle))
        .collect())
}

/// Accepts the tools named in `tools` (every one that differs, when empty): as the server
/// lists them now, or, when they come with hashes (`TOOL@sha256:HASH`), only the
/// definitions with those hashes. Either every tool has a hash or none has.
async fn accept(handle: &McpMount, name: &str, tools: &[(&str, Option<&str>)]) -> Result<(), CliError> {
    let accepted = if tools.iter().any(|(_, hash)| hash.is_some()) {
        let definitions = tools
            .iter()
            .map(|(tool, hash)| hash.map(|hash| (*tool, hash)))
            .collect::<Option<Vec<(&str, &str)>>>()
            .ok_or_else(|| {
                CliError("give every tool as TOOL@sha256:HASH, or none of them (a hash accepts exactly what was reviewed)".to_owned())
            })?;
        handle.accept_as_reviewed(&definitions).await
    } else {
        let tools: Vec<&str> = tools.iter().map(|(tool, _)| *tool).collect();
        handle.accept(&tools).await
    };
    accepted.map_err(|error| CliError(format!("cannot accept the tools of `{name}`: {error}")))
}

/// `TOOL@sha256:HASH` as the tool and its hash; a plain `TOOL` with none.
fn reviewed_hash(tool: &str) -> (&str, Option<&str>) {
    match tool.rsplit_once("@sha256:") {
        Some((tool, hash)) => (tool, Some(hash)),
        None => (tool, None),
    }
}

fn line(io: &mut Io<'_>, text: &str) -> Result<(), CliError> {
    writeln!(io.stdout, "{text}").map_err(CliError::output)
}
