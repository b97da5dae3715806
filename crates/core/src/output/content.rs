//! [`Content`]: one part of a tool's output, the same five kinds MCP has (2025-11-25
//! `ContentBlock`), each with optional [`ContentAnnotations`].

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::{ContentAnnotations, json_len};

/// One part of a tool's output.
///
/// Serialized with a `type` tag (`text`, `image`, `audio`, `resource`, `resource_link`)
/// and snake_case fields; `annotations` only when there are some.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Hints about the part.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<ContentAnnotations>,
    },
    /// An image, base64-encoded.
    Image {
        /// e.g. `image/png`.
        mime_type: String,
        /// The image bytes in standard base64.
        data: String,
        /// Hints about the part.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<ContentAnnotations>,
    },
    /// Audio, base64-encoded.
    Audio {
        /// e.g. `audio/wav`.
        mime_type: String,
        /// The audio bytes in standard base64.
        data: String,
        /// Hints about the part.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<ContentAnnotations>,
    },
    /// A resource (a file, a document) embedded in the output.
    Resource {
        /// Where the resource lives, e.g. `file:///workspace/notes.md`.
        uri: String,
        /// Its media type, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its contents.
        #[serde(flatten)]
        contents: ResourceContents,
        /// Hints about the part.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<ContentAnnotations>,
    },
    /// A link to a resource the client can fetch or read, not its contents (MCP's
    /// `ResourceLink`).
    ResourceLink {
        /// Where the resource lives.
        uri: String,
        /// Its programmatic name, e.g. a file name.
        name: String,
        /// A human-readable title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// What it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Its media type, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its size in bytes (before any encoding), when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
        /// Hints about the part.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<ContentAnnotations>,
    },
}

/// The contents of an embedded resource: text or binary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceContents {
    /// UTF-8 text.
    Text(String),
    /// Binary data in standard base64.
    Blob(String),
}

impl Content {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text {
            text: text.into(),
            annotations: None,
        }
    }

    /// A text resource.
    pub fn text_resource(uri: impl Into<String>, mime_type: Option<String>, text: impl Into<String>) -> Self {
        Content::Resource {
            uri: uri.into(),
            mime_type,
            contents: ResourceContents::Text(text.into()),
            annotations: None,
        }
    }

    /// A binary resource; the bytes are base64-encoded.
    pub fn blob_resource(uri: impl Into<String>, mime_type: Option<String>, bytes: &[u8]) -> Self {
        Content::Resource {
            uri: uri.into(),
            mime_type,
            contents: ResourceContents::Blob(base64::engine::general_purpose::STANDARD.encode(bytes)),
            annotations: None,
        }
    }

    /// A link to a resource by its URI and name; set the other fields on the variant
    /// when there is more to say.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
        }
    }

    /// The part with these annotations (replacing any it had).
    pub fn with_annotations(mut self, annotations: ContentAnnotations) -> Self {
        *self.annotations_mut() = Some(annotations);
        self
    }

    /// The part's annotations, if it has any.
    pub fn annotations(&self) -> Option<&ContentAnnotations> {
        match self {
            Content::Text { annotations, .. }
            | Content::Image { annotations, .. }
            | Content::Audio { annotations, .. }
            | Content::Resource { annotations, .. }
            | Content::ResourceLink { annotations, .. } => annotations.as_ref(),
        }
    }

    fn annotations_mut(&mut self) -> &mut Option<ContentAnnotations> {
        match self {
            Content::Text { annotations, .. }
            | Content::Image { annotations, .. }
            | Content::Audio { annotations, .. }
            | Content::Resource { annotations, .. }
            | Content::ResourceLink { annotations, .. } => annotations,
        }
    }

    /// Whether the part's audience leaves the model out (it is for the user only).
    pub(crate) fn excludes_the_model(&self) -> bool {
        self.annotations()
            .is_some_and(ContentAnnotations::excludes_the_model)
    }

    /// Its size as [`ToolOutput::byte_len`](super::ToolOutput::byte_len) counts it:
    /// text, encoded data, a link's strings, and the annotations as JSON (a remote
    /// server decides how long those are, so the output limit must see them).
    pub(crate) fn byte_len(&self) -> usize {
        let own = match self {
            Content::Text { text, .. } => text.len(),
            Content::Image { data, .. } | Content::Audio { data, .. } => data.len(),
            Content::Resource { contents, .. } => match contents {
                ResourceContents::Text(text) | ResourceContents::Blob(text) => text.len(),
            },
            Content::ResourceLink {
                uri,
                name,
                title,
                description,
                mime_type,
                ..
            } => {
                let optional = [title, description, mime_type];
                uri.len()
                    + name.len()
                    + optional
                        .iter()
                        .filter_map(|text| text.as_ref())
                        .map(String::len)
                        .sum::<usize>()
            }
        };
        own + self.annotations().map_or(0, json_len)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::output::Audience;

    fn annotations() -> ContentAnnotations {
        ContentAnnotations::new()
            .audience([Audience::User, Audience::Assistant])
            .priority(0.75)
            .last_modified("2025-01-12T15:00:58Z")
    }

    /// One part of every kind, each annotated.
    fn every_kind() -> Vec<Content> {
        vec![
            Content::text("hello"),
            Content::Image {
                mime_type: "image/png".into(),
                data: "AQID".into(),
                annotations: None,
            },
            Content::Audio {
                mime_type: "audio/wav".into(),
                data: "UklG".into(),
                annotations: None,
            },
            Content::text_resource("file:///a.txt", Some("text/plain".into()), "A"),
            Content::blob_resource("file:///b.bin", None, &[0, 1, 2]),
            Content::ResourceLink {
                uri: "file:///r.pdf".into(),
                name: "r.pdf".into(),
                title: Some("Report".into()),
                description: Some("The numbers.".into()),
                mime_type: Some("application/pdf".into()),
                size: Some(12_345),
                annotations: None,
            },
        ]
        .into_iter()
        .map(|part| part.with_annotations(annotations()))
        .collect()
    }

    #[test]
    fn every_kind_round_trips_through_serde_with_its_annotations() {
        for part in every_kind() {
            let value = serde_json::to_value(&part).unwrap();
            assert_eq!(value["annotations"]["priority"], 0.75, "{value}");
            let back: Content = serde_json::from_value(value).unwrap();
            assert_eq!(back, part);
        }
    }

    #[test]
    fn new_kinds_serialize_with_their_tags_and_fields() {
        let link = Content::resource_link("file:///c.txt", "c.txt");
        assert_eq!(
            serde_json::to_value(&link).unwrap(),
            json!({"type": "resource_link", "uri": "file:///c.txt", "name": "c.txt"})
        );
        let audio = every_kind().swap_remove(2);
        assert_eq!(
            serde_json::to_value(&audio).unwrap(),
            json!({"type": "audio", "mime_type": "audio/wav", "data": "UklG", "annotations": {
                "audience": ["user", "assistant"], "priority": 0.75, "last_modified": "2025-01-12T15:00:58Z"
            }})
        );
    }

    #[test]
    fn with_annotations_sets_them_on_every_kind() {
        for part in every_kind() {
            assert_eq!(part.annotations(), Some(&annotations()), "{part:?}");
        }
        let plain = Content::text("x");
        assert_eq!(plain.annotations(), None);
        assert!(!plain.excludes_the_model());
        let for_user = plain.with_annotations(ContentAnnotations::new().audience([Audience::User]));
        assert!(for_user.excludes_the_model());
    }

    #[test]
    fn byte_len_counts_links_and_annotations() {
        let link = Content::ResourceLink {
            uri: "u".repeat(10),
            name: "n".repeat(5),
            title: Some("t".repeat(3)),
            description: Some("d".repeat(100)),
            mime_type: Some("m".repeat(2)),
            size: Some(1 << 40),
            annotations: None,
        };
        assert_eq!(link.byte_len(), 120);
        let huge = "x".repeat(5000);
        let annotated = Content::text("hi").with_annotations(ContentAnnotations::new().last_modified(huge));
        assert!(annotated.byte_len() > 5000, "{}", annotated.byte_len());
        assert_eq!(
            Content::Audio {
                mime_type: "audio/wav".into(),
                data: "UklG".into(),
                annotations: None
            }
            .byte_len(),
            4
        );
    }
}
