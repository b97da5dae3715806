//! The registry's last line of defence against a tool that returns far too much: a cap on
//! the size of every result.
//!
//! Built-in tools cap their own output where a model's context is at stake (`read_file`
//! 256 KiB, `exec` 30 KiB); this cap is about the process: a tool returning a gigabyte
//! must not take the agent (or the MCP client behind it) down with it. Parts are kept in
//! order while they fit; the text part that crosses the limit is cut at a character
//! boundary, and whatever does not fit after that is replaced by a short note, so the
//! model learns that something was left out and how much.

use crate::output::json_len;
use crate::output::{Content, ToolOutput};

/// Cuts `output` down to about `max_bytes` (as [`ToolOutput::byte_len`] counts: text,
/// base64 data, structured JSON), leaving it untouched when it fits. Also returns the
/// size of what it returns, so that the audit log need not measure it again.
pub(super) fn limit_output(output: ToolOutput, max_bytes: usize) -> (ToolOutput, usize) {
    let total = output.byte_len();
    if total <= max_bytes {
        return (output, total);
    }
    let mut kept = 0;
    let mut content = Vec::with_capacity(output.content.len() + 1);
    for part in output.content {
        let size = part.byte_len();
        if kept + size <= max_bytes {
            kept += size;
            content.push(part);
        } else if let Content::Text { text, annotations } = part
            && kept + (size - text.len()) < max_bytes
        {
            // The annotations stay whole (they say who the text is for); the text
            // takes what room is left after them.
            let overhead = size - text.len();
            let text = cut(text, max_bytes - kept - overhead);
            kept += text.len() + overhead;
            content.push(Content::Text { text, annotations });
        }
    }
    let structured = output
        .structured
        .map(|value| (json_len(&value), value))
        .filter(|(size, _)| kept + size <= max_bytes)
        .map(|(size, value)| {
            kept += size;
            value
        });
    let note = format!(
        "[output cut at the registry's limit of {}: {} of {} bytes left out]",
        human(max_bytes),
        total - kept,
        total
    );
    let size = kept + note.len();
    content.push(Content::text(note));
    let limited = ToolOutput {
        content,
        structured,
        is_error: output.is_error,
    };
    (limited, size)
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn cut(mut text: String, max: usize) -> String {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

fn human(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::output::{Audience, ContentAnnotations};

    #[test]
    fn outputs_that_fit_are_untouched() {
        let output = ToolOutput::text("hello").with_structured(json!({"a": 1}));
        let size = output.byte_len();
        assert_eq!(limit_output(output.clone(), 100), (output, size));
    }

    #[test]
    fn the_crossing_text_is_cut_and_the_rest_noted() {
        let image = Content::Image {
            mime_type: "image/png".into(),
            data: "A".repeat(50),
            annotations: None,
        };
        let output = ToolOutput::text("é".repeat(40)) // 80 bytes
            .with_content(image)
            .with_structured(json!({"big": "x".repeat(100)}));
        let total = output.byte_len();
        let (limited, size) = limit_output(output, 31);
        assert_eq!(size, limited.byte_len());
        // 31 bytes of two-byte characters: 15 of them.
        assert_eq!(limited.content[0], Content::text("é".repeat(15)));
        assert_eq!(limited.content.len(), 2, "the image does not fit");
        assert_eq!(limited.structured, None);
        let note = limited.content[1].clone();
        assert_eq!(
            note,
            Content::text(format!(
                "[output cut at the registry's limit of 31 bytes: {} of {total} bytes left out]",
                total - 30
            ))
        );
    }

    #[test]
    fn parts_after_a_big_image_still_fit_when_they_can() {
        let image = Content::Image {
            mime_type: "image/png".into(),
            data: "A".repeat(5000),
            annotations: None,
        };
        let output = ToolOutput::text("caption")
            .with_content(image)
            .with_content(Content::text("tail"));
        let (limited, size) = limit_output(output, 2048);
        assert_eq!(size, limited.byte_len());
        assert_eq!(limited.content[0], Content::text("caption"));
        assert_eq!(limited.content[1], Content::text("tail"));
        assert!(
            limited.content[2].clone()
                == Content::text(
                    "[output cut at the registry's limit of 2 KiB: 5000 of 5011 bytes left out]"
                )
        );
        assert!(!limited.is_error);
    }

    #[test]
    fn a_cut_text_keeps_its_annotations_and_links_that_do_not_fit_are_noted() {
        let for_user = ContentAnnotations::new().audience([Audience::User]);
        let annotations_len = r#"{"audience":["user"]}"#.len();
        let output = ToolOutput {
            content: vec![
                Content::text("x".repeat(100)).with_annotations(for_user.clone()),
                Content::resource_link("file:///big", "d".repeat(500)),
            ],
            ..ToolOutput::default()
        };
        let total = output.byte_len();
        let (limited, size) = limit_output(output, 50);
        assert_eq!(size, limited.byte_len());
        assert_eq!(
            limited.content[0],
            Content::text("x".repeat(50 - annotations_len)).with_annotations(for_user)
        );
        assert_eq!(
            limited.content[1],
            Content::text(format!(
                "[output cut at the registry's limit of 50 bytes: {} of {total} bytes left out]",
                total - 50
            ))
        );
        assert_eq!(limited.content.len(), 2);
    }
}
