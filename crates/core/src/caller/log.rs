//! Log messages a tool sends its caller: [`LogLevel`] and [`LogMessage`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How severe a log message is: the syslog levels (RFC 5424) that MCP uses, least severe
/// first, so levels compare with `<`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed information for debugging.
    Debug,
    /// Normal progress.
    Info,
    /// Normal but significant.
    Notice,
    /// Something to look at.
    Warning,
    /// Something failed.
    Error,
    /// A component failed.
    Critical,
    /// Action must be taken now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The level's name as MCP writes it (`debug` … `emergency`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

/// One log message from a running tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LogMessage {
    /// How severe it is.
    pub level: LogLevel,
    /// Who logs: the tool's name when the registry knows it.
    pub logger: Option<String>,
    /// The message: a string, or any JSON.
    pub data: Value,
}

impl LogMessage {
    /// A message at `level` with `data` (a string or any JSON) and no logger.
    pub fn new(level: LogLevel, data: impl Into<Value>) -> Self {
        Self {
            level,
            logger: None,
            data: data.into(),
        }
    }

    /// Names who logs.
    pub fn with_logger(mut self, logger: impl Into<String>) -> Self {
        self.logger = Some(logger.into());
        self
    }
}
