//! Property test of the direct path: arguments generated for the corpus tools (`corpus.rs`)
//! — strings with escapes and any Unicode, integers at and beyond their types' bounds and
//! in float form, floats, booleans, options as `null` or absent, lists, unknown and
//! repeated keys, wrong types, tops that are not objects — called on a registry where the
//! direct path is open and on one where an audit sink closes it.
//!
//! Every call must come to the same outcome, message, repairs and tool input (each tool
//! answers with the `Debug` of what it got) on both; and the generator must reach both
//! calls the direct path takes and calls it leaves to the usual path.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::corpus;
use super::*;
use crate::ToolCall;
use crate::audit::MemoryAudit;

/// What a corpus parameter is, for generating values mostly of its type.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Text,
    Integer(i128, i128),
    Float64,
    Float32,
    Bool,
    Texts,
    Integers(i128, i128),
    Optional(&'static Kind),
}

const U16: Kind = Kind::Integers(0, u16::MAX as i128);
const I32: Kind = Kind::Integer(i32::MIN as i128, i32::MAX as i128);
const TEXT: Kind = Kind::Text;

/// The parameters of each corpus tool, in `corpus::TOOLS`' order.
fn parameters(tool: &str) -> Vec<(&'static str, Kind)> {
    match tool {
        "text" => vec![("message", Kind::Text), ("note", Kind::Optional(&TEXT))],
        "numbers" => vec![
            ("small", Kind::Integer(0, u8::MAX as i128)),
            ("count", Kind::Integer(0, u32::MAX as i128)),
            ("big", Kind::Integer(0, u64::MAX as i128)),
            ("delta", Kind::Integer(i8::MIN as i128, i8::MAX as i128)),
            ("offset", Kind::Integer(i64::MIN as i128, i64::MAX as i128)),
            ("ratio", Kind::Float64),
            ("weight", Kind::Float32),
            ("size", Kind::Integer(0, usize::MAX as i128)),
        ],
        "lists" => vec![
            ("on", Kind::Bool),
            ("tags", Kind::Texts),
            ("ids", Kind::Optional(&U16)),
            ("level", Kind::Optional(&I32)),
        ],
        "nothing" => vec![],
        "blocking" => vec![("count", Kind::Integer(i16::MIN as i128, i16::MAX as i128))],
        other => unreachable!("not a corpus tool: {other}"),
    }
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

/// A JSON string: any Unicode, or escapes written out (a lone surrogate among them).
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        6 => any::<String>().prop_map(|text| json(&text)),
        1 => "[a-z\u{e9}\u{1F600}\\\\\"/\n\t ]{0,8}".prop_map(|text| json(&text)),
        2 => prop::sample::select(vec![
            r#""\u00e9\ud83d\ude00""#,
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u0000""#,
            r#""\ud800""#,
            r#""""#,
        ])
        .prop_map(str::to_owned),
    ]
    .boxed()
}

/// Integer text around `[min, max]`: inside, at the bounds, one past them, and in the
/// forms serde refuses for integers (`1.0`, `-0`, `1e2`).
fn integer(min: i128, max: i128) -> BoxedStrategy<String> {
    prop_oneof![
        8 => (min..=max).prop_map(|n| n.to_string()),
        2 => prop::sample::select(vec![min, max, min - 1, max + 1, 0]).prop_map(|n| n.to_string()),
        1 => prop::sample::select(vec!["1.0", "-0", "-0.0", "1e2", "-1", "18446744073709551616", "340282366920938463463374607431768211456"])
            .prop_map(str::to_owned),
    ]
    .boxed()
}

fn float64() -> BoxedStrategy<String> {
    prop_oneof![
        6 => any::<f64>().prop_filter("finite", |x| x.is_finite()).prop_map(|x| json(&x)),
        2 => any::<i64>().prop_map(|n| n.to_string()),
        2 => prop::sample::select(vec!["-0.0", "0.1", "1e308", "1.7976931348623157e308", "5e-324", "1E-2", "1e400", "2.5e+3"])
            .prop_map(str::to_owned),
    ]
    .boxed()
}

fn float32() -> BoxedStrategy<String> {
    prop_oneof![
        6 => any::<f32>().prop_filter("finite", |x| x.is_finite()).prop_map(|x| json(&x)),
        2 => prop::sample::select(vec!["3.4028235e38", "3.5e38", "1e-46", "16777217", "0.1"]).prop_map(str::to_owned),
    ]
    .boxed()
}

/// Any JSON value, mostly wrong for a given parameter.
fn anything() -> BoxedStrategy<String> {
    let scalar = prop_oneof![
        text(),
        integer(-300, 300),
        float64(),
        prop::sample::select(vec!["true", "false", "null", "{}", r#"{"a": 1}"#]).prop_map(str::to_owned),
    ];
    prop_oneof![
        4 => scalar.clone(),
        1 => prop::collection::vec(scalar, 0..4).prop_map(|items| format!("[{}]", items.join(","))),
    ]
    .boxed()
}

fn list(item: BoxedStrategy<String>) -> BoxedStrategy<String> {
    prop::collection::vec(item, 0..4)
        .prop_map(|items| format!("[{}]", items.join(", ")))
        .boxed()
}

/// A value mostly of `kind`, now and then anything at all.
fn value(kind: Kind) -> BoxedStrategy<String> {
    let right = match kind {
        Kind::Text => text(),
        Kind::Integer(min, max) => integer(min, max),
        Kind::Float64 => float64(),
        Kind::Float32 => float32(),
        Kind::Bool => prop::sample::select(vec!["true", "false", "1", "\"true\""])
            .prop_map(str::to_owned)
            .boxed(),
        Kind::Texts => list(text()),
        Kind::Integers(min, max) => list(integer(min, max)),
        Kind::Optional(inner) => prop_oneof![1 => Just("null".to_owned()), 3 => value(*inner)].boxed(),
    };
    prop_oneof![12 => right, 1 => anything()].boxed()
}

/// A key as written: mostly plain, sometimes with an escape that reads as the same key.
fn written_key(key: &'static str) -> BoxedStrategy<String> {
    let escaped = match key.chars().next() {
        Some(first) => format!("\"\\u{:04x}{}\"", first as u32, &key[first.len_utf8()..]),
        None => json(&key),
    };
    prop_oneof![8 => Just(json(&key)), 1 => Just(escaped)].boxed()
}

/// Arguments for `tool`: its parameters mostly present and mostly right, in any order,
/// now and then repeated or joined by unknown ones.
fn object(tool: &'static str) -> BoxedStrategy<String> {
    let members: Vec<BoxedStrategy<Option<String>>> = parameters(tool)
        .into_iter()
        .map(|(key, kind)| {
            let member =
                (written_key(key), value(kind)).prop_map(|(key, value)| Some(format!("{key}: {value}")));
            prop_oneof![12 => member, 1 => Just(None)].boxed()
        })
        .collect();
    let names: Vec<&'static str> = parameters(tool).iter().map(|(key, _)| *key).collect();
    let extra_key = prop_oneof![
        prop::sample::select(if names.is_empty() { vec!["message"] } else { names }),
        prop::sample::select(vec!["extra", "Message", "message ", "", "level_"]),
    ];
    let extras = prop::collection::vec(
        (extra_key, anything()).prop_map(|(key, value)| format!("{}: {value}", json(&key))),
        0..2,
    );
    let extras = prop_oneof![6 => Just(Vec::new()), 1 => extras];
    (
        members,
        extras,
        any::<prop::sample::Index>(),
        prop::sample::select(vec!["", " ", "\n\t", "\r\n "]),
    )
        .prop_map(|(members, extras, at, space)| {
            let mut members: Vec<String> = members.into_iter().flatten().collect();
            for extra in extras {
                let at = at.index(members.len() + 1);
                members.insert(at, extra);
            }
            format!("{space}{{{}}}{space}", members.join(&format!(",{space}")))
        })
        .boxed()
}

/// What a call's JSON text may be: mostly arguments for `tool`, sometimes anything else.
fn arguments(tool: &'static str) -> BoxedStrategy<String> {
    prop_oneof![
        16 => object(tool),
        1 => object(tool).prop_map(|object| json(&object)),
        1 => object(tool).prop_map(|object| format!("[{object}]")),
        1 => object(tool).prop_map(|object| format!("{object} x")),
        1 => object(tool).prop_map(|object| format!("\u{a0}{object}")),
        1 => prop::sample::select(vec!["", "  ", "null", "[]", "42", "\"text\"", "{", "{}", "true"]).prop_map(str::to_owned),
        1 => anything(),
    ]
    .boxed()
}

#[test]
fn both_paths_come_to_the_same_call() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let direct = corpus::registry(ToolRegistry::builder());
    let usual = corpus::registry(ToolRegistry::builder().audit(MemoryAudit::new()));
    for (tool, _) in corpus::TOOLS {
        let mut runner = TestRunner::new(Config {
            cases: 1500,
            failure_persistence: None,
            ..Config::default()
        });
        let (taken, left) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        runner
            .run(&arguments(tool), |text| {
                let before = DIRECT_CALLS.with(std::cell::Cell::get);
                let fast = runtime.block_on(direct.call(ToolCall::new("c", *tool, text.as_str())));
                let took = DIRECT_CALLS.with(std::cell::Cell::get) > before;
                let full = runtime.block_on(usual.call(ToolCall::new("c", *tool, text.as_str())));
                let counter = if took { &taken } else { &left };
                counter.set(counter.get() + 1);
                prop_assert_eq!(
                    (fast.outcome, fast.text(), &fast.repairs, fast.is_error()),
                    (full.outcome, full.text(), &full.repairs, full.is_error()),
                    "{} {}",
                    tool,
                    text
                );
                Ok(())
            })
            .unwrap_or_else(|failure| panic!("{tool}: {failure}"));
        // Both paths were exercised; the bar is low so that it holds for any seed.
        let (taken, left) = (taken.get(), left.get());
        assert!(taken > 50 && left > 50, "{tool}: {taken} direct, {left} usual");
    }
}
