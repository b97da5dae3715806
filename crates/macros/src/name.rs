//! Names: the tool-name rule, case conversion, and "did you mean".

use proc_macro2::Span;

// The name rule and the "did you mean" scorer come from agent-tools-rules, which agent-tools-core uses
// too (its crate docs say why the macro cannot call agent-tools-core): a name the macro accepts
// is one registration accepts, and a suggestion is the one the registry makes.

/// Checks a `#[tool]` name with the rule registration enforces
/// (`agent_tools_core::tool::validate_tool_name`): a run-time registration error becomes a compile
/// error on the offending string, worded as registration words it.
pub(crate) fn check_tool_name(name: &str, span: Span) -> syn::Result<()> {
    agent_tools_rules::validate_tool_name(name)
        .map_err(|reason| syn::Error::new(span, format!("invalid tool name `{name}`: {reason}")))
}

/// `read_file` → `ReadFile` (a leading `r#` is dropped).
pub(crate) fn pascal_case(snake: &str) -> String {
    snake
        .trim_start_matches("r#")
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// The candidate closest to `wanted`, if it is close enough to be a typo.
pub(crate) fn closest<'a>(wanted: &str, candidates: &[&'a str]) -> Option<&'a str> {
    agent_tools_rules::closest(wanted, candidates.iter().copied())
        .into_iter()
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_snake_to_pascal() {
        assert_eq!(pascal_case("read_file"), "ReadFile");
        assert_eq!(pascal_case("r#type"), "Type");
        assert_eq!(pascal_case("web__fetch_2"), "WebFetch2");
    }

    #[test]
    fn suggests_close_names() {
        assert_eq!(closest("readonly", &["read_only", "strict"]), Some("read_only"));
        assert_eq!(closest("timout", &["timeout"]), Some("timeout"));
        assert_eq!(closest("banana", &["timeout", "strict"]), None);
    }

    #[test]
    fn checks_tool_names() {
        assert!(check_tool_name("read_file", Span::call_site()).is_ok());
        assert!(check_tool_name("read file", Span::call_site()).is_err());
        assert!(check_tool_name(&"x".repeat(65), Span::call_site()).is_err());
    }
}
