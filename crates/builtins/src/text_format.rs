//! Small text helpers for what the tools tell the model: sizes, counts, cut lines.

/// `1.2 KB`, `3.4 MB`: sizes as a person (or a model) reads them.
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut size = bytes as f64 / 1024.0;
    let mut unit = 0;
    while size >= 1024.0 && unit + 1 < UNITS.len() {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// `line` cut to at most `max` characters, with a marker saying how much was left out:
/// what is cut here and the `left_out` characters of the line that `line` lacks already.
pub(crate) fn cut_line(line: &str, max: usize, left_out: u64) -> std::borrow::Cow<'_, str> {
    let (kept, cut) = match line.char_indices().nth(max) {
        None => (line, 0),
        Some((end, _)) => (&line[..end], line[end..].chars().count() as u64),
    };
    match cut + left_out {
        0 => line.into(),
        rest => format!("{kept}… [line cut: {rest} more characters]").into(),
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub(crate) fn prefix_within(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// "1 line", "2 lines": a count with its noun in the right number.
pub(crate) fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {many}")
    }
}

/// Lines in the rest of `reader` (a last line without `\n` counts).
pub(crate) fn count_lines(mut reader: impl std::io::BufRead) -> std::io::Result<usize> {
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
mod tests {
    use super::*;

    #[test]
    fn sizes_lines_and_plurals() {
        assert_eq!(human_size(10), "10 B");
        assert_eq!(human_size(1536), "1.5 KB");
        assert_eq!(human_size(10 * 1024 * 1024), "10.0 MB");
        assert_eq!(cut_line("abcdef", 3, 0), "abc… [line cut: 3 more characters]");
        assert_eq!(cut_line("abcdef", 3, 10), "abc… [line cut: 13 more characters]");
        assert_eq!(cut_line("ab", 3, 4), "ab… [line cut: 4 more characters]");
        assert_eq!(cut_line("ünï", 3, 0), "ünï");
        assert_eq!(plural(1, "line", "lines"), "1 line");
        assert_eq!(prefix_within("aé", 2), "a");
        assert_eq!(prefix_within("ab", 5), "ab");
        assert_eq!(plural(0, "line", "lines"), "0 lines");
    }
}
