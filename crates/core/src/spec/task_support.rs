//! Whether a call of a tool may outlive the request that made it (MCP's tasks extension,
//! `io.modelcontextprotocol/tasks`).

/// Whether a call of the tool may run as a task: answered at once with a task id, then
/// run on while the client polls for its status and result (and answers its questions,
/// e.g. an approval, whenever it can). Stated with
/// [`ToolMeta::task`](crate::spec::ToolMeta::task) or `#[tool(task = "optional")]`; a
/// tool that states nothing gets the registry's default
/// ([`ToolRegistryBuilder::task_support`](crate::registry::ToolRegistryBuilder::task_support),
/// itself [`Forbidden`](Self::Forbidden) unless set).
///
/// Only a client that declares the tasks extension gets a task; without it, an
/// [`Optional`](Self::Optional) tool's call runs as any other and a
/// [`Required`](Self::Required) one is refused with an error naming the extension.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Calls run within their request (the default).
    #[default]
    Forbidden,
    /// A call runs as a task when the client supports tasks, else within its request.
    Optional,
    /// A call runs only as a task: a client without tasks is refused.
    Required,
}

impl TaskSupport {
    /// The name MCP gives it in a tool's `execution.taskSupport`, and `#[tool(task = …)]`
    /// takes: `forbidden`, `optional`, `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }

    /// The value of its name ([`as_str`](Self::as_str)).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            TaskSupport::Forbidden,
            TaskSupport::Optional,
            TaskSupport::Required,
        ]
        .into_iter()
        .find(|support| support.as_str() == name)
    }
}
