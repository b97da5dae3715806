//! Routing a remote server's `notifications/progress` to the calls that asked for them.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use agent_tools_core::ToolContext;
use rmcp::model::{ProgressNotificationParam, ProgressToken};

/// The calls in flight that want progress, by the progress token of their request.
///
/// A token is known only once its request is queued, so a fast server's first report
/// can arrive before the call has registered; such reports wait in `early` (a few, the
/// oldest dropped first) for their call.
#[derive(Clone, Default)]
pub(super) struct ProgressRoutes(Arc<Mutex<Routes>>);

#[derive(Default)]
struct Routes {
    calls: HashMap<ProgressToken, ToolContext>,
    early: VecDeque<ProgressNotificationParam>,
}

/// How many reports without a call are kept. A busy process may not resume the call's
/// task until a fast server has sent hundreds (32 lost the first reports of a flood while
/// other tests loaded both cores); a report is a few hundred bytes, so this bounds what a
/// server's reports for tokens no call has can take at a few hundred KiB.
const EARLY_PROGRESS: usize = 1024;

impl ProgressRoutes {
    /// Sends progress for `token` to `ctx` (first any that came early) until the guard
    /// is dropped.
    pub(super) fn route(&self, token: ProgressToken, ctx: ToolContext) -> ProgressRoute {
        let early: VecDeque<ProgressNotificationParam> = {
            let mut routes = self.lock();
            routes.calls.insert(token.clone(), ctx.clone());
            let (mine, others) = routes
                .early
                .drain(..)
                .partition(|params| params.progress_token == token);
            routes.early = others;
            mine
        };
        for params in &early {
            forward(&ctx, params);
        }
        ProgressRoute {
            routes: self.clone(),
            token,
        }
    }

    pub(super) fn report(&self, params: ProgressNotificationParam) {
        let ctx = {
            let mut routes = self.lock();
            let ctx = routes.calls.get(&params.progress_token).cloned();
            if ctx.is_none() {
                if routes.early.len() == EARLY_PROGRESS {
                    routes.early.pop_front();
                }
                routes.early.push_back(params.clone());
            }
            ctx
        };
        // Outside the lock: the reporter is the caller's code.
        if let Some(ctx) = ctx {
            forward(&ctx, &params);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn forward(ctx: &ToolContext, params: &ProgressNotificationParam) {
    ctx.report_progress(params.progress, params.total, params.message.as_deref());
}

/// Removes a call's progress route when the call ends.
pub(super) struct ProgressRoute {
    routes: ProgressRoutes,
    token: ProgressToken,
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        let removed = self.routes.lock().calls.remove(&self.token);
        drop(removed);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use agent_tools_core::context::{Progress, ProgressReporter};
    use rmcp::model::NumberOrString;

    use super::*;

    fn report(token: i64, progress: f64) -> ProgressNotificationParam {
        ProgressNotificationParam::new(ProgressToken(NumberOrString::Number(token)), progress)
    }

    #[test]
    fn progress_that_comes_before_its_call_is_delivered_when_it_registers() {
        let routes = ProgressRoutes::default();
        let seen = Arc::new(Mutex::new(Vec::<Progress>::new()));
        let sink = seen.clone();
        let ctx = ToolContext::new("c1").with_progress(ProgressReporter::new(move |progress| {
            sink.lock().unwrap().push(progress);
        }));
        routes.report(report(1, 0.5));
        routes.report(report(2, 9.0));
        let route = routes.route(ProgressToken(NumberOrString::Number(1)), ctx);
        routes.report(report(1, 1.0));
        drop(route);
        routes.report(report(1, 2.0));
        let progress: Vec<f64> = seen.lock().unwrap().iter().map(|p| p.progress).collect();
        assert_eq!(progress, [0.5, 1.0]);
        assert!(routes.lock().calls.is_empty());
        // Early reports are bounded.
        for n in 0..2 * EARLY_PROGRESS as i64 {
            routes.report(report(100 + n, 0.0));
        }
        assert_eq!(routes.lock().early.len(), EARLY_PROGRESS);
    }
}
