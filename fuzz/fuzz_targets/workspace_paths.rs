//! `Workspace` path resolution on arbitrary path strings and symlink layouts.
//!
//! Each input builds a fresh layout in a temporary directory `base` (on tmpfs when
//! `/dev/shm` exists):
//!
//! ```text
//! base/ws/            the workspace root (opened as base/ws or through base/wslink)
//! base/ws/prot/       protected from writes (`Workspace::protect`)
//! base/outside/       a sibling that must never change; its files say OUTSIDE
//! base/ws_evil/       a sibling whose name starts with the root's
//! base/wslink -> ws
//! ```
//!
//! plus directories, files, FIFOs and symbolic links inside `ws` chosen by the input,
//! the links with arbitrary targets: relative ones with `..`, absolute ones into `ws`,
//! into `outside`, to the siblings, or arbitrary strings. Then it runs `relative_path`,
//! `open_file`, `read` and `write_file` (all three modes) on arbitrary path strings.
//!
//! Checked:
//! - `relative_path` returns a relative path that never climbs above the root;
//! - a file `open_file` opened is a regular file under the canonical root, by the
//!   kernel's own account (`readlink /proc/self/fd/N`), and nothing read is from outside;
//! - a write lands under the root (its reported path, canonicalized, is under the root,
//!   and holds what was written) and never inside the protected directory;
//! - nothing outside `ws` (the siblings, `base` itself) and nothing in `ws/prot` ever
//!   changes: both are compared before and after every operation.

#![no_main]

use std::collections::BTreeMap;
use std::fs;
use std::os::fd::AsRawFd as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::symlink;
use std::path::{Component, Path, PathBuf};

use builtins::{Workspace, WriteMode};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

const NAMES: &[&str] = &[
    "a", "b", "link", "file", "prot", "p", "outside", "secret", "ws", "ws_evil", "wslink", "d", "f", "fifo",
    ".hidden", "...", "x y", "ünï",
];

/// What outside files hold; nothing read through the workspace may contain it.
const OUTSIDE: &[u8] = b"OUTSIDE";

#[derive(Arbitrary, Debug)]
enum Part {
    Name(u8),
    Dot,
    DotDot,
    Empty,
    Raw(String),
}

#[derive(Arbitrary, Debug)]
struct FuzzPath {
    parts: Vec<Part>,
    trailing_slash: bool,
}

impl FuzzPath {
    /// The path as text, components joined with `/`.
    fn text(&self) -> String {
        let mut parts: Vec<String> = self
            .parts
            .iter()
            .take(8)
            .map(|part| match part {
                Part::Name(index) => NAMES[usize::from(*index) % NAMES.len()].to_owned(),
                Part::Dot => ".".to_owned(),
                Part::DotDot => "..".to_owned(),
                Part::Empty => String::new(),
                Part::Raw(raw) => raw.chars().take(16).collect(),
            })
            .collect();
        if self.trailing_slash {
            parts.push(String::new());
        }
        parts.join("/")
    }

    /// The path's plain names only, for creating the layout (never `..`).
    fn names(&self) -> Option<PathBuf> {
        let mut path = PathBuf::new();
        for part in self.parts.iter().take(4) {
            match part {
                Part::Name(index) => path.push(NAMES[usize::from(*index) % NAMES.len()]),
                Part::Raw(raw)
                    if !raw.is_empty()
                        && raw.len() <= 32
                        && raw != "."
                        && raw != ".."
                        && !raw.contains(['/', '\0']) =>
                {
                    path.push(raw)
                }
                _ => {}
            }
        }
        (!path.as_os_str().is_empty()).then_some(path)
    }
}

/// A path string for an operation or a link target.
#[derive(Arbitrary, Debug)]
enum PathText {
    Relative(FuzzPath),
    /// `{canonical root}/…`
    UnderRoot(FuzzPath),
    /// `{base}/wslink/…`: the root as the workspace may have been given.
    UnderGiven(FuzzPath),
    /// `{base}/…`: the siblings, the base itself.
    UnderBase(FuzzPath),
    /// `/proc/self/root{root}/…`
    ProcRoot(FuzzPath),
    Raw(String),
}

impl PathText {
    fn text(&self, base: &Path) -> String {
        let under = |prefix: PathBuf, path: &FuzzPath| format!("{}/{}", prefix.display(), path.text());
        match self {
            PathText::Relative(path) => path.text(),
            PathText::UnderRoot(path) => under(base.join("ws"), path),
            PathText::UnderGiven(path) => under(base.join("wslink"), path),
            PathText::UnderBase(path) => under(base.to_path_buf(), path),
            PathText::ProcRoot(path) => under(
                Path::new("/proc/self/root").join(base.join("ws").strip_prefix("/").unwrap()),
                path,
            ),
            PathText::Raw(raw) => raw.chars().take(64).collect(),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Setup {
    Dir(FuzzPath),
    File(FuzzPath),
    Fifo(FuzzPath),
    Link(FuzzPath, PathText),
}

#[derive(Arbitrary, Debug)]
enum Mode {
    Overwrite,
    Append,
    CreateNew,
}

#[derive(Arbitrary, Debug)]
enum Action {
    RelativePath(PathText),
    Open(PathText),
    Read(PathText),
    Write(PathText, Mode),
}

#[derive(Arbitrary, Debug)]
struct Input {
    via_link: bool,
    setup: Vec<Setup>,
    actions: Vec<Action>,
}

/// Every entry below `dir` (not following links) with its kind and content or target;
/// `skip` (relative to `dir`) is left out.
fn snapshot(dir: &Path, skip: Option<&Path>) -> BTreeMap<PathBuf, String> {
    let mut found = BTreeMap::new();
    walk(dir, dir, skip, &mut found);
    found
}

fn walk(root: &Path, dir: &Path, skip: Option<&Path>, found: &mut BTreeMap<PathBuf, String>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path.strip_prefix(root).unwrap().to_path_buf();
        if Some(relative.as_path()) == skip {
            continue;
        }
        let Ok(metadata) = fs::symlink_metadata(&path) else {
            continue;
        };
        let what = if metadata.is_symlink() {
            format!("link -> {:?}", fs::read_link(&path).ok())
        } else if metadata.is_dir() {
            walk(root, &path, skip, found);
            format!("dir {:o}", metadata.permissions().mode_bits())
        } else if metadata.is_file() {
            format!("file {:?}", fs::read(&path).ok())
        } else {
            "special".to_owned()
        };
        found.insert(relative, what);
    }
}

trait ModeBits {
    fn mode_bits(&self) -> u32;
}

impl ModeBits for fs::Permissions {
    fn mode_bits(&self) -> u32 {
        std::os::unix::fs::PermissionsExt::mode(self)
    }
}

/// Whether walking `relative` never goes above its start (and it is relative).
///
/// Deliberately written again rather than calling `agent_tools_core`'s own check: this is the
/// oracle the library is judged by, so it must not share the library's code.
fn stays_below(relative: &Path) -> bool {
    let mut depth = 0usize;
    for component in relative.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(up) => depth = up,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

fn build(base: &Path, input: &Input) {
    let ws = base.join("ws");
    for dir in ["ws/prot", "outside/d", "ws_evil"] {
        fs::create_dir_all(base.join(dir)).unwrap();
    }
    fs::write(base.join("outside/secret"), OUTSIDE).unwrap();
    fs::write(base.join("outside/d/f"), OUTSIDE).unwrap();
    fs::write(base.join("ws_evil/file"), OUTSIDE).unwrap();
    fs::write(ws.join("file"), b"inside").unwrap();
    fs::write(ws.join("prot/p"), b"protected").unwrap();
    symlink("ws", base.join("wslink")).unwrap();
    for setup in input.setup.iter().take(12) {
        if let Some(path) = setup_path(setup) {
            if !safe_to_create(&ws, &path) {
                continue;
            }
        }
        match setup {
            Setup::Dir(path) => {
                if let Some(path) = path.names() {
                    let _ = fs::create_dir_all(ws.join(path));
                }
            }
            Setup::File(path) => {
                // Not over a FIFO, whose open would block.
                if let Some(path) = path.names().map(|path| ws.join(path))
                    && fs::symlink_metadata(&path).map_or(true, |metadata| metadata.is_file())
                {
                    let _ = fs::write(path, b"inside");
                }
            }
            Setup::Fifo(path) => {
                if let Some(path) = path.names() {
                    let mut bytes = ws.join(path).as_os_str().as_bytes().to_vec();
                    bytes.push(0);
                    unsafe { libc::mkfifo(bytes.as_ptr().cast(), 0o644) };
                }
            }
            Setup::Link(path, target) => {
                if let Some(path) = path.names() {
                    let target = target.text(base);
                    if !target.is_empty() && !target.contains('\0') {
                        let _ = symlink(target, ws.join(path));
                    }
                }
            }
        }
    }
    prune_links(base, &ws);
}

fn setup_path(setup: &Setup) -> Option<PathBuf> {
    match setup {
        Setup::Dir(path) | Setup::File(path) | Setup::Fifo(path) | Setup::Link(path, _) => path.names(),
    }
}

/// Whether creating `relative` in `ws` goes through no symbolic link (so that the layout
/// itself never writes outside `ws`).
fn safe_to_create(ws: &Path, relative: &Path) -> bool {
    let mut path = ws.to_path_buf();
    relative.components().all(|component| {
        path.push(component);
        fs::symlink_metadata(&path).map_or(true, |metadata| !metadata.is_symlink())
    })
}

/// Removes the layout's links that lead out of `base`, or could once their target
/// exists: a bug in the code under test must not be able to reach the rest of the
/// machine. Links within `base` (to `outside`, the siblings, `base` itself) stay.
fn prune_links(base: &Path, dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(metadata) = fs::symlink_metadata(&path) else {
            continue;
        };
        if metadata.is_dir() {
            prune_links(base, &path);
        } else if metadata.is_symlink() {
            let keep = match fs::canonicalize(&path) {
                Ok(target) => target.starts_with(base),
                Err(_) => fs::read_link(&path).is_ok_and(|target| {
                    let climbs = target.components().any(|c| c == Component::ParentDir);
                    !climbs && (target.is_relative() || target.starts_with(base))
                }),
            };
            if !keep {
                fs::remove_file(&path).unwrap();
            }
        }
    }
}

fn run(input: &Input) {
    let parent = if Path::new("/dev/shm").is_dir() {
        tempfile::Builder::new().prefix("fuzz-ws").tempdir_in("/dev/shm")
    } else {
        tempfile::Builder::new().prefix("fuzz-ws").tempdir()
    }
    .unwrap();
    let base = parent.path().canonicalize().unwrap();
    build(&base, input);
    let root = base.join("ws");
    let given = if input.via_link {
        base.join("wslink")
    } else {
        root.clone()
    };
    let workspace = Workspace::open(&given).unwrap().protect("prot");
    assert_eq!(workspace.root(), root);
    let outside_before = snapshot(&base, Some(Path::new("ws")));
    let protected_before = snapshot(&root.join("prot"), None);
    for (step, action) in input.actions.iter().take(8).enumerate() {
        match action {
            Action::RelativePath(path) => {
                let text = path.text(&base);
                if let Ok(relative) = workspace.relative_path(&text) {
                    assert!(stays_below(&relative), "{text:?} -> {relative:?}");
                }
            }
            Action::Open(path) => {
                let text = path.text(&base);
                if let Ok(opened) = workspace.open_file(&text) {
                    let fd = opened.file.as_raw_fd();
                    let actual = fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
                    assert!(
                        actual.starts_with(&root),
                        "{text:?} opened {actual:?}, outside {root:?}"
                    );
                    assert!(opened.metadata.is_file(), "{text:?} opened a non-file");
                    assert!(stays_below(&opened.path), "{text:?} -> {:?}", opened.path);
                }
            }
            Action::Read(path) => {
                let text = path.text(&base);
                if let Ok(bytes) = workspace.read(&text) {
                    assert!(
                        !bytes.windows(OUTSIDE.len()).any(|window| window == OUTSIDE),
                        "{text:?} read a file outside the workspace"
                    );
                }
            }
            Action::Write(path, mode) => {
                let text = path.text(&base);
                let contents = format!("written {step}");
                let mode = match mode {
                    Mode::Overwrite => WriteMode::Overwrite,
                    Mode::Append => WriteMode::Append,
                    Mode::CreateNew => WriteMode::CreateNew,
                };
                if let Ok(written) = workspace.write_file(&text, contents.as_bytes(), mode) {
                    assert!(stays_below(&written.path), "{text:?} -> {:?}", written.path);
                    let landed = root.join(&written.path).canonicalize().unwrap();
                    assert!(
                        landed.starts_with(&root),
                        "{text:?} wrote {landed:?}, outside {root:?}"
                    );
                    assert!(
                        !landed.starts_with(root.join("prot")),
                        "{text:?} wrote {landed:?}, which is protected"
                    );
                    let now = fs::read(&landed).unwrap();
                    assert!(
                        now.ends_with(contents.as_bytes()),
                        "{text:?}: {landed:?} does not hold the write"
                    );
                }
            }
        }
        assert_eq!(
            snapshot(&base, Some(Path::new("ws"))),
            outside_before,
            "step {step} ({action:?}) changed something outside the workspace"
        );
        assert_eq!(
            snapshot(&root.join("prot"), None),
            protected_before,
            "step {step} ({action:?}) changed the protected directory"
        );
    }
}

fuzz_target!(|input: Input| {
    run(&input);
});
