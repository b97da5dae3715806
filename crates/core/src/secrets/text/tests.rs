use std::borrow::Cow;

use super::*;

/// Realistic-looking secrets of each shape (made up; none is a real credential).
pub(crate) const OPENAI: &str = "sk-proj-Zx81QmT0vLp3RaY7nWc2HdK9sFb4GjE6uNo5Xi";
const ANTHROPIC: &str = "sk-ant-api03-Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc";
const STRIPE: &str = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
const GITHUB: &str = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s";
const GITHUB_PAT: &str = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz";
const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
const SLACK: &str = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp";
const GOOGLE: &str = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q";
const JWT: &str =
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
const TELEGRAM: &str = "1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0";
const PEM: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\nQyNTUxOQAAACDm\n-----END OPENSSH PRIVATE KEY-----";

fn redacted(text: &str) -> String {
    redact_text(text).into_owned()
}

#[test]
fn token_shapes_are_redacted_anywhere() {
    for secret in [
        OPENAI, ANTHROPIC, STRIPE, GITHUB, GITHUB_PAT, AWS, SLACK, GOOGLE, JWT, TELEGRAM,
    ] {
        let text = format!("the value ({secret}) was rejected");
        assert_eq!(redacted(&text), "the value ([REDACTED]) was rejected", "{secret}");
    }
}

#[test]
fn private_key_blocks_are_redacted_whole_even_when_cut_off() {
    let text = format!("key file:\n{PEM}\nend");
    assert_eq!(redacted(&text), "key file:\n[REDACTED]\nend");
    let cut = &PEM[..60];
    assert_eq!(redacted(&format!("x {cut}")), "x [REDACTED]");
    let rsa = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----";
    assert_eq!(redacted(rsa), "[REDACTED]");
    let public = "-----BEGIN PUBLIC KEY-----\nMIIBIj\n-----END PUBLIC KEY-----";
    assert_eq!(redacted(public), public);
}

#[test]
fn values_of_secret_names_are_redacted() {
    let cases = [
        (
            "export OPENAI_API_KEY=hunter22 && run",
            "export OPENAI_API_KEY=[REDACTED] && run",
        ),
        ("PGPASSWORD='s3 cret' psql", "PGPASSWORD='[REDACTED]' psql"),
        (
            r#"{"api_key": "abc123", "q": 1}"#,
            r#"{"api_key": "[REDACTED]", "q": 1}"#,
        ),
        (r#"{\"token\": \"abc123\"}"#, r#"{\"token\": \"[REDACTED]\"}"#),
        ("mysql --password hunter22 db", "mysql --password [REDACTED] db"),
        ("tool --token=abc --verbose", "tool --token=[REDACTED] --verbose"),
        (
            "password: correct horse\nuser: bob",
            "password: [REDACTED]\nuser: bob",
        ),
        (
            "curl -H 'Authorization: Bearer abc.def' https://x.test",
            "curl -H 'Authorization: Bearer [REDACTED]' https://x.test",
        ),
        ("-H \"X-Api-Key: k1\" -d x", "-H \"X-Api-Key: [REDACTED]\" -d x"),
        ("Cookie: session=abc; theme=dark", "Cookie: [REDACTED]"),
        (r#"{"api_key": "sk-"#, r#"{"api_key": "[REDACTED]"#),
        (
            r#"[{"name": "DEPLOY_TOKEN", "value": "v4lue"}, {"name": "A", "value": "b"}]"#,
            r#"[{"name": "DEPLOY_TOKEN", "value": "[REDACTED]"}, {"name": "A", "value": "b"}]"#,
        ),
        (
            r#"{\"name\":\"PGPASSWORD\",\"value\":\"x1\"}"#,
            r#"{\"name\":\"PGPASSWORD\",\"value\":\"[REDACTED]\"}"#,
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(redacted(text), expected, "{text}");
    }
}

#[test]
fn url_credentials_are_redacted() {
    let cases = [
        (
            "git clone https://x-access-token:tok3n@github.com/o/r.git",
            "git clone https://x-access-token:[REDACTED]@github.com/o/r.git",
        ),
        (
            "postgres://app:pa55@db:5432/x",
            "postgres://app:[REDACTED]@db:5432/x",
        ),
        (
            "https://x.test/a?api_key=abc&q=rust&access_token=t0k#top",
            "https://x.test/a?api_key=[REDACTED]&q=rust&access_token=[REDACTED]#top",
        ),
        (
            "https://maps.test/api?key=abc123&sig=xyz",
            "https://maps.test/api?key=[REDACTED]&sig=[REDACTED]",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(redacted(text), expected, "{text}");
    }
}

#[test]
fn bearer_credentials_in_prose_are_redacted() {
    assert_eq!(
        redacted("sent Bearer abc123def456 to the server"),
        "sent Bearer [REDACTED] to the server"
    );
    let prose = "bearer authentication with bearer tokens";
    assert_eq!(redacted(prose), prose);
}

#[test]
fn ordinary_text_stays_readable_and_borrowed() {
    for text in [
        "user:42",
        "key=user:42",
        "max_tokens: 100",
        "cat docs/token-guide.md | grep token",
        "the keyboard layout and the monkey",
        "sort_key=name&order=asc",
        "https://example.com/a/b?q=rust&page=2",
        "ssh://git@github.com/o/r.git",
        "sk-learn-tutorial-notebooks-collection",
        "Asia/Tokyo",
        "token::Token::new()",
        "see https://docs.test/auth for details",
        "api_key_env = \"OPENAI_API_KEY\"",
        "héllo wörld ключ",
    ] {
        assert!(
            matches!(redact_text(text), Cow::Borrowed(_)),
            "{text} -> {}",
            redacted(text)
        );
    }
}

#[test]
fn overlapping_and_adjacent_secrets_are_redacted_once() {
    let text = format!("Authorization: Bearer {OPENAI}");
    assert_eq!(redacted(&text), "Authorization: Bearer [REDACTED]");
    let text = format!("OPENAI_API_KEY={OPENAI} GITHUB_TOKEN={GITHUB}");
    assert_eq!(
        redacted(&text),
        "OPENAI_API_KEY=[REDACTED] GITHUB_TOKEN=[REDACTED]"
    );
}

#[test]
fn multibyte_text_around_secrets_survives() {
    let text = format!("clé «{AWS}» token=été");
    assert_eq!(redacted(&text), "clé «[REDACTED]» token=[REDACTED]");
}

/// A hostile text of a million secret words in one line (a tool error can be that
/// long): each `token:` would take the rest of the line as its value, so looking at
/// every one would be quadratic. It must end, and within a deadline a hang blows.
#[test]
fn many_secret_words_in_one_line_take_one_pass() {
    let text = "token: ".repeat(1_000_000);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let redacted = redacted(&text);
        let _ = sender.send(redacted);
    });
    let redacted = receiver
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("redaction ends");
    assert_eq!(redacted, "token: [REDACTED] ");
}
