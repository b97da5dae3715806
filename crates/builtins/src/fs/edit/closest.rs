//! Where the text a model quoted most likely is, when it is not in the file verbatim.
//!
//! Comparing the quote with every window of the file is quadratic in both, so the search
//! is in two steps: the file's lines most like the quote's first line are candidate
//! starts, and only windows at those starts are compared as a whole.
//!
//! Even that is quadratic in what a hostile call controls (a Levenshtein distance costs
//! the product of the lengths: a 2,000-character quote against a million one-character
//! lines ran for over a minute), so the work is bounded: the first line and the lines it is
//! compared with are cut to [`MAX_ANCHOR_CHARS`], the lines ranked stop when
//! [`RANKING_BUDGET`] is spent (a hint from the first part of a huge file is still a
//! hint), and windows are compared by their first [`MAX_COMPARED_CHARS`].

/// Candidate starts compared in full.
const CANDIDATES: usize = 5;
/// Below this similarity nothing is pointed at.
const MIN_SIMILARITY: f64 = 0.5;
/// Files larger than this are not searched (the comparison would be slow).
const MAX_TEXT_BYTES: usize = 2 * 1024 * 1024;
/// Characters of the quote's first line, and of each line, that are ranked.
const MAX_ANCHOR_CHARS: usize = 120;
/// Levenshtein cells (product of the lengths compared) spent ranking lines.
const RANKING_BUDGET: usize = 10_000_000;
/// Characters of a window, and of the quote, that are compared.
const MAX_COMPARED_CHARS: usize = 1000;

/// The most similar region as (first line, last line, similarity 0–1, text), 1-based.
pub(in crate::fs) fn closest_region(text: &str, quote: &str) -> Option<(usize, usize, f64, String)> {
    if text.len() > MAX_TEXT_BYTES || quote.trim().is_empty() {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let quote_lines: Vec<&str> = quote.lines().collect();
    let span = quote_lines.len().max(1);
    let first_line = quote_lines.iter().find(|line| !line.trim().is_empty())?.trim();
    let anchor_offset = quote_lines
        .iter()
        .position(|line| line.trim() == first_line)
        .unwrap_or(0);
    let mut starts = ranked_starts(&lines, chars_prefix(first_line, MAX_ANCHOR_CHARS));
    starts.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let quote_text = quote_lines.join("\n");
    let quote_prefix = chars_prefix(&quote_text, MAX_COMPARED_CHARS);
    starts
        .into_iter()
        .take(CANDIDATES)
        .filter_map(|(_, index)| {
            let first = index.checked_sub(anchor_offset)?;
            let last = (first + span).min(lines.len());
            let window = lines[first..last].join("\n");
            let similarity =
                strsim::normalized_levenshtein(chars_prefix(&window, MAX_COMPARED_CHARS), quote_prefix);
            Some((similarity, first, last, window))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .filter(|(similarity, ..)| *similarity >= MIN_SIMILARITY)
        .map(|(similarity, first, last, window)| (first + 1, last, similarity, window))
}

/// Each line's similarity to `anchor` with its index, for the lines the budget covers.
fn ranked_starts(lines: &[&str], anchor: &str) -> Vec<(f64, usize)> {
    let mut budget = RANKING_BUDGET;
    let mut starts = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let line = chars_prefix(line.trim(), MAX_ANCHOR_CHARS);
        let cost = line.len().max(1) * anchor.len().max(1);
        let Some(left) = budget.checked_sub(cost) else {
            break;
        };
        budget = left;
        starts.push((strsim::normalized_levenshtein(line, anchor), index));
    }
    starts
}

/// The first `max` characters of `text`.
fn chars_prefix(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_region_is_found_with_its_lines() {
        let text = "fn a() {}\nfn main() {\n    println!(\"hello\");\n}\n";
        let (start, end, similarity, region) =
            closest_region(text, "fn main() {\n  println!(\"helo\");\n}").unwrap();
        assert_eq!((start, end), (2, 4));
        assert!(similarity > 0.8, "{similarity}");
        assert!(region.starts_with("fn main() {"));
        assert_eq!(closest_region(text, "completely unrelated words here"), None);
    }

    #[test]
    fn a_long_quote_is_found_by_the_compared_prefixes() {
        let file = format!(
            "{}fn target() {{\n{}}}\n",
            "x\n".repeat(10),
            "    let y = 1;\n".repeat(500)
        );
        let quote = format!("fn target() {{\n{}}}", "    let y = 2;\n".repeat(500));
        let (start, end, ..) = closest_region(&file, &quote).unwrap();
        assert_eq!((start, end), (11, 512));
    }
}
