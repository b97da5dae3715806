//! Finding a hunk's lines in a file, with Codex's tolerance ladder.
//!
//! Models copy context imperfectly: trailing spaces dropped, indentation changed, a
//! typographic dash or quote typed as ASCII. The lines are looked for at four levels,
//! each tried over the whole rest of the file before the next, looser one:
//!
//! 1. exactly;
//! 2. ignoring trailing whitespace;
//! 3. ignoring leading and trailing whitespace;
//! 4. that, with Unicode punctuation look-alikes made ASCII ([`look_alike`]): dashes and
//!    the minus sign as `-`, curly single and double quotes as `'` and `"`, non-breaking
//!    and other typographic spaces as a space.
//!
//! At each level the first match at or after the search start wins, as in Codex: a hunk
//! whose lines occur twice applies at the first occurrence after the previous hunk.
//!
//! The cost is bounded whatever the input. Each level turns every line of the file into a
//! number once (equal lines, equal numbers), so comparing a window is comparing numbers,
//! and a pattern line that is nowhere in the file rules the level out without a scan. A
//! file of identical lines still makes every window a near-match; the numbers compared
//! are counted against a [`Budget`] shared by the whole patch, and a search that would
//! pass it fails with [`Exhausted`] instead of running on.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashMap;

/// Line comparisons a whole patch may spend locating its hunks (about a tenth of a
/// second of work).
pub(super) const BUDGET: u64 = 200_000_000;

/// A tolerance level; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    Exact,
    TrailingWhitespace,
    Whitespace,
    LookAlikes,
}

const LEVELS: [Level; 4] = [
    Level::Exact,
    Level::TrailingWhitespace,
    Level::Whitespace,
    Level::LookAlikes,
];

impl Level {
    /// A line as this level compares it.
    fn key(self, line: &str) -> Cow<'_, str> {
        match self {
            Level::Exact => Cow::Borrowed(line),
            Level::TrailingWhitespace => Cow::Borrowed(line.trim_end()),
            Level::Whitespace => Cow::Borrowed(line.trim()),
            Level::LookAlikes => {
                let trimmed = line.trim();
                if trimmed.chars().any(|c| look_alike(c).is_some()) {
                    Cow::Owned(trimmed.chars().map(|c| look_alike(c).unwrap_or(c)).collect())
                } else {
                    Cow::Borrowed(trimmed)
                }
            }
        }
    }
}

/// The ASCII character a Unicode punctuation look-alike stands for.
pub(super) fn look_alike(c: char) -> Option<char> {
    match c {
        // Hyphens, dashes and the minus sign.
        '\u{2010}'..='\u{2015}' | '\u{2212}' => Some('-'),
        // Curly and low single quotes.
        '\u{2018}'..='\u{201B}' => Some('\''),
        // Curly and low double quotes.
        '\u{201C}'..='\u{201F}' => Some('"'),
        // No-break, en/em/thin/hair and other typographic spaces.
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => Some(' '),
        _ => None,
    }
}

/// What is left of the comparisons a patch may make.
#[derive(Debug)]
pub(super) struct Budget(pub(super) u64);

/// The budget ran out: the file and the hunk make too many near-matches to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Exhausted;

/// A file's lines, numbered per level on first use.
pub(super) struct Haystack<'a> {
    lines: &'a [&'a str],
    levels: [OnceCell<Numbered<'a>>; 4],
}

/// Each line's number at one level, and the numbers of the distinct lines.
struct Numbered<'a> {
    ids: Vec<u32>,
    table: HashMap<Cow<'a, str>, u32>,
}

impl<'a> Haystack<'a> {
    /// The lines of a file, without their line ends.
    pub(super) fn new(lines: &'a [&'a str]) -> Self {
        Self {
            lines,
            levels: Default::default(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }

    fn numbered(&self, level: Level) -> &Numbered<'a> {
        self.levels[level as usize].get_or_init(|| {
            let mut table: HashMap<Cow<'a, str>, u32> = HashMap::new();
            let ids = self
                .lines
                .iter()
                .map(|line| {
                    let next = u32::try_from(table.len()).unwrap_or(u32::MAX);
                    *table.entry(level.key(line)).or_insert(next)
                })
                .collect();
            Numbered { ids, table }
        })
    }

    /// The first index at or after `from` where `pattern` occurs, at the strictest level
    /// that finds it; with `at_end`, only where it ends the file. An empty pattern is
    /// found at `from`.
    pub(super) fn find(
        &self,
        pattern: &[&str],
        from: usize,
        at_end: bool,
        budget: &mut Budget,
    ) -> Result<Option<(usize, Level)>, Exhausted> {
        if pattern.is_empty() {
            return Ok(Some((from, Level::Exact)));
        }
        let Some(last_start) = self.lines.len().checked_sub(pattern.len()) else {
            return Ok(None);
        };
        let starts = if at_end {
            last_start..=last_start
        } else {
            from..=last_start
        };
        if starts.start() < &from || starts.is_empty() {
            return Ok(None);
        }
        for level in LEVELS {
            let numbered = self.numbered(level);
            let Some(wanted) = pattern
                .iter()
                .map(|line| numbered.table.get(&level.key(line)).copied())
                .collect::<Option<Vec<u32>>>()
            else {
                // A line that is nowhere in the file: no window can match at this level.
                continue;
            };
            for start in starts.clone() {
                let window = &numbered.ids[start..start + wanted.len()];
                let compared = window.iter().zip(&wanted).take_while(|(a, b)| a == b).count();
                budget.0 = budget.0.checked_sub(compared as u64 + 1).ok_or(Exhausted)?;
                if compared == wanted.len() {
                    return Ok(Some((start, level)));
                }
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(lines: &[&str], pattern: &[&str], from: usize, at_end: bool) -> Option<(usize, Level)> {
        Haystack::new(lines)
            .find(pattern, from, at_end, &mut Budget(BUDGET))
            .unwrap()
    }

    #[test]
    fn each_level_is_tried_in_turn() {
        let lines = [
            "foo   ",
            "  bar\t",
            "baz",
            "a \u{2014} \u{201C}b\u{201D}\u{00A0}c",
        ];
        assert_eq!(find(&lines, &["baz"], 0, false), Some((2, Level::Exact)));
        assert_eq!(
            find(&lines, &["foo"], 0, false),
            Some((0, Level::TrailingWhitespace))
        );
        assert_eq!(
            find(&lines, &["foo", "bar"], 0, false),
            Some((0, Level::Whitespace))
        );
        assert_eq!(
            find(&lines, &["a - \"b\" c"], 0, false),
            Some((3, Level::LookAlikes))
        );
        assert_eq!(find(&lines, &["nothing"], 0, false), None);
        assert_eq!(
            find(&lines, &["too", "many", "lines", "here", "now"], 0, false),
            None
        );
    }

    #[test]
    fn the_first_match_after_the_start_wins_and_the_end_anchors() {
        let lines = ["x", "y", "x", "y", "x"];
        assert_eq!(find(&lines, &["x", "y"], 0, false), Some((0, Level::Exact)));
        assert_eq!(find(&lines, &["x", "y"], 1, false), Some((2, Level::Exact)));
        assert_eq!(find(&lines, &["x"], 0, true), Some((4, Level::Exact)));
        assert_eq!(find(&lines, &["x", "y"], 0, true), None);
        assert_eq!(find(&lines, &["x"], 5, false), None);
        // An exact match later beats a looser one earlier: each level scans the whole rest.
        let lines = ["x ", "x"];
        assert_eq!(find(&lines, &["x"], 0, false), Some((1, Level::Exact)));
    }

    #[test]
    fn a_search_that_would_run_long_stops_at_the_budget() {
        let lines = vec!["a"; 100_000];
        let mut pattern = vec!["a"; 1_000];
        pattern.push("b");
        let mut lines_with_b = lines.clone();
        lines_with_b.push("b");
        let haystack = Haystack::new(&lines_with_b);
        // 100,000 windows each compare about 1,000 numbers: 10^8, over a budget of 10^7.
        assert_eq!(
            haystack.find(&pattern, 0, false, &mut Budget(10_000_000)),
            Err(Exhausted)
        );
        // A line the file lacks costs no scan at all.
        let haystack = Haystack::new(&lines);
        assert_eq!(haystack.find(&pattern, 0, false, &mut Budget(1)), Ok(None));
    }
}
