//! Lines of any length in bounded memory.
//!
//! `read_until(b'\n')` holds a whole line, so a 4 GiB file without a newline took 4 GiB.
//! Here only the first `keep` bytes of a line are kept — more than `read_file` shows of
//! it — and the rest is counted as it streams past, so a line costs at most `keep` bytes
//! plus the reader's buffer, whatever its length.

use std::io::{self, BufRead};

/// Reads lines from `reader`, keeping at most `keep` bytes of each.
pub(super) struct BoundedLines<R> {
    reader: R,
    keep: usize,
}

impl<R: BufRead> BoundedLines<R> {
    pub(super) fn new(reader: R, keep: usize) -> Self {
        Self { reader, keep }
    }

    /// Reads the next line into `kept` (its start, without the `\n`, and without a `\r`
    /// before it unless the line was cut before that); returns how many characters of
    /// the line were left out, or `None` at the end of the input. A partial UTF-8
    /// character where the line was cut counts as left out.
    pub(super) fn next_line(&mut self, kept: &mut Vec<u8>) -> io::Result<Option<u64>> {
        kept.clear();
        let mut left_out = 0u64;
        let mut cut = false;
        let mut read_any = false;
        let mut ends_with_cr = false;
        loop {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                return Ok(read_any.then(|| finish(kept, cut.then_some(left_out), ends_with_cr)));
            }
            read_any = true;
            let newline = memchr::memchr(b'\n', chunk);
            let part = &chunk[..newline.unwrap_or(chunk.len())];
            let room = self.keep.saturating_sub(kept.len()).min(part.len());
            kept.extend_from_slice(&part[..room]);
            cut |= room < part.len();
            left_out += characters(&part[room..]);
            if let Some(&last) = part.last() {
                ends_with_cr = last == b'\r';
            }
            let consumed = newline.map_or(chunk.len(), |at| at + 1);
            self.reader.consume(consumed);
            if newline.is_some() {
                return Ok(Some(finish(kept, cut.then_some(left_out), ends_with_cr)));
            }
        }
    }

    /// The reader, for counting what follows.
    pub(super) fn into_inner(self) -> R {
        self.reader
    }
}

/// Drops the line's `\r` (kept or counted) and, when the line was cut (`left_out` is
/// what was counted then), a character cut in two; the final count.
fn finish(kept: &mut Vec<u8>, left_out: Option<u64>, ends_with_cr: bool) -> u64 {
    let Some(mut left_out) = left_out else {
        if ends_with_cr {
            kept.pop();
        }
        return 0;
    };
    if ends_with_cr {
        left_out -= 1;
    }
    if let Some(start) = cut_character(kept) {
        kept.truncate(start);
        left_out += 1;
    }
    left_out
}

/// Where the last character of `bytes` starts, if the bytes end in the middle of it.
fn cut_character(bytes: &[u8]) -> Option<usize> {
    let start = (bytes.len().saturating_sub(4)..bytes.len())
        .rev()
        .find(|&at| !is_continuation(bytes[at]))?;
    let needed = match bytes[start] {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    };
    (bytes.len() - start < needed).then_some(start)
}

fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Characters in UTF-8 `bytes` (each byte of invalid UTF-8 that is not a continuation
/// byte counts as one): the bytes less the continuation bytes, counted eight at a time
/// (a continuation byte is the one whose top bit is set and next bit clear), since this
/// runs over every byte of a gigabyte line.
fn characters(bytes: &[u8]) -> u64 {
    const TOP_BITS: u64 = 0x8080_8080_8080_8080;
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    let continuations: u64 = words
        .map(|word| {
            let word = u64::from_ne_bytes([
                word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
            ]);
            u64::from((word & !(word << 1) & TOP_BITS).count_ones())
        })
        .sum();
    let tail_continuations = tail.iter().filter(|&&byte| is_continuation(byte)).count() as u64;
    bytes.len() as u64 - continuations - tail_continuations
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `input` through a reader with a `buffer`-byte buffer.
    fn lines(input: &[u8], keep: usize, buffer: usize) -> Vec<(String, u64)> {
        let reader = io::BufReader::with_capacity(buffer, input);
        let mut lines = BoundedLines::new(reader, keep);
        let mut kept = Vec::new();
        let mut out = Vec::new();
        while let Some(left_out) = lines.next_line(&mut kept).unwrap() {
            out.push((String::from_utf8(kept.clone()).unwrap(), left_out));
        }
        out
    }

    #[test]
    fn short_lines_are_whole_and_long_ones_counted() {
        for buffer in [1, 2, 3, 64] {
            assert_eq!(
                lines(b"one\r\ntwo\nthree", 10, buffer),
                [("one".into(), 0), ("two".into(), 0), ("three".into(), 0)],
                "buffer {buffer}"
            );
            assert_eq!(
                lines(b"abcdefgh\r\nxy\n", 3, buffer),
                [("abc".into(), 5), ("xy".into(), 0)],
                "buffer {buffer}"
            );
            assert_eq!(lines(b"\n\n", 3, buffer), [("".into(), 0), ("".into(), 0)]);
        }
        assert!(lines(b"", 3, 8).is_empty());
    }

    #[test]
    fn characters_are_counted_eight_bytes_at_a_time_as_one_by_one() {
        let text = "aé€😀\u{80}z".repeat(7);
        for start in 0..text.len() {
            let bytes = &text.as_bytes()[start..];
            let one_by_one = bytes.iter().filter(|&&byte| !is_continuation(byte)).count() as u64;
            assert_eq!(characters(bytes), one_by_one, "from byte {start}");
        }
    }

    #[test]
    fn a_character_is_never_cut_in_two() {
        // "aé€" is 1 + 2 + 3 bytes; keeping 2 or 4 bytes would split a character.
        let text = "aé€😀".as_bytes();
        assert_eq!(lines(text, 2, 8), [("a".into(), 3)]);
        assert_eq!(lines(text, 3, 8), [("aé".into(), 2)]);
        assert_eq!(lines(text, 4, 8), [("aé".into(), 2)]);
        assert_eq!(lines(text, 6, 8), [("aé€".into(), 1)]);
        assert_eq!(lines(text, 9, 8), [("aé€".into(), 1)]);
        assert_eq!(lines(text, 10, 8), [("aé€😀".into(), 0)]);
    }
}
