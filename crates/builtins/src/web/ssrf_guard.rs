//! The SSRF guard: which hosts a fetch may reach, checked on the URL and again on every
//! address a host name resolves to.
//!
//! A URL names its host in one of two ways. An IP literal (in any of the encodings the
//! WHATWG URL parser accepts — `2130706433`, `0x7f.1`, `0177.0.0.1`, `[::ffff:7f00:1]` —
//! which the `url` crate normalizes to an address) is judged before any request is made,
//! since the HTTP client connects to it without resolving. A host name is judged by the
//! addresses it resolves to, inside the HTTP client's resolver ([`super::resolve`]), so
//! the addresses checked are exactly the ones connected to. `localhost` and its
//! subdomains are refused by name, without asking DNS.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};

use url::{Host, Url};

use super::address::blocked_reason;
use super::config::FetchConfig;

/// Why a host may not be fetched from, or could not be resolved; its message is for the
/// model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SsrfGuardError {
    /// The host is, or resolves to, an address outside the public internet.
    #[error("{0}")]
    Blocked(String),
    /// The host name could not be resolved.
    #[error("cannot resolve host `{host}`: {reason}")]
    Unresolvable {
        /// The host name.
        host: String,
        /// What the resolver said.
        reason: String,
    },
}

/// The guard's policy: whether it is on, and the host names exempt from it.
#[derive(Debug, Clone)]
pub(crate) struct SsrfGuard {
    allow_private_network: bool,
    /// Exempt host names (lowercase, without a trailing dot) and the one address each
    /// resolves to.
    trusted: HashMap<String, SocketAddr>,
    /// Test-only DNS answers, checked like real ones.
    #[cfg(test)]
    static_hosts: HashMap<String, Vec<IpAddr>>,
}

impl SsrfGuard {
    /// The guard a fetcher with this configuration applies.
    #[cfg(feature = "web")]
    pub(crate) fn new(config: &FetchConfig) -> Self {
        let guard = Self::trusting(config.allow_private_network, config.trusted_hosts());
        #[cfg(test)]
        let guard = Self {
            static_hosts: config
                .static_hosts
                .iter()
                .map(|(name, ips)| (normalize(name), ips.clone()))
                .collect(),
            ..guard
        };
        guard
    }

    /// A guard, on unless `allow_private_network`, that lets the `trusted` host names
    /// through to their addresses (see [`FetchConfig::trusted_host`]).
    pub(crate) fn trusting(allow_private_network: bool, trusted: &[(String, SocketAddr)]) -> Self {
        Self {
            allow_private_network,
            trusted: trusted
                .iter()
                .map(|(name, addr)| (normalize(name), *addr))
                .collect(),
            #[cfg(test)]
            static_hosts: HashMap::new(),
        }
    }

    /// Checks a URL's host before a request: IP literals by address, names by name (their
    /// addresses are checked when they are resolved).
    pub(crate) fn check_url(&self, url: &Url) -> Result<(), SsrfGuardError> {
        if self.allow_private_network {
            return Ok(());
        }
        match url.host() {
            Some(Host::Ipv4(ip)) => check_ip(&ip.to_string(), IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => check_ip(&format!("[{ip}]"), IpAddr::V6(ip)),
            Some(Host::Domain(name)) => self.check_name(&normalize(name)),
            None => Err(SsrfGuardError::Blocked("the URL has no host".into())),
        }
    }

    /// Resolves a host name to the addresses to connect to: a trusted host's own address,
    /// or the resolver's answer when every address in it may be reached.
    pub(crate) async fn resolve(&self, host: &str) -> Result<Vec<SocketAddr>, SsrfGuardError> {
        let name = normalize(host);
        if let Some(addr) = self.trusted.get(&name) {
            return Ok(vec![*addr]);
        }
        if !self.allow_private_network {
            self.check_name(&name)?;
        }
        let addrs = self.lookup(&name).await?;
        if !self.allow_private_network {
            for addr in &addrs {
                if let Some(reason) = blocked_reason(addr.ip()) {
                    return Err(SsrfGuardError::Blocked(format!(
                        "`{name}` resolves to {}, {reason}",
                        addr.ip()
                    )));
                }
            }
        }
        Ok(addrs)
    }

    fn check_name(&self, name: &str) -> Result<(), SsrfGuardError> {
        let local = name == "localhost" || name.ends_with(".localhost");
        if local && !self.trusted.contains_key(name) {
            return Err(SsrfGuardError::Blocked(format!("`{name}` names this machine")));
        }
        Ok(())
    }

    async fn lookup(&self, name: &str) -> Result<Vec<SocketAddr>, SsrfGuardError> {
        #[cfg(test)]
        if let Some(ips) = self.static_hosts.get(name) {
            return Ok(ips.iter().map(|ip| SocketAddr::new(*ip, 0)).collect());
        }
        let unresolvable = |reason: String| SsrfGuardError::Unresolvable {
            host: name.to_owned(),
            reason,
        };
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((name, 0))
            .await
            .map_err(|error| unresolvable(error.to_string()))?
            .collect();
        if addrs.is_empty() {
            return Err(unresolvable("no addresses".into()));
        }
        Ok(addrs)
    }
}

fn check_ip(shown: &str, ip: IpAddr) -> Result<(), SsrfGuardError> {
    match blocked_reason(ip) {
        // Say what the literal meant: `0x7f.1` is shown as the 127.0.0.1 it stands for.
        Some(reason) => Err(SsrfGuardError::Blocked(format!("{shown} is {reason}"))),
        None => Ok(()),
    }
}

/// A host name as compared: lowercase, without the trailing dot of a fully qualified name.
fn normalize(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}
