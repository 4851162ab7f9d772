#!/usr/bin/env bash
# The main job on the bundled example, with no key and no network: import the example
# set, evaluate it with every judge-free metric, print the summary, write exports.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
home="${RAGNOSIS_HOME:-$PWD/.ragnosis-demo}"
mkdir -p out
cargo run --quiet --locked -p ragnosis-cli -- --home "$home" eval assets/examples/ragnosis-example.jsonl \
  --metrics ragvue,citation,reference --label "example" --out-base out/example --format json,md,csv
echo
echo "Exports: out/example.json, out/example.md, out/example.csv (database: $home)"
