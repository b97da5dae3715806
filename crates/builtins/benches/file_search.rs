//! `file_search` against ripgrep on the same tree: 20,000 text files (~200 MB) in nested
//! directories, a rare word in about 1% of them. Both search for the rare word with a
//! warm page cache; the target is to stay within 1.2× of `rg`.
//!
//! The tree is generated once into `target/bench-data/search-tree` (deterministic, from a
//! simple LCG) and reused. The `rg` benchmark is skipped with a note if `rg` is not on
//! `PATH`.
//!
//! `file_search` is called through the registry as a user's call is: JSON arguments,
//! validation against the schema, the sync body on the blocking pool, the output limit
//! and the result.

use std::fs;
use std::hint::black_box;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::{ToolCall, ToolRegistry};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

const FILES: usize = 20_000;
const FILES_PER_DIR: usize = 100;
const FILE_BYTES: usize = 10_000;
const VOCABULARY: usize = 4096;
/// The planted word: it has a digit, which the generated words never do.
const RARE: &str = "quasar7zyx";

/// A 64-bit linear congruential generator (Knuth's MMIX constants).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % below as u64) as usize
    }
}

/// The tree, generated if it is missing or incomplete.
fn tree() -> PathBuf {
    let data = target_dir().join("bench-data");
    let (dir, done) = (data.join("search-tree"), data.join("search-tree.done"));
    if !done.exists() {
        let _ = fs::remove_dir_all(&dir);
        eprintln!("generating {} ({FILES} files)…", dir.display());
        generate(&dir);
        fs::write(&done, "").expect("marker");
    }
    dir
}

/// `target/`: the bench binary is `target/release/deps/file_search-…`.
fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().expect("bench binary path");
    exe.ancestors().nth(3).expect("target directory").to_path_buf()
}

fn generate(dir: &Path) {
    let mut rng = Lcg(42);
    let words: Vec<String> = (0..VOCABULARY)
        .map(|_| {
            (0..3 + rng.next(7))
                .map(|_| (b'a' + rng.next(26) as u8) as char)
                .collect()
        })
        .collect();
    for index in 0..FILES {
        let group = index / FILES_PER_DIR;
        let path = dir.join(format!("d{:02}/s{}/f{index:05}.txt", group / 10, group % 10));
        fs::create_dir_all(path.parent().expect("parent")).expect("directories");
        let mut out = BufWriter::new(fs::File::create(path).expect("create"));
        let plant = rng.next(100) == 0;
        let mut written = 0;
        while written < FILE_BYTES {
            let mut line = String::new();
            while line.len() < 72 {
                line.push_str(&words[rng.next(VOCABULARY)]);
                line.push(' ');
            }
            if plant && written > FILE_BYTES / 2 {
                line.push_str(RARE);
                written = FILE_BYTES;
            }
            line.push('\n');
            written += line.len();
            out.write_all(line.as_bytes()).expect("write");
        }
        out.flush().expect("flush");
    }
}

fn args() -> Value {
    json!({"pattern": RARE, "max_results": 1000})
}

fn rg(dir: &Path) -> Vec<u8> {
    let output = Command::new("rg")
        .args(["--no-heading", "-n", RARE])
        .arg(dir)
        .stdout(Stdio::piped())
        .output()
        .expect("rg runs");
    output.stdout
}

fn search(c: &mut Criterion) {
    let dir = tree();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let ws = Workspace::open(&dir).expect("workspace");
    let builtins = Builtins::new(ws).expect("the default configuration is valid");
    let registry = ToolRegistry::new();
    Arc::new(builtins)
        .register_all(&registry)
        .expect("the tools register");
    let registry = &registry;
    let file_search = || async move { registry.call(ToolCall::new("c", "file_search", args())).await };
    let ours = runtime.block_on(file_search());
    assert!(!ours.is_error(), "search: {}", ours.text());
    eprintln!("file_search: {}", ours.text().lines().last().unwrap_or_default());
    let mut group = c.benchmark_group("search_tree");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    group.bench_function("file_search", |b| {
        b.to_async(&runtime)
            .iter(|| async { black_box(file_search().await) })
    });
    if Command::new("rg").arg("--version").output().is_ok() {
        let lines = rg(&dir).iter().filter(|&&byte| byte == b'\n').count();
        eprintln!("rg: {lines} matching lines");
        group.bench_function("rg", |b| b.iter(|| black_box(rg(&dir))));
    } else {
        eprintln!("note: `rg` is not on PATH; skipping the ripgrep comparison");
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
