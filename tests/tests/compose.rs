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
        "\"8080:8080\"",
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
