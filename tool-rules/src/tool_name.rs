//! The tool-name rule: `^[a-zA-Z0-9_-]{1,64}$`, the names every provider accepts.
//!
//! Registration enforces it (`tool_core::validate_tool_name`), `#[tool]` turns a bad
//! `name = "…"` into a compile error on the string with it, and `tool-core`'s dialects
//! check their own variants of it with [`check_characters`].

/// Checks a tool name against `^[a-zA-Z0-9_-]{1,64}$`, the rule all providers accept;
/// the error says what is wrong with it.
///
/// The `#[tool]` macro applies the same rule at compile time.
pub fn validate_tool_name(name: &str) -> Result<(), String> {
    check_characters(name, 64, &[])
}

/// Checks that `name` has 1 to `max` characters, each an ASCII letter, a digit, `_`, `-`
/// or one of `extra` (the variants of the rule some providers have).
pub fn check_characters(name: &str, max: usize, extra: &[char]) -> Result<(), String> {
    if name.is_empty() {
        return Err("a tool name must not be empty".to_owned());
    }
    if name.len() > max {
        return Err(format!(
            "a tool name has at most {max} characters, this one has {}",
            name.len()
        ));
    }
    let allowed = |c: &char| c.is_ascii_alphanumeric() || *c == '_' || *c == '-' || extra.contains(c);
    match name.chars().find(|c| !allowed(c)) {
        Some(bad) => {
            let others: String = extra.iter().map(|c| format!(", `{c}`")).collect();
            Err(format!(
                "{bad:?} is not allowed; use only ASCII letters, digits{others}, `_` and `-`"
            ))
        }
        None => Ok(()),
    }
}
