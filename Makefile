# Kinetoscope: the two commands of the README are `make demo` and `make test`.
# Everything missing is installed by scripts/setup.sh (Debian packages, simdjson sources, npm).
SHELL := /bin/bash
PORT ?= 8000
HOST ?= 127.0.0.1
NATIVE := build/native
WASM_BUILD := build/wasm-cmake
WASM_OUT := build/wasm
export NODE_PATH := /usr/share/nodejs
DEMO_TRACE := examples/demo/cpu_transformer.pt.trace.json.gz

.PHONY: all setup native wasm test test-native test-browser test-sanitize demo serve clean format

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

test: native wasm
	@bash tests/run_all.sh

test-native: native
	@$(NATIVE)/ks_tests

test-browser: native wasm
	@node tests/browser/run.mjs

test-sanitize: setup
	@cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKS_SANITIZE=ON >/dev/null
	@cmake --build build/sanitize
	@build/sanitize/ks_tests

demo: native wasm
	@echo "== kinetoscope report $(DEMO_TRACE)"
	@$(NATIVE)/kinetoscope report $(DEMO_TRACE) || true
	@node scripts/serve.mjs --port $(PORT) --host $(HOST) --root web --map /wasm=$(WASM_OUT) --map /examples=examples --open-path "/?url=examples/demo/cpu_transformer.pt.trace.json.gz"

serve: wasm
	@node scripts/serve.mjs --port $(PORT) --host $(HOST) --root web --map /wasm=$(WASM_OUT) --map /examples=examples

format:
	@clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf build dist
