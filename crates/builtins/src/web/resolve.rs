//! The HTTP client's resolver: every host name goes through the [`SsrfGuard`], and the client
//! connects only to the addresses the guard approved.
//!
//! Checking a name and then letting the client resolve it again would leave a gap: a DNS
//! server under an attacker's control can answer the check with a public address and the
//! connection with `127.0.0.1` (DNS rebinding). Here there is one resolution, and its
//! checked answer is what the client connects to.

use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::ssrf_guard::SsrfGuard;

/// A [`Resolve`] that answers through the guard.
#[derive(Debug, Clone)]
pub(crate) struct CheckedResolver {
    guard: Arc<SsrfGuard>,
}

impl CheckedResolver {
    /// A resolver applying `guard`.
    pub(crate) fn new(guard: Arc<SsrfGuard>) -> Self {
        Self { guard }
    }
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = Arc::clone(&self.guard);
        Box::pin(async move {
            let addrs = guard.resolve(name.as_str()).await?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}
