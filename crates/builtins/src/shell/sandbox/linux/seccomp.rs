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
    /// Sockets of every family (else only Unix, if allowed, and netlink).
    pub(crate) network: bool,
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

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn syscall_rules(rules: SocketRules) -> Result<Rules, seccompiler::BackendError> {
    let mut map = Rules::new();
    if let Some(socket) = socket_rule(rules)? {
        map.insert(libc::SYS_socket, vec![socket]);
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

/// The condition under which `socket(domain, …)` is refused, if any.
fn socket_rule(rules: SocketRules) -> Result<Option<SeccompRule>, seccompiler::BackendError> {
    let domain =
        |op, family: libc::c_int| SeccompCondition::new(0, SeccompCmpArgLen::Dword, op, family as u64);
    let conditions = match (rules.network, rules.unix_sockets) {
        (true, true) => return Ok(None),
        (true, false) => vec![domain(SeccompCmpOp::Eq, libc::AF_UNIX)?],
        (false, unix) => {
            let mut allowed = vec![domain(SeccompCmpOp::Ne, libc::AF_NETLINK)?];
            if unix {
                allowed.push(domain(SeccompCmpOp::Ne, libc::AF_UNIX)?);
            }
            allowed
        }
    };
    SeccompRule::new(conditions).map(Some)
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
