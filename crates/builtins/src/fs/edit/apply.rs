//! Applying one change to a document held in memory, in the file's own line endings.
//!
//! The size of every result is known before it is built (occurrences × the growth of
//! each, or the pieces of a line edit), so an edit that would pass the cap is refused
//! without building it: eight `replace_all`s that each multiply a file used to grow two
//! bytes to 200 MB. And a quote that occurs millions of times costs a count, not a list:
//! only the first occurrences are located for the message.

use super::Edit;
use super::closest::closest_region;
use crate::text_format::{human_size, plural};

/// Occurrences of an ambiguous quote whose lines are listed.
const LISTED_OCCURRENCES: usize = 20;

/// One checked edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Change {
    /// Replace `old` by `new`: its only occurrence, or every one.
    Text { old: String, new: String, all: bool },
    /// Replace lines `start..=end` (1-based) by `new`.
    Lines { start: usize, end: usize, new: String },
    /// Insert `new` before line `before` (1-based; one past the end appends).
    Insert { before: usize, new: String },
}

impl Change {
    /// Checks that an edit's fields make exactly one change.
    pub(super) fn from_edit(edit: Edit) -> Result<Change, String> {
        let new = edit.new_text.ok_or("new_text is missing (use \"\" to delete)")?;
        match (edit.old_text, edit.start_line) {
            (Some(_), Some(_)) => Err("give either old_text or start_line, not both".into()),
            (None, None) => {
                Err("give old_text (the text to replace) or start_line (the lines to replace)".into())
            }
            (Some(old), None) if old.is_empty() => {
                Err("old_text is empty; to add text, use start_line with insert: true".into())
            }
            (Some(old), None) => Ok(Change::Text {
                old,
                new,
                all: edit.replace_all.unwrap_or(false),
            }),
            (None, Some(start)) if edit.insert.unwrap_or(false) => match edit.end_line {
                Some(_) => Err("end_line does not apply when inserting".into()),
                None => Ok(Change::Insert {
                    before: start as usize,
                    new,
                }),
            },
            (None, Some(start)) => {
                let end = edit.end_line.unwrap_or(start);
                if end < start {
                    return Err(format!("end_line {end} is before start_line {start}"));
                }
                Ok(Change::Lines {
                    start: start as usize,
                    end: end as usize,
                    new,
                })
            }
        }
    }
}

/// Why a change could not be applied.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Miss {
    /// `old_text` is not in the file; the closest region, if any resembles it.
    NotFound {
        closest: Option<(usize, usize, f64, String)>,
    },
    /// `old_text` occurs `count` times, the first starting at these lines.
    Ambiguous { count: usize, lines: Vec<usize> },
    /// The result would be `size` bytes, over the `max` edit_file writes.
    TooLarge { size: u64, max: usize },
    /// A line number outside the file.
    OutOfRange {
        line: usize,
        total: usize,
        inserting: bool,
    },
}

impl Miss {
    /// The message for the model, naming the file.
    pub(super) fn describe(&self, shown: &str) -> String {
        match self {
            Miss::NotFound { closest: None } => {
                format!("old_text was not found in `{shown}`; read the file and copy the text exactly")
            }
            Miss::NotFound {
                closest: Some((start, end, similarity, text)),
            } => format!(
                "old_text was not found in `{shown}`. The closest text ({:.0}% similar) is at lines {start}-{end}:\n{text}\nCopy the text exactly as it is in the file, including whitespace.",
                similarity * 100.0
            ),
            Miss::Ambiguous { count, lines } => {
                let mut listed = lines.iter().map(ToString::to_string).collect::<Vec<_>>();
                if *count > lines.len() {
                    listed.push(format!("and {} more", count - lines.len()));
                }
                format!(
                    "old_text occurs {count} times in `{shown}` (at lines {}); include more surrounding text to pick one, or set replace_all to change every one",
                    listed.join(", ")
                )
            }
            Miss::TooLarge { size, max } => format!(
                "the edit would make `{shown}` {} ({size} bytes), more than the {} that edit_file edits; make a smaller change",
                human_size(*size),
                human_size(*max as u64)
            ),
            Miss::OutOfRange {
                line,
                total,
                inserting,
            } => {
                let allowed = if *inserting { total + 1 } else { *total };
                format!(
                    "line {line} is outside `{shown}`, which has {}; use 1 to {allowed}",
                    plural(*total, "line", "lines")
                )
            }
        }
    }
}

/// A file's text while it is being edited.
pub(super) struct Document {
    text: String,
    /// The file's line ending, which new text is converted to.
    ending: &'static str,
    /// The largest text a change may leave, in bytes.
    max_bytes: usize,
}

impl Document {
    /// The text of a file, to be changed into at most `max_bytes`.
    pub(super) fn new(text: &str, max_bytes: usize) -> Self {
        let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Self {
            text: text.to_owned(),
            ending,
            max_bytes,
        }
    }

    /// Refuses a result of `size` bytes over the cap, before it is built.
    fn fits(&self, size: u128) -> Result<(), Miss> {
        match size <= self.max_bytes as u128 {
            true => Ok(()),
            false => Err(Miss::TooLarge {
                size: u64::try_from(size).unwrap_or(u64::MAX),
                max: self.max_bytes,
            }),
        }
    }

    pub(super) fn into_text(self) -> String {
        self.text
    }

    /// Applies a change; returns what it did, for the summary.
    pub(super) fn apply(&mut self, change: &Change) -> Result<String, Miss> {
        match change {
            Change::Text { old, new, all } => self.replace_text(old, new, *all),
            Change::Lines { start, end, new } => self.replace_lines(*start, *end, new),
            Change::Insert { before, new } => self.insert(*before, new),
        }
    }

    /// `text` with its line breaks in the file's style.
    fn in_file_endings(&self, text: &str) -> String {
        let unix = text.replace("\r\n", "\n");
        if self.ending == "\n" {
            unix
        } else {
            unix.replace('\n', self.ending)
        }
    }

    fn replace_text(&mut self, old: &str, new: &str, all: bool) -> Result<String, Miss> {
        let old = self.in_file_endings(old);
        let new = self.in_file_endings(new);
        // What `replace` would replace: occurrences that do not overlap.
        let mut replaceable = 0;
        let mut starts = Vec::new();
        for (at, _) in self.text.match_indices(&old) {
            replaceable += 1;
            if starts.len() < LISTED_OCCURRENCES {
                starts.push(at);
            }
        }
        let mut count = replaceable;
        // `aa` occurs twice in `aaa`, though `match_indices` finds it once: an occurrence
        // overlapping the only match makes the quote ambiguous too.
        if let [only] = starts[..] {
            let next = only + self.text[only..].chars().next().map_or(1, char::len_utf8);
            if let Some(at) = self.text[next..].find(&old) {
                starts.push(next + at);
                count += 1;
            }
        }
        let size = |replaced: usize| {
            let (len, replaced) = (self.text.len() as u128, replaced as u128);
            len - replaced * old.len() as u128 + replaced * new.len() as u128
        };
        match count {
            0 => Err(Miss::NotFound {
                closest: closest_region(&self.text, &old),
            }),
            1 => {
                self.fits(size(1))?;
                self.text = self.text.replacen(&old, &new, 1);
                Ok("replaced 1 occurrence".to_owned())
            }
            _ if all => {
                self.fits(size(replaceable))?;
                self.text = self.text.replace(&old, &new);
                Ok(format!(
                    "replaced {}",
                    plural(replaceable, "occurrence", "occurrences")
                ))
            }
            _ => Err(Miss::Ambiguous {
                count,
                lines: starts.iter().map(|at| line_of(&self.text, *at)).collect(),
            }),
        }
    }

    fn replace_lines(&mut self, start: usize, end: usize, new: &str) -> Result<String, Miss> {
        let lines: Vec<&str> = self.text.split_inclusive('\n').collect();
        let total = lines.len();
        for line in [start, end] {
            if line == 0 || line > total {
                return Err(Miss::OutOfRange {
                    line,
                    total,
                    inserting: false,
                });
            }
        }
        // The replaced lines' last line break stays: a file without a final newline keeps
        // going without one.
        let replaced_ends_with_break = lines[end - 1].ends_with('\n');
        let mut new = self.in_file_endings(new);
        let ends_with_break = new.ends_with('\n');
        if replaced_ends_with_break && !new.is_empty() && !ends_with_break {
            new.push_str(self.ending);
        } else if !replaced_ends_with_break && ends_with_break {
            new.truncate(new.trim_end_matches(['\r', '\n']).len());
        }
        let (head, tail) = (&lines[..start - 1], &lines[end..]);
        self.fits(pieces_len(&[head, &[new.as_str()], tail]))?;
        self.text = [&head.concat(), new.as_str(), &tail.concat()].concat();
        Ok(format!("replaced {}", line_range(start, end)))
    }

    fn insert(&mut self, before: usize, new: &str) -> Result<String, Miss> {
        let lines: Vec<&str> = self.text.split_inclusive('\n').collect();
        let total = lines.len();
        if before == 0 || before > total + 1 {
            return Err(Miss::OutOfRange {
                line: before,
                total,
                inserting: true,
            });
        }
        let mut new = self.in_file_endings(new);
        if !new.ends_with('\n') {
            new.push_str(self.ending);
        }
        let (head, tail) = (&lines[..before - 1], &lines[before - 1..]);
        self.fits(pieces_len(&[head, &[new.as_str(), self.ending], tail]))?;
        let mut head = head.concat();
        if !head.is_empty() && !head.ends_with('\n') {
            head.push_str(self.ending);
        }
        self.text = [head.as_str(), new.as_str(), &tail.concat()].concat();
        Ok(format!(
            "inserted {} before line {before}",
            plural(new.lines().count(), "line", "lines")
        ))
    }
}

/// The bytes of the pieces of a line edit, together (an upper bound of the result).
fn pieces_len(pieces: &[&[&str]]) -> u128 {
    pieces
        .iter()
        .flat_map(|piece| piece.iter())
        .map(|text| text.len() as u128)
        .sum()
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, at: usize) -> usize {
    memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count() + 1
}

fn line_range(start: usize, end: usize) -> String {
    if start == end {
        format!("line {start}")
    } else {
        format!("lines {start}-{end}")
    }
}
