# Kinetoscope: the two commands of the README are `make demo` and `make test`.
# Everything missing is installed by scripts/setup.sh (Debian packages, simdjson sources, npm).
SHELL := /bin/bash
PORT ?= 8000
HOST ?= 127.0.0.1
NATIVE := build/native
WASM_BUILD := build/wasm-cmake
WASM_OUT := build/wasm
export NODE_PATH := /usr/share/nodejs
DEMO_TRACE := examples/demo/h200_dataloader_stall.pt.trace.json.gz
# make dist: the static site and the single-file page (docs/sharing.md). Its WASM stays at -O3:
# -Os/-Oz save 27% of the gzipped download but parse 2.5-3x slower (measured in docs/sharing.md).
DIST_WASM := build/dist-wasm
DIST_WASM_OPT ?= -O3
# make test-sanitize / make fuzz (docs/hardening.md): build folders and fuzzing time per target.
SANITIZE_BUILD ?= build/sanitize
FUZZ_BUILD ?= build/fuzz
FUZZ_SECONDS ?= 60

.PHONY: all setup native wasm wasm-scalar test test-native test-browser test-sanitize fuzz demo serve bench bench-real bench-timeline clean format dist test-dist serve-dist

all: native wasm

setup:
	@bash scripts/setup.sh

native: setup
	@cmake -S . -B $(NATIVE) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(NATIVE)

wasm: setup
	@emcmake cmake -S . -B $(WASM_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(WASM_BUILD)
	@mkdir -p $(WASM_OUT)
	@cp $(WASM_BUILD)/wasm/kinetoscope_wasm.js $(WASM_BUILD)/wasm/kinetoscope_wasm.wasm $(WASM_OUT)/
	@node scripts/stamp_wasm.mjs $(WASM_OUT)

# The scalar fallback of the byte scanning (KS_WASM_SIMD=OFF: no -msimd128), for the parity test
# (tests/run_all.sh) and for browsers without WebAssembly SIMD; not what the page loads.
wasm-scalar: setup
	@emcmake cmake -S . -B build/wasm-scalar-cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -DKS_WASM_SIMD=OFF >/dev/null
	@cmake --build build/wasm-scalar-cmake
	@mkdir -p build/wasm-scalar
	@cp build/wasm-scalar-cmake/wasm/kinetoscope_wasm.js build/wasm-scalar-cmake/wasm/kinetoscope_wasm.wasm build/wasm-scalar/
	@node scripts/stamp_wasm.mjs build/wasm-scalar

test: native wasm
	@bash tests/run_all.sh

test-native: native
	@$(NATIVE)/ks_tests

test-browser: native wasm
	@node tests/browser/run.mjs

test-sanitize: setup
	@cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKS_SANITIZE=ON >/dev/null
	@cmake --build $(SANITIZE_BUILD)
	@UBSAN_OPTIONS=print_stacktrace=1 $(SANITIZE_BUILD)/ks_tests

# libFuzzer (clang) on the import entry and the chunked path, FUZZ_SECONDS per target; prints the
# executions and crashes. Crash inputs land in $(FUZZ_BUILD)/artifacts/ (keep each, once fixed, in
# tests/fuzz/regressions/).
fuzz: setup
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUILD=$(FUZZ_BUILD) bash tests/fuzz/run_fuzz.sh

# A failing report stops make demo with the CLI's message and exit status (no page after a broken run).
demo: native wasm
	@echo "== kinetoscope report $(DEMO_TRACE)"
	@$(NATIVE)/kinetoscope report $(DEMO_TRACE)
	@node scripts/serve.mjs --port $(PORT) --host $(HOST) --root web --map /wasm=$(WASM_OUT) --map /examples=examples --open-path "/?url=$(DEMO_TRACE)"

# make bench (issue #19): the five trace shapes of bench/shapes/ at 200 MB and 1 GB through the CLI,
# WASM in Node, the page cold and warm and the peers, interleaved, with a reference workload
# (bench/run_shapes.py; SIZES=200 REPS=3 SHAPES="resnet amd" PEERS=0 override). ~5 GB in /tmp.
bench: native wasm
	@python3 bench/run_shapes.py

# The earlier ingest benchmark: two real files, ResNet-50 repeated and a gzip file (bench/run.sh).
bench-real: native wasm
	@bash bench/run.sh

# The timeline under load (bench/timeline/run.mjs; results in docs/performance.md): a 2M-event trace,
# 10 s of scripted pan and zoom in headless Chromium.
bench-timeline: native wasm
	@KINETOSCOPE_WASM_DIR=$(WASM_OUT) node bench/timeline/run.mjs --cpu-time
	@g++ -std=c++17 -O2 -march=native -Isrc bench/timeline/lod_native.cpp $(NATIVE)/libks_core.a -lsimdjson -lz -o build/bench/lod_native
	@build/bench/lod_native build/bench/timeline_2m.json

serve: wasm
	@node scripts/serve.mjs --port $(PORT) --host $(HOST) --root web --map /wasm=$(WASM_OUT) --map /examples=examples

dist: setup
	@emcmake cmake -S . -B $(DIST_WASM) -G Ninja -DCMAKE_BUILD_TYPE=Release -DKS_WASM_OPT=$(DIST_WASM_OPT) >/dev/null
	@cmake --build $(DIST_WASM)
	@node scripts/dist.mjs --wasm $(DIST_WASM)/wasm --out dist

# The browser tests of dist/ (sub-path, file:// offline, deep links, postMessage, exports).
test-dist: dist native
	@KINETOSCOPE_DIST=dist node tests/browser/dist.mjs

# dist/ as a team would host it, under a sub-path.
serve-dist: dist
	@node scripts/serve.mjs --port $(PORT) --host $(HOST) --root dist --map /kinetoscope=dist --open-path /kinetoscope/

format:
	@clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf build dist
