//! MCP tasks across two `agent-tools serve --http --stateless` replicas as real
//! processes, sharing their tasks in PostgreSQL (`[tasks] postgres_url`), behind nginx
//! as a plain round-robin load balancer:
//!
//! - a call the policy asks about becomes a task waiting for an approval; the replica
//!   that created it is killed (SIGKILL); a person answers with `agent-tools approvals
//!   allow` from another process; the task then runs through the surviving replica, and
//!   the audit log says who allowed it;
//! - a replica killed while it runs a task leaves the task failed, with why, within its
//!   lease, never `working` forever.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::{mcp_post, nginx, postgres};

use crate::stateless_replicas::{Replica, replicas_behind_nginx};

/// What a client that takes tasks (and no forms) declares.
fn task_client() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

struct Deployment {
    dir: tempfile::TempDir,
    config: std::path::PathBuf,
    database: String,
    replicas: Vec<Replica>,
    nginx: nginx::Nginx,
}

/// PostgreSQL, two replicas keeping tasks in it (a one-second lease), nginx in front;
/// `None` when PostgreSQL or nginx is not installed (scripts/test installs both). The
/// policy asks about `write_file` and allows `exec`, whose task must run (holding its
/// lease) rather than wait for an approval the default mode would ask for.
fn deploy() -> Option<Deployment> {
    let nginx_binary = nginx::binary()?;
    let database = postgres::server()?.database();
    let dir = tempfile::tempdir().ok()?;
    let config = dir.path().join("agent-tools.toml");
    let text = format!(
        "[serve]\nstateless = true\n\n[policy]\nask = [\"write_file\"]\nallow = [\"exec\"]\n\n\
         [tasks]\npostgres_url = \"{database}\"\ndefault = \"optional\"\nlease = \"1s\"\n"
    );
    std::fs::write(&config, text).ok()?;
    let (replicas, nginx) = replicas_behind_nginx(&nginx_binary, dir.path(), &config);
    Some(Deployment {
        dir,
        config,
        database,
        replicas,
        nginx,
    })
}

impl Deployment {
    async fn post(&self, method: &str, params: Value) -> Value {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("a client");
        mcp_post::post_2026(&client, &self.nginx.url(), method, params, task_client())
            .await
            .unwrap_or_else(|error| panic!("{method}: {error}"))
    }

    /// Calls `tool`; the id of the task it became.
    async fn start_task(&self, tool: &str, arguments: Value) -> String {
        let created = self
            .post("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        created["result"]["taskId"]
            .as_str()
            .expect("a task id")
            .to_owned()
    }

    /// Polls `tasks/get` through nginx until the task is `status` (for up to 20 s).
    async fn wait_for(&self, id: &str, status: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let task = self.post("tasks/get", json!({"taskId": id})).await;
            if task["result"]["status"] == status {
                return task["result"].clone();
            }
            assert!(
                Instant::now() < deadline,
                "the task did not become {status}: {task}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Runs `agent-tools --config … ARGS` as a process of its own; its stdout.
    fn cli(&self, args: &[&str]) -> String {
        let output = Command::new(env!("CARGO_BIN_EXE_agent-tools"))
            .arg("--config")
            .arg(&self.config)
            .args(args)
            .output()
            .expect("agent-tools runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{args:?}: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    }

    /// Kills (SIGKILL) the replica whose process id is `pid`.
    fn kill(&mut self, pid: u32) {
        let replica = self
            .replicas
            .iter_mut()
            .find(|replica| replica.child.id() == pid)
            .unwrap_or_else(|| panic!("no replica has pid {pid}"));
        replica.child.kill().expect("killed");
        replica.child.wait().expect("reaped");
    }

    /// The process id of the replica holding task `id`'s lease, read from the table once
    /// a replica has taken it (a task is in the table before its replica leases it to
    /// run).
    async fn holder(&self, id: &str) -> u32 {
        let (client, connection) = tokio_postgres::connect(&self.database, tokio_postgres::NoTls)
            .await
            .expect("connects");
        tokio::spawn(connection);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let row = client
                .query_one(
                    "SELECT record::json->'lease'->>'holder' FROM agent_tools_tasks WHERE id = $1",
                    &[&id],
                )
                .await
                .expect("the task is in the table");
            let holder: Option<String> = row.get(0);
            // `server-PID-RANDOM`.
            let pid = holder
                .as_deref()
                .and_then(|holder| holder.split('-').nth(1))
                .and_then(|pid| pid.parse().ok());
            match pid {
                Some(pid) => return pid,
                None if std::time::Instant::now() < deadline => {
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
                None => {
                    let row = client
                        .query_one("SELECT record::text FROM agent_tools_tasks WHERE id = $1", &[&id])
                        .await
                        .expect("the task is in the table");
                    let record: String = row.get(0);
                    panic!("no replica took the task within 30 s: {record}")
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_answered_from_another_process_runs_the_task_after_its_replica_died() {
    let Some(mut deployment) = deploy() else {
        return;
    };
    let id = deployment
        .start_task(
            "write_file",
            json!({"path": "approved.txt", "content": "written after approval"}),
        )
        .await;
    let waiting = deployment.wait_for(&id, "input_required").await;
    assert!(waiting["inputRequests"]["approval"].is_object(), "{waiting}");
    // The task holds no process while it waits: kill one replica (with nginx, either).
    let pid = deployment.replicas[0].child.id();
    deployment.kill(pid);

    let listed = deployment.cli(&["approvals", "list"]);
    assert!(listed.contains(&id) && listed.contains("write_file"), "{listed}");
    let allowed = deployment.cli(&["approvals", "allow", &id, "--as", "alice"]);
    assert!(allowed.contains("allow_once"), "{allowed}");

    let done = deployment.wait_for(&id, "completed").await;
    assert_eq!(done["result"]["isError"], false, "{done}");
    let written = std::fs::read_to_string(deployment.dir.path().join("ws").join("approved.txt"));
    assert_eq!(written.ok().as_deref(), Some("written after approval"));
    let decided = deployment.replicas[1]
        .audit_events()
        .into_iter()
        .find(|event| event["tool"] == "write_file" && event["outcome"] == "ok")
        .expect("the surviving replica audited the call");
    assert_eq!(
        decided["approval"],
        json!({"decision": "allow_once", "by": "alice"}),
        "{decided}"
    );
    assert!(deployment.cli(&["approvals", "list"]).contains("no task waits"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_replica_is_killed_while_it_runs_fails_with_why() {
    let Some(mut deployment) = deploy() else {
        return;
    };
    let id = deployment
        .start_task("exec", json!({"command": "sleep 60"}))
        .await;
    let pid = deployment.holder(&id).await;
    deployment.kill(pid);
    let failed = deployment.wait_for(&id, "failed").await;
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stopped before it finished"), "{failed}");
}
