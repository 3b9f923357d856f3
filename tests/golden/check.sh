#!/usr/bin/env bash
# Golden reports: `kinetoscope report` (text) of fixed traces compared with approved files
# (`cmd=NAME` in traces.list runs `kinetoscope NAME` instead, e.g. critical-path).
# What is checked, per trace of traces.list:
#   - the CLI's exit status: 0, or the `exit=N` that traces.list gives (never approved by UPDATE);
#   - stdout, against reports/NAME.txt;
#   - stderr, kept apart: empty, or equal to reports/NAME.stderr when that file exists.
# A mismatch writes NAME.actual (and NAME.stderr.actual) beside the golden file and fails.
# UPDATE=1 approves the new output and prints the diff it approves (read it against the trace
# first). Traces from ../shared are skipped, visibly, when that folder is absent.
set -uo pipefail
cd "$(dirname "$0")/../.."
CLI=${KINETOSCOPE_CLI:-build/native/kinetoscope}
SHARED=${KS_SHARED_DIR:-../shared}/traces
NSYS=${KS_SHARED_DIR:-../shared}/nsys
GOLDEN=tests/golden/reports
pass=0 fail=0 skip=0 approved=0

lines() { [ -z "$1" ] || printf '%s\n' "$1"; }  # text as lines (none for an empty one)

# approve FILE CONTENT [keep]: writes CONTENT, printing the diff it approves; an empty CONTENT
# removes FILE unless `keep` (stdout's file always exists: an empty report is approved too).
approve() {
  local file=$1 content=$2 keep=${3:-}
  local old=""
  [ -f "$file" ] && old=$(cat "$file")
  if [ "$old" != "$content" ] || { [ -n "$keep" ] && [ ! -f "$file" ]; }; then
    echo "APPROVE $file:"
    diff -u --label "$file (approved before)" --label "$file (now)" <(lines "$old") <(lines "$content") | head -200
    approved=$((approved + 1))
  fi
  if [ -n "$content" ]; then
    printf '%s\n' "$content" >"$file"
  elif [ -n "$keep" ]; then
    : >"$file"
  else
    rm -f "$file"
  fi
}

check() {  # check NAME TRACE EXPECTED_EXIT COMMAND [extra CLI args...]
  local name=$1 trace=$2 want_rc=$3 command=$4; shift 4
  if [ ! -e "$trace" ]; then  # a trace, or a folder of ranks
    echo "SKIP golden $name: $trace is absent"; skip=$((skip + 1)); return
  fi
  local out err rc errfile
  errfile=$(mktemp)
  out=$("$CLI" "$command" "$trace" "$@" 2>"$errfile")
  rc=$?
  err=$(cat "$errfile")
  rm -f "$errfile"
  if [ "$rc" != "$want_rc" ]; then
    # A changed exit status is a failure even under UPDATE=1: it is no output to approve.
    echo "FAIL golden $name: \`kinetoscope $command $trace $*\` exited $rc, expected $want_rc"
    [ -z "$err" ] || printf '%s\n' "$err" | head -10 | sed 's/^/  stderr: /'
    fail=$((fail + 1)); return
  fi
  if [ "${UPDATE:-0}" = 1 ]; then
    approve "$GOLDEN/$name.txt" "$out" keep
    approve "$GOLDEN/$name.stderr" "$err"
    rm -f "$GOLDEN/$name.actual" "$GOLDEN/$name.stderr.actual"
    pass=$((pass + 1)); return
  fi
  local ok=1 want_err=""
  [ -f "$GOLDEN/$name.stderr" ] && want_err=$(cat "$GOLDEN/$name.stderr")
  if [ -f "$GOLDEN/$name.txt" ] && [ "$out" = "$(cat "$GOLDEN/$name.txt")" ]; then
    rm -f "$GOLDEN/$name.actual"
  else
    ok=0
    printf '%s\n' "$out" >"$GOLDEN/$name.actual"
    echo "FAIL golden $name: stdout differs from $GOLDEN/$name.txt (see $name.actual)"
    diff <(cat "$GOLDEN/$name.txt" 2>/dev/null) "$GOLDEN/$name.actual" | head -20
  fi
  if [ "$err" = "$want_err" ]; then
    rm -f "$GOLDEN/$name.stderr.actual"
  else
    ok=0
    printf '%s\n' "$err" >"$GOLDEN/$name.stderr.actual"
    echo "FAIL golden $name: stderr differs from $([ -f "$GOLDEN/$name.stderr" ] && echo "$GOLDEN/$name.stderr" || echo "nothing (no $name.stderr)") (see $name.stderr.actual)"
    diff <(lines "$want_err") <(lines "$err") | head -20
  fi
  if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

[ -x "$CLI" ] || { echo "golden: $CLI is missing: build it first (make native)"; exit 1; }
mkdir -p "$GOLDEN"
while read -r name file args; do
  [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
  case "$file" in
    shared:*) path="$SHARED/${file#shared:}" ;;
    nsys:*) path="$NSYS/${file#nsys:}" ;;
    *) path="$file" ;;
  esac
  want_rc=0
  case " $args " in  # exit=N: the exit status this trace must give (default 0)
    *" exit="*) want_rc=$(sed -E 's/.*(^| )exit=([0-9]+).*/\2/' <<<"$args"); args=$(sed -E 's/(^| )exit=[0-9]+//' <<<"$args") ;;
  esac
  command=report
  case " $args " in  # cmd=NAME: another subcommand than `report`
    *" cmd="*) command=$(sed -E 's/.*(^| )cmd=([a-z-]+).*/\2/' <<<"$args"); args=$(sed -E 's/(^| )cmd=[a-z-]+//' <<<"$args") ;;
  esac
  # shellcheck disable=SC2086
  check "$name" "$path" "$want_rc" "$command" $args
done < tests/golden/traces.list
echo "golden: $pass passed, $fail failed, $skip skipped$([ "${UPDATE:-0}" = 1 ] && echo ", $approved file(s) approved")"
[ "$fail" = 0 ]
