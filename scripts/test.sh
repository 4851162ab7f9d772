#!/usr/bin/env bash
# Runs every Ragnosis test on a fresh Debian 12 machine: installs what is missing, then
# the UI checks and unit tests, then the whole Rust workspace (core, CLI, IPC, and the
# real window end to end) under Xvfb and a private D-Bus session.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh --test
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

echo "== UI: type check and unit tests"
(cd ui && npm run check --silent && npm test --silent)

echo "== Rust workspace (with the e2e test in the real window)"
export RAGNOSIS_E2E=required
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- cargo test --workspace --locked
