//! The seccomp filter: what Landlock cannot see — sockets and terminal input.
//!
//! Landlock decides by path and, for the network, by TCP port. It does not see a
//! `connect()` to a named Unix socket (docker.sock, the user's D-Bus, ssh-agent), UDP, raw
//! or packet sockets, or the terminal ioctls that type into the user's shell. A seccomp
//! filter decides by system call and its integer arguments, so it refuses these where they
//! begin — the socket's creation — with `EPERM`:
//!
//! - `socket(AF_UNIX, …)` unless Unix sockets are allowed. `socketpair` stays allowed: a
//!   connected pair reaches nothing outside the command.
//! - with the network off, `socket()` of every family but `AF_UNIX` (when allowed) and
//!   `AF_NETLINK` (the kernel's own interface, which carries no traffic; `ip addr` needs
//!   it) — TCP, UDP and so DNS, raw, packet, vsock, Bluetooth, …
//! - under an allow-list, the same but for TCP: `AF_INET`/`AF_INET6` sockets only of type
//!   `SOCK_STREAM` (the type argument masked with `SOCK_TYPE_MASK`, so `SOCK_NONBLOCK` and
//!   `SOCK_CLOEXEC` do not matter) with protocol 0 or TCP (not SCTP or MPTCP, which
//!   Landlock's TCP rules do not see) — no UDP, so no DNS of the command's own, no raw
//!   sockets.
//! - `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)`, which push input into a terminal.
//! - `io_uring_*`: io_uring performs socket calls without the system calls a filter sees.
//!
//! The filter cannot read memory, so it cannot tell one socket path from another: Unix
//! sockets are refused everywhere, also inside the workspace (`[exec] unix_sockets = true`
//! allows them all). Programs for another ABI (32-bit x86, x32) are killed: their system
//! call numbers differ and would slip past the rules.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
};

/// What the filter lets through.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SocketRules {
    /// Which internet sockets.
    pub(crate) network: InternetSockets,
    /// Unix sockets, named and abstract.
    pub(crate) unix_sockets: bool,
}

/// Builds the BPF program for these rules on this machine's architecture.
pub(crate) fn program(rules: SocketRules) -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("seccomp filters are not built for {}", std::env::consts::ARCH))?;
    let filter = SeccompFilter::new(
        syscall_rules(rules).map_err(|error| error.to_string())?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|error| error.to_string())?;
    let program = BpfProgram::try_from(filter).map_err(|error| error.to_string())?;
    Ok(with_foreign_abis_killed(program))
}

/// Which internet (and other non-local) sockets a command may make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InternetSockets {
    /// Every family and type.
    All,
    /// None: only Unix (if allowed) and netlink sockets.
    None,
    /// TCP alone: IPv4 and IPv6 stream sockets, to reach the proxy.
    Tcp,
}

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn syscall_rules(rules: SocketRules) -> Result<Rules, seccompiler::BackendError> {
    let mut map = Rules::new();
    let socket = socket_rules(rules)?;
    if !socket.is_empty() {
        map.insert(libc::SYS_socket, socket);
    }
    // `libc::Ioctl` is `c_ulong` on glibc and `c_int` on musl, hence the casts.
    #[allow(clippy::unnecessary_cast)]
    map.insert(
        libc::SYS_ioctl,
        vec![
            request_is(libc::TIOCSTI as u64)?,
            request_is(libc::TIOCLINUX as u64)?,
        ],
    );
    // An empty rule list matches every call.
    for call in [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        map.insert(call, Vec::new());
    }
    Ok(map)
}

/// The conditions under which `socket(domain, type, protocol)` is refused (any one).
fn socket_rules(rules: SocketRules) -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
    let domain =
        |op, family: libc::c_int| SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, family as u64);
    let other_families = |extra: &[libc::c_int]| -> Result<SeccompRule, seccompiler::BackendError> {
        let mut allowed = vec![domain(SeccompCmpOp::Ne, libc::AF_NETLINK)?];
        if rules.unix_sockets {
            allowed.push(domain(SeccompCmpOp::Ne, libc::AF_UNIX)?);
        }
        for family in extra {
            allowed.push(domain(SeccompCmpOp::Ne, *family)?);
        }
        SeccompRule::new(allowed)
    };
    match (rules.network, rules.unix_sockets) {
        (InternetSockets::All, true) => Ok(Vec::new()),
        (InternetSockets::All, false) => Ok(vec![SeccompRule::new(vec![domain(
            SeccompCmpOp::Eq,
            libc::AF_UNIX,
        )?])?]),
        (InternetSockets::None, _) => Ok(vec![other_families(&[])?]),
        (InternetSockets::Tcp, _) => {
            let mut refused = vec![other_families(&[libc::AF_INET, libc::AF_INET6])?];
            for family in [libc::AF_INET, libc::AF_INET6] {
                refused.extend(not_tcp(domain(SeccompCmpOp::Eq, family)?)?);
            }
            Ok(refused)
        }
    }
}

/// Rules matching a socket of `family` that is not TCP: any type but `SOCK_STREAM`, or a
/// stream of a protocol other than 0 (the default, TCP) and `IPPROTO_TCP`.
fn not_tcp(family: SeccompCondition) -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
    // The low bits of the type argument; the flags above them (SOCK_NONBLOCK,
    // SOCK_CLOEXEC) are masked away.
    const SOCK_TYPE_MASK: u64 = 0xf;
    let mut rules = Vec::new();
    for kind in (0..=SOCK_TYPE_MASK).filter(|kind| *kind != libc::SOCK_STREAM as u64) {
        let is_kind = SeccompCondition::new(
            1,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(SOCK_TYPE_MASK),
            kind,
        )?;
        rules.push(SeccompRule::new(vec![family.clone(), is_kind])?);
    }
    let protocol = |value: libc::c_int| {
        SeccompCondition::new(2, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, value as u64)
    };
    rules.push(SeccompRule::new(vec![
        family,
        protocol(0)?,
        protocol(libc::IPPROTO_TCP)?,
    ])?);
    Ok(rules)
}

fn request_is(request: u64) -> Result<SeccompRule, seccompiler::BackendError> {
    // ioctl's request is an `unsigned int` to the kernel: compare the low 32 bits.
    SeccompRule::new(vec![SeccompCondition::new(
        1,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        request,
    )?])
}

/// Prepends a check that kills x32 calls (x86-64's architecture tag with bit 30 set in the
/// call number), which seccompiler's architecture check lets through; its own check
/// already kills every other foreign ABI.
fn with_foreign_abis_killed(program: BpfProgram) -> BpfProgram {
    if std::env::consts::ARCH != "x86_64" {
        return program;
    }
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let instruction = |code: u32, jt: u8, jf: u8, k: u32| seccompiler::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    };
    let mut guarded = vec![
        // Load the call number (offset 0 of `struct seccomp_data`) ...
        instruction(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, 0, 0, 0),
        // ... if it is an x32 number, go on to the next instruction, else skip it ...
        instruction(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K, 0, 1, X32_SYSCALL_BIT),
        // ... which kills the process.
        instruction(libc::BPF_RET | libc::BPF_K, 0, 0, libc::SECCOMP_RET_KILL_PROCESS),
    ];
    guarded.extend(program);
    guarded
}
