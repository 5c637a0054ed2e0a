#!/bin/sh
# Correlator benchmarks on the device (H100): TCC's benchmark configurations and the specs in specs/.
# Usage (from the repository root, after building `warpforge` in BUILD):  sh generator/correlator/tools/bench.sh [BUILD] [REPS]
# Each `warpforge bench` line prints: the default plan (correlate + reduce, the katgpucbf model), the variants
# (the correlate kernel alone = TCC's part, and other tilings), the copy ceiling, and the family's notes with TOPS
# under TCC's op count 8 R^2/2 P^2 C T. TCC on this H100 (2026-11-23): 8-bit R=64 C=1024 T=4096 316 TOPS;
# R=80 262; R=576 C=64 T=3072 509; R=2048 C=16 T=2048 515; 16-bit R=576 290; 16-bit R=80 152; 4-bit R=576 38.8.
set -e
BUILD=${1:-build}
REPS=${2:-20}
for s in generator/correlator/tools/bench-specs/tcc_*.json specs/correlator_*.json; do
  echo "=== $s"
  "$BUILD/warpforge" bench "$s" --reps "$REPS" --batch 1 || echo "FAILED: $s"
done
