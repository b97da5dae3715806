//! Deciding which listed tools a model may see: each definition against the lock file
//! (pinning), its texts and name against `agent_tools_core::untrusted`'s checks, and the
//! mount's [`OnChange`] and [`OnSuspicious`].
//!
//! What the checks see: the tool's `description`, `title` and `annotations.title`, and
//! every `description` and `title` string inside its input schema (the parts a model
//! reads), each after invisible characters are taken out; and its local name against
//! every other tool of the registry (local ones and other mounts'). Not checked: the
//! output schema (providers do not show it to the model) and `_meta`. Invisible
//! characters are a finding like the others (a definition has no use for them, and tag
//! characters spell text a person reviewing it cannot see), and are taken out of every
//! offered text whatever the settings.
//!
//! What pinning sees: the definition as listed ([`Definition`]), so a change anywhere in
//! the pinned members — a widened schema, a new sentence, a flipped `readOnlyHint` — is a
//! change. What it does not stop: a server that behaves differently behind an unchanged
//! definition; that is what the call's policy and the result filter are for.

use agent_tools_core::untrusted::{self, Finding};
use rmcp::model::Tool as McpTool;
use serde_json::Value;

use super::MountOptions;
use super::definition::{self, Definition};
use super::lock_file::{LockError, Pinned};
use super::trust::{Change, Decision, DefinitionReviewer, Flagged, OnChange, OnSuspicious, ToolReview};

/// A listed tool under review.
pub(super) struct Entry {
    pub(super) review: ToolReview,
    pub(super) definition: Definition,
    /// The tool as offered, texts cleaned, unless withheld.
    pub(super) offer: Option<McpTool>,
    /// Withheld until a person accepts it.
    awaiting_person: bool,
    /// The decision once a person accepts it: flagged passages still go under
    /// [`OnSuspicious::Strip`].
    if_accepted: Decision,
    /// The tool as listed, as JSON: cleaned for offering if a person accepts it.
    listed: Value,
}

/// A listing reviewed.
pub(super) struct Reviewed {
    pub(super) entries: Vec<Entry>,
    /// Pinned tools the server no longer lists.
    pub(super) removed: Vec<ToolReview>,
    /// What to pin and unpin in the lock file.
    pin: Vec<(String, Definition)>,
    unpin: Vec<String>,
    /// The lock file has no entry for the mount yet (it is created).
    first_use: bool,
}

impl Reviewed {
    /// Every review, listed tools first.
    pub(super) fn reviews(&self) -> Vec<ToolReview> {
        self.entries
            .iter()
            .map(|entry| entry.review.clone())
            .chain(self.removed.iter().cloned())
            .collect()
    }
}

/// Reviews `listed` (already filtered by the mount's filter): `pinned` is the lock file's
/// entry for the mount (`None`: no entry, or no lock file), `others` the names of the
/// registry's tools that are not this mount's: a listed name must not pass for one of
/// them, and a description naming one (but for a tool the server itself lists) is a
/// finding.
pub(super) fn review(
    listed: Vec<McpTool>,
    options: &MountOptions,
    pinned: Option<&Pinned>,
    others: &[&str],
) -> Reviewed {
    let locked = options.lock.is_some();
    let first_use = locked && pinned.is_none() && !options.require_pinned;
    let mut reviewed = Reviewed {
        entries: Vec::with_capacity(listed.len()),
        removed: Vec::new(),
        pin: Vec::new(),
        unpin: Vec::new(),
        first_use,
    };
    // A description naming a sibling tool of its own server is no finding, even when a
    // local tool has the same name (our own `read_file`, mounted from another agent-tools).
    let own: Vec<&str> = listed.iter().map(|tool| tool.name.as_ref()).collect();
    let foreign: Vec<&str> = others
        .iter()
        .copied()
        .filter(|name| !own.contains(name))
        .collect();
    for tool in &listed {
        reviewed
            .entries
            .push(entry(tool, options, pinned, others, &foreign, locked));
    }
    if let Some(pinned) = pinned {
        for (name, definition) in pinned {
            let still_listed = listed.iter().any(|tool| tool.name == name.as_str());
            let selected = options.filter.as_ref().is_none_or(|filter| filter(name));
            if !still_listed && selected {
                reviewed.removed.push(removed(name, definition, options));
            }
        }
    }
    reviewed
}

/// The review of one listed tool, before a reviewer is asked.
fn entry(
    tool: &McpTool,
    options: &MountOptions,
    pinned: Option<&Pinned>,
    others: &[&str],
    foreign: &[&str],
    locked: bool,
) -> Entry {
    // Serialized once: the hash, the checks and the offer all read the JSON.
    let listed = serde_json::to_value(tool).unwrap_or(Value::Null);
    let definition = Definition::of(&listed);
    let name = format!("{}{}", options.prefix, tool.name);
    let pinned_definition = pinned.and_then(|pinned| pinned.get(tool.name.as_ref()));
    let change = match (locked, pinned, pinned_definition) {
        (false, ..) => None,
        // First use pins what passes; with `require_pinned`, nothing is pinned yet.
        (true, None, _) => options.require_pinned.then_some(Change::Added),
        (true, Some(_), None) => Some(Change::Added),
        (true, Some(_), Some(old)) => (old.sha256 != definition.sha256).then_some(Change::Changed),
    };
    let is_pinned = pinned_definition.is_some_and(|old| old.sha256 == definition.sha256);
    let findings = findings(&listed, foreign);
    let confusable = untrusted::confusable_with(&name, others.iter().copied());
    let diff = change.map(|_| definition::diff(pinned_definition, Some(&definition)));
    // Invisible characters count too: a definition has no use for them, and tag
    // characters spell text a person reviewing it cannot see.
    let suspicious = !findings.is_empty();
    let (decision, awaiting_person) = decide(options, change, suspicious, is_pinned, confusable.is_some());
    let review = ToolReview {
        remote_name: tool.name.to_string(),
        name,
        sha256: definition.sha256.clone(),
        pinned: is_pinned,
        change,
        diff,
        findings,
        confusable,
        decision,
    };
    let offer = offer_of(&listed, &review);
    Entry {
        review,
        definition,
        offer,
        awaiting_person,
        if_accepted: if suspicious && options.on_suspicious == OnSuspicious::Strip {
            Decision::Stripped
        } else {
            Decision::Offered
        },
        listed,
    }
}

/// The decision on a listed tool, and whether a person may still accept it.
fn decide(
    options: &MountOptions,
    change: Option<Change>,
    suspicious: bool,
    is_pinned: bool,
    confusable: bool,
) -> (Decision, bool) {
    if confusable {
        return (
            Decision::Withheld("its name can pass for another tool's".to_owned()),
            false,
        );
    }
    if suspicious && options.on_suspicious == OnSuspicious::Deny {
        return (
            Decision::Withheld("its texts were flagged (on_suspicious = deny)".to_owned()),
            false,
        );
    }
    if let Some(change) = change {
        // Added: new since the lock file was written, or never accepted (a flagged tool
        // is not pinned on first use).
        let what = match change {
            Change::Added => "it is not pinned in the lock file",
            _ => "its definition changed since it was pinned",
        };
        match options.on_change {
            OnChange::Accept => {}
            OnChange::Deny => return (Decision::Withheld(format!("{what} (on_change = deny)")), false),
            OnChange::Ask => {
                return (
                    Decision::Withheld(format!("{what}; waiting for a person to accept it")),
                    true,
                );
            }
        }
    }
    if suspicious {
        return match options.on_suspicious {
            OnSuspicious::Strip => (Decision::Stripped, false),
            // Held back above, before a change could make it wait for a person instead.
            OnSuspicious::Deny => (
                Decision::Withheld("its texts were flagged (on_suspicious = deny)".to_owned()),
                false,
            ),
            // A person pinned it as it is: accepted with its findings.
            OnSuspicious::Ask if is_pinned => (Decision::Offered, false),
            OnSuspicious::Ask => (
                Decision::Withheld("its texts were flagged; waiting for a person to accept it".to_owned()),
                true,
            ),
        };
    }
    (Decision::Offered, false)
}

/// The review of a pinned tool no longer listed.
fn removed(name: &str, definition: &Definition, options: &MountOptions) -> ToolReview {
    ToolReview {
        remote_name: name.to_owned(),
        name: format!("{}{name}", options.prefix),
        sha256: definition.sha256.clone(),
        pinned: true,
        change: Some(Change::Removed),
        diff: Some(definition::diff(Some(definition), None)),
        findings: Vec::new(),
        confusable: None,
        decision: Decision::Withheld("the server no longer lists it".to_owned()),
    }
}

/// What the checks find in the texts of `tool` a model reads.
fn findings(tool: &Value, others: &[&str]) -> Vec<Flagged> {
    let mut flagged = Vec::new();
    for (at, text) in texts(tool) {
        for finding in untrusted::check_description(&text, others) {
            flagged.push(Flagged {
                at: at.clone(),
                finding,
            });
        }
    }
    flagged
}

/// The texts of a listed tool a model reads, by JSON pointer.
fn texts(tool: &Value) -> Vec<(String, String)> {
    let mut texts = Vec::new();
    for pointer in ["/description", "/title", "/annotations/title"] {
        if let Some(Value::String(text)) = tool.pointer(pointer) {
            texts.push((pointer.to_owned(), text.clone()));
        }
    }
    if let Some(schema) = tool.get("inputSchema") {
        schema_texts(schema, "/inputSchema".to_owned(), &mut texts);
    }
    texts
}

/// The `description` and `title` strings anywhere in a schema.
fn schema_texts(value: &Value, at: String, texts: &mut Vec<(String, String)>) {
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                let path = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                match member {
                    Value::String(text) if key == "description" || key == "title" => {
                        texts.push((path, text.clone()));
                    }
                    member => schema_texts(member, path, texts),
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                schema_texts(item, format!("{at}/{index}"), texts);
            }
        }
        _ => {}
    }
}

/// `tool` as offered: every text with invisible characters taken out, and for
/// [`Decision::Stripped`] the flagged passages too; `None` when withheld.
fn offer_of(tool: &Value, review: &ToolReview) -> Option<McpTool> {
    let strip_flagged = match review.decision {
        Decision::Offered => false,
        Decision::Stripped => true,
        Decision::Withheld(_) => return None,
    };
    let mut value = tool.clone();
    for (at, text) in texts(&value) {
        let stripped = untrusted::strip_invisible(&text);
        let mut clean = stripped.text.into_owned();
        if strip_flagged {
            let found: Vec<Finding> = review
                .findings
                .iter()
                .filter(|flagged| flagged.at == at)
                .map(|flagged| flagged.finding.clone())
                .collect();
            clean = untrusted::strip_findings(&clean, &found);
        }
        if let Some(slot) = value.pointer_mut(&at) {
            *slot = Value::String(clean);
        }
    }
    serde_json::from_value(value).ok()
}

/// Asks `reviewer` about each tool waiting for a person, offering (and pinning) those it
/// accepts.
pub(super) async fn ask(reviewed: &mut Reviewed, reviewer: &dyn DefinitionReviewer, server: &str) {
    for entry in &mut reviewed.entries {
        if !entry.awaiting_person || !reviewer.accept(server, &entry.review).await {
            continue;
        }
        entry.review.decision = entry.if_accepted.clone();
        entry.review.pinned = true;
        entry.awaiting_person = false;
        entry.offer = offer_of(&entry.listed, &entry.review);
        reviewed
            .pin
            .push((entry.review.remote_name.clone(), entry.definition.clone()));
    }
}

/// A tool a person accepts by its name on the server, and, when they accept the
/// definition they reviewed, that definition's hash (`sha256:` and hex, or a prefix of at
/// least [`REVIEWED_HASH_DIGITS`] hex digits).
#[derive(Debug, Clone, Copy)]
pub(super) struct Accepted<'a> {
    pub(super) tool: &'a str,
    pub(super) sha256: Option<&'a str>,
}

/// How many hex digits of a definition's hash name it when a person accepts it: 64 bits,
/// too many for a server to find another definition with the same prefix.
pub(super) const REVIEWED_HASH_DIGITS: usize = 16;

/// A tool the server lists differently from what the person accepting it reviewed.
#[derive(Debug)]
pub(super) struct NotAsReviewed {
    pub(super) tool: String,
    pub(super) reviewed: String,
    /// The hash listed now; `None` when the tool is not listed and not pinned.
    pub(super) listed: Option<String>,
}

/// Pins, as a person accepting them does, the listed definitions of the tools named in
/// `tools` (every tool not pinned, when empty), and unpins the removed ones named; the
/// mount then lists again and decides anew. A tool named with a hash is accepted only if
/// the definition listed (or, removed, pinned) has it; otherwise nothing is pinned.
pub(super) fn accept(reviewed: &mut Reviewed, tools: &[Accepted<'_>]) -> Result<(), NotAsReviewed> {
    for expected in tools {
        let Some(hash) = expected.sha256 else { continue };
        let found = reviewed
            .entries
            .iter()
            .map(|entry| &entry.review)
            .chain(&reviewed.removed)
            .find(|review| review.remote_name == expected.tool);
        if !found.is_some_and(|review| names_definition(hash, &review.sha256)) {
            return Err(NotAsReviewed {
                tool: expected.tool.to_owned(),
                reviewed: hash.to_owned(),
                listed: found.map(|review| review.sha256.clone()),
            });
        }
    }
    let named = |name: &str| tools.is_empty() || tools.iter().any(|accepted| accepted.tool == name);
    for entry in &reviewed.entries {
        if named(&entry.review.remote_name) && !entry.review.pinned {
            reviewed
                .pin
                .push((entry.review.remote_name.clone(), entry.definition.clone()));
        }
    }
    for review in &reviewed.removed {
        if named(&review.remote_name) {
            reviewed.unpin.push(review.remote_name.clone());
        }
    }
    Ok(())
}

/// Whether `given` (`sha256:` optional, then hex) names the definition whose hash is
/// `sha256`: its digits are a prefix of the hash's, and there are enough of them. A
/// shorter prefix never matches, so a mistyped one fails closed.
fn names_definition(given: &str, sha256: &str) -> bool {
    let given = given
        .strip_prefix("sha256:")
        .unwrap_or(given)
        .to_ascii_lowercase();
    let hex = sha256.strip_prefix("sha256:").unwrap_or(sha256);
    given.len() >= REVIEWED_HASH_DIGITS
        && given.bytes().all(|b| b.is_ascii_hexdigit())
        && hex.starts_with(&given)
}

/// Updates the lock file: on first use, every tool offered; with [`OnChange::Accept`],
/// the changed and added ones offered and the removed ones; and what a person accepted.
pub(super) fn pin(reviewed: &mut Reviewed, options: &MountOptions, server: &str) -> Result<(), LockError> {
    let Some((lock, mount)) = &options.lock else {
        return Ok(());
    };
    let accept_changes = options.on_change == OnChange::Accept;
    for entry in &mut reviewed.entries {
        let offered = entry.offer.is_some();
        let changed = entry.review.change.is_some();
        if offered && !entry.review.pinned && (reviewed.first_use || (changed && accept_changes)) {
            entry.review.pinned = true;
            reviewed
                .pin
                .push((entry.review.remote_name.clone(), entry.definition.clone()));
        }
    }
    if accept_changes {
        reviewed
            .unpin
            .extend(reviewed.removed.iter().map(|review| review.remote_name.clone()));
    }
    if reviewed.pin.is_empty() && reviewed.unpin.is_empty() && !reviewed.first_use {
        return Ok(());
    }
    lock.pin(mount, server, &reviewed.pin, &reviewed.unpin)?;
    reviewed.pin.clear();
    reviewed.unpin.clear();
    reviewed.first_use = false;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::names_definition;

    const HASH: &str = "sha256:3f9a0c2e7b1d4e85aa00112233445566778899aabbccddeeff00112233445566";

    #[test]
    fn a_definition_is_named_by_sixteen_hex_digits_or_more() {
        assert!(names_definition("sha256:3f9a0c2e7b1d4e85", HASH));
        assert!(names_definition("3F9A0C2E7B1D4E85AA", HASH));
        assert!(names_definition(HASH, HASH));
        // Too short to name one definition, another hash, or not hex: never a match.
        assert!(!names_definition("sha256:3f9a0c2e7b1d4e8", HASH));
        assert!(!names_definition("", HASH));
        assert!(!names_definition("sha256:3f9a0c2e7b1d4e86", HASH));
        assert!(!names_definition("sha256:3f9a0c2e7b1d4e8g", HASH));
    }
}
