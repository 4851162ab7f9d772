#!/usr/bin/env bash
# Builds and opens the Ragnosis desktop app (fresh Debian 12): installs what is missing,
# builds the UI bundle, then the app. The bundled example is one click away on Home
# ("Try the example"); any JSONL dropped on the window is imported.
# RAGNOSIS_HOME chooses where the database lives (default: the platform data dir).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh --app
exec cargo run --locked -p ragnosis-desktop "$@"
