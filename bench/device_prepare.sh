#!/usr/bin/env bash
# Builds what bench/device_h200.sh carries to a lent GPU machine, into .dev/ (ignored by git):
# .dev/bin/split_native for any x86-64 with AVX2 (the machine there is not this one: no
# -march=native) with the shared libraries it links beside it, and .dev/shared with the sources
# of the benchmark shapes it generates (bench/shapes/make_shape.py; KS_SHARED_DIR, default
# ../shared).
set -eu
cd "$(dirname "$0")/.."
SHARED=${KS_SHARED_DIR:-../shared}
cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DKS_MARCH_NATIVE=OFF \
  -DKS_TESTS=OFF -DCMAKE_CXX_FLAGS="-march=x86-64-v3" >/dev/null
cmake --build build/device --target ks_core >/dev/null
mkdir -p .dev/bin .dev/shared/traces .dev/shared/peers
g++ -std=c++17 -O2 -march=x86-64-v3 -pthread -Isrc bench/split_native.cpp \
  build/device/libks_core.a -lsimdjson -lz -lsqlite3 -static-libstdc++ -static-libgcc \
  -o .dev/bin/split_native
# the libraries that a stock Ubuntu/Debian may lack (simdjson); libc, libz, libsqlite3 are there
for lib in $(ldd .dev/bin/split_native | awk '/simdjson/ {print $3}'); do cp -L "$lib" .dev/bin/; done
python3 - "$SHARED" <<'PY'
import os, shutil, sys
sys.path.insert(0, "bench/shapes")
import make_shape
for shape in ("resnet", "nccl"):
    src = make_shape.source_path(sys.argv[1], shape)
    dst = os.path.join(".dev/shared", os.path.relpath(src, sys.argv[1]))
    shutil.copy(src, dst)
PY
du -sh .dev
