//! `read_file`: a text file as numbered lines, one page at a time.
//!
//! Files are streamed, never loaded whole: the page is collected and the remaining lines
//! only counted, so the header can say "lines 1–2000 of 48213" for a file of any size.
//! Lines are read in bounded memory too (`lines.rs`): of a line only what is shown is
//! kept, so a file of one 4 GiB line costs as little as any other.
//! Images come back as image content; other binary files are refused with their type and
//! size, since their bytes would only waste the model's context.

use std::io::{BufRead, BufReader, Read};

use crate::{Workspace, WorkspaceError};
use agent_tools_core::{
    ToolError, ToolOutput,
    output::{Content, Image},
};
use schemars::JsonSchema;
use serde::Deserialize;

use self::lines::BoundedLines;
use crate::file_kind::{FileKind, sniff};
use crate::text_format::{cut_line, human_size};

mod lines;

/// Lines returned when the call does not say.
pub(crate) const DEFAULT_LIMIT: u32 = 2000;
/// Longest line shown whole, in characters.
const MAX_LINE_CHARS: usize = 2000;
/// Bytes kept of a line: enough for [`MAX_LINE_CHARS`] characters of any width.
const KEEP_LINE_BYTES: usize = MAX_LINE_CHARS * 4;
/// Most text returned by one call.
const MAX_OUTPUT_BYTES: usize = 256 * 1024;
/// Largest image returned as image content.
const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ReadFileArgs {
    /// Path of the file, relative to the workspace root.
    pub path: String,
    /// First line to return, 1-based. Default 1.
    #[schemars(range(min = 1))]
    pub offset: Option<u32>,
    /// How many lines to return. Default 2000.
    #[schemars(range(min = 1, max = 5000))]
    pub limit: Option<u32>,
}

/// Reads a page of a text file (or an image) from the workspace. A page stops at
/// [`MAX_OUTPUT_BYTES`], or sooner at `budget_bytes`, what the call's result budget holds
/// ([`ResultBudget::text_bytes`](agent_tools_core::tokens::ResultBudget::text_bytes)): the
/// page then says where to go on, rather than the registry cutting it.
pub(crate) fn read_file(
    ws: &Workspace,
    args: ReadFileArgs,
    budget_bytes: Option<usize>,
) -> Result<ToolOutput, ToolError> {
    let mut opened = ws
        .open_file(&args.path)
        .map_err(|error| not_found_hint(ws, &args.path, error))?;
    let shown = Workspace::display(&opened.path);
    let size = opened.metadata.len();
    let mut head = Vec::with_capacity(8192);
    (&mut opened.file)
        .take(8192)
        .read_to_end(&mut head)
        .map_err(|e| io_error(&shown, e))?;
    match sniff(&head) {
        FileKind::Image(mime_type) => read_image(opened.file, head, &shown, size, mime_type),
        FileKind::Binary(kind) => Err(ToolError::new(format!(
            "`{shown}` is a binary file ({kind}, {}); read_file shows text and images only",
            human_size(size)
        ))),
        FileKind::Text => {
            let first = args.offset.unwrap_or(1).max(1) as usize;
            let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1) as usize;
            let reader = BufReader::with_capacity(64 * 1024, head.chain(opened.file));
            let cap = PageCap::of(budget_bytes);
            let page = Page::read(reader, first - 1, limit, cap).map_err(|e| io_error(&shown, e))?;
            page.render(&shown, first).map(ToolOutput::text)
        }
    }
}

fn io_error(shown: &str, error: std::io::Error) -> ToolError {
    ToolError::new(format!("cannot read `{shown}`: {error}"))
}

fn read_image(
    file: cap_std::fs::File,
    mut bytes: Vec<u8>,
    shown: &str,
    size: u64,
    mime_type: &'static str,
) -> Result<ToolOutput, ToolError> {
    if size > MAX_IMAGE_BYTES {
        return Err(ToolError::new(format!(
            "`{shown}` is an image of {}, more than the {} read_file returns",
            human_size(size),
            human_size(MAX_IMAGE_BYTES)
        )));
    }
    file.take(MAX_IMAGE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(shown, e))?;
    let note = format!("`{shown}`: {mime_type} image, {}", human_size(size));
    Ok(ToolOutput::text(note).with_content(Content::from(Image::new(mime_type, bytes))))
}

/// A missing file's error, with the closest names in its directory.
fn not_found_hint(ws: &Workspace, path: &str, error: WorkspaceError) -> ToolError {
    let WorkspaceError::NotFound { .. } = &error else {
        return error.into();
    };
    let suggestions = super::nearby::similar_paths(ws, path);
    if suggestions.is_empty() {
        return error.into();
    }
    ToolError::new(format!("{error}; did you mean {}?", suggestions.join(", ")))
}

/// The lines of one page and what the file holds beyond it.
struct Page {
    /// The numbered lines, rendered.
    text: String,
    /// Lines rendered.
    shown: usize,
    /// Lines in the whole file.
    total: usize,
    /// Some bytes were not UTF-8.
    lossy: bool,
    /// The most text the page may hold.
    cap: PageCap,
    /// The cap stopped the page early.
    capped: bool,
}

/// The most text a page holds: [`MAX_OUTPUT_BYTES`], or less to fit the result budget.
#[derive(Clone, Copy)]
struct PageCap {
    bytes: usize,
    by_budget: bool,
}

impl PageCap {
    fn of(budget_bytes: Option<usize>) -> Self {
        match budget_bytes {
            // A page holds at least a line or so, whatever the budget.
            Some(bytes) if bytes < MAX_OUTPUT_BYTES => Self {
                bytes: bytes.max(1024),
                by_budget: true,
            },
            _ => Self {
                bytes: MAX_OUTPUT_BYTES,
                by_budget: false,
            },
        }
    }
}

impl Page {
    fn read(reader: impl BufRead, skip: usize, limit: usize, cap: PageCap) -> std::io::Result<Page> {
        let mut page = Page {
            text: String::new(),
            shown: 0,
            total: 0,
            lossy: false,
            cap,
            capped: false,
        };
        let mut lines = BoundedLines::new(reader, KEEP_LINE_BYTES);
        let mut line = Vec::new();
        while page.shown < limit && !page.capped {
            let Some(left_out) = lines.next_line(&mut line)? else {
                return Ok(page);
            };
            page.total += 1;
            if page.total > skip {
                page.push(&line, left_out);
            }
        }
        page.total += count_lines(lines.into_inner())?;
        Ok(page)
    }

    /// Adds a line (without its line break) of which `left_out` more characters were
    /// not read into `raw`.
    fn push(&mut self, raw: &[u8], left_out: u64) {
        let text = String::from_utf8_lossy(raw);
        self.lossy |= matches!(text, std::borrow::Cow::Owned(_));
        let rendered = format!(
            "{:>6}\t{}\n",
            self.total,
            cut_line(&text, MAX_LINE_CHARS, left_out)
        );
        if self.text.len() + rendered.len() > self.cap.bytes {
            self.capped = true;
            return;
        }
        self.text.push_str(&rendered);
        self.shown += 1;
    }

    fn render(self, shown_path: &str, first: usize) -> Result<String, ToolError> {
        if self.total == 0 {
            return Ok(format!("`{shown_path}` is empty."));
        }
        if first > self.total {
            return Err(ToolError::new(format!(
                "offset {first} is past the end of `{shown_path}`, which has {} lines",
                self.total
            )));
        }
        let last = first + self.shown - 1;
        let mut header = format!("`{shown_path}`: lines {first}-{last} of {}", self.total);
        if self.lossy {
            header.push_str(" (not valid UTF-8: invalid bytes are shown as \u{FFFD})");
        }
        let mut out = format!("{header}\n{}", self.text);
        if self.capped {
            let why = if self.cap.by_budget {
                " to fit the result budget"
            } else {
                ""
            };
            out.push_str(&format!(
                "[output capped at {}{why}]\n",
                human_size(self.cap.bytes as u64)
            ));
        }
        if last < self.total {
            out.push_str(&format!(
                "[{} more lines; continue with offset={}]\n",
                self.total - last,
                last + 1
            ));
        }
        Ok(out)
    }
}

/// Lines in the rest of `reader` (a last line without `\n` counts).
fn count_lines(mut reader: impl BufRead) -> std::io::Result<usize> {
    let mut lines = 0;
    let mut ends_open = false;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(lines + usize::from(ends_open));
        }
        lines += memchr::memchr_iter(b'\n', chunk).count();
        ends_open = chunk.last() != Some(&b'\n');
        let consumed = chunk.len();
        reader.consume(consumed);
    }
}

#[cfg(test)]
mod tests;
