//! `[exec]`: how the `exec` tool runs commands, as plain data.
//!
//! The settings are compiled in every build, so that a configuration file means the same
//! whichever families a program enables; what acts on them (`shell`) is behind the
//! feature. The TOML section deserializes straight into [`ExecConfig`]: one type, one
//! set of defaults.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

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
    /// Whether commands may use the network. When false the sandbox refuses every
    /// socket but Unix (if allowed) and netlink ones: TCP, UDP (so DNS), raw, packet.
    /// Default true.
    pub network: bool,
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
            network: true,
            unix_sockets: false,
            keep_background: false,
            kill_grace: Duration::from_secs(1),
            max_background: 8,
            background_buffer: 1024 * 1024,
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
