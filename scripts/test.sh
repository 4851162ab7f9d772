#!/usr/bin/env bash
# Runs every Ragnosis test on a fresh Debian 12 machine: installs what is missing, then
# the UI checks and unit tests, then the whole Rust workspace (core, CLI, IPC, and the
# real window end to end) under Xvfb and a private D-Bus session.
set -euo pipefail
cd "$(dirname "$0")/.."
# The semantic model's weights of this checkout (installed by setup.sh). Named here, not
# left to the path compiled into the binary: a build cache shared between checkouts can
# hold a binary compiled in another directory.
export RAGNOSIS_MODEL_DIR="${RAGNOSIS_MODEL_DIR:-$PWD/assets/models/all-minilm-l6-v2}"
# The dev data sets beside the repository, read by tests; named for the same reason.
export RAGNOSIS_SHARED_DATA="${RAGNOSIS_SHARED_DATA:-$(cd .. && pwd)/shared/data}"

bash scripts/setup.sh --test
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

# Scratch space for this run: the lanes' logs below, and the keyring's files.
scratch=$(mktemp -d)
# The session bus may have started xdg-document-portal (GTK drag and drop), which mounts
# a FUSE file system at $XDG_RUNTIME_DIR/doc and can still be exiting when the tests end:
# unmount it and retry, and never let cleanup change the tests' exit status.
cleanup() {
  for _ in 1 2 3 4 5; do
    fusermount -uz "$scratch/run/doc" 2>/dev/null || umount -l "$scratch/run/doc" 2>/dev/null || true
    rm -rf "$scratch" 2>/dev/null && return 0
    sleep 1
  done
  echo "note: could not remove $scratch" >&2
}
trap cleanup EXIT

# The UI's checks need none of what follows: they run beside the Rust build and tests
# (on two cores the tests leave a third of the CPU idle, waiting on windows, servers and
# killed processes), and their log is printed at the end.
(cd ui && npm run check --silent && npm test --silent) >"$scratch/ui.log" 2>&1 &
ui=$!

echo "== Rust formatting (rustfmt.toml)"
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all --check
else
  echo "note: rustfmt is not installed (rustup component add rustfmt); formatting not checked"
fi

echo "== Module layers, file circles and sizes (scripts/module-graph.py, file-circles.py, size-check.py)"
python3 scripts/module-graph.py >/dev/null || python3 scripts/module-graph.py
python3 scripts/file-circles.py
python3 scripts/size-check.py

echo "== Rust: build every crate and target, clippy's lints as errors"
# Lints ride on the test build instead of a separate `cargo clippy`: clippy-driver wraps
# rustc for the workspace's own crates only, lints them while compiling them for the
# tests, and leaves the dependencies to plain rustc. A separate clippy would type-check
# every dependency a second time in check mode (13 of a cold run's 58 minutes) and share
# nothing with this build. Same lints, same coverage as `cargo clippy --workspace
# --all-targets -- -D warnings`; `cargo clippy` itself still works for a quick look.
if ! command -v clippy-driver >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1; then
  rustup component add clippy
fi
export RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
# Benches and examples are compiled (and linted) here, never run: a bench's main is a
# timed job, not a test.
cargo test --workspace --locked --all-targets --no-run --timings

echo "== Rust workspace (e2e in the real window, keys in a real Secret Service)"
export RAGNOSIS_E2E=required RAGNOSIS_KEYRING=required RAGNOSIS_MODEL=required
# gnome-keyring keeps its files under XDG dirs: point them at the throwaway place so the
# tests never touch a real keyring.
export XDG_DATA_HOME="$scratch/data" XDG_RUNTIME_DIR="$scratch/run"
mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
# Three lanes side by side, since cargo runs test binaries one after another and each
# lane alone leaves a core idle: the window's tests (the `shell` target: one at a time,
# mostly waiting for the window); the binaries that drive processes and servers (the
# CLI's, the judge layer's: much of their time is spent waiting on them); and the
# computing ones (core, the model, unit tests). Same package selection in every
# command, so the features (and the build) stay those of `cargo test --workspace`. The
# logs of the first two are printed after the third's. The reports' tests ride in the
# third lane: with the CLI's tests the second was the longest by a minute.
# `--no-fail-fast`: a failing binary does not skip the lane's others, so one run names
# every failure.
process_tests="cli judge_layer batch_api"
compute=$(cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
skip = {"shell", *sys.argv[1].split()}
targets = (t for p in json.load(sys.stdin)["packages"] for t in p["targets"])
print(" ".join("--test " + t["name"] for t in targets if "test" in t["kind"] and t["name"] not in skip))
' "$process_tests")
processes=$(printf -- '--test %s ' $process_tests)
export compute processes lane_logs="$scratch"
status=0
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash -c '
  echo -n ragnosis-test | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
  cargo test --workspace --locked --no-fail-fast --test shell >"$lane_logs/window.log" 2>&1 &
  window=$!
  cargo test --workspace --locked --no-fail-fast $processes >"$lane_logs/processes.log" 2>&1 &
  processes=$!
  status=0
  cargo test --workspace --locked --no-fail-fast --lib --bins $compute || status=$?
  cargo test --workspace --locked --doc || status=$?
  wait "$processes" || status=$?
  echo "== The CLI and the judge layer, run beside the above"
  cat "$lane_logs/processes.log"
  wait "$window" || status=$?
  echo "== The window (tests/shell.rs: IPC and e2e in the real window), run beside the above"
  cat "$lane_logs/window.log"
  exit "$status"
' || status=$?
wait "$ui" || status=$?
echo "== UI: type check and unit tests, run beside the above"
cat "$scratch/ui.log"
exit "$status"
