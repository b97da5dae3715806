//! The proxy's decision for a command under an allow-list: the list first, then the SSRF
//! guard on what a listed name resolves to.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use url::{Host, Url};

use super::allow_list::AllowList;
use super::log::ConnectionLog;
use crate::web::proxy::{Connection, ProxyPolicy, Refusal, TunnelCheck, guarded_addresses, port};
use crate::web::ssrf_guard::SsrfGuard;

/// The allow-list and how its names resolve, shared by every call of one `exec`.
#[derive(Debug)]
pub(crate) struct Rules {
    pub(super) list: AllowList,
    /// On, trusting only the names given to `ExecConfig::resolve`.
    pub(super) guard: SsrfGuard,
}

/// One command's policy: the shared rules and the command's own log.
#[derive(Debug)]
pub(crate) struct CallPolicy {
    pub(super) rules: Arc<Rules>,
    pub(super) log: Arc<ConnectionLog>,
}

impl ProxyPolicy for CallPolicy {
    /// An address the list names is reached as it is, private or not (it was listed on
    /// purpose); a listed name only at the public addresses it resolves to, or at the
    /// address `ExecConfig::resolve` gave it.
    async fn addresses(&self, target: &Url) -> Result<Vec<SocketAddr>, Refusal> {
        let port = port(target);
        let found = target.host().and_then(|host| self.rules.list.find(&host, port));
        let Some(found) = found else {
            return Err(Refusal::Blocked(format!(
                "`{}` on port {port} is not in exec's network allow-list",
                target.host_str().unwrap_or_default()
            )));
        };
        if found.address {
            let ip: IpAddr = match target.host() {
                Some(Host::Ipv4(ip)) => ip.into(),
                Some(Host::Ipv6(ip)) => ip.into(),
                _ => return Err(Refusal::Blocked("the URL has no address".into())),
            };
            return Ok(vec![SocketAddr::new(ip, port)]);
        }
        guarded_addresses(&self.rules.guard, target).await
    }

    /// A tunnel must start TLS naming its host; plain traffic only to an entry that lists
    /// its port.
    fn tunnel(&self, target: &Url) -> TunnelCheck {
        let plain = target
            .host()
            .and_then(|host| self.rules.list.find(&host, port(target)))
            .is_some_and(|found| found.explicit_port);
        TunnelCheck::TlsNamingHost { plain }
    }

    fn record(&self, connection: Connection<'_>) {
        self.log.push(connection);
    }
}
