#!/usr/bin/env bash
# The main job from the terminal, with no key and no network. With no argument: import
# the example set, evaluate it (the RAGVUE metrics with the built-in offline judge, plus
# the judge-free citation and reference metrics), print the summary and the diagnosis,
# write the exports and the stakeholder report. With a file (`bash scripts/demo.sh
# answers.jsonl`): the same for your own file, evaluated in agentic mode (every metric
# its fields allow).
set -euo pipefail
file="${1:-}"
if [[ -n "$file" ]]; then
  [[ -f "$file" ]] || { echo "demo: no file at $file" >&2; exit 2; }
  file="$(cd "$(dirname "$file")" && pwd)/$(basename "$file")"
fi
cd "$(dirname "$0")/.."
# The semantic model's weights of this checkout (installed by setup.sh). Named here, not
# left to the path compiled into the binary: a build cache shared between checkouts can
# hold a binary compiled in another directory.
export RAGNOSIS_MODEL_DIR="${RAGNOSIS_MODEL_DIR:-$PWD/assets/models/all-minilm-l6-v2}"

bash scripts/setup.sh
home="${RAGNOSIS_HOME:-$PWD/.ragnosis-demo}"
mkdir -p out
ragnosis() { cargo run --quiet --locked -p ragnosis-cli -- --home "$home" "$@"; }
if [[ -z "$file" ]]; then
  name=example
  ragnosis eval assets/examples/ragnosis-example.jsonl \
    --metrics ragvue,citation,reference --label "example" --out-base out/example --format json,md,csv
else
  name="$(basename "${file%.*}")"
  ragnosis agentic "$file" --label "$name" --out-base "out/$name" --format json,md,csv
fi
# `runs` lists the newest run first: the one just made.
run=$(ragnosis runs --json | grep -m1 -oE '"id": [0-9]+' | grep -oE '[0-9]+')
ragnosis report "$run" --format pdf,md --out "out/$name-report"
echo
echo "Exports: out/$name.{json,md,csv}; report: out/$name-report.pdf and .md (run $run in $home)"
