//! The environment a command sees: an allow-list, never the secrets.
//!
//! An agent's process usually holds API keys in its environment; a command the model
//! writes (`env`, `printenv`, a script that uploads its environment) must not see them.
//! Only well-known harmless variables pass, plus names the configuration allows
//! explicitly; anything whose name looks like a secret passes only when named there.

use std::collections::BTreeMap;

use agent_tools_core::secrets::is_secret_name;

/// Variables that pass by default.
pub const DEFAULT_ALLOWED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TZ",
    "COLORTERM",
    "NO_COLOR",
    "CARGO_HOME",
    "RUSTUP_HOME",
];

/// The inherited variables a command gets: the default allow-list and `extra` names,
/// secret-looking ones only when `extra` names them.
pub(crate) fn inherited(
    vars: impl Iterator<Item = (String, String)>,
    extra: &[String],
) -> BTreeMap<String, String> {
    vars.filter(|(name, _)| {
        let configured = extra.iter().any(|allowed| allowed == name);
        configured || (DEFAULT_ALLOWED.contains(&name.as_str()) && !is_secret_name(name))
    })
    .collect()
}

/// Checks a variable name a model gave: `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let valid_start = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if valid_start && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a valid environment variable name (letters, digits and `_`)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Iterator<Item = (String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn only_allowed_names_pass_and_secrets_need_naming() {
        let env = vars(&[
            ("PATH", "/bin"),
            ("OPENAI_API_KEY", "sk-1"),
            ("GITHUB_TOKEN", "t"),
            ("RANDOM_VAR", "x"),
            ("MY_SERVICE_URL", "http://x"),
        ]);
        let kept = inherited(env, &["MY_SERVICE_URL".into(), "GITHUB_TOKEN".into()]);
        let names: Vec<&str> = kept.keys().map(String::as_str).collect();
        assert_eq!(names, ["GITHUB_TOKEN", "MY_SERVICE_URL", "PATH"]);
        assert!(is_secret_name("db_password") && is_secret_name("Api_Key") && !is_secret_name("PATH"));
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("RUST_LOG").is_ok());
        assert!(check_name("_x1").is_ok());
        assert!(check_name("1X").is_err());
        assert!(check_name("A-B").is_err());
        assert!(check_name("").is_err());
    }
}
