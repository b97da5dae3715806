//! Which of a registry's tools are deferred: those marked so, and, when the registry
//! defers all but a core set, every tool outside it.

use std::sync::Arc;

use crate::spec::ToolSpec;

/// A registry's deferral setting, fixed when it is built.
#[derive(Debug, Clone, Default)]
pub(crate) struct Deferral {
    /// `Some`: every tool not named here is deferred.
    all_except: Option<Arc<[String]>>,
}

impl Deferral {
    /// Defers every tool except those named in `core`.
    pub(crate) fn all_except(core: Vec<String>) -> Self {
        Self {
            all_except: Some(core.into()),
        }
    }

    /// Whether the tool is deferred. The registry's own search tool never is.
    pub(crate) fn defers(&self, spec: &ToolSpec) -> bool {
        if super::is_registry_search(spec) {
            return false;
        }
        spec.meta.defer
            || self
                .all_except
                .as_ref()
                .is_some_and(|core| !core.contains(&spec.meta.name))
    }
}
