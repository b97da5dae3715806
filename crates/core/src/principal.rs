//! [`Principal`]: who a call is made for, as an authenticating transport established it.

use serde::{Deserialize, Serialize};

/// Who a call is made for: the subject of the access token an MCP client presented over
/// HTTP (`agent-tools-mcp`'s OAuth resource server sets it), or whoever an application
/// authenticated itself ([`ToolCall::with_principal`](crate::registry::ToolCall::with_principal)).
///
/// It reaches the tool ([`ToolContext::principal`](crate::context::ToolContext::principal)), the
/// hooks ([`HookCall::principal`](crate::hooks::HookCall::principal)), the approver
/// ([`ApprovalRequest::principal`](crate::approval::ApprovalRequest::principal)) and the audit log
/// (subject and client id), so per-user tools, hooks and policies can tell users apart.
/// The registry itself trusts it as given: establishing it is the transport's job.
///
/// ```
/// use agent_tools_core::context::Principal;
///
/// let user = Principal::new("user-42").with_client_id("claude-desktop").with_scopes(["mcp:read"]);
/// assert!(user.has_scope("mcp:read"));
/// assert!(!user.has_scope("mcp:write"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Principal {
    /// The user (or service) the call acts for: a token's `sub`.
    pub subject: String,
    /// The client application that presented the token, when known (`client_id`, `azp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// The scopes the token grants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

impl Principal {
    /// A principal with a subject, no client id and no scopes.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            client_id: None,
            scopes: Vec::new(),
        }
    }

    /// Names the client application.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets the granted scopes.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }
}
