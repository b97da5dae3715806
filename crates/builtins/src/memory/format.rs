//! How the memory tools present memories to a model, and their shared argument check.

use agent_tools_core::ToolError;

/// The most entries one call lists (`limit` of a search, `recent` of a read).
pub(super) const MAX_LISTED: u32 = 50;

/// `value` if it is within 1..=[`MAX_LISTED`], else an error naming the argument.
pub(super) fn check_count(name: &str, value: u32) -> Result<u32, ToolError> {
    if (1..=MAX_LISTED).contains(&value) {
        Ok(value)
    } else {
        Err(ToolError::invalid_arguments(format!(
            "`{name}` must be between 1 and {MAX_LISTED}, not {value}"
        )))
    }
}

/// `#12 · key `deploy` · tags: ops, ci`: how a memory is named in every output.
pub(super) fn heading(id: i64, key: Option<&str>, tags: &[String]) -> String {
    let mut heading = format!("#{id}");
    if let Some(key) = key {
        heading.push_str(&format!(" · key `{key}`"));
    }
    if !tags.is_empty() {
        heading.push_str(&format!(" · tags: {}", tags.join(", ")));
    }
    heading
}

/// `2026-05-01 12:03 UTC` from a stored `2026-05-01T12:03:04.567Z`.
pub(super) fn date(timestamp: &str) -> String {
    match timestamp.get(..16) {
        Some(minute) => format!("{} UTC", minute.replacen('T', " ", 1)),
        None => timestamp.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_dates_and_counts() {
        let tags = vec!["ci".to_owned(), "ops".to_owned()];
        assert_eq!(
            heading(12, Some("deploy"), &tags),
            "#12 · key `deploy` · tags: ci, ops"
        );
        assert_eq!(heading(3, None, &[]), "#3");
        assert_eq!(date("2026-05-01T12:03:04.567Z"), "2026-05-01 12:03 UTC");
        assert_eq!(date("odd"), "odd");
        assert_eq!(check_count("limit", 50).unwrap(), 50);
        let error = check_count("recent", 0).unwrap_err();
        assert_eq!(error.to_string(), "`recent` must be between 1 and 50, not 0");
    }
}
