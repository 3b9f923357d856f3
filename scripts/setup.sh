#!/usr/bin/env bash
# Installs what Kinetoscope needs to build and test, only what is missing, on Debian 12.
# Everything third-party comes from Debian packages or the npm registry into build/ and
# node_modules/: nothing is copied into the repository.
#   scripts/setup.sh            native + wasm + browser-test dependencies
#   SETUP_TORCH=1 scripts/setup.sh   also python3-torch (only for examples/capture)
set -euo pipefail
cd "$(dirname "$0")/.."

SIMDJSON_VERSION=3.0.1   # the same version for the native (libsimdjson-dev) and the WASM build
THIRD=build/third_party

need_pkgs=()
want() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || need_pkgs+=("$1"); }
# firefox-esr: the dist tests run the page in Firefox too (playwright-core drives it over WebDriver BiDi).
# libsqlite3-dev: Nsight Systems exports natively; tcl builds SQLite's amalgamation for the WASM build.
for p in g++ make cmake ninja-build pkg-config zlib1g-dev libsimdjson-dev libsqlite3-dev sqlite3 tcl catch2 emscripten chromium firefox-esr dpkg-dev nodejs cmark-gfm; do want "$p"; done
# The fleet (fleet/, docs/fleet.md): Dask's scheduler and workers, for Debian's python3.
want python3-distributed
# Debian's nodejs comes without npm (NodeSource's includes it).
command -v npm >/dev/null 2>&1 || want npm
[ "${SETUP_TORCH:-0}" = 1 ] && want python3-torch

SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_pkgs[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# Debian's source packages (apt-get source) need a deb-src entry.
ensure_deb_src() {
  if ! grep -rqs "^Types:.*deb-src" /etc/apt/sources.list.d/ && ! grep -qs "^deb-src" /etc/apt/sources.list; then
    $SUDO tee /etc/apt/sources.list.d/kinetoscope-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    $SUDO apt-get update -qq
  fi
}

# simdjson single-header sources for the WASM build, from Debian's source package (same version).
if [ ! -f "$THIRD/simdjson/simdjson.cpp" ]; then
  echo "setup: fetching simdjson $SIMDJSON_VERSION sources (Debian source package)"
  ensure_deb_src
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get source -qq --download-only "simdjson=$SIMDJSON_VERSION*" >/dev/null 2>&1 || apt-get source -qq --download-only simdjson >/dev/null)
  orig=$(ls "$tmp"/simdjson_*.orig.tar.* | head -1)
  mkdir -p "$THIRD/simdjson"
  tar -xf "$orig" -C "$tmp"
  src=$(find "$tmp" -maxdepth 2 -type d -name 'simdjson-*' | head -1)
  cp "$src/singleheader/simdjson.h" "$src/singleheader/simdjson.cpp" "$THIRD/simdjson/"
  rm -rf "$tmp"
fi

# SQLite's amalgamation for the WASM build (the page reads Nsight Systems exports with it): the
# version of Debian's libsqlite3-dev (the CLI's), from Debian's source package with Debian's patches
# applied (dpkg-source -x), built with `./configure && make sqlite3.c` (needs tcl).
if [ ! -f "$THIRD/sqlite/sqlite3.c" ]; then
  sqlite_version=$(dpkg-query -W -f='${Version}' libsqlite3-dev)
  echo "setup: building SQLite $sqlite_version amalgamation (Debian source package)"
  ensure_deb_src
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get source -qq --download-only "sqlite3=$sqlite_version" >/dev/null 2>&1)
  (cd "$tmp" && dpkg-source -x ./sqlite3_*.dsc src >/dev/null 2>&1)  # apt checked the files; no keyring for the .dsc
  (cd "$tmp/src" && ./configure >/dev/null && make sqlite3.c >/dev/null)
  mkdir -p "$THIRD/sqlite"
  cp "$tmp/src/sqlite3.c" "$tmp/src/sqlite3.h" "$THIRD/sqlite/"
  rm -rf "$tmp"
fi

# npm packages for the browser tests (playwright-core drives Debian's chromium; no browser download).
if [ ! -d node_modules/playwright-core ]; then
  echo "setup: installing npm packages"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --silent >/dev/null
fi
echo "setup: ok"
