//! Which IP addresses a model-driven fetch may connect to.
//!
//! The rule is a deny list for IPv4 (the special-purpose registry: loopback, private,
//! link-local, CGNAT, documentation, benchmarking, multicast, reserved, …) and an allow
//! list for IPv6 (only global unicast, `2000::/3`, minus its special blocks). IPv6 forms
//! that carry an IPv4 address — IPv4-mapped, IPv4-compatible, NAT64 and 6to4 — are judged
//! by the address they carry, since connecting to them reaches that IPv4 address. Cloud
//! metadata endpoints are named on their own, so the refusal says what was at stake.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address may not be fetched from, as a phrase: "a loopback address".
pub(crate) type Reason = &'static str;

/// Cloud metadata services, which hand out credentials to whoever asks from inside.
const METADATA: &[(IpAddr, Reason)] = &[
    (
        IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254)),
        "a cloud metadata address",
    ),
    (
        IpAddr::V4(Ipv4Addr::new(100, 100, 100, 200)),
        "a cloud metadata address",
    ),
    (
        IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)),
        "a cloud metadata address",
    ),
];

/// IPv4 ranges that are not the public internet, most specific first.
const V4_BLOCKED: &[(Ipv4Addr, u8, Reason)] = &[
    (Ipv4Addr::BROADCAST, 32, "the broadcast address"),
    (
        Ipv4Addr::new(0, 0, 0, 0),
        8,
        "a \"this network\" address (0.0.0.0/8)",
    ),
    (Ipv4Addr::new(10, 0, 0, 0), 8, "a private address"),
    (Ipv4Addr::new(100, 64, 0, 0), 10, "a shared (CGNAT) address"),
    (Ipv4Addr::new(127, 0, 0, 0), 8, "a loopback address"),
    (Ipv4Addr::new(169, 254, 0, 0), 16, "a link-local address"),
    (Ipv4Addr::new(172, 16, 0, 0), 12, "a private address"),
    (
        Ipv4Addr::new(192, 0, 0, 0),
        24,
        "an IETF protocol assignment address",
    ),
    (Ipv4Addr::new(192, 0, 2, 0), 24, "a documentation address"),
    (Ipv4Addr::new(192, 88, 99, 0), 24, "a 6to4 relay address"),
    (Ipv4Addr::new(192, 168, 0, 0), 16, "a private address"),
    (Ipv4Addr::new(198, 18, 0, 0), 15, "a benchmarking address"),
    (Ipv4Addr::new(198, 51, 100, 0), 24, "a documentation address"),
    (Ipv4Addr::new(203, 0, 113, 0), 24, "a documentation address"),
    (Ipv4Addr::new(224, 0, 0, 0), 4, "a multicast address"),
    (Ipv4Addr::new(240, 0, 0, 0), 4, "a reserved address"),
];

/// Special blocks inside IPv6 global unicast (`2000::/3`), most specific first.
const V6_BLOCKED: &[(Ipv6Addr, u8, Reason)] = &[
    (
        Ipv6Addr::new(0x2001, 0x2, 0, 0, 0, 0, 0, 0),
        48,
        "a benchmarking address",
    ),
    (
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "a documentation address",
    ),
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        32,
        "a Teredo tunnel address",
    ),
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        "an IETF protocol assignment address",
    ),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "a documentation address",
    ),
];

/// Why `ip` must not be connected to, or `None` for a public address.
pub(crate) fn blocked_reason(ip: IpAddr) -> Option<Reason> {
    if let Some((_, reason)) = METADATA.iter().find(|(metadata, _)| *metadata == ip) {
        return Some(reason);
    }
    match ip {
        IpAddr::V4(v4) => v4_reason(v4),
        IpAddr::V6(v6) => v6_reason(v6),
    }
}

fn v4_reason(ip: Ipv4Addr) -> Option<Reason> {
    let top = |ip: Ipv4Addr| u128::from(u32::from(ip)) << 96;
    V4_BLOCKED
        .iter()
        .find(|(network, prefix, _)| in_prefix(top(ip), top(*network), *prefix))
        .map(|(_, _, reason)| *reason)
}

fn v6_reason(ip: Ipv6Addr) -> Option<Reason> {
    if let Some(embedded) = embedded_v4(ip) {
        // The connection reaches the IPv4 address; metadata is checked again on it.
        return blocked_reason(IpAddr::V4(embedded));
    }
    let special = match ip.segments()[0] {
        0 if ip.is_unspecified() => Some("the unspecified address"),
        0 if ip.is_loopback() => Some("a loopback address"),
        0xfc00..=0xfdff => Some("a private (unique local) address"),
        0xfe80..=0xfebf => Some("a link-local address"),
        0xfec0..=0xfeff => Some("a site-local address"),
        0xff00..=0xffff => Some("a multicast address"),
        0x2000..=0x3fff => None,
        _ => Some("a reserved address (not global unicast)"),
    };
    special.or_else(|| {
        V6_BLOCKED
            .iter()
            .find(|(network, prefix, _)| in_prefix(u128::from(ip), u128::from(*network), *prefix))
            .map(|(_, _, reason)| *reason)
    })
}

/// The IPv4 address an IPv6 address stands for: IPv4-mapped (`::ffff:0:0/96`),
/// IPv4-compatible (`::/96`, deprecated), NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(low),
        // `::` and `::1` are IPv6's own unspecified and loopback addresses.
        [0, 0, 0, 0, 0, 0, 0, 0 | 1] => None,
        [0, 0, 0, 0, 0, 0, _, _] => Some(low),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(low),
        [0x2002, high, low_half, ..] => Some(Ipv4Addr::from((u32::from(high) << 16) | u32::from(low_half))),
        _ => None,
    }
}

/// Whether the top `prefix` bits of `bits` equal those of `network` (IPv4 addresses are
/// compared in the top 32 bits).
fn in_prefix(bits: u128, network: u128, prefix: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
    bits & mask == network & mask
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(address: &str) -> Option<Reason> {
        blocked_reason(address.parse().expect("a valid IP address"))
    }

    #[test]
    fn public_addresses_pass() {
        for address in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.215.14",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2a00:1450:4001:80b::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert_eq!(reason(address), None, "{address}");
        }
    }

    #[test]
    fn ipv4_special_ranges_are_refused() {
        for (address, expected) in [
            ("127.0.0.1", "a loopback address"),
            ("127.255.255.254", "a loopback address"),
            ("10.1.2.3", "a private address"),
            ("172.16.0.1", "a private address"),
            ("172.31.255.255", "a private address"),
            ("192.168.1.1", "a private address"),
            ("169.254.1.1", "a link-local address"),
            ("100.64.0.1", "a shared (CGNAT) address"),
            ("100.127.255.255", "a shared (CGNAT) address"),
            ("0.0.0.0", "a \"this network\" address (0.0.0.0/8)"),
            ("0.1.2.3", "a \"this network\" address (0.0.0.0/8)"),
            ("224.0.0.1", "a multicast address"),
            ("239.255.255.250", "a multicast address"),
            ("255.255.255.255", "the broadcast address"),
            ("240.0.0.1", "a reserved address"),
            ("192.0.2.10", "a documentation address"),
            ("198.51.100.7", "a documentation address"),
            ("203.0.113.99", "a documentation address"),
            ("198.18.0.1", "a benchmarking address"),
            ("198.19.255.255", "a benchmarking address"),
            ("192.0.0.8", "an IETF protocol assignment address"),
        ] {
            assert_eq!(reason(address), Some(expected), "{address}");
        }
    }

    #[test]
    fn ipv6_special_ranges_are_refused() {
        for (address, expected) in [
            ("::", "the unspecified address"),
            ("::1", "a loopback address"),
            ("fc00::1", "a private (unique local) address"),
            ("fd12:3456::1", "a private (unique local) address"),
            ("fe80::1", "a link-local address"),
            ("febf::1", "a link-local address"),
            ("fec0::1", "a site-local address"),
            ("ff02::1", "a multicast address"),
            ("2001:db8::1", "a documentation address"),
            ("2001:2::1", "a benchmarking address"),
            ("2001:0:4136:e378::1", "a Teredo tunnel address"),
            ("3fff::1", "a documentation address"),
            ("100::1", "a reserved address (not global unicast)"),
            ("64:ff9b:1::1", "a reserved address (not global unicast)"),
        ] {
            assert_eq!(reason(address), Some(expected), "{address}");
        }
    }

    #[test]
    fn embedded_ipv4_addresses_are_judged_by_what_they_carry() {
        for (address, expected) in [
            ("::ffff:127.0.0.1", "a loopback address"),
            ("::ffff:7f00:1", "a loopback address"),
            ("::ffff:10.0.0.1", "a private address"),
            ("::127.0.0.1", "a loopback address"),
            ("::192.168.0.1", "a private address"),
            ("64:ff9b::7f00:1", "a loopback address"),
            ("64:ff9b::a9fe:a9fe", "a cloud metadata address"),
            ("2002:7f00:1::", "a loopback address"),
            ("2002:c0a8:101::1", "a private address"),
            ("::ffff:169.254.169.254", "a cloud metadata address"),
        ] {
            assert_eq!(reason(address), Some(expected), "{address}");
        }
    }

    #[test]
    fn metadata_addresses_are_named() {
        for address in ["169.254.169.254", "100.100.100.200", "fd00:ec2::254"] {
            assert_eq!(reason(address), Some("a cloud metadata address"), "{address}");
        }
    }

    #[test]
    fn prefixes_of_every_length() {
        let top = |bits: u32| u128::from(bits) << 96;
        assert!(in_prefix(top(0x0a00_0001), top(0x0a00_0000), 8));
        assert!(!in_prefix(top(0x0b00_0001), top(0x0a00_0000), 8));
        assert!(in_prefix(top(0xdead_beef), 0, 0));
        assert!(in_prefix(top(0xffff_ffff), top(0xffff_ffff), 32));
        assert!(!in_prefix(top(0xffff_fffe), top(0xffff_ffff), 32));
        assert!(in_prefix(u128::MAX, u128::MAX, 128));
    }
}
