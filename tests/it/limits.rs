//! Limits on calls, through the facade: retry budgets (`ToolError::retry`,
//! `#[tool(retries = N)]`, the registry's default), per-tool concurrency
//! (`#[tool(max_concurrency = N)]`, under `call_all`), per-session call caps and a tool's
//! own result budget (`#[tool(max_result_tokens = N)]`).

use std::sync::atomic::{AtomicUsize, Ordering};

use agent_tools::{ToolCall, ToolError, ToolRegistry, audit::Outcome, tool};
use serde_json::json;

/// Parse a date.
#[tool(read_only, retries = 2)]
async fn parse_date(
    /// The date, as YYYY-MM-DD.
    date: String,
) -> Result<String, ToolError> {
    if date.len() == 10 {
        Ok(format!("parsed {date}"))
    } else {
        Err(ToolError::retry(format!(
            "`{date}` is not YYYY-MM-DD; send e.g. 2026-12-01"
        )))
    }
}

/// Parse a number.
#[tool(read_only)]
async fn parse_number(
    /// The number.
    text: String,
) -> Result<String, ToolError> {
    text.parse::<i64>()
        .map(|n| n.to_string())
        .map_err(|_| ToolError::retry("send digits only"))
}

fn date(id: &str, date: &str) -> ToolCall {
    ToolCall::new(id, "parse_date", json!({"date": date}))
}

#[tokio::test]
async fn a_tools_retry_budget_ends_a_run_of_retries_with_a_final_error() {
    let registry = ToolRegistry::new();
    registry.register(ParseDateTool).unwrap();
    for attempt in 1..=2 {
        let result = registry.call(date("c", "tomorrow")).await;
        assert_eq!(result.outcome, Outcome::Error);
        assert!(
            result.text().contains("send e.g. 2026-12-01"),
            "attempt {attempt}: {}",
            result.text()
        );
    }
    let spent = registry.call(date("c", "tomorrow")).await;
    assert!(spent.is_error());
    assert!(
        spent.text().contains("its budget of 2 retries is spent"),
        "{}",
        spent.text()
    );
    assert!(
        spent.text().contains("send e.g. 2026-12-01"),
        "the last answer is kept: {}",
        spent.text()
    );

    // Another session has its own budget; a good call ends the run.
    let other = registry.session("other");
    assert!(!other.call(date("c", "x")).await.text().contains("spent"));
    assert_eq!(registry.call(date("c", "2026-12-01")).await.outcome, Outcome::Ok);
    assert!(
        !registry.call(date("c", "x")).await.text().contains("spent"),
        "counted afresh"
    );
}

#[tokio::test]
async fn the_registry_default_budget_applies_to_tools_without_one() {
    let registry = ToolRegistry::builder().retries(0).build();
    registry.register(ParseNumberTool).unwrap();
    registry.register(ParseDateTool).unwrap();
    let number = registry
        .call(ToolCall::new("c", "parse_number", json!({"text": "ten"})))
        .await;
    assert!(
        number.text().contains("budget of 0 retries is spent"),
        "{}",
        number.text()
    );
    let date = registry.call(date("c", "x")).await;
    assert!(
        !date.text().contains("spent"),
        "its own budget of 2 wins: {}",
        date.text()
    );
    // Without any budget, retries are just answers.
    let unlimited = ToolRegistry::new();
    unlimited.register(ParseNumberTool).unwrap();
    for _ in 0..5 {
        let result = unlimited
            .call(ToolCall::new("c", "parse_number", json!({"text": "ten"})))
            .await;
        assert_eq!(result.text(), "send digits only");
    }
}

static RUNNING: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);

/// Migrate the database.
#[tool(max_concurrency = 1)]
async fn migrate() -> String {
    occupy(&RUNNING, &MOST).await;
    "migrated".to_owned()
}

static FREE_RUNNING: AtomicUsize = AtomicUsize::new(0);
static FREE_MOST: AtomicUsize = AtomicUsize::new(0);

/// Count things.
#[tool(read_only)]
async fn count() -> String {
    occupy(&FREE_RUNNING, &FREE_MOST).await;
    "counted".to_owned()
}

/// Counts the call in `running` (and the most there were in `most`) for a few turns of
/// the scheduler, so that calls allowed to run at once do.
async fn occupy(running: &AtomicUsize, most: &AtomicUsize) {
    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
    most.fetch_max(now, Ordering::SeqCst);
    for _ in 0..5 {
        tokio::task::yield_now().await;
    }
    running.fetch_sub(1, Ordering::SeqCst);
}

#[tokio::test]
async fn a_tool_limited_to_one_call_at_a_time_runs_its_calls_one_by_one() {
    let registry = ToolRegistry::new();
    registry.register(MigrateTool).unwrap();
    registry.register(CountTool).unwrap();
    let calls = |tool: &str| {
        (0..4)
            .map(|i| ToolCall::new(format!("c{i}"), tool, json!({})))
            .collect()
    };
    let results = registry.call_all(calls("migrate")).await;
    assert!(results.iter().all(|result| result.outcome == Outcome::Ok));
    assert_eq!(MOST.load(Ordering::SeqCst), 1, "never two at once");
    // The same calls of a tool without a limit overlap, so the check above can fail.
    registry.call_all(calls("count")).await;
    assert!(FREE_MOST.load(Ordering::SeqCst) > 1);
}

#[tokio::test]
async fn a_session_may_make_only_so_many_calls() {
    let registry = ToolRegistry::builder().max_calls_per_session(2).build();
    registry.register(ParseNumberTool).unwrap();
    let session = registry.session("s1");
    let call = |text: &str| ToolCall::new("c", "parse_number", json!({"text": text}));
    assert_eq!(session.call(call("1")).await.outcome, Outcome::Ok);
    let invalid = session.call(ToolCall::new("c", "parse_number", json!({}))).await;
    assert_eq!(invalid.outcome, Outcome::InvalidArguments, "does not count");
    assert_eq!(session.call(call("2")).await.outcome, Outcome::Ok);
    let capped = session.call(call("3")).await;
    assert_eq!(capped.outcome, Outcome::Denied);
    assert!(
        capped.text().contains("made 2 tool calls, the most it may make"),
        "{}",
        capped.text()
    );
    assert_eq!(registry.session("s2").call(call("4")).await.outcome, Outcome::Ok);
}

/// Print many lines.
#[tool(read_only, max_result_tokens = 300)]
async fn many_lines(
    /// How many.
    count: u32,
) -> String {
    (0..count).map(|n| format!("line {n}\n")).collect()
}

#[tokio::test]
async fn a_tools_own_result_budget_wins_over_the_registrys() {
    let registry = ToolRegistry::builder().max_result_tokens(100_000).build();
    registry.register(ManyLinesTool).unwrap();
    let result = registry
        .call(ToolCall::new(
            "1",
            "many_lines",
            json!({"count": 5000}).to_string(),
        ))
        .await;
    let text = result.text();
    assert!(text.len() <= 900, "{} bytes", text.len());
    assert!(text.contains("budget of 300 estimated tokens"), "{text}");
    assert!(text.contains("The rest was left out"), "{text}");
    let small = registry
        .call(ToolCall::new("2", "many_lines", json!({"count": 3}).to_string()))
        .await;
    assert_eq!(small.text(), "line 0\nline 1\nline 2\n");
}
