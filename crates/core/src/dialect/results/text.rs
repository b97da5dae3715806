//! Parts as text, for the places a provider has no block for them: a link line for a
//! resource link, and a note naming what was left out and why for everything else
//! that is not text.

use super::ModelPart;
use crate::output::{Content, ResourceContents};

/// `part` as the text a provider shows in its place.
pub(super) fn part_as_text(part: ModelPart<'_>) -> String {
    match part {
        ModelPart::ForUser(part) => format!("[{} for the user only, not shown to the model]", describe(part)),
        ModelPart::Shown(part) => shown_as_text(part),
    }
}

fn shown_as_text(part: &Content) -> String {
    match part {
        Content::Text { text, .. }
        | Content::Resource {
            contents: ResourceContents::Text(text),
            ..
        } => text.clone(),
        Content::ResourceLink {
            uri,
            name,
            title,
            description,
            mime_type,
            size,
            ..
        } => link_line(
            uri,
            title.as_deref().unwrap_or(name),
            mime_type.as_deref(),
            *size,
            description.as_deref(),
        ),
        Content::Image { mime_type, .. } => not_carried(part, &format!("{mime_type} images")),
        Content::Audio { .. } => not_carried(part, "audio"),
        Content::Resource { mime_type, .. } => {
            let kind = mime_type.as_deref().unwrap_or("binary");
            not_carried(part, &format!("{kind} files"))
        }
    }
}

fn not_carried(part: &Content, what: &str) -> String {
    format!(
        "[{} not shown: this provider's tool results cannot carry {what}]",
        describe(part)
    )
}

/// A resource link as a line a model can read and quote back: its title (or name)
/// linked to its URI, its type and size, and what it is.
fn link_line(
    uri: &str,
    label: &str,
    mime_type: Option<&str>,
    size: Option<u64>,
    description: Option<&str>,
) -> String {
    let details: Vec<String> = mime_type
        .map(str::to_owned)
        .into_iter()
        .chain(size.map(human_size))
        .collect();
    let mut line = format!("Resource link: [{label}]({uri})");
    if !details.is_empty() {
        line.push_str(&format!(" ({})", details.join(", ")));
    }
    if let Some(description) = description {
        line.push_str(&format!(": {description}"));
    }
    line
}

/// What a part is, in a few words: its kind, media type and size.
fn describe(part: &Content) -> String {
    match part {
        Content::Text { .. } => "text".to_owned(),
        Content::Image { mime_type, data, .. } => format!("image ({mime_type}, {})", encoded_size(data)),
        Content::Audio { mime_type, data, .. } => format!("audio ({mime_type}, {})", encoded_size(data)),
        Content::Resource {
            uri,
            mime_type,
            contents,
            ..
        } => {
            let size = match contents {
                ResourceContents::Text(text) => human_size(text.len() as u64),
                ResourceContents::Blob(data) => encoded_size(data),
            };
            match mime_type {
                Some(mime_type) => format!("resource {uri} ({mime_type}, {size})"),
                None => format!("resource {uri} ({size})"),
            }
        }
        Content::ResourceLink { uri, .. } => format!("resource link {uri}"),
    }
}

/// The size of the bytes behind standard base64 `data`.
fn encoded_size(data: &str) -> String {
    let digits = data.trim_end_matches('=').len() as u64;
    human_size(digits * 3 / 4)
}

/// `bytes` as people write sizes: `512 bytes`, `12 KB`, `3.4 MB` (powers of 1024).
fn human_size(bytes: u64) -> String {
    const KB: u64 = 1024;
    const MB: u64 = KB * KB;
    match bytes {
        1 => "1 byte".to_owned(),
        0..KB => format!("{bytes} bytes"),
        KB..MB => format!("{} KB", (bytes + KB / 2) / KB),
        _ => format!("{:.1} MB", bytes as f64 / MB as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_sizes() {
        assert_eq!(human_size(0), "0 bytes");
        assert_eq!(human_size(1), "1 byte");
        assert_eq!(human_size(1023), "1023 bytes");
        assert_eq!(human_size(12 * 1024 + 100), "12 KB");
        assert_eq!(human_size(3 * 1024 * 1024 + 400 * 1024), "3.4 MB");
        // "AQID" is three bytes; padding is not data.
        assert_eq!(encoded_size("AQID"), "3 bytes");
        assert_eq!(encoded_size("AA=="), "1 byte");
    }

    #[test]
    fn a_link_line_has_what_the_link_says() {
        let bare = Content::resource_link("file:///c.txt", "c.txt");
        assert_eq!(
            part_as_text(ModelPart::Shown(&bare)),
            "Resource link: [c.txt](file:///c.txt)"
        );
        let full = Content::ResourceLink {
            uri: "https://example.com/q3.pdf".into(),
            name: "q3.pdf".into(),
            title: Some("Q3 report".into()),
            description: Some("The quarter's numbers.".into()),
            mime_type: Some("application/pdf".into()),
            size: Some(12 * 1024),
            annotations: None,
        };
        assert_eq!(
            part_as_text(ModelPart::Shown(&full)),
            "Resource link: [Q3 report](https://example.com/q3.pdf) (application/pdf, 12 KB): The quarter's numbers."
        );
    }

    #[test]
    fn notes_name_the_part_and_the_reason() {
        let audio = Content::Audio {
            mime_type: "audio/wav".into(),
            data: "A".repeat(16384),
            annotations: None,
        };
        assert_eq!(
            part_as_text(ModelPart::Shown(&audio)),
            "[audio (audio/wav, 12 KB) not shown: this provider's tool results cannot carry audio]"
        );
        let blob = Content::blob_resource("file:///a.zip", Some("application/zip".into()), &[1, 2, 3]);
        assert_eq!(
            part_as_text(ModelPart::Shown(&blob)),
            "[resource file:///a.zip (application/zip, 3 bytes) not shown: this provider's tool results cannot carry application/zip files]"
        );
        let text = Content::text("secret plan");
        assert_eq!(
            part_as_text(ModelPart::ForUser(&text)),
            "[text for the user only, not shown to the model]"
        );
        assert_eq!(part_as_text(ModelPart::Shown(&text)), "secret plan");
    }
}
