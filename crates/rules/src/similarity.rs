//! The one "did you mean" scorer: which of the names that exist are close enough to the
//! one asked for to suggest, best first.
//!
//! `agent-tools-core` suggests with it for unknown tools and properties and, as
//! `agent_tools_core::suggest::closest`, for the paths the file tools do not find;
//! `agent-tools-macros` for unknown `#[tool]` attributes.

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

/// How alike two names are, from 0 to 1. Damerau-Levenshtein catches swapped letters in
/// short names (`scr` for `src`), which Jaro's match window misses; Jaro-Winkler catches
/// names that start alike and end differently (`memory_get` for `memory_read`), which
/// several edits apart are not close by edit distance.
///
/// Jaro-Winkler counts only for names that start with the same letter, the case Winkler
/// made it for. Without a common start Jaro alone judges, and it rewards letters two
/// short names share anywhere near the same place: `rename` and `enabled` share `e n a
/// e` and score 0.75, more than `rename` and `name` (0.72, Jaro pairs the first `e` of
/// `rename` with the last of `name`). A typo in the first letter is one edit, which the
/// edit distance scores well.
fn similarity(a: &str, b: &str) -> f64 {
    let edits = strsim::normalized_damerau_levenshtein(a, b);
    if a.chars().next() == b.chars().next() {
        edits.max(strsim::jaro_winkler(a, b))
    } else {
        edits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_start_differently_are_judged_by_edits() {
        // The attributes of `#[tool]`: a dropped prefix is the name meant, not a name
        // that happens to share letters.
        let attributes = ["name", "title", "read_only", "timeout", "enabled", "crate"];
        assert_eq!(closest("rename", attributes), ["name"]);
        assert_eq!(closest("xtitle", attributes), ["title"]);
        // A common start still counts for much: four letters of eleven are far by edits.
        assert_eq!(closest("desc", ["description", "timeout"]), ["description"]);
    }
}
