use super::*;

fn parse(text: &str) -> Result<BuiltinConfig, String> {
    toml::from_str(text).map_err(|error| error.to_string())
}

fn registered(config: &BuiltinConfig, env: &[(&str, &str)]) -> Vec<String> {
    let temp = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::new();
    let lookup = |name: &str| match name {
        "XDG_DATA_HOME" => data.path().to_str().map(str::to_owned),
        _ => env
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.to_string()),
    };
    register_all_with_env(&registry, Some(temp.path().to_path_buf()), config, &lookup).unwrap()
}

/// Runs one tool call on a runtime of its own.
fn call(registry: &ToolRegistry, tool: &str, arguments: serde_json::Value) -> agent_tools_core::ToolResult {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(registry.call(agent_tools_core::ToolCall::new("c", tool, arguments)))
}

#[test]
fn every_section_parses_and_an_empty_file_is_valid() {
    let config = parse(
        r##"
        [workspace]
        read_only = true
        protect = [".agent-tools"]
        [exec]
        shell = "/bin/bash"
        default_timeout = "90s"
        output_limit = 4096
        env_allow = ["GITHUB_TOKEN"]
        sandbox = "none"
        network = false
        unix_sockets = true
        keep_background = true
        max_background = 2
        background_buffer = 4096
        [web]
        allow_private_network = true
        search_api_key_env = "MY_BRAVE_KEY"
        [subagents]
        base_url = "http://127.0.0.1:1/v1"
        model = "small"
        timeout = "5m"
        max_queued = 2
        [media]
        webhook_url = "http://127.0.0.1:1/hook"
        allowed_channels = ["#reports"]
        "##,
    )
    .unwrap();
    let exec = &config.exec;
    assert_eq!(exec.default_timeout.as_secs(), 90);
    assert_eq!(
        (exec.output_limit, &exec.network),
        (4096, &crate::ExecNetwork::None)
    );
    assert_eq!(exec.sandbox, crate::ExecSandbox::None);
    assert!(exec.unix_sockets && exec.keep_background);
    assert_eq!((exec.max_background, exec.background_buffer), (2, 4096));
    assert!(config.web.fetch_config().unwrap().allow_private_network);
    let subagents = config.subagents.as_ref().unwrap();
    assert_eq!((subagents.max_iterations, subagents.timeout.as_secs()), (20, 300));
    assert_eq!((subagents.max_queued, subagents.max_per_session), (2, 64));
    assert_eq!(config.media.as_ref().unwrap().allowed_channels, ["#reports"]);
    assert!(parse("").is_ok());
}

#[test]
fn media_needs_exactly_one_destination_and_its_secret() {
    let temp = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let data_home = data.path().to_str().unwrap().to_owned();
    let register = |text: &str| {
        let config = parse(text).unwrap();
        register_all_with_env(
            &ToolRegistry::new(),
            Some(temp.path().to_path_buf()),
            &config,
            &|name| (name == "XDG_DATA_HOME").then(|| data_home.clone()),
        )
        .unwrap_err()
        .to_string()
    };
    assert!(register("[media]\n").contains("needs webhook_url or a [media.telegram] table"));
    assert!(
        register("[media.telegram]\nchat_id = \"1\"\n")
            .contains("needs the bot token in $TELEGRAM_BOT_TOKEN")
    );
    let both = "[media]\nwebhook_url = \"http://127.0.0.1:1/\"\n[media.telegram]\nchat_id = \"1\"\n";
    assert!(register(both).contains("choose one"));
}

#[test]
fn durations_are_written_as_people_write_them() {
    for (text, seconds) in [("30s", 30), ("11m", 660), ("1h 30m", 5400), ("2min", 120)] {
        let config = parse(&format!("[exec]\ndefault_timeout = {text:?}\n")).unwrap();
        assert_eq!(config.exec.default_timeout.as_secs(), seconds, "{text}");
    }
}

#[test]
fn resource_limits_take_counts_sizes_durations_or_unlimited() {
    let exec = parse("").unwrap().exec;
    assert_eq!(
        (exec.max_processes, exec.max_memory, exec.max_cpu),
        (Some(1024), None, None)
    );
    let exec = parse("[exec]\nmax_processes = \"unlimited\"\nmax_memory = \"2GiB\"\nmax_cpu = \"10m\"\n")
        .unwrap()
        .exec;
    assert_eq!(exec.max_processes, None);
    assert_eq!(exec.max_memory, Some(2 << 30));
    assert_eq!(exec.max_cpu, Some(std::time::Duration::from_secs(600)));
    let exec = parse("[exec]\nmax_processes = 64\nmax_memory = 1000000\nmax_cpu = 90\n")
        .unwrap()
        .exec;
    assert_eq!((exec.max_processes, exec.max_memory), (Some(64), Some(1_000_000)));
    assert_eq!(exec.max_cpu, Some(std::time::Duration::from_secs(90)));
    for (text, bytes) in [
        ("512M", 512 << 20),
        ("512 MiB", 512 << 20),
        ("1GB", 1_000_000_000),
        ("7b", 7),
        ("3k", 3072),
    ] {
        assert_eq!(limit::parse_size(text), Ok(bytes), "{text}");
    }
    for (line, expected) in [
        (
            "max_memory = \"2 gallons\"",
            "`gallons` in `2 gallons` is not a size unit",
        ),
        ("max_memory = \"lots\"", "`lots` is not a size"),
        ("max_memory = \"99999999T\"", "more bytes than fit in 64 bits"),
        ("max_memory = 0", "a memory limit of 0 leaves no room"),
        ("max_processes = 0", "a limit of 0 processes leaves no room"),
        ("max_processes = -3", "a limit cannot be negative (-3)"),
        (
            "max_processes = 1.5",
            "expected a number of processes or \"unlimited\"",
        ),
        ("max_cpu = \"500ms\"", "must be at least 1s"),
        ("max_cpu = \"soon\"", "`soon` is not a duration"),
    ] {
        let error = parse(&format!("[exec]\n{line}\n")).unwrap_err();
        assert!(error.contains(expected), "{line}: {error}");
    }
}

#[test]
fn mistakes_are_named() {
    let error = parse("[exec]\ntimeout = \"1s\"\n").unwrap_err();
    assert!(error.contains("unknown field `timeout`"), "{error}");
    let error = parse("[exec]\ndefault_timeout = \"soon\"\n").unwrap_err();
    assert!(error.contains("string \"soon\", expected a duration"), "{error}");
    let error = parse("[subagents]\nmodel = \"m\"\n").unwrap_err();
    assert!(error.contains("missing field `base_url`"), "{error}");
}

#[test]
fn tools_with_dependencies_register_only_with_them() {
    let plain = registered(&BuiltinConfig::default(), &[]);
    let expected = [
        "read_file",
        "write_file",
        "edit_file",
        "apply_patch",
        "list_dir",
        "file_search",
        "exec",
        "process_output",
        "process_write",
        "process_kill",
        "process_list",
        "web_fetch",
        "screenshot",
        "view_image",
        "memory_write",
        "memory_search",
        "memory_read",
        "update_plan",
    ];
    assert_eq!(plain, expected);
    let no_memory = registered(&parse("[memory]\nenabled = false\n").unwrap(), &[]);
    assert!(!no_memory.iter().any(|name| name.starts_with("memory_")));
    let with_key = registered(&BuiltinConfig::default(), &[("BRAVE_API_KEY", "k")]);
    assert!(with_key.contains(&"web_search".to_owned()));
    let config = parse("[subagents]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n").unwrap();
    assert!(registered(&config, &[]).contains(&"spawn".to_owned()));
    let webhook = parse("[media]\nwebhook_url = \"http://127.0.0.1:1/hook\"\n").unwrap();
    assert!(registered(&webhook, &[]).contains(&"send_media".to_owned()));
    let telegram = parse("[media.telegram]\nchat_id = \"42\"\n").unwrap();
    assert!(registered(&telegram, &[("TELEGRAM_BOT_TOKEN", "123:abc")]).contains(&"send_media".to_owned()));
    assert!(!plain.contains(&"send_media".to_owned()));
}

#[test]
fn the_default_memory_database_is_outside_the_workspace() {
    let ws = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let data_home = data.path().to_str().unwrap().to_owned();
    let env = |name: &str| (name == "XDG_DATA_HOME").then(|| data_home.clone());
    let registry = ToolRegistry::new();
    register_all_with_env(
        &registry,
        Some(ws.path().to_path_buf()),
        &BuiltinConfig::default(),
        &env,
    )
    .unwrap();
    let workspaces = data.path().join("agent-tools/workspaces");
    assert!(!workspaces.exists(), "registering creates no database");
    let saved = call(
        &registry,
        "memory_write",
        serde_json::json!({"content": "The build needs Rust 1.88."}),
    );
    assert!(!saved.is_error(), "{}", saved.text());
    let dirs: Vec<_> = std::fs::read_dir(&workspaces).unwrap().flatten().collect();
    assert_eq!(dirs.len(), 1);
    let database = dirs[0].path().join("memory.db");
    assert!(database.is_file(), "the first memory call opens {database:?}");
    assert_eq!(
        std::fs::read_dir(ws.path()).unwrap().count(),
        0,
        "nothing in the workspace"
    );
    let write = call(
        &registry,
        "write_file",
        serde_json::json!({"path": database.to_str().unwrap(), "content": "x"}),
    );
    assert!(write.text().contains("outside the workspace"), "{}", write.text());
    let found = call(
        &registry,
        "memory_search",
        serde_json::json!({"query": "rust build"}),
    )
    .text();
    assert!(found.contains("«Rust»") && found.contains("«build»"), "{found}");

    let nowhere = register_all_with_env(
        &ToolRegistry::new(),
        Some(ws.path().to_path_buf()),
        &BuiltinConfig::default(),
        &|_| None,
    )
    .unwrap_err();
    assert!(
        matches!(nowhere, SetupError::MemoryDatabase { .. }),
        "{nowhere:?}"
    );
    let nowhere = nowhere.to_string();
    assert!(
        nowhere.starts_with("[memory]: neither XDG_DATA_HOME nor HOME is set")
            && nowhere.contains("--memory-db"),
        "{nowhere}"
    );
}

#[test]
fn a_memory_path_inside_the_workspace_is_protected_from_the_file_tools() {
    let ws = tempfile::tempdir().unwrap();
    let database = ws.path().join("state/memory.db");
    let config = parse(&format!("[memory]\npath = \"{}\"\n", database.display())).unwrap();
    let registry = ToolRegistry::new();
    register_all(&registry, Some(ws.path().to_path_buf()), &config).unwrap();
    let saved = call(&registry, "memory_write", serde_json::json!({"content": "kept"}));
    assert!(!saved.is_error(), "{}", saved.text());
    for (tool, arguments) in [
        (
            "write_file",
            serde_json::json!({"path": "state/memory.db", "content": "x"}),
        ),
        (
            "write_file",
            serde_json::json!({"path": "state/memory.db-wal", "content": "x"}),
        ),
        (
            "write_file",
            serde_json::json!({"path": "state/memory.db", "content": "x", "mode": "append"}),
        ),
    ] {
        let result = call(&registry, tool, arguments);
        assert!(
            result.text().contains("protected part of the workspace"),
            "{tool}: {}",
            result.text()
        );
    }
    let found = call(&registry, "memory_search", serde_json::json!({"query": "kept"}));
    assert!(!found.is_error(), "{}", found.text());
}

#[test]
fn workspace_settings_reach_the_tools() {
    let temp = tempfile::tempdir().unwrap();
    let config = parse("[workspace]\nprotect = [\"locked\", \"**/*.pem\"]\n").unwrap();
    let registry = ToolRegistry::new();
    register_all(&registry, Some(temp.path().to_path_buf()), &config).unwrap();
    for path in ["locked/x", "deep/key.pem"] {
        let result = call(
            &registry,
            "write_file",
            serde_json::json!({"path": path, "content": "x"}),
        );
        assert!(
            result.text().contains("protected part of the workspace"),
            "{path}: {}",
            result.text()
        );
    }
    let hook = serde_json::json!({"path": ".git/hooks/pre-commit", "content": "x"});
    let result = call(&registry, "write_file", hook.clone());
    assert!(result.text().contains("outside any sandbox"), "{}", result.text());
    let open = ToolRegistry::new();
    let config = parse("[workspace]\nprotect_git = false\n").unwrap();
    register_all(&open, Some(temp.path().to_path_buf()), &config).unwrap();
    let result = call(&open, "write_file", hook);
    assert!(!result.is_error(), "{}", result.text());
}

#[test]
fn trusted_hosts_reach_web_fetch_and_screenshots() {
    let config = parse("[web]\ntrusted_hosts = { \"Wiki.Internal\" = \"10.0.0.7:8080\" }\n").unwrap();
    let address: std::net::SocketAddr = "10.0.0.7:8080".parse().unwrap();
    let trusted = vec![("Wiki.Internal".to_owned(), address)];
    assert_eq!(
        config.web.fetch_config().unwrap().trusted_hosts(),
        trusted.as_slice()
    );
    assert_eq!(config.screenshot.to_config(&config.web).trusted_hosts, trusted);
    assert!(registered(&config, &[]).contains(&"web_fetch".to_owned()));

    let error = parse("[web]\ntrusted_hosts = { \"wiki\" = \"10.0.0.7\" }\n").unwrap_err();
    assert!(error.contains("invalid socket address syntax"), "{error}");
    for name in ["10.0.0.7", "[::1]"] {
        let config = parse(&format!(
            "[web]\ntrusted_hosts = {{ \"{name}\" = \"10.0.0.7:80\" }}\n"
        ))
        .unwrap();
        let temp = tempfile::tempdir().unwrap();
        let error = register_all(&ToolRegistry::new(), Some(temp.path().to_path_buf()), &config)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(&format!(
                "[web] trusted_hosts: `{name}` is an address, not a host name"
            )),
            "{error}"
        );
    }
}

#[test]
fn root_certificates_are_read_from_their_files() {
    let temp = tempfile::tempdir().unwrap();
    let ca = temp.path().join("ca.pem");
    std::fs::write(&ca, include_str!("../web/tests/tls/ca.pem")).unwrap();
    let toml_path = |path: &std::path::Path| path.display().to_string().replace('\\', "/");
    let config = parse(&format!("[web]\nroot_certificates = [\"{}\"]\n", toml_path(&ca))).unwrap();
    let fetch = config.web.fetch_config().unwrap();
    assert_eq!(fetch.root_certificates(), [std::fs::read(&ca).unwrap()]);
    assert!(registered(&config, &[]).contains(&"web_fetch".to_owned()));

    let missing = temp.path().join("missing.pem");
    let config = parse(&format!(
        "[web]\nroot_certificates = [\"{}\"]\n",
        toml_path(&missing)
    ))
    .unwrap();
    let error = register_all(&ToolRegistry::new(), Some(temp.path().to_path_buf()), &config)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("[web] root_certificates: cannot read `"),
        "{error}"
    );

    std::fs::write(&missing, "not a certificate").unwrap();
    let error = register_all(&ToolRegistry::new(), Some(temp.path().to_path_buf()), &config)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("root certificate 1 holds no PEM certificate"),
        "{error}"
    );
}
