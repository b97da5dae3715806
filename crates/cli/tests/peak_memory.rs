//! The file tools' peak memory on a file of one 256 MiB line, twice the bound (issue 13: `read_file`
//! of a 4 GiB one-line file took 4 GB), measured by the kernel: the `agent-tools` binary
//! runs the call and `wait4` reports its peak resident set (`ru_maxrss`).
//!
//! These tests have a test binary of their own (not a module of `tests/it`, whose other
//! tests grow the process) because a child's `ru_maxrss` starts from its parent's:
//! `posix_spawn` runs the child in the parent's memory until `exec`, and Linux carries
//! that memory's high-water mark into the child's account. Here the parent
//! (this binary) stays at a few megabytes — the huge file is written a megabyte at a
//! time — so the figure is the tool's. Do not add tests that allocate much to this file.
//!
//! The 4 GiB figure of the guide's performance chapter comes from `benches/peak_rss.sh`.

use std::fs::File;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The peak resident memory a file tool may reach, whatever the file.
const MAX_PEAK_RSS: u64 = 128 * 1024 * 1024;
/// Real (non-NUL, newline-free) bytes at the start of the huge file: more than
/// [`MAX_PEAK_RSS`], so a tool that holds the line cannot stay under it.
const HUGE_TEXT_HEAD: u64 = 160 * 1024 * 1024;
/// The huge file's length; past the head it is sparse, so it costs no disk.
const HUGE_FILE_LEN: u64 = 256 * 1024 * 1024;

/// A file of [`HUGE_FILE_LEN`] bytes without a newline, of which the first
/// [`HUGE_TEXT_HEAD`] are real text (a sparse file alone would read as NUL bytes, which
/// `file_search` stops at as binary).
fn huge_one_line_file(path: &Path) {
    let mut file = File::create(path).unwrap();
    let chunk = vec![b'a'; 1024 * 1024];
    for _ in 0..HUGE_TEXT_HEAD / chunk.len() as u64 {
        file.write_all(&chunk).unwrap();
    }
    file.set_len(HUGE_FILE_LEN).unwrap();
}

/// Runs `agent-tools --workspace DIR call TOOL ARGS` and returns its output and its peak
/// resident memory, as the kernel accounted it (`wait4`'s `ru_maxrss`).
// Needs unsafe: neither std nor rustix has `wait4`, the one call that reports a child's
// resource use as it is reaped.
#[allow(unsafe_code)]
fn call_binary(workspace: &Path, tool: &str, arguments: Value) -> (String, u64) {
    let output_path = workspace.with_extension("out");
    #[expect(
        clippy::zombie_processes,
        reason = "reaped by `wait4` below, which reports its resource use; std's wait does not"
    )]
    let child = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
        .arg("--workspace")
        .arg(workspace)
        .args(["call", tool, &arguments.to_string()])
        .env("XDG_DATA_HOME", workspace.with_extension("data"))
        .stdin(Stdio::null())
        .stdout(File::create(&output_path).unwrap())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: `pid` is our own child, not yet reaped (std reaps only on `wait`), and
    // both pointers are to live locals of the right types.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    let output = std::fs::read_to_string(&output_path).unwrap();
    // Linux reports `ru_maxrss` in KiB.
    let peak = u64::try_from(usage.ru_maxrss).unwrap() * 1024;
    (output, peak)
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

#[test]
fn read_file_of_a_256_mib_line_stays_under_128_mb() {
    let temp = tempfile::tempdir().unwrap();
    let ws = temp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    huge_one_line_file(&ws.join("one-line.txt"));
    let (output, peak) = call_binary(&ws, "read_file", json!({"path": "one-line.txt"}));
    eprintln!("read_file peak RSS: {}", megabytes(peak));
    assert!(
        output.starts_with("`one-line.txt`: lines 1-1 of 1\n"),
        "{}",
        &output[..output.len().min(300)]
    );
    let rest = HUGE_FILE_LEN - 2000;
    assert!(
        output.ends_with(&format!("… [line cut: {rest} more characters]\n")),
        "{}",
        &output[output.len().saturating_sub(300)..]
    );
    assert!(peak < MAX_PEAK_RSS, "peak RSS {}", megabytes(peak));
}

#[test]
fn file_search_of_a_256_mib_line_stays_under_128_mb_and_names_the_file() {
    let temp = tempfile::tempdir().unwrap();
    let ws = temp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    huge_one_line_file(&ws.join("one-line.txt"));
    std::fs::write(ws.join("small.txt"), "a needle\n").unwrap();
    let (output, peak) = call_binary(&ws, "file_search", json!({"pattern": "needle"}));
    eprintln!("file_search peak RSS: {}", megabytes(peak));
    assert_eq!(
        output,
        "small.txt:1: a needle\n\n1 match in 1 file\n1 file not searched: a line is longer than \
         4 MiB (`one-line.txt`); read_file shows such files in part\n"
    );
    assert!(peak < MAX_PEAK_RSS, "peak RSS {}", megabytes(peak));
}
