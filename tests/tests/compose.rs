//! `docker-compose.yml` is checked against the Compose Specification's JSON schema (in
//! `../shared/compose-spec.json`) with PyYAML and jsonschema, since there is no Docker engine
//! to try it with. `tests/check-compose.sh` does the same and installs the two packages when
//! missing; CI runs that script. Here the check runs when the packages are present, and the
//! file's essentials are checked either way.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_compose_file_serves_port_8080_with_the_database_on_a_named_volume() {
    let text = std::fs::read_to_string(root().join("docker-compose.yml")).unwrap();
    for needle in [
        "\"${SIEGE_PUBLISH:-8080}:8080\"",
        "siege-data:/data",
        "sqlite:///data/siege.db",
        "0.0.0.0:8080",
        "siege-data: {}",
    ] {
        assert!(text.contains(needle), "docker-compose.yml lacks {needle}");
    }
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    assert!(dockerfile.contains("cargo build --release"));
    assert!(dockerfile.contains("sqlite:///data/siege.db"));
}

/// The `tls` profile: Caddy on 80 and 443 in front of the siege service, which honours
/// `X-Forwarded-For` from Caddy's fixed address only.
#[test]
fn the_tls_profile_puts_caddy_in_front_and_siege_trusts_only_it() {
    let text = std::fs::read_to_string(root().join("docker-compose.yml")).unwrap();
    let caddy = text.split("\n  caddy:\n").nth(1).expect("a caddy service");
    let caddy = caddy.split("\nnetworks:").next().unwrap();
    for needle in [
        "profiles: [\"tls\"]",
        "\"443:443\"",
        "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro",
        "ipv4_address: 172.31.255.10",
    ] {
        assert!(caddy.contains(needle), "the caddy service lacks {needle}");
    }
    assert!(text.contains("SIEGE_TRUSTED_PROXY: 172.31.255.10"));
    let caddyfile = std::fs::read_to_string(root().join("deploy/Caddyfile")).unwrap();
    assert!(caddyfile.contains("reverse_proxy siege:8080"));
    assert!(caddyfile.contains("{$SIEGE_DOMAIN"));
}

#[test]
fn the_compose_file_validates_against_the_compose_spec() {
    let schema = root().join("../shared/compose-spec.json");
    let have_tools = Command::new("python3")
        .args(["-c", "import yaml, jsonschema"])
        .status()
        .is_ok_and(|s| s.success());
    if !schema.exists() || !have_tools {
        eprintln!("compose schema check skipped here: run tests/check-compose.sh");
        return;
    }
    let check = format!(
        "import json,yaml,jsonschema; jsonschema.validate(yaml.safe_load(open('docker-compose.yml')), json.load(open('{}')))",
        schema.display()
    );
    let out = Command::new("python3")
        .current_dir(root())
        .args(["-c", &check])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The block of top-level key `name` under `services:` (or an `x-` extension at the top
/// level, with `indent` 0): its lines up to the next key at the same or a lesser indent.
fn block<'a>(text: &'a str, name: &str, indent: usize) -> &'a str {
    let header = format!("\n{}{name}:", " ".repeat(indent));
    let start = text
        .find(&format!("{header}\n"))
        .or_else(|| text.find(&format!("{header} ")))
        .unwrap_or_else(|| panic!("docker-compose.yml has no {name}"))
        + 1;
    let rest = &text[start..];
    let mut end = rest.len();
    let mut offset = rest.find('\n').map_or(rest.len(), |i| i + 1);
    for line in rest[offset..].split_inclusive('\n') {
        let depth = line.len() - line.trim_start_matches(' ').len();
        let first = line.trim_start_matches(' ').chars().next();
        if depth <= indent && first.is_some_and(|c| c.is_ascii_alphanumeric()) {
            end = offset;
            break;
        }
        offset += line.len();
    }
    &rest[..end]
}

/// The names of the services: the keys indented by two under `services:`.
fn services(text: &str) -> Vec<String> {
    let body = block(text, "services", 0);
    body.lines()
        .skip(1)
        .filter(|l| l.len() > 2 && l.starts_with("  ") && !l.starts_with("   "))
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.trim().trim_end_matches(':').to_string())
        .collect()
}

/// The list item after `- FLAG` in a service's command.
fn arg_after(service: &str, flag: &str) -> Option<String> {
    let mut lines = service.lines().map(str::trim);
    lines.find(|l| *l == format!("- {flag}"))?;
    lines.next()?.strip_prefix("- ").map(str::to_string)
}

/// The `cluster` profile: PostgreSQL with a health check, three nodes of the siege image with
/// distinct node ids and advertised URLs, started once PostgreSQL answers, and HAProxy with
/// deploy/haproxy.cfg on its fixed address, which is the one address the nodes trust.
#[test]
fn the_cluster_profile_runs_three_nodes_on_postgres_behind_haproxy() {
    let text = std::fs::read_to_string(root().join("docker-compose.yml")).unwrap();

    // Plain `docker compose up` is still the one SQLite server: every other service (and the
    // nodes' common part) belongs to a profile.
    let common = block(&text, "x-cluster-node", 0);
    assert!(
        common.starts_with("x-cluster-node: &cluster-node\n"),
        "x-cluster-node is the nodes' anchor"
    );
    for name in services(&text) {
        let service = block(&text, &name, 2);
        if name == "siege" {
            assert!(
                !service.contains("profiles:"),
                "siege must run without a profile"
            );
            assert!(service.contains("sqlite:///data/siege.db"));
            continue;
        }
        let profiled = service.contains("profiles: [")
            || (service.contains("<<: *cluster-node")
                && common.contains("profiles: [\"cluster\"]"));
        assert!(
            profiled,
            "service {name} would start with a plain `docker compose up`"
        );
    }

    let postgres = block(&text, "postgres", 2);
    for needle in [
        "image: postgres:15",
        "profiles: [\"cluster\"]",
        "pg_isready",
        "siege-pg:/var/lib/postgresql/data",
        "POSTGRES_PASSWORD: ${SIEGE_POSTGRES_PASSWORD:-",
    ] {
        assert!(
            postgres.contains(needle),
            "the postgres service lacks {needle}"
        );
    }
    assert!(
        !postgres.contains("ports:"),
        "the database must not be published"
    );
    assert!(text.contains("\n  siege-pg: {}"), "no siege-pg volume");

    for needle in [
        "profiles: [\"cluster\"]",
        "image: siege:latest",
        "condition: service_healthy",
    ] {
        assert!(common.contains(needle), "x-cluster-node lacks {needle}");
    }
    assert!(block(&text, "siege", 2).contains("image: siege:latest"));

    let haproxy = block(&text, "haproxy", 2);
    for needle in [
        "image: haproxy:2.6",
        "profiles: [\"cluster\"]",
        "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro",
        "\"${SIEGE_CLUSTER_PUBLISH:-8090}:8080\"",
    ] {
        assert!(
            haproxy.contains(needle),
            "the haproxy service lacks {needle}"
        );
    }
    let haproxy_ip = haproxy
        .lines()
        .find_map(|l| l.trim().strip_prefix("ipv4_address: "))
        .expect("haproxy has a fixed address");
    let trusted: Vec<&str> = common
        .lines()
        .find_map(|l| l.trim().strip_prefix("SIEGE_TRUSTED_PROXY: "))
        .expect("the nodes trust some proxies")
        .split(',')
        .collect();
    assert!(
        trusted.contains(&haproxy_ip),
        "the nodes must trust X-Forwarded-For from haproxy's {haproxy_ip}: {trusted:?}"
    );
    // Each node passes requests for the others' games on: they trust one another too.
    let node_ips: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("ipv4_address: "))
        .filter(|ip| *ip != haproxy_ip && !ip.ends_with(".10"))
        .collect();
    assert_eq!(node_ips.len(), 3, "{node_ips:?}");
    for ip in &node_ips {
        assert!(
            trusted.contains(ip),
            "the nodes must trust node {ip}: {trusted:?}"
        );
    }

    let cfg = std::fs::read_to_string(root().join("deploy/haproxy.cfg")).unwrap();
    let mut ids = std::collections::BTreeSet::new();
    let mut urls = std::collections::BTreeSet::new();
    for name in services(&text) {
        let service = block(&text, &name, 2);
        let Some(id) = arg_after(service, "--node-id") else {
            continue;
        };
        assert!(
            service.contains("<<: *cluster-node"),
            "{name} is not a cluster node"
        );
        let url = arg_after(service, "--advertise").expect("a node advertises its URL");
        assert_eq!(
            url,
            format!("http://{name}:8080"),
            "{name} advertises {url}"
        );
        let database = arg_after(service, "--database").expect("a node names its database");
        assert!(
            database.starts_with("postgres://") && database.ends_with("@postgres:5432/siege"),
            "{name} uses {database}"
        );
        assert_eq!(
            arg_after(service, "--addr").as_deref(),
            Some("0.0.0.0:8080")
        );
        assert_eq!(arg_after(service, "--web-dir").as_deref(), Some("/srv/web"));
        assert!(
            cfg.contains(&format!("server {name} {name}:8080")),
            "deploy/haproxy.cfg has no server for {name}"
        );
        assert!(
            haproxy.contains(&format!("- {name}")),
            "haproxy does not wait for {name}"
        );
        ids.insert(id);
        urls.insert(url);
    }
    assert_eq!(ids.len(), 3, "three distinct --node-id: {ids:?}");
    assert_eq!(urls.len(), 3, "three distinct --advertise: {urls:?}");
    assert!(cfg.contains("balance hash path,field(4,/)"));
    assert!(cfg.contains("hash-type consistent"));
}
