#!/usr/bin/env bash
# Golden output of `kinetoscope math` (text and JSON) on real traces with shapes, compared with
# approved files in tests/golden/math/. A mismatch writes NAME.actual beside the golden file and
# fails; UPDATE=1 approves the new output (read the diff against the trace first). Skipped,
# visibly, when ../shared is absent.
set -uo pipefail
cd "$(dirname "$0")/../.."
CLI=${KINETOSCOPE_CLI:-build/native/kinetoscope}
SHARED=${KS_SHARED_DIR:-../shared}/traces
GOLDEN=tests/golden/math
pass=0 fail=0 skip=0

check() {  # check NAME TRACE FORMAT
  local name=$1 trace=$SHARED/$2 format=$3
  if [ ! -e "$trace" ]; then
    echo "SKIP math golden $name: $trace is absent"; skip=$((skip + 1)); return
  fi
  local out rc
  out=$("$CLI" math "$trace" --format "$format")
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL math golden $name: exit $rc"; fail=$((fail + 1)); return
  fi
  if [ -n "${UPDATE:-}" ]; then
    printf '%s\n' "$out" >"$GOLDEN/$name"
    echo "APPROVED $GOLDEN/$name"
  elif [ "$out" == "$(cat "$GOLDEN/$name" 2>/dev/null)" ]; then
    pass=$((pass + 1)); rm -f "$GOLDEN/$name.actual"
  else
    printf '%s\n' "$out" >"$GOLDEN/$name.actual"
    echo "FAIL math golden $name: differs (diff -u $GOLDEN/$name $GOLDEN/$name.actual)"
    fail=$((fail + 1))
  fi
}

check h100_bert_small.txt tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz text
check h100_bert_small.json tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz json
check v100_resnet50.txt kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz text
check mi300_resnet18.md tracelens__mi300__ddp_resnet18__train_resnet18.json.gz md
check no_shapes_a100.txt hta__benchmark_result_2869224_1695835535_trace.json.gz text

echo "math golden: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
