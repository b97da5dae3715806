//! Durations in configuration files, written as people write them: `"30s"`, `"2m"`.

use std::time::Duration;

use serde::{Deserialize, Deserializer, de::Error as _};

/// Parses a duration string with humantime.
pub(super) fn parse<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let text = String::deserialize(deserializer)?;
    humantime::parse_duration(&text)
        .map_err(|error| D::Error::custom(format!("invalid duration `{text}`: {error}; write e.g. \"30s\"")))
}

/// [`parse`] for optional durations.
pub(super) fn parse_option<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    parse(deserializer).map(Some)
}
