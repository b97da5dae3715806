//! Landlock: the kernel refuses writes outside the workspace, and scopes signals and
//! abstract Unix sockets to the sandbox.
//!
//! A command may write only in the workspace, in a private temporary directory made for
//! the call (exported as `TMPDIR`), and to `/dev/null`-like devices. It may read the whole
//! file system (compilers, interpreters and libraries live there) with `read = "all"`, or
//! only the workspace, its `TMPDIR` and the system's paths with `read = "workspace"`;
//! either way minus `deny_read` ([`super::readable`] says how a tree is granted around
//! what is hidden in it). A Landlock domain also
//! keeps the command from tracing or reading the memory and environment of processes
//! outside it (`/proc/<agent>/environ`). From ABI 6 it cannot signal them either, nor
//! connect to an abstract Unix socket made outside; from ABI 4 it can be refused TCP, or
//! under a network allow-list allowed only to connect to the proxy's port (on any
//! address: Landlock rules name ports, not hosts) and never to bind.
//!
//! What Landlock does not stop (so the seccomp filter does): `connect()` to a named Unix
//! socket outside the workspace, UDP and raw sockets, terminal ioctls through `/dev/tty`.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use super::readable::{self, Grant};
use crate::shell::sandbox::hidden_paths::ReadScope;
use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, RulesetAttr, RulesetCreatedAttr,
    Scope, path_beneath_rules,
};

/// The newest Landlock ABI this code knows.
const ABI_VERSION: ABI = ABI::V6;

/// Devices a command may write to wherever it runs.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// What the ruleset refuses besides writes outside `writable`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LandlockRules {
    /// TCP bind and connect (ABI 4).
    pub(crate) refuse_tcp: bool,
    /// With `refuse_tcp`, the one port TCP may still connect to: the proxy's.
    pub(crate) connect_port: Option<u16>,
    /// Signals to processes outside the sandbox (ABI 6).
    pub(crate) scope_signals: bool,
    /// Connecting to abstract Unix sockets made outside the sandbox (ABI 6).
    pub(crate) scope_abstract_sockets: bool,
}

/// Builds the ruleset as an open descriptor, for the child to enforce.
pub(crate) fn ruleset(
    rules: LandlockRules,
    writable: &[&Path],
    scope: &ReadScope,
) -> Result<OwnedFd, String> {
    build(rules, &grants(writable, scope))
        .map_err(|error| error.to_string())?
        .ok_or_else(|| "Landlock created no ruleset".to_owned())
}

/// The file-system rules: what may be read, what written, minus what is hidden.
fn grants(writable: &[&Path], scope: &ReadScope) -> Vec<Grant> {
    let mut grants = Vec::new();
    let root = [PathBuf::from("/")];
    let readable = scope.readable.as_deref().unwrap_or(&root);
    for tree in readable {
        readable::grant_around(
            tree,
            readable::read_rights(ABI_VERSION),
            readable::read_listing(),
            &scope.hidden,
            &mut grants,
        );
    }
    for tree in writable {
        // Resolved like the hidden paths, so that one inside is found.
        let tree = tree.canonicalize().unwrap_or_else(|_| tree.to_path_buf());
        readable::grant_around(
            &tree,
            AccessFs::from_all(ABI_VERSION),
            readable::write_listing(ABI_VERSION),
            &scope.hidden,
            &mut grants,
        );
    }
    let devices = WRITABLE_DEVICES
        .iter()
        .map(Path::new)
        .filter(|device| device.exists());
    grants.extend(devices.map(|device| (device.to_path_buf(), AccessFs::from_file(ABI_VERSION))));
    grants
}

fn build(rules: LandlockRules, grants: &[Grant]) -> Result<Option<OwnedFd>, landlock::RulesetError> {
    // Best effort for the file-system rights a kernel lacks (e.g. `IoctlDev` before ABI 5);
    // the caller asks for TCP and scopes only where the probe found them.
    let mut ruleset = landlock::Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(ABI_VERSION))?;
    if rules.refuse_tcp {
        // No rule grants TCP bind or connect, so both are refused.
        ruleset = ruleset.handle_access(AccessNet::from_all(ABI_VERSION))?;
    }
    if rules.scope_signals {
        ruleset = ruleset.scope(Scope::Signal)?;
    }
    if rules.scope_abstract_sockets {
        ruleset = ruleset.scope(Scope::AbstractUnixSocket)?;
    }
    let mut created = ruleset.create()?;
    if let (true, Some(port)) = (rules.refuse_tcp, rules.connect_port) {
        created = created.add_rule(NetPort::new(port, AccessNet::ConnectTcp))?;
    }
    for (path, rights) in grants {
        // `path_beneath_rules` keeps only the file rights for a file, and skips a path
        // that is gone by now (nothing to grant).
        created = created.add_rules(path_beneath_rules([path], *rights))?;
    }
    Ok(created.into())
}
