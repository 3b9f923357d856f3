#!/usr/bin/env bash
# The ingest benchmark (make bench; not part of make test). On the same files, in one run:
# Kinetoscope natively (the CLI), its WASM build in Node, the real page in headless Chromium,
# the bare simdjson walk in WASM (the ceiling), and the peers from ../shared/peers (Chrome
# DevTools' trace engine in Node; speedscope in Chromium, on the smaller files only: it takes
# minutes at 200 MB). Prints a Markdown table of MB/s, peak memory and Kinetoscope's ratio to
# each; raw results in build/bench/results.jsonl.
#   bench/run.sh                 real traces + real-derived 200 MB and 1 GB
#   SIZES="200 1024 2048 4096" bench/run.sh   also the 2 GB and 4 GB ones (disk: ~7 GB in /tmp)
#   PEERS=0 bench/run.sh         skip the peers
#   NSYS_MB=400 bench/run.sh     also an Nsight Systems export of that size (page and CLI)
set -uo pipefail
cd "$(dirname "$0")/.."
SHARED=${KS_SHARED_DIR:-../shared}
OUT=build/bench
DATA=${BENCH_DATA:-/tmp/kinetoscope-bench}
SIZES=${SIZES:-200 1024}
mkdir -p "$OUT" "$DATA"
RESULTS=$OUT/results.jsonl
: > "$RESULTS"

bash bench/simdjson_walk/build.sh >/dev/null
SOURCE=$SHARED/traces/kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz
files=()
for f in hta__mtia_rank_0.json.gz tracelens__xdit_flux.1__capture_trace_rank_0.json.gz; do
  [ -f "$SHARED/traces/$f" ] || continue
  plain=$DATA/${f%.gz}
  [ -f "$plain" ] || gunzip -c "$SHARED/traces/$f" > "$plain"
  files+=("$plain")
done
for mb in $SIZES; do
  f=$DATA/resnet50_x_${mb}mb.json
  [ -f "$f" ] || python3 bench/make_big_trace.py "$SOURCE" "$f" --target-mb "$mb" >&2
  files+=("$f")
done
# One gzip file too: the page decompresses with DecompressionStream.
[ -f "$DATA/resnet50_x_200mb.json.gz" ] || gzip -1 -c "$DATA/resnet50_x_200mb.json" > "$DATA/resnet50_x_200mb.json.gz"
files+=("$DATA/resnet50_x_200mb.json.gz")

row() { python3 -c 'import json,sys; d=json.loads(sys.argv[1]); d["tool"]=sys.argv[2]; print(json.dumps(d))' "$1" "$2" >> "$RESULTS"; }
# The peers print one pretty-printed JSON object (several lines), after any log lines.
peer_json() { python3 -c 'import json,sys; t=sys.stdin.read(); print(json.dumps(json.loads(t[t.index("{"):])))'; }
for f in "${files[@]}"; do
  echo "== $(basename "$f")" >&2
  # native CLI: wall time and peak RSS of the whole report
  t=$( { /usr/bin/time -f '%e %M' build/native/kinetoscope report --format json "$f" > /dev/null; } 2>&1 | tail -1)
  bytes=$(python3 -c 'import gzip,sys; f=sys.argv[1]; print(sum(len(c) for c in iter(lambda h=(gzip.open(f) if f.endswith(".gz") else open(f,"rb")): h.read(1<<24), b"")))' "$f")
  row "{\"file\":\"$(basename "$f")\",\"json_bytes\":$bytes,\"seconds\":${t% *},\"peak_rss_kb\":${t#* }}" native_cli
  row "$(node --max-old-space-size=8192 bench/ingest_node.cjs "$f")" wasm_node
  page=$(node bench/ingest_browser.mjs "$f")
  row "$page" chromium_page
  row "$page" chromium_page_clock
  row "$(node bench/ingest_browser.mjs "$f" --warm)" chromium_page_warm
  if [ "${PEERS:-1}" = 1 ] && [ -d "$SHARED/peers" ]; then
    size=$(stat -c %s "$f")
    if [[ "$f" != *.gz ]] && [ "$size" -lt 600000000 ]; then
      row "$(bash "$SHARED/peers/peer_trace_engine.sh" "$f" 2>/dev/null | peer_json)" devtools_trace_engine
    fi
    if [[ "$f" != *.gz ]] && [ "$size" -lt 120000000 ]; then
      row "$(bash "$SHARED/peers/peer_speedscope.sh" "$f" --sanitize 2>/dev/null | peer_json)" speedscope
    fi
  fi
done
python3 bench/summarize.py "$RESULTS"
# Nsight Systems exports (NSYS_MB=400 bench/run.sh): the real export's rows repeated to NSYS_MB,
# read by the page (time to report, to stats, memory, File reads) and the CLI; one JSON line each,
# also in build/bench/nsys.jsonl (docs/performance.md, "Nsight Systems exports").
if [ -n "${NSYS_MB:-}" ]; then
  f=build/bench/nsys_${NSYS_MB}mb.sqlite
  /usr/bin/python3 bench/make_big_nsys.py --mb "$NSYS_MB" --out "$f" >&2
  node bench/nsys_browser.mjs "$f" | tee build/bench/nsys.jsonl
fi
