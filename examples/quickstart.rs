//! Quickstart: define two tools, register them, show their OpenAI definitions, and run a
//! valid, an invalid and an unknown call, then print the audit log.
//!
//! Run with `cargo run --example quickstart`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_tools::{Dialect, ToolCall, ToolRegistry, audit::MemoryAudit, tool, toolset};
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `convert_temperature`.
#[derive(Deserialize, JsonSchema)]
struct ConvertArgs {
    /// The temperature to convert.
    value: f64,
    /// The unit of `value`.
    from: Unit,
}

/// A temperature unit.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Convert a temperature between Celsius and Fahrenheit.
#[tool(read_only, idempotent)]
async fn convert_temperature(args: ConvertArgs) -> String {
    match args.from {
        Unit::Celsius => format!("{:.1} °F", args.value * 9.0 / 5.0 + 32.0),
        Unit::Fahrenheit => format!("{:.1} °C", (args.value - 32.0) * 5.0 / 9.0),
    }
}

/// A tiny note store: tools in a toolset share its state.
#[derive(Default)]
struct Notes {
    notes: Mutex<HashMap<String, String>>,
}

#[toolset]
impl Notes {
    /// Save a note under a title, replacing any note with that title.
    #[tool(idempotent)]
    async fn save_note(
        &self,
        /// A short title.
        title: String,
        /// The note's text.
        text: String,
    ) -> String {
        let mut notes = self.notes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        notes.insert(title.clone(), text);
        format!("saved `{title}` ({} notes)", notes.len())
    }

    /// Read the note with a title.
    #[tool(read_only)]
    async fn read_note(
        &self,
        /// The title given when saving.
        title: String,
    ) -> Result<String, String> {
        let notes = self.notes.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        notes
            .get(&title)
            .cloned()
            .ok_or_else(|| format!("no note titled `{title}`; save one first"))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let audit = MemoryAudit::new();
    let registry = ToolRegistry::builder().audit(audit.clone()).build();
    registry.register(ConvertTemperatureTool)?;
    Arc::new(Notes::default()).register_all(&registry)?;

    println!("== OpenAI tool definitions (strict)");
    let definitions = registry.definitions(Dialect::OpenAiChat);
    println!("{}", serde_json::to_string_pretty(&definitions)?);
    println!("== The same tools for Gemini");
    let definitions = registry.definitions(Dialect::Gemini);
    println!("{}", serde_json::to_string_pretty(&definitions)?);

    let calls = [
        ToolCall::new(
            "call_1",
            "convert_temperature",
            r#"{"value": 21.5, "from": "celsius"}"#,
        ),
        ToolCall::new(
            "call_2",
            "save_note",
            r#"{"title": "groceries", "text": "milk, eggs"}"#,
        ),
        ToolCall::new("call_3", "read_note", r#"{"title": "groceries"}"#),
        // Invalid: a wrong enum value, a missing field and a misspelled one.
        ToolCall::new(
            "call_4",
            "convert_temperature",
            r#"{"from": "kelvin", "vaule": 3}"#,
        ),
        // The tool itself reports an error.
        ToolCall::new("call_5", "read_note", r#"{"title": "todo"}"#),
        // Unknown tool, with a suggestion.
        ToolCall::new("call_6", "read_notes", r#"{"title": "groceries"}"#),
    ];
    for call in calls {
        let result = registry.call(call).await;
        let status = if result.is_error() { "error" } else { "ok" };
        println!(
            "\n== {} `{}` → {status}\n{}",
            result.call_id,
            result.name,
            result.text()
        );
    }

    println!("\n== Audit log");
    for event in audit.events() {
        println!("{}", serde_json::to_string(&event)?);
    }
    Ok(())
}
