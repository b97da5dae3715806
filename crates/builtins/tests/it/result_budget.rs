//! A 10 MB result fitted to a token budget for every dialect, and the rest paged back in
//! full with `read_file` from where the note says to go on.

use std::sync::Arc;

use agent_tools_builtins::result_files::{RESULTS_DIR, ResultFiles};
use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::dialect::DefinitionOptions;
use agent_tools_core::output::Content;
use agent_tools_core::tokens::TokenCounting;
use agent_tools_core::tool::DynamicTool;
use agent_tools_core::{Dialect, ToolCall, ToolRegistry};
use serde_json::json;

const BUDGET: usize = 25_000;

/// About 10 MB of numbered lines, each different, so a page out of place shows.
fn ten_megabytes() -> String {
    (1..=110_000)
        .map(|n| format!("line {n:06}: {}\n", "lorem ipsum dolor sit amet ".repeat(3)))
        .collect()
}

fn registry(ws: &Workspace, text: &str) -> ToolRegistry {
    let registry = ToolRegistry::builder()
        .max_result_tokens(BUDGET)
        .result_overflow(ResultFiles::new(ws.clone()))
        .build();
    Arc::new(Builtins::new(ws.clone()).unwrap())
        .register_all(&registry)
        .unwrap();
    let text = text.to_owned();
    let big = DynamicTool::new("big", "Returns a lot.", json!({"type": "object"}), move |_, _| {
        let text = text.clone();
        async move { Ok::<_, agent_tools_core::ToolError>(agent_tools_core::ToolOutput::text(text)) }
    });
    registry.register(big).unwrap();
    registry
}

#[tokio::test(flavor = "multi_thread")]
async fn a_ten_megabyte_result_fits_every_dialect_and_pages_back_whole() {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    let text = ten_megabytes();
    assert!(text.len() > 10_000_000);
    let registry = registry(&ws, &text);
    let mut kept_path = None;
    for dialect in [
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
    ] {
        let call = ToolCall::new(format!("call-{dialect:?}"), "big", "{}")
            .with_definition_options(DefinitionOptions::new(dialect));
        let result = registry.call(call).await;
        assert!(!result.is_error(), "{}", result.text());
        let shown = result.output.text_content();
        let counting = TokenCounting::for_dialect(Some(dialect));
        let tokens = counting.count(&shown);
        assert!(tokens <= BUDGET, "{dialect:?}: {tokens} tokens");
        // Most of the budget is used, not a token-starved stub.
        assert!(tokens > BUDGET * 9 / 10, "{dialect:?}: only {tokens} tokens");
        assert!(text.starts_with(shown.lines().next().unwrap()));
        let note = shown.lines().last().unwrap();
        assert!(note.contains("Result cut to fit its budget of 25,000"), "{note}");
        let (path, offset, limit) = go_on_from(note);
        assert!(path.starts_with(RESULTS_DIR), "{path}");
        // The shown lines (the first part; the note is the last) are exactly the lines
        // before the offset.
        let Content::Text { text: first, .. } = &result.output.content[0] else {
            panic!("the kept text comes first");
        };
        assert!(text.starts_with(first.as_str()));
        let shown_lines = first.lines().count();
        assert_eq!(offset, shown_lines + 1, "{note}");
        // The link for clients that read resources (MCP) is there too.
        assert!(result.output.content.iter().any(|part| matches!(
            part,
            Content::ResourceLink { uri, .. } if uri.starts_with("file://") && uri.ends_with(".txt")
        )));
        kept_path = Some((path, offset, limit));
    }
    // Paged as the note says, every page fits the budget uncut, and together they are the
    // whole result.
    let (path, offset, limit) = kept_path.unwrap();
    let paged = page_through(&registry, &path, 1, limit).await;
    assert_eq!(paged.len(), text.len());
    assert!(
        paged == text,
        "the kept result differs from what the tool returned"
    );
    // The note's offset is the first line not shown.
    let arguments = json!({"path": path, "offset": offset, "limit": 1}).to_string();
    let page = registry
        .call(ToolCall::new("next", "read_file", arguments))
        .await
        .text();
    let first_line = page.lines().nth(1).unwrap().split_once('\t').unwrap().1;
    assert_eq!(Some(first_line), text.lines().nth(offset - 1));
}

/// The path, offset and limit the note names: "… with path `P`, offset N and limit L.]".
fn go_on_from(note: &str) -> (String, usize, usize) {
    let path = note
        .split("with path `")
        .nth(1)
        .unwrap()
        .split('`')
        .next()
        .unwrap();
    let offset = note.split(", offset ").nth(1).unwrap().split(' ').next().unwrap();
    let limit = note.split("and limit ").nth(1).unwrap().trim_end_matches(".]");
    (path.to_owned(), offset.parse().unwrap(), limit.parse().unwrap())
}

/// Every line of `path` from `offset` on, read with `read_file` page by page.
async fn page_through(registry: &ToolRegistry, path: &str, mut offset: usize, limit: usize) -> String {
    let mut text = String::new();
    loop {
        let arguments = json!({"path": path, "offset": offset, "limit": limit}).to_string();
        let call = ToolCall::new("read", "read_file", arguments)
            .with_definition_options(DefinitionOptions::new(Dialect::Anthropic));
        let result = registry.call(call).await;
        assert!(!result.is_error(), "{}", result.text());
        let page = result.text();
        assert!(
            !page.contains("Result cut"),
            "a page was cut: {}",
            page.lines().last().unwrap()
        );
        let mut next = None;
        for line in page.lines().skip(1) {
            if let Some((number, content)) = line.split_once('\t') {
                text.push_str(content);
                text.push('\n');
                offset = number.trim().parse::<usize>().unwrap() + 1;
            } else if let Some(rest) = line
                .strip_prefix('[')
                .and_then(|l| l.split("continue with offset=").nth(1))
            {
                next = rest.trim_end_matches(']').parse::<usize>().ok();
            }
        }
        match next {
            Some(next) => assert_eq!(next, offset),
            None => return text,
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_result_within_the_budget_is_left_alone_and_nothing_is_kept() {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    let registry = registry(&ws, "small\n");
    let result = registry.call(ToolCall::new("1", "big", "{}")).await;
    assert_eq!(result.text(), "small\n");
    assert!(!temp.path().join(RESULTS_DIR).exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clients_cap_in_characters_is_honoured() {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    let registry = registry(&ws, &"é".repeat(50_000));
    let call = ToolCall::new("1", "big", "{}").with_max_result_chars(10_000);
    let result = registry.call(call).await;
    let shown = result.output.text_content();
    assert!(shown.chars().count() <= 10_000, "{}", shown.chars().count());
    assert!(shown.contains("10,000 characters"), "{shown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn read_file_sizes_its_pages_by_the_budget_and_says_where_to_go_on() {
    let temp = tempfile::tempdir().unwrap();
    let ws = Workspace::open(temp.path()).unwrap();
    std::fs::write(temp.path().join("big.log"), ten_megabytes()).unwrap();
    let registry = registry(&ws, "");
    let call = ToolCall::new("1", "read_file", json!({"path": "big.log"}).to_string())
        .with_definition_options(DefinitionOptions::new(Dialect::Anthropic));
    let page = registry.call(call).await.text();
    assert!(!page.contains("Result cut"), "the page itself fits");
    assert!(
        page.contains("to fit the result budget]"),
        "{}",
        &page[page.len() - 300..]
    );
    assert!(page.contains("continue with offset="));
    assert!(TokenCounting::Estimate.count(&page) <= BUDGET);
    assert!(!temp.path().join(RESULTS_DIR).exists(), "nothing needed keeping");
}
