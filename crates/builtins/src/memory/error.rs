//! What can go wrong with the memory store, and which of it is the model's to fix.

use std::path::PathBuf;

use agent_tools_core::ToolError;

use super::entry::{MAX_CONTENT_BYTES, MAX_KEY_CHARS};
use super::namespace::MAX_NAMESPACE_CHARS;
use super::query::MAX_QUERY_CHARS;
use super::tags::{MAX_TAG_CHARS, MAX_TAGS};

/// A failure of the memory store: either a request it refuses (the model's to fix) or a
/// failure of the database (SQLite or PostgreSQL) or the file system.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// The content to store is empty or only whitespace.
    #[error("`content` is empty; give the text to remember")]
    EmptyContent,
    /// The content to store is over [`MAX_CONTENT_BYTES`].
    #[error(
        "`content` is {size} bytes, over the limit of {MAX_CONTENT_BYTES} bytes (64 KiB); store a summary, \
         or split it into several memories"
    )]
    ContentTooLarge {
        /// The content's size in bytes.
        size: usize,
    },
    /// The key is empty or too long.
    #[error(
        "`key` must be 1 to {MAX_KEY_CHARS} characters (not only spaces); leave it out to store without one"
    )]
    InvalidKey,
    /// The content, key or a tag has a NUL character, which PostgreSQL cannot store.
    #[error("`{field}` contains a NUL character (U+0000), which memories cannot hold; remove it")]
    NulCharacter {
        /// `content`, `key` or `tags`.
        field: &'static str,
    },
    /// A tag is too long.
    #[error(
        "the tag `{tag}` is over {MAX_TAG_CHARS} characters; use short tags like `project-x` or `preference`"
    )]
    TagTooLong {
        /// The tag, normalized.
        tag: String,
    },
    /// More distinct tags than [`MAX_TAGS`].
    #[error("{count} tags given; at most {MAX_TAGS} are allowed")]
    TooManyTags {
        /// How many distinct tags were given.
        count: usize,
    },
    /// The search query has no letters or digits.
    #[error("the query has no words to search for (letters or digits); give a few words the memory contains")]
    EmptyQuery,
    /// The search query is over [`MAX_QUERY_CHARS`].
    #[error(
        "the query is {chars} characters long, over {MAX_QUERY_CHARS}; search with a few distinctive words"
    )]
    QueryTooLong {
        /// The query's length in characters.
        chars: usize,
    },
    /// No memory has this id.
    #[error("no memory has the id {0}; search with `memory_search` or list `recent` memories")]
    IdNotFound(i64),
    /// No memory has this key.
    #[error("no memory has the key `{0}`; search with `memory_search` or list `recent` memories")]
    KeyNotFound(String),
    /// The database's directory could not be created.
    #[error("cannot create the directory `{}`: {source}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A component of the database's path, or the database or one of its companion
    /// files, is a symbolic link.
    #[error(
        "`{}` is a symbolic link; the memory database's path must not go through one (give the real \
         path, e.g. from `realpath`, or remove the link)",
        path.display()
    )]
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// The database file has other names, which could lie anywhere.
    #[error(
        "the memory database `{}` has {links} hard links; writing it would change the file under its \
         other names too",
        path.display()
    )]
    HardLinked {
        /// The database.
        path: PathBuf,
        /// How many names it has.
        links: u64,
    },
    /// Neither `XDG_DATA_HOME` nor `HOME` says where the default database goes.
    #[error(
        "neither XDG_DATA_HOME nor HOME is set (to an absolute path), so the memory database has no default place"
    )]
    NoDataDirectory,
    /// The data directory lies inside the workspace, where `exec` could change it.
    #[error(
        "the data directory `{}` lies inside the workspace, where commands could change or delete \
         the memory database",
        path.display()
    )]
    DataDirectoryInWorkspace {
        /// The data directory.
        path: PathBuf,
    },
    /// The database was written by a newer version of this crate.
    #[error(
        "the database has schema version {found}, newer than this build knows ({supported}); \
         upgrade agent-tools"
    )]
    NewerSchema {
        /// The file's `user_version`.
        found: i64,
        /// The newest version this build migrates to.
        supported: i64,
    },
    /// A namespace was asked of a SQLite store, which has none.
    #[error(
        "memory namespaces need the PostgreSQL store; a SQLite store is one file per workspace \
         (give `[memory] url` to share one database between tenants)"
    )]
    NamespacesNeedPostgres,
    /// A namespace name is empty, too long, or has control characters.
    #[error(
        "the memory namespace {0:?} is not 1 to {MAX_NAMESPACE_CHARS} characters without control characters"
    )]
    InvalidNamespace(String),
    /// SQLite failed.
    #[error("SQLite: {}", sqlite_message(.0))]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed, or could not be reached.
    #[cfg(feature = "postgres")]
    #[error("PostgreSQL: {0}")]
    Postgres(#[source] agent_tools_postgres::Error),

    /// The blocking task running a database operation panicked or was cancelled.
    #[error("the database task failed: {0}")]
    Task(String),
}

/// SQLite's message, with a hint where it is too terse to act on: a write refused by a
/// full disk (or a file size limit) comes back as a bare "disk I/O error", an open
/// refused for a symbolic link (`SQLITE_OPEN_NOFOLLOW`) as "unable to open database file".
fn sqlite_message(error: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode::{DiskFull, SystemIoFailure};
    if error
        .sqlite_error()
        .is_some_and(|code| code.extended_code == rusqlite::ffi::SQLITE_CANTOPEN_SYMLINK)
    {
        return format!("{error} (its path goes through a symbolic link, which the store does not follow)");
    }
    match error.sqlite_error_code() {
        Some(DiskFull | SystemIoFailure) => {
            format!("{error} (the disk may be full or failing; the database is kept as it was)")
        }
        _ => error.to_string(),
    }
}

#[cfg(feature = "postgres")]
impl From<agent_tools_postgres::Error> for MemoryError {
    fn from(error: agent_tools_postgres::Error) -> Self {
        match error {
            agent_tools_postgres::Error::NewerSchema { found, supported, .. } => MemoryError::NewerSchema {
                found: found.into(),
                supported: supported.into(),
            },
            error => MemoryError::Postgres(error),
        }
    }
}

#[cfg(feature = "postgres")]
impl From<tokio_postgres::Error> for MemoryError {
    fn from(error: tokio_postgres::Error) -> Self {
        MemoryError::Postgres(error.into())
    }
}

impl MemoryError {
    /// Whether the request was refused (the caller can fix it) rather than the store
    /// failing.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Self::EmptyContent
                | Self::ContentTooLarge { .. }
                | Self::InvalidKey
                | Self::NulCharacter { .. }
                | Self::TagTooLong { .. }
                | Self::TooManyTags { .. }
                | Self::EmptyQuery
                | Self::QueryTooLong { .. }
                | Self::IdNotFound(_)
                | Self::KeyNotFound(_)
        )
    }
}

impl From<MemoryError> for ToolError {
    fn from(error: MemoryError) -> Self {
        match error {
            MemoryError::IdNotFound(_) | MemoryError::KeyNotFound(_) => ToolError::new(error),
            _ if error.is_refusal() => ToolError::invalid_arguments(error),
            _ => ToolError::new(format!("memory store error: {error}")),
        }
    }
}
