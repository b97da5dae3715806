//! Appending to a file all or nothing: what a failed append (a full disk) wrote is cut
//! off again, so the file is as it was — an append-only log never gets a half line that
//! the next entry would complete into garbage, and a retried append never duplicates.
//!
//! The take-back assumes no other writer appends to the same file between the partial
//! write and the cut; both users hold the file exclusively (a lock, or the one writer).

use std::fs::File;
use std::io::{self, Write as _};

/// Appends `bytes` to `file` (opened in append mode) and, with `sync`, flushes them to
/// disk; on failure, nothing of them remains.
pub fn append_all(file: &mut File, bytes: &[u8], sync: bool) -> io::Result<()> {
    let mut written = 0;
    while written < bytes.len() {
        match file.write(&bytes[written..]) {
            Ok(0) => return Err(take_back(file, written, io::ErrorKind::WriteZero.into())),
            Ok(n) => written += n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(take_back(file, written, error)),
        }
    }
    if sync && let Err(error) = file.sync_data() {
        return Err(take_back(file, written, error));
    }
    Ok(())
}

/// Cuts the last `written` bytes off `file`; returns `error` for the caller to report.
fn take_back(file: &File, written: usize, error: io::Error) -> io::Error {
    if written > 0
        && let Ok(metadata) = file.metadata()
    {
        // Best effort: if even this fails, the original error is the one to report.
        let _ = file.set_len(metadata.len().saturating_sub(written as u64));
    }
    error
}
