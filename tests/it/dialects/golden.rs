//! Snapshot files: compare with `tests/it/dialects/golden/<name>.json`, or write it when
//! `UPDATE_GOLDEN=1` is set (then review the diff in git).

use std::path::PathBuf;

use serde_json::Value;

/// Asserts that `value` equals the stored snapshot `name`.
pub(crate) fn assert_golden(name: &str, value: &Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/dialects/golden")
        .join(format!("{name}.json"));
    let actual = format!(
        "{}\n",
        serde_json::to_string_pretty(value).expect("JSON values print")
    );
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &actual).expect("the golden directory is writable");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!(
            "cannot read {}: {error}; run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the output, first at line {}:\n  stored: {}\n  now:    {}\nrun with UPDATE_GOLDEN=1 to accept the new output",
            path.display(),
            line + 1,
            expected.lines().nth(line).unwrap_or("<end>"),
            actual.lines().nth(line).unwrap_or("<end>"),
        );
    }
}
