//! Tests that need a program from outside the build (Chromium, Xvfb, PostgreSQL's
//! `initdb` and `postgres`, nginx, Node, Python) ask for it here.
//!
//! Missing, the test prints `skipped: <test> needs <program>; install with: <command>`
//! and returns, passing: someone running `cargo test` without Chromium still runs the
//! rest of the suite, and sees what was left out and how to get it. Under CI (`CI=true`,
//! which CI services set) a missing program fails the test instead, so a green CI run
//! never left anything out. `scripts/test` installs every program these tests ask for.
//!
//! A test reads:
//!
//! ```no_run
//! let Some(python) = test_support::require_program("python3", "apt-get install python3") else {
//!     return;
//! };
//! ```

use std::path::{Path, PathBuf};

/// Whether this is a CI run: the environment variable `CI` is `true`.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|value| value == "true")
}

/// Directories searched after `PATH`: where Debian puts daemons (nginx), outside a
/// user's `PATH`.
const SBIN: [&str; 2] = ["/usr/sbin", "/usr/local/sbin"];

/// `program` (a bare name) on `PATH` or in the `sbin` directories, as an executable file.
pub fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(SBIN.iter().map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// `program` for the running test, or `None` after saying the test is skipped and how to
/// install it (`how_to_install`, a command); under CI, a missing program fails the test.
pub fn require_program(program: &str, how_to_install: &str) -> Option<PathBuf> {
    require_program_in(program, how_to_install, in_ci())
}

/// [`require_program`] with CI's verdict given, not read from the environment.
pub fn require_program_in(program: &str, how_to_install: &str, ci: bool) -> Option<PathBuf> {
    let found = find_program(program);
    if found.is_none() {
        missing_in(program, how_to_install, ci);
    }
    found
}

/// The first of `programs` that is installed (one program known by several names, such
/// as Chromium's), or `None` after saying the test is skipped (the first name is the one
/// reported); under CI, none of them fails the test.
pub fn require_any_program(programs: &[&str], how_to_install: &str) -> Option<PathBuf> {
    let found = programs.iter().find_map(|program| find_program(program));
    if found.is_none() {
        missing(programs.first().copied().unwrap_or("a program"), how_to_install);
    }
    found
}

/// The names the screenshot tool looks for Chromium by.
pub const CHROMIUM: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// Chromium, for the tests that screenshot a page, or `None` after saying the test is
/// skipped (a failure under CI).
pub fn require_chromium() -> Option<PathBuf> {
    require_any_program(&CHROMIUM, "apt-get install chromium")
}

/// `path`, a program or file a script installs (`what` names it for the message), or
/// `None` after saying the test is skipped; under CI, a missing file fails the test.
pub fn require_file(what: &str, path: PathBuf, how_to_install: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    missing(&format!("{what} ({})", path.display()), how_to_install);
    None
}

/// Reports that the running test lacks `what`, which `how_to_install` installs: a line on
/// stderr, or, under CI, a panic. The caller then returns.
pub fn missing(what: &str, how_to_install: &str) {
    missing_in(what, how_to_install, in_ci());
}

/// [`missing`] with CI's verdict given: panics when `ci`, else prints the skip.
pub fn missing_in(what: &str, how_to_install: &str, ci: bool) {
    let message = format!(
        "skipped: {} needs {what}; install with: {how_to_install}",
        test_name()
    );
    if ci {
        panic!("{message} (CI=true: a CI run skips nothing)");
    }
    eprintln!("{message}");
}

/// The running test's name: libtest names each test's thread after it.
fn test_name() -> String {
    std::thread::current()
        .name()
        .filter(|name| *name != "main")
        .unwrap_or("this test")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOWHERE: &str = "agent-tools-no-such-program";

    #[test]
    fn a_missing_program_is_a_skip_outside_ci() {
        assert_eq!(
            require_program_in(NOWHERE, "apt-get install nothing", false),
            None
        );
    }

    #[test]
    #[should_panic(expected = "needs agent-tools-no-such-program; install with: apt-get install nothing")]
    fn a_missing_program_fails_under_ci() {
        require_program_in(NOWHERE, "apt-get install nothing", true);
    }

    #[test]
    fn a_present_program_is_found_either_way() {
        for ci in [false, true] {
            let sh = require_program_in("sh", "apt-get install dash", ci).expect("sh is installed");
            assert!(sh.is_absolute(), "{}", sh.display());
        }
    }
}
