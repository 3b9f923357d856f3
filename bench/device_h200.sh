#!/usr/bin/env bash
# One short run on a lent GPU machine (16 cores, one H200; the device tool, docs/performance.md):
#   1. real Kineto captures of examples/capture/ on the GPU: a clean run and one per pathology
#      switch, torch.compile (Triton kernels, CUDA graphs) and a 4-rank gloo DDP job with a
#      straggler; tarred into $OUT/captures.tar.gz for examples/ and the tests.
#   2. the N-worker curve (issue #19): bench/split_native (the page's split read on N threads) on
#      two benchmark shapes at 1, 2, 4, 8 and 16 workers, into $OUT/split.jsonl.
# Prepared here, carried there: .dev/bin (split_native built for x86-64-v3 and the shared libraries
# it needs) and .dev/shared (the shape sources from ../shared). bench/device_prepare.sh makes both.
#   (device tool) bash bench/device_h200.sh [pathologies] [scale] [shapes] [split]  with carry [".dev"]
set -u
OUT=${OUT:-build/device_out}
mkdir -p "$OUT" /tmp/cap
LOG=$OUT/log.txt
exec > >(tee -a "$LOG") 2>&1
export PYTHONUNBUFFERED=1
START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }
echo "== machine: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))'

# What to run: any of pathologies (the switch captures, the DDP job), scale (a GPU-bound model,
# a 25-step and a 1-step capture), scale2 (that model with Python stacks, pageable batches, CUDA
# graphs), shapes (gpu_shapes.py's programs), mfu (the GPU-bound model with --record-shapes, whose FLOPs
# kinetoscope math counts), split (the N-worker curve). Default: pathologies split.
WHAT=${*:-pathologies split}
wants() { [[ " $WHAT " == *" $1 "* ]]; }

cap() {  # name, then gpu_nvtx.py flags
  local name=$1; shift
  if [ "$(elapsed)" -gt "${CAP_BUDGET_S:-270}" ]; then echo "== skip $name: over budget"; return; fi
  echo "== capture $name ($(elapsed) s)"
  timeout 100 python3 examples/capture/gpu_nvtx.py --out /tmp/cap --name "h200_$name" "$@" 2>&1 | tail -3
}

# Shapes are generated while the GPU captures run (different resources: CPU vs GPU).
MB=${SHAPE_MB:-400}
mkdir -p /tmp/shapes
if wants split; then
  (for s in resnet nccl; do
     python3 bench/shapes/make_shape.py --shape "$s" --target-mb "$MB" --out "/tmp/shapes/$s.json" \
       --shared .dev/shared >/tmp/shapes/$s.log 2>&1 || echo "shape $s failed"
   done; echo "== shapes done at $(elapsed) s") &
  SHAPES_PID=$!
fi

if wants pathologies; then
  cap clean
  cap item --item-per-step
  cap loader0 --dataloader-workers 0 --getitem-ms 2
  cap fp32 --fp32
  cap pageable --pageable
  cap nosched --no-schedule
  cap heavy --record-shapes --with-stack --profile-memory
  cap compile --compile
  cap cudagraph --compile reduce-overhead
  echo "== ddp 4 ranks gloo, rank 2 slow ($(elapsed) s)"
  timeout 90 python3 -m torch.distributed.run --standalone --nproc_per_node=4 \
    examples/capture/ddp_per_rank.py --out /tmp/cap/ddp4_gloo_slow2 --backend gloo --slow-rank 2 \
    --slow-ms 20 2>&1 | tail -3
fi
# GPU-bound: 8 layers of d_model 2048 over 64 x 512 tokens (the GEMMs outlast the launches).
BIG="--d-model 2048 --heads 16 --layers 8 --batch 64 --seq 512 --getitem-ms 0.1 --dataloader-workers 4"
if wants scale2; then
  cap big_stack $BIG --with-stack --record-shapes
  cap big_pageable $BIG --pageable
  cap big_cudagraph $BIG --compile reduce-overhead
fi
# Program shapes gpu_nvtx.py's loop lacks (examples/capture/gpu_shapes.py; session 22).
shape() {  # name, then gpu_shapes.py flags
  local name=$1; shift
  if [ "$(elapsed)" -gt "${CAP_BUDGET_S:-270}" ]; then echo "== skip $name: over budget"; return; fi
  echo "== capture $name ($(elapsed) s)"
  timeout 100 python3 examples/capture/gpu_shapes.py --out /tmp/cap --name "h200_$name" "$@" 2>&1 | tail -3
}
if wants shapes; then
  shape decode --shape decode
  shape decode_item --shape decode --item-per-step
  shape convnet --shape convnet
  shape convnet_shapes --shape convnet --record-shapes
  shape prefetch --shape prefetch
  shape nocache --shape nocache
  shape foreach_off --shape foreach_off
  shape lockstep --shape lockstep
  shape nosteps --shape nosteps
  shape long --shape long
fi
if wants mfu; then
  cap big_shapes $BIG --record-shapes
  cap big_shapes_fp32 $BIG --record-shapes --fp32
fi
if wants scale; then
  cap big $BIG
  cap big_item $BIG --item-per-step
  cap big_compile $BIG --compile
  cap long --no-schedule --steps 25
  cap one --no-schedule --steps 1
fi
ls -la /tmp/cap /tmp/cap/* 2>&1 | head -40
tar -C /tmp/cap -czf "$OUT/captures.tar.gz" .

if wants split; then
  wait "$SHAPES_PID"
  ls -la /tmp/shapes
  export LD_LIBRARY_PATH=.dev/bin
  for s in resnet nccl; do
    f=/tmp/shapes/$s.json
    [ -s "$f" ] || { echo "no $f"; continue; }
    for n in 1 2 4 8 16; do
      if [ "$(elapsed)" -gt "${SPLIT_BUDGET_S:-460}" ]; then echo "== skip split $s $n: over budget"; continue; fi
      echo "== split $s workers=$n ($(elapsed) s)"
      timeout 120 .dev/bin/split_native "$f" "$n" 3 | sed "s/^{/{\"shape\":\"$s\",/" | tee -a "$OUT/split.jsonl"
    done
  done
fi
echo "== done in $(elapsed) s"
