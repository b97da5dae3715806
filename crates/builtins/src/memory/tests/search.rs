//! `memory_search`: ranking, snippets, tags, hostile queries and CJK text.

use super::*;

#[tokio::test]
async fn the_more_relevant_memory_ranks_first() {
    let Setup { store, temp: _temp } = setup();
    let filler = "The team met on Tuesday to review the quarterly roadmap, hiring and budget. ".repeat(4);
    write(
        &store,
        &format!("{filler}Someone mentioned postgres once."),
        None,
        &[],
    )
    .await;
    write(
        &store,
        "Postgres: the postgres replica lags; restart postgres after upgrades.",
        None,
        &[],
    )
    .await;
    write(&store, "Nothing about databases here.", None, &[]).await;
    write(&store, "Backups run nightly.", Some("postgres-backups"), &[]).await;
    let out = search(&store, "postgres").await.unwrap();
    assert!(
        out.starts_with("3 memories match `postgres`, best first:\n"),
        "{out}"
    );
    assert_eq!(listed_ids(&out)[0], 2, "{out}");
    assert!(listed_ids(&out).contains(&4), "keys are searched too: {out}");
    assert!(
        out.ends_with("Read a whole memory with `memory_read` and its id."),
        "{out}"
    );
}

#[tokio::test]
async fn snippets_mark_the_matched_words() {
    let Setup { store, temp: _temp } = setup();
    write(
        &store,
        "The deploy script\nfails on staging when TLS certificates are configured.",
        None,
        &["ops"],
    )
    .await;
    let out = search(&store, "deploy staging configure").await.unwrap();
    let expected = "#1 · tags: ops · updated ";
    assert!(out.contains(expected), "{out}");
    assert!(
        out.contains("\n  The «deploy» script fails on «staging» when TLS certificates are «configured».\n"),
        "{out}"
    );
}

#[tokio::test]
async fn a_tag_filter_keeps_memories_with_every_tag() {
    let Setup { store, temp: _temp } = setup();
    write(&store, "Deploy note one.", None, &["ops", "ci"]).await;
    write(&store, "Deploy note two.", None, &["ops"]).await;
    write(&store, "Deploy note three.", None, &[]).await;
    let both = search_with(&store, "deploy", &["OPS", "ci"], None).await.unwrap();
    assert_eq!(listed_ids(&both), [1]);
    assert!(
        both.starts_with("1 memory tagged ci, ops matches `deploy`, best first:"),
        "{both}"
    );
    let mut ops = listed_ids(&search_with(&store, "deploy", &["ops"], None).await.unwrap());
    ops.sort_unstable();
    assert_eq!(ops, [1, 2]);
    let none = search_with(&store, "deploy", &["o"], None).await.unwrap();
    assert_eq!(none, "No memory tagged o matches `deploy`.");
}

#[tokio::test]
async fn without_a_memory_having_every_word_any_word_matches() {
    let Setup { store, temp: _temp } = setup();
    write(&store, "The deploy script is in tools/.", None, &[]).await;
    write(&store, "The database backup runs at night.", None, &[]).await;
    let out = search(&store, "deploy backup").await.unwrap();
    assert!(
        out.starts_with("No memory contains every word of `deploy backup`; 2 memories contain some of them"),
        "{out}"
    );
    assert_eq!(
        search(&store, "kubernetes").await.unwrap(),
        "No memory matches `kubernetes`."
    );
}

#[tokio::test]
async fn limit_caps_the_results_and_says_more_may_match() {
    let Setup { store, temp: _temp } = setup();
    for i in 0..7 {
        write(&store, &format!("Note number {i} about caching."), None, &[]).await;
    }
    let out = search_with(&store, "caching", &[], Some(5)).await.unwrap();
    assert_eq!(listed_ids(&out).len(), 5);
    assert!(
        out.contains("\nShowing the best 5; more may match (raise `limit`, up to 50"),
        "{out}"
    );
    assert_eq!(listed_ids(&search(&store, "caching").await.unwrap()).len(), 7);
    for limit in [0, 51] {
        let error = search_with(&store, "caching", &[], Some(limit))
            .await
            .unwrap_err();
        assert_eq!(error, format!("`limit` must be between 1 and 50, not {limit}"));
    }
}

#[tokio::test]
async fn any_query_text_is_answered_without_an_sqlite_error() {
    let Setup { store, temp: _temp } = setup();
    write(
        &store,
        r#"Rock and roll; she said "hi" and set col:x to 5 (see NEAR(a b) or a* docs)."#,
        None,
        &[],
    )
    .await;
    write(&store, "派对 🎉 中文 notes - ^caret +plus", None, &[]).await;
    let long_words = "word ".repeat(199);
    let nul = "a\0b";
    let queries = [
        "\"",
        "'",
        "AND",
        "OR",
        "NOT",
        "NEAR",
        "NEAR(a b)",
        "a*",
        "*",
        "col:x",
        "body:roll",
        "labels:x",
        "{body labels}: x",
        "(",
        ")",
        "-",
        "-x",
        "+plus",
        "^caret",
        "🎉",
        "🎉 party",
        "中文",
        "\"unbalanced",
        "x\" OR \"y",
        "a AND",
        "OR OR",
        "said \"hi\"",
        "'; DROP TABLE memories; --",
        nul,
        &long_words,
        "\u{200B}",
        "\u{200B}中",
        "ǅ ǈ ǋ",
        "e\u{301}",
    ];
    for query in queries {
        match search(&store, query).await {
            Ok(out) => assert!(
                out.contains(" match") || out.contains("every word"),
                "{query:?}: {out}"
            ),
            Err(error) => assert!(
                error.starts_with("the query has no words to search for"),
                "{query:?}: {error}"
            ),
        }
    }
    for (query, expected) in [
        ("AND", 1),
        ("col:x", 1),
        ("NEAR(a b)", 1),
        ("a*", 1),
        ("中文", 2),
        ("+plus", 2),
    ] {
        let out = search(&store, query).await.unwrap();
        assert_eq!(listed_ids(&out), [expected], "{query:?}: {out}");
    }
    assert_eq!(
        search(&store, "🎉").await.unwrap_err(),
        MemoryError::EmptyQuery.to_string()
    );
    assert_eq!(
        search(&store, "  ").await.unwrap_err(),
        MemoryError::EmptyQuery.to_string()
    );
    let too_long = search(&store, &"word ".repeat(201)).await.unwrap_err();
    assert_eq!(
        too_long,
        "the query is 1005 characters long, over 1000; search with a few distinctive words"
    );
    assert!(
        search(&store, &"x".repeat(1000))
            .await
            .unwrap()
            .starts_with("No memory matches")
    );
    assert_eq!(store.count().await.unwrap(), 2, "the table survived");
}

#[tokio::test]
async fn cjk_words_are_found_inside_sentences() {
    let Setup { store, temp: _temp } = setup();
    write(
        &store,
        "这个项目的文档使用中文编写，数据库迁移在周五进行。",
        None,
        &[],
    )
    .await;
    write(&store, "データベースの移行は金曜日に行います。", None, &[]).await;
    write(&store, "데이터베이스를 백업했습니다.", None, &[]).await;
    write(&store, "Rust很好用, and so is SQLite.", None, &[]).await;
    for (query, id) in [
        ("中文", 1),
        ("迁移", 1),
        ("数据库", 1),
        ("中", 1),
        ("移行", 2),
        ("データベース", 2),
        ("데이터베이스", 3),
        ("백업", 3),
        ("rust", 4),
        ("很好", 4),
    ] {
        let out = search(&store, query).await.unwrap();
        assert_eq!(listed_ids(&out), [id], "{query}: {out}");
        assert!(
            out.contains(&format!("«{query}»")) || query == "rust",
            "{query}: {out}"
        );
    }
    // Characters must be adjacent: 文 and 中 both occur in #1, never as 文中.
    assert!(
        search(&store, "文中")
            .await
            .unwrap()
            .starts_with("No memory matches")
    );
    let out = search(&store, "中文").await.unwrap();
    assert!(
        out.contains("\n  这个项目的文档使用«中文»编写，数据库迁移在周五进行。\n"),
        "{out}"
    );
}

#[tokio::test]
async fn fts5_orders_by_rowid_and_rank_itself() {
    let Setup { store, temp: _temp } = setup();
    write(&store, "Warm the page cache.", None, &["t"]).await;
    let conn = rusqlite::Connection::open(store.path().unwrap()).unwrap();
    let plan = |sql: &str, params: &[&dyn rusqlite::ToSql]| -> Vec<String> {
        let mut statement = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let steps = statement.query_map(params, |row| row.get(3)).unwrap();
        steps.collect::<Result<_, _>>().unwrap()
    };
    let window = plan(sqlite::ops::WINDOW_SQL, &[&"\"cache\"", &2000]);
    let ranked = plan(&sqlite::ops::ranked_sql(1), &[&"\"cache\"", &10, &0, &",t,"]);
    for steps in [window, ranked] {
        assert!(
            steps.iter().all(|step| !step.contains("TEMP B-TREE")),
            "{steps:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_newest_matches_of_a_very_common_word_are_ranked() {
    let Setup { store, temp: _temp } = setup();
    write(&store, "Common common common, and rare.", None, &[]).await;
    let total = RANK_WINDOW + 9;
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..4 {
        let store = store.clone();
        tasks.spawn(async move {
            for i in (task..total).step_by(4) {
                let content = format!("Entry {i} has a common word.");
                store
                    .write(NewMemory::new(content, None, &[]).unwrap())
                    .await
                    .unwrap();
            }
        });
    }
    tasks.join_all().await;
    let out = search(&store, "common").await.unwrap();
    assert!(
        out.contains("\nOver 2000 memories match, so only the 2000 newest were ranked;"),
        "{out}"
    );
    assert!(listed_ids(&out).iter().all(|&id| id > 10), "{out}");
    assert_eq!(listed_ids(&search(&store, "common rare").await.unwrap()), [1]);
    let tagged = search_with(&store, "common", &["none"], None).await.unwrap();
    assert_eq!(tagged, "No memory tagged none matches `common`.");
}
