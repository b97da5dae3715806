//! A large tool set and the queries a model would send to find its tools, for the tool
//! search bench (latency, payload, recall) and the quality test.
//!
//! The synthetic tools are what a gateway mounting SaaS servers holds: 25 services, each
//! with the same 40 operations (5 verbs over 8 objects), so that words such as `file`,
//! `message`, `search` or `event` are everywhere and a query must be specific to win.
//!
//! Plain data and JSON here; each binary turns the tools into its registry's (this crate
//! depends on no crate of ours, see the crate's docs).

use std::future::Future;

use serde_json::{Value, json};

const SERVICES: [(&str, &str); 25] = [
    ("github", "GitHub"),
    ("gitlab", "GitLab"),
    ("jira", "Jira"),
    ("linear", "Linear"),
    ("slack", "Slack"),
    ("discord", "Discord"),
    ("gmail", "Gmail"),
    ("outlook", "Outlook"),
    ("gcal", "Google Calendar"),
    ("gdrive", "Google Drive"),
    ("dropbox", "Dropbox"),
    ("notion", "Notion"),
    ("confluence", "Confluence"),
    ("salesforce", "Salesforce"),
    ("hubspot", "HubSpot"),
    ("stripe", "Stripe"),
    ("shopify", "Shopify"),
    ("zendesk", "Zendesk"),
    ("intercom", "Intercom"),
    ("twilio", "Twilio"),
    ("s3", "Amazon S3"),
    ("ec2", "Amazon EC2"),
    ("kubernetes", "Kubernetes"),
    ("datadog", "Datadog"),
    ("pagerduty", "PagerDuty"),
];

const VERBS: [(&str, &str); 5] = [
    ("create", "Create a new"),
    ("get", "Get one"),
    ("list", "List the"),
    ("update", "Update an existing"),
    ("delete", "Delete a"),
];

const OBJECTS: [(&str, &str); 8] = [
    ("record", "record, with its fields and owner"),
    ("comment", "comment on an item, with its author and text"),
    ("user", "user account, with name, email and role"),
    ("file", "file or attachment, with its name, size and link"),
    ("message", "message in a channel or thread"),
    ("event", "event or activity entry, with its time"),
    ("report", "report or export of usage data"),
    ("webhook", "webhook subscription that notifies a URL"),
];

/// One synthetic tool: its name, description and input schema.
pub struct SyntheticTool {
    /// `<service>_<verb>_<object>`.
    pub name: String,
    /// What it does, in a sentence.
    pub description: String,
    /// Its arguments' JSON Schema.
    pub schema: Value,
}

/// `count` tools (at most 1,000) of the synthetic gateway, named
/// `<service>_<verb>_<object>`.
pub fn synthetic_tools(count: usize) -> Vec<SyntheticTool> {
    let mut tools = Vec::new();
    for (service, title) in SERVICES {
        for (verb, verb_text) in VERBS {
            for (object, object_text) in OBJECTS {
                let schema = json!({
                    "type": "object",
                    "properties": {
                        "workspace": {"type": "string", "description": format!("The {title} workspace or account")},
                        "id": {"type": "string", "description": format!("The {object}'s id")},
                        "fields": {"type": "object", "description": "Fields to set or filter by"},
                    },
                    "required": ["workspace"],
                });
                tools.push(SyntheticTool {
                    name: format!("{service}_{verb}_{object}"),
                    description: format!("{verb_text} {object_text} in {title}."),
                    schema,
                });
            }
        }
    }
    tools.truncate(count);
    tools
}

/// Queries a model would send, with the tool it needs: the built-in tools, the
/// everything server's (mounted as `ev_`), and a few of the synthetic ones.
pub const QUERIES: &[(&str, &str)] = &[
    ("read the contents of a text file", "read_file"),
    ("write a new file", "write_file"),
    ("replace a piece of text in a file", "edit_file"),
    ("edit_file", "edit_file"),
    ("list the files in a directory", "list_dir"),
    ("search the code for a regular expression", "file_search"),
    ("find files by glob pattern", "file_search"),
    ("run a shell command", "exec"),
    ("execute git status", "exec"),
    ("download a web page", "web_fetch"),
    ("fetch a URL over HTTP", "web_fetch"),
    ("take a screenshot of the screen", "screenshot"),
    ("remember this for later", "memory_write"),
    ("save a note that persists across sessions", "memory_write"),
    ("search my saved memories", "memory_search"),
    ("read the most recent memories", "memory_read"),
    ("echo back a string", "ev_echo"),
    ("add two numbers", "ev_get-sum"),
    ("show the environment variables", "ev_get-env"),
    ("get a tiny image", "ev_get-tiny-image"),
    ("compress a file with gzip", "ev_gzip-file-as-resource"),
    (
        "long running operation with progress updates",
        "ev_trigger-long-running-operation",
    ),
    ("ask the user to fill in a form", "ev_trigger-elicitation-request"),
    (
        "request LLM sampling from the client",
        "ev_trigger-sampling-request",
    ),
    ("deep research on a topic", "ev_simulate-research-query"),
    ("turn logging on or off", "ev_toggle-simulated-logging"),
    (
        "structured content with an output schema",
        "ev_get-structured-content",
    ),
    ("get resource links", "ev_get-resource-links"),
    ("delete a Stripe webhook", "stripe_delete_webhook"),
    ("list slack messages", "slack_list_message"),
    ("update a hubspot user's role", "hubspot_update_user"),
    ("create a jira comment", "jira_create_comment"),
    ("upload a file to dropbox", "dropbox_create_file"),
    ("pagerduty events", "pagerduty_list_event"),
];

/// For each query whose tool the registry has (`has`): whether the search lists it among
/// the first `k`. `search(query, k)` runs `tool_search` and returns its text, one tool per
/// line, the name first. Returns (queries asked, found, the misses with what came first).
pub async fn recall_at<S, F>(k: u64, has: impl Fn(&str) -> bool, mut search: S) -> (usize, usize, Vec<String>)
where
    S: FnMut(Value) -> F,
    F: Future<Output = String>,
{
    let mut asked = 0;
    let mut found = 0;
    let mut misses = Vec::new();
    for (query, expected) in QUERIES {
        if !has(expected) {
            continue;
        }
        asked += 1;
        let listed: Vec<String> = search(json!({"query": query, "limit": k}))
            .await
            .lines()
            .filter_map(|line| line.split(' ').next().map(str::to_owned))
            .collect();
        if listed.iter().any(|name| name == expected) {
            found += 1;
        } else {
            misses.push(format!("`{query}` → expected {expected}, got {listed:?}"));
        }
    }
    (asked, found, misses)
}

/// The bytes of a request's tool list, as sent.
pub fn payload_bytes(definitions: &[Value]) -> usize {
    serde_json::to_string(definitions).map_or(0, |text| text.len())
}
