//! Provider dialects over a corpus of argument types: golden files of every definition,
//! independent provider-rule checks, and the strict round trip (a value valid under the
//! strict schema deserializes to the same Rust value as under the canonical one).

mod corpus;
mod golden;

use agent_tools::testing::{check_registry, provider_rule_violations};
use agent_tools::{
    Dialect, ToolCall,
    dialect::{Definition, DefinitionOptions, GeminiSchema, Strict},
    tool::ToolSpec,
};
use serde_json::{Map, Value, json};

/// The renderings a golden file records, by key.
fn renderings() -> Vec<(&'static str, DefinitionOptions)> {
    let options = DefinitionOptions::new;
    vec![
        ("openai-chat", options(Dialect::OpenAiChat).strict(Strict::Never)),
        (
            "openai-chat strict",
            options(Dialect::OpenAiChat).strict(Strict::Always),
        ),
        (
            "openai-responses strict",
            options(Dialect::OpenAiResponses).strict(Strict::Always),
        ),
        ("anthropic", options(Dialect::Anthropic).strict(Strict::Never)),
        (
            "anthropic strict",
            options(Dialect::Anthropic).strict(Strict::Always),
        ),
        ("gemini", options(Dialect::Gemini)),
        ("mcp", options(Dialect::Mcp)),
    ]
}

fn recorded(definition: Definition) -> Value {
    let mut entry = Map::new();
    entry.insert("definition".into(), definition.value);
    let issues = |issues: Vec<agent_tools::dialect::SchemaIssue>| {
        issues.iter().map(ToString::to_string).collect::<Vec<_>>()
    };
    if !definition.fallbacks.is_empty() {
        entry.insert("fallbacks".into(), json!(issues(definition.fallbacks)));
    }
    if !definition.problems.is_empty() {
        entry.insert("problems".into(), json!(issues(definition.problems)));
    }
    Value::Object(entry)
}

fn specs() -> Vec<ToolSpec> {
    corpus::registry()
        .tools()
        .iter()
        .map(|tool| tool.spec().clone())
        .collect()
}

#[test]
fn every_dialect_matches_its_golden_file() {
    for spec in specs() {
        let mut file = Map::new();
        file.insert("canonical".into(), spec.input_schema.clone());
        for (key, options) in renderings() {
            file.insert(key.into(), recorded(options.render(&spec)));
        }
        golden::assert_golden(&spec.meta.name, &Value::Object(file));
    }
}

#[test]
fn every_definition_obeys_its_provider() {
    let registry = corpus::registry();
    if let Err(report) = check_registry(&registry) {
        panic!("{report}");
    }
    let strictness = [Strict::Auto, Strict::Always, Strict::Never];
    for spec in specs() {
        for dialect in Dialect::ALL {
            for strict in strictness {
                let definition = DefinitionOptions::new(dialect).strict(strict).render(&spec);
                assert!(
                    definition.problems.is_empty(),
                    "{} {dialect}: {:?}",
                    spec.meta.name,
                    definition.problems
                );
                let violations = provider_rule_violations(dialect, &definition.value);
                assert!(
                    violations.is_empty(),
                    "{} {dialect} {strict:?}: {violations:#?}",
                    spec.meta.name
                );
            }
        }
    }
}

/// Forcing Gemini's OpenAPI subset on a schema it cannot express yields problems, and the
/// independent checker agrees the definition would be rejected; JSON Schema always works.
#[test]
fn gemini_problems_agree_with_the_checker() {
    for spec in specs() {
        for mode in [GeminiSchema::OpenApi, GeminiSchema::JsonSchema] {
            let definition = DefinitionOptions::new(Dialect::Gemini)
                .gemini_schema(mode)
                .render(&spec);
            let violations = provider_rule_violations(Dialect::Gemini, &definition.value);
            assert_eq!(
                definition.problems.is_empty(),
                violations.is_empty(),
                "{} {mode:?}: problems {:?}, violations {violations:?}",
                spec.meta.name,
                definition.problems
            );
        }
        let auto = DefinitionOptions::new(Dialect::Gemini).render(&spec);
        assert!(
            auto.problems.is_empty(),
            "{}: {:?}",
            spec.meta.name,
            auto.problems
        );
    }
}

/// What does and does not have a strict form, and why.
#[test]
fn strict_forms_exist_where_the_providers_allow() {
    let strict = |dialect: Dialect, name: &str| {
        let spec = specs()
            .into_iter()
            .find(|spec| spec.meta.name == name)
            .expect("corpus tool");
        DefinitionOptions::new(dialect)
            .strict(Strict::Always)
            .render(&spec)
            .strict
    };
    let strict_everywhere = [
        "primitives",
        "optionals",
        "nested",
        "enums",
        "edit",
        "tree",
        "bounds",
        "constrained",
        "renamed",
        "lookup",
    ];
    for name in strict_everywhere {
        assert!(strict(Dialect::OpenAiChat, name), "{name} is strict for OpenAI");
    }
    for name in ["maps", "free_form", "collections"] {
        assert!(
            !strict(Dialect::OpenAiChat, name),
            "{name} has no OpenAI strict form"
        );
    }
    assert!(
        !strict(Dialect::Anthropic, "tree"),
        "Anthropic strict has no recursion"
    );
    assert!(
        strict(Dialect::Anthropic, "constrained"),
        "bounds move into descriptions"
    );
}

/// `#[tool(strict)]` makes `Strict::Auto` strict where it otherwise is not (Anthropic).
#[test]
fn tools_can_ask_for_strict_definitions() {
    let registry = corpus::registry();
    let anthropic = registry.rendered_definitions(DefinitionOptions::new(Dialect::Anthropic));
    let strict: Vec<&str> = anthropic
        .iter()
        .filter(|definition| definition.strict)
        .filter_map(|definition| definition.value["name"].as_str())
        .collect();
    assert_eq!(strict, ["lookup"]);
    let lookup = &anthropic.iter().find(|d| d.strict).expect("lookup").value;
    assert_eq!(lookup["strict"], true);
    assert_eq!(
        lookup["input_schema"]["properties"]["limit"]["description"],
        "At most this many results. (at least 0; at most 50)"
    );
    let never =
        registry.rendered_definitions(DefinitionOptions::new(Dialect::Anthropic).strict(Strict::Never));
    assert!(never.iter().all(|definition| !definition.strict));
}

/// Pairs of arguments: as a model sends them under the canonical schema, and under the
/// OpenAI strict schema (every property present, `null` for the ones left out).
fn round_trips() -> Vec<(&'static str, Value, Value)> {
    vec![
        (
            "optionals",
            json!({"path": "a"}),
            json!({"path": "a", "name": null, "limit": null, "origin": null, "mode": null, "retries": null, "tags": null}),
        ),
        (
            "optionals",
            json!({"path": "a", "name": "n", "limit": 3, "origin": {"x": 1, "y": 2}, "mode": "slow", "retries": 2, "tags": []}),
            json!({"path": "a", "name": "n", "limit": 3, "origin": {"x": 1, "y": 2}, "mode": "slow", "retries": 2, "tags": []}),
        ),
        (
            "renamed",
            json!({"fileName": "f"}),
            json!({"fileName": "f", "verboseOutput": null, "type": null}),
        ),
        (
            "edit",
            json!({"op": "delete", "line": 3}),
            json!({"op": "delete", "old": null, "new": null, "all": null, "line": 3}),
        ),
        (
            "edit",
            json!({"op": "replace", "old": "a", "new": "b"}),
            json!({"op": "replace", "old": "a", "new": "b", "all": null, "line": null}),
        ),
        (
            "constrained",
            json!({"count": 2, "name": "n", "slug": "a-b", "items": ["x", "y"], "email": "a@b.c"}),
            json!({"count": 2, "name": "n", "slug": "a-b", "items": ["x", "y"], "email": "a@b.c", "homepage": null}),
        ),
        (
            "enums",
            json!({"mode": "fast", "shape": {"circle": {"radius": 1.5}}, "command": {"kind": "wait", "value": 3}, "target": {"start": 1, "end": 2}}),
            json!({"mode": "fast", "shape": {"circle": {"radius": 1.5}}, "command": {"kind": "wait", "value": 3}, "target": {"start": 1, "end": 2}}),
        ),
        (
            "bounds",
            json!({"small": 255, "medium": 7, "big": -9, "signed_small": -128, "lanes": 4}),
            json!({"small": 255, "medium": 7, "big": -9, "signed_small": -128, "lanes": 4}),
        ),
        (
            "lookup",
            json!({"query": "q"}),
            json!({"query": "q", "limit": null}),
        ),
        (
            "tree",
            json!({"root": {"name": "r", "children": [{"name": "c", "children": []}]}}),
            json!({"root": {"name": "r", "children": [{"name": "c", "children": []}]}}),
        ),
    ]
}

#[tokio::test]
async fn strict_arguments_deserialize_like_canonical_ones() {
    let registry = corpus::registry();
    for (index, (tool, canonical, strict)) in round_trips().into_iter().enumerate() {
        let spec = registry.get(tool).expect("corpus tool").spec().clone();
        let definition = DefinitionOptions::new(Dialect::OpenAiChat)
            .strict(Strict::Always)
            .render(&spec);
        assert!(definition.strict, "{tool}: {:?}", definition.fallbacks);
        let parameters = &definition.value["function"]["parameters"];
        let validator = jsonschema::draft202012::new(parameters).expect("the strict schema compiles");
        let errors: Vec<String> = validator
            .iter_errors(&strict)
            .map(|error| error.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{tool} #{index}: strict arguments are valid under the strict schema: {errors:?}"
        );

        let via_canonical = registry.call(ToolCall::new("c", tool, canonical)).await;
        let via_strict = registry.call(ToolCall::new("s", tool, strict)).await;
        assert!(
            !via_canonical.is_error(),
            "{tool} #{index}: {}",
            via_canonical.text()
        );
        assert!(!via_strict.is_error(), "{tool} #{index}: {}", via_strict.text());
        assert_eq!(via_canonical.text(), via_strict.text(), "{tool} #{index}");
        assert!(
            via_strict.repairs.is_empty(),
            "nulls for optional fields are not a repair"
        );
    }
}

/// A `null` where the canonical schema accepts it is kept: `Option` fields get `None`.
#[tokio::test]
async fn null_for_a_required_field_is_still_an_error() {
    let registry = corpus::registry();
    let result = registry
        .call(ToolCall::new("c", "optionals", json!({"path": null})))
        .await;
    assert!(result.is_error());
    assert!(result.text().contains("`/path`"), "{}", result.text());
}

/// `apply_patch`'s definitions: an OpenAI custom tool with its Lark grammar when a request
/// asks for custom tools (Responses and Chat Completions shapes), the JSON function
/// otherwise and in every other dialect.
#[cfg(feature = "fs")]
#[test]
fn a_freeform_tool_renders_as_a_custom_tool_when_asked() {
    use agent_tools::ToolRegistry;
    use agent_tools::builtins::{Builtins, Workspace};

    let temp = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::new();
    std::sync::Arc::new(Builtins::new(Workspace::open(temp.path()).unwrap()).unwrap())
        .register_all(&registry)
        .unwrap();
    let spec = registry
        .tools()
        .iter()
        .find(|tool| tool.spec().meta.name == "apply_patch")
        .map(|tool| tool.spec().clone())
        .unwrap();
    let options = DefinitionOptions::new;
    let mut file = Map::new();
    for (key, options) in [
        (
            "openai-responses custom",
            options(Dialect::OpenAiResponses).custom_tools(true),
        ),
        (
            "openai-chat custom",
            options(Dialect::OpenAiChat).custom_tools(true),
        ),
        ("openai-responses", options(Dialect::OpenAiResponses)),
        ("anthropic custom", options(Dialect::Anthropic).custom_tools(true)),
        ("mcp custom", options(Dialect::Mcp).custom_tools(true)),
    ] {
        file.insert(key.into(), recorded(options.render(&spec)));
    }
    golden::assert_golden("apply_patch", &Value::Object(file));
}
