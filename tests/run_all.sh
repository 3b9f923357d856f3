#!/usr/bin/env bash
# Every test of the project, in one run (make test; CI's .ci/run). Each suite prints its own
# result; the last line counts the suites: "suites: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0 failed=0
suite() {  # suite NAME COMMAND...
  local name=$1; shift
  echo "=== $name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "=== $name FAILED"; fi
}
[ -d ../shared/traces ] || echo "NOTE: ../shared/traces is absent: corpus, golden and browser tests on real traces are skipped"
suite "unit and corpus tests (Catch2)" build/native/ks_tests
suite "WASM/CLI parity (node)" node tests/wasm/parity.cjs
suite "WASM out of memory: too_large, not a crash (node)" node tests/wasm/limits.cjs
# Nsight Systems exports through the page's path (importSqlite): the CLI's report, stats and errors.
suite "Nsight Systems exports, WASM/CLI parity (node)" bash -c '/usr/bin/python3 tests/nsys/make_exports.py build/nsys >/dev/null && node tests/wasm/nsys_parity.cjs'
suite "golden reports" bash tests/golden/check.sh
# The bad-input catalogue through the CLI: exact messages, and time/memory of the big inputs
# (generated into build/bad_inputs; docs/hardening.md).
suite "bad-input catalogue (CLI)" python3 tests/bad_inputs/check.py --cli build/native/kinetoscope
# Built Nsight Systems exports through the CLI: each bad file's one-line error, good ones' reports.
suite "Nsight Systems exports (CLI)" bash tests/nsys/check_cli.sh
# The whole Catch2 suite again under AddressSanitizer + UndefinedBehaviorSanitizer (build/sanitize):
# ~4 min of build and ~4 min of run on 2 cores (docs/hardening.md).
suite "sanitizers: ASan + UBSan Catch2 suite" make --no-print-directory test-sanitize
# The fleet on a Dask LocalCluster of 2 worker processes (fleet/, docs/fleet.md): Debian's python3,
# which has python3-distributed (scripts/setup.sh). ~1-2 min.
suite "fleet: digests on Dask, planted 64/512-rank jobs" /usr/bin/python3 tests/fleet/test_fleet.py
if [ -f examples/pathologies/check_generated.py ]; then
  suite "planted pathology traces" python3 examples/pathologies/check_generated.py
fi
if [ -f tests/browser/run.mjs ]; then
  suite "browser (headless chromium)" node tests/browser/run.mjs
fi
if [ -f tests/browser/ux.mjs ]; then
  # Issue 18 (the page as an expert's tool), in chromium and firefox-esr, at 1400x900.
  suite "page UX (chromium + firefox)" node tests/browser/ux.mjs
fi
if [ -f tests/browser/dist.mjs ]; then
  # Packs build/wasm as make dist would (KINETOSCOPE_DIST=dist tests make dist's own output).
  suite "dist: hosted sub-path, single file offline, links, embedding, exports" node tests/browser/dist.mjs
fi
echo "suites: $passed passed, $failed failed"
[ "$failed" = 0 ]
