//! "Did you mean": the names close to one that does not exist.
//!
//! [`closest`] is the scorer every suggestion goes through: unknown tools and properties
//! here, paths in `agent-tools-builtins`, `#[tool]` attributes in `agent-tools-macros`. It lives in
//! `agent-tools-rules`, the small crate `agent-tools-macros` shares with this one (its crate docs say
//! why); this is its public path.

pub use agent_tools_rules::closest;

/// Up to three of `names` close to `wanted`, best first, for a tool or property name a
/// model got wrong.
///
/// Besides misspellings and wrong case, catches a namespace prefix such as
/// `functions.read_file` or `default_api:read_file`: the name is taken after its last
/// `.`, `:` or `/`.
pub(crate) fn similar_names<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let unqualified = wanted.rsplit(['.', ':', '/']).next().unwrap_or(wanted);
    closest(unqualified, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 4] = ["read_file", "write_file", "list_dir", "exec"];

    #[test]
    fn finds_misspellings_case_and_prefixes() {
        assert_eq!(similar_names("reed_file", NAMES.into_iter())[0], "read_file");
        assert_eq!(similar_names("Read_File", NAMES.into_iter()), vec!["read_file"]);
        assert_eq!(similar_names("functions.exec", NAMES.into_iter()), vec!["exec"]);
        assert!(similar_names("teleport", NAMES.into_iter()).is_empty());
    }

    #[test]
    fn a_clear_winner_stands_alone_and_close_seconds_are_kept() {
        assert_eq!(closest("mian.rs", ["lib.rs", "main.rs", "mod.rs"]), ["main.rs"]);
        assert_eq!(closest("scr", ["src", "target", "tests"]), ["src"]);
        assert_eq!(
            closest(
                "memory_get",
                ["memory_read", "memory_search", "memory_write", "exec"]
            ),
            ["memory_write", "memory_read", "memory_search"]
        );
        assert_eq!(
            closest("timout", ["idempotent", "strict", "timeout"]),
            ["timeout"]
        );
    }
}
