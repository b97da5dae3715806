//! [`FetchConfig`]: the limits and the network policy of a [`Fetcher`](super::Fetcher).

#[cfg(test)]
use std::net::IpAddr;
use std::net::SocketAddr;
use std::time::Duration;

/// How a [`Fetcher`](super::Fetcher) fetches: its limits, its user agent and whether the
/// SSRF guard is on.
///
/// ```
/// use std::time::Duration;
/// use agent_tools_builtins::web::FetchConfig;
///
/// let config = FetchConfig::default()
///     .timeout(Duration::from_secs(10))
///     .trusted_host("wiki.internal", "10.0.0.7:8080".parse().unwrap());
/// assert_eq!(config.max_redirects, 5);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FetchConfig {
    /// Turn the SSRF guard off: any host may be fetched, loopback and private networks
    /// included. Off by default; only for applications whose model may reach everything
    /// the application can.
    pub allow_private_network: bool,
    /// The `User-Agent` header sent.
    pub user_agent: String,
    /// How long connecting may take (DNS, TCP and TLS), per hop. Default 10 s.
    pub connect_timeout: Duration,
    /// How long a whole fetch may take: every redirect hop, the body and, for
    /// `web_fetch`, converting it. Default 30 s.
    pub timeout: Duration,
    /// Most body bytes kept, counted after decompression; the rest is not read. Default
    /// 10 MiB.
    pub max_body_bytes: usize,
    /// Most redirects followed. Default 5.
    pub max_redirects: usize,
    trusted_hosts: Vec<(String, SocketAddr)>,
    root_certificates: Vec<Vec<u8>>,
    #[cfg(test)]
    pub(crate) static_hosts: Vec<(String, Vec<IpAddr>)>,
}

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            allow_private_network: false,
            user_agent: concat!("agent-tools/", env!("CARGO_PKG_VERSION"), " (web_fetch)").to_owned(),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_body_bytes: 10 * 1024 * 1024,
            max_redirects: 5,
            trusted_hosts: Vec::new(),
            root_certificates: Vec::new(),
            #[cfg(test)]
            static_hosts: Vec::new(),
        }
    }
}

impl FetchConfig {
    /// Sets [`allow_private_network`](Self::allow_private_network).
    pub fn allow_private_network(mut self, allow: bool) -> Self {
        self.allow_private_network = allow;
        self
    }

    /// Sets the [`user_agent`](Self::user_agent).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// Sets the [`connect_timeout`](Self::connect_timeout).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the total [`timeout`](Self::timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets [`max_body_bytes`](Self::max_body_bytes).
    pub fn max_body_bytes(mut self, max: usize) -> Self {
        self.max_body_bytes = max;
        self
    }

    /// Sets [`max_redirects`](Self::max_redirects).
    pub fn max_redirects(mut self, max: usize) -> Self {
        self.max_redirects = max;
        self
    }

    /// Lets one host name through the SSRF guard: `name` (case-insensitive, domain names
    /// only, not IP literals) resolves to `address` and nothing else, whatever DNS says,
    /// and that address is not checked. Meant for internal services a model may read,
    /// e.g. a wiki on `10.0.0.7`. The port of `address` is used when the URL gives none.
    ///
    /// Only the name is exempt: a redirect from it to another private host is refused.
    pub fn trusted_host(mut self, name: impl Into<String>, address: SocketAddr) -> Self {
        self.trusted_hosts.push((name.into(), address));
        self
    }

    /// The trusted host names and their addresses, in the order added.
    pub fn trusted_hosts(&self) -> &[(String, SocketAddr)] {
        &self.trusted_hosts
    }

    /// Trusts the certificate authorities in `pem` (one or more PEM certificates) for
    /// HTTPS, besides the system's: for internal sites whose certificates a private CA
    /// issued. [`Fetcher::new`](super::Fetcher::new) refuses PEM text without a valid
    /// certificate.
    pub fn root_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.root_certificates.push(pem.into());
        self
    }

    /// The PEM texts given to [`root_certificate_pem`](Self::root_certificate_pem), in
    /// the order added.
    pub fn root_certificates(&self) -> &[Vec<u8>] {
        &self.root_certificates
    }

    /// Test-only DNS: `name` resolves to `ips`, which the guard checks like any answer.
    #[cfg(test)]
    pub(crate) fn static_host(mut self, name: &str, ips: &[IpAddr]) -> Self {
        self.static_hosts.push((name.into(), ips.to_vec()));
        self
    }
}
