//! Namespaces: the tenants of one shared memory database.
//!
//! In PostgreSQL every memory belongs to a namespace, and every statement names the
//! namespace it reads or writes: a search, a read by id or key, `recent` and a write
//! see only their own, so one tenant cannot find, read, replace or count another's
//! memories, whatever the model asks. Ids are unique across namespaces, and an id from
//! another namespace is "not found". What a namespace does not stop: anyone holding the
//! database URL can read every namespace; separate databases (or PostgreSQL roles with
//! row security) are the answer to tenants who must not share credentials.

use super::error::MemoryError;

/// The longest namespace, in characters.
pub const MAX_NAMESPACE_CHARS: usize = 512;

/// The namespace of a store opened without one.
#[cfg(feature = "postgres")]
pub(super) const DEFAULT: &str = "default";

/// Checks a namespace: 1 to [`MAX_NAMESPACE_CHARS`] characters, no control characters.
pub(crate) fn check(name: &str) -> Result<(), MemoryError> {
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAMESPACE_CHARS || name.chars().any(char::is_control) {
        return Err(MemoryError::InvalidNamespace(name.to_owned()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_are_checked() {
        assert!(check("team-a/user:alice@example.com").is_ok());
        assert!(check(&"n".repeat(512)).is_ok());
        for bad in ["", "a\nb", "a\0", &"n".repeat(513)] {
            assert!(
                matches!(check(bad), Err(MemoryError::InvalidNamespace(_))),
                "{bad:?}"
            );
        }
    }
}
