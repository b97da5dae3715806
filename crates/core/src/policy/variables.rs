//! Environment variables that change which program runs or what it loads, set by a model
//! (an argument of kind [`Environment`](crate::spec::ArgumentKind::Environment)) or by a
//! script (`LD_PRELOAD=… ls`): with them, a command an allow rule matched by its text
//! would run something else, so a call setting one is refused unless an allow rule names
//! the variable exactly, and a script setting one is not seen through by allow rules.
//!
//! What this does not do: the list is of well-known variables; a program that reads
//! its configuration from a variable of its own (`MYTOOL_PLUGIN=…`) is not on it. An
//! allow rule over an environment argument still has to name every variable the model
//! sets, so such a variable asks unless a rule names it.

use super::glob::Glob;
use super::rule::Rule;

/// Environment variables that change which program runs or what it loads: set by a
/// script or passed in an argument of kind `Environment`, they could turn an allowed
/// command into another one.
///
/// The names are matched exactly, and the prefixes `GIT_CONFIG`, `LD_`, `DYLD_` and
/// `BASH_FUNC_` (exported bash functions) as prefixes.
pub fn is_dangerous_variable(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PROMPT_COMMAND",
        "IFS",
        "CDPATH",
        "PATH",
        "PYTHONSTARTUP",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONINSPECT",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "NODE_OPTIONS",
        "NODE_PATH",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "PAGER",
        "MANPAGER",
        "GIT_PAGER",
        "EDITOR",
        "VISUAL",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "GIT_EXEC_PATH",
        "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND",
        "GIT_TEMPLATE_DIR",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "CARGO_BUILD_RUSTC_WRAPPER",
        "RUSTC_WRAPPER",
        "RUSTC",
        "CARGO_HOME",
        "RUSTUP_TOOLCHAIN",
        "CC",
        "CXX",
        "MAKEFLAGS",
        "NPM_CONFIG_SCRIPT_SHELL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "TERMINFO",
        "HOME",
        "XDG_CONFIG_HOME",
        "ZDOTDIR",
        "INPUTRC",
        "GCONV_PATH",
        "HOSTALIASES",
        "LOCPATH",
        "NLSPATH",
        "MALLOC_CHECK_",
        "OPENSSL_CONF",
        "SSL_CERT_FILE",
    ];
    const PREFIXES: &[&str] = &["GIT_CONFIG", "LD_", "DYLD_", "BASH_FUNC_", "NPM_CONFIG_"];
    EXACT.contains(&name) || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

/// The dangerous variables among `names` that no allow rule in `allow` names exactly:
/// those a call is refused for.
pub(super) fn refused(names: &[&str], allow: &[Rule]) -> Vec<String> {
    names
        .iter()
        .filter(|name| is_dangerous_variable(name))
        .filter(|name| {
            !allow
                .iter()
                .any(|rule| rule.glob().and_then(Glob::literal) == Some(**name))
        })
        .map(|name| (*name).to_owned())
        .collect()
}
