#!/usr/bin/env bash
# Tunes the cases of GpuStockham.BenchAgainstCufft one by one with
# `warpforge bench --tune` (2^25 points per call, medians of $REPS), which
# prints every candidate's time and geometry, the winner as spec JSON, and the
# winner checked against FFTW and timed against cuFFT.
# Usage: generator/stockham/tools/tune.sh [case ...]   case = transform:precision:length, e.g. c2c:f16:1024
# (default: all 32 cases of the bench). WARPFORGE=path/to/warpforge.
set -uo pipefail
wf=${WARPFORGE:-build/warpforge}
dir=$(mktemp -d)
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for p in f32 f16; do
    for n in 64 128 256 512 1024 2048 4096 8192 16384 1000 2187 3125 2401 1331; do cases+=("c2c:$p:$n"); done
  done
  for n in 128 512 2048 8192; do cases+=("r2c:f32:$n"); done
fi
for c in "${cases[@]}"; do
  IFS=: read -r t p n <<<"$c"
  f=$dir/${t}_${p}_$n.json
  printf '{"name": "tune_%s_%s_%s", "family": "stockham", "precision": "%s", "transform": "%s", "length": %s}\n' "$t" "$p" "$n" "$p" "$t" "$n" >"$f"
  echo "== $c"
  "$wf" bench "$f" --tune --batch $(((1 << 25) / n)) --reps "${REPS:-9}" || echo "FAILED: $c"
done
