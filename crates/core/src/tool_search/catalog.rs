//! The deferred tools one registry table's `tool_search` searches, and their indexes.
//!
//! The index of them all is built at the first search. A caller that sees only some of
//! them ([`ToolVisibility`]) is searched in an index of those alone, built at its first
//! search and kept for the next callers that see the same tools: filtering the results of
//! the full index would leave the hidden tools' words in BM25's weights and document
//! lengths, and so in the order of what the caller is shown. Callers that see the same
//! tools share an index (an MCP server has one set per combination of scopes), and at
//! most [`MAX_VIEWS`] such sets are kept, the least recently searched dropped first.
//!
//! What it stops: a hidden tool being returned, taking a place within the limit, or
//! changing the ranking. What it does not: the time of a first search by a new set of
//! visible tools (an index is built) tells that set is new; and deciding the set asks the
//! visibility about every deferred tool, once per search.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::ToolVisibility;
use super::index::SearchIndex;
use crate::{spec::ToolSpec, tool::Tool};

/// How many indexes of parts of the catalog are kept.
const MAX_VIEWS: usize = 16;

/// The deferred tools of one registry table, indexed at the first search.
pub(super) struct Catalog {
    tools: Vec<Arc<dyn Tool>>,
    /// The view of every tool.
    all: Arc<View>,
    /// Views of parts, least recently searched first.
    parts: Mutex<VecDeque<Arc<View>>>,
}

/// Some of the catalog's tools and their index.
struct View {
    /// Positions in the catalog, ascending.
    positions: Vec<usize>,
    index: OnceLock<SearchIndex>,
}

impl Catalog {
    pub(super) fn new(tools: Vec<Arc<dyn Tool>>) -> Self {
        Self {
            all: Arc::new(View {
                positions: (0..tools.len()).collect(),
                index: OnceLock::new(),
            }),
            tools,
            parts: Mutex::default(),
        }
    }

    /// The best `limit` tools for `query` among those `visibility` sees (all without
    /// one), best first, ranked as if no other tool were deferred.
    pub(super) async fn search(
        self: &Arc<Self>,
        visibility: Option<&ToolVisibility>,
        query: &str,
        limit: usize,
    ) -> Vec<Arc<dyn Tool>> {
        let Some(view) = self.view(visibility) else {
            return Vec::new();
        };
        // Indexing a large tool set takes milliseconds (about 20 for 1,000 tools), too
        // long to hold a runtime worker; a search in a built index takes microseconds.
        if view.index.get().is_none() {
            let (catalog, building) = (self.clone(), view.clone());
            let _ = tokio::task::spawn_blocking(move || {
                catalog.index(&building);
            })
            .await;
        }
        self.index(&view)
            .search(query, limit)
            .into_iter()
            .map(|found| self.tools[view.positions[found]].clone())
            .collect()
    }

    /// The view of the tools `visibility` sees; `None` when it sees none.
    fn view(&self, visibility: Option<&ToolVisibility>) -> Option<Arc<View>> {
        let Some(visibility) = visibility else {
            return Some(self.all.clone());
        };
        let positions: Vec<usize> = (0..self.tools.len())
            .filter(|&position| visibility.sees(self.tools[position].spec()))
            .collect();
        if positions.is_empty() {
            return None;
        }
        if positions.len() == self.tools.len() {
            return Some(self.all.clone());
        }
        let mut parts = self.parts.lock().unwrap_or_else(PoisonError::into_inner);
        let view = match parts.iter().position(|part| part.positions == positions) {
            Some(at) => parts.remove(at)?,
            None => {
                if parts.len() >= MAX_VIEWS {
                    parts.pop_front();
                }
                Arc::new(View {
                    positions,
                    index: OnceLock::new(),
                })
            }
        };
        parts.push_back(view.clone());
        Some(view)
    }

    /// The index of `view`, built on first use.
    fn index<'a>(&self, view: &'a View) -> &'a SearchIndex {
        view.index.get_or_init(|| {
            let specs: Vec<&ToolSpec> = view
                .positions
                .iter()
                .map(|&position| self.tools[position].spec())
                .collect();
            SearchIndex::new(&specs)
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{context::ToolContext, dynamic::DynamicTool, error::ToolError};

    fn tool(name: &str, description: &str) -> Arc<dyn Tool> {
        Arc::new(DynamicTool::new(
            name,
            description,
            json!({"type": "object"}),
            |_args: serde_json::Value, _ctx: ToolContext| async move { Ok::<_, ToolError>("") },
        ))
    }

    fn names(found: &[Arc<dyn Tool>]) -> Vec<String> {
        found.iter().map(|tool| tool.spec().meta.name.clone()).collect()
    }

    /// Hides the tools whose names start with `secret_`.
    fn no_secrets() -> ToolVisibility {
        ToolVisibility::new(|spec: &ToolSpec| !spec.meta.name.starts_with("secret_"))
    }

    #[tokio::test]
    async fn callers_that_see_the_same_tools_share_an_index_and_few_are_kept() {
        let catalog = Arc::new(Catalog::new(vec![
            tool("report_sales", "Sales report."),
            tool("secret_report", "Secret report."),
        ]));
        let everything = ToolVisibility::new(|_: &ToolSpec| true);
        let nothing = ToolVisibility::new(|_: &ToolSpec| false);
        assert_eq!(
            names(&catalog.search(Some(&everything), "report", 5).await).len(),
            2
        );
        assert!(catalog.search(Some(&nothing), "report", 5).await.is_empty());
        assert!(
            catalog.parts.lock().unwrap().is_empty(),
            "seeing all or nothing needs no index of a part"
        );
        for _ in 0..3 {
            assert_eq!(
                names(&catalog.search(Some(&no_secrets()), "report", 5).await),
                ["report_sales"]
            );
        }
        assert_eq!(catalog.parts.lock().unwrap().len(), 1, "one set seen, one index");

        let many: Vec<Arc<dyn Tool>> = (0..MAX_VIEWS + 2)
            .map(|n| tool(&format!("tool_{n}"), "A tool."))
            .collect();
        let catalog = Arc::new(Catalog::new(many));
        for hidden in 0..MAX_VIEWS + 2 {
            let name = format!("tool_{hidden}");
            let visibility = ToolVisibility::new(move |spec: &ToolSpec| spec.meta.name != name);
            let found = catalog.search(Some(&visibility), "tool", 50).await;
            assert_eq!(found.len(), MAX_VIEWS + 1);
        }
        assert_eq!(catalog.parts.lock().unwrap().len(), MAX_VIEWS);
    }
}
