//! A control group per command: where the agent may make one, and the one it makes.
//!
//! The probe ([`Cgroups::find`]) looks for each controller — `pids`, `memory`, and CPU
//! time accounting — first in cgroup v2, then in a v1 hierarchy:
//!
//! - **v2**: the agent's own cgroup (`0::/path` in `/proc/self/cgroup`) under the
//!   `cgroup2` mount, if it lists the controller in `cgroup.subtree_control` (CPU time is
//!   counted in every v2 cgroup, `cpu.stat`, controller or not). Because a non-root v2
//!   cgroup holding processes cannot enable controllers for its children (the "no internal
//!   processes" rule), this is in practice the root cgroup or one arranged for the agent;
//!   the agent does not move itself to make room.
//! - **v1**: the hierarchy mounted with the controller, at the agent's own path in it.
//!
//! Either way the agent must be able to make a directory there: the probe makes and
//! removes one. What a controller lacks falls back to a resource limit (the `limits`
//! module).
//!
//! Per command ([`CommandCgroup::create`]), the parent makes one cgroup in each hierarchy
//! it uses, writes the limits, and opens each `cgroup.procs` for the child, which joins by
//! writing `0` ("the writing process", in v1 and v2 alike) before it forks anything, so
//! everything the command starts is inside. When the command has ended the cgroups are
//! removed; one that is not empty yet (processes kept with `keep_background = true`) is
//! removed by a later command once it is.

use std::collections::BTreeSet;
use std::fs;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A cgroup controller the limits use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Controller {
    Pids,
    Memory,
    /// CPU time accounting (`cpuacct` in v1; `cpu.stat` in v2).
    CpuTime,
}

impl Controller {
    /// The name in `/proc/self/cgroup`, mount options and `cgroup.subtree_control`.
    fn name(self, version: Version) -> &'static str {
        match (self, version) {
            (Controller::Pids, _) => "pids",
            (Controller::Memory, _) => "memory",
            (Controller::CpuTime, Version::V1) => "cpuacct",
            (Controller::CpuTime, Version::V2) => "cpu",
        }
    }

    /// The file a cgroup of this controller must have for the limits to work.
    fn file(self, version: Version) -> &'static str {
        match (self, version) {
            (Controller::Pids, _) => "pids.max",
            (Controller::Memory, Version::V1) => "memory.limit_in_bytes",
            (Controller::Memory, Version::V2) => "memory.max",
            (Controller::CpuTime, Version::V1) => "cpuacct.usage",
            (Controller::CpuTime, Version::V2) => "cpu.stat",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V1,
    V2,
}

/// The agent's cgroup in one hierarchy, under which it makes those of its commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) dir: PathBuf,
    pub(crate) version: Version,
}

/// Where each controller can be used, or why it cannot.
#[derive(Debug)]
pub(crate) struct Cgroups {
    pub(crate) pids: Result<Place, String>,
    pub(crate) memory: Result<Place, String>,
    pub(crate) cpu_time: Result<Place, String>,
}

impl Cgroups {
    /// Probes this process's cgroups.
    pub(crate) fn find() -> Self {
        let own = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let find = |controller| place(controller, &own, &mounts);
        let found = Self {
            pids: find(Controller::Pids),
            memory: find(Controller::Memory),
            cpu_time: find(Controller::CpuTime),
        };
        for place in [&found.pids, &found.memory, &found.cpu_time]
            .into_iter()
            .flatten()
        {
            remove_abandoned(&place.dir);
        }
        found
    }

    /// None usable, each with the same reason (for tests of the planner).
    #[cfg(test)]
    pub(crate) fn none(reason: &str) -> Self {
        Self {
            pids: Err(reason.to_owned()),
            memory: Err(reason.to_owned()),
            cpu_time: Err(reason.to_owned()),
        }
    }
}

/// The first usable place for `controller`: v2, then v1.
fn place(controller: Controller, own: &str, mounts: &str) -> Result<Place, String> {
    let mut reasons = Vec::new();
    for version in [Version::V2, Version::V1] {
        match candidate(controller, version, own, mounts).and_then(|place| usable(controller, place)) {
            Ok(place) => return Ok(place),
            Err(reason) => reasons.push(reason),
        }
    }
    Err(format!(
        "no `{}` cgroup this agent may create: {}",
        controller.name(Version::V1),
        reasons.join("; ")
    ))
}

/// The agent's cgroup for `controller` in the hierarchy of `version`, if mounted.
fn candidate(controller: Controller, version: Version, own: &str, mounts: &str) -> Result<Place, String> {
    let name = controller.name(version);
    let (fs_type, label) = match version {
        Version::V1 => ("cgroup", "cgroup v1"),
        Version::V2 => ("cgroup2", "cgroup v2"),
    };
    let path = own
        .lines()
        .filter_map(|line| line.split_once(':').and_then(|(_, rest)| rest.split_once(':')))
        .find_map(|(controllers, path)| match version {
            Version::V2 => controllers.is_empty().then_some(path),
            Version::V1 => controllers.split(',').any(|c| c == name).then_some(path),
        })
        .ok_or_else(|| format!("{label}: this process is in no `{name}` hierarchy"))?;
    let (mount_root, mount_point) = mounts
        .lines()
        .filter_map(|line| mount(line, fs_type, version, name))
        .next()
        .ok_or_else(|| format!("{label}: no `{name}` hierarchy is mounted"))?;
    let relative = Path::new(path)
        .strip_prefix(mount_root)
        .map_err(|_| format!("{label}: this process's `{name}` cgroup is outside the mounted part"))?;
    Ok(Place {
        dir: Path::new(mount_point).join(relative),
        version,
    })
}

/// The root and mount point of a mountinfo line, if it mounts the hierarchy wanted.
fn mount<'a>(line: &'a str, fs_type: &str, version: Version, controller: &str) -> Option<(&'a str, &'a str)> {
    let (before, after) = line.split_once(" - ")?;
    let mut fields = before.split(' ');
    let root = fields.nth(3)?;
    let mount_point = fields.next()?;
    let mut after = after.split(' ');
    if after.next()? != fs_type {
        return None;
    }
    let options = after.nth(1).unwrap_or_default();
    let wanted = version == Version::V2 || options.split(',').any(|option| option == controller);
    // Mountinfo escapes spaces and such as octal; a path with them is not ours to guess.
    (wanted && !mount_point.contains('\\')).then_some((root, mount_point))
}

/// Checks that the agent can make a cgroup at `place` with `controller`'s file in it.
fn usable(controller: Controller, place: Place) -> Result<Place, String> {
    let name = controller.name(place.version);
    let shown = place.dir.display();
    if place.version == Version::V2 && controller != Controller::CpuTime {
        let enabled = fs::read_to_string(place.dir.join("cgroup.subtree_control")).unwrap_or_default();
        if !enabled.split_whitespace().any(|c| c == name) {
            return Err(format!(
                "cgroup v2: `{name}` is not enabled for the children of {shown} (cgroup.subtree_control)"
            ));
        }
    }
    let probe = place
        .dir
        .join(format!("agent-tools-probe-{}", std::process::id()));
    fs::create_dir(&probe).map_err(|error| format!("cannot make a cgroup in {shown}: {error}"))?;
    let has_file = probe.join(controller.file(place.version)).exists();
    let _ = fs::remove_dir(&probe);
    if !has_file {
        return Err(format!(
            "a cgroup in {shown} has no {}",
            controller.file(place.version)
        ));
    }
    Ok(place)
}

/// The limits to write into a command's cgroups.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CgroupLimits {
    /// `pids.max`: tasks at once.
    pub(crate) pids: Option<u64>,
    /// Memory in bytes.
    pub(crate) memory: Option<u64>,
}

/// One command's cgroups: made before it starts, read when it ends, removed when dropped.
#[derive(Debug, Default)]
pub(crate) struct CommandCgroup {
    /// One directory per hierarchy used.
    dirs: Vec<PathBuf>,
    /// The cgroup counting `pids`, if limited there.
    pids: Option<(PathBuf, Version)>,
    /// The cgroup limiting memory.
    memory: Option<(PathBuf, Version)>,
    /// The cgroup counting CPU time.
    cpu_time: Option<(PathBuf, Version)>,
}

/// Tells the cgroups of one agent's commands apart.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// Cgroups that were not empty yet when their command ended.
static LEFT_OVER: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

impl CommandCgroup {
    /// Makes the cgroups for one command at the places given (each controller's, or
    /// `None` when it is not used) with `limits` written, and opens each `cgroup.procs`
    /// for the child to join.
    pub(crate) fn create(
        pids: Option<&Place>,
        memory: Option<&Place>,
        cpu_time: Option<&Place>,
        limits: CgroupLimits,
    ) -> Result<(Self, Vec<OwnedFd>), String> {
        remove_left_over();
        let name = format!(
            "agent-tools-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let places: BTreeSet<&Path> = [pids, memory, cpu_time]
            .into_iter()
            .flatten()
            .map(|place| place.dir.as_path())
            .collect();
        let mut cgroup = Self::default();
        let mut procs = Vec::new();
        for dir in places {
            let made = dir.join(&name);
            fs::create_dir(&made)
                .map_err(|error| format!("cannot make a cgroup in {}: {error}", dir.display()))?;
            cgroup.dirs.push(made.clone());
            let file = fs::OpenOptions::new()
                .write(true)
                .open(made.join("cgroup.procs"))
                .map_err(|error| format!("cannot open {}/cgroup.procs: {error}", made.display()))?;
            procs.push(OwnedFd::from(file));
        }
        let made = |place: Option<&Place>| place.map(|place| (place.dir.join(&name), place.version));
        cgroup.pids = made(pids);
        cgroup.memory = made(memory);
        cgroup.cpu_time = made(cpu_time);
        cgroup.write_limits(limits)?;
        Ok((cgroup, procs))
    }

    fn write_limits(&self, limits: CgroupLimits) -> Result<(), String> {
        if let (Some((dir, _)), Some(max)) = (&self.pids, limits.pids) {
            write(&dir.join("pids.max"), max)?;
        }
        if let (Some((dir, version)), Some(bytes)) = (&self.memory, limits.memory) {
            match version {
                Version::V2 => {
                    write(&dir.join("memory.max"), bytes)?;
                    // Without swap in the limit, memory would go on growing in swap.
                    write_if_present(&dir.join("memory.swap.max"), 0)?;
                }
                Version::V1 => {
                    write(&dir.join("memory.limit_in_bytes"), bytes)?;
                    write_if_present(&dir.join("memory.memsw.limit_in_bytes"), bytes)?;
                }
            }
        }
        Ok(())
    }

    /// How many times a `fork` was refused for reaching `pids.max`.
    pub(crate) fn pids_refused(&self) -> u64 {
        self.pids
            .as_ref()
            .map_or(0, |(dir, _)| counter(&dir.join("pids.events"), "max"))
    }

    /// How many processes the kernel's OOM killer ended for reaching the memory limit.
    pub(crate) fn oom_kills(&self) -> u64 {
        self.memory.as_ref().map_or(0, |(dir, version)| match version {
            Version::V2 => counter(&dir.join("memory.events"), "oom_kill"),
            Version::V1 => counter(&dir.join("memory.oom_control"), "oom_kill"),
        })
    }

    /// CPU time used by everything in the cgroup so far, if it is counted.
    pub(crate) fn cpu_used(&self) -> Option<Duration> {
        let (dir, version) = self.cpu_time.as_ref()?;
        match version {
            Version::V2 => Some(Duration::from_micros(counter(
                &dir.join("cpu.stat"),
                "usage_usec",
            ))),
            Version::V1 => {
                let text = fs::read_to_string(dir.join("cpuacct.usage")).ok()?;
                text.trim().parse().ok().map(Duration::from_nanos)
            }
        }
    }
}

impl Drop for CommandCgroup {
    fn drop(&mut self) {
        for dir in self.dirs.drain(..) {
            if !remove(&dir) {
                LEFT_OVER
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(dir);
            }
        }
    }
}

/// Removes the empty cgroups that agents no longer running left in `dir` (an agent that was
/// killed removes none of its own).
fn remove_abandoned(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let owner = name
            .to_str()
            .and_then(|name| name.strip_prefix("agent-tools-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if owner.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            // Fails, harmlessly, while processes are still inside.
            let _ = fs::remove_dir(entry.path());
        }
    }
}

/// Removes a cgroup whose processes have ended. The kernel lets go of a process that
/// ended a moment after its parent reaped it, so an empty cgroup may refuse at first.
fn remove(dir: &Path) -> bool {
    for _ in 0..100 {
        match fs::remove_dir(dir) {
            Ok(()) => return true,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return true,
            Err(_)
                if fs::read_to_string(dir.join("cgroup.procs"))
                    .is_ok_and(|procs| procs.trim().is_empty()) =>
            {
                std::thread::yield_now();
            }
            Err(_) => return false,
        }
    }
    false
}

/// Removes the cgroups of earlier commands that have emptied since.
fn remove_left_over() {
    let mut left = LEFT_OVER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    left.retain(|dir| !remove(dir));
}

fn write(path: &Path, value: u64) -> Result<(), String> {
    fs::write(path, value.to_string()).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

fn write_if_present(path: &Path, value: u64) -> Result<(), String> {
    if path.exists() { write(path, value) } else { Ok(()) }
}

/// The number after `key` in a flat-keyed file (`max 3`, `oom_kill 1`); 0 when absent.
fn counter(path: &Path, key: &str) -> u64 {
    let text = fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| line.split_once(' '))
        .find(|(name, _)| *name == key)
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0)
}
