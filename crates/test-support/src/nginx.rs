//! nginx from Debian's package as a plain round-robin load balancer (no affinity) in
//! front of MCP replicas, on a free loopback port, with the configuration the guide
//! documents (`deploy/nginx.conf`); stopped when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running nginx.
pub struct Nginx {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Nginx {
    /// nginx (`binary`, from [`binary`]) on loopback `port`, balancing `/mcp` over
    /// `replicas` (`host:port` each), its files in `dir`.
    pub fn start(binary: &Path, dir: &Path, port: u16, replicas: &[String]) -> Self {
        std::fs::create_dir_all(dir.join("tmp")).expect("nginx's directories");
        let snippet = documented_config(port, replicas);
        let config = format!(
            "pid {d}/nginx.pid;
error_log {d}/error.log info;
worker_processes 1;
events {{ worker_connections 1024; }}
http {{
    log_format mcp '$request_method $status $upstream_addr';
    access_log {d}/access.log mcp;
    client_body_temp_path {d}/tmp/body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
{snippet}
}}
",
            d = dir.display()
        );
        std::fs::write(dir.join("nginx.conf"), config).expect("nginx.conf");
        let child = Command::new(binary)
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .args(["-g", "daemon off;"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        let mut nginx = Self {
            child,
            port,
            dir: dir.to_owned(),
        };
        nginx.wait_until_listening();
        nginx
    }

    /// The MCP endpoint through the load balancer.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// The upstream of each proxied request so far (`host:port`; several, comma-separated,
    /// when nginx tried more than one).
    pub fn upstreams(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("access.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split_once(' ').and_then(|(_, rest)| rest.split_once(' ')))
            .map(|(_, upstream)| upstream.to_owned())
            .collect()
    }

    fn wait_until_listening(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            let exited = self.child.try_wait().ok().flatten();
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "nginx did not start ({exited:?}): {}",
                std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `deploy/nginx.conf`, the configuration the guide documents, with `replicas` and
/// `port` in place of its example addresses.
fn documented_config(port: u16, replicas: &[String]) -> String {
    let documented = std::fs::read_to_string(crate::workspace_root().join("deploy/nginx.conf"))
        .expect("deploy/nginx.conf");
    let example_servers = "    server 127.0.0.1:8081 max_fails=1 fail_timeout=10s;\n    server 127.0.0.1:8082 max_fails=1 fail_timeout=10s;\n";
    let example_listen = "listen 127.0.0.1:8080;";
    assert!(
        documented.contains(example_servers) && documented.contains(example_listen),
        "deploy/nginx.conf no longer has the example addresses this test replaces"
    );
    let servers: String = replicas
        .iter()
        .map(|replica| format!("    server {replica} max_fails=1 fail_timeout=10s;\n"))
        .collect();
    documented
        .replace(example_servers, &servers)
        .replace(example_listen, &format!("listen 127.0.0.1:{port};"))
}

/// `nginx` on `PATH`, or where Debian puts it (`/usr/sbin`, not on a user's `PATH`);
/// `None` after saying the test is skipped (a failure under CI).
pub fn binary() -> Option<PathBuf> {
    crate::require_program("nginx", "apt-get install nginx")
}
