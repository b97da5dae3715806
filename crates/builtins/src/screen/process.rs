//! Running the capture commands (Chromium, `grim`, `screencapture`): found on `PATH`,
//! run with a time limit in a process group of their own, and asked for a PNG file.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use agent_tools_core::ToolError;
use tokio::process::Command;

use crate::process_group::ProcessGroup;

/// Most characters of a failed command's stderr quoted in the error.
const STDERR_TAIL: usize = 1500;

/// The first of `names` that is an executable file in a directory of `PATH`.
pub(crate) fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| is_executable(candidate))
}

/// Whether `path` is a regular file someone may execute.
pub(crate) fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

/// Runs `program` with `args` and returns the file it writes at `output`.
///
/// The command gets no stdin, its stdout is discarded and its stderr goes to a file
/// beside `output` (a pipe would keep us waiting for helper processes that inherited
/// it). It runs in a new process group, and the whole group is killed when the command
/// ends, when `timeout` passes, or when the call is dropped, so browsers leave no
/// helper processes behind.
pub(crate) async fn run_for_file(
    program: &Path,
    args: &[OsString],
    output: &Path,
    timeout: Duration,
) -> Result<Vec<u8>, ToolError> {
    let name = program
        .file_name()
        .unwrap_or(program.as_os_str())
        .to_string_lossy()
        .into_owned();
    let stderr_path = output.with_extension("stderr");
    let stderr = std::fs::File::create(&stderr_path)
        .map_err(|error| ToolError::new(format!("cannot create a file for {name}'s errors: {error}")))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .process_group(0)
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .map_err(|error| ToolError::new(format!("cannot start {}: {error}", program.display())))?;
    let _group = ProcessGroup::of(child.id());
    let status = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => {
            status.map_err(|error| ToolError::new(format!("waiting for {name} failed: {error}")))?
        }
        Err(_) => {
            return Err(ToolError::new(format!(
                "{name} did not finish within {} s and was stopped",
                timeout.as_secs_f32()
            )));
        }
    };
    let errors = stderr_tail(&stderr_path).await;
    if !status.success() {
        return Err(ToolError::new(format!("{name} failed ({status}){errors}")));
    }
    tokio::fs::read(output)
        .await
        .map_err(|error| ToolError::new(format!("{name} wrote no image ({error}){errors}")))
}

/// The end of what a command wrote to stderr, as `": …"`, or nothing.
async fn stderr_tail(path: &Path) -> String {
    let text = tokio::fs::read(path).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    let start = text.char_indices().rev().nth(STDERR_TAIL).map_or(0, |(at, _)| at);
    format!(": {}", &text[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_command_writes_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.png");
        let script = format!("printf data > {}", output.display());
        let args = ["-c".into(), script.into()];
        let bytes = run_for_file(Path::new("/bin/sh"), &args, &output, Duration::from_secs(10))
            .await
            .unwrap();
        assert_eq!(bytes, b"data");
    }

    #[tokio::test]
    async fn failures_quote_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.png");
        let args = ["-c".into(), "echo 'no screen here' >&2; exit 3".into()];
        let error = run_for_file(Path::new("/bin/sh"), &args, &output, Duration::from_secs(10))
            .await
            .unwrap_err()
            .to_string();
        assert_eq!(error, "sh failed (exit status: 3): no screen here");
        let args = ["-c".into(), "true".into()];
        let error = run_for_file(Path::new("/bin/sh"), &args, &output, Duration::from_secs(10))
            .await
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("sh wrote no image"), "{error}");
    }

    // Reads `/proc` to see the background process go.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn slow_commands_are_stopped_with_their_children() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.png");
        let pid_file = dir.path().join("child.pid");
        let script = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
        let args = ["-c".into(), script.into()];
        let started = std::time::Instant::now();
        let error = run_for_file(Path::new("/bin/sh"), &args, &output, Duration::from_millis(500))
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("did not finish within 0.5 s"), "{error}");
        assert!(started.elapsed() < Duration::from_secs(10));
        let child: u32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while Path::new(&format!("/proc/{child}")).exists() && !is_zombie(child) {
            assert!(
                std::time::Instant::now() < deadline,
                "the background sleep survived"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[cfg(target_os = "linux")]
    fn is_zombie(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "))
    }

    #[test]
    fn programs_are_found_on_the_path() {
        assert!(find_program(&["no-such-program-here", "sh"]).is_some());
        assert!(find_program(&["no-such-program-here"]).is_none());
        assert!(!is_executable(Path::new("/etc/passwd")));
    }
}
