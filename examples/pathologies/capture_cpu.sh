#!/usr/bin/env bash
# Regenerates the real CPU captures: examples/demo/cpu_transformer.pt.trace.json.gz and
# examples/pathologies/cpu/*.pt.trace.json.gz, with examples/capture/cpu_transformer.py.
#   bash examples/pathologies/capture_cpu.sh
#   PYTHON=<an interpreter where "import torch" works> bash examples/pathologies/capture_cpu.sh
# Needs torch (Debian: SETUP_TORCH=1 bash scripts/setup.sh). About a minute on 2 cores.
# Timings are real measurements, so every run gives slightly different numbers; afterwards
# python3 examples/pathologies/check_generated.py re-checks the planted facts.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
CAP=examples/capture/cpu_transformer.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# capture DEST NAME [flags...]: one run, renamed to DEST/NAME.pt.trace.json.gz
capture() {
  local dest=$1 name=$2
  shift 2
  echo "== $name $*"
  "$PY" "$CAP" --out "$tmp/$name" --name "$name" "$@"
  mkdir -p "$dest"
  mv "$tmp/$name"/"$name".*.pt.trace.json.gz "$dest/$name.pt.trace.json.gz"
}

capture examples/demo cpu_transformer
P=examples/pathologies/cpu
capture $P cpu_clean
capture $P cpu_dataloader_no_workers --dataloader-workers 0
capture $P cpu_item_per_step --item-per-step
capture $P cpu_warmup_captured --no-schedule
capture $P cpu_heavy_flags --record-shapes --with-stack --profile-memory
ls -l examples/demo/*.gz $P/*.gz
