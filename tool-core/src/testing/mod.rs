//! Checks for tests: does a tool's definition satisfy every provider?

mod rules;

pub use rules::provider_rule_violations;
