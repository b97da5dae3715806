//! The hosts of `[exec] network = [...]` and which of them a connection matches.
//!
//! The grammar is [`ExecNetwork`](crate::ExecNetwork)'s: `name`, `*.suffix` or an IP
//! address, each with an optional `:port` (an IPv6 address in brackets). Every entry is
//! checked when the configuration is: a list that does not parse is a setup error naming
//! the entry, never a silently narrower or wider rule.

use std::net::IpAddr;

use url::Host;

/// The ports an entry without one allows: HTTP and HTTPS.
const DEFAULT_PORTS: [u16; 2] = [80, 443];

/// Hosts a command may reach.
#[derive(Debug, Clone, Default)]
pub(crate) struct AllowList {
    entries: Vec<Entry>,
}

/// One entry of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    host: Pattern,
    /// The one port allowed, or `None` for [`DEFAULT_PORTS`].
    port: Option<u16>,
}

/// What an entry's host part matches.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pattern {
    /// This name (lowercase, without a final dot).
    Name(String),
    /// Any name ending in `.` and this suffix.
    Below(String),
    /// This address, when a command names it itself.
    Address(IpAddr),
}

/// How a connection matched the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Match {
    /// The entry named the port itself (`host:port`), rather than allowing the defaults.
    pub(crate) explicit_port: bool,
    /// The entry is an IP address.
    pub(crate) address: bool,
}

impl AllowList {
    /// Parses the configured entries.
    pub(crate) fn parse(entries: &[String]) -> Result<Self, String> {
        let entries = entries
            .iter()
            .map(|entry| Entry::parse(entry).map_err(|reason| format!("`{entry}`: {reason}")))
            .collect::<Result<_, _>>()?;
        Ok(Self { entries })
    }

    /// The entry allowing `host` on `port`, if any; an explicit port wins over a default
    /// one, so that a listed `host:port` keeps its meaning next to a plain `host`.
    pub(crate) fn find(&self, host: &Host<&str>, port: u16) -> Option<Match> {
        let mut found: Option<Match> = None;
        for entry in &self.entries {
            if entry.allows(host, port) {
                let this = Match {
                    explicit_port: entry.port.is_some(),
                    address: matches!(entry.host, Pattern::Address(_)),
                };
                if found.is_none_or(|before| !before.explicit_port) {
                    found = Some(this);
                }
            }
        }
        found
    }
}

impl Entry {
    fn parse(text: &str) -> Result<Self, &'static str> {
        let text = text.trim();
        let (host, port) = split_port(text)?;
        if let Some(address) = host.strip_prefix('[').and_then(|inner| inner.strip_suffix(']')) {
            let ip = address.parse().map_err(|_| "not an IPv6 address in brackets")?;
            return Ok(Self {
                host: Pattern::Address(IpAddr::V6(ip)),
                port,
            });
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(Self {
                host: Pattern::Address(ip),
                port,
            });
        }
        let host = normalize(host);
        let (wildcard, name) = match host.strip_prefix("*.") {
            Some(suffix) => (true, suffix),
            None => (false, host.as_str()),
        };
        check_name(name)?;
        let pattern = if wildcard {
            Pattern::Below(name.to_owned())
        } else {
            Pattern::Name(name.to_owned())
        };
        Ok(Self { host: pattern, port })
    }

    fn allows(&self, host: &Host<&str>, port: u16) -> bool {
        let port_allowed = match self.port {
            Some(listed) => listed == port,
            None => DEFAULT_PORTS.contains(&port),
        };
        port_allowed
            && match (&self.host, host) {
                (Pattern::Name(name), Host::Domain(asked)) => *name == normalize(asked),
                (Pattern::Below(suffix), Host::Domain(asked)) => {
                    let asked = normalize(asked);
                    asked.len() > suffix.len() + 1
                        && asked.ends_with(suffix.as_str())
                        && asked.as_bytes()[asked.len() - suffix.len() - 1] == b'.'
                }
                (Pattern::Address(listed), Host::Ipv4(asked)) => *listed == IpAddr::V4(*asked),
                (Pattern::Address(listed), Host::Ipv6(asked)) => *listed == IpAddr::V6(*asked),
                _ => false,
            }
    }
}

/// `host` and the port after its last `:`, if the part after it is all digits (an IPv6
/// address has colons of its own, so it needs brackets to carry a port).
fn split_port(text: &str) -> Result<(&str, Option<u16>), &'static str> {
    let bracketed = text.starts_with('[');
    let split = match text.rsplit_once(':') {
        Some((host, port)) if bracketed && host.ends_with(']') => Some((host, port)),
        Some((host, port)) if !bracketed && !host.contains(':') => Some((host, port)),
        _ => None,
    };
    match split {
        Some((host, port)) => {
            let port = port
                .parse::<u16>()
                .ok()
                .filter(|port| *port != 0)
                .ok_or("the port is not a number from 1 to 65535")?;
            Ok((host, Some(port)))
        }
        None => Ok((text, None)),
    }
}

/// Checks a host name: labels of letters, digits, `-` and `_`, no wildcard but a leading
/// `*.` (already taken off), and more than a bare `*`.
fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("no host name (use `network = true` to allow every host)");
    }
    let valid_label = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
    };
    if name.len() > 253 || !name.split('.').all(valid_label) {
        return Err(
            "not a host name (letters, digits, `-` and `_` between dots; a wildcard only as a leading `*.`)",
        );
    }
    Ok(())
}

/// A host name as compared: lowercase, without the final dot of a fully qualified name.
fn normalize(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(entries: &[&str]) -> AllowList {
        AllowList::parse(&entries.iter().map(ToString::to_string).collect::<Vec<_>>()).unwrap()
    }

    fn finds(list: &AllowList, host: &str, port: u16) -> Option<Match> {
        let host = Host::parse(host).unwrap();
        let host = match &host {
            Host::Domain(name) => Host::Domain(name.as_str()),
            Host::Ipv4(ip) => Host::Ipv4(*ip),
            Host::Ipv6(ip) => Host::Ipv6(*ip),
        };
        list.find(&host, port)
    }

    #[test]
    fn names_match_exactly_and_wildcards_only_below() {
        let list = list(&["crates.io", "*.pypi.org"]);
        assert!(finds(&list, "crates.io", 443).is_some());
        assert!(finds(&list, "CRATES.io.", 80).is_some());
        assert!(finds(&list, "static.crates.io", 443).is_none());
        assert!(finds(&list, "evilcrates.io", 443).is_none());
        assert!(finds(&list, "files.pypi.org", 443).is_some());
        assert!(finds(&list, "a.b.pypi.org", 443).is_some());
        assert!(finds(&list, "pypi.org", 443).is_none());
        assert!(finds(&list, "notpypi.org", 443).is_none());
    }

    #[test]
    fn a_port_narrows_and_no_port_means_http_and_https() {
        let list = list(&["crates.io", "git.example.com:22", "pypi.org:443"]);
        assert!(finds(&list, "crates.io", 8080).is_none());
        assert_eq!(
            finds(&list, "git.example.com", 22),
            Some(Match {
                explicit_port: true,
                address: false
            })
        );
        assert!(finds(&list, "git.example.com", 443).is_none());
        assert!(finds(&list, "pypi.org", 80).is_none());
        assert!(!finds(&list, "crates.io", 443).unwrap().explicit_port);
    }

    #[test]
    fn addresses_match_only_addresses() {
        let list = list(&["10.0.0.7:8080", "[fd00::1]", "127.0.0.1"]);
        assert!(finds(&list, "10.0.0.7", 8080).unwrap().address);
        assert!(finds(&list, "[fd00::1]", 443).is_some());
        assert!(finds(&list, "127.0.0.1", 80).is_some());
        assert!(finds(&list, "127.0.0.2", 80).is_none());
        assert!(finds(&list, "localhost", 80).is_none());
    }

    #[test]
    fn bad_entries_are_named() {
        for (entry, reason) in [
            ("*", "not a host name"),
            ("", "no host name"),
            ("*.", "not a host name"),
            ("a.*.b", "not a host name"),
            ("crates.io:0", "the port"),
            ("crates.io:https", "the port"),
            ("http://crates.io", "the port"),
            ("[::1", "not a host name"),
        ] {
            let error = AllowList::parse(&[entry.to_owned()]).unwrap_err();
            assert!(
                error.starts_with(&format!("`{entry}`:")) && error.contains(reason),
                "{entry}: {error}"
            );
        }
    }
}
