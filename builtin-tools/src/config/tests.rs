use super::*;

fn parse(text: &str) -> Result<BuiltinConfig, String> {
    toml::from_str(text).map_err(|error| error.to_string())
}

fn registered(config: &BuiltinConfig, env: &[(&str, &str)]) -> Vec<String> {
    let temp = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::new();
    let lookup = |name: &str| {
        env.iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.to_string())
    };
    register_all_with_env(&registry, Some(temp.path().to_path_buf()), config, &lookup).unwrap()
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
    let exec = config.exec.to_config();
    assert_eq!(exec.default_timeout.as_secs(), 90);
    assert_eq!((exec.output_limit, exec.network), (4096, false));
    assert_eq!(exec.sandbox, crate::shell::ExecSandbox::None);
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
    let register = |text: &str| {
        let config = parse(text).unwrap();
        register_all_with_env(
            &ToolRegistry::new(),
            Some(temp.path().to_path_buf()),
            &config,
            &|_| None,
        )
        .unwrap_err()
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
fn mistakes_are_named() {
    let error = parse("[exec]\ntimeout = \"1s\"\n").unwrap_err();
    assert!(error.contains("unknown field `timeout`"), "{error}");
    let error = parse("[exec]\ndefault_timeout = \"soon\"\n").unwrap_err();
    assert!(error.contains("invalid duration `soon`"), "{error}");
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
        "list_dir",
        "file_search",
        "exec",
        "web_fetch",
        "screenshot",
        "memory_write",
        "memory_search",
        "memory_read",
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
fn the_memory_database_is_protected_from_the_file_tools() {
    let temp = tempfile::tempdir().unwrap();
    let registry = ToolRegistry::new();
    register_all(
        &registry,
        Some(temp.path().to_path_buf()),
        &BuiltinConfig::default(),
    )
    .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let write = tool_core::ToolCall::new(
        "c",
        "write_file",
        serde_json::json!({"path": ".agent-tools/memory.db", "content": "x"}),
    );
    assert!(
        runtime
            .block_on(registry.call(write))
            .text()
            .contains("protected part of the workspace")
    );
    assert!(
        !temp.path().join(".agent-tools").exists(),
        "registering creates no database"
    );
    let remember = tool_core::ToolCall::new(
        "m",
        "memory_write",
        serde_json::json!({"content": "The build needs Rust 1.88."}),
    );
    let saved = runtime.block_on(registry.call(remember));
    assert!(!saved.is_error(), "{}", saved.text());
    assert!(
        temp.path().join(".agent-tools/memory.db").is_file(),
        "the first memory call opens it"
    );
    let search = tool_core::ToolCall::new("s", "memory_search", serde_json::json!({"query": "rust build"}));
    let found = runtime.block_on(registry.call(search)).text();
    assert!(found.contains("«Rust»") && found.contains("«build»"), "{found}");
}

#[test]
fn workspace_settings_reach_the_tools() {
    let temp = tempfile::tempdir().unwrap();
    let config = parse("[workspace]\nprotect = [\"locked\"]\n").unwrap();
    let registry = ToolRegistry::new();
    register_all(&registry, Some(temp.path().to_path_buf()), &config).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let call = tool_core::ToolCall::new(
        "c",
        "write_file",
        serde_json::json!({"path": "locked/x", "content": "x"}),
    );
    let result = runtime.block_on(registry.call(call));
    assert!(
        result.text().contains("protected part of the workspace"),
        "{}",
        result.text()
    );
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
        let error = register_all(&ToolRegistry::new(), Some(temp.path().to_path_buf()), &config).unwrap_err();
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
    let error = register_all(&ToolRegistry::new(), Some(temp.path().to_path_buf()), &config).unwrap_err();
    assert!(
        error.starts_with("[web] root_certificates: cannot read `"),
        "{error}"
    );

    std::fs::write(&missing, "not a certificate").unwrap();
    let error = register_all(&ToolRegistry::new(), Some(temp.path().to_path_buf()), &config).unwrap_err();
    assert!(
        error.contains("root certificate 1 holds no PEM certificate"),
        "{error}"
    );
}
