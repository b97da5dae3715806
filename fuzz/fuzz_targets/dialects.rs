//! Every dialect transformation on arbitrary schemars-shaped schemas.
//!
//! The input drives a generator of canonical schemas of the shapes schemars produces
//! (and a few it does not): objects with `properties`/`required`/`additionalProperties`,
//! maps, arrays and tuples, string/integer enums and `const`s, externally and internally
//! tagged and untagged enums (`oneOf`/`anyOf`), `allOf`, `$ref` into `$defs` (recursion
//! included), nullable types (`["T","null"]` and `anyOf [T, null]`), formats, bounds,
//! descriptions, titles, defaults and examples. Each schema that compiles as the registry
//! compiles it becomes a `ToolSpec`, rendered in every dialect × strict policy × Gemini
//! schema choice.
//!
//! Checked:
//! - no panic;
//! - rendering is deterministic: the same options render the same `Definition` twice;
//! - where `Definition::problems` is empty, `provider_rule_violations` finds nothing;
//! - the strict forms are fixed points: rendering a strict definition's own schema again
//!   with the same options gives the same schema (OpenAI and Anthropic strict).

#![no_main]

use agent_tools::testing::provider_rule_violations;
use agent_tools::validation::ArgValidator;
use agent_tools::{Dialect, dialect::{DefinitionOptions, GeminiSchema, Strict}, tool::{ToolMeta, ToolSpec}};
use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

/// Nesting depth past which only leaves are generated.
const MAX_DEPTH: usize = 6;
/// Most entries of any list (properties, variants, enum values).
const MAX_ITEMS: usize = 6;

const NAMES: &[&str] = &[
    "path",
    "name",
    "a",
    "b",
    "x",
    "kind",
    "op",
    "type",
    "value",
    "items",
    "properties",
    "$ref",
    "required",
    "null",
    "",
    "a b",
    "ünï",
    "with.dot",
    "x-y",
    "0",
    "description",
    "additionalProperties",
    "enum",
    "const",
];

const STRING_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
    "uri",
    "uri-reference",
    "regex",
    "byte",
    "binary",
    "password",
    "enum",
    "int32",
];

const INTEGER_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "uint", "int",
];

struct Generator<'a, 'b> {
    u: &'b mut Unstructured<'a>,
    /// How many `$defs` the schema has (`D0`, `D1`, …).
    defs: usize,
}

impl Generator<'_, '_> {
    /// True once in `n` times, and false when the input has run out (so that short
    /// inputs give plain schemas, not ones with every decoration).
    fn rare(&mut self, n: u8) -> Result<bool> {
        Ok(!self.u.ratio(n - 1, n)?)
    }

    fn name(&mut self) -> Result<String> {
        if self.rare(16)? {
            let raw: String = self.u.arbitrary()?;
            return Ok(raw.chars().take(24).collect());
        }
        Ok((*self.u.choose(NAMES)?).to_owned())
    }

    fn text(&mut self) -> Result<String> {
        if self.rare(4)? {
            let raw: String = self.u.arbitrary()?;
            return Ok(raw.chars().take(80).collect());
        }
        Ok(self
            .u
            .choose(&[
                "A thing.",
                "",
                "Multi\nline\n\ntext.",
                "Quote \" and \\ backslash.",
                "  ",
            ])?
            .to_string())
    }

    fn small_int(&mut self) -> Result<i64> {
        Ok(match self.u.int_in_range(0..=5)? {
            0 => 0,
            1 => 1,
            2 => -1,
            3 => i64::from(self.u.arbitrary::<i8>()?),
            4 => i64::from(self.u.arbitrary::<i16>()?),
            _ => self.u.arbitrary::<i64>()?,
        })
    }

    fn number(&mut self) -> Result<Value> {
        Ok(match self.u.int_in_range(0..=3)? {
            0 => json!(self.small_int()?),
            1 => json!(f64::from(self.u.arbitrary::<i16>()?) / 4.0),
            2 => json!(self.u.arbitrary::<u64>()?),
            _ => json!(0.5),
        })
    }

    fn count(&mut self, min: usize) -> Result<usize> {
        self.u.int_in_range(min..=MAX_ITEMS)
    }

    /// A small arbitrary JSON value (for `default`, `examples`, `const`).
    fn any_value(&mut self, depth: usize) -> Result<Value> {
        Ok(match self.u.int_in_range(0..=6)? {
            0 => Value::Null,
            1 => json!(self.u.arbitrary::<bool>()?),
            2 => json!(self.small_int()?),
            3 => json!(self.name()?),
            4 if depth < 2 => {
                let n = self.u.int_in_range(0..=2)?;
                Value::Array((0..n).map(|_| self.any_value(depth + 1)).collect::<Result<_>>()?)
            }
            5 if depth < 2 => {
                let mut map = Map::new();
                for _ in 0..self.u.int_in_range(0..=2)? {
                    map.insert(self.name()?, self.any_value(depth + 1)?);
                }
                Value::Object(map)
            }
            _ => json!(0.25),
        })
    }

    fn string(&mut self) -> Result<Map<String, Value>> {
        let mut node = Map::new();
        node.insert("type".into(), "string".into());
        if self.rare(4)? {
            node.insert("format".into(), (*self.u.choose(STRING_FORMATS)?).into());
        }
        if self.rare(6)? {
            node.insert("minLength".into(), json!(self.u.int_in_range(0..=5u32)?));
        }
        if self.rare(6)? {
            node.insert("maxLength".into(), json!(self.u.int_in_range(0..=300u32)?));
        }
        if self.rare(10)? {
            node.insert(
                "pattern".into(),
                (*self.u.choose(&["^[a-z]+$", ".*", "a|b", "^\\d{3}$"])?).into(),
            );
        }
        Ok(node)
    }

    fn integer(&mut self, kind: &str) -> Result<Map<String, Value>> {
        let mut node = Map::new();
        node.insert("type".into(), kind.into());
        if kind == "integer" && self.u.ratio(2, 3)? {
            node.insert("format".into(), (*self.u.choose(INTEGER_FORMATS)?).into());
        } else if kind == "number" && self.rare(2)? {
            node.insert("format".into(), (*self.u.choose(&["double", "float"])?).into());
        }
        for keyword in [
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ] {
            if self.rare(5)? {
                let value = if keyword == "multipleOf" {
                    json!(self.u.int_in_range(1..=10u32)?)
                } else {
                    self.number()?
                };
                node.insert(keyword.into(), value);
            }
        }
        Ok(node)
    }

    fn object(&mut self, depth: usize) -> Result<Map<String, Value>> {
        let mut node = Map::new();
        node.insert("type".into(), "object".into());
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        for _ in 0..self.count(0)? {
            let name = self.name()?;
            let schema = self.schema(depth + 1)?;
            if self.u.ratio(2, 3)? && !required.contains(&Value::String(name.clone())) {
                required.push(Value::String(name.clone()));
            }
            properties.insert(name, schema);
        }
        // Every required name is a property, as schemars writes it, unless the input
        // asks for a dangling one.
        required.retain(|name| properties.contains_key(name.as_str().unwrap_or("")));
        if self.rare(16)? {
            required.push(Value::String(self.name()?));
        }
        node.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            node.insert("required".into(), Value::Array(required));
        }
        match self.u.int_in_range(0..=5)? {
            0 => {}
            1 => {
                node.insert("additionalProperties".into(), Value::Bool(true));
            }
            _ => {
                node.insert("additionalProperties".into(), Value::Bool(false));
            }
        }
        Ok(node)
    }

    fn reference(&mut self) -> Result<Option<Map<String, Value>>> {
        if self.defs == 0 {
            return Ok(None);
        }
        let index = self.u.int_in_range(0..=self.defs - 1)?;
        let mut node = Map::new();
        node.insert("$ref".into(), format!("#/$defs/D{index}").into());
        Ok(Some(node))
    }

    /// A unit-variant enum as schemars writes it: a string `enum`, or a `oneOf` of
    /// described `const`s.
    fn unit_enum(&mut self) -> Result<Map<String, Value>> {
        let mut names: Vec<String> = Vec::new();
        for _ in 0..self.count(1)? {
            let name = self.name()?;
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let mut node = Map::new();
        if self.u.arbitrary()? {
            node.insert("type".into(), "string".into());
            node.insert("enum".into(), json!(names));
        } else {
            let mut variants = Vec::new();
            for name in names {
                let mut variant = Map::new();
                variant.insert("type".into(), "string".into());
                variant.insert("const".into(), name.into());
                if self.u.arbitrary()? {
                    variant.insert("description".into(), self.text()?.into());
                }
                variants.push(Value::Object(variant));
            }
            node.insert("oneOf".into(), Value::Array(variants));
        }
        Ok(node)
    }

    /// An internally tagged enum: a `oneOf` of objects each with a `const` tag.
    fn tagged_enum(&mut self, depth: usize) -> Result<Map<String, Value>> {
        let tag = self.name()?;
        let mut variants = Vec::new();
        for index in 0..self.count(1)? {
            let mut variant = self.object(depth)?;
            let tag_value = if self.rare(8)? {
                self.name()?
            } else {
                format!("v{index}")
            };
            let properties = variant
                .get_mut("properties")
                .and_then(Value::as_object_mut)
                .expect("objects have properties");
            properties.insert(tag.clone(), json!({"type": "string", "const": tag_value}));
            let mut required = variant
                .get("required")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if !required.contains(&Value::String(tag.clone())) {
                required.insert(0, Value::String(tag.clone()));
            }
            variant.insert("required".into(), Value::Array(required));
            if self.u.arbitrary()? {
                variant.insert("description".into(), self.text()?.into());
            }
            variants.push(Value::Object(variant));
        }
        let keyword = if self.rare(4)? { "anyOf" } else { "oneOf" };
        let mut node = Map::new();
        node.insert(keyword.into(), Value::Array(variants));
        Ok(node)
    }

    fn variants(&mut self, depth: usize, min: usize) -> Result<Value> {
        let n = self.count(min)?;
        Ok(Value::Array(
            (0..n).map(|_| self.schema(depth + 1)).collect::<Result<_>>()?,
        ))
    }

    fn leaf(&mut self) -> Result<Map<String, Value>> {
        Ok(match self.u.int_in_range(0..=6)? {
            0 => self.string()?,
            1 => self.integer("integer")?,
            2 => self.integer("number")?,
            3 => json_object(json!({"type": "boolean"})),
            4 => match self.reference()? {
                Some(node) => node,
                None => self.string()?,
            },
            5 => self.unit_enum()?,
            _ => {
                let mut node = self.string()?;
                node.insert("type".into(), json!(["string", "null"]));
                node
            }
        })
    }

    fn schema(&mut self, depth: usize) -> Result<Value> {
        if depth >= MAX_DEPTH {
            return Ok(Value::Object(self.leaf()?));
        }
        let mut node = match self.u.int_in_range(0..=21)? {
            0..=4 => self.leaf()?,
            5 => json_object(json!({"type": "null"})),
            6 => {
                // A nullable primitive: `["T", "null"]`.
                let mut node = self.leaf()?;
                if let Some(Value::String(kind)) = node.get("type").cloned() {
                    node.insert("type".into(), json!([kind, "null"]));
                }
                node
            }
            7 => {
                // `Option<T>` of a non-primitive: `anyOf [T, {"type":"null"}]`.
                let inner = self.schema(depth + 1)?;
                json_object(json!({"anyOf": [inner, {"type": "null"}]}))
            }
            8 => {
                let mut node = Map::new();
                node.insert("type".into(), "string".into());
                node.insert("const".into(), self.name()?.into());
                node
            }
            9 => {
                let mut values = Vec::new();
                for _ in 0..self.count(1)? {
                    values.push(json!(self.small_int()?));
                }
                values.dedup();
                let mut node = self.integer("integer")?;
                node.insert("enum".into(), Value::Array(values));
                node
            }
            10 => {
                let mut node = Map::new();
                node.insert("type".into(), "array".into());
                node.insert("items".into(), self.schema(depth + 1)?);
                for keyword in ["minItems", "maxItems"] {
                    if self.rare(5)? {
                        node.insert(keyword.into(), json!(self.u.int_in_range(0..=4u32)?));
                    }
                }
                if self.rare(5)? {
                    node.insert("uniqueItems".into(), Value::Bool(true));
                }
                node
            }
            11 => {
                // A tuple, as schemars writes one.
                let prefix = self.variants(depth, 1)?;
                let n = prefix.as_array().map_or(0, Vec::len);
                json_object(json!({
                    "type": "array", "prefixItems": prefix, "minItems": n, "maxItems": n,
                }))
            }
            12 | 13 => self.object(depth)?,
            14 => {
                // A map.
                let values = if self.rare(4)? {
                    Value::Bool(true)
                } else {
                    self.schema(depth + 1)?
                };
                json_object(json!({"type": "object", "additionalProperties": values}))
            }
            15 => self.tagged_enum(depth)?,
            16 => {
                // Untagged: an `anyOf` of anything.
                let variants = self.variants(depth, 1)?;
                json_object(json!({"anyOf": variants}))
            }
            17 => {
                // `allOf` as schemars writes it: references and objects (flattened
                // structs), whose properties combine. (Arbitrary branches make
                // contradictions, e.g. an object that must be a string, which are not
                // schemars' shape.)
                let mut branches = Vec::new();
                for _ in 0..self.u.int_in_range(1..=3)? {
                    branches.push(match self.reference()? {
                        Some(node) if self.u.arbitrary()? => Value::Object(node),
                        _ => Value::Object(self.object(depth + 1)?),
                    });
                }
                json_object(json!({"allOf": branches}))
            }
            18 => {
                // A `$ref` with siblings (schemars 1 puts a field's description there).
                match self.reference()? {
                    Some(mut node) => {
                        node.insert("description".into(), self.text()?.into());
                        node
                    }
                    None => self.object(depth)?,
                }
            }
            19 => Map::new(),
            20 => {
                // Externally tagged data variants: `{"name": T}` objects and unit consts.
                let mut variants = Vec::new();
                for _ in 0..self.count(1)? {
                    let name = self.name()?;
                    if self.rare(3)? {
                        variants.push(json!({"type": "string", "const": name}));
                    } else {
                        let inner = self.schema(depth + 1)?;
                        variants.push(json!({
                            "type": "object", "properties": {name.clone(): inner},
                            "required": [name], "additionalProperties": false,
                        }));
                    }
                }
                json_object(json!({"oneOf": variants}))
            }
            _ => {
                // A type list of scalars (schemars writes `["T", "null"]`; a list with
                // `object` or `array` has no Gemini form, which Gemini does not report:
                // not schemars' shape, left out).
                let kinds = ["string", "integer", "number", "boolean", "null"];
                let a = *self.u.choose(&kinds)?;
                let b = *self.u.choose(&kinds)?;
                json_object(json!({"type": [a, b]}))
            }
        };
        if self.rare(3)? {
            node.insert("description".into(), self.text()?.into());
        }
        if self.rare(12)? {
            node.insert("title".into(), self.text()?.into());
        }
        if self.rare(12)? {
            node.insert("default".into(), self.any_value(0)?);
        }
        if self.rare(16)? {
            node.insert("examples".into(), json!([self.any_value(0)?]));
        }
        if self.rare(24)? {
            node.insert("deprecated".into(), Value::Bool(true));
        }
        Ok(Value::Object(node))
    }

    fn root(&mut self) -> Result<Value> {
        self.defs = self.u.int_in_range(0..=3)?;
        let mut defs = Map::new();
        for index in 0..self.defs {
            defs.insert(format!("D{index}"), self.schema(1)?);
        }
        let mut root = match self.u.int_in_range(0..=5)? {
            0 => self.tagged_enum(0)?,
            1 => {
                // Variants behind `$ref`s.
                let mut variants = Vec::new();
                for _ in 0..self.count(1)? {
                    variants.push(match self.reference()? {
                        Some(node) => Value::Object(node),
                        None => Value::Object(self.object(1)?),
                    });
                }
                json_object(json!({"oneOf": variants}))
            }
            _ => self.object(0)?,
        };
        root.insert("type".into(), "object".into());
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        Ok(Value::Object(root))
    }
}

fn json_object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("an object literal"),
    }
}

/// The schema inside a definition, where each dialect puts it.
fn schema_of(dialect: Dialect, definition: &Value) -> Option<&Value> {
    match dialect {
        Dialect::OpenAiChat => definition.get("function")?.get("parameters"),
        Dialect::OpenAiResponses => definition.get("parameters"),
        Dialect::Anthropic => definition.get("input_schema"),
        Dialect::Gemini => definition
            .get("parameters")
            .or_else(|| definition.get("parametersJsonSchema")),
        Dialect::Mcp => definition.get("inputSchema"),
        _ => None,
    }
}

/// `FUZZ_DEBUG=1` prints what each rendering reported.
fn debug() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("FUZZ_DEBUG").is_some())
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    // One rendering per input: all 21 per input are slow under ASan, and the fuzzer
    // explores the combinations as it explores the schemas.
    let dialect = *u.choose(&Dialect::ALL)?;
    let strict = *u.choose(&[Strict::Auto, Strict::Always, Strict::Never])?;
    let gemini = *u.choose(&[
        GeminiSchema::Auto,
        GeminiSchema::OpenApi,
        GeminiSchema::JsonSchema,
    ])?;
    let strict_tool: bool = u.arbitrary()?;
    let mut generator = Generator { u, defs: 0 };
    let name = if generator.rare(16)? {
        generator.u.arbitrary::<String>()?
    } else {
        "fuzz_tool".to_owned()
    };
    let schema = generator.root()?;
    if let Err(error) = ArgValidator::new(&schema) {
        if debug() {
            eprintln!("not compiled: {error}");
        }
        return Ok(());
    }
    let spec: ToolSpec = ToolMeta::new(name, "A tool under test.")
        .strict(strict_tool)
        .into_spec(schema, None);
    if debug() {
        eprintln!("canonical: {}", spec.input_schema);
    }
    let options = DefinitionOptions::new(dialect)
        .strict(strict)
        .gemini_schema(gemini);
    let definition = options.render(&spec);
    if debug() {
        eprintln!("{dialect} {strict:?} {gemini:?}: {}", definition.value);
        eprintln!(
            "problems: {:?}",
            definition
                .problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        );
        eprintln!(
            "fallbacks: {:?}",
            definition
                .fallbacks
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        );
    }
    let again = options.render(&spec);
    assert_eq!(
        definition, again,
        "{dialect} {strict:?} {gemini:?} is not deterministic"
    );
    if definition.problems.is_empty() {
        let violations = provider_rule_violations(dialect, &definition.value);
        assert!(
            violations.is_empty(),
            "{dialect} {strict:?} {gemini:?}: no problems reported, but the provider rules say:\n{}\ncanonical: {}\ndefinition: {}",
            violations.join("\n"),
            spec.input_schema,
            definition.value,
        );
    }
    if definition.strict {
        let strict_schema = schema_of(dialect, &definition.value).expect("a strict definition has a schema");
        let mut respec = spec.clone();
        respec.input_schema = strict_schema.clone();
        let rerendered = options.render(&respec);
        assert!(
            rerendered.strict,
            "{dialect}: the strict schema has no strict form: {:?}\ncanonical: {}",
            rerendered.fallbacks, spec.input_schema,
        );
        assert_eq!(
            schema_of(dialect, &rerendered.value),
            Some(strict_schema),
            "{dialect}: the strict form is not a fixed point\ncanonical: {}",
            spec.input_schema,
        );
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
});
