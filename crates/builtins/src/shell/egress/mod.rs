//! `[exec] network = ["crates.io", "*.crates.io", "pypi.org:443", …]`: commands reach only
//! the listed hosts, through an HTTP/HTTPS proxy the agent runs for each command.
//!
//! The proxy is the web tools' (`web::proxy`), with this module's policy: a connection
//! goes through only to a host and port the list allows ([`allow_list`]), a listed name
//! only to the public addresses it resolves to (the SSRF guard; a listed IP address, or a
//! name given an address with [`ExecConfig::resolve`](crate::ExecConfig::resolve), goes
//! where it says), and a `CONNECT` tunnel only when the TLS ClientHello names the host it
//! was opened to (plain traffic through a tunnel only to an entry that lists its port).
//! Every connection the proxy allowed or refused goes into the call's audit record
//! (`details.network`), and the refused ones into a line of the result ([`log`]).
//!
//! The command is told of the proxy by `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` (and their
//! lowercase forms) and an empty `NO_PROXY`. What keeps it from going around the proxy
//! is the sandbox (see the table in `sandbox`):
//!
//! | layer | stops | does not stop |
//! |---|---|---|
//! | a network namespace per command (root, or unprivileged user namespaces) | every connection but to the proxy: the command's namespace has only its own loopback, where the proxy's listener is ([`PROXY_PORT`]) | — |
//! | Landlock (ABI 4) | TCP connect to any port but the proxy's, and TCP bind | a connect to another host on the proxy's port (without the namespace) |
//! | seccomp | UDP (so DNS of the command's own), raw and packet sockets, SCTP and MPTCP | — |
//! | the proxy | hosts and ports not listed; listed names resolving to private addresses; a tunnel whose TLS names another host | what is said inside TLS to an allowed host: domain fronting (asking a CDN that serves an allowed name for another site it serves) is invisible |
//!
//! Without a network namespace (no root and no user namespaces) the proxy listens on the
//! agent's loopback and only Landlock and seccomp keep the command to it; the result says
//! what is then not enforced (a connection to any host on the proxy's port), and
//! `require_sandbox = true` refuses the call. With `keep_background = true` the command
//! still gets a network namespace, without the PID namespace. A background process gets its
//! own namespace and proxy for its lifetime, so a server it starts is not reachable from
//! another command (which has a loopback of its own); the connections it makes after its
//! `exec` call returned are not in that call's audit record.
//!
//! A command under an allow-list cannot serve TCP or reach a server of its own on loopback
//! either (Landlock refuses bind and every other port).

mod allow_list;
// Network namespaces, and so a listener handed out of one, are Linux's.
#[cfg(target_os = "linux")]
mod listener;
mod log;
mod policy;

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use self::allow_list::AllowList;
use self::log::ConnectionLog;
use self::policy::{CallPolicy, Rules};
use super::sandbox::ProxyRoute;
use crate::ExecNetwork;
use crate::config::exec::ExecConfig;
use crate::web::proxy::GuardedProxy;
use crate::web::ssrf_guard::SsrfGuard;

/// The port the proxy listens on inside a command's network namespace: fixed, since the
/// namespace is the command's alone.
pub(crate) const PROXY_PORT: u16 = 3128;

/// How long the proxy gives a connection to reach its server.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// An `exec` configuration's allow-list, checked once.
#[derive(Debug, Clone)]
pub(crate) struct Egress {
    rules: Arc<Rules>,
}

impl Egress {
    /// The allow-list of `config`, if it has one; an entry that does not parse is named.
    pub(crate) fn of(config: &ExecConfig) -> Result<Option<Self>, String> {
        let ExecNetwork::Allow(entries) = &config.network else {
            return Ok(None);
        };
        let list = AllowList::parse(entries).map_err(|reason| format!("[exec] network: {reason}"))?;
        let guard = SsrfGuard::trusting(false, config.resolved_hosts());
        Ok(Some(Self {
            rules: Arc::new(Rules { list, guard }),
        }))
    }

    /// Starts one command's proxy: to be served from the command's own network namespace
    /// (`namespaced`), or on the agent's loopback. Must be called within a Tokio runtime.
    pub(crate) fn open(&self, namespaced: bool) -> std::io::Result<(CallProxy, ProxyRoute)> {
        let log = Arc::new(ConnectionLog::default());
        let policy = CallPolicy {
            rules: self.rules.clone(),
            log: log.clone(),
        };
        #[cfg(not(target_os = "linux"))]
        let _ = namespaced;
        #[cfg(target_os = "linux")]
        if namespaced {
            let (agent, child) = listener::link()?;
            let task = tokio::spawn(async move {
                // A child that failed before sending closes its end: nothing to serve.
                let Ok(listener) = listener::receive(&agent).await else {
                    return;
                };
                let Ok(_proxy) = GuardedProxy::serve(listener, policy, CONNECT_TIMEOUT) else {
                    return;
                };
                // Serving until the call drops its `CallProxy`, which aborts this task.
                std::future::pending::<()>().await;
            });
            let proxy = CallProxy {
                log,
                port: PROXY_PORT,
                _served: Served::Task {
                    _task: AbortOnDrop(task),
                },
            };
            return Ok((proxy, ProxyRoute::Namespace(child)));
        }
        let listener = std::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        let proxy = GuardedProxy::serve(
            tokio::net::TcpListener::from_std(listener)?,
            policy,
            CONNECT_TIMEOUT,
        )?;
        let port = proxy.addr().port();
        let proxy = CallProxy {
            log,
            port,
            _served: Served::Proxy { _proxy: proxy },
        };
        Ok((proxy, ProxyRoute::Shared(port)))
    }
}

/// One command's proxy, served until this is dropped, and what it decided.
#[derive(Debug)]
pub(crate) struct CallProxy {
    log: Arc<ConnectionLog>,
    port: u16,
    _served: Served,
}

#[derive(Debug)]
enum Served {
    /// Waiting for, then serving, the listener of the command's namespace.
    Task { _task: AbortOnDrop },
    /// On the agent's loopback.
    Proxy { _proxy: GuardedProxy },
}

#[derive(Debug)]
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl CallProxy {
    /// The variables that point the command's HTTP clients at the proxy.
    pub(crate) fn environment(&self) -> Vec<(&'static str, String)> {
        let url = format!("http://127.0.0.1:{}", self.port);
        let mut vars = Vec::new();
        for name in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
            vars.push((name, url.clone()));
        }
        for name in ["http_proxy", "https_proxy", "all_proxy"] {
            vars.push((name, url.clone()));
        }
        vars.push(("NO_PROXY", String::new()));
        vars.push(("no_proxy", String::new()));
        vars
    }

    /// Every connection so far, for the audit record.
    pub(crate) fn audit(&self) -> Option<serde_json::Value> {
        self.log.audit()
    }

    /// The line naming refused connections, if any.
    pub(crate) fn refused_note(&self) -> Option<String> {
        self.log.refused_note()
    }
}
