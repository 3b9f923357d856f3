#!/usr/bin/env bash
# A full disk is an error: every command that writes a report, to a file (-o) or to standard
# output, exits 1 with one line on standard error when the write fails (/dev/full: every write
# fails with ENOSPC). They exited 0 with the report lost.
set -uo pipefail
cd "$(dirname "$0")/../.."
CLI=${KINETOSCOPE_CLI:-build/native/kinetoscope}
dir=build/cli-write-errors
mkdir -p "$dir"
trace=$dir/trace.json
cat >"$trace" <<'JSON'
{"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
 {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":50,"args":{"correlation":1,"stream":7,"device":0}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":100}
]}
JSON
sqlite=$dir/nsys/data_stall.sqlite  # a built export (tests/nsys/make_exports.py)
[ -f "$sqlite" ] || /usr/bin/python3 tests/nsys/make_exports.py "$dir/nsys" >/dev/null || exit 1
pass=0 fail=0
# check 'ARGS' REDIRECT: exit 1 and one line "kinetoscope: cannot write ...: No space left on device"
check() {
  local err status lines
  err=$(eval "$CLI $1" 2>&1 >/dev/full)
  status=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$status" = 1 ] && [ "$lines" = 1 ] && [[ $err == "kinetoscope: cannot write "*": No space left on device" ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: kinetoscope $1 (stdout /dev/full): exit $status, stderr: $err"
  fi
}
for out in "" "-o /dev/full"; do
  check "report $trace $out"
  check "report $trace --format json $out"
  check "diff $trace $trace $out"
  check "math $trace $out"
  check "critical-path --whole-trace $trace $out"
  check "stats $sqlite $out"
done
check "aggregate $trace --from-us 0 --to-us 200"
check "digest -o - $trace"
echo "CLI write errors: $pass passed, $fail failed"
[ "$fail" = 0 ]
