#!/usr/bin/env bash
# Builds the bare simdjson walk to WASM with the same flags as the Kinetoscope module.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NODE_PATH=/usr/share/nodejs
out=build/bench
mkdir -p $out
em++ -std=c++17 -O3 -fno-exceptions -ffp-contract=off -Ibuild/third_party/simdjson \
  bench/simdjson_walk/walk.cpp build/third_party/simdjson/simdjson.cpp \
  --bind -sMODULARIZE=1 -sEXPORT_NAME=createWalk -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 \
  -sMAXIMUM_MEMORY=4GB -sEXPORTED_FUNCTIONS=_malloc,_free -o $out/simdjson_walk.js
echo "built $out/simdjson_walk.js"
