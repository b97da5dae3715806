//! Fitting a result to the budget it may take of the model's context, counted in the
//! tokens of the model it goes to ([`TokenCounting`]), and keeping what does not fit where
//! the model can page through it ([`ResultOverflow`]).
//!
//! A budget applies to the text the model reads: the text parts, joined. Images and
//! other parts pass whole (a provider counts them by their own rules), and so does
//! structured content, which clients hand to programs and which MCP requires to match
//! the tool's output schema; the registry's byte cap (`output_limit.rs`) still bounds both.
//!
//! The text is kept line by line from the start while it fits, leaving room for the note
//! that ends it; a line longer than [`PIECE`] bytes is counted in pieces, so a single huge
//! line is cut too. Counting stops at the budget, so fitting a 10 MB result costs what
//! counting its first budget's worth does. Pieces are counted apart, which can only count
//! more tokens than the whole (merges across a boundary are lost): the kept text never
//! exceeds the budget.

use crate::dialect::Dialect;
use crate::output::{Content, KeptResult, OverflowedResult, ResultOverflow, ToolOutput};
use crate::tokens::{ResultBudget as Budget, TokenCounting};

/// Long lines are counted in pieces of at most this many bytes.
const PIECE: usize = 4096;

/// Tokens kept back for the note that ends a cut result (it is about 80).
const NOTE_TOKENS: usize = 160;

/// Who a result belongs to, for the overflow store.
pub(super) struct Whose<'a> {
    pub(super) call_id: &'a str,
    pub(super) tool: &'a str,
    pub(super) session_id: Option<&'a str>,
}

/// The budget of a call: the tool's own token budget, else the registry's, and the
/// client's cap in characters; `None` when nothing limits the call.
pub(super) fn budget_of(
    tool_tokens: Option<usize>,
    registry_tokens: Option<usize>,
    chars: Option<usize>,
    dialect: Option<Dialect>,
) -> Option<Budget> {
    Budget::new(
        tool_tokens.or(registry_tokens),
        chars,
        TokenCounting::for_dialect(dialect),
    )
}

/// Whether text of `text_bytes` fits without counting: no token is shorter than a byte,
/// nor a character, so text of at most `tokens` (and `chars`) bytes always fits.
fn surely_fits(budget: &Budget, text_bytes: usize) -> bool {
    budget.tokens().is_none_or(|tokens| text_bytes <= tokens)
        && budget.chars().is_none_or(|chars| text_bytes <= chars)
}

/// How the note names the budget.
fn describe(budget: &Budget) -> String {
    let counted = budget.counting().describe();
    match (budget.tokens(), budget.chars()) {
        (Some(tokens), Some(chars)) => format!(
            "{} {counted} and {} characters",
            thousands(tokens),
            thousands(chars)
        ),
        (Some(tokens), None) => format!("{} {counted}", thousands(tokens)),
        (None, Some(chars)) => format!("{} characters", thousands(chars)),
        (None, None) => "none".to_owned(),
    }
}

/// `output` fitted to `budget`; what did not fit is kept by `overflow`, when there is one.
pub(super) async fn fit(
    budget: Budget,
    output: ToolOutput,
    overflow: Option<&dyn ResultOverflow>,
    whose: Whose<'_>,
) -> ToolOutput {
    let text_bytes: usize = output
        .content
        .iter()
        .filter_map(|part| match part {
            Content::Text { text, .. } => Some(text.len()),
            _ => None,
        })
        .sum();
    if surely_fits(&budget, text_bytes) {
        return output;
    }
    // One text part, the usual case, is borrowed rather than copied.
    let text = match output.content.as_slice() {
        [Content::Text { text, .. }] => std::borrow::Cow::Borrowed(text.as_str()),
        _ => std::borrow::Cow::Owned(output.text_content()),
    };
    let Some(cut) = Cut::find(&text, &budget) else {
        return output;
    };
    let kept = match overflow {
        Some(store) => Some(
            store
                .keep(OverflowedResult {
                    call_id: whose.call_id,
                    tool: whose.tool,
                    session_id: whose.session_id,
                    text: &text,
                })
                .await,
        ),
        None => None,
    };
    let note = cut.note(&text, &budget, kept.as_ref());
    let total = text.len();
    let mut content = vec![Content::text(&text[..cut.end])];
    content.extend(
        output
            .content
            .into_iter()
            .filter(|part| !matches!(part, Content::Text { .. })),
    );
    content.push(Content::text(note));
    if let Some(Ok(KeptResult { uri: Some(uri), .. })) = &kept {
        content.push(Content::ResourceLink {
            uri: uri.clone(),
            name: format!("{}-result.txt", whose.tool),
            title: Some(format!("The whole result of `{}`", whose.tool)),
            description: None,
            mime_type: Some("text/plain".to_owned()),
            size: u64::try_from(total).ok(),
            annotations: None,
        });
    }
    ToolOutput {
        content,
        structured: output.structured,
        is_error: output.is_error,
    }
}

/// Where a text that does not fit is cut.
#[derive(Debug, PartialEq, Eq)]
struct Cut {
    /// Bytes kept.
    end: usize,
    /// Lines kept whole.
    whole_lines: usize,
}

impl Cut {
    /// Where `text` is cut to fit `budget`, or `None` when it fits whole.
    fn find(text: &str, budget: &Budget) -> Option<Self> {
        let room_tokens = budget
            .tokens()
            .map(|tokens| tokens.saturating_sub(NOTE_TOKENS.min(tokens / 2)));
        let room_chars = budget
            .chars()
            .map(|chars| chars.saturating_sub(note_chars(chars)));
        let (mut tokens, mut chars) = (0, 0);
        let mut cut = Cut {
            end: 0,
            whole_lines: 0,
        };
        let mut over = false;
        for line in text.split_inclusive('\n') {
            for piece in pieces(line) {
                tokens += budget.tokens().map_or(0, |_| budget.counting().count(piece));
                chars += budget.chars().map_or(0, |_| piece.chars().count());
                if room_tokens.is_some_and(|room| tokens > room)
                    || room_chars.is_some_and(|room| chars > room)
                {
                    over = true;
                    break;
                }
                cut.end += piece.len();
            }
            if over {
                break;
            }
            cut.whole_lines += 1;
        }
        // Within the room left for the note, it fits whole after all: no note needed.
        if !over {
            return None;
        }
        Some(cut)
    }

    /// The note that ends a cut result: what was shown, where the rest is and how to read
    /// it, or that it was left out.
    fn note(&self, text: &str, budget: &Budget, kept: Option<&Result<KeptResult, String>>) -> String {
        // As `str::lines` counts them, at the speed of a byte search.
        let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + usize::from(!text.ends_with('\n'));
        let shown = if self.whole_lines == 0 {
            "the start of line 1".to_owned()
        } else {
            format!("lines 1–{}", thousands(self.whole_lines))
        };
        let head = format!(
            "[Result cut to fit its budget of {}: showing {shown} of {} ({} of {}).",
            describe(budget),
            thousands(lines),
            bytes(self.end),
            bytes(text.len()),
        );
        let next = self.whole_lines + 1;
        // Pages of four fifths of what was shown fit the same budget, with room for the
        // line numbers `read_file` adds.
        let limit = (self.whole_lines * 4 / 5).max(1);
        match kept {
            Some(Ok(KeptResult { path: Some(path), .. })) => format!(
                "{head} The whole result is in `{path}`: to go on, call read_file with path \
                 `{path}`, offset {next} and limit {limit}.]"
            ),
            Some(Ok(KeptResult { uri: Some(uri), .. })) => {
                format!("{head} The whole result is the resource `{uri}` (linked below).]")
            }
            Some(Ok(_)) | None => {
                format!("{head} The rest was left out; ask for less (a narrower query, a range) to see it.]")
            }
            Some(Err(error)) => format!(
                "{head} The rest was left out (it could not be kept: {error}); ask for less (a \
                 narrower query, a range) to see it.]"
            ),
        }
    }
}

/// Characters kept back for the note under a cap in characters.
fn note_chars(chars: usize) -> usize {
    (NOTE_TOKENS * 4).min(chars / 2)
}

/// `line` in pieces of at most [`PIECE`] bytes, cut at character boundaries.
fn pieces(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = PIECE.min(rest.len());
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        // A character wider than the piece (never with 4 KiB pieces): take it whole.
        if end == 0 {
            end = rest.chars().next().map_or(rest.len(), char::len_utf8);
        }
        let (piece, after) = rest.split_at(end);
        rest = after;
        Some(piece)
    })
}

/// `12345678` as `12,345,678`.
fn thousands(number: usize) -> String {
    let digits = number.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A size as people read it: `812 bytes`, `86.2 KB`, `10.0 MB`.
fn bytes(size: usize) -> String {
    const KB: f64 = 1000.0;
    // A display only: the precision lost above 2^52 bytes does not show.
    #[allow(clippy::cast_precision_loss)]
    let size_f = size as f64;
    if size_f >= KB * KB {
        format!("{:.1} MB", size_f / (KB * KB))
    } else if size_f >= KB {
        format!("{:.1} KB", size_f / KB)
    } else {
        format!("{size} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(tokens: Option<usize>, chars: Option<usize>) -> Budget {
        Budget::new(tokens, chars, TokenCounting::Estimate).unwrap()
    }

    #[test]
    fn no_budget_no_fitting() {
        assert!(budget_of(None, None, None, None).is_none());
        let tool_wins = budget_of(Some(10), Some(20), None, None).unwrap();
        assert_eq!(tool_wins.tokens(), Some(10));
    }

    #[test]
    fn text_within_the_budget_is_left_whole() {
        let budget = estimate(Some(1000), None);
        assert!(Cut::find(&"line\n".repeat(100), &budget).is_none());
    }

    #[test]
    fn a_cut_keeps_whole_lines_within_the_room_left_for_the_note() {
        // 1,000 lines of 30 bytes (10 estimated tokens each); 400 tokens leave 240 for text.
        let text = format!("{}\n", "x".repeat(29)).repeat(1000);
        let budget = estimate(Some(400), None);
        let cut = Cut::find(&text, &budget).unwrap();
        assert_eq!(cut.whole_lines, 24);
        assert_eq!(cut.end, 24 * 30);
        let note = cut.note(&text, &budget, None);
        assert!(note.contains("showing lines 1–24 of 1,000"), "{note}");
        assert!(note.contains("400 estimated tokens"), "{note}");
    }

    #[test]
    fn a_single_huge_line_is_cut_inside() {
        let text = "é".repeat(100_000);
        let budget = estimate(None, Some(5_000));
        let cut = Cut::find(&text, &budget).unwrap();
        assert_eq!(cut.whole_lines, 0);
        assert!(text.is_char_boundary(cut.end));
        assert!(text[..cut.end].chars().count() <= 5_000);
        assert!(cut.note(&text, &budget, None).contains("the start of line 1"));
    }

    #[test]
    fn the_note_says_where_the_rest_is_and_where_to_go_on() {
        let text = "a\nb\nc\n".repeat(1000);
        let budget = estimate(Some(100), None);
        let cut = Cut::find(&text, &budget).unwrap();
        let kept = Ok(KeptResult::file(".agent-tools/results/call_1.txt"));
        let note = cut.note(&text, &budget, Some(&kept));
        let next = cut.whole_lines + 1;
        assert!(
            note.contains(&format!(
                "path `.agent-tools/results/call_1.txt`, offset {next} and limit"
            )),
            "{note}"
        );
        let failed = Err("disk full".to_owned());
        assert!(
            cut.note(&text, &budget, Some(&failed))
                .contains("could not be kept: disk full")
        );
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
        assert_eq!(bytes(812), "812 bytes");
        assert_eq!(bytes(10_000_000), "10.0 MB");
    }
}
