//! `read_file` of a 10 MB text file: the first page (2000 numbered lines) and the count
//! of every line after it, streamed, as a model's first look at a large log.

use std::hint::black_box;

use builtin_tools::Workspace;
use builtin_tools::fs::read::{ReadFileArgs, read_file};
use criterion::{Criterion, criterion_group, criterion_main};

fn read_large_file(c: &mut Criterion) {
    let temp = tempfile::tempdir().expect("a temporary directory");
    let line = "2026-11-29T12:00:00Z INFO request handled in 12ms path=/api/v1/items status=200\n";
    let text = line.repeat(10 * 1024 * 1024 / line.len());
    std::fs::write(temp.path().join("big.log"), &text).expect("the file is written");
    let ws = Workspace::open(temp.path()).expect("the workspace opens");
    let mut group = c.benchmark_group("read_file");
    group.bench_function("10mb_first_page", |b| {
        b.iter(|| {
            let args = ReadFileArgs {
                path: "big.log".into(),
                offset: None,
                limit: None,
            };
            black_box(read_file(&ws, args).expect("the file reads"))
        })
    });
    group.bench_function("10mb_last_page", |b| {
        b.iter(|| {
            let args = ReadFileArgs {
                path: "big.log".into(),
                offset: Some(120_000),
                limit: None,
            };
            black_box(read_file(&ws, args).expect("the file reads"))
        })
    });
    group.finish();
}

criterion_group!(benches, read_large_file);
criterion_main!(benches);
