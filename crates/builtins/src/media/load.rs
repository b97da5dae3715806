//! Checking and loading one file: inside the workspace, a regular file, not empty, within
//! the size limit, and its content of an allowed type and of the type its name claims.

use std::io::Read as _;
use std::path::Path;

use crate::Workspace;
use cap_std::fs::File;

use super::{MediaConfig, MediaFile};
use crate::file_kind::{Format, claimed_by_name, identify};
use crate::text_format::human_size;

/// A file that passed every check, and its path as the model gave it (normalized).
pub(super) struct Loaded {
    /// The path relative to the workspace root, for the report.
    pub(super) shown: String,
    /// The file, ready to send.
    pub(super) file: MediaFile,
}

/// Loads `path` for sending, or says in one line why it cannot be sent.
pub(super) fn load(ws: &Workspace, path: &str, config: &MediaConfig) -> Result<Loaded, String> {
    let opened = ws.open_file(path).map_err(|error| error.to_string())?;
    let shown = Workspace::display(&opened.path);
    let bytes = read_limited(opened.file, opened.metadata.len(), &shown, config.max_file_bytes)?;
    let name = file_name(&opened.path, &shown);
    let format = identify(&bytes);
    check_type(&shown, &name, format, config)?;
    let file = MediaFile {
        name,
        mime_type: format.mime_type.to_owned(),
        bytes,
    };
    Ok(Loaded { shown, file })
}

/// The whole file, if it is neither empty nor over `max` bytes (also when it grows while
/// being read).
fn read_limited(file: File, size: u64, shown: &str, max: u64) -> Result<Vec<u8>, String> {
    let too_large = |size| {
        format!(
            "`{shown}` is {}, over the limit of {} per file",
            human_size(size),
            human_size(max)
        )
    };
    if size > max {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read `{shown}`: {error}"))?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > max {
        return Err(too_large(read));
    }
    if bytes.is_empty() {
        return Err(format!("`{shown}` is empty; there is nothing to send"));
    }
    Ok(bytes)
}

/// The final component of `path`: what recipients see as the file's name.
fn file_name(path: &Path, shown: &str) -> String {
    path.file_name()
        .map_or_else(|| shown.to_owned(), |name| name.to_string_lossy().into_owned())
}

/// Refuses content its name misrepresents, then content of a type not allowed.
fn check_type(shown: &str, name: &str, format: &Format, config: &MediaConfig) -> Result<(), String> {
    if let Some(claimed) = claimed_by_name(name)
        && claimed.mime_type != format.mime_type
    {
        return Err(format!(
            "`{shown}`: its name says {} ({}), but its content is {} ({}); only files whose content \
             matches their name are sent",
            claimed.name, claimed.mime_type, format.name, format.mime_type
        ));
    }
    if !config.allows(format.mime_type) {
        return Err(format!(
            "`{shown}`: its content is {} ({}), a type that may not be sent; allowed types: {}",
            format.name,
            format.mime_type,
            config.allowed_types.join(", ")
        ));
    }
    Ok(())
}
