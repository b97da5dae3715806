//! A page's `<title>`, read from its tokens without building a tree.
//!
//! `format = raw` returns the markup as sent and needs only the title for its header:
//! building the whole tree for it would cost a hostile page's full parse for one line.
//! The tokens are enough, because the title that counts is in the head, and the head
//! ends at the first token that belongs to the body — the scan stops there, or at the
//! title's end, whichever comes first. It switches the tokenizer into the raw-text states
//! of the head's elements (`<title>`, `<script>`, `<style>`) as the tree builder would,
//! so markup inside a script is not mistaken for the body.

use std::cell::{Cell, RefCell};

use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use html5ever::{LocalName, local_name};

use super::parse::feed;
use crate::web::deadline::{Deadline, Stopped};

/// The text of the page's first `<title>` in its head, or `None` if it has none (or
/// an empty one); `Err` only when `deadline` passed first.
pub(crate) fn title(html: &str, deadline: &Deadline) -> Result<Option<String>, Stopped> {
    let tokenizer = Tokenizer::new(TitleSink::default(), TokenizerOpts::default());
    feed(&tokenizer, html, deadline, |sink| sink.done.get())?;
    let text = tokenizer.sink.text.into_inner();
    Ok(text.and_then(|text| super::non_empty(&text)))
}

#[derive(Default)]
struct TitleSink {
    /// The title's text so far, once its start tag was seen.
    text: RefCell<Option<String>>,
    /// Inside `<title>`.
    in_title: Cell<bool>,
    /// Inside a `<script>`, `<style>` or `<noframes>`, whose text is not the body's.
    in_raw: Cell<bool>,
    /// The title ended, or the body began: nothing more to read.
    done: Cell<bool>,
}

/// Elements a head holds; any other start tag begins the body.
fn in_head(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("html")
            | local_name!("head")
            | local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("noscript")
            | local_name!("template")
            | local_name!("title")
            | local_name!("script")
            | local_name!("style")
            | local_name!("noframes")
    )
}

impl TitleSink {
    fn start_tag(&self, name: &LocalName) -> TokenSinkResult<()> {
        match *name {
            local_name!("title") => {
                self.in_title.set(true);
                self.text.borrow_mut().get_or_insert_default();
                TokenSinkResult::RawData(RawKind::Rcdata)
            }
            local_name!("script") => {
                self.in_raw.set(true);
                TokenSinkResult::RawData(RawKind::ScriptData)
            }
            local_name!("style") | local_name!("noframes") => {
                self.in_raw.set(true);
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            _ => {
                self.done.set(!in_head(name));
                TokenSinkResult::Continue
            }
        }
    }
}

impl TokenSink for TitleSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if self.done.get() {
            return TokenSinkResult::Continue;
        }
        match token {
            Token::TagToken(tag) if tag.kind == TagKind::StartTag => return self.start_tag(&tag.name),
            Token::TagToken(tag) if tag.name == local_name!("title") => self.done.set(true),
            // In a raw-text state the tokenizer emits only the element's own end tag.
            Token::TagToken(_) => self.in_raw.set(false),
            Token::CharacterTokens(text) if self.in_title.get() => {
                if let Some(title) = self.text.borrow_mut().as_mut() {
                    title.push_str(&text);
                }
            }
            Token::CharacterTokens(_) if self.in_raw.get() => {}
            // Text outside the head's raw-text elements is the body's.
            Token::CharacterTokens(text) => self.done.set(!text.trim().is_empty()),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(html: &str) -> Option<String> {
        title(html, &Deadline::none()).unwrap()
    }

    #[test]
    fn the_head_title_is_found_with_entities_decoded_and_space_collapsed() {
        let html =
            "<!doctype html><html><head><meta charset=utf-8><title>\n Fish &amp; <b>chips</b> \n</title>";
        assert_eq!(of(html).as_deref(), Some("Fish & <b>chips</b>"));
        assert_eq!(of("<title>Bare</title><p>x").as_deref(), Some("Bare"));
        assert_eq!(
            of("<head></head><title>After head</title>").as_deref(),
            Some("After head")
        );
    }

    #[test]
    fn a_title_in_the_body_or_in_a_script_is_not_the_page_title() {
        assert_eq!(of("<html><body><svg><title>Icon</title></svg>"), None);
        assert_eq!(of("Some text<title>Late</title>"), None);
        assert_eq!(
            of("<script>document.write('<title>No</title>')</script><title>Yes</title>").as_deref(),
            Some("Yes")
        );
        assert_eq!(of("<style>p{}</style><title>Yes</title>").as_deref(), Some("Yes"));
        assert_eq!(of("<title> </title>"), None);
    }

    #[test]
    fn the_scan_stops_at_the_body() {
        let html = format!(
            "<title>T</title><body>{}<title>Not this</title>",
            "<div>".repeat(1 << 16)
        );
        assert_eq!(of(&html).as_deref(), Some("T"));
        assert_eq!(of("<title>Unclosed").as_deref(), Some("Unclosed"));
    }
}
