//! The memory benchmarks' corpus: notes an agent would keep about a software
//! organization (decisions, preferences, incidents, commands, paths), from templates over
//! a few thousand words drawn with a skewed (Zipf-like) frequency, with ticket numbers,
//! hashes and paths, and about 3% Chinese, Japanese or Korean notes; generated
//! deterministically from a seed. And the queries the benchmarks send.

#![allow(dead_code)] // each benchmark uses part of it

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_tools_builtins::memory::{MemoryStore, NewMemory};
use agent_tools_builtins::{Builtins, Workspace};
use agent_tools_core::ToolRegistry;
use tokio::runtime::Runtime;

/// Queries a model would send, from a single rare identifier to common words.
pub(crate) const QUERIES: &[&str] = &[
    "postgres replica lag",
    "deploy staging rollback",
    "alice prefers",
    "OPS-4821",
    "redis timeout checkout",
    "flaky integration test",
    "grafana dashboard latency",
    "kafka consumer offset",
    "数据库 迁移",
    "terraform state lock",
    "why did we choose",
    "api rate limit billing",
];

pub(crate) use test_support::rng::Rng;

/// Drawing the corpus's words.
trait Draw {
    fn index(&mut self, n: usize) -> usize;
    /// An element, the first ones far more often (Zipf-like).
    fn skewed<'a>(&mut self, items: &[&'a str]) -> &'a str;
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str;
}

impl Draw for Rng {
    fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    fn skewed<'a>(&mut self, items: &[&'a str]) -> &'a str {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        items[((u * u) * items.len() as f64) as usize % items.len()]
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.index(items.len())]
    }
}

const PEOPLE: &[&str] = &[
    "Alice", "Bob", "Carol", "Dmitri", "Esther", "Farid", "Grace", "Hiro", "Ines", "Jamal", "Kasia", "Liam",
    "Mei", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tomasz", "Uma", "Viktor", "Wen", "Yara",
];
const SYSTEMS: &[&str] = &[
    "postgres",
    "redis",
    "kafka",
    "nginx",
    "kubernetes",
    "terraform",
    "grafana",
    "prometheus",
    "elasticsearch",
    "rabbitmq",
    "sqlite",
    "clickhouse",
    "vault",
    "consul",
    "envoy",
    "airflow",
    "spark",
    "snowflake",
    "s3",
    "cloudflare",
    "sentry",
    "datadog",
    "github actions",
    "argo cd",
    "helm",
    "docker",
    "bazel",
    "webpack",
    "vite",
    "django",
    "rails",
    "fastapi",
    "tokio",
    "axum",
    "react",
    "nextjs",
    "graphql",
    "grpc",
    "protobuf",
];
const SERVICES: &[&str] = &[
    "checkout",
    "billing",
    "auth",
    "search",
    "inventory",
    "notifications",
    "payments",
    "catalog",
    "gateway",
    "reporting",
    "onboarding",
    "analytics",
    "scheduler",
    "ingest",
    "exporter",
    "admin console",
    "mobile api",
    "pricing",
    "shipping",
    "recommendations",
    "ledger",
    "audit log",
    "feature flags",
    "webhooks",
];
const NOUNS: &[&str] = &[
    "test",
    "build",
    "deploy",
    "migration",
    "config",
    "timeout",
    "latency",
    "cache",
    "index",
    "query",
    "schema",
    "replica",
    "backup",
    "secret",
    "token",
    "certificate",
    "dashboard",
    "alert",
    "queue",
    "consumer",
    "offset",
    "partition",
    "cluster",
    "node",
    "pod",
    "container",
    "image",
    "pipeline",
    "job",
    "cron",
    "endpoint",
    "rate limit",
    "retry",
    "circuit breaker",
    "connection pool",
    "memory leak",
    "deadlock",
    "race condition",
    "feature flag",
    "rollout",
    "rollback",
    "canary",
    "release",
    "branch",
    "merge request",
    "code review",
    "lint rule",
    "formatter",
    "dependency",
    "lockfile",
    "vulnerability",
    "license",
    "runbook",
    "postmortem",
    "incident",
    "on-call rotation",
    "SLO",
    "error budget",
    "log level",
    "trace",
    "span",
    "metric",
    "histogram",
    "threshold",
    "quota",
    "tenant",
    "shard",
    "region",
    "failover",
    "load balancer",
    "DNS record",
    "firewall rule",
    "VPN",
    "SSH key",
    "API key",
    "webhook",
    "payload",
    "serializer",
    "parser",
    "encoding",
    "timezone",
    "locale",
    "currency",
    "invoice",
    "refund",
    "coupon",
    "session",
    "cookie",
    "CORS header",
    "CSP policy",
    "upload limit",
    "thumbnail",
    "CDN",
    "bucket",
    "lambda",
    "state lock",
    "module",
    "provider",
    "workspace",
    "monorepo",
    "package",
    "version pin",
    "changelog",
    "docstring",
    "type hint",
    "unit test",
    "integration test",
    "snapshot test",
    "fixture",
    "mock",
    "seed data",
    "staging",
    "production",
    "sandbox",
    "preview environment",
    "benchmark",
    "profile",
    "flame graph",
];
const ADJECTIVES: &[&str] = &[
    "flaky",
    "slow",
    "stale",
    "broken",
    "noisy",
    "critical",
    "deprecated",
    "legacy",
    "experimental",
    "missing",
    "duplicate",
    "expired",
    "misconfigured",
    "oversized",
    "unbounded",
    "intermittent",
    "silent",
    "cold",
    "hot",
    "partial",
    "nightly",
    "weekly",
    "manual",
    "automatic",
    "encrypted",
    "public",
    "internal",
];
const VERBS: &[&str] = &[
    "fails",
    "times out",
    "leaks memory",
    "retries forever",
    "drops messages",
    "returns 500",
    "hangs",
    "spikes CPU",
    "loses data",
    "double-charges",
    "skips records",
    "blocks the release",
    "slows down",
    "logs secrets",
    "ignores the config",
    "breaks on Mondays",
    "needs a restart",
    "runs out of disk",
];
const REASONS: &[&str] = &[
    "it is cheaper at our scale",
    "the team already knows it",
    "the vendor dropped support",
    "latency was too high",
    "it simplifies on-call",
    "compliance requires it",
    "the old one kept paging us",
    "we need exactly-once delivery",
    "it halves the build time",
    "it is what the client runs",
];
const COMMANDS: &[&str] = &[
    "make deploy ENV=staging",
    "cargo test --workspace",
    "kubectl rollout undo deploy/{s}",
    "terraform plan -target=module.{s}",
    "psql -h replica -c 'select now()'",
    "npm run e2e -- --grep {s}",
    "./scripts/rotate-keys.sh {s}",
    "helm upgrade {s} ./chart --atomic",
    "redis-cli --latency -h {s}",
];
const CJK: &[&str] = &[
    "数据库迁移需要在周五晚上进行，先备份再执行。",
    "用户更喜欢简洁的中文回答，不要使用太多术语。",
    "测试环境的证书已经过期，需要联系运维更新。",
    "本番環境のデプロイは金曜日に行わないこと。",
    "キャッシュの有効期限は十分に設定されています。",
    "데이터베이스 백업은 매일 새벽 세 시에 실행됩니다.",
    "결제 서비스의 타임아웃을 삼십 초로 늘렸습니다.",
];

/// One memory: one to four sentences from the templates.
pub(crate) fn memory_text(rng: &mut Rng) -> String {
    if rng.index(100) < 3 {
        return format!("{} ({})", rng.pick(CJK), rng.pick(SERVICES));
    }
    let sentences = 1 + rng.index(4);
    (0..sentences)
        .map(|_| sentence(rng))
        .collect::<Vec<_>>()
        .join(" ")
}

fn sentence(rng: &mut Rng) -> String {
    let (person, system, service) = (rng.skewed(PEOPLE), rng.skewed(SYSTEMS), rng.skewed(SERVICES));
    let (noun, other, adjective) = (rng.skewed(NOUNS), rng.skewed(NOUNS), rng.skewed(ADJECTIVES));
    match rng.index(9) {
        0 => format!("{person} prefers {adjective} {noun} over {other} in the {service} service."),
        1 => format!(
            "Decision {}: {service} moves its {noun} to {system} because {}.",
            date(rng),
            rng.pick(REASONS)
        ),
        2 => format!(
            "The {service} {noun} {} when the {other} is {adjective}.",
            rng.skewed(VERBS)
        ),
        3 => format!(
            "Ticket OPS-{}: {system} {} during the {noun}.",
            rng.index(10_000),
            rng.skewed(VERBS)
        ),
        4 => format!(
            "To fix the {adjective} {noun}, run `{}`.",
            rng.pick(COMMANDS).replace("{s}", service)
        ),
        5 => format!(
            "The {noun} for {service} lives in `services/{}/{}.toml`.",
            service.replace(' ', "-"),
            other.replace(' ', "_")
        ),
        6 => format!("{person} owns the {system} {noun}; ask before changing the {other}."),
        7 => format!(
            "Fixed in commit {:07x}: {adjective} {noun} in {service}.",
            rng.next() >> 36
        ),
        _ => format!(
            "Why did we choose {system} for the {noun}? Because {}, said {person}.",
            rng.pick(REASONS)
        ),
    }
}

fn date(rng: &mut Rng) -> String {
    format!("2025-{:02}-{:02}", 1 + rng.index(12), 1 + rng.index(28))
}

pub(crate) fn tags(rng: &mut Rng) -> Vec<String> {
    let count = rng.index(3);
    (0..count).map(|_| rng.skewed(SERVICES).to_owned()).collect()
}

/// Writes `count` memories drawn from `seed`.
pub(crate) async fn fill(store: &MemoryStore, count: u64, seed: u64) {
    let mut rng = Rng(seed);
    for _ in 0..count {
        let tags = tags(&mut rng);
        let memory = NewMemory::new(memory_text(&mut rng), None, &tags).expect("a valid memory");
        store.write(memory).await.expect("the memory is written");
    }
}

/// The SQLite corpus of `count` memories (from the seed 42) in
/// `target/bench-data/<file>`, built unless `<file>.complete-<version>` says it is.
pub(crate) fn sqlite_corpus(runtime: &Runtime, file: &str, version: &str, count: u64) -> MemoryStore {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../bench-data");
    let path = dir.join(file);
    let marker = dir.join(format!("{file}.complete-{version}"));
    if !marker.exists() {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(dir.join(format!("{file}{suffix}")));
        }
        let store = MemoryStore::open(&path).expect("the corpus database opens");
        let started = std::time::Instant::now();
        runtime.block_on(fill(&store, count, 42));
        eprintln!(
            "built {count} memories in {} in {:.1?}",
            path.display(),
            started.elapsed()
        );
        std::fs::write(&marker, "").expect("the marker is written");
    }
    MemoryStore::open(&path).expect("the corpus database opens")
}

/// A registry with the built-in tools, their memory in `store`; `workspace` is only what
/// the builder needs.
pub(crate) fn registry(workspace: &Path, store: MemoryStore) -> ToolRegistry {
    let workspace = Workspace::open(workspace).expect("the workspace opens");
    let builtins = Builtins::builder(workspace)
        .memory(store)
        .build()
        .expect("the configuration is valid");
    let registry = ToolRegistry::new();
    Arc::new(builtins)
        .register_all(&registry)
        .expect("the tools register");
    registry
}
