#!/usr/bin/env bash
# Builds and opens the Ragnosis desktop app (fresh Debian 12): installs what is missing,
# builds the UI bundle, then the app. The bundled example is one click away on Home
# ("Try the example"); any JSONL dropped on the window is imported.
# RAGNOSIS_HOME chooses where the database lives (default: the platform data dir).
set -euo pipefail
cd "$(dirname "$0")/.."
# The semantic model's weights of this checkout (installed by setup.sh). Named here, not
# left to the path compiled into the binary: a build cache shared between checkouts can
# hold a binary compiled in another directory.
export RAGNOSIS_MODEL_DIR="${RAGNOSIS_MODEL_DIR:-$PWD/assets/models/all-minilm-l6-v2}"

bash scripts/setup.sh --app
exec cargo run --locked -p ragnosis-desktop "$@"
