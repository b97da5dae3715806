//! Compile-time behavior of `#[tool]` and `#[toolset]`: every form that should compile
//! does, and every mistake fails with the messages in its `.stderr` file.
//!
//! A `.stderr` file is rustc's whole rendering of the diagnostics, and besides our
//! messages it holds the compiler's own wording, notes and layout, which change between
//! compiler releases. So the comparison depends on the toolchain:
//!
//! - On the toolchain the files were blessed with, the version in `tests/ui/TOOLCHAIN`
//!   (`rustc --version`'s second word), trybuild compares them exactly.
//! - On any other toolchain the pass cases still go through trybuild (compiling and
//!   running them depends on no wording), and every fail case is compiled in a generated
//!   project, `target/tests/ui-headlines`: it must fail to compile, and every headline
//!   of its `.stderr` file must be among the compiler's. A headline is the first line of
//!   a diagnostic (`error: …`, `error[E0277]: …`); in these files each one is our
//!   macro's message or our `#[diagnostic::on_unimplemented]` text, the part we promise.
//!   The compiler's headlines are normalized as trybuild normalizes lines that are not
//!   paths of source locations: the checkout's directory becomes `$DIR/` and the case's
//!   binary name `$CRATE`. So a new compiler cannot turn this test red by rewording its
//!   own notes, while a message of ours that changes or goes missing still does.
//!
//! The generated project mirrors the one trybuild generates: it depends on this package
//! (default features) and on its dev-dependencies, as `cargo metadata` reports them,
//! starts from the workspace's `Cargo.lock`, and builds `--offline` in trybuild's target
//! directory with trybuild's flags and `--target`, so that the dependencies built for the
//! pass cases are reused (flags that came to differ would only cost a rebuild). The
//! compiler it runs is the one `cargo` and `rustc` resolve to in this test's environment:
//! `RUSTC` if set, else `rustc` under the `RUSTUP_TOOLCHAIN` that `cargo +toolchain`
//! sets; that is also the compiler whose version is checked.
//!
//! To bless: `TRYBUILD=overwrite cargo test --test ui` (with `+toolchain` to move to
//! another one) runs trybuild on whatever toolchain it is, rewrites the `.stderr` files
//! that differ and, when every case ran, writes that toolchain's version to
//! `tests/ui/TOOLCHAIN`; review the diff. trybuild's filter, `-- trybuild=NAME.rs`,
//! also applies to the headline check.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn ui() {
    let toolchain_file = Path::new(ROOT).join("tests/ui/TOOLCHAIN");
    let blessed = std::fs::read_to_string(&toolchain_file)
        .expect("tests/ui/TOOLCHAIN names the toolchain the .stderr files were blessed with");
    let blessed = blessed.trim();
    let rustc = rustc();
    let blessing = std::env::var_os("TRYBUILD").is_some_and(|mode| mode == "overwrite");
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    if rustc.release == blessed || blessing {
        cases.compile_fail("tests/ui/fail/*.rs");
        // trybuild runs the cases when dropped, and panics there if one fails.
        drop(cases);
        // Blessing every case with another toolchain makes it the blessed one.
        if blessing && rustc.release != blessed && filters().is_empty() {
            std::fs::write(&toolchain_file, format!("{}\n", rustc.release)).unwrap();
            println!(
                "blessed with rustc {}: wrote it to tests/ui/TOOLCHAIN",
                rustc.release
            );
        }
        return;
    }
    drop(cases);
    println!(
        "rustc {} is not {blessed}, the toolchain the .stderr files were blessed with \
         (tests/ui/TOOLCHAIN): checking that each fail case fails with the errors its \
         .stderr file names, not the compiler's whole wording",
        rustc.release
    );
    check_headlines(&rustc);
}

/// trybuild's filters, `cargo test --test ui -- trybuild=NAME.rs`: only the cases whose
/// path contains one of them run.
fn filters() -> Vec<String> {
    std::env::args()
        .filter_map(|arg| arg.strip_prefix("trybuild=").map(str::to_owned))
        .filter(|filter| !filter.is_empty())
        .collect()
}

/// What `rustc -vV` says of the compiler cargo uses here.
struct Rustc {
    /// `1.95.0`, `1.97.0-nightly`.
    release: String,
    /// The host's target triple, which trybuild builds for (`--target`).
    host: String,
}

fn rustc() -> Rustc {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("-vV")
        .current_dir(ROOT)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {rustc:?} -vV: {error}"));
    assert!(output.status.success(), "{rustc:?} -vV failed: {output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let field = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name))
            .unwrap_or_else(|| panic!("no `{name}` in `rustc -vV`: {text}"))
            .to_owned()
    };
    Rustc {
        release: field("release: "),
        host: field("host: "),
    }
}

/// A fail case: its source file, the binary it is built as, and its `.stderr` headlines.
struct Case {
    source: PathBuf,
    bin: String,
    headlines: Vec<String>,
}

fn check_headlines(rustc: &Rustc) {
    let cases = fail_cases();
    let metadata = cargo_metadata();
    let target_dir = PathBuf::from(metadata["target_directory"].as_str().expect("target_directory"));
    let project = target_dir.join("tests/ui-headlines");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("Cargo.toml"), manifest(&metadata, &cases)).unwrap();
    // Trybuild copies the workspace's lock file too: the same versions, and nothing to
    // download (the build is offline).
    std::fs::copy(Path::new(ROOT).join("Cargo.lock"), project.join("Cargo.lock")).unwrap();

    let output = build(&project, &target_dir.join("tests/trybuild"), &rustc.host);
    let reported = reported_errors(&output, &cases);
    let mut problems = Vec::new();
    for case in &cases {
        let name = case.source.file_name().unwrap().to_string_lossy();
        let Some(errors) = reported.get(&case.bin) else {
            problems.push(format!("{name}: compiled, but should have failed"));
            continue;
        };
        for headline in &case.headlines {
            if !errors.contains(headline) {
                problems.push(format!(
                    "{name}: the compiler did not report\n    {headline}\n  it reported\n    {}",
                    errors.join("\n    ")
                ));
            }
        }
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        problems.is_empty(),
        "{} of {} fail cases:\n{}{}",
        problems.len(),
        cases.len(),
        problems.join("\n"),
        if stderr.trim().is_empty() {
            String::new()
        } else {
            format!("\n\ncargo's stderr:\n{stderr}")
        }
    );
    println!(
        "{} fail cases fail with the errors their .stderr files name",
        cases.len()
    );
}

/// `tests/ui/fail/*.rs` in order, each with the headlines of its `.stderr` file.
fn fail_cases() -> Vec<Case> {
    let dir = Path::new(ROOT).join("tests/ui/fail");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    sources.sort();
    assert!(!sources.is_empty(), "no fail cases in {}", dir.display());
    let filters = filters();
    if !filters.is_empty() {
        sources.retain(|path| {
            filters
                .iter()
                .any(|filter| path.to_string_lossy().contains(filter.as_str()))
        });
    }
    sources
        .into_iter()
        .enumerate()
        .map(|(index, source)| {
            let stderr = source.with_extension("stderr");
            let text = std::fs::read_to_string(&stderr).unwrap_or_else(|error| {
                panic!(
                    "{}: {error} (a new case is blessed on the toolchain in tests/ui/TOOLCHAIN)",
                    stderr.display()
                )
            });
            let headlines: Vec<String> = text
                .lines()
                .filter(|line| line.starts_with("error:") || line.starts_with("error["))
                .map(str::to_owned)
                .collect();
            assert!(!headlines.is_empty(), "{} names no error", stderr.display());
            Case {
                source,
                bin: format!("headline{index:03}"),
                headlines,
            }
        })
        .collect()
}

/// `cargo metadata` for this workspace, without dependencies.
fn cargo_metadata() -> Value {
    let output = cargo()
        .args(["metadata", "--format-version=1", "--no-deps", "--offline"])
        .current_dir(ROOT)
        .output()
        .expect("cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

/// The generated project's manifest: this package and its dev-dependencies, and one
/// binary per case.
fn manifest(metadata: &Value, cases: &[Case]) -> String {
    let own_manifest = Path::new(ROOT).join("Cargo.toml");
    let package = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|package| package["manifest_path"].as_str().map(Path::new) == Some(&own_manifest))
        .expect("this package in cargo metadata");
    let name = package["name"].as_str().unwrap();
    let edition = package["edition"].as_str().unwrap();
    let mut sections: BTreeMap<String, Vec<String>> = BTreeMap::new();
    sections.entry("dependencies".into()).or_default().push(format!(
        "{} = {{ path = {} }}",
        toml_key(name),
        toml_string(ROOT)
    ));
    for dependency in package["dependencies"].as_array().unwrap() {
        if dependency["kind"].as_str() != Some("dev") {
            continue;
        }
        let section = match dependency["target"].as_str() {
            Some(target) => format!("target.{}.dependencies", toml_string(target)),
            None => "dependencies".into(),
        };
        sections
            .entry(section)
            .or_default()
            .push(dependency_line(dependency));
    }
    let mut toml = format!(
        "# Generated by tests/ui.rs for the fail cases' headlines; rewritten on every run.\n\
         [package]\nname = \"{name}-ui-headlines\"\nversion = \"0.0.0\"\nedition = \"{edition}\"\n\
         publish = false\nautobins = false\n\n\
         # Its own workspace, not the one around the target directory.\n[workspace]\n"
    );
    for (section, lines) in &sections {
        toml.push_str(&format!("\n[{section}]\n{}\n", lines.join("\n")));
    }
    for case in cases {
        let path = case.source.to_str().expect("UTF-8 path");
        toml.push_str(&format!(
            "\n[[bin]]\nname = \"{}\"\npath = {}\n",
            case.bin,
            toml_string(path)
        ));
    }
    toml
}

/// One dependency as `cargo metadata` reports it, as a manifest line (from crates.io or
/// a path, which is what this package's dev-dependencies are).
fn dependency_line(dependency: &Value) -> String {
    let package = dependency["name"].as_str().unwrap();
    let key = dependency["rename"].as_str().unwrap_or(package);
    let mut fields = vec![format!("package = {}", toml_string(package))];
    if let Some(path) = dependency["path"].as_str() {
        fields.push(format!("path = {}", toml_string(path)));
    }
    if let Some(version) = dependency["req"].as_str() {
        fields.push(format!("version = {}", toml_string(version)));
    }
    fields.push(format!(
        "default-features = {}",
        dependency["uses_default_features"] == true
    ));
    let features: Vec<String> = dependency["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|feature| toml_string(feature.as_str().unwrap()))
        .collect();
    fields.push(format!("features = [{}]", features.join(", ")));
    format!("{} = {{ {} }}", toml_key(key), fields.join(", "))
}

/// A TOML basic string: JSON's string escapes are all valid TOML ones.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

fn toml_key(key: &str) -> String {
    toml_string(key)
}

/// The cargo running this test (`cargo +nightly test` runs the nightly one).
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Builds every case, going on after failures, with diagnostics as JSON on stdout.
fn build(project: &Path, target_dir: &Path, host: &str) -> Output {
    // What trybuild 1.0 builds with (an explicit `--target`, RUSTFLAGS replaced by
    // `build.rustflags`, no incremental compilation), so that its dependency builds are
    // reused.
    let output = cargo()
        .current_dir(project)
        .env("CARGO_TARGET_DIR", target_dir)
        .env_remove("RUSTFLAGS")
        .env("CARGO_INCREMENTAL", "0")
        .args([
            "build",
            "--offline",
            "--target",
            host,
            "--config=build.rustflags=[\"--cfg\", \"trybuild\", \"--verbose\", \"-A\", \"dead_code\"]",
            "--bins",
            "--keep-going",
            "--quiet",
            "--color=never",
            "--message-format=json",
        ])
        .output()
        .expect("cargo build of the fail cases");
    // Every case fails, so cargo does; but a failure with no diagnostics of the cases
    // (a manifest or lock-file problem) would otherwise read as "compiled".
    let any_message = String::from_utf8_lossy(&output.stdout).contains("\"reason\":\"compiler-message\"");
    assert!(
        output.status.success() || any_message,
        "building the fail cases in {} produced no diagnostics:\n{}",
        project.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The normalized headlines of the errors reported for each case's binary; a case that
/// compiled has no entry.
fn reported_errors(output: &Output, cases: &[Case]) -> BTreeMap<String, Vec<String>> {
    let bins: BTreeMap<PathBuf, &str> = cases
        .iter()
        .map(|case| (canonical(&case.source), case.bin.as_str()))
        .collect();
    let mut reported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if message["reason"] != "compiler-message" || message["message"]["level"] != "error" {
            continue;
        }
        let Some(source) = message["target"]["src_path"].as_str() else {
            continue;
        };
        let Some(&bin) = bins.get(&canonical(Path::new(source))) else {
            continue;
        };
        let rendered = message["message"]["rendered"].as_str().unwrap_or_default();
        let headline = rendered.lines().next().unwrap_or_default();
        reported
            .entry(bin.to_owned())
            .or_default()
            .push(normalize(headline, bin));
    }
    reported
}

/// What trybuild does to a line that is not a source location's path.
fn normalize(line: &str, bin: &str) -> String {
    line.trim_end()
        .replace(bin, "$CRATE")
        .replace(&format!("{ROOT}/"), "$DIR/")
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}
