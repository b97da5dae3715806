//! Conversions between rmcp's types and ours, in both directions: serving turns our
//! definitions, results and caller requests into MCP's wire shapes, and mounting turns a
//! remote server's back into ours.
//!
//! Separate from [`serve`](crate::serve) and [`mount`](crate::mount) because both use the
//! same mapping, so a shape crosses the same way whichever side we are on.
//!
//! - [`tools`]: tool definitions, `tools/call` results and the content blocks they carry;
//! - [`caller`]: log messages, elicitation and sampling requests and their answers;
//! - [`input`]: the questions of an input-required result, and the answers of the retry;
//! - [`tasks`]: tasks as `tasks/get` and a task-creating `tools/call` answer them.

pub(crate) mod caller;
pub(crate) mod input;
pub(crate) mod tasks;
pub(crate) mod tools;
