//! `exec` under attack: a command that tries to reach outside its sandbox through Unix
//! sockets, the network, signals, the terminal, the agent's `/proc`, or by leaving
//! processes behind — against real sockets, processes and a real terminal. Each attack is
//! also run with its defence switched off (by configuration) to show it is real, and the
//! kernel features the sandbox needs are taken away for real (a seccomp filter around the
//! agent) to show a missing one is named and, when the sandbox is required, fails the call.
//!
//! This whole binary runs under an allocator that kills any process forked from the test
//! that allocates before `exec` (see [`ForkGuard`]), so every command here also checks
//! that the code between `fork` and `exec` allocates nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Read as _;
use std::net::{TcpListener, UdpSocket};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use agent_tools::builtins::Builtins;
use agent_tools::builtins::Workspace;
use agent_tools::builtins::{ExecConfig, ExecNetwork, ExecSandbox};
use agent_tools::{
    ToolCall, ToolRegistry, ToolResult,
    audit::{MemoryAudit, Outcome},
    context::CancellationToken,
};
use rustix::process::{Pid, Signal, kill_process};
use serde_json::json;

use processes::{marker, processes_with};
use test_support::processes;
use test_support::terminal;

/// The allocator of this test binary: in a process forked from the test process (its pid
/// differs from the one recorded at start) that has not yet called `exec`, an allocation
/// ends the process with exit code 97 — which a command's result then shows.
struct ForkGuard;

static TEST_PID: AtomicI32 = AtomicI32::new(0);
const ALLOCATED_AFTER_FORK: i32 = 97;

// Needs unsafe: catching allocations means being the global allocator, whose trait is
// unsafe to implement.
// SAFETY: every call is forwarded to the system allocator; the check before it only reads
// an atomic and makes the getpid system call.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for ForkGuard {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check_not_forked();
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        check_not_forked();
        // SAFETY: forwarded with the caller's arguments.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: ForkGuard = ForkGuard;

/// This process's pid, from the kernel: in a forked child, the child's.
fn current_pid() -> i32 {
    rustix::process::getpid().as_raw_nonzero().get()
}

// Needs unsafe: inside the allocator it must end the process with `_exit` (no atexit
// handlers, no allocation), whose safe rustix form is in an unstable module.
#[allow(unsafe_code)]
fn check_not_forked() {
    let test_pid = TEST_PID.load(Ordering::Relaxed);
    if test_pid != 0 && current_pid() != test_pid {
        let _ = rustix::io::write(rustix::stdio::stderr(), b"allocation between fork and exec\n");
        // SAFETY: _exit is async-signal-safe and does not return.
        unsafe { libc::_exit(ALLOCATED_AFTER_FORK) }
    }
}

fn arm_fork_guard() {
    TEST_PID.store(current_pid(), Ordering::Relaxed);
}

/// A workspace with `exec` configured by `configure` (on top of `require_sandbox`), and a
/// directory beside it that is outside.
struct Harness {
    _temp: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
    registry: ToolRegistry,
    audit: MemoryAudit,
}

impl Harness {
    fn new(configure: impl FnOnce(&mut ExecConfig)) -> Self {
        arm_fork_guard();
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path().canonicalize().unwrap();
        let (ws, outside) = (base.join("ws"), base.join("outside"));
        std::fs::create_dir(&ws).unwrap();
        std::fs::create_dir(&outside).unwrap();
        let mut config = ExecConfig::default();
        config.require_sandbox = true;
        configure(&mut config);
        let audit = MemoryAudit::new();
        let registry = ToolRegistry::builder()
            .default_timeout(Duration::from_secs(60))
            .audit(audit.clone())
            .build();
        let builtins = Builtins::builder(Workspace::open(&ws).unwrap())
            .exec(config)
            .build()
            .unwrap();
        Arc::new(builtins).register_all(&registry).unwrap();
        Self {
            _temp: temp,
            ws,
            outside,
            registry,
            audit,
        }
    }

    fn call(command: &str) -> ToolCall {
        ToolCall::new("c", "exec", json!({ "command": command }))
    }

    async fn exec(&self, command: &str) -> ToolResult {
        self.registry.call(Self::call(command)).await
    }
}

/// A change to the exec configuration.
type Configure = fn(&mut ExecConfig);

/// Whether `python3` is installed, for the attacks a shell cannot make (raw sockets, a
/// program other than the shell); if not, the test is skipped (`test_support::require`).
fn has_python() -> bool {
    test_support::require_program("python3", "apt-get install python3").is_some()
}

/// `python3 -c CODE`, with CODE in single quotes (use double quotes inside).
fn python(code: &str) -> String {
    format!("python3 -c '{code}'")
}

fn kill_all(pids: &[i32]) {
    for pid in pids.iter().copied().filter_map(Pid::from_raw) {
        // One that has already ended (ESRCH) needs no kill.
        let _ = kill_process(pid, Signal::KILL);
    }
}

/// Polls until `done` or ten seconds have passed.
async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

fn assert_refused(result: &ToolResult, attempt: &str) {
    let text = result.text();
    assert!(
        text.contains("PermissionError") && !text.contains("REACHED"),
        "{attempt} was not refused:\n{text}"
    );
}

fn assert_nothing_accepted(listener: &UnixListener) {
    listener.set_nonblocking(true).unwrap();
    let accepted = listener.accept();
    assert!(
        matches!(&accepted, Err(error) if error.kind() == std::io::ErrorKind::WouldBlock),
        "the listener saw a connection: {accepted:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Unix sockets

fn connect_unix(address: &str) -> String {
    python(&format!(
        "import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"{address}\"); print(\"REACHED\")"
    ))
}

#[tokio::test]
async fn named_unix_sockets_cannot_be_reached_unless_allowed() {
    if !has_python() {
        return;
    }
    let harness = Harness::new(|_| {});
    let outside = harness.outside.join("agent.sock");
    let listener = UnixListener::bind(&outside).unwrap();
    let result = harness.exec(&connect_unix(&outside.display().to_string())).await;
    assert_refused(&result, "connecting to a socket outside the workspace");
    assert_nothing_accepted(&listener);

    // Inside the workspace too: the filter cannot tell paths apart (see the module docs).
    let inside = harness.ws.join("inside.sock");
    let inside_listener = UnixListener::bind(&inside).unwrap();
    let result = harness.exec(&connect_unix("inside.sock")).await;
    assert_refused(&result, "connecting to a socket inside the workspace");
    assert_nothing_accepted(&inside_listener);

    let datagram = python(&format!(
        "import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b\"x\", \"{}\"); print(\"REACHED\")",
        outside.display()
    ));
    assert_refused(&harness.exec(&datagram).await, "a Unix datagram");

    let allowed = Harness::new(|config| config.unix_sockets = true);
    let result = allowed.exec(&connect_unix(&outside.display().to_string())).await;
    assert!(result.text().contains("REACHED"), "{}", result.text());
    listener.set_nonblocking(false).unwrap();
    assert!(listener.accept().is_ok(), "the allowed connection arrived");
}

#[tokio::test]
async fn abstract_unix_sockets_cannot_be_reached_unless_allowed() {
    if !has_python() {
        return;
    }
    use std::os::linux::net::SocketAddrExt as _;
    let name = format!("agent-tools-test-{}", marker());
    let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let listener = UnixListener::bind_addr(&address).unwrap();
    let attack = connect_unix(&format!("\\0{name}"));

    let harness = Harness::new(|_| {});
    assert_refused(&harness.exec(&attack).await, "connecting to an abstract socket");
    assert_nothing_accepted(&listener);

    let allowed = Harness::new(|config| config.unix_sockets = true);
    let result = allowed.exec(&attack).await;
    assert!(result.text().contains("REACHED"), "{}", result.text());
}

// ---------------------------------------------------------------------------------------
// The network

#[tokio::test]
async fn without_the_network_no_packet_leaves_by_any_protocol() {
    if !has_python() {
        return;
    }
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let udp6 = UdpSocket::bind("[::1]:0").unwrap();
    udp6.set_nonblocking(true).unwrap();
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let (port, port6, tcp_port) = (
        udp.local_addr().unwrap().port(),
        udp6.local_addr().unwrap().port(),
        tcp.local_addr().unwrap().port(),
    );
    // A DNS query is a UDP datagram; this one goes to a "resolver" on loopback.
    let dns_query = "b\"\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x07example\\x03com\\x00\\x00\\x01\\x00\\x01\"";
    let attacks = [
        (
            "UDP",
            format!("import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"127.0.0.1\", {port})); print(\"REACHED\")"),
        ),
        (
            "DNS",
            format!("import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto({dns_query}, (\"127.0.0.1\", {port})); print(\"REACHED\")"),
        ),
        (
            "UDP over IPv6",
            format!("import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b\"x\", (\"::1\", {port6})); print(\"REACHED\")"),
        ),
        (
            "TCP",
            format!("import socket; socket.create_connection((\"127.0.0.1\", {tcp_port}), timeout=5); print(\"REACHED\")"),
        ),
        (
            "a raw socket",
            "import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); print(\"REACHED\")".to_owned(),
        ),
        (
            "a packet socket",
            "import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0); print(\"REACHED\")".to_owned(),
        ),
    ];
    let offline = Harness::new(|config| config.network = ExecNetwork::None);
    for (protocol, code) in &attacks {
        assert_refused(&offline.exec(&python(code)).await, protocol);
    }
    let mut buffer = [0u8; 512];
    for socket in [&udp, &udp6] {
        let received = socket.recv_from(&mut buffer);
        assert!(
            matches!(&received, Err(error) if error.kind() == std::io::ErrorKind::WouldBlock),
            "a datagram arrived: {received:?}"
        );
    }
    assert!(tcp.accept().is_err(), "no TCP connection arrived");

    // The same datagram with the network on arrives: the attack above is real.
    let online = Harness::new(|_| {});
    let result = online.exec(&python(&attacks[0].1)).await;
    assert!(result.text().contains("REACHED"), "{}", result.text());
    udp.set_nonblocking(false).unwrap();
    assert!(udp.recv_from(&mut buffer).is_ok());
}

// ---------------------------------------------------------------------------------------
// Signals and other processes

#[tokio::test]
async fn processes_outside_the_sandbox_cannot_be_signalled() {
    let mut victim = Command::new("sleep").arg("600").spawn().unwrap();
    let attack = format!("kill -KILL {}; echo status=$?", victim.id());
    let layers: [(&str, Configure); 3] = [
        ("the PID namespace and Landlock", |_| {}),
        ("Landlock's signal scope alone", |config| {
            config.keep_background = true
        }),
        ("the PID namespace alone", |config| {
            config.sandbox = ExecSandbox::None
        }),
    ];
    for (layer, configure) in layers {
        let harness = Harness::new(configure);
        let result = harness.exec(&attack).await;
        assert!(!result.text().contains("status=0"), "{layer}: {}", result.text());
        assert!(
            victim.try_wait().unwrap().is_none(),
            "{layer} let the victim be killed"
        );
    }
    let unconfined = Harness::new(|config| {
        config.sandbox = ExecSandbox::None;
        config.keep_background = true;
    });
    let result = unconfined.exec(&attack).await;
    assert!(result.text().contains("status=0"), "{}", result.text());
    assert!(victim.wait().is_ok());
}

#[tokio::test]
async fn the_agents_environment_cannot_be_read_through_proc() {
    let attack = format!(
        "cat /proc/{}/environ > /dev/null && echo REACHED",
        std::process::id()
    );
    let harness = Harness::new(|_| {});
    let result = harness.exec(&attack).await;
    assert!(
        !result.text().contains("REACHED") && result.text().contains("Permission denied"),
        "{}",
        result.text()
    );
    let unconfined = Harness::new(|config| config.sandbox = ExecSandbox::None);
    assert!(unconfined.exec(&attack).await.text().contains("REACHED"));
}

/// Starts four background processes that leave the command's process group in every usual
/// way (a subshell's job, `setsid`, `nohup`, a double fork into a new session), each with
/// `marker` in its command line, and waits until all of them run.
fn leave_processes_behind(marker: &str) -> String {
    // `M` is expanded by the shell, so only the sleeps carry `${M}N` on their command lines.
    format!(
        "M={marker}; (sleep ${{M}}1 &); setsid sleep ${{M}}2 & nohup sleep ${{M}}3 > /dev/null 2>&1 & \
         (setsid sh -c \"sleep ${{M}}4 &\" &); \
         until [ \"$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -o \"sleep ${{M}}[1-4]\" | sort -u | wc -l)\" -ge 4 ]; do sleep 0.02; done; \
         touch all-started; echo all started"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_a_command_starts_outlives_its_call_however_it_ends() {
    let harness = Harness::new(|_| {});

    let normal = marker();
    let result = harness.exec(&leave_processes_behind(&normal)).await;
    assert!(result.text().contains("all started"), "{}", result.text());
    assert_eq!(
        processes_with(&normal),
        Vec::<i32>::new(),
        "survivors of a normal end"
    );

    let timed_out = marker();
    let command = format!("{} ; sleep 600", leave_processes_behind(&timed_out));
    let call = ToolCall::new("c", "exec", json!({ "command": command, "timeout_secs": 2 }));
    let result = harness.registry.call(call).await;
    assert_eq!(result.outcome, Outcome::Timeout, "{}", result.text());
    assert_eq!(
        processes_with(&timed_out),
        Vec::<i32>::new(),
        "survivors of a timeout"
    );

    let cancelled = marker();
    let command = format!("{} ; sleep 600", leave_processes_behind(&cancelled));
    let token = CancellationToken::new();
    let started = harness.ws.join("all-started");
    std::fs::remove_file(&started).unwrap();
    let call = harness
        .registry
        .call(Harness::call(&command).with_cancellation(token.clone()));
    let canceller = async {
        assert!(eventually(|| started.exists()).await, "the processes started");
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, canceller);
    assert_eq!(result.outcome, Outcome::Cancelled, "{}", result.text());
    assert_eq!(
        processes_with(&cancelled),
        Vec::<i32>::new(),
        "survivors of a cancellation"
    );

    // With `keep_background`, they stay: the attack above is real.
    let keeping = Harness::new(|config| config.keep_background = true);
    let kept = marker();
    let result = keeping.exec(&leave_processes_behind(&kept)).await;
    assert!(result.text().contains("all started"), "{}", result.text());
    let survivors = processes_with(&kept);
    kill_all(&survivors);
    assert!(
        !survivors.is_empty(),
        "keep_background keeps background processes"
    );
}

// ---------------------------------------------------------------------------------------
// How a stopped command ends

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_command_is_an_error_with_its_output_and_a_failing_one_is_not() {
    let harness = Harness::new(|_| {});
    let result = harness.exec("echo checked; exit 3").await;
    assert_eq!((result.outcome, result.is_error()), (Outcome::Ok, false));
    assert!(result.text().starts_with("exit code: 3\n"), "{}", result.text());

    let call = ToolCall::new(
        "c",
        "exec",
        json!({ "command": "echo begun; sleep 600", "timeout_secs": 1 }),
    );
    let result = harness.registry.call(call).await;
    assert_eq!((result.outcome, result.is_error()), (Outcome::Timeout, true));
    assert!(
        result.text().contains("Output so far:\n--- stdout ---\nbegun\n"),
        "{}",
        result.text()
    );

    let token = CancellationToken::new();
    let begun = harness.ws.join("begun");
    let call = harness
        .registry
        .call(Harness::call("echo begun; touch begun; sleep 600").with_cancellation(token.clone()));
    let canceller = async {
        assert!(eventually(|| begun.exists()).await);
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, canceller);
    assert_eq!((result.outcome, result.is_error()), (Outcome::Cancelled, true));
    assert!(
        result.text().contains("Output so far:\n--- stdout ---\nbegun\n"),
        "{}",
        result.text()
    );
    let outcomes: Vec<Outcome> = harness.audit.events().iter().map(|event| event.outcome).collect();
    assert_eq!(outcomes, [Outcome::Ok, Outcome::Timeout, Outcome::Cancelled]);
}

// ---------------------------------------------------------------------------------------
// The terminal, through the command line in a session of its own

/// A pseudo-terminal in raw mode, its terminal side non-blocking: `(controller,
/// terminal)`.
fn pseudo_terminal() -> (OwnedFd, OwnedFd) {
    use rustix::termios::{OptionalActions, tcgetattr, tcsetattr};
    let (controller, terminal) = terminal::pseudo_terminal();
    rustix::io::ioctl_fionbio(&terminal, true).expect("non-blocking");
    let mut settings = tcgetattr(&terminal).expect("tcgetattr");
    settings.make_raw();
    tcsetattr(&terminal, OptionalActions::Now, &settings).expect("tcsetattr");
    (controller, terminal)
}

/// Runs `agent-tools call exec` as the leader of a session whose controlling terminal is
/// `terminal`, with `config` as its configuration file.
fn call_in_terminal(workspace: &Path, config: &str, command: &str, terminal: &OwnedFd) -> Output {
    let config_file = workspace.join("..").join("config.toml");
    std::fs::write(&config_file, config).unwrap();
    let arguments = json!({ "command": command }).to_string();
    let mut cli = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    cli.arg("--workspace")
        .arg(workspace)
        .arg("--config")
        .arg(&config_file);
    cli.args(["call", "exec", &arguments]);
    terminal::in_session_of(&mut cli, terminal);
    cli.output().unwrap()
}

/// What has been typed into the terminal and not read.
fn typed_input(terminal: &OwnedFd) -> String {
    let mut file = std::fs::File::from(terminal.try_clone().unwrap());
    let mut typed = Vec::new();
    let mut buffer = [0u8; 64];
    while let Ok(read @ 1..) = file.read(&mut buffer) {
        typed.extend_from_slice(&buffer[..read]);
    }
    String::from_utf8_lossy(&typed).into_owned()
}

/// Whether the kernel lets an unconfined process of ours push terminal input at all
/// (`dev.tty.legacy_tiocsti = 0` refuses it to all but root since Linux 6.2).
fn kernel_allows_tiocsti() -> bool {
    let root = rustix::process::geteuid().is_root();
    let legacy = std::fs::read_to_string("/proc/sys/dev/tty/legacy_tiocsti").unwrap_or_else(|_| "1".into());
    root || legacy.trim() == "1"
}

#[test]
fn a_command_cannot_type_into_the_agents_terminal() {
    if !has_python() {
        return;
    }
    arm_fork_guard();
    let temp = tempfile::tempdir().unwrap();
    let workspace = temp.path().join("ws");
    std::fs::create_dir(&workspace).unwrap();
    let attack = python(
        "import fcntl, os, termios; fd = os.open(\"/dev/tty\", os.O_RDWR); \
         [fcntl.ioctl(fd, termios.TIOCSTI, c) for c in (b\"i\", b\"d\", b\"\\n\")]; print(\"REACHED\")",
    );
    let (_controller, terminal) = pseudo_terminal();
    let confined = call_in_terminal(&workspace, "[exec]\nrequire_sandbox = true\n", &attack, &terminal);
    let stdout = String::from_utf8_lossy(&confined.stdout);
    assert!(
        stdout.contains("PermissionError") && !stdout.contains("REACHED"),
        "{stdout}"
    );
    assert_eq!(typed_input(&terminal), "", "nothing was typed");

    let (_controller, terminal) = pseudo_terminal();
    let unconfined = call_in_terminal(&workspace, "[exec]\nsandbox = \"none\"\n", &attack, &terminal);
    if kernel_allows_tiocsti() {
        assert_eq!(typed_input(&terminal), "id\n", "{unconfined:?}");
    } else {
        eprintln!("this kernel refuses TIOCSTI to unconfined processes too; the attack is not possible here");
    }
}

// ---------------------------------------------------------------------------------------
// Kernel features taken away

/// Runs `agent-tools call exec` in a process where the system calls in `refused` fail with
/// `errno`, as on a kernel without them.
// Needs unsafe: it runs code between fork and exec (`pre_exec`).
#[allow(unsafe_code)]
fn call_without(refused: &[libc::c_long], errno: i32, config: &str, command: &str) -> (bool, String) {
    use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};
    arm_fork_guard();
    let temp = tempfile::tempdir().unwrap();
    let workspace = temp.path().join("ws");
    std::fs::create_dir(&workspace).unwrap();
    let config_file = temp.path().join("config.toml");
    std::fs::write(&config_file, config).unwrap();
    let rules = refused.iter().map(|&call| (call, Vec::new())).collect();
    let arch = TargetArch::try_from(std::env::consts::ARCH).unwrap();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .unwrap();
    let program = BpfProgram::try_from(filter).unwrap();
    let arguments = json!({ "command": command }).to_string();
    let mut cli = Command::new(env!("CARGO_BIN_EXE_agent-tools"));
    cli.arg("--workspace")
        .arg(&workspace)
        .arg("--config")
        .arg(&config_file);
    cli.args(["call", "exec", &arguments]);
    // SAFETY: apply_filter makes two system calls on the program built above.
    unsafe {
        cli.pre_exec(move || seccompiler::apply_filter(&program).map_err(std::io::Error::other));
    }
    let output = cli.output().unwrap();
    let text =
        String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

const REQUIRED: &str = "[exec]\nrequire_sandbox = true\n";

#[test]
fn without_landlock_the_call_fails_naming_writes_alone() {
    let refused = [
        libc::SYS_landlock_create_ruleset,
        libc::SYS_landlock_add_rule,
        libc::SYS_landlock_restrict_self,
    ];
    let (ok, text) = call_without(&refused, libc::ENOSYS, REQUIRED, "touch /tmp/should-not-run");
    assert!(!ok, "{text}");
    assert!(
        text.contains("cannot enforce: no writes outside the workspace — this kernel has no Landlock"),
        "{text}"
    );
    assert!(text.contains("The command was not run"), "{text}");
    for other in ["signals", "Unix sockets", "terminal", "outliving"] {
        assert!(!text.contains(other), "{other} is enforced, yet named: {text}");
    }
    let (ok, text) = call_without(&refused, libc::ENOSYS, "", "echo ran");
    assert!(ok, "{text}");
    assert!(
        text.contains("[sandbox: not enforced here: no writes outside the workspace"),
        "{text}"
    );
    assert!(text.contains("ran"), "{text}");
}

#[test]
fn without_namespaces_the_call_fails_naming_background_processes_alone() {
    let (ok, text) = call_without(&[libc::SYS_unshare], libc::EPERM, REQUIRED, "echo ran");
    assert!(!ok, "{text}");
    assert!(text.contains("no processes outliving the call"), "{text}");
    assert!(text.contains("no PID namespace can be made here"), "{text}");
    assert!(!text.contains("writes") && !text.contains("signals"), "{text}");

    // The rest still holds when it runs.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("f");
    let (_, text) = call_without(
        &[libc::SYS_unshare],
        libc::EPERM,
        "",
        &format!("echo x > {}", target.display()),
    );
    assert!(
        text.contains("[sandbox: not enforced here: no processes outliving the call"),
        "{text}"
    );
    assert!(!target.exists(), "{text}");
}

#[test]
fn without_seccomp_the_call_fails_naming_sockets_and_the_terminal() {
    let (ok, text) = call_without(&[libc::SYS_seccomp], libc::ENOSYS, REQUIRED, "echo ran");
    assert!(!ok, "{text}");
    for expected in ["no Unix sockets", "no typing into the terminal", "seccomp"] {
        assert!(text.contains(expected), "{expected} not in {text}");
    }
    assert!(!text.contains("writes") && !text.contains("outliving"), "{text}");
}

#[test]
fn without_namespaces_an_allow_list_still_keeps_tcp_to_the_proxys_port_and_refuses_udp() {
    if !has_python() {
        return;
    }
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let (tcp_port, udp_port) = (tcp.local_addr().unwrap().port(), udp.local_addr().unwrap().port());
    let attack = python(&format!(
        "import socket\n\
         for name, attempt in [(\"TCP\", lambda: socket.create_connection((\"127.0.0.1\", {tcp_port}), timeout=5)), \
         (\"UDP\", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"127.0.0.1\", {udp_port})))]:\n    \
         try:\n        attempt(); print(name, \"REACHED\")\n    except PermissionError as error: print(name, \"refused:\", error)"
    ));
    let allow_list = "[exec]\nnetwork = [\"registry.test\"]\n";
    // No namespace can be made (unshare refused): the proxy is on the agent's loopback, and
    // only Landlock (TCP to its port alone) and seccomp (no UDP) keep the command to it.
    let (ok, text) = call_without(&[libc::SYS_unshare], libc::EPERM, allow_list, &attack);
    assert!(ok, "{text}");
    assert!(
        text.contains("TCP refused") && text.contains("UDP refused") && !text.contains("REACHED"),
        "{text}"
    );
    assert!(
        text.contains("only the allow-list's hosts"),
        "the gap is not named: {text}"
    );
    assert!(tcp.accept().is_err(), "a TCP connection arrived");
    let mut buffer = [0u8; 16];
    assert!(udp.recv_from(&mut buffer).is_err(), "a datagram arrived");
    // With the sandbox required, the gap refuses the call.
    let required = format!("{allow_list}require_sandbox = true\n");
    let (ok, text) = call_without(&[libc::SYS_unshare], libc::EPERM, &required, &attack);
    assert!(!ok && text.contains("only the allow-list's hosts"), "{text}");

    // The same attack with the whole network allowed reaches both: the refusals are real.
    let (_, text) = call_without(
        &[libc::SYS_unshare],
        libc::EPERM,
        "[exec]\nnetwork = true\n",
        &attack,
    );
    assert!(
        text.contains("TCP REACHED") && text.contains("UDP REACHED"),
        "{text}"
    );
}
