#!/usr/bin/env bash
# Every test of the project, in one run (make test; CI's .ci/run). Each suite prints its own
# result; the last line counts the suites: "suites: N passed, M failed".
# SUITES=REGEX runs only the suites whose name matches (e.g. SUITES='golden|parity').
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0 failed=0 failed_logs=()
# Each suite's output is also kept in build/test-logs/, so the end of the run can repeat where
# each failed suite failed: a CI log is often read from its tail only.
logs=build/test-logs
rm -rf "$logs" && mkdir -p "$logs"
suite() {  # suite NAME COMMAND...
  local name=$1; shift
  [ -z "${SUITES:-}" ] || [[ $name =~ $SUITES ]] || return 0
  echo "=== $name"
  local log="$logs/$((passed + failed + 1)).log"
  "$@" 2>&1 | tee "$log"
  if [ "${PIPESTATUS[0]}" = 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); failed_logs+=("$name|$log"); echo "=== $name FAILED"
  fi
}
# The failing checks of a failed suite: Catch2's "FAILED:" blocks (the case's name is above),
# node's "not ok"/"FAIL" lines, python's tracebacks and "failed" lines.
repeat_failures() {
  local entry name log
  for entry in "${failed_logs[@]}"; do
    name=${entry%%|*}; log=${entry#*|}
    echo "--- failed: $name (whole output: $log)"
    grep -E -B10 -A8 'FAILED:|^not ok|^FAIL|Traceback|^ *[0-9]+ failed|[1-9][0-9]* failed' "$log" | head -80
  done
}
# A suite whose file is missing fails (a renamed or deleted test file must not make its suite
# disappear from the count): every suite names the file it runs here.
needs() {  # needs FILE: false, with a message, when FILE is missing
  [ -e "$1" ] && return 0
  echo "missing: $1 (the suite's file is gone: restore it, or remove the suite from tests/run_all.sh)"
  return 1
}
run_file() {  # run_file FILE COMMAND...: COMMAND when FILE exists
  local file=$1; shift
  needs "$file" && "$@"
}
[ -d ../shared/traces ] || echo "NOTE: ../shared/traces is absent: corpus, golden and browser tests on real traces are skipped"
suite "unit and corpus tests (Catch2)" run_file build/native/ks_tests build/native/ks_tests
# Every tests/web/*.test.mjs in Node's test runner (the directory, so a new file cannot be left
# out: gunzip and prefault were): the timeline's parts (web/timeline/), the worker's File reads,
# gzip reader, prefault (with the WASM) and memory limits; no browser.
suite "web parts in Node: timeline, file chunks, gzip, prefault, limits, warm-up (node --test)" run_file tests/web/timeline_parts.test.mjs node --test tests/web/
# The worker's message protocol named once (web/worker/protocol.js), imports from the page to the
# worker, web/worker/ modules within size (no build needed).
suite "worker protocol and module sizes (node)" run_file tests/web/protocol.mjs node tests/web/protocol.mjs
suite "WASM/CLI parity (node)" run_file tests/wasm/parity.cjs node tests/wasm/parity.cjs
# The same with the scalar byte scanning (make wasm-scalar, KS_WASM_SIMD=OFF): the fallback of the
# SIMD128 scanning the page uses (src/import/chrome_json/byte_scan.h) gives the same reports.
suite "WASM/CLI parity, scalar byte scanning (node)" run_file tests/wasm/parity.cjs bash -c 'make --no-print-directory wasm-scalar >/dev/null && KINETOSCOPE_WASM_DIR=build/wasm-scalar node tests/wasm/parity.cjs'
suite "WASM out of memory: too_large, not a crash (node)" run_file tests/wasm/limits.cjs node tests/wasm/limits.cjs
# Nsight Systems exports through the page's path (importSqlite): the CLI's report, stats and errors.
suite "Nsight Systems exports, WASM/CLI parity (node)" run_file tests/wasm/nsys_parity.cjs bash -c '/usr/bin/python3 tests/nsys/make_exports.py build/nsys >/dev/null && node tests/wasm/nsys_parity.cjs'
# Real traces rewritten the ways real Kineto traces differ (number spelling, order, metadata, ids,
# B/E, flows, newer torch names, gzip members): the same findings and main numbers; and problems
# planted into real traces: the right finding, step and numbers (tests/corpus/). ~20 s of CPU.
suite "Kineto rewrites keep the report (metamorphic)" run_file tests/corpus/metamorphic.py /usr/bin/python3 tests/corpus/metamorphic.py --cli build/native/kinetoscope
suite "problems planted in real traces" run_file tests/corpus/planted.py /usr/bin/python3 tests/corpus/planted.py --cli build/native/kinetoscope
suite "problems planted in A100/MI300X/H100/8-rank traces" run_file tests/corpus/planted_shapes.py /usr/bin/python3 tests/corpus/planted_shapes.py --cli build/native/kinetoscope
suite "profiler options (shapes, stacks, memory, flops, CUPTI metrics) named, nothing else moved" run_file tests/corpus/profiler_options.py /usr/bin/python3 tests/corpus/profiler_options.py --cli build/native/kinetoscope
suite "one process driving 8 GPUs: one rank, per-device shares" run_file tests/corpus/one_process_gpus.py /usr/bin/python3 tests/corpus/one_process_gpus.py --cli build/native/kinetoscope
suite "two nodes' ranks merged on one GPU pid: split by launching process" run_file tests/corpus/merged_ranks.py /usr/bin/python3 tests/corpus/merged_ranks.py --cli build/native/kinetoscope
suite "Kineto ranks whose captures start steps apart: collectives compared over the shared step" run_file tests/corpus/late_capture_ranks.py /usr/bin/python3 tests/corpus/late_capture_ranks.py --cli build/native/kinetoscope
suite "parallel shapes (FSDP, DDP straggler, tensor/pipeline parallel, gradient accumulation) played out on DLRM ranks" run_file tests/corpus/dist_shapes.py /usr/bin/python3 tests/corpus/dist_shapes.py --cli build/native/kinetoscope
suite "inference shape: no steps, CUDA graph launches, launch_bound without graph kernels" run_file tests/corpus/inference_shape.py /usr/bin/python3 tests/corpus/inference_shape.py --cli build/native/kinetoscope
suite "events some Kineto versions write (CUPTI overhead, profiler ranges, newer categories) move nothing" run_file tests/corpus/kineto_versions.py /usr/bin/python3 tests/corpus/kineto_versions.py --cli build/native/kinetoscope
suite "unseen Kineto shapes (200+ steps with a periodic slow step, CPU/GPU clock skew, torch.compile via cuLaunchKernel)" run_file tests/corpus/unseen_shapes.py /usr/bin/python3 tests/corpus/unseen_shapes.py --cli build/native/kinetoscope
suite "unseen Kineto shapes, one planted problem each (allocator thrash, fp32 GEMMs on an A100, a growing KV cache, heavy flags on one step, an Intel XPU run)" run_file tests/corpus/unseen_shapes2.py /usr/bin/python3 tests/corpus/unseen_shapes2.py --cli build/native/kinetoscope
suite "golden reports" run_file tests/golden/check.sh bash tests/golden/check.sh
suite "golden math tables (kinetoscope math)" run_file tests/golden/math.sh bash tests/golden/math.sh
# Every command's bad options: exit 2 and the command's own message (src/cli/options.h).
suite "CLI usage errors" run_file tests/cli/usage.sh bash tests/cli/usage.sh
# A failed write (a full disk: /dev/full) is exit 1 and one line on standard error, for every
# command that writes, to -o FILE or to standard output.
suite "CLI write errors" run_file tests/cli/write_errors.sh bash tests/cli/write_errors.sh
# The bad-input catalogue through the CLI: exact messages, and time/memory of the big inputs
# (generated into build/bad_inputs; docs/hardening.md).
suite "bad-input catalogue (CLI)" run_file tests/bad_inputs/check.py python3 tests/bad_inputs/check.py --cli build/native/kinetoscope
# After the CLI catalogue, which writes the big inputs (generate.py --big) it also feeds the WASM.
suite "Bad-input catalogue in the WASM: the CLI's line, bounded memory (node)" run_file tests/wasm/hostile_memory.cjs node tests/wasm/hostile_memory.cjs
# Built Nsight Systems exports through the CLI: each bad file's one-line error, good ones' reports.
suite "Nsight Systems exports (CLI)" run_file tests/nsys/check_cli.sh bash tests/nsys/check_cli.sh
# Nsight Systems exports of workloads no converter of ours writes (JAX/XLA, a Megatron pipeline
# stage, a capture started mid-iteration, a CUDA-graph server): what each user must see. ~5 s.
suite "Nsight Systems exports of unseen workloads (JAX/XLA, Megatron pipeline, mid-step capture, vLLM graphs)" run_file tests/nsys/unseen_exports.py /usr/bin/python3 tests/nsys/unseen_exports.py --cli build/native/kinetoscope
# The real Kineto traces made into the nsys exports of the same runs (tests/nsys/from_kineto.py):
# both readers' reports agree but for what an export cannot hold (CPU ops). ~1 min; skipped, with
# a message, without ../shared/traces.
suite "Kineto traces and their nsys exports: both readers agree" run_file tests/nsys/kineto_parity.py /usr/bin/python3 tests/nsys/kineto_parity.py --cli build/native/kinetoscope
# The whole Catch2 suite again under AddressSanitizer + UndefinedBehaviorSanitizer (build/sanitize):
# ~4 min of build and ~4 min of run on 2 cores (docs/hardening.md).
suite "sanitizers: ASan + UBSan Catch2 suite" make --no-print-directory test-sanitize
# The fleet on a Dask LocalCluster of 2 worker processes (fleet/, docs/fleet.md): Debian's python3,
# which has python3-distributed (scripts/setup.sh). ~1-2 min.
suite "fleet: digests on Dask, planted 64/512-rank jobs" run_file tests/fleet/test_fleet.py /usr/bin/python3 tests/fleet/test_fleet.py
# make bench's trace shapes (bench/shapes/), each at ~2 MB read by the CLI, so the generators
# cannot rot (make bench itself is not part of make test). ~3 s of CPU.
suite "bench trace shapes (generators + CLI)" run_file tests/bench/check_shapes.py python3 tests/bench/check_shapes.py --cli build/native/kinetoscope
suite "planted pathology traces" run_file examples/pathologies/check_generated.py python3 examples/pathologies/check_generated.py
suite "browser (headless chromium)" run_file tests/browser/run.mjs node tests/browser/run.mjs
# Issue 18 (the page as an expert's tool), in chromium and firefox-esr, at 1400x900.
suite "page UX (chromium + firefox)" run_file tests/browser/ux.mjs node tests/browser/ux.mjs
# Packs build/wasm as make dist would (KINETOSCOPE_DIST=dist tests make dist's own output).
suite "dist: hosted sub-path, single file offline, links, embedding, exports" run_file tests/browser/dist.mjs node tests/browser/dist.mjs
[ "$failed" = 0 ] || repeat_failures
echo "suites: $passed passed, $failed failed"
[ "$failed" = 0 ]
