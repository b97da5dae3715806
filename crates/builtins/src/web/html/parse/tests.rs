//! The token filter against each shape of tree it bounds, with small limits so that a
//! page of a few thousand tags reaches them; and against real pages, which it must
//! leave exactly as the unfiltered parser builds them.

use dom_query::{Document, NodeRef};

use std::cell::Cell;
use std::time::Instant;

use html5ever::tokenizer::{Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{LocalName, local_name};

use super::{Dropped, Filter, Limits, Parsed, TOKENS_PER_CHECK, feed, parse};
use crate::web::deadline::{Deadline, Stopped};
use crate::web::html::shape::Shape;

const ARTICLE: &str = include_str!("../../../../tests/fixtures/web/article.html");
const DOCS: &str = include_str!("../../../../tests/fixtures/web/docs.html");

const SMALL: Limits = Limits {
    max_depth: 16,
    max_indents: 4,
    max_nodes: 10_000,
    max_attribute_bytes: 64,
    max_attributes: 3,
};

fn parsed(html: &str) -> Parsed {
    parse(html, SMALL, &Deadline::none()).unwrap()
}

fn shape(document: &Document) -> Shape {
    Shape::of(&document.root())
}

fn count(document: &Document, selector: &str) -> usize {
    document.select(selector).length()
}

fn parent_name(node: &NodeRef<'_>) -> String {
    node.parent()
        .and_then(|parent| parent.node_name())
        .map(|name| name.to_string())
        .unwrap_or_default()
}

#[test]
fn real_pages_are_built_exactly_as_without_the_filter() {
    for page in [ARTICLE, DOCS] {
        let Parsed { document, dropped } = parse(page, Limits::DEFAULT, &Deadline::none()).unwrap();
        assert_eq!(dropped, Dropped::default());
        assert_eq!(document.html(), Document::from(page).html());
    }
}

#[test]
fn deep_nesting_stops_at_the_depth_limit_and_keeps_the_text() {
    for (open, close) in [
        ("<div>", "</div>"),
        ("<span>", "</span>"),
        ("<table><tr><td>", "</td></tr></table>"),
        ("<svg><g>", "</g></svg>"),
        ("<b><i>", "</i></b>"),
    ] {
        let html = format!(
            "{}deep{}<p id=after>after</p>",
            open.repeat(5000),
            close.repeat(5000)
        );
        let Parsed { document, dropped } = parsed(&html);
        let depth = shape(&document).depth;
        // The limit counts the builder's open elements; html, body and the text are
        // around them, and tables add the `tbody` the parser implies.
        assert!(depth <= SMALL.max_depth + 4, "{open}: depth {depth}");
        assert!(dropped.too_deep > 4000, "{open}: {dropped:?}");
        assert!(document.select("body").text().contains("deep"), "{open}");
        // The end tags of dropped start tags were dropped too: the kept elements close
        // where they should, and what follows is back in the body.
        let after = document.select("#after").nodes()[0];
        assert_eq!(parent_name(&after), "body", "{open}");
    }
}

#[test]
fn the_end_tag_of_a_dropped_element_closes_nothing_kept() {
    // The stack fills before the twentieth `<div>`: the last one is dropped, and its
    // `</div>` must not close the deepest kept one, or "after" would land outside it.
    let html = format!("{}<div>inner</div>after", "<div>".repeat(20));
    let Parsed { document, dropped } = parsed(&html);
    assert!(dropped.too_deep > 1, "{dropped:?}");
    let deepest = document.select("div").nodes().last().copied().unwrap();
    assert_eq!(deepest.text().to_string(), "innerafter");
}

#[test]
fn implicitly_closed_elements_do_not_count_as_nesting() {
    let html = format!(
        "<ul>{}</ul><table>{}</table><p>{}",
        "<li>item".repeat(1000),
        "<tr><td>cell".repeat(1000),
        "<p>para".repeat(1000)
    );
    let Parsed { document, dropped } = parsed(&html);
    assert_eq!(dropped, Dropped::default());
    assert_eq!(count(&document, "li"), 1000);
    assert_eq!(count(&document, "td"), 1000);
    assert_eq!(count(&document, "p"), 1001);
}

#[test]
fn reopened_formatting_elements_count_as_nesting() {
    // Each `<b>` is closed by `</p>` but stays active, and the parser reopens every
    // active one in each later paragraph: without a limit, n paragraphs hold n²/2
    // elements.
    let html: String = (0..2000).map(|i| format!("<p><b id=b{i}>x{i}</p>")).collect();
    let Parsed { document, dropped } = parsed(&html);
    assert!(shape(&document).depth <= SMALL.max_depth + 4);
    assert!(
        count(&document, "b") < 2000 * SMALL.max_depth,
        "{}",
        count(&document, "b")
    );
    assert!(dropped.too_deep > 0);
    assert!(document.select("body").text().contains("x1999"));
}

#[test]
fn lists_and_quotes_stop_at_the_indent_limit() {
    let html = format!(
        "{}deep list{}{}deep quote{}",
        "<ul><li>".repeat(50),
        "</li></ul>".repeat(50),
        "<blockquote>".repeat(50),
        "</blockquote>".repeat(50)
    );
    let Parsed { document, dropped } = parsed(&html);
    assert_eq!(count(&document, "ul"), SMALL.max_indents);
    assert_eq!(count(&document, "blockquote"), SMALL.max_indents);
    assert_eq!(dropped.too_indented, 2 * (50 - SMALL.max_indents));
    let text = document.select("body").text();
    assert!(
        text.contains("deep list") && text.contains("deep quote"),
        "{text}"
    );
}

#[test]
fn past_the_node_limit_the_rest_is_text() {
    let html = format!("{}<p>last</p>", "<i>x</i><!-- c -->".repeat(20_000));
    let Parsed { document, dropped } = parsed(&html);
    assert!(
        document.tree.len() <= SMALL.max_nodes + 8,
        "{}",
        document.tree.len()
    );
    assert!(dropped.past_node_limit > 0);
    let text = document.select("body").text();
    assert_eq!(text.matches('x').count(), 20_000);
    assert!(text.ends_with("last"), "{}", &text[text.len() - 20..]);
}

#[test]
fn long_attributes_and_too_many_are_dropped() {
    let long = "A".repeat(SMALL.max_attribute_bytes);
    let html = format!("<a href=/short title=\"{long}\" a=1 b=2 c=3 d=4>link</a>");
    let Parsed { document, .. } = parsed(&html);
    let link = document.select("a").nodes()[0];
    let names: Vec<String> = link
        .attrs()
        .iter()
        .map(|attr| attr.name.local.to_string())
        .collect();
    assert_eq!(names, ["href", "a", "b"]);
}

#[test]
fn a_dropped_script_or_style_keeps_its_content_out_of_the_text() {
    let html = format!(
        "{}<script>if (a<b) document.write(\"<p>boo</p>\")</script><style>p{{}}</style>\
         <textarea>a <b>c</b></textarea>tail",
        "<div>".repeat(100)
    );
    let Parsed { document, dropped } = parsed(&html);
    assert!(dropped.too_deep >= 3, "{dropped:?}");
    let text = document.select("body").text();
    assert!(
        !text.contains("boo") && !text.contains("write") && !text.contains("p{}"),
        "{text}"
    );
    assert!(text.contains("a <b>c</b>tail"), "{text}");
    assert_eq!(count(&document, "p, b"), 0);
}

#[test]
fn a_passed_deadline_stops_the_parse() {
    let passed = Deadline::at(Instant::now());
    assert!(matches!(parse("<p>x</p>", SMALL, &passed), Err(Stopped)));
}

/// A sink that counts the tokens it is given.
#[derive(Default)]
struct Counting(Cell<usize>);

impl TokenSink for Counting {
    type Handle = ();

    fn process_token(&self, _: Token, _: u64) -> TokenSinkResult<()> {
        self.0.set(self.0.get() + 1);
        TokenSinkResult::Continue
    }
}

#[test]
fn feeding_stops_between_chunks_once_the_deadline_passed() {
    let tokenizer = Tokenizer::new(Counting::default(), TokenizerOpts::default());
    let html = "<p>x</p>".repeat(100_000);
    let passed = Deadline::at(Instant::now());
    assert_eq!(feed(&tokenizer, &html, &passed, |_| false), Err(Stopped));
    assert_eq!(tokenizer.sink.0.get(), 0);
    // And `enough` stops it too, within a chunk of the moment it says so.
    let tokenizer = Tokenizer::new(Counting::default(), TokenizerOpts::default());
    assert_eq!(
        feed(&tokenizer, &html, &Deadline::none(), |sink| sink.0.get() > 0),
        Ok(())
    );
    assert!(tokenizer.sink.0.get() < 1000, "{}", tokenizer.sink.0.get());
}

fn start_tag(name: LocalName) -> Token {
    Token::TagToken(Tag {
        kind: TagKind::StartTag,
        name,
        self_closing: false,
        attrs: Vec::new(),
        had_duplicate_attributes: false,
    })
}

#[test]
fn the_filter_drops_every_token_once_it_sees_the_deadline_passed() {
    // Within one chunk: the filter looks at the deadline itself, every few tokens.
    let builder = TreeBuilder::new(Document::default(), TreeBuilderOpts::default());
    let passed = Deadline::at(Instant::now());
    let filter = Filter::new(builder, Limits::DEFAULT, &passed);
    for _ in 0..10 * TOKENS_PER_CHECK {
        let _ = filter.process_token(start_tag(local_name!("p")), 1);
    }
    let elements = filter.builder.sink.select("p").length();
    assert!(elements < TOKENS_PER_CHECK as usize, "{elements}");
}
