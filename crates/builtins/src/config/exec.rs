//! `[exec]`: how the `exec` tool runs commands, as plain data.
//!
//! The settings are compiled in every build, so that a configuration file means the same
//! whichever families a program enables; what acts on them (`shell`) is behind the
//! feature. The TOML section deserializes straight into [`ExecConfig`]: one type, one
//! set of defaults.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

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
            read: ExecRead::All,
            allow_read: Vec::new(),
            deny_read: DEFAULT_DENY_READ.iter().map(ToString::to_string).collect(),
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
