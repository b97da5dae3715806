//! A query's words as FTS5 expressions that cannot fail.
//!
//! FTS5's query language gives meaning to `"`, `*`, `^`, `:`, `(`, `)`, `-`, `+`, `AND`,
//! `OR`, `NOT` and `NEAR`; an unbalanced quote or a stray `:` is a syntax error, and
//! `col:x` names a column. So each word becomes one double-quoted string (a `"` inside
//! doubled), and inside quotes FTS5 only tokenizes.

use super::super::query::{QueryWords, segment};

/// Matches memories containing every word of `query` (and `tags`, see [`expression`]).
pub(super) fn all(query: &QueryWords, tags: &[String]) -> String {
    expression(query, " AND ", tags)
}

/// Matches memories containing any word of `query` (and `tags`).
pub(super) fn any(query: &QueryWords, tags: &[String]) -> String {
    expression(query, " OR ", tags)
}

/// The words joined by `operator`, and each tag as a phrase in the `labels` column.
///
/// The tags make FTS5 itself skip memories without them, so that BM25 ranks only
/// memories that can be listed. `labels` also holds the key, and `project-x` is the
/// phrase `project x` there, so this keeps a superset of the memories with the tags; the
/// exact test on the `tags` column follows in SQL.
fn expression(query: &QueryWords, operator: &str, tags: &[String]) -> String {
    let phrases: Vec<String> = query.words().iter().map(|word| quote(word)).collect();
    let words = phrases.join(operator);
    if tags.is_empty() {
        return words;
    }
    let labels: Vec<String> = tags
        .iter()
        .map(|tag| format!("labels : {}", quote(tag)))
        .collect();
    format!("({words}) AND {}", labels.join(" AND "))
}

/// One word as an FTS5 string: segmented, `"` doubled, in double quotes.
fn quote(word: &str) -> String {
    let segmented = segment(word);
    let mut quoted = String::with_capacity(segmented.len() + 2);
    quoted.push('"');
    for c in segmented.chars() {
        if c == '"' {
            quoted.push('"');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> QueryWords {
        QueryWords::parse(text).unwrap()
    }

    #[test]
    fn words_become_quoted_phrases() {
        let query = parse("deploy  script");
        assert_eq!(all(&query, &[]), r#""deploy" AND "script""#);
        assert_eq!(any(&query, &[]), r#""deploy" OR "script""#);
        let tags = ["ops".to_owned(), "say\"x".to_owned()];
        assert_eq!(
            any(&query, &tags),
            r#"("deploy" OR "script") AND labels : "ops" AND labels : "say""x""#
        );
    }

    #[test]
    fn syntax_is_quoted() {
        let query = parse(r#"NEAR(a b) say"hi" col:x - ( 🎉 a*"#);
        assert_eq!(
            all(&query, &[]),
            r#""NEAR(a" AND "b)" AND "say""hi""" AND "col:x" AND "a*""#
        );
        assert_eq!(all(&parse("中文"), &[]), "\"中\u{200B}文\"");
    }
}
