//! MCP's annotations on a content part: who it is for, how much it matters, when it
//! last changed.

use serde::{Deserialize, Serialize};

/// Hints about one [`Content`](crate::output::Content) part, as MCP defines them (2025-11-25
/// `Annotations`). They travel with the part end to end: through the registry, over
/// MCP (served and mounted) and into every dialect's rendering.
///
/// What a provider rendering ([`Dialect::tool_result`](crate::dialect::Dialect::tool_result))
/// does with them: a part whose audience excludes the assistant is meant for the user,
/// so the model gets a one-line note in its place instead of the part; `priority` and
/// `last_modified` are not shown to the model (parts keep the tool's order: leaving out
/// a low-priority part would be a guess, and a model reads all it is given). MCP
/// carries all three, and its client decides.
///
/// ```
/// use agent_tools_core::{output::{Audience, Content, ContentAnnotations}};
///
/// let chart = Content::text("(a chart for the user)")
///     .with_annotations(ContentAnnotations::new().audience([Audience::User]).priority(0.9));
/// assert_eq!(chart.annotations().and_then(|a| a.priority), Some(0.9));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContentAnnotations {
    /// Who the part is for; `None` (or an empty list) says nothing, so the part is
    /// shown to everyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Audience>>,
    /// How important the part is, from 0 (least) to 1 (most, effectively required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When the underlying data last changed, as an ISO 8601 timestamp (kept as given).
    #[serde(default, alias = "lastModified", skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// One intended reader of a content part (MCP's `Role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Audience {
    /// The person using the application.
    User,
    /// The model.
    Assistant,
}

impl ContentAnnotations {
    /// No hints.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets who the part is for.
    pub fn audience(mut self, audience: impl IntoIterator<Item = Audience>) -> Self {
        self.audience = Some(audience.into_iter().collect());
        self
    }

    /// Sets the priority, clamped to `0.0..=1.0`; NaN leaves it unset.
    pub fn priority(mut self, priority: f64) -> Self {
        self.priority = (!priority.is_nan()).then(|| priority.clamp(0.0, 1.0));
        self
    }

    /// Sets when the data last changed (ISO 8601, e.g. `2025-01-12T15:00:58Z`).
    pub fn last_modified(mut self, timestamp: impl Into<String>) -> Self {
        self.last_modified = Some(timestamp.into());
        self
    }

    /// Whether the audience is given and leaves the model out: such a part is for the
    /// user only.
    pub(crate) fn excludes_the_model(&self) -> bool {
        self.audience
            .as_ref()
            .is_some_and(|audience| !audience.is_empty() && !audience.contains(&Audience::Assistant))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn priority_is_clamped_and_nan_ignored() {
        assert_eq!(ContentAnnotations::new().priority(1.5).priority, Some(1.0));
        assert_eq!(ContentAnnotations::new().priority(-2.0).priority, Some(0.0));
        assert_eq!(ContentAnnotations::new().priority(f64::NAN).priority, None);
        assert_eq!(ContentAnnotations::new().priority(0.25).priority, Some(0.25));
    }

    #[test]
    fn only_an_audience_without_the_assistant_excludes_the_model() {
        let with = |audience: Vec<Audience>| ContentAnnotations::new().audience(audience);
        assert!(with(vec![Audience::User]).excludes_the_model());
        assert!(!with(vec![Audience::User, Audience::Assistant]).excludes_the_model());
        assert!(!with(vec![Audience::Assistant]).excludes_the_model());
        assert!(!with(vec![]).excludes_the_model(), "an empty list says nothing");
        assert!(!ContentAnnotations::new().priority(1.0).excludes_the_model());
    }

    #[test]
    fn serializes_snake_case_and_reads_mcp_spelling_too() {
        let annotations = ContentAnnotations::new()
            .audience([Audience::User])
            .priority(0.5)
            .last_modified("2025-01-12T15:00:58Z");
        let value = serde_json::to_value(&annotations).unwrap();
        assert_eq!(
            value,
            json!({"audience": ["user"], "priority": 0.5, "last_modified": "2025-01-12T15:00:58Z"})
        );
        let back: ContentAnnotations = serde_json::from_value(value).unwrap();
        assert_eq!(back, annotations);
        let mcp: ContentAnnotations = serde_json::from_value(
            json!({"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"}),
        )
        .unwrap();
        assert_eq!(mcp, annotations);
    }
}
