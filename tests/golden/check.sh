#!/usr/bin/env bash
# Golden reports: `kinetoscope report` (text) of fixed traces compared with approved files.
# A mismatch writes NAME.actual beside the golden file and fails; UPDATE=1 approves the new
# output (read it against the trace first). Traces from ../shared are skipped, visibly, when
# that folder is absent.
set -uo pipefail
cd "$(dirname "$0")/../.."
CLI=${KINETOSCOPE_CLI:-build/native/kinetoscope}
SHARED=${KS_SHARED_DIR:-../shared}/traces
NSYS=${KS_SHARED_DIR:-../shared}/nsys
GOLDEN=tests/golden/reports
pass=0 fail=0 skip=0

check() {  # check NAME TRACE [extra CLI args...]
  local name=$1 trace=$2; shift 2
  if [ ! -e "$trace" ]; then  # a trace, or a folder of ranks
    echo "SKIP golden $name: $trace is absent"; skip=$((skip + 1)); return
  fi
  local out
  out=$("$CLI" report "$trace" "$@" 2>&1)
  if [ "${UPDATE:-0}" = 1 ]; then
    printf '%s\n' "$out" > "$GOLDEN/$name.txt"; pass=$((pass + 1)); return
  fi
  if [ -f "$GOLDEN/$name.txt" ] && [ "$out" = "$(cat "$GOLDEN/$name.txt")" ]; then
    rm -f "$GOLDEN/$name.actual"; pass=$((pass + 1))
  else
    printf '%s\n' "$out" > "$GOLDEN/$name.actual"
    echo "FAIL golden $name: output differs from $GOLDEN/$name.txt (see $name.actual)"
    diff <(cat "$GOLDEN/$name.txt" 2>/dev/null) "$GOLDEN/$name.actual" | head -20
    fail=$((fail + 1))
  fi
}

mkdir -p "$GOLDEN"
while read -r name file args; do
  [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
  case "$file" in
    shared:*) path="$SHARED/${file#shared:}" ;;
    nsys:*) path="$NSYS/${file#nsys:}" ;;
    *) path="$file" ;;
  esac
  # shellcheck disable=SC2086
  check "$name" "$path" $args
done < tests/golden/traces.list
echo "golden: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
