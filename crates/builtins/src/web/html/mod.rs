//! HTML to what a model wants to read: the page's main content as Markdown or plain text,
//! and its title.
//!
//! Most of a page is navigation, footers, scripts and ads. `dom_smoothie`, a port of
//! Mozilla's Readability (Firefox's reader view), finds the main content; its
//! `dom_query` document then serializes it to Markdown or formatted text. Pages
//! Readability finds no article in (a search form, a bare index) are serialized whole,
//! less the elements that are never content.
//!
//! A page is also input an attacker writes, and the steps after parsing are third-party
//! code that recurses over the tree and cannot be interrupted. So each step is bounded
//! by what it is given, and the raw page reaches only html5ever's tokenizer, fed by
//! our code:
//! - [`parse`] builds a tree of bounded depth and size, and stops at the deadline;
//! - [`shape`] measures it without recursion, and the converter chooses by the
//!   measure: Readability only where its work (the sum of the nodes' depths) is
//!   within budget, the whole page serialized otherwise, and plain text read with an
//!   explicit stack should the tree ever be deeper than the serializers may recurse;
//! - between steps, the [`Deadline`] is checked; the caller stops waiting at it in any
//!   case (`deadline::convert`), and the steps it cannot interrupt are bounded by the
//!   limits above (about a second for the worst pages of `benches/html.rs`, in an
//!   optimized build).
//!
//! What this does not do: keep the structure of a page past the limits — tags too deep,
//! too many, or nested lists too deep are dropped (their text is kept) and the output
//! says so.

mod parse;
mod shape;
mod title;

use dom_query::{Document, NodeRef};
use dom_smoothie::{Config, Readability, TextMode};

use self::parse::{Dropped, Limits, Parsed};
use self::shape::Shape;
pub(crate) use self::title::title as extract_title;
use crate::web::deadline::{Deadline, Stopped};

/// How much each step of a conversion may be given.
#[derive(Debug, Clone, Copy)]
struct Budget {
    /// The tree's.
    limits: Limits,
    /// Most work Readability is given, as the sum of the nodes' depths
    /// ([`Shape::ancestry`]).
    readability: usize,
    /// Deepest tree the serializers and Readability recurse over.
    recursion: usize,
}

impl Budget {
    /// Readability's budget is under a second in an optimized build (`benches/html.rs`);
    /// the article page of the tests sums to about a thousand, 100,000 paragraphs to 1.4
    /// million. The recursion limit is twice the deepest tree `parse` builds, and at
    /// about a kilobyte of stack per level (measured, debug build) a fraction of a 2 MiB
    /// thread stack.
    const DEFAULT: Self = Self {
        limits: Limits::DEFAULT,
        readability: 1_500_000,
        recursion: 2 * Limits::DEFAULT.max_depth,
    };
}

/// Page furniture, removed before Readability looks for the article: it is never the
/// content a reader wants, and on short pages Readability keeps it.
const FURNITURE: &str = "nav, aside, form, button, iframe, svg, canvas, dialog, [role=navigation], \
                         [role=banner], [role=contentinfo], [role=complementary], [role=search], \
                         [aria-hidden=true]";
/// Elements that hold code or styles rather than text; Readability drops them itself (after
/// reading the JSON-LD metadata in `<script>`), a whole-page serialization must.
const NOT_TEXT: &str = "script, style, noscript, template";

/// A page's content, converted (also what `web_fetch` makes of any textual body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    /// The page's title, if it has one.
    pub(crate) title: Option<String>,
    /// The main content, as Markdown or plain text.
    pub(crate) text: String,
    /// What the conversion left out or did differently, for the reader to know.
    pub(crate) notes: Vec<String>,
}

/// Extracts the main content of `html` (served from `url`, which resolves its relative
/// links) as Markdown, or as plain text when `markdown` is false; `Err` when `deadline`
/// passed first.
pub(crate) fn extract(html: &str, url: &str, markdown: bool, deadline: &Deadline) -> Result<Page, Stopped> {
    extract_within(html, url, markdown, Budget::DEFAULT, deadline)
}

fn extract_within(
    html: &str,
    url: &str,
    markdown: bool,
    budget: Budget,
    deadline: &Deadline,
) -> Result<Page, Stopped> {
    let Parsed { document, dropped } = parse::parse(html, budget.limits, deadline)?;
    let mut notes = dropped_notes(&dropped, &budget.limits);
    let shape = Shape::of(&document.root());
    deadline.check()?;
    if shape.depth > budget.recursion {
        notes.push(format!(
            "the page nests {} levels deep, too deep to convert; it is shown as plain text",
            shape.depth
        ));
        return Ok(Page {
            title: title_of(&document),
            text: tidy(&shape::text(&document.root())),
            notes,
        });
    }
    remove_furniture(&document);
    deadline.check()?;
    if shape.ancestry > budget.readability {
        notes.push(format!(
            "the page is too large to pick out its main content ({} elements); it is shown whole",
            shape.elements
        ));
        return Ok(whole_page(&document, markdown, notes));
    }
    Ok(readable(document, url, markdown, notes))
}

/// The main content as Readability finds it, or the whole page if it finds none.
fn readable(document: Document, url: &str, markdown: bool, notes: Vec<String>) -> Page {
    let text_mode = if markdown {
        TextMode::Markdown
    } else {
        TextMode::Formatted
    };
    let config = Config {
        text_mode,
        ..Config::default()
    };
    let article = Readability::with_document(document.clone(), Some(url), Some(config))
        .and_then(|mut reader| reader.parse());
    match article {
        Ok(article) if !article.text_content.trim().is_empty() => Page {
            title: non_empty(&article.title).or_else(|| title_of(&document)),
            text: tidy(&article.text_content),
            notes,
        },
        _ => whole_page(&document, markdown, notes),
    }
}

/// What the parser's limits dropped, said for the reader.
fn dropped_notes(dropped: &Dropped, limits: &Limits) -> Vec<String> {
    let mut notes = Vec::new();
    if dropped.too_deep > 0 {
        notes.push(format!(
            "the page nests elements more than {} deep; {} tags deeper than that were left out, their text kept",
            limits.max_depth, dropped.too_deep
        ));
    }
    if dropped.too_indented > 0 {
        notes.push(format!(
            "lists and quotes nest more than {} deep; {} deeper ones were left out, their text kept",
            limits.max_indents, dropped.too_indented
        ));
    }
    if dropped.past_node_limit > 0 {
        notes.push(format!(
            "the page has more than {} nodes; {} tags after that were left out, their text kept",
            limits.max_nodes, dropped.past_node_limit
        ));
    }
    notes
}

fn title_of(document: &Document) -> Option<String> {
    non_empty(&document.select("head title").text())
}

/// Removes [`FURNITURE`], and the page's own header and footer — but not the header of
/// an article, which holds its title.
fn remove_furniture(document: &Document) {
    document.select(FURNITURE).remove();
    for node in document
        .select("header, footer, [role=banner], [role=contentinfo]")
        .nodes()
    {
        let in_content = node
            .ancestors_it(None)
            .any(|ancestor| ancestor.has_name("article") || ancestor.has_name("main"));
        if !in_content {
            node.remove_from_parent();
        }
    }
}

/// The whole body, for pages Readability finds no article in or is not given.
fn whole_page(document: &Document, markdown: bool, notes: Vec<String>) -> Page {
    document.select(NOT_TEXT).remove();
    let body = document.select_single("body");
    let root: NodeRef<'_> = body.nodes().first().cloned().unwrap_or_else(|| document.root());
    let text = if markdown {
        root.md(None)
    } else {
        root.formatted_text()
    };
    Page {
        title: title_of(document),
        text: tidy(&text),
        notes,
    }
}

fn non_empty(text: &str) -> Option<String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// Trailing spaces removed and runs of blank lines collapsed to one.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.trim().lines() {
        let line = line.trim_end();
        blank_run = if line.is_empty() { blank_run + 1 } else { 0 };
        if blank_run <= 1 {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_without_an_article_is_kept_whole_less_its_noise() {
        let html = "<html><head><title> Search </title><style>p{}</style></head><body>\
                    <nav><a href=/>Home</a></nav><h1>Find</h1><p>Type a query.</p>\
                    <script>track()</script><footer>(c) 2024</footer></body></html>";
        let page = extract(html, "https://example.com/", true, &Deadline::none()).unwrap();
        assert_eq!(page.title.as_deref(), Some("Search"));
        assert!(page.text.contains("Find"), "{}", page.text);
        assert!(page.text.contains("Type a query."), "{}", page.text);
        for noise in ["Home", "track", "(c) 2024", "p{}"] {
            assert!(!page.text.contains(noise), "{noise} in {}", page.text);
        }
    }

    const ARTICLE: &str = include_str!("../../../tests/fixtures/web/article.html");

    fn extract_with(html: &str, budget: Budget) -> Page {
        extract_within(html, "https://example.com/", true, budget, &Deadline::none()).unwrap()
    }

    #[test]
    fn a_normal_page_converts_without_notes() {
        let page = extract_with(ARTICLE, Budget::DEFAULT);
        assert_eq!(page.notes, Vec::<String>::new());
        assert!(
            page.text.starts_with("Every winter, the rocky shores"),
            "{}",
            page.text
        );
    }

    #[test]
    fn over_its_budget_readability_is_skipped_and_the_page_shown_whole() {
        let budget = Budget {
            readability: 100,
            ..Budget::DEFAULT
        };
        let page = extract_with(ARTICLE, budget);
        assert_eq!(page.notes.len(), 1, "{:?}", page.notes);
        assert!(page.notes[0].contains("it is shown whole"), "{:?}", page.notes);
        // The article is there, and what Readability would have cut besides it, less the
        // furniture that is removed either way.
        assert!(
            page.text.contains("Every winter, the rocky shores"),
            "{}",
            page.text
        );
        assert!(page.text.contains("We use cookies"), "{}", page.text);
        assert!(!page.text.contains("Search the site"), "{}", page.text);
    }

    #[test]
    fn a_tree_deeper_than_the_recursion_limit_is_read_as_plain_text() {
        // The parser's limit raised past the converter's, as if a tree builder step had
        // built deeper than the parser foresaw.
        let budget = Budget {
            limits: Limits {
                max_depth: 10_000,
                ..Limits::DEFAULT
            },
            recursion: 100,
            ..Budget::DEFAULT
        };
        let html = format!(
            "<title>Deep</title>{}bottom{}",
            "<div>".repeat(500),
            "</div>".repeat(500)
        );
        let page = extract_with(&html, budget);
        assert_eq!(page.title.as_deref(), Some("Deep"));
        assert_eq!(page.text, "bottom\n");
        assert_eq!(page.notes.len(), 1, "{:?}", page.notes);
        assert!(page.notes[0].contains("shown as plain text"), "{:?}", page.notes);
    }

    #[test]
    fn what_the_limits_dropped_is_noted() {
        let html = format!(
            "<title>Deep</title>{}{}bottom{}{}",
            "<ul><li>".repeat(30),
            "<div>".repeat(300),
            "</div>".repeat(300),
            "</li></ul>".repeat(30)
        );
        let page = extract_with(&html, Budget::DEFAULT);
        assert!(page.text.contains("bottom"), "{}", page.text);
        let notes = page.notes.join("\n");
        assert!(notes.contains("more than 256 deep;"), "{notes}");
        assert!(
            notes.contains("lists and quotes nest more than 16 deep;"),
            "{notes}"
        );
    }

    #[test]
    fn blank_lines_are_collapsed() {
        assert_eq!(tidy("\n a  \n\n\n\nb\n\n"), "a\n\nb\n");
    }
}
