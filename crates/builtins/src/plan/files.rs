//! A session's plan as a file: `plans/<name>.json` in the workspace's state directory, so
//! that another process (the command line's `plan`) can show it.
//!
//! The name comes from the session id, which the tool does not choose (a transport, an
//! application, a client): every byte but ASCII letters, digits, `_` and `-` is
//! percent-encoded, so no name holds a `/`, a `.` or anything else a path could be made
//! of, and `session-` is put before it (`session-abc.json`); calls without a session
//! share `no-session.json`. An encoding longer than [`MAX_ENCODED`] bytes is cut and
//! followed by `~` and a hash of the whole id, to stay within the file system's name
//! limit; the id inside the file is compared when reading, so a second id with the same
//! cut name reads as no plan rather than another session's.
//!
//! The directory is opened as a [`Workspace`]: a file is written next to its name and
//! renamed over it (a failed write leaves the old plan), the rename replaces a symbolic
//! link at the name rather than following it, and reads open the name following no link
//! and refuse anything but a regular file. A file is read up to [`MAX_FILE_BYTES`], and a
//! plan in it must keep the same rules as the model's (`rules.rs`), so what the command
//! line prints is never more than a model could have written.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::error::PlanError;
use super::rules;
use super::steps::Plan;
use crate::state_dir::{self, CreateDirError};
use crate::{Workspace, WorkspaceError};

/// The file of calls without a session.
const NO_SESSION: &str = "no-session.json";
/// Longest encoded session id kept whole in a file name.
const MAX_ENCODED: usize = 180;
/// Largest plan file read: far above the largest plan the rules allow (about 60 KB).
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// The file name of `session`'s plan (see the module docs).
pub(super) fn file_name(session: Option<&str>) -> String {
    let Some(id) = session else {
        return NO_SESSION.to_owned();
    };
    let mut encoded = String::with_capacity(id.len());
    for &byte in id.as_bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-' {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    if encoded.len() > MAX_ENCODED {
        let mut cut = MAX_ENCODED;
        // Not inside a `%XX`.
        if let Some(escape) = encoded[cut - 2..cut].find('%') {
            cut = cut - 2 + escape;
        }
        encoded.truncate(cut);
        encoded.push_str(&format!("~{:016x}", state_dir::fnv1a(id.as_bytes())));
    }
    format!("session-{encoded}.json")
}

/// Whether `name` is a plan file's name (not a temporary file of a write in progress).
fn is_plan_file(name: &str) -> bool {
    name == NO_SESSION || (name.starts_with("session-") && name.ends_with(".json"))
}

/// Writes `plan` to its file in `directory`, creating the directory (private, no link on
/// the way) if needed; atomically.
pub(super) fn write(directory: &Path, plan: &Plan) -> Result<(), PlanError> {
    state_dir::create_private_dirs(directory).map_err(|error| match error {
        CreateDirError::Symlink { path } => PlanError::Symlink { path },
        CreateDirError::Io { path, source } => PlanError::Directory { path, source },
    })?;
    let name = file_name(plan.session.as_deref());
    let path = directory.join(&name);
    let written = |source| PlanError::Write {
        path: path.clone(),
        source,
    };
    let text = serde_json::to_vec_pretty(plan).map_err(|error| {
        written(WorkspaceError::Io {
            path: name.clone(),
            source: std::io::Error::other(error),
        })
    })?;
    open(directory)?
        .following_no_links()
        .write(&name, text)
        .map(drop)
        .map_err(written)
}

/// `session`'s plan from its file in `directory`; `None` when there is none.
pub(super) fn read(directory: &Path, session: Option<&str>) -> Result<Option<Plan>, PlanError> {
    let Some(workspace) = open_existing(directory)? else {
        return Ok(None);
    };
    let plan = read_file(&workspace, directory, &file_name(session))?;
    Ok(plan.filter(|plan| plan.session.as_deref() == session))
}

/// Every plan in `directory`, in no particular order; files that are not plans (or not
/// ours: a name that is not its session's) are left out, since one bad file must not
/// hide the others.
pub(super) fn read_all(directory: &Path) -> Result<Vec<Plan>, PlanError> {
    let Some(workspace) = open_existing(directory)? else {
        return Ok(Vec::new());
    };
    let entries = workspace
        .dir()
        .entries()
        .map_err(|source| directory_error(directory, source))?;
    let mut plans = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| directory_error(directory, source))?;
        let name = entry.file_name();
        let Some(name) = name.to_str().filter(|name| is_plan_file(name)) else {
            continue;
        };
        if let Ok(Some(plan)) = read_file(&workspace, directory, name)
            && file_name(plan.session.as_deref()) == name
        {
            plans.push(plan);
        }
    }
    Ok(plans)
}

/// The plan in file `name`; `None` when there is no such file.
fn read_file(workspace: &Workspace, directory: &Path, name: &str) -> Result<Option<Plan>, PlanError> {
    let path = directory.join(name);
    let unreadable = |reason: String| PlanError::Read {
        path: path.clone(),
        reason,
    };
    let mut opened = match workspace.following_no_links().open_file(name) {
        Ok(opened) => opened,
        Err(WorkspaceError::NotFound { .. }) => return Ok(None),
        Err(error) => return Err(unreadable(error.to_string())),
    };
    if opened.metadata.len() > MAX_FILE_BYTES {
        return Err(unreadable(format!(
            "it is {} bytes, more than a plan can be",
            opened.metadata.len()
        )));
    }
    let mut bytes = Vec::new();
    opened
        .file
        .by_ref()
        .take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|error| unreadable(error.to_string()))?;
    let plan: Plan = serde_json::from_slice(&bytes).map_err(|error| unreadable(error.to_string()))?;
    let problems = rules::problems(plan.explanation.as_deref(), &plan.steps);
    if !problems.is_empty() {
        return Err(unreadable(format!(
            "the plan breaks the rules: {}",
            problems.join("; ")
        )));
    }
    Ok(Some(plan))
}

/// The directory as a workspace (see the module docs).
fn open(directory: &Path) -> Result<Workspace, PlanError> {
    Workspace::open(directory).map_err(|error| match error {
        WorkspaceError::Open { source, .. } => directory_error(directory, source),
        other => directory_error(directory, std::io::Error::other(other.to_string())),
    })
}

/// The directory as a workspace, or `None` when it does not exist (no plan was written).
fn open_existing(directory: &Path) -> Result<Option<Workspace>, PlanError> {
    match std::fs::symlink_metadata(directory) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(directory_error(directory, error)),
        Ok(metadata) if metadata.is_symlink() => Err(PlanError::Symlink {
            path: directory.to_path_buf(),
        }),
        Ok(_) => open(directory).map(Some),
    }
}

fn directory_error(directory: &Path, source: std::io::Error) -> PlanError {
    PlanError::Directory {
        path: PathBuf::from(directory),
        source,
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::*;
    use crate::plan::{PlanStep, StepStatus};

    fn plan(session: Option<&str>, step: &str) -> Plan {
        Plan {
            session: session.map(str::to_owned),
            explanation: None,
            steps: vec![PlanStep::new(step, StepStatus::Pending)],
            updated_at: SystemTime::UNIX_EPOCH,
        }
    }

    #[test]
    fn names_hold_nothing_a_path_is_made_of() {
        assert_eq!(file_name(None), "no-session.json");
        assert_eq!(file_name(Some("abc-1_2")), "session-abc-1_2.json");
        assert_eq!(file_name(Some("../../x")), "session-%2E%2E%2F%2E%2E%2Fx.json");
        assert_eq!(file_name(Some("")), "session-.json");
        assert_eq!(file_name(Some("é")), "session-%C3%A9.json");
        assert_ne!(file_name(Some("no")), file_name(None));
        let long = "é".repeat(100);
        let name = file_name(Some(&long));
        assert!(name.len() <= 8 + MAX_ENCODED + 17 + 5, "{}", name.len());
        assert!(name.contains('~') && !name.contains("%C~"), "{name}");
        assert_ne!(name, file_name(Some(&format!("{long}x"))));
        for id in ["a/b", "..", ".", "a\0b", "con", "x".repeat(1000).as_str()] {
            let name = file_name(Some(id));
            assert!(
                !name.contains('/') && !name.contains('\0') && name.len() < 255,
                "{name}"
            );
            assert!(is_plan_file(&name), "{name}");
        }
    }

    #[test]
    fn a_plan_is_written_atomically_and_read_back() {
        let temp = tempfile::tempdir().unwrap();
        let directory = temp.path().join("state/plans");
        assert_eq!(read(&directory, Some("s")).unwrap(), None);
        assert!(read_all(&directory).unwrap().is_empty());
        write(&directory, &plan(Some("s"), "one")).unwrap();
        write(&directory, &plan(Some("s"), "two")).unwrap();
        write(&directory, &plan(None, "shared")).unwrap();
        assert_eq!(read(&directory, Some("s")).unwrap(), Some(plan(Some("s"), "two")));
        assert_eq!(read(&directory, None).unwrap(), Some(plan(None, "shared")));
        assert_eq!(read(&directory, Some("other")).unwrap(), None);
        let names: Vec<String> = std::fs::read_dir(&directory)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
        assert_eq!(read_all(&directory).unwrap().len(), 2);
    }

    #[test]
    fn bad_files_are_refused_and_left_out_of_the_list() {
        let temp = tempfile::tempdir().unwrap();
        let directory = temp.path().join("plans");
        write(&directory, &plan(Some("good"), "fine")).unwrap();
        std::fs::write(directory.join(file_name(Some("junk"))), "not json").unwrap();
        let mut bad = plan(Some("escape"), "x");
        bad.steps[0].step = "\u{1b}]0;title\u{7}".to_owned();
        std::fs::write(
            directory.join(file_name(Some("escape"))),
            serde_json::to_vec(&bad).unwrap(),
        )
        .unwrap();
        // A file claiming another session than its name says.
        std::fs::write(
            directory.join(file_name(Some("liar"))),
            serde_json::to_vec(&plan(Some("good"), "forged")).unwrap(),
        )
        .unwrap();
        std::os::unix::fs::symlink("/etc/passwd", directory.join(file_name(Some("link")))).unwrap();
        let error = read(&directory, Some("junk")).unwrap_err();
        assert!(matches!(error, PlanError::Read { .. }), "{error}");
        let error = read(&directory, Some("escape")).unwrap_err();
        assert!(error.to_string().contains("control character"), "{error}");
        assert_eq!(read(&directory, Some("liar")).unwrap(), None);
        assert!(read(&directory, Some("link")).is_err());
        let all = read_all(&directory).unwrap();
        assert_eq!(all, vec![plan(Some("good"), "fine")]);
    }
}
