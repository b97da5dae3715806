//! How well `tool_search` finds what a model asks for: the queries of
//! `test_support::tool_catalog` against the built-in tools, the official everything
//! server mounted over stdio, and 1,000 look-alike tools of a SaaS gateway; recall at 5
//! must stay at 90% or more (the guide's performance chapter reports the figure the bench prints).

use crate::tool_catalog;
use test_support::everything;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recall_at_five_over_a_thousand_look_alike_tools() {
    let Some(everything) = everything::everything_server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let registry = tool_catalog::gateway(dir.path(), &everything).await;
    let (asked, found, misses) = tool_catalog::recall_at(&registry, 5).await;
    assert_eq!(
        asked,
        tool_catalog::QUERIES.len(),
        "every query's tool is registered"
    );
    let recall = found as f64 / asked as f64;
    eprintln!("recall@5: {found}/{asked} = {recall:.2}; misses: {misses:#?}");
    assert!(recall >= 0.9, "recall@5 {found}/{asked}: {misses:#?}");
}
