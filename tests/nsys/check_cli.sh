#!/usr/bin/env bash
# The CLI on the built Nsight Systems exports (tests/nsys/make_exports.py -> build/nsys-cli/):
# each bad file exits 1 with one stderr line naming its error code; each good one exits 0, and
# the four rank exports make a multi-rank report naming rank 2 the straggler.
#   KINETOSCOPE_CLI=build/sanitize/kinetoscope bash tests/nsys/check_cli.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
CLI=${KINETOSCOPE_CLI:-build/native/kinetoscope}
DIR=build/nsys-cli
/usr/bin/python3 tests/nsys/make_exports.py "$DIR" >/dev/null || exit 1
pass=0 fail=0
bad() {  # bad FILE CODE
  local err rc lines
  err=$("$CLI" report "$DIR/$1" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | wc -l)
  if [ "$rc" = 1 ] && [ "$lines" = 1 ] && [[ "$err" == "kinetoscope: $DIR/$1: $2 at byte "* ]]; then
    pass=$((pass + 1))
  else
    echo "FAIL $1: exit $rc, $lines lines, expected $2: $err"; fail=$((fail + 1))
  fi
}
good() {  # good FILE... [grep pattern last]
  local pattern=${!#} out rc
  out=$("$CLI" report "${@:1:$#-1}" 2>&1); rc=$?
  if [ "$rc" = 0 ] && grep -q -- "$pattern" <<<"$out"; then
    pass=$((pass + 1))
  else
    echo "FAIL ${*:1:$#-1}: exit $rc, no '$pattern' in the report"; fail=$((fail + 1))
  fi
}
bad empty_capture.sqlite no_cuda_trace
bad not_an_export.sqlite not_nsys_export
bad not_sqlite.sqlite not_sqlite
bad damaged_truncated.sqlite damaged_database
bad damaged_garbage.sqlite damaged_database
good "$DIR/training_steps.sqlite" "Steps (6)"
good "$DIR/view_named_kernel.sqlite" "nsys_object_ignored"
good "$DIR/old_schema.sqlite" "nsys_column_missing"
good "$DIR/process_start.sqlite" "capture.warmup_ops"
good "$DIR"/trace_rank{0,1,2,3}.sqlite "Rank 2 is the straggler"
echo "nsys CLI: $pass passed, $fail failed"
[ "$fail" = 0 ]
