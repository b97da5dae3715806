//! A background process's output: bounded, read by offset, with a cursor at what the
//! model has read.
//!
//! Stdout and stderr arrive through one pipe (the process's descriptors 1 and 2 are the
//! same pipe, as with `2>&1`), so they are interleaved exactly as the process wrote them;
//! which line came from which stream is not kept. Offsets count every byte the process
//! wrote. The buffer keeps the first and the latest half of `[exec] background_buffer`
//! (the head and tail capture of `exec`, [`HeadTail`]); what falls between is dropped,
//! and a read that crosses it says how many bytes and at which offsets.

use std::time::Instant;

use crate::shell::capture::{HeadTail, Span};

/// What a background process wrote, and how far the model has read.
#[derive(Debug)]
pub(super) struct Output {
    kept: HeadTail,
    /// Bytes kept from the start and from the end, each.
    half: usize,
    /// Where a read without an offset starts: just past the furthest byte read.
    read_to: u64,
    /// When the latest bytes arrived.
    pub(super) last_arrival: Option<Instant>,
}

impl Output {
    /// Keeps up to `limit` bytes: the first half and the latest half.
    pub(super) fn new(limit: usize) -> Self {
        Self {
            kept: HeadTail::new(limit),
            half: limit / 2,
            read_to: 0,
            last_arrival: None,
        }
    }

    pub(super) fn push(&mut self, bytes: &[u8]) {
        self.kept.push(bytes);
        self.last_arrival = Some(Instant::now());
    }

    /// Bytes written in all.
    pub(super) fn total(&self) -> u64 {
        self.kept.total()
    }

    /// Bytes past the furthest read (dropped ones included).
    pub(super) fn unread(&self) -> u64 {
        self.total().saturating_sub(self.read_to)
    }

    /// Reads up to `max` bytes from `since` (default: the first unread byte) and moves the
    /// cursor past them. While more may come (`complete` is false) a character cut at
    /// the end of what was written stays unread, to be read whole next time.
    pub(super) fn read(&mut self, since: Option<u64>, max: usize, complete: bool) -> Span {
        let mut span = self.kept.read(since.unwrap_or(self.read_to), max);
        if !complete || span.end < self.total() {
            keep_back_cut_character(&mut span);
        }
        self.read_to = self.read_to.max(span.end);
        span
    }

    /// How the text of a read looks to the model: a header with the offsets, the text,
    /// the dropped bytes marked where they were, and how to go on when there is more.
    pub(super) fn render(&self, span: &Span) -> String {
        let total = self.total();
        if span.start == span.end {
            return format!("(no new output; {total} bytes in all)\n");
        }
        let mut out = format!("--- output, bytes {}..{} of {total} ---\n", span.start, span.end);
        if span.dropped == 0 {
            // Head and tail meet here: one text, not two lines.
            push_text(&mut out, &[&span.before[..], &span.after[..]].concat());
        } else {
            push_text(&mut out, &span.before);
            let from = span.start + span.before.len() as u64;
            out.push_str(&format!(
                "[... {} bytes dropped here (offsets {from}..{}): the buffer keeps the first and the latest {} ...]\n",
                span.dropped,
                from + span.dropped,
                crate::text_format::human_size(self.half as u64),
            ));
            push_text(&mut out, &span.after);
        }
        if span.end < total {
            out.push_str(&format!(
                "[{} more bytes from offset {}: call process_output again]\n",
                total - span.end,
                span.end
            ));
        }
        out
    }
}

/// Adds bytes as text (invalid UTF-8 replaced), ending in a newline.
fn push_text(out: &mut String, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    out.push_str(&String::from_utf8_lossy(bytes));
    if !out.ends_with('\n') {
        out.push('\n');
    }
}

/// Leaves the start of a UTF-8 character cut at the end of the span out of it.
fn keep_back_cut_character(span: &mut Span) {
    let last = match (span.after.is_empty(), span.dropped) {
        (false, _) => &mut span.after,
        (true, 0) => &mut span.before,
        // Bytes dropped at the end of the span: nothing kept ends there.
        (true, _) => return,
    };
    let cut = cut_character(last);
    last.truncate(last.len() - cut);
    span.end -= cut as u64;
}

/// How many bytes at the end of `bytes` begin a UTF-8 character that is not complete.
fn cut_character(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let byte = bytes[bytes.len() - back];
        let needs = match byte {
            0x80..=0xBF => continue,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return 0,
        };
        return if needs > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_go_on_from_the_cursor_and_offsets_read_anything_kept() {
        let mut output = Output::new(1024);
        output.push(b"one\ntwo\n");
        let first = output.read(None, 100, false);
        assert_eq!(
            (first.start, first.end, &first.before[..]),
            (0, 8, &b"one\ntwo\n"[..])
        );
        assert_eq!(output.read(None, 100, false).end, 8, "nothing new");
        output.push(b"three\n");
        assert_eq!(output.unread(), 6);
        let again = output.read(Some(4), 100, false);
        assert_eq!(&again.before[..], b"two\nthree\n");
        assert_eq!(output.unread(), 0);
        let earlier = output.read(Some(0), 3, false);
        assert_eq!(&earlier.before[..], b"one");
        assert_eq!(output.unread(), 0, "reading back does not move the cursor back");
    }

    #[test]
    fn a_cut_character_waits_for_its_end_unless_the_output_is_complete() {
        let mut output = Output::new(1024);
        output.push("é".as_bytes().split_at(1).0);
        let running = output.read(None, 100, false);
        assert_eq!(running.start, running.end, "half a character is not read");
        output.push("é".as_bytes().split_at(1).1);
        assert_eq!(&output.read(None, 100, false).before[..], "é".as_bytes());
        output.push("日".as_bytes().split_at(2).0);
        let ended = output.read(None, 100, true);
        assert_eq!(ended.before.len(), 2, "the process ended: what there is is read");
        assert_eq!(cut_character("a€".as_bytes()), 0);
        assert_eq!(cut_character(&"a€".as_bytes()[..3]), 2);
        assert_eq!(cut_character(&[0xF0, 0x9F, 0x98]), 3);
    }

    #[test]
    fn a_line_across_the_end_of_the_head_reads_as_one() {
        let mut output = Output::new(8);
        output.push(b"ab");
        assert_eq!(output.read(None, 100, false).end, 2);
        output.push(b"cd12\n");
        let span = output.read(None, 100, false);
        assert_eq!((&span.before[..], &span.after[..]), (&b"cd"[..], &b"12\n"[..]));
        assert_eq!(output.render(&span), "--- output, bytes 2..7 of 7 ---\ncd12\n");
    }

    #[test]
    fn the_dropped_middle_is_marked_with_its_offsets() {
        let mut output = Output::new(8);
        output.push(b"abcdEFGHijkl");
        let span = output.read(None, 100, true);
        let text = output.render(&span);
        assert_eq!(
            text,
            "--- output, bytes 0..12 of 12 ---\nabcd\n[... 4 bytes dropped here (offsets 4..8): the buffer keeps the first and the latest 4 B ...]\nijkl\n"
        );
        let limited = output.read(Some(0), 2, true);
        assert!(
            output
                .render(&limited)
                .ends_with("[10 more bytes from offset 2: call process_output again]\n")
        );
    }
}
