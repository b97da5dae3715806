//! `[exec]`: how the `exec` tool runs commands, as plain data.
//!
//! The settings are compiled in every build, so that a configuration file means the same
//! whichever families a program enables; what acts on them (`shell`) is behind the
//! feature. The TOML section deserializes straight into [`ExecConfig`]: one type, one
//! set of defaults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use super::limit;

/// How `exec` runs commands.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ExecConfig {
    /// The shell, run as `<shell> -c <command>`. Default `/bin/sh`.
    pub shell: PathBuf,
    /// Time limit when the call does not give one. Default 60 s (`default_timeout = "60s"`).
    #[serde(with = "humantime_serde")]
    pub default_timeout: Duration,
    /// Most output returned, stdout and stderr together. Default 30 KiB.
    pub output_limit: usize,
    /// Inherited variables passed besides the default allow-list (`shell::DEFAULT_ENV_ALLOWED`); the only way a
    /// secret-looking name (`*KEY*`, `*TOKEN*`, …) reaches a command.
    pub env_allow: Vec<String>,
    /// Guard patterns (regular expressions) that refuse a command segment; given, they
    /// replace [`DEFAULT_DENY`].
    pub deny: Vec<String>,
    /// Guard patterns that let a segment through despite a deny pattern.
    pub allow: Vec<String>,
    /// The sandbox. Default Landlock, which only Linux has: elsewhere `exec` refuses to
    /// run commands unless this is [`ExecSandbox::None`].
    pub sandbox: ExecSandbox,
    /// Refuse to run commands when the sandbox cannot be enforced. Default false: run
    /// unconfined and say so in the output.
    pub require_sandbox: bool,
    /// Which network commands may use: `true` (the default) all of it, `false` none, or a
    /// list of hosts (`network = ["crates.io", "*.crates.io", "pypi.org:443"]`) reached
    /// only through the agent's proxy. See [`ExecNetwork`].
    pub network: ExecNetwork,
    /// Whether commands may use Unix sockets, named or abstract. When false (the default)
    /// the sandbox refuses them, since a socket outside the workspace can act for the
    /// command outside the sandbox (docker.sock is root; the user's D-Bus starts programs).
    /// Allow them for commands that need e.g. docker.
    pub unix_sockets: bool,
    /// Let processes a command starts in the background outlive the call. Default false:
    /// each command runs in its own PID namespace, and when it ends everything it started
    /// ends with it (a background job, a double fork, a `setsid` child).
    pub keep_background: bool,
    /// How long a command gets between SIGTERM and SIGKILL. Default 1 s.
    #[serde(with = "humantime_serde")]
    pub kill_grace: Duration,
    /// How many background processes (`exec` with `background: true`) one session may
    /// have running at once; a start beyond it is refused. Default 8.
    pub max_background: usize,
    /// Bytes of output kept per background process: the first half and the latest half,
    /// what falls between is dropped (and `process_output` says how much and where).
    /// Default 1 MiB.
    pub background_buffer: usize,
    /// What a command may read: everything the agent's user can ([`ExecRead::All`], the
    /// default) or only the workspace and the system ([`ExecRead::Workspace`]). Either way
    /// `deny_read` is hidden. Enforced by Landlock.
    pub read: ExecRead,
    /// More paths a command may read under `read = "workspace"` (a toolchain in the home
    /// directory: `~/.rustup`, `~/.cargo`, `~/.pyenv`), each with everything beneath it.
    /// A leading `~/` is the agent's home directory; a relative path is in the workspace.
    pub allow_read: Vec<String>,
    /// Paths hidden from commands whatever `read` says, as globs (`*`, `?`, `[…]` within one
    /// component; `**` is refused, since it would walk whole trees before every command).
    /// A leading `~/` is the agent's home directory; a relative pattern is in the
    /// workspace. Given, it replaces [`DEFAULT_DENY_READ`] (the user's SSH, cloud and VCS
    /// credentials and the system's password hashes and host keys): repeat those you keep.
    pub deny_read: Vec<String>,
    /// Most processes (threads count as well) one command may have at once, everything
    /// it starts included; a `fork` beyond it fails and the call is an error naming the
    /// limit. Default 1024, which stops a fork bomb and leaves room for parallel builds;
    /// `"unlimited"` (`None`) turns it off. Applies to each command on its own, background
    /// ones too. How it is enforced: the `shell` module's sandbox table.
    #[serde(deserialize_with = "limit::processes::deserialize")]
    pub max_processes: Option<u32>,
    /// Most memory one command may use, all its processes together, in bytes (`"2GiB"`,
    /// `"512M"`, or a number); beyond it the kernel kills a process of the command and the
    /// call is an error naming the limit. Default none: how much a build needs depends on
    /// the project and the machine, and a wrong guess breaks builds.
    #[serde(deserialize_with = "limit::memory::deserialize")]
    pub max_memory: Option<u64>,
    /// Most CPU time one command may use (`"10m"`), all its processes together where a
    /// cgroup counts it, else each process on its own. Default none: the time limit
    /// (`default_timeout`) already bounds a command, and CPU time only adds a bound on
    /// how many cores it keeps busy.
    #[serde(deserialize_with = "limit::cpu::deserialize")]
    pub max_cpu: Option<Duration>,
    /// Host names of an allow-list sent to a fixed address instead of being resolved
    /// ([`ExecConfig::resolve`]); not a setting of the file.
    #[serde(skip)]
    pub(crate) resolved: Vec<(String, SocketAddr)>,
}

impl ExecConfig {
    /// Sends connections of an [`ExecNetwork::Allow`] list's `name` to `address`, without
    /// asking DNS and whatever the address (loopback and private ones included), as
    /// reqwest's `resolve` or `[web] trusted_hosts` do: for a registry mirror on the local
    /// network, or a test's server. The name must still be allowed by the list; a
    /// request that names no port goes to `address`'s port.
    ///
    /// ```
    /// use agent_tools_builtins::{ExecConfig, ExecNetwork};
    ///
    /// let mut config = ExecConfig::default().resolve("mirror.internal", "10.0.0.7:8080".parse().unwrap());
    /// config.network = ExecNetwork::Allow(vec!["mirror.internal".into()]);
    /// ```
    #[must_use]
    pub fn resolve(mut self, name: impl Into<String>, address: SocketAddr) -> Self {
        self.resolved.push((name.into(), address));
        self
    }

    /// The names given to [`resolve`](Self::resolve) and their addresses, in that order.
    pub fn resolved_hosts(&self) -> &[(String, SocketAddr)] {
        &self.resolved
    }
}

/// Which network a command may use (`[exec] network`).
///
/// In the file, a boolean or a list: `network = true`, `network = false`,
/// `network = ["crates.io", "*.crates.io", "pypi.org:443", "10.0.0.7:8080"]`.
///
/// An entry of the list is a host and an optional port:
///
/// - `example.com` is that name; `*.example.com` any name below it (not
///   `example.com` itself). Names are compared without case and without a final dot.
/// - without a port an entry allows 80 and 443 (HTTP and HTTPS); `example.com:8443` only
///   that port.
/// - an IP address (`10.0.0.7`, `[fd00::1]:8080`) allows that address when a command names
///   it itself; a name's addresses are never matched against address entries.
///
/// A listed name is resolved by the agent and may lead only to public addresses (the web
/// tools' SSRF rules): a listed name cannot smuggle a connection to the local network or
/// the metadata service. To reach a private address, list the address itself, or send the
/// name to it with [`ExecConfig::resolve`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExecNetwork {
    /// Every socket the sandbox otherwise allows: TCP and UDP to any host (`true`).
    #[default]
    All,
    /// No network at all (`false`): the sandbox refuses every socket but Unix (if allowed)
    /// and netlink ones — TCP, UDP (so DNS), raw, packet.
    None,
    /// Only these hosts, through an HTTP and HTTPS proxy the agent runs for each command;
    /// the sandbox keeps every other destination out of reach (on Linux, a network
    /// namespace per command). See the `shell` module's documentation for what each layer
    /// stops.
    Allow(Vec<String>),
}

impl ExecNetwork {
    /// Whether any host can be reached at all, directly or through the proxy.
    pub fn any(&self) -> bool {
        !matches!(self, ExecNetwork::None)
    }
}

impl From<bool> for ExecNetwork {
    fn from(all: bool) -> Self {
        if all { ExecNetwork::All } else { ExecNetwork::None }
    }
}

impl<'de> Deserialize<'de> for ExecNetwork {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(
            untagged,
            expecting = "true, false, or a list of hosts such as [\"crates.io\", \"*.pypi.org:443\"]"
        )]
        enum Given {
            All(bool),
            Allow(Vec<String>),
        }
        Ok(match Given::deserialize(deserializer)? {
            Given::All(all) => all.into(),
            Given::Allow(hosts) => ExecNetwork::Allow(hosts),
        })
    }
}

impl Default for ExecConfig {
    fn default() -> Self {
        Self {
            shell: PathBuf::from("/bin/sh"),
            default_timeout: Duration::from_secs(60),
            output_limit: 30 * 1024,
            env_allow: Vec::new(),
            deny: DEFAULT_DENY.iter().map(ToString::to_string).collect(),
            allow: Vec::new(),
            sandbox: ExecSandbox::Landlock,
            require_sandbox: false,
            network: ExecNetwork::All,
            unix_sockets: false,
            keep_background: false,
            kill_grace: Duration::from_secs(1),
            max_background: 8,
            background_buffer: 1024 * 1024,
            read: ExecRead::All,
            allow_read: Vec::new(),
            deny_read: DEFAULT_DENY_READ.iter().map(ToString::to_string).collect(),
            resolved: Vec::new(),
            max_processes: Some(1024),
            max_memory: None,
            max_cpu: None,
        }
    }
}

/// How `exec` confines commands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ExecSandbox {
    /// No confinement: the command can do whatever the agent's user can. (On Linux,
    /// background processes are still ended with the call unless `keep_background` is
    /// set.) The only setting under which `exec` runs commands on other systems.
    None,
    /// The kernel sandbox: Landlock for files and signals, a seccomp filter for sockets and
    /// terminal input (see the table in the `shell` module's documentation). Linux only: elsewhere
    /// `exec` refuses to run commands under this setting.
    #[default]
    Landlock,
}

/// What `exec`'s commands may read (`[exec] read`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ExecRead {
    /// Whatever the agent's user can read, except `deny_read`: today's compilers,
    /// interpreters and caches in the home directory keep working. The default.
    #[default]
    All,
    /// The workspace, the command's `TMPDIR`, the system paths of [`SYSTEM_READ`] and
    /// `allow_read` — except `deny_read`. Everything else (the home directory, other
    /// projects, `/tmp`, `/var`, `/srv`, `/mnt`, `/media`) is hidden.
    Workspace,
}

/// What a command may read under `read = "workspace"` besides the workspace, its
/// `TMPDIR` and `allow_read`: what programs need to start and run. Those of them that
/// do not exist here are skipped. `/etc` is readable minus `deny_read` (whose default
/// hides the password hashes and private keys in it). `/proc` is whole, since a
/// command's own entries (`/proc/self`) are known only once it runs: what it can learn
/// there about other processes is their command lines and status, not their memory or
/// environment (Landlock refuses access across its domain). The shell of `[exec] shell`
/// is added when it lies elsewhere.
// Reached as `shell::SYSTEM_READ`; without the `shell` feature only the defaults use it.
#[cfg_attr(not(feature = "shell"), allow(unreachable_pub, dead_code))]
pub const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/etc",
    "/run/systemd/resolve",
    "/proc",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/pts",
    "/dev/ptmx",
];

/// The default of `[exec] deny_read`: credentials a command has no business reading —
/// SSH and GnuPG keys, cloud, container and Kubernetes credentials, VCS and package
/// registry tokens, password stores — and the system's password hashes and private keys.
// Reached as `shell::DEFAULT_DENY_READ`; without the `shell` feature only the defaults use it.
#[cfg_attr(not(feature = "shell"), allow(unreachable_pub, dead_code))]
pub const DEFAULT_DENY_READ: &[&str] = &[
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.kube",
    "~/.docker/config.json",
    "~/.config/gh",
    "~/.config/hub",
    "~/.config/glab-cli",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.netrc",
    "~/.npmrc",
    "~/.yarnrc.yml",
    "~/.pypirc",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.password-store",
    "~/.local/share/keyrings",
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh/ssh_host_*_key",
    "/etc/ssl/private",
];

/// The default deny patterns of `exec`'s command guard (a courtesy, not a boundary: see
/// the `shell` module).
// Reached as `shell::DEFAULT_DENY`; without the `shell` feature only the default uses it.
#[cfg_attr(not(feature = "shell"), allow(unreachable_pub))]
pub const DEFAULT_DENY: &[&str] = &[
    // rm -rf of the root, the home directory or everything in them.
    r"\brm\s+(-[a-zA-Z]*\s+|--[a-z-]+\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z]*\s+)*(/|/\*|~|~/|~/\*|\$HOME|\$HOME/\*?)(\s|$)",
    r"\brm\s+(-[a-zA-Z]*\s+)*--no-preserve-root\b",
    // Making file systems, writing raw disks.
    r"^(sudo\s+)?mkfs(\.[a-z0-9]+)?\b",
    r"\bdd\b.*\bof=/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk)",
    r">\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk)[a-z0-9]*\b",
    // Stopping the machine (as a command, not a word in an argument).
    r"^(sudo\s+)?(shutdown|reboot|halt|poweroff)\b",
    r"^(sudo\s+)?init\s+[06]\b",
    r"^(sudo\s+)?systemctl\s+(poweroff|reboot|halt|kexec)\b",
    // Fork bombs.
    r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:",
    // Taking the whole file system's permissions away.
    r"\bchmod\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+[0-7]{3,4}\s+/(\s|$)",
];
