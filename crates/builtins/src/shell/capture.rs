//! Capturing a command's output in bounded memory: the beginning and the end.
//!
//! A command can print without end (`yes`); a model needs the first lines (what started)
//! and the last (how it ended), not the middle. Each stream keeps a head and a ring of the
//! latest bytes, so memory stays at the limit whatever the output size.

use std::collections::VecDeque;

/// The head and tail of one output stream.
#[derive(Debug)]
pub(crate) struct HeadTail {
    /// Bytes kept from the start and from the end, each.
    half: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    /// Bytes seen in all.
    total: u64,
}

impl HeadTail {
    /// Keeps up to `limit` bytes: the first half and the latest half.
    pub(crate) fn new(limit: usize) -> Self {
        let half = limit / 2;
        Self {
            half,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    /// Adds output.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.half.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        bytes = rest;
        if bytes.len() >= self.half {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.half..]);
            return;
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.half);
        self.tail.drain(..overflow);
        self.tail.extend(bytes);
    }

    /// Bytes seen in all.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Whether the kept bytes contain `needle` (within the head or within the tail).
    pub(crate) fn mentions(&self, needle: &[u8]) -> bool {
        let (first, second) = self.tail.as_slices();
        [self.head.as_slice(), &[first, second].concat()]
            .iter()
            .any(|kept| kept.windows(needle.len()).any(|window| window == needle))
    }

    /// What is kept of the bytes from offset `from` on (offsets count every byte seen),
    /// at most `max` of them: the kept bytes in order, with the dropped ones between head
    /// and tail counted where the range crosses them. An offset past the end reads
    /// nothing.
    pub(crate) fn read(&self, from: u64, max: usize) -> Span {
        let from = from.min(self.total);
        let head_end = self.head.len() as u64;
        let tail_start = self.total - self.tail.len() as u64;
        let mut span = Span {
            start: from,
            before: Vec::new(),
            dropped: 0,
            after: Vec::new(),
            end: from,
        };
        let mut room = max;
        if from < head_end {
            let taken = &self.head[as_index(from)..][..room.min(as_index(head_end - from))];
            span.before.extend_from_slice(taken);
            span.end += taken.len() as u64;
            room -= taken.len();
            if span.end < head_end || room == 0 {
                return span;
            }
        }
        if span.end < tail_start {
            span.dropped = tail_start - span.end;
            span.end = tail_start;
        }
        let skip = as_index(span.end - tail_start);
        let taken = self.tail.range(skip..).take(room);
        span.after.extend(taken);
        span.end += span.after.len() as u64;
        span
    }
}

/// A range of a [`HeadTail`]'s output: the bytes kept, and how many were dropped between
/// them.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// The offset of the first byte of the range.
    pub(crate) start: u64,
    /// Kept bytes before the dropped ones (or all of them, when none were dropped).
    pub(crate) before: Vec<u8>,
    /// Bytes dropped from the middle of the output within the range.
    pub(crate) dropped: u64,
    /// Kept bytes after the dropped ones.
    pub(crate) after: Vec<u8>,
    /// The offset just past the range: where reading goes on.
    pub(crate) end: u64,
}

/// An offset within a buffer held in memory, as an index.
fn as_index(offset: u64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX)
}

impl HeadTail {
    /// The output as text, shortened to about `budget` bytes by leaving out the middle
    /// with a marker. Invalid UTF-8 is replaced.
    pub(crate) fn render(&self, budget: usize) -> String {
        let kept: Vec<u8> = self.head.iter().chain(&self.tail).copied().collect();
        if self.total == kept.len() as u64 && kept.len() <= budget {
            return String::from_utf8_lossy(&kept).into_owned();
        }
        // The head part comes from the head; the tail part from the end of what was kept,
        // which is the tail ring whenever bytes were dropped between them.
        let head_part = &kept[..self.head.len().min(budget / 2)];
        let tail_len = (budget - head_part.len()).min(kept.len() - head_part.len());
        let tail_part = &kept[kept.len() - tail_len..];
        let omitted = self.total - (head_part.len() + tail_part.len()) as u64;
        format!(
            "{}\n[... {omitted} bytes omitted ...]\n{}",
            String::from_utf8_lossy(head_part),
            String::from_utf8_lossy(tail_part)
        )
    }
}

/// Splits `limit` bytes between two outputs: each gets what it needs up to half, and
/// what one leaves unused goes to the other.
pub(crate) fn split_budget(limit: usize, first: u64, second: u64) -> (usize, usize) {
    let need = |total: u64| usize::try_from(total).unwrap_or(usize::MAX);
    let half = limit / 2;
    let first_share = need(first).min(half);
    let second_share = need(second).min(limit - first_share);
    let first_share = need(first).min(limit - second_share);
    (first_share, second_share)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        let mut output = HeadTail::new(100);
        output.push(b"hello ");
        output.push(b"world");
        assert_eq!(output.render(100), "hello world");
        assert_eq!(output.total(), 11);
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let mut output = HeadTail::new(20);
        for chunk in (0..100u8).collect::<Vec<_>>().chunks(7) {
            let text: Vec<u8> = chunk.iter().map(|n| b'a' + n % 26).collect();
            output.push(&text);
        }
        let rendered = output.render(20);
        assert!(
            rendered.starts_with("abcdefghij\n[... 80 bytes omitted ...]\n"),
            "{rendered}"
        );
        assert!(rendered.ends_with("mnopqrstuv"), "{rendered}");
        assert!(output.head.len() + output.tail.len() <= 20);
    }

    #[test]
    fn a_smaller_budget_cuts_more_and_bad_utf8_is_replaced() {
        let mut output = HeadTail::new(100);
        output.push(b"0123456789\xff");
        assert_eq!(output.render(6), "012\n[... 5 bytes omitted ...]\n89\u{FFFD}");
    }

    #[test]
    fn ranges_are_read_by_offset_with_the_dropped_bytes_counted() {
        let mut output = HeadTail::new(10);
        output.push(b"0123456789");
        output.push(b"abcdefghij");
        // Kept: "01234" (offsets 0..5) and "fghij" (15..20); 5..15 dropped.
        let whole = output.read(0, 100);
        assert_eq!(
            (&whole.before[..], whole.dropped, &whole.after[..]),
            (&b"01234"[..], 10, &b"fghij"[..])
        );
        assert_eq!((whole.start, whole.end), (0, 20));
        let limited = output.read(2, 3);
        assert_eq!(
            (&limited.before[..], limited.dropped, limited.end),
            (&b"234"[..], 0, 5)
        );
        let across = output.read(3, 4);
        assert_eq!(
            (&across.before[..], across.dropped, &across.after[..], across.end),
            (&b"34"[..], 10, &b"fg"[..], 17)
        );
        let inside_the_gap = output.read(12, 100);
        assert_eq!(
            (inside_the_gap.dropped, &inside_the_gap.after[..]),
            (3, &b"fghij"[..])
        );
        let in_the_tail = output.read(18, 100);
        assert_eq!((&in_the_tail.after[..], in_the_tail.dropped), (&b"ij"[..], 0));
        let past_the_end = output.read(99, 100);
        assert_eq!((past_the_end.start, past_the_end.end), (20, 20));
        assert!(past_the_end.before.is_empty() && past_the_end.after.is_empty());
    }

    #[test]
    fn budgets_go_where_they_are_needed() {
        assert_eq!(split_budget(100, 10, 500), (10, 90));
        assert_eq!(split_budget(100, 500, 10), (90, 10));
        assert_eq!(split_budget(100, 500, 500), (50, 50));
        assert_eq!(split_budget(100, 0, 0), (0, 0));
    }
}
