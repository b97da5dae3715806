//! Who an HTTP request was authenticated as, passed from the OAuth layer in front of the
//! MCP endpoint to the handler behind it (through the request's extensions, which rmcp
//! hands on with the request's parts).

use std::sync::Arc;

use agent_tools_core::{context::Principal, search::ToolVisibility, tool::ToolSpec};
use rmcp::RoleServer;
use rmcp::service::RequestContext;

/// Reaches, for a principal, the tools its token's scopes grant.
type Reach = dyn Fn(&Principal, &ToolSpec) -> bool + Send + Sync;

/// The authenticated principal of a request, and which tools it reaches.
#[derive(Clone)]
pub(crate) struct Authorized {
    pub(crate) principal: Principal,
    reach: Arc<Reach>,
}

impl Authorized {
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub(crate) fn new(principal: Principal, reach: Arc<Reach>) -> Self {
        Self { principal, reach }
    }

    /// Whether the principal may list and call `tool`.
    pub(crate) fn reaches(&self, tool: &ToolSpec) -> bool {
        (self.reach)(&self.principal, tool)
    }

    /// What the principal may know of, for the registry: the tools it reaches, as if
    /// the others were not registered.
    pub(crate) fn visibility(&self) -> ToolVisibility {
        let authorized = self.clone();
        ToolVisibility::new(move |tool: &ToolSpec| authorized.reaches(tool))
    }

    /// The authorization of the HTTP request `context` came in, if it had one.
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Option<&Authorized> {
        context
            .extensions
            .get::<axum::http::request::Parts>()?
            .extensions
            .get::<Authorized>()
    }
}
