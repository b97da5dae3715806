//! Resource limits as a configuration file writes them: a count, a size (`"512MiB"`) or
//! a duration (`"10m"`), or `"unlimited"` to turn a limit off — TOML has no null, and a
//! limit that is on by default (`max_processes`) must be possible to turn off.

use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use serde::Deserializer;
use serde::de::{self, Visitor};

/// The word that turns a limit off.
const UNLIMITED: &str = "unlimited";

/// A limit given as a number or as text, before its kind reads it.
enum Given<'a> {
    Number(u64),
    Text(&'a str),
}

/// How one kind of limit reads what was given.
trait LimitKind {
    type Value;
    /// What the value looks like, for "expected …" in errors.
    const EXPECTED: &'static str;
    fn read(given: Given<'_>) -> Result<Self::Value, String>;
}

struct LimitVisitor<K>(PhantomData<K>);

impl<'de, K: LimitKind> Visitor<'de> for LimitVisitor<K> {
    type Value = Option<K::Value>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{} or \"{UNLIMITED}\"", K::EXPECTED)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        K::read(Given::Number(value)).map(Some).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        let value = u64::try_from(value).map_err(|_| {
            E::custom(format!(
                "a limit cannot be negative ({value}); use \"{UNLIMITED}\" for none"
            ))
        })?;
        self.visit_u64(value)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        if value.trim().eq_ignore_ascii_case(UNLIMITED) {
            return Ok(None);
        }
        K::read(Given::Text(value)).map(Some).map_err(E::custom)
    }
}

fn deserialize<'de, K: LimitKind, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<K::Value>, D::Error> {
    deserializer.deserialize_any(LimitVisitor::<K>(PhantomData))
}

/// A count of processes: a positive integer.
pub(crate) mod processes {
    use super::*;

    pub(crate) struct Processes;

    impl LimitKind for Processes {
        type Value = u32;
        const EXPECTED: &'static str = "a number of processes";
        fn read(given: Given<'_>) -> Result<u32, String> {
            let count = match given {
                Given::Number(count) => count,
                Given::Text(text) => text
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{text}` is not a number of processes"))?,
            };
            match u32::try_from(count) {
                Ok(0) => Err(format!(
                    "a limit of 0 processes leaves no room for the command; use \"{UNLIMITED}\" for none"
                )),
                Ok(count) => Ok(count),
                Err(_) => Err(format!("{count} processes is more than any kernel allows")),
            }
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
        super::deserialize::<Processes, D>(deserializer)
    }
}

/// A size in bytes: a number of bytes or a size string.
pub(crate) mod memory {
    use super::*;

    pub(crate) struct Memory;

    impl LimitKind for Memory {
        type Value = u64;
        const EXPECTED: &'static str = "a size in bytes or with a unit (\"512MiB\", \"2G\")";
        fn read(given: Given<'_>) -> Result<u64, String> {
            let bytes = match given {
                Given::Number(bytes) => bytes,
                Given::Text(text) => parse_size(text)?,
            };
            if bytes == 0 {
                return Err(format!(
                    "a memory limit of 0 leaves no room for the command; use \"{UNLIMITED}\" for none"
                ));
            }
            Ok(bytes)
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
        super::deserialize::<Memory, D>(deserializer)
    }
}

/// CPU time: a duration as humantime writes it (`"90s"`, `"10m"`), or whole seconds.
pub(crate) mod cpu {
    use super::*;

    pub(crate) struct Cpu;

    impl LimitKind for Cpu {
        type Value = Duration;
        const EXPECTED: &'static str = "a duration (\"90s\", \"10m\") or seconds";
        fn read(given: Given<'_>) -> Result<Duration, String> {
            let time = match given {
                Given::Number(seconds) => Duration::from_secs(seconds),
                Given::Text(text) => humantime::parse_duration(text.trim())
                    .map_err(|error| format!("`{text}` is not a duration ({error})"))?,
            };
            // The kernel counts CPU time limits in whole seconds (RLIMIT_CPU).
            if time < Duration::from_secs(1) {
                return Err(format!(
                    "a CPU time limit must be at least 1s; use \"{UNLIMITED}\" for none"
                ));
            }
            Ok(time)
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Duration>, D::Error> {
        super::deserialize::<Cpu, D>(deserializer)
    }
}

/// Bytes from `"512MiB"`, `"2 GiB"`, `"2G"`, `"1500000"`: `KiB`, `MiB`, `GiB`, `TiB` and
/// the bare `K`, `M`, `G`, `T` (as Docker and systemd read them) are powers of 1024; `KB`,
/// `MB`, `GB`, `TB` powers of 1000; `B` or nothing are bytes. Units ignore case.
pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (digits, unit) = trimmed.split_at(split);
    let number: u64 = digits.parse().map_err(|_| {
        format!("`{text}` is not a size (a number of bytes, or one with a unit: \"512MiB\", \"2G\")")
    })?;
    let multiplier: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        other => {
            return Err(format!(
                "`{other}` in `{text}` is not a size unit (B, KiB, MiB, GiB, TiB, K, M, G, T, KB, MB, GB, TB)"
            ));
        }
    };
    number
        .checked_mul(multiplier)
        .ok_or_else(|| format!("`{text}` is more bytes than fit in 64 bits"))
}
