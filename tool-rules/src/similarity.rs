//! The one "did you mean" scorer: which of the names that exist are close enough to the
//! one asked for to suggest, best first.
//!
//! `tool-core` suggests with it for unknown tools and properties and, as
//! `tool_core::suggest::closest`, for the paths the file tools do not find;
//! `tool-macros` for unknown `#[tool]` attributes.

/// Below this similarity nothing is suggested.
const MIN_SIMILARITY: f64 = 0.66;
/// Candidates further than this behind the best are not suggested: a clear winner stands
/// alone (`mian.rs` gets `main.rs`, not also `mod.rs`), close seconds are kept.
const MAX_BEHIND_BEST: f64 = 0.1;
/// Most names suggested.
const MAX_SUGGESTIONS: usize = 3;

/// Up to three of `candidates` close to `wanted`, best first (equally close ones in name
/// order); empty when none is close. Case is ignored.
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|candidate| (similarity(&wanted, &candidate.to_lowercase()), candidate))
        .filter(|(score, _)| *score >= MIN_SIMILARITY)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let best = scored.first().map_or(0.0, |(score, _)| *score);
    scored
        .into_iter()
        .take_while(|(score, _)| best - score <= MAX_BEHIND_BEST)
        .take(MAX_SUGGESTIONS)
        .map(|(_, candidate)| candidate)
        .collect()
}

/// How alike two names are, from 0 to 1. Jaro-Winkler catches shared prefixes in long
/// names (`memory_get` for `memory_read`); Damerau-Levenshtein catches swapped letters in
/// short ones (`scr` for `src`), which Jaro's match window misses.
fn similarity(a: &str, b: &str) -> f64 {
    strsim::jaro_winkler(a, b).max(strsim::normalized_damerau_levenshtein(a, b))
}
