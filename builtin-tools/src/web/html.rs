//! HTML to what a model wants to read: the page's main content as Markdown or plain text,
//! and its title.
//!
//! Most of a page is navigation, footers, scripts and ads. `dom_smoothie`, a port of
//! Mozilla's Readability (Firefox's reader view), finds the main content; its
//! `dom_query` document then serializes it to Markdown or formatted text. Pages
//! Readability finds no article in (a search form, a bare index) are serialized whole,
//! less the elements that are never content.

use dom_query::{Document, NodeRef};
use dom_smoothie::{Config, Readability, TextMode};

/// Page furniture, removed before Readability looks for the article: it is never the
/// content a reader wants, and on short pages Readability keeps it.
const FURNITURE: &str = "nav, aside, form, button, iframe, svg, canvas, dialog, [role=navigation], \
                         [role=banner], [role=contentinfo], [role=complementary], [role=search], \
                         [aria-hidden=true]";
/// Elements that hold code or styles rather than text; Readability drops them itself (after
/// reading the JSON-LD metadata in `<script>`), a whole-page serialization must.
const NOT_TEXT: &str = "script, style, noscript, template";

/// A page's content, converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    /// The page's title, if it has one.
    pub(crate) title: Option<String>,
    /// The main content, as Markdown or plain text.
    pub(crate) text: String,
}

/// Extracts the main content of `html` (served from `url`, which resolves its relative
/// links) as Markdown, or as plain text when `markdown` is false.
pub(crate) fn extract(html: &str, url: &str, markdown: bool) -> Page {
    let document = Document::from(html);
    remove_furniture(&document);
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
        },
        _ => whole_page(&document, markdown),
    }
}

/// The text of a page's `<title>`, whitespace collapsed.
pub(crate) fn extract_title(html: &str) -> Option<String> {
    title_of(&Document::from(html))
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

/// The whole body, for pages Readability finds no article in.
fn whole_page(document: &Document, markdown: bool) -> Page {
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
        let page = extract(html, "https://example.com/", true);
        assert_eq!(page.title.as_deref(), Some("Search"));
        assert!(page.text.contains("Find"), "{}", page.text);
        assert!(page.text.contains("Type a query."), "{}", page.text);
        for noise in ["Home", "track", "(c) 2024", "p{}"] {
            assert!(!page.text.contains(noise), "{noise} in {}", page.text);
        }
    }

    #[test]
    fn blank_lines_are_collapsed() {
        assert_eq!(tidy("\n a  \n\n\n\nb\n\n"), "a\n\nb\n");
    }
}
