//! Checking a model's arguments against a tool's schema, and saying what is wrong in words
//! a model can act on.
//!
//! The registry compiles one [`ArgValidator`] per tool when the tool is registered, so a
//! call pays only for the check itself. A valid call costs one `is_valid` pass; only a
//! failing call collects and renders errors, and it reports *all* of them, so the model can
//! fix everything in one retry.

mod nulls;
mod render;

use std::fmt;

use jsonschema::Validator;
use serde_json::Value;

use crate::error::SchemaError;
use crate::schema::{check_input_schema, schema_draft};

/// A compiled JSON Schema for one tool's arguments.
///
/// The registry compiles one per tool when the tool is registered, so a call pays only
/// for the check itself. A valid call costs one `is_valid` pass; only a failing call
/// collects and renders errors ([`InvalidArguments`]), and it reports *all* of them, so
/// the model can fix everything in one retry.
#[derive(Debug)]
pub struct ArgValidator {
    validator: Validator,
    schema: Value,
}

impl ArgValidator {
    /// Compiles a tool's input schema: draft 2020-12 unless its `$schema` names another
    /// draft (4, 6, 7 or 2019-09; MCP servers built on the TypeScript SDK declare draft-07).
    ///
    /// Fails when the root is not an object schema, names a draft not known here
    /// ([`SchemaError::UnknownDraft`]), or is not valid JSON Schema
    /// ([`SchemaError::Invalid`], with the validator's complaint as its source).
    pub fn new(schema: &Value) -> Result<Self, SchemaError> {
        check_input_schema(schema)?;
        let validator = jsonschema::options()
            .with_draft(schema_draft(schema)?)
            .should_validate_formats(true)
            .should_ignore_unknown_formats(true)
            .build(schema)
            .map_err(|error| SchemaError::Invalid {
                source: Box::new(error),
            })?;
        Ok(Self {
            validator,
            schema: schema.clone(),
        })
    }

    /// Removes `null`s the schema does not accept for optional properties: they mean "not
    /// given", which is how OpenAI strict mode sends an optional argument the model leaves
    /// out. Run before [`validate`](Self::validate).
    pub fn drop_optional_nulls(&self, arguments: &mut Value) {
        nulls::drop_optional_nulls(&self.schema, arguments);
    }

    /// Checks arguments; on failure returns one readable problem per line, all of them.
    pub fn validate(&self, arguments: &Value) -> Result<(), Vec<String>> {
        if self.validator.is_valid(arguments) {
            return Ok(());
        }
        let mut described: Vec<(u8, Vec<String>)> = self
            .validator
            .iter_errors(arguments)
            .map(|error| (render::rank(&error), render::describe(&error, &self.schema)))
            .collect();
        // Wrong values first, then missing properties, then unknown ones: the order in
        // which a model best fixes them. The sort is stable within each group.
        described.sort_by_key(|(rank, _)| *rank);
        let mut problems: Vec<String> = described.into_iter().flat_map(|(_, lines)| lines).collect();
        problems.dedup();
        Err(problems)
    }
}

/// A model's arguments were rejected; `Display` renders the message the model sees.
///
/// ```text
/// invalid arguments for `read_file`:
/// - `/limit`: 5000 is greater than the maximum of 2000
/// - `/path`: required property is missing
/// - unknown property `pth` (did you mean `path`? expected one of: path, offset, limit)
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidArguments {
    tool: String,
    problems: Vec<String>,
}

impl InvalidArguments {
    /// Problems with the arguments of `tool`, one sentence each.
    pub fn new(tool: impl Into<String>, problems: Vec<String>) -> Self {
        Self {
            tool: tool.into(),
            problems,
        }
    }

    /// The individual problems.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl fmt::Display for InvalidArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid arguments for `{}`:", self.tool)?;
        for problem in &self.problems {
            write!(f, "\n- {problem}")?;
        }
        Ok(())
    }
}

/// The JSON type of a value, as a schema would name it (`integer` for whole numbers).
pub(crate) fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests;
