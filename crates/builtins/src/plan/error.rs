//! What can go wrong with a plan: one the model must fix, or a file that cannot be kept.

use std::path::PathBuf;

use agent_tools_core::ToolError;

use crate::WorkspaceError;

/// A failure of [`Plans`](super::Plans): a plan that breaks the rules (the model's to
/// fix), or the plans directory or one of its files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The plan breaks the rules; the message names every problem.
    #[error("{}", super::rules::refusal(.problems))]
    Invalid {
        /// Each problem, as a sentence.
        problems: Vec<String>,
    },
    /// Neither `XDG_DATA_HOME` nor `HOME` says where a workspace's plans go.
    #[error(
        "neither XDG_DATA_HOME nor HOME is set (to an absolute path), so plans have no place outside the workspace"
    )]
    NoDataDirectory,
    /// The data directory lies inside the workspace, where `exec` could change the plans.
    #[error(
        "the data directory `{}` lies inside the workspace, where commands could change the plans",
        path.display()
    )]
    DataDirectoryInWorkspace {
        /// The data directory.
        path: PathBuf,
    },
    /// A component of the plans directory is a symbolic link.
    #[error("`{}` is a symbolic link; the plans directory must not go through one", path.display())]
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// The plans directory could not be created or opened.
    #[error("cannot create or open the plans directory `{}`: {source}", path.display())]
    Directory {
        /// The directory (or the component that failed).
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A plan's file could not be written; the previous file is kept.
    #[error("cannot write the plan file `{}`: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: WorkspaceError,
    },
    /// A plan's file could not be read, or does not hold a plan.
    #[error("cannot read the plan file `{}`: {reason}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl From<PlanError> for ToolError {
    fn from(error: PlanError) -> Self {
        match error {
            PlanError::Invalid { .. } => ToolError::invalid_arguments(error),
            _ => ToolError::new(error),
        }
    }
}
