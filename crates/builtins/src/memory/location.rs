//! Where a workspace's memories live by default: `memory.db` in the workspace's state
//! directory, outside the workspace (`state_dir.rs` says where and why):
//!
//! ```text
//! $XDG_DATA_HOME/agent-tools/workspaces/<name>-<16 hex digits>/memory.db
//! ```
//!
//! The store used to be `<workspace>/.agent-tools/memory.db`. A database at the old place
//! is neither read nor moved: it lies where the agent (or whoever made the repository)
//! could have written it, and memories are instructions a model trusts, so taking them in
//! unasked would let a planted file speak to every later session. The command line says
//! where it is and where memories are now kept; a user who knows it is theirs moves it
//! there.

use std::path::{Path, PathBuf};

use super::error::MemoryError;
use crate::state_dir::{self, StateDirError};

/// The database of the old default location, relative to the workspace root; it is not
/// used any more (see the module docs).
pub const LEGACY_PATH: &str = ".agent-tools/memory.db";

/// The default database of the workspace at `workspace_root` (canonical), with the data
/// directory taken from `env` (`XDG_DATA_HOME`, else `HOME`); creates nothing.
pub(super) fn default_path(
    workspace_root: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<PathBuf, MemoryError> {
    match state_dir::workspace_dir(workspace_root, env) {
        Ok(dir) => Ok(dir.join("memory.db")),
        Err(StateDirError::NoDataDirectory) => Err(MemoryError::NoDataDirectory),
        Err(StateDirError::InWorkspace { path }) => Err(MemoryError::DataDirectoryInWorkspace { path }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_is_in_the_state_directory_and_its_refusals_are_the_memory_errors() {
        let temp = tempfile::tempdir().unwrap();
        let data = temp.path().canonicalize().unwrap();
        let env = |name: &str| (name == "XDG_DATA_HOME").then(|| data.display().to_string());
        let ws = Path::new("/srv/app");
        assert_eq!(
            default_path(ws, &env).unwrap(),
            state_dir::workspace_dir(ws, &env).unwrap().join("memory.db")
        );
        assert!(matches!(
            default_path(ws, &|_| None),
            Err(MemoryError::NoDataDirectory)
        ));
        let error = default_path(&data, &env).unwrap_err();
        assert!(
            matches!(error, MemoryError::DataDirectoryInWorkspace { .. }),
            "{error}"
        );
    }
}
