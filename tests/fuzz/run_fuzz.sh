#!/usr/bin/env bash
# Runs the libFuzzer targets for FUZZ_SECONDS each (make fuzz FUZZ_SECONDS=N): builds them with
# clang (fuzzer + address + undefined sanitizers) in FUZZ_BUILD, builds the seed corpus from
# ../shared/traces and the bad-input catalogue, fuzzes, and prints executions and crashes.
# A crash does not end the run: the input is saved under FUZZ_BUILD/artifacts/TARGET/ and fuzzing
# goes on for the time left; the script then exits 1. Keep each crash input as
# tests/fuzz/regressions/<name> once fixed.
#   FUZZ_SECONDS=60 FUZZ_BUILD=build/fuzz FUZZ_TARGETS="import_fuzzer chunked_fuzzer scan_fuzzer" run_fuzz.sh
# (scan_fuzzer: the byte scanning layer's SIMD functions against its scalar fallback.)
# (nsys_fuzzer, the Nsight Systems SQLite path, runs when named: FUZZ_TARGETS=nsys_fuzzer; so do
# demangle_fuzzer and gzip_fuzzer, the kernel-name demangler and the CLI's gzip reader.)
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
BUILD=${FUZZ_BUILD:-build/fuzz}
TARGETS=${FUZZ_TARGETS:-import_fuzzer chunked_fuzzer scan_fuzzer}
MAX_LEN=${FUZZ_MAX_LEN:-65536}

if ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz: libFuzzer is missing: installing clang and libclang-rt-14-dev"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends clang libclang-rt-14-dev >/dev/null || exit 1
fi
if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then  # FUZZ_SKIP_BUILD=1: reuse the build and the corpus
  # The sanitized core is a whole rebuild (~300 objects): through ccache where the machine has it
  # (CMake reads CMAKE_<LANG>_COMPILER_LAUNCHER from the environment); CMAKE_BUILD_PARALLEL_LEVEL
  # caps the jobs on a shared machine.
  if command -v ccache >/dev/null && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
    export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  fi
  CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKS_FUZZ=ON \
    -DKS_TESTS=OFF -DKS_MARCH_NATIVE=OFF >/dev/null || exit 1
  # Quiet unless it fails; then once more with the output shown.
  cmake --build "$BUILD" --target $TARGETS >/dev/null 2>&1 || cmake --build "$BUILD" --target $TARGETS || exit 1
  python3 tests/fuzz/make_corpus.py "$BUILD/corpus" || exit 1
  # Nsight Systems exports: the built ones, with small pages so they fit -max_len.
  /usr/bin/python3 tests/nsys/make_exports.py --seeds "$BUILD/corpus/nsys" >/dev/null || exit 1
fi
# A valid trace must pass first: otherwise every input "crashes" and the run finds nothing (seen
# when sources changed during the build: objects built against different headers; rebuild).
sane=$(mktemp)
printf '%s' '{"traceEvents":[{"ph":"X","name":"k","ts":1,"dur":2,"pid":1,"tid":1}]}' >"$sane"
for target in $TARGETS; do
  if ! "$BUILD/tests/fuzz/$target" "$sane" >/dev/null 2>&1; then
    echo "fuzz: $target fails on a valid trace: rebuild it (cmake --build $BUILD) before fuzzing"
    "$BUILD/tests/fuzz/$target" "$sane" 2>&1 | grep -m3 -E 'ERROR|runtime error'
    rm -f "$sane"
    exit 1
  fi
done
rm -f "$sane"

total_execs=0 total_crashes=0
for target in $TARGETS; do
  corpus=$BUILD/corpus/${target%_fuzzer}
  artifacts=$BUILD/artifacts/$target
  mkdir -p "$corpus" "$artifacts"
  rm -f "$BUILD/$target".*.log
  end=$((SECONDS + SECONDS_EACH))
  execs=0 crashes=0 runs=0 last_crash=
  while [ $SECONDS -lt $end ]; do
    left=$((end - SECONDS))
    log=$BUILD/$target.$runs.log
    dict=-dict=tests/fuzz/json.dict
    [ "$target" = nsys_fuzzer ] && dict=-use_value_profile=1  # SQLite bytes: no JSON dictionary
    "$BUILD/tests/fuzz/$target" "$corpus" "$dict" -max_len="$MAX_LEN" \
      -timeout=10 -rss_limit_mb=2560 -max_total_time="$left" -print_final_stats=1 \
      -artifact_prefix="$artifacts/" >"$log" 2>&1
    rc=$?
    n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    execs=$((execs + ${n:-0}))
    runs=$((runs + 1))
    if [ $rc -ne 0 ]; then
      unit=$(grep -m1 -o 'Test unit written to .*' "$log")
      echo "fuzz: $target: crash (exit $rc): $(grep -m1 -E 'ERROR|runtime error|deadly signal' "$log")"
      echo "      $unit"
      # The same input again (a seed that crashes): fuzzing this target finds nothing more.
      if [ -n "$unit" ] && [ "$unit" = "$last_crash" ]; then
        echo "fuzz: $target: the same input crashes every run: fix it first (stopping this target)"
        break
      fi
      crashes=$((crashes + 1))
      last_crash=$unit
    fi
  done
  echo "fuzz: $target: ${SECONDS_EACH}s, $execs executions, $crashes crashes, corpus $(ls "$corpus" | wc -l) inputs"
  total_execs=$((total_execs + execs))
  total_crashes=$((total_crashes + crashes))
done
echo "fuzz: total $total_execs executions, $total_crashes crashes (inputs under $BUILD/artifacts/)"
# A crash found is a failure of `make fuzz` (exit 1), not a line to be missed in the output.
[ "$total_crashes" = 0 ]
