//! Compile-time behavior of `#[tool]` and `#[toolset]`: every form that should compile
//! does, and every mistake fails with the message in its `.stderr` file.
//!
//! After changing a message, regenerate with `TRYBUILD=overwrite cargo test --test ui` and
//! review the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
