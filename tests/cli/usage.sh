#!/usr/bin/env bash
# Every command's bad options (src/cli/options.h, one parser for all): exit status 2, nothing on
# stdout, and the command's own first line of stderr, as each command has always said it (and
# the second line, where to read the usage, for the commands that print one).
set -uo pipefail
cd "$(dirname "$0")/../.."
CLI=${KINETOSCOPE_CLI:-build/native/kinetoscope}
pass=0 fail=0
# check 'ARGS' 'FIRST LINE OF STDERR' ['SECOND LINE']
check() {
  local out err status
  err=$(eval "$CLI $1" 2>&1 >/dev/null)
  status=$?
  out=$(eval "$CLI $1" 2>/dev/null)
  local first=${err%%$'\n'*} second
  second=$(printf '%s\n' "$err" | sed -n 2p)
  if [ "$status" = 2 ] && [ -z "$out" ] && [ "$first" = "$2" ] && [ "$second" = "${3:-$second}" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: kinetoscope $1: exit $status, stderr: $err (want: $2 ${3:-})"
  fi
}
check 'report x.json -o' "kinetoscope: -o needs a file name"
check 'report -f' "kinetoscope: --format needs a value"
check 'report --bogus x.json' "kinetoscope: unknown option '--bogus'"
check 'report --step-range= x.json' "kinetoscope: --step-range needs a name"
check 'report --align=foo x.json' "kinetoscope: unknown alignment 'foo' (step or global-min)"
check 'report --format=xml x.json' "kinetoscope: unknown format 'xml' (text, md or json)"
check 'diff -o' "kinetoscope: -o needs a file name"
check 'diff --nope' "kinetoscope: unknown option '--nope'"
check 'math --step-range' "kinetoscope math: --step-range needs a name"
check 'math --format=' "kinetoscope math: unknown format '' (text, md or json)"
check 'math a b' "kinetoscope math: math takes one trace file"
check 'stats -r' "kinetoscope stats: -r needs a report name"
check 'stats --format' "kinetoscope stats: --format needs a value"
check 'stats --zz' "kinetoscope stats: unknown option '--zz'"
check 'stats x.sqlite --timeunit hours' "kinetoscope stats: unknown time unit 'hours' (nsec, usec, msec or sec)"
check 'stats x.sqlite --timeunit' "kinetoscope stats: --timeunit needs a unit"
check 'stats x.sqlite -r osrt_sum:base' "kinetoscope stats: report 'osrt_sum:base': unknown argument 'base' (osrt_sum takes none)"
check 'stats x.sqlite --report=nvtx_sum,cuda_gpu_trace:base:mangled' "kinetoscope stats: report 'cuda_gpu_trace:base:mangled': base and mangled exclude each other"
check 'critical-path --instance' "kinetoscope critical-path: --instance needs a number"
check 'critical-path --instance -3 x' "kinetoscope critical-path: --instance takes a number >= 0"
check 'critical-path --format' "kinetoscope critical-path: --format needs text, md or json"
check 'critical-path -o' "kinetoscope critical-path: -o needs a file"
check 'digest -o' "kinetoscope digest: -o needs a folder (or - for standard output)"
check 'digest --zz' "kinetoscope digest: unknown option '--zz'"
check 'aggregate --tracks' "kinetoscope aggregate: --tracks needs a value"
check 'aggregate --from-us abc' "kinetoscope aggregate: not a number: abc"
check 'aggregate --from-us 1e20' "kinetoscope aggregate: out of range: 1e20 (times are within +-4e15 us)"
check 'aggregate --from-us nan' "kinetoscope aggregate: not a number: nan"
check 'critical-path --instance 99999999999999999999 x' "kinetoscope critical-path: --instance out of range: 99999999999999999999"
check 'aggregate a b' "kinetoscope aggregate: one trace at a time"
check 'aggregate x.json --tracks 4294967296' "kinetoscope aggregate: --tracks: id out of range: 4294967296 (at most 4294967295)"
check 'aggregate x.json --tracks 18446744073709551616' "kinetoscope aggregate: --tracks: id out of range: 18446744073709551616 (at most 4294967295)"
check 'aggregate x.json --tracks -1' "kinetoscope aggregate: --tracks: not an id: '-1' (ids are numbers >= 0)"
check 'aggregate x.json --tracks 1x' "kinetoscope aggregate: --tracks: not an id: '1x' (ids are numbers >= 0)"
check 'aggregate x.json --tracks 1,,2' "kinetoscope aggregate: --tracks: not an id: '' (ids are numbers >= 0)"
check 'report --zz' "kinetoscope: unknown option '--zz'" "(see kinetoscope --help)"
check 'diff --zz' "kinetoscope: unknown option '--zz'" "(see kinetoscope --help)"
check 'math --zz' "kinetoscope math: unknown option '--zz'" "(see kinetoscope math --help)"
check 'stats --zz' "kinetoscope stats: unknown option '--zz'" "(see kinetoscope stats --help)"
check 'critical-path --zz' "kinetoscope critical-path: unknown option '--zz'" \
  "(see kinetoscope critical-path --help)"
check 'digest --zz' "kinetoscope digest: unknown option '--zz'" "(see kinetoscope digest --help)"
echo "CLI usage errors: $pass passed, $fail failed"
[ "$fail" = 0 ]
