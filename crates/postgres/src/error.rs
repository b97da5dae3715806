//! [`Error`]: why a PostgreSQL operation failed, in the server's own words.

/// A failure to reach PostgreSQL or of a statement on it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server refused a statement, or the connection failed.
    #[error("{}", message(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// TLS could not be set up.
    #[error("cannot set up TLS: {0}")]
    Tls(#[source] rustls::Error),
    /// The schema was written by a newer version of agent-tools.
    #[error(
        "the database's `{component}` schema has version {found}, newer than this build knows \
         ({supported}); upgrade agent-tools"
    )]
    NewerSchema {
        /// The component (`memory`, `audit`, `tasks`).
        component: String,
        /// The version found.
        found: i32,
        /// The newest version this build migrates to.
        supported: i32,
    },
}

/// A PostgreSQL error as a message: the server's own words (severity, SQLSTATE, message,
/// detail) when it sent an error, else the client's error and its cause (`error
/// connecting to server: Connection refused`).
fn message(error: &tokio_postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        let mut message = format!("{} {}: {}", db.severity(), db.code().code(), db.message());
        if let Some(detail) = db.detail() {
            message.push_str(&format!(" ({detail})"));
        }
        return message;
    }
    match std::error::Error::source(error) {
        Some(source) => format!("{error}: {source}"),
        None => error.to_string(),
    }
}

impl Error {
    /// The SQLSTATE code the server sent, if it sent an error.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Postgres(error) => error.as_db_error().map(|db| db.code().code()),
            _ => None,
        }
    }
}
