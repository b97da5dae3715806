//! Doc comments as descriptions: rejoining the lines a comment was wrapped at.
//!
//! A `///` comment is wrapped to fit the source file, not the reader; sent as is, a tool
//! or field description carries line breaks in the middle of sentences, which cost tokens
//! and read badly in a provider's UI. Lines of one paragraph are joined with a space;
//! blank lines, list items, indented or fenced code, tables, quotes and headings keep
//! their breaks.

/// `text` with the soft line breaks inside paragraphs replaced by spaces.
pub(crate) fn unwrap_soft_breaks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_fence = false;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        out.push_str(line);
        let fence = line.trim_start().starts_with("```");
        in_fence ^= fence;
        let Some(next) = lines.peek() else { break };
        let soft = !in_fence && !fence && !line.trim().is_empty() && !line.ends_with("  ") && continues(next);
        out.push(if soft { ' ' } else { '\n' });
    }
    out
}

/// Whether `next` continues the paragraph of the line before it.
fn continues(next: &str) -> bool {
    let starts_block = |line: &str| {
        ["- ", "* ", "+ ", "|", ">", "#", "```"]
            .iter()
            .any(|marker| line.starts_with(marker))
            || line
                .split_once(". ")
                .is_some_and(|(number, _)| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
    };
    !next.trim().is_empty() && !next.starts_with([' ', '\t']) && !starts_block(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_are_rejoined_and_structure_kept() {
        let text = "Read a file from the\nworkspace.\n\nOptions:\n- one\n- two\nwrapped\n1. first\n    code\n```\nfenced\nblock\n```\nend";
        assert_eq!(
            unwrap_soft_breaks(text),
            "Read a file from the workspace.\n\nOptions:\n- one\n- two wrapped\n1. first\n    code\n```\nfenced\nblock\n```\nend"
        );
        assert_eq!(unwrap_soft_breaks("one line"), "one line");
        assert_eq!(unwrap_soft_breaks("hard  \nbreak"), "hard  \nbreak");
    }
}
