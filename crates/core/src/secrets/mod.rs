//! The one rule for what is a secret, used wherever the project must keep one out of
//! sight: the audit log ([`AuditSink`](crate::audit::AuditSink)) and `exec`'s environment filter in
//! `agent-tools-builtins`.
//!
//! Audit logs are kept longer and read by more people than the conversation they record,
//! and a model puts credentials into arguments in many forms: a key named `api_key`, an
//! `{"name": "OPENAI_API_KEY", "value": …}` pair, `curl -H "Authorization: Bearer …"` in
//! a command, `https://user:password@host/?api_key=…` in a URL, a private key pasted
//! into a file, a tool's error message quoting what it was given. So secrets are found
//! two ways:
//!
//! - **By name** ([`is_secret_name`]): a key, variable, header or parameter whose name
//!   has a secret word (`token`, `password`, `secret`, `authorization`, `cookie`,
//!   `credential`, `api key`, `private key`, `…_key`; the exact rule is on the
//!   function). Names are judged by whole words, so `key`, `max_tokens`, `keyboard` and
//!   `sort_key` stay readable.
//! - **Inside any text** ([`redact_text`]), replacing only the secret:
//!   - values assigned to a secret name: `API_KEY=…`, `password: …`, `"token": "…"`,
//!     `--password …`, and the `Authorization:` header's credentials (its scheme, such
//!     as `Bearer`, is kept);
//!   - URL credentials: the password in `scheme://user:password@host`, and query
//!     parameters with a secret name or one of `key`, `sig`, `signature`;
//!   - `Bearer` followed by something that looks like a credential;
//!   - well-known token shapes: OpenAI and Anthropic `sk-…`, Stripe `sk_live_…`, GitHub
//!     `ghp_…`/`github_pat_…`, GitLab `glpat-…`, AWS `AKIA…`/`ASIA…`, Slack `xox?-…`,
//!     Google `AIza…`/`ya29.…`, Hugging Face `hf_…`, npm `npm_…`, JSON Web Tokens,
//!     Telegram bot tokens, and PEM private key blocks (`-----BEGIN … PRIVATE KEY-----`
//!     to its end, or to the end of the text when it is cut off).
//!
//! What this does not catch: a secret with no known shape that is not assigned to a
//! secret name (`my password is hunter2`, a bare random string), and secrets encoded on
//! the way (base64 of a header, a key split over two arguments). Redaction is a second
//! line; the first is not giving models secrets.

mod names;
mod text;

pub use names::is_secret_name;
pub use text::redact_text;

/// What replaces a redacted secret.
pub const REDACTED: &str = "[REDACTED]";
