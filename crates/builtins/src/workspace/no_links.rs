//! Opening a path beneath the workspace's root so that no component of it is a symbolic
//! link, for the workspace's no-links mode.
//!
//! On Linux the kernel does it in one call: `openat2` with `RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS` checks each component as it walks. Where `openat2` does not exist
//! (other Unix systems, or a Linux kernel older than 5.6 or a seccomp filter that refuses
//! it with `ENOSYS`), the path is walked one component at a time: each directory is
//! opened relative to the one before with `O_NOFOLLOW | O_DIRECTORY`, and the last
//! component with `O_NOFOLLOW`, so a symbolic link anywhere fails the open with `ELOOP`
//! and nothing is resolved by name twice. Both refuse a `..` or absolute component
//! (`EXDEV`), as the workspace's paths are already relative and normalised.
//!
//! What this does not stop: a hard link (it is not a link the walk can see; appends check
//! the link count on the open handle instead), and a directory renamed between two steps
//! of the walk, which can move the rest of the walk elsewhere beneath the root but never
//! through a symbolic link.

use std::io;
use std::os::fd::OwnedFd;
use std::path::{Component, Path};

use cap_std::fs::Dir;
use rustix::fs::{Mode, OFlags};

/// Opens the file `path` beneath `root` for reading (non-blocking, as a FIFO must not
/// hang the open), refusing (`ELOOP`) if any component is a symbolic link.
pub(super) fn open_file(root: &Dir, path: &Path) -> io::Result<cap_std::fs::File> {
    let fd = open_beneath(root, path, OFlags::NONBLOCK)?;
    Ok(cap_std::fs::File::from_std(std::fs::File::from(fd)))
}

/// Opens the directory `path` beneath `root`, refusing (`ELOOP`) if any component is a
/// symbolic link.
pub(super) fn open_dir(root: &Dir, path: &Path) -> io::Result<Dir> {
    let fd = open_beneath(root, path, OFlags::DIRECTORY)?;
    Ok(Dir::from_std_file(std::fs::File::from(fd)))
}

/// Opens `path` beneath `root`, read-only with `flags`, following no symbolic link.
fn open_beneath(root: &Dir, path: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{ResolveFlags, openat2};
        match openat2(
            root,
            path,
            OFlags::RDONLY | OFlags::CLOEXEC | flags,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS,
        ) {
            Err(rustix::io::Errno::NOSYS) => {}
            opened => return Ok(opened?),
        }
    }
    walk_beneath(root, path, flags)
}

/// The component-by-component walk used where `openat2` is missing.
pub(super) fn walk_beneath(root: &Dir, path: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    let names: Vec<&std::ffi::OsStr> = path
        .components()
        .filter(|component| !matches!(component, Component::CurDir))
        .map(|component| match component {
            Component::Normal(name) => Ok(name),
            _ => Err(io::Error::from(rustix::io::Errno::XDEV)),
        })
        .collect::<io::Result<_>>()?;
    let directory = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::DIRECTORY;
    let Some((last, parents)) = names.split_last() else {
        return open_step(root, ".".as_ref(), directory | flags);
    };
    // The walk holds its own descriptor of each directory it passes, the root's included.
    let mut current = open_step(root, ".".as_ref(), directory)?;
    for name in parents {
        current = open_step(&current, name, directory)?;
    }
    open_step(
        &current,
        last,
        OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | flags,
    )
}

/// One component of the walk. `O_NOFOLLOW | O_DIRECTORY` on a symbolic link fails with
/// `ENOTDIR` on Linux (and `ELOOP` elsewhere); it is reported as `ELOOP` everywhere, as
/// `openat2` does, so the caller names the link.
fn open_step(parent: impl std::os::fd::AsFd, name: &std::ffi::OsStr, flags: OFlags) -> io::Result<OwnedFd> {
    match rustix::fs::openat(&parent, name, flags, Mode::empty()) {
        Err(rustix::io::Errno::NOTDIR) => {
            let link =
                rustix::fs::statat(&parent, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|stat| {
                    rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Symlink
                });
            Err(if link {
                rustix::io::Errno::LOOP
            } else {
                rustix::io::Errno::NOTDIR
            }
            .into())
        }
        opened => Ok(opened?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cap_std::ambient_authority;

    fn workspace() -> (tempfile::TempDir, Dir) {
        let temp = tempfile::tempdir().expect("temp dir");
        let root = temp.path().join("root");
        std::fs::create_dir_all(root.join("a/b")).expect("dirs");
        std::fs::write(root.join("a/b/file.txt"), "inside").expect("file");
        std::fs::write(temp.path().join("secret.txt"), "outside").expect("secret");
        let dir = Dir::open_ambient_dir(&root, ambient_authority()).expect("open root");
        (temp, dir)
    }

    fn read(fd: OwnedFd) -> String {
        std::io::read_to_string(std::fs::File::from(fd)).expect("read")
    }

    #[test]
    fn the_walk_opens_a_plain_path() {
        let (_temp, root) = workspace();
        let fd = walk_beneath(&root, Path::new("./a/b/file.txt"), OFlags::NONBLOCK).expect("opens");
        assert_eq!(read(fd), "inside");
        walk_beneath(&root, Path::new("a/b"), OFlags::DIRECTORY).expect("opens the directory");
        walk_beneath(&root, Path::new(""), OFlags::DIRECTORY).expect("opens the root");
    }

    #[test]
    fn the_walk_refuses_a_link_in_any_component() {
        let (temp, root) = workspace();
        let base = temp.path().join("root");
        // A link as the last component, pointing outside the root.
        std::os::unix::fs::symlink(temp.path().join("secret.txt"), base.join("a/leak.txt")).expect("link");
        // A link as a directory component, pointing back inside (harmless, still refused).
        std::os::unix::fs::symlink(base.join("a/b"), base.join("a/via")).expect("link");
        // A link as a directory component, pointing outside.
        std::os::unix::fs::symlink(temp.path(), base.join("out")).expect("link");
        for path in ["a/leak.txt", "a/via/file.txt", "out/secret.txt"] {
            let error = walk_beneath(&root, Path::new(path), OFlags::NONBLOCK).expect_err(path);
            assert_eq!(error.raw_os_error(), Some(libc::ELOOP), "{path}: {error}");
        }
        let error = walk_beneath(&root, Path::new("out"), OFlags::DIRECTORY).expect_err("dir link");
        assert_eq!(error.raw_os_error(), Some(libc::ELOOP), "{error}");
    }

    #[test]
    fn the_walk_refuses_to_climb_out() {
        let (_temp, root) = workspace();
        for path in ["../secret.txt", "a/../../secret.txt", "/etc/passwd"] {
            let error = walk_beneath(&root, Path::new(path), OFlags::NONBLOCK).expect_err(path);
            assert_eq!(error.raw_os_error(), Some(libc::EXDEV), "{path}: {error}");
        }
    }

    #[test]
    fn both_ways_agree() {
        let (temp, root) = workspace();
        std::os::unix::fs::symlink(temp.path(), temp.path().join("root/out")).expect("link");
        for path in ["a/b/file.txt", "out/secret.txt", "../secret.txt", "a/missing"] {
            let kernel = open_beneath(&root, Path::new(path), OFlags::NONBLOCK).map(read);
            let walked = walk_beneath(&root, Path::new(path), OFlags::NONBLOCK).map(read);
            match (kernel, walked) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{path}"),
                (Err(a), Err(b)) => assert_eq!(a.raw_os_error(), b.raw_os_error(), "{path}"),
                (a, b) => panic!("{path}: openat2 gave {a:?}, the walk {b:?}"),
            }
        }
    }
}
