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
