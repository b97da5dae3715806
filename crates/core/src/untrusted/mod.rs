//! Checking text from outside before the model reads it.
//!
//! Some of what reaches the model was written by neither the user nor the application: a
//! mounted MCP server's tool names and descriptions, and the results its tools return
//! (later, web pages and files too). The model reads that text as it reads its
//! instructions, so whoever writes it can try to give orders — in characters a person
//! reviewing the text does not see, in blocks styled as system text, or through a tool
//! named like a trusted one. These functions are pure checks on text; the code that
//! mounts a server decides what to do with what they find (refuse the tool, strip the
//! passage, tell a person).
//!
//! - [`strip_invisible`] removes the characters a person does not see
//!   ([`is_invisible`]: controls, zero-width characters, bidirectional overrides, tag
//!   characters) and says what they were, decoding the ASCII text tag characters spell.
//!   It keeps line breaks, tabs and emoji sequences. Cheap enough for every result: one
//!   pass, no allocation when there is nothing to remove.
//! - [`check_description`] finds instructions aimed at the model in a description, by the
//!   documented rules of [`Rule`]; [`strip_findings`] removes the passages found.
//! - [`confusable_with`] finds a name that looks like another tool's ([`skeleton`]):
//!   Cyrillic and Greek look-alikes, fullwidth forms, case, `_`/`-`, `1`/`l`, `0`/`o`,
//!   `rn`/`m`.
//!
//! What they do not stop: they read text, not intent. An instruction paraphrased, in
//! another language, or spread over a tool's parameters passes [`check_description`];
//! a look-alike from a script outside the small table here passes [`confusable_with`].
//! They catch the known, cheap attacks and make them visible, so that a person can
//! decide; what a mounted tool may do stays the business of the
//! [policy](crate::policy) and the sandbox, which judge calls by what they do.

mod confusable;
mod instructions;
mod invisible;

pub use confusable::{Confusable, confusable_with, skeleton};
pub use instructions::{Finding, Rule, check_description, strip_findings};
pub use invisible::{RemovedCharacters, Stripped, is_invisible, strip_invisible};
