//! Writing files so that a failure never loses the old content.
//!
//! An overwrite goes to a temporary file next to the target, is flushed to disk, and
//! renamed over the target; then the directory is flushed so the rename itself survives
//! a crash. A writer that fails or is killed leaves the previous content in place. A
//! killed writer can leave its temporary file behind; the next successful write of the
//! same file removes it. An append that fails (a full disk) takes back what it wrote, and
//! one that would create its file creates it whole, as `CreateNew` does.
//!
//! An append is the one write that changes an existing file in place, so it is the one
//! that a hard link can turn against the workspace: the other names of the inode may lie
//! anywhere on the file system (a file the agent did not create, linked in by `exec` or
//! by whoever made the tree). Appends refuse files with more than one link; an overwrite
//! writes a new file and renames it over the name, which leaves other links as they were.

use std::ffi::{OsStr, OsString};
use std::io::{self, Write as _};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, MetadataExt as _, OpenOptions, OpenOptionsExt as _};

/// How [`Workspace::write_file`](super::Workspace::write_file) treats an existing file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// Replace the file atomically, or create it.
    #[default]
    Overwrite,
    /// Add to the end of the file, or create it.
    Append,
    /// Create the file; fail if it exists.
    CreateNew,
}

/// Temporary files are named `.{target}.{pid}-{n}{TEMP_SUFFIX}`.
const TEMP_SUFFIX: &str = ".agent-tools.tmp";

/// Writes `contents` to `name` in `dir`; returns whether the file is new.
/// Writes `name` in `dir`; with `no_links`, an append does not follow a link there
/// (a replace never does: it renames over the name).
pub(super) fn write_in(
    dir: &Dir,
    name: &OsStr,
    contents: &[u8],
    mode: WriteMode,
    no_links: bool,
) -> io::Result<bool> {
    match mode {
        WriteMode::Overwrite => replace(dir, name, contents),
        WriteMode::Append => append(dir, name, contents, no_links),
        WriteMode::CreateNew => create_new(dir, name, contents),
    }
}

fn replace(dir: &Dir, name: &OsStr, contents: &[u8]) -> io::Result<bool> {
    let existing = dir
        .symlink_metadata(name)
        .ok()
        .filter(|metadata| metadata.is_file());
    let temp = write_temp(dir, name, contents, existing.as_ref().map(|m| m.permissions()))?;
    if let Err(error) = dir.rename(&temp, dir, name) {
        discard(dir, &temp);
        return Err(error);
    }
    sync_dir(dir)?;
    remove_stale_temps(dir, name);
    Ok(existing.is_none())
}

fn create_new(dir: &Dir, name: &OsStr, contents: &[u8]) -> io::Result<bool> {
    let temp = write_temp(dir, name, contents, None)?;
    // A hard link fails if the name exists, so the file appears complete or not at all.
    let linked = dir.hard_link(&temp, dir, name);
    discard(dir, &temp);
    linked?;
    sync_dir(dir)?;
    Ok(true)
}

fn append(dir: &Dir, name: &OsStr, contents: &[u8], no_links: bool) -> io::Result<bool> {
    // A file the append creates appears whole or not at all, as with `CreateNew`; only
    // when another writer creates it first is it appended to.
    if dir.symlink_metadata(name).is_err() {
        match create_new(dir, name, contents) {
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            created => return created,
        }
    }
    // The name exists, but a symbolic link's target may not: the open creates it.
    let target_existed = dir.metadata(name).is_ok();
    let mut options = OpenOptions::new();
    // Non-blocking: a FIFO (a symbolic link's target) must not hang the open.
    let no_follow = if no_links { libc::O_NOFOLLOW } else { 0 };
    options
        .append(true)
        .create(true)
        .custom_flags(libc::O_NONBLOCK | no_follow);
    let file = dir.open_with(name, &options)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    // Judged on the open handle, so a link made after a check cannot slip in between.
    if metadata.nlink() > 1 {
        return Err(io::Error::other(HardLinks(metadata.nlink())));
    }
    agent_tools_core::__private::append_all(&mut file.into_std(), contents, true)?;
    if !target_existed {
        sync_dir(dir)?;
    }
    Ok(!target_existed)
}

/// An append refused because the file has this many hard links: appending changes the
/// file under every one of its names, and the others may lie outside the workspace.
#[derive(Debug)]
struct HardLinks(u64);

impl std::fmt::Display for HardLinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the file has {} hard links", self.0)
    }
}

impl std::error::Error for HardLinks {}

/// The number of hard links, if `error` is an append refused for them.
pub(super) fn hard_links(error: &io::Error) -> Option<u64> {
    error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<HardLinks>())
        .map(|links| links.0)
}

/// A new temporary file next to `name` holding `contents`, flushed to disk.
fn write_temp(
    dir: &Dir,
    name: &OsStr,
    contents: &[u8],
    permissions: Option<cap_std::fs::Permissions>,
) -> io::Result<OsString> {
    let temp = temp_name(name);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    let mut file = dir.open_with(&temp, &options)?;
    let written = (|| {
        file.write_all(contents)?;
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.sync_all()
    })();
    if let Err(error) = written {
        discard(dir, &temp);
        return Err(error);
    }
    Ok(temp)
}

fn temp_name(name: &OsStr) -> OsString {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(".{}-{n}{TEMP_SUFFIX}", std::process::id()));
    temp
}

/// Removes a temporary file after a failure. The failure is what gets reported; a file
/// that cannot be removed either is left for the next write's cleanup.
fn discard(dir: &Dir, temp: &OsStr) {
    let _ = dir.remove_file(temp);
}

/// Flushes the directory entry changes (the rename) to disk. The `Dir` handle itself may
/// be an `O_PATH` descriptor, which cannot be synced, so the directory is opened for it.
pub(super) fn sync_dir(dir: &Dir) -> io::Result<()> {
    dir.open(".")?.sync_all()
}

/// Removes temporary files of `name` left by writers of other processes that died; this
/// process's own are in flight or already removed.
fn remove_stale_temps(dir: &Dir, name: &OsStr) {
    let Some(name) = name.to_str() else { return };
    let prefix = format!(".{name}.");
    let own = format!(".{name}.{}-", std::process::id());
    let Ok(entries) = dir.entries() else { return };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        if file_name.starts_with(&prefix) && file_name.ends_with(TEMP_SUFFIX) && !file_name.starts_with(&own)
        {
            discard(dir, OsStr::new(file_name));
        }
    }
}
