//! A PostgreSQL server for the tests and benchmarks: the installed binaries (Debian's
//! package puts them in `/usr/lib/postgresql/<version>/bin`), a cluster of its own in a
//! directory, listening on a free loopback port.
//!
//! Tests use [`server`]: a fresh cluster in a temporary directory, one per test binary,
//! without durability (`fsync` off), stopped and removed when the binary exits.
//! Benchmarks use [`PgServer::persistent`]: a cluster kept in a directory between runs,
//! so that a large corpus is built once. As root, a cluster belongs to the `postgres`
//! user (`initdb` refuses to run as root).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

pub use crate::ports::free_port;

/// A running server.
pub struct PgServer {
    bin: PathBuf,
    port: u16,
    /// The cluster's directory.
    dir: PathBuf,
    /// Whether the cluster is removed when the server stops.
    throwaway: bool,
    postmaster: Mutex<Child>,
    databases: AtomicUsize,
}

static SERVER: OnceLock<PgServer> = OnceLock::new();

/// The test binary's server, started on first use; `None` after saying the test is
/// skipped when PostgreSQL's server is not installed (a failure under CI).
pub fn server() -> Option<&'static PgServer> {
    if SERVER.get().is_none() && binaries().is_none() {
        crate::require::missing(
            "PostgreSQL's server binaries (initdb, postgres)",
            "apt-get install postgresql",
        );
        return None;
    }
    Some(SERVER.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("agent-tools-postgres")
            .tempdir()
            .expect("a temporary directory")
            .keep();
        let server = PgServer::launch(dir, true);
        stop_at_exit();
        server
    }))
}

impl PgServer {
    /// A server on the cluster in `dir`, created there if there is none yet; stopped
    /// (not removed) when dropped.
    pub fn persistent(dir: PathBuf) -> Self {
        std::fs::create_dir_all(&dir).expect("the cluster's directory");
        Self::launch(dir, false)
    }

    fn launch(dir: PathBuf, throwaway: bool) -> Self {
        let bin = binaries().unwrap_or_else(|| {
            panic!(
                "this needs PostgreSQL's server binaries (initdb, postgres): install them with \
                 `apt-get install postgresql` (scripts/test does)"
            )
        });
        let owner = rustix::process::geteuid().is_root().then(postgres_user);
        if let Some(owner) = owner {
            give_tree(&dir, owner);
        }
        let data = dir.join("data");
        if !data.join("PG_VERSION").exists() {
            initdb(&bin, &data, owner);
        }
        let port = free_port();
        let log = std::fs::File::create(dir.join("postgres.log")).expect("a log file");
        let mut command = run_as_owner(owner, &bin.join("postgres"));
        command
            .arg("-D")
            .arg(&data)
            .args(["-p", &port.to_string()])
            .args(["-c", "listen_addresses=127.0.0.1"])
            .arg("-c")
            .arg(format!("unix_socket_directories={}", dir.display()))
            .args(["-c", "synchronous_commit=off", "-c", "max_connections=200"]);
        if throwaway {
            // Nothing needs to survive a crash.
            command.args(["-c", "fsync=off", "-c", "full_page_writes=off"]);
        }
        let child = command
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("postgres starts");
        let server = Self {
            bin,
            port,
            dir,
            throwaway,
            postmaster: Mutex::new(child),
            databases: AtomicUsize::new(0),
        };
        server.wait_until_ready();
        server
    }

    /// The URL of the cluster's `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://agent@127.0.0.1:{}/postgres", self.port)
    }

    /// A new, empty database; its URL.
    pub fn database(&self) -> String {
        let name = format!(
            "test_{}_{}",
            std::process::id(),
            self.databases.fetch_add(1, Ordering::SeqCst)
        );
        self.database_named(&name)
    }

    /// The database `name`, created if it does not exist; its URL.
    pub fn database_named(&self, name: &str) -> String {
        let created = Command::new(self.bin.join("createdb"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "agent",
                name,
            ])
            .output()
            .expect("createdb runs");
        let stderr = String::from_utf8_lossy(&created.stderr);
        assert!(
            created.status.success() || stderr.contains("already exists"),
            "createdb failed: {stderr}"
        );
        format!("postgres://agent@127.0.0.1:{}/{name}", self.port)
    }

    /// Polls until the server accepts connections (up to a minute).
    fn wait_until_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ready = Command::new(self.bin.join("pg_isready"))
                .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "agent"])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|status| status.success());
            if ready {
                return;
            }
            let exited = self.postmaster().try_wait().ok().flatten();
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "postgres did not start ({exited:?}): {}",
                std::fs::read_to_string(self.dir.join("postgres.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn postmaster(&self) -> std::sync::MutexGuard<'_, Child> {
        self.postmaster.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops the server: an immediate shutdown (SIGQUIT) for a throwaway cluster, which
    /// is then removed; a fast one (SIGINT), which leaves the data consistent, for a kept
    /// one.
    fn stop(&self) {
        let mut postmaster = self.postmaster();
        let signal = match self.throwaway {
            true => rustix::process::Signal::QUIT,
            false => rustix::process::Signal::INT,
        };
        if let Some(pid) = rustix::process::Pid::from_raw(i32::try_from(postmaster.id()).unwrap_or(0)) {
            let _ = rustix::process::kill_process(pid, signal);
        }
        let _ = postmaster.wait();
        if self.throwaway {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A plain client of `url`, for what a test checks or sabotages behind the code under
/// test; its connection runs on the current runtime.
pub async fn client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("a client connects");
    tokio::spawn(connection);
    client
}

/// Ends every other connection to `url`'s database, as a restart or a network fault
/// would; returns how many there were.
pub async fn terminate_other_connections(url: &str) -> usize {
    client(url)
        .await
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .expect("the connections are listed")
        .len()
}

/// The first column of every row `sql` returns, as text.
pub async fn strings(url: &str, sql: &str) -> Vec<String> {
    client(url)
        .await
        .query(sql, &[])
        .await
        .expect("the query runs")
        .iter()
        .map(|row| row.get(0))
        .collect()
}

fn initdb(bin: &Path, data: &Path, owner: Option<Owner>) {
    let initdb = run_as_owner(owner, &bin.join("initdb"))
        .arg("-D")
        .arg(data)
        .args(["-U", "agent", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"])
        .stdout(Stdio::null())
        .output()
        .expect("initdb runs");
    assert!(
        initdb.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&initdb.stderr)
    );
}

/// The directory of `initdb` and `postgres`: Debian's newest, else those on `PATH`.
fn binaries() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|dir| dir.join("initdb").exists() && dir.join("postgres").exists())
}

/// A user's uid and gid.
#[derive(Debug, Clone, Copy)]
struct Owner {
    uid: u32,
    gid: u32,
}

/// The `postgres` user, whom Debian's package creates: `initdb` and `postgres` refuse to
/// run as root.
fn postgres_user() -> Owner {
    let passwd = std::fs::read_to_string("/etc/passwd").expect("/etc/passwd is readable");
    passwd
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            match fields.as_slice() {
                ["postgres", _, uid, gid, ..] => Some(Owner {
                    uid: uid.parse().ok()?,
                    gid: gid.parse().ok()?,
                }),
                _ => None,
            }
        })
        .expect("the `postgres` user exists (`apt-get install postgresql` creates it)")
}

/// Gives `path` and everything under it to `owner` (as `chown -R` would).
fn give_tree(path: &Path, owner: Owner) {
    std::os::unix::fs::lchown(path, Some(owner.uid), Some(owner.gid))
        .unwrap_or_else(|error| panic!("cannot give {} to `postgres`: {error}", path.display()));
    if path.is_dir() && !path.is_symlink() {
        for entry in std::fs::read_dir(path).expect("the directory lists") {
            give_tree(&entry.expect("a directory entry").path(), owner);
        }
    }
}

/// `program`, run as `owner` when there is one (we are root); std drops the
/// supplementary groups when it changes the uid.
fn run_as_owner(owner: Option<Owner>, program: &Path) -> Command {
    let mut command = Command::new(program);
    if let Some(owner) = owner {
        use std::os::unix::process::CommandExt as _;
        command.uid(owner.uid).gid(owner.gid);
    }
    command
}

/// Stops the test binary's server and removes its cluster when the binary exits (a
/// static is never dropped).
// Needs unsafe: `atexit` is registered through libc.
#[allow(unsafe_code)]
fn stop_at_exit() {
    extern "C" fn stop() {
        if let Some(server) = SERVER.get() {
            server.stop();
        }
    }
    // SAFETY: `stop` is an `extern "C" fn` without arguments that does not unwind (every
    // fallible step is ignored, and the lock recovers from poisoning), as `atexit`
    // requires.
    unsafe {
        libc::atexit(stop);
    }
}
