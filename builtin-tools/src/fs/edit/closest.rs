//! Where the text a model quoted most likely is, when it is not in the file verbatim.
//!
//! Comparing the quote with every window of the file is quadratic in both, so the search
//! is in two steps: the file's lines most like the quote's first line are candidate
//! starts, and only windows at those starts are compared as a whole.

/// Candidate starts compared in full.
const CANDIDATES: usize = 5;
/// Below this similarity nothing is pointed at.
const MIN_SIMILARITY: f64 = 0.5;
/// Files larger than this are not searched (the comparison would be slow).
const MAX_TEXT_BYTES: usize = 2 * 1024 * 1024;

/// The most similar region as (first line, last line, similarity 0–1, text), 1-based.
pub(super) fn closest_region(text: &str, quote: &str) -> Option<(usize, usize, f64, String)> {
    if text.len() > MAX_TEXT_BYTES || quote.trim().is_empty() {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let quote_lines: Vec<&str> = quote.lines().collect();
    let span = quote_lines.len().max(1);
    let anchor = quote_lines.iter().find(|line| !line.trim().is_empty())?.trim();
    let anchor_offset = quote_lines
        .iter()
        .position(|line| line.trim() == anchor)
        .unwrap_or(0);
    let mut starts: Vec<(f64, usize)> = lines
        .iter()
        .enumerate()
        .map(|(index, line)| (strsim::normalized_levenshtein(line.trim(), anchor), index))
        .collect();
    starts.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let quote_text = quote_lines.join("\n");
    starts
        .into_iter()
        .take(CANDIDATES)
        .filter_map(|(_, index)| {
            let first = index.checked_sub(anchor_offset)?;
            let last = (first + span).min(lines.len());
            let window = lines[first..last].join("\n");
            Some((
                strsim::normalized_levenshtein(&window, &quote_text),
                first,
                last,
                window,
            ))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .filter(|(similarity, ..)| *similarity >= MIN_SIMILARITY)
        .map(|(similarity, first, last, window)| (first + 1, last, similarity, window))
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
}
