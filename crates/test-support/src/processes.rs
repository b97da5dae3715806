//! Finding processes by what they run, for tests that check what was started and what
//! was stopped. Commands run by `exec` live in PID namespaces of their own, so their
//! `$$` and `$PPID` are not pids out here; these look through `/proc` instead.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A number no other process has on its command line.
pub fn marker() -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_nanos();
    format!(
        "{}{}{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos % 10_000
    )
}

/// Processes whose command line contains `needle`.
pub fn processes_with(needle: &str) -> Vec<i32> {
    processes()
        .filter(|(_, dir)| command_line(dir).is_some_and(|line| line.contains(needle)))
        .map(|(pid, _)| pid)
        .collect()
}

/// The children of `parent` whose working directory is `cwd`.
pub fn children_in(parent: u32, cwd: &Path) -> Vec<i32> {
    processes()
        .filter(|(_, dir)| parent_of(dir) == Some(parent))
        .filter(|(_, dir)| std::fs::read_link(dir.join("cwd")).is_ok_and(|dir| dir == cwd))
        .map(|(pid, _)| pid)
        .collect()
}

fn processes() -> impl Iterator<Item = (i32, PathBuf)> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| Some((entry.file_name().to_str()?.parse().ok()?, entry.path())))
}

fn command_line(dir: &Path) -> Option<String> {
    let bytes = std::fs::read(dir.join("cmdline")).ok()?;
    Some(String::from_utf8_lossy(&bytes).replace('\0', " "))
}

/// The parent pid, from `stat`'s fourth field (after the parenthesized name, which may
/// hold spaces).
fn parent_of(dir: &Path) -> Option<u32> {
    let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}
