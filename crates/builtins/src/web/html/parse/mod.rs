//! HTML to a tree of bounded depth and size, built within a deadline.
//!
//! A page can nest elements a hundred thousand deep in a megabyte. html5ever's tree
//! builder walks its stack of open elements for scope checks, so deep nesting costs it
//! time quadratic in the depth, and everything after it that recurses over the tree (the
//! Markdown and text serializers, Readability) overflows the stack. Rather than repair a
//! deep tree, this parser never builds one: the tokenizer's tokens pass through a
//! [`Filter`] on their way to the tree builder, which drops start tags (and their end
//! tags) once the builder's stack is full, keeping their text. The filter asks the tree
//! builder itself how full the stack is, counting the open elements and the active
//! formatting elements it could reopen (`trace_handles`), so implied elements, reopened
//! formatting elements and implicitly closed ones (`<p>`, `<li>`, `<td>` without end tags)
//! count as they really are, not as a model of the algorithm would guess.
//!
//! The filter also bounds the rest of the tree's shape, each for a step after parsing:
//! - lists and block quotes nest at most [`Limits::max_indents`] deep: each level
//!   indents every line under it in Markdown, so deep ones grow the output quadratically;
//! - past [`Limits::max_nodes`] nodes, tags and comments are dropped and the rest of the
//!   page is kept as text, so that a flat page of millions of elements stays a tree the
//!   serializers get through in time;
//! - attributes longer than [`Limits::max_attribute_bytes`] are dropped (a megabyte
//!   `data:` URL or `style` is not content), and at most [`Limits::max_attributes`] are
//!   kept per element.
//!
//! The filter keeps the tree builder's feedback intact: when it drops a `<script>`,
//! `<style>`, `<textarea>` (…) start tag it switches the tokenizer to the raw-text state
//! the tree builder would have chosen, so what follows is still read as that element's
//! content (and a dropped script's code is not shown as text).
//!
//! Time: the filter checks the [`Deadline`] every few tokens and the input is fed in
//! small chunks, with a check between chunks, so a stopped parse ends within about one
//! chunk's work. What it does not bound: html5ever's tokenizer checks each attribute of
//! a tag against those before it, so a single tag with a hundred thousand attributes
//! costs quadratic time before the filter sees it; the chunked feeding lets the deadline
//! stop that too, but such a page ends with the deadline's message, not content.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use dom_query::{Document, NodeId};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{Tracer, TreeBuilder, TreeBuilderOpts};
use html5ever::{LocalName, TokenizerResult, local_name};

use crate::web::deadline::{Deadline, Stopped};

/// How large a tree [`parse`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Most open elements (and reopenable formatting elements) the tree builder holds;
    /// the tree's depth stays within a few levels of it.
    pub(crate) max_depth: usize,
    /// Most lists (`ul`, `ol`, `menu`, `dl`) and `blockquote`s open at once.
    pub(crate) max_indents: usize,
    /// Most nodes (elements, text, comments) before the rest is kept as text.
    pub(crate) max_nodes: usize,
    /// Longest attribute (name and value) kept, in bytes.
    pub(crate) max_attribute_bytes: usize,
    /// Most attributes kept per element.
    pub(crate) max_attributes: usize,
}

impl Limits {
    /// The limits `web_fetch` converts pages with. The depth is half of the 512 Blink
    /// nests its DOM to, which real pages stay far below, and keeps the serializers'
    /// recursion (about a kilobyte of stack per level) a small part of a 2 MiB thread
    /// stack. Sixteen levels of lists are more than documents use, and 64 spaces of
    /// indent per line at most. Half a million nodes is several times a long article,
    /// and the largest page `benches/html.rs` converts with them takes about a second in
    /// an optimized build. 8 KiB keeps long links and drops inline data (`data:` URLs,
    /// serialized application state), which is not content.
    pub(crate) const DEFAULT: Self = Self {
        max_depth: 256,
        max_indents: 16,
        max_nodes: 500_000,
        max_attribute_bytes: 8 * 1024,
        max_attributes: 64,
    };
}

/// What the filter dropped to keep the tree within its [`Limits`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Dropped {
    /// Start tags past the depth limit.
    pub(crate) too_deep: usize,
    /// Start tags of lists and quotes past the indent limit.
    pub(crate) too_indented: usize,
    /// Tags and comments past the node limit (the text after them is kept).
    pub(crate) past_node_limit: usize,
}

/// A parsed page and what was left out of it.
pub(crate) struct Parsed {
    /// The tree.
    pub(crate) document: Document,
    /// What the limits dropped.
    pub(crate) dropped: Dropped,
}

/// Bytes fed to the tokenizer at a time, between deadline checks: small enough that the
/// slowest known token work (the quadratic attribute check) stays well under a second
/// per chunk, large enough that feeding costs nothing next to parsing.
const CHUNK_BYTES: usize = 1024;
/// Tokens between deadline checks in the filter.
const TOKENS_PER_CHECK: u32 = 256;

/// Parses `html` into a tree within `limits`, or stops at `deadline`.
pub(crate) fn parse(html: &str, limits: Limits, deadline: &Deadline) -> Result<Parsed, Stopped> {
    let opts = TreeBuilderOpts {
        // As `dom_query` parses: `<noscript>` content is markup, as a reader without
        // scripts sees it.
        scripting_enabled: false,
        ..TreeBuilderOpts::default()
    };
    let builder = TreeBuilder::new(Document::default(), opts);
    let tokenizer = Tokenizer::new(Filter::new(builder, limits, deadline), TokenizerOpts::default());
    feed(&tokenizer, html, deadline, |_| false)?;
    tokenizer.end();
    let filter = tokenizer.sink;
    Ok(Parsed {
        dropped: filter.dropped.get(),
        document: filter.builder.sink,
    })
}

/// Feeds `html` to `tokenizer` in chunks, checking `deadline` between them, until the
/// end or until `enough` says the sink has what it wanted.
pub(crate) fn feed<S: TokenSink>(
    tokenizer: &Tokenizer<S>,
    html: &str,
    deadline: &Deadline,
    enough: impl Fn(&S) -> bool,
) -> Result<(), Stopped> {
    let whole = StrTendril::from_slice(html);
    let input = BufferQueue::default();
    let mut start = 0;
    while start < html.len() && !enough(&tokenizer.sink) {
        deadline.check()?;
        let mut end = (start + CHUNK_BYTES).min(html.len());
        while !html.is_char_boundary(end) {
            end += 1;
        }
        input.push_back(whole.subtendril(start as u32, (end - start) as u32));
        // `Script` and encoding results ask the caller to act and resume; neither applies
        // to a page that is only read.
        while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
        start = end;
    }
    deadline.check()
}

/// Elements that never have content or an end tag: they never deepen the tree.
fn is_void(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("area")
            | local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("frame")
            | local_name!("hr")
            | local_name!("image")
            | local_name!("img")
            | local_name!("input")
            | local_name!("keygen")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("param")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
    )
}

/// Elements whose every level indents the lines under it in Markdown.
fn indents(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("ul")
            | local_name!("ol")
            | local_name!("menu")
            | local_name!("dl")
            | local_name!("blockquote")
    )
}

/// How the tokenizer reads the content of an element the tree builder would have
/// switched it for, and whether that content is text a reader sees.
fn raw_content(name: &LocalName) -> Option<(TokenSinkResult<NodeId>, bool)> {
    let raw = |kind| TokenSinkResult::RawData(kind);
    Some(match *name {
        local_name!("script") => (raw(RawKind::ScriptData), false),
        local_name!("style") | local_name!("iframe") | local_name!("noembed") | local_name!("noframes") => {
            (raw(RawKind::Rawtext), false)
        }
        local_name!("xmp") => (raw(RawKind::Rawtext), true),
        local_name!("title") | local_name!("textarea") => (raw(RawKind::Rcdata), true),
        local_name!("plaintext") => (TokenSinkResult::Plaintext, true),
        _ => return None,
    })
}

/// Counts the handles the tree builder holds: its open elements, its active formatting
/// elements (which it reopens when text follows), the document and the head and form
/// pointers.
#[derive(Default)]
struct Count(Cell<usize>);

impl Tracer for Count {
    type Handle = NodeId;

    fn trace_handle(&self, _: &NodeId) {
        self.0.set(self.0.get() + 1);
    }
}

/// The token sink between the tokenizer and the tree builder that keeps the tree
/// within [`Limits`].
struct Filter<'d> {
    builder: TreeBuilder<NodeId, Document>,
    limits: Limits,
    deadline: &'d Deadline,
    /// Start tags dropped and not yet closed, by name: their end tags are dropped too, so
    /// that they do not close an element that was kept.
    unclosed: RefCell<HashMap<LocalName, usize>>,
    /// Inside a dropped element whose content is not text (`<script>`): its content is
    /// dropped with it.
    in_dropped_raw: Cell<bool>,
    /// Lists and quotes forwarded and not yet closed.
    indents: Cell<usize>,
    /// The builder's stack was full when last counted, and no tag was forwarded since
    /// (only a tag can make room): start tags are dropped without counting again.
    full: Cell<bool>,
    /// The deadline passed: every token is dropped, and the feeding stops.
    stopped: Cell<bool>,
    tokens: Cell<u32>,
    dropped: Cell<Dropped>,
}

impl<'d> Filter<'d> {
    fn new(builder: TreeBuilder<NodeId, Document>, limits: Limits, deadline: &'d Deadline) -> Self {
        Self {
            builder,
            limits,
            deadline,
            unclosed: RefCell::default(),
            in_dropped_raw: Cell::new(false),
            indents: Cell::new(0),
            full: Cell::new(false),
            stopped: Cell::new(false),
            tokens: Cell::new(0),
            dropped: Cell::default(),
        }
    }

    fn note(&self, count: impl FnOnce(&mut Dropped)) {
        let mut dropped = self.dropped.get();
        count(&mut dropped);
        self.dropped.set(dropped);
    }

    /// The deadline has passed; looked at every [`TOKENS_PER_CHECK`] tokens.
    fn out_of_time(&self) -> bool {
        if !self.stopped.get() {
            let tokens = self.tokens.get().wrapping_add(1);
            self.tokens.set(tokens);
            if tokens.is_multiple_of(TOKENS_PER_CHECK) && self.deadline.passed() {
                self.stopped.set(true);
            }
        }
        self.stopped.get()
    }

    fn past_node_limit(&self) -> bool {
        self.builder.sink.tree.len() >= self.limits.max_nodes
    }

    /// The builder's stack is at the depth limit.
    fn stack_full(&self) -> bool {
        if !self.full.get() {
            let count = Count::default();
            self.builder.trace_handles(&count);
            self.full.set(count.0.get() >= self.limits.max_depth);
        }
        self.full.get()
    }

    fn forward(&self, token: Token, line: u64) -> TokenSinkResult<NodeId> {
        self.builder.process_token(token, line)
    }

    fn start_tag(&self, mut tag: Tag, line: u64) -> TokenSinkResult<NodeId> {
        self.trim_attributes(&mut tag);
        let nests = !is_void(&tag.name) && !tag.self_closing;
        let Some(limit) = self.limit_reached(&tag.name, nests) else {
            if nests && indents(&tag.name) {
                self.indents.set(self.indents.get() + 1);
            }
            self.full.set(false);
            return self.forward(Token::TagToken(tag), line);
        };
        self.note(|dropped| match limit {
            Limit::Nodes => dropped.past_node_limit += 1,
            Limit::Indents => dropped.too_indented += 1,
            Limit::Depth => dropped.too_deep += 1,
        });
        if !nests {
            return TokenSinkResult::Continue;
        }
        *self.unclosed.borrow_mut().entry(tag.name.clone()).or_default() += 1;
        match raw_content(&tag.name) {
            Some((state, is_text)) => {
                self.in_dropped_raw.set(!is_text);
                state
            }
            None => TokenSinkResult::Continue,
        }
    }

    /// The limit a start tag named `name` would go past, if any.
    fn limit_reached(&self, name: &LocalName, nests: bool) -> Option<Limit> {
        if self.past_node_limit() {
            Some(Limit::Nodes)
        } else if nests && indents(name) && self.indents.get() >= self.limits.max_indents {
            Some(Limit::Indents)
        } else if nests && self.stack_full() {
            Some(Limit::Depth)
        } else {
            None
        }
    }

    fn end_tag(&self, tag: Tag, line: u64) -> TokenSinkResult<NodeId> {
        if let Some(open) = self
            .unclosed
            .borrow_mut()
            .get_mut(&tag.name)
            .filter(|open| **open > 0)
        {
            *open -= 1;
            self.in_dropped_raw.set(false);
            return TokenSinkResult::Continue;
        }
        if self.past_node_limit() {
            self.note(|dropped| dropped.past_node_limit += 1);
            return TokenSinkResult::Continue;
        }
        if indents(&tag.name) {
            self.indents.set(self.indents.get().saturating_sub(1));
        }
        self.full.set(false);
        self.forward(Token::TagToken(tag), line)
    }

    /// Drops attributes too long to be content, and those past the count per element.
    fn trim_attributes(&self, tag: &mut Tag) {
        let max_bytes = self.limits.max_attribute_bytes;
        tag.attrs
            .retain(|attribute| attribute.name.local.len() + attribute.value.len() <= max_bytes);
        tag.attrs.truncate(self.limits.max_attributes);
    }
}

/// Which of the [`Limits`] a tag was dropped for.
enum Limit {
    Nodes,
    Indents,
    Depth,
}

impl TokenSink for Filter<'_> {
    type Handle = NodeId;

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<NodeId> {
        if self.out_of_time() {
            return TokenSinkResult::Continue;
        }
        match token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => self.start_tag(tag, line),
            Token::TagToken(tag) => self.end_tag(tag, line),
            // The document keeps every parse error; nothing here reads them.
            Token::ParseError(_) => TokenSinkResult::Continue,
            Token::CharacterTokens(_) | Token::NullCharacterToken if self.in_dropped_raw.get() => {
                TokenSinkResult::Continue
            }
            Token::CommentToken(_) if self.past_node_limit() => {
                self.note(|dropped| dropped.past_node_limit += 1);
                TokenSinkResult::Continue
            }
            token => self.forward(token, line),
        }
    }

    fn end(&self) {
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

#[cfg(test)]
mod tests;
