#!/usr/bin/env bash
# Validate docker-compose.yml against the Compose Specification's JSON schema without a Docker
# engine. Installs PyYAML and jsonschema from PyPI when they are missing. Run from anywhere;
# CI runs it as `bash tests/check-compose.sh`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
schema="${COMPOSE_SCHEMA:-$root/../shared/compose-spec.json}"
if ! python3 -c "import yaml, jsonschema" 2>/dev/null; then
    python3 -m pip install --quiet pyyaml jsonschema
fi
cd "$root"
python3 -c "import json,yaml,jsonschema; jsonschema.validate(yaml.safe_load(open('docker-compose.yml')), json.load(open('$schema')))"
echo "docker-compose.yml is valid against $schema"
