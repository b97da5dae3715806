//! `[exec] network = [hosts]` against real commands, sockets and servers on loopback: an
//! allowed host is reached through the proxy by curl and Python, everything else fails —
//! a refused host (the proxy's 403, in the audit and the result), a redirect to one, an IP
//! literal, a tunnel whose TLS names another host, a direct connection around the proxy,
//! UDP, DNS. The test maps `registry.test` and `refused.test` to its own server with
//! `ExecConfig::resolve`, so that only the allow-list tells them apart.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_tools_builtins::{Builtins, ExecConfig, ExecNetwork, Workspace};
use agent_tools_core::audit::MemoryAudit;
use agent_tools_core::{ToolCall, ToolRegistry};
use axum::Router;
use axum::response::Redirect;
use axum::routing::get;
use axum::serve::ListenerExt as _;
use serde_json::{Value, json};
use test_support::require::require_program;

struct World {
    _dir: tempfile::TempDir,
    registry: ToolRegistry,
    audit: MemoryAudit,
    server: SocketAddr,
    /// Connections the server accepted, counted from outside the sandbox.
    accepted: Arc<AtomicUsize>,
}

/// The test's HTTP server: `/` answers, `/away` redirects to a host the list refuses.
async fn server() -> (SocketAddr, Arc<AtomicUsize>) {
    let app = Router::new()
        .route("/", get(|| async { "the registry answers" }))
        .route("/away", get(|| async { Redirect::to("http://refused.test/") }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counted = accepted.clone();
    let listener = listener.tap_io(move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, accepted)
}

async fn world(network: &[&str]) -> World {
    let (server, accepted) = server().await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = ExecConfig::default()
        .resolve("registry.test", server)
        .resolve("refused.test", server);
    config.require_sandbox = true;
    config.network = ExecNetwork::Allow(network.iter().map(ToString::to_string).collect());
    let builtins = Builtins::builder(Workspace::open(dir.path()).unwrap())
        .exec(config)
        .build()
        .unwrap();
    let audit = MemoryAudit::new();
    let registry = ToolRegistry::builder().audit(audit.clone()).build();
    Arc::new(builtins).register_all(&registry).unwrap();
    World {
        _dir: dir,
        registry,
        audit,
        server,
        accepted,
    }
}

impl World {
    /// Runs `command`; the result's text.
    async fn exec(&self, command: &str) -> String {
        let result = self
            .registry
            .call(ToolCall::new(
                "c",
                "exec",
                json!({"command": command, "timeout_secs": 30}),
            ))
            .await;
        result.text()
    }

    /// The connections the last call's proxy recorded.
    fn connections(&self) -> Vec<Value> {
        let events = self.audit.events();
        let last = events.last().unwrap();
        last.details
            .get("network")
            .and_then(|network| network["connections"].as_array().cloned())
            .unwrap_or_default()
    }
}

fn python(code: &str) -> String {
    format!("python3 -c '{code}'")
}

fn tools() -> bool {
    require_program("curl", "apt-get install curl").is_some()
        && require_program("python3", "apt-get install python3").is_some()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_allowed_host_is_reached_through_the_proxy_by_curl_and_python() {
    if !tools() {
        return;
    }
    let world = world(&["registry.test"]).await;
    let out = world.exec("curl -sS http://registry.test/").await;
    assert!(out.contains("the registry answers"), "{out}");
    let out = world
        .exec(&python(
            "import urllib.request; print(urllib.request.urlopen(\"http://registry.test/\").read().decode())",
        ))
        .await;
    assert!(out.contains("the registry answers"), "{out}");
    let connections = world.connections();
    assert_eq!(connections.len(), 1, "{connections:?}");
    assert_eq!(connections[0]["host"], "registry.test");
    assert_eq!(connections[0]["outcome"], "allowed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_host_gets_the_proxys_403_in_the_result_and_the_audit() {
    if !tools() {
        return;
    }
    let world = world(&["registry.test"]).await;
    let out = world
        .exec("curl -sS -w '\\nstatus %{http_code}\\n' http://refused.test/")
        .await;
    assert!(out.contains("status 403"), "{out}");
    assert!(out.contains("not in exec's network allow-list"), "{out}");
    assert!(
        out.contains("[network: the proxy refused GET refused.test:80"),
        "{out}"
    );
    let connections = world.connections();
    assert_eq!(connections[0]["host"], "refused.test");
    assert_eq!(connections[0]["outcome"], "refused");
    let out = world
        .exec(&python(
            "import urllib.request\ntry:\n  urllib.request.urlopen(\"http://refused.test/\")\nexcept Exception as e:\n  print(\"failed\", e)",
        ))
        .await;
    assert!(out.contains("failed HTTP Error 403"), "{out}");
    assert_eq!(world.accepted.load(Ordering::SeqCst), 0, "the server was reached");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_to_a_refused_host_is_not_followed_through() {
    if !tools() {
        return;
    }
    let world = world(&["registry.test"]).await;
    let out = world
        .exec("curl -sSL -w '\\nstatus %{http_code}\\n' http://registry.test/away")
        .await;
    assert!(out.contains("status 403"), "{out}");
    let connections = world.connections();
    let seen: Vec<(String, String)> = connections
        .iter()
        .map(|c| {
            (
                c["host"].as_str().unwrap().to_owned(),
                c["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("registry.test".to_owned(), "allowed".to_owned()),
            ("refused.test".to_owned(), "refused".to_owned())
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_around_the_proxy_reach_nothing() {
    if !tools() {
        return;
    }
    let world = world(&["registry.test"]).await;
    let port = world.server.port();
    let out = world
        .exec(&format!(
            "curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:{port}/; echo curl=$?"
        ))
        .await;
    assert!(
        !out.contains("the registry answers") && !out.contains("curl=0"),
        "{out}"
    );
    let out = world
        .exec(&python(&format!(
            "import socket\ntry:\n  socket.create_connection((\"127.0.0.1\", {port}), timeout=5); print(\"CONNECTED\")\nexcept OSError as e:\n  print(\"refused\", e)"
        )))
        .await;
    assert!(out.contains("refused") && !out.contains("CONNECTED"), "{out}");
    assert_eq!(world.accepted.load(Ordering::SeqCst), 0, "the server was reached");
}

#[tokio::test(flavor = "multi_thread")]
async fn udp_and_dns_do_not_leave() {
    if !tools() {
        return;
    }
    let world = world(&["registry.test"]).await;
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = receiver.local_addr().unwrap().port();
    let out = world
        .exec(&python(&format!(
            "import socket\ntry:\n  socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"x\", (\"127.0.0.1\", {port})); print(\"SENT\")\nexcept OSError as e:\n  print(\"refused\", e)"
        )))
        .await;
    assert!(out.contains("refused"), "{out}");
    // The command has ended: a datagram it sent would be queued by now.
    receiver.set_nonblocking(true).unwrap();
    let mut buffer = [0u8; 16];
    assert!(receiver.recv(&mut buffer).is_err(), "a datagram arrived: {out}");
    let out = world.exec("getent hosts example.com; echo getent=$?").await;
    assert!(out.contains("getent=2") || out.contains("getent=1"), "{out}");
    let out = world
        .exec(&python(
            "import socket\ntry:\n  print(socket.getaddrinfo(\"example.com\", 443))\nexcept OSError as e:\n  print(\"unresolved\", e)",
        ))
        .await;
    assert!(out.contains("unresolved"), "{out}");
}

/// Python that opens a tunnel with `request` and says how the proxy answered; with
/// `sni`, then starts TLS naming it.
fn tunnel(request: &str, sni: Option<&str>) -> String {
    let tls = match sni {
        Some(name) => format!(
            "import ssl\n  c = ssl.create_default_context(); c.check_hostname = False; c.verify_mode = ssl.CERT_NONE\n  try:\n    c.wrap_socket(s, server_hostname=\"{name}\")\n  except Exception as e:\n    print(\"tls ended\", type(e).__name__)"
        ),
        None => "s.sendall(b\"SSH-2.0-x\\r\\n\"); print(\"sent\", s.recv(100))".to_owned(),
    };
    python(&format!(
        "import os, socket\nport = int(os.environ[\"HTTPS_PROXY\"].rsplit(\":\", 1)[1])\ns = socket.create_connection((\"127.0.0.1\", port))\ns.sendall(b\"{request}\\r\\n\\r\\n\")\nhead = s.recv(200).decode()\nprint(\"answer\", head.splitlines()[0] if head else \"none\")\nif \" 200 \" in head:\n  {tls}"
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn tunnels_are_checked_by_host_address_and_tls_server_name() {
    if !tools() {
        return;
    }
    let world = world(&["registry.test"]).await;
    let port = world.server.port();
    let out = world
        .exec(&tunnel(&format!("CONNECT 127.0.0.1:{port} HTTP/1.1"), None))
        .await;
    assert!(out.contains("answer HTTP/1.1 403"), "{out}");
    let out = world
        .exec(&tunnel("CONNECT registry.test:443 HTTP/1.1", Some("evil.test")))
        .await;
    assert!(
        out.contains("answer HTTP/1.1 200") && out.contains("tls ended"),
        "{out}"
    );
    let connections = world.connections();
    assert_eq!(connections[0]["outcome"], "refused", "{connections:?}");
    assert!(
        connections[0]["reason"]
            .as_str()
            .unwrap()
            .contains("names `evil.test`"),
        "{connections:?}"
    );
    let out = world
        .exec(&tunnel("CONNECT registry.test:443 HTTP/1.1", None))
        .await;
    assert!(out.contains("answer HTTP/1.1 200"), "{out}");
    let connections = world.connections();
    assert!(
        connections[0]["reason"]
            .as_str()
            .unwrap()
            .contains("does not start TLS"),
        "{connections:?}"
    );
    // Naming the host it was opened to, the tunnel goes through (to a server that does not
    // speak TLS, so the handshake fails there).
    world
        .exec(&tunnel(
            "CONNECT registry.test:443 HTTP/1.1",
            Some("registry.test"),
        ))
        .await;
    assert_eq!(world.connections()[0]["outcome"], "allowed");
    assert_eq!(world.accepted.load(Ordering::SeqCst), 1);
}
