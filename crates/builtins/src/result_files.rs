//! Results that did not fit their token budget, kept as files in the workspace so the
//! model can page through them with `read_file` (its `offset` is the line to go on from,
//! which the note at the end of a cut result names).
//!
//! The files live in `.agent-tools/results/` under the workspace root: inside it, because
//! `read_file` reads nothing else; written like every other file the tools write (atomic,
//! no symbolic link followed out of the workspace), and a read-only workspace keeps none
//! (the result then says the rest was left out). The directory gets a `.gitignore` so
//! that results stay out of commits, and only the newest [`DEFAULT_KEEP`] files are kept.
//!
//! What this does not stop: anything else that writes the workspace (`exec`, the model's
//! own `write_file`) can change or delete a kept result before it is read. A result is
//! the model's own output, so that costs it nothing it did not have.

use std::time::{SystemTime, UNIX_EPOCH};

use agent_tools_core::output::{KeptResult, OverflowedResult, ResultOverflow};
use agent_tools_core::tool::BoxFuture;

use crate::Workspace;

/// The directory results are kept in, relative to the workspace root.
pub const RESULTS_DIR: &str = ".agent-tools/results";

/// How many results are kept by default; older ones are removed.
pub const DEFAULT_KEEP: usize = 100;

/// Longest part of a call id kept in a file's name.
const CALL_ID_CHARS: usize = 40;

/// Keeps overflowed results in the workspace's [`RESULTS_DIR`] (see the module docs):
/// give it to [`ToolRegistryBuilder::result_overflow`](agent_tools_core::registry::ToolRegistryBuilder::result_overflow).
#[derive(Clone)]
pub struct ResultFiles {
    workspace: Workspace,
    keep: usize,
}

impl ResultFiles {
    /// Results of `workspace`'s calls, the newest [`DEFAULT_KEEP`] kept.
    pub fn new(workspace: Workspace) -> Self {
        Self {
            workspace,
            keep: DEFAULT_KEEP,
        }
    }

    /// Keeps at most `files` results (at least one).
    pub fn keep_at_most(mut self, files: usize) -> Self {
        self.keep = files.max(1);
        self
    }

    fn keep_now(&self, name: &str, text: &str) -> Result<KeptResult, String> {
        let ignore = format!("{RESULTS_DIR}/.gitignore");
        if !self.workspace.dir().exists(&ignore) {
            self.workspace
                .write(&ignore, "*\n")
                .map_err(|error| error.to_string())?;
        }
        let path = format!("{RESULTS_DIR}/{name}");
        self.workspace
            .write(&path, text)
            .map_err(|error| error.to_string())?;
        self.prune();
        let uri = file_uri(&self.workspace.root().join(&path));
        Ok(KeptResult::file(path).with_uri(uri))
    }

    /// Removes the oldest results beyond the number kept. Names start with the time, so
    /// their order is their age. Best effort: a file that cannot be removed stays.
    fn prune(&self) {
        let Ok(entries) = self.workspace.dir().read_dir(RESULTS_DIR) else {
            return;
        };
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.ends_with(".txt"))
            .collect();
        if names.len() <= self.keep {
            return;
        }
        names.sort();
        for name in &names[..names.len() - self.keep] {
            let _ = self.workspace.dir().remove_file(format!("{RESULTS_DIR}/{name}"));
        }
    }

    /// The text of a result this store handed out at `uri`.
    fn read_now(&self, uri: &str) -> Option<String> {
        let prefix = file_uri(&self.workspace.root().join(RESULTS_DIR));
        let name = uri.strip_prefix(&prefix)?.strip_prefix('/')?;
        let valid = name.ends_with(".txt") && !name.contains('/') && !name.starts_with('.');
        if !valid {
            return None;
        }
        self.workspace
            .read_to_string(&format!("{RESULTS_DIR}/{name}"))
            .ok()
    }
}

impl ResultOverflow for ResultFiles {
    fn keep<'a>(&'a self, result: OverflowedResult<'a>) -> BoxFuture<'a, Result<KeptResult, String>> {
        let name = match file_name(result.tool, result.call_id) {
            Ok(name) => name,
            Err(error) => return Box::pin(async move { Err(error) }),
        };
        let text = result.text.to_owned();
        let store = self.clone();
        // A large result is a large write (and an fsync): on the blocking pool.
        Box::pin(async move {
            tokio::task::spawn_blocking(move || store.keep_now(&name, &text))
                .await
                .unwrap_or_else(|error| Err(format!("the write stopped: {error}")))
        })
    }

    fn read<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move { self.read_now(uri) })
    }
}

/// `<milliseconds since 1970>-<tool>-<call id>-<32 random hex digits>.txt`, with only
/// characters safe in a file name on every system. The random part makes the name (and
/// its URI) unguessable: a server reads a kept result to any client that names it, and
/// call ids (a JSON-RPC request's `1`) and times are easy to guess.
fn file_name(tool: &str, call_id: &str) -> Result<String, String> {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis());
    let safe = |text: &str, max: usize| -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(max)
            .collect()
    };
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).map_err(|error| format!("no random name: {error}"))?;
    let random: String = random.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!(
        "{millis:013}-{}-{}-{random}.txt",
        safe(tool, 64),
        safe(call_id, CALL_ID_CHARS)
    ))
}

/// `path` as a `file://` URI, its bytes outside the unreserved set percent-encoded.
fn file_uri(path: &std::path::Path) -> String {
    let mut uri = String::from("file://");
    for &byte in path.to_string_lossy().as_bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_only_safe_characters() {
        let name = file_name("read_file", "call/../../etc passwd").unwrap();
        assert!(name.contains("-read_file-call_______etc_passwd-"), "{name}");
        assert!(!name.contains('/'));
        assert_ne!(name, file_name("read_file", "call/../../etc passwd").unwrap());
    }

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(
            file_uri(std::path::Path::new("/tmp/a b/ü.txt")),
            "file:///tmp/a%20b/%C3%BC.txt"
        );
    }
}
