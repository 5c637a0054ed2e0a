#!/usr/bin/env bash
# The correlator on a GPU machine, in one call (logs under $OUT, a short summary on stdout):
#   build  the CLI and gpu_correlator_tests into $WF_BUILD_DIR (scripts/device-check's recipe: .deps/*.deb unpacked into a
#          sysroot); WF_NO_BUILD=1 reuses it
#   tests  gpu_correlator_tests (WF_TESTS: a gtest filter, default all)
#   tcc    `warpforge bench` (correlate kernel alone, TCC's op count) and ASTRON's TCC (tcc_bench.py, best of 32/48/64
#          receivers per block) on TCC's seven configurations (WF_CONFIGS: "bits R C T;..." instead), one after the other
#   random (WF_RANDOM=N) N random 2-pol shapes (seed WF_SEED) the same way
#   sweep  (WF_SWEEP=N) `warpforge bench --sweep correlator --cases N` (full plan against cuBLAS)
# TCC's script is found at $TCC (default ./tcc-anchor/tcc_bench.py); it is only measured against.
# WF_DEADLINE (seconds since the start): no shape starts after it (the call returns with what it has).
# Usage (repository root): OUT=/tmp/out bash generator/correlator/tools/device-bench.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/wf-out}
TCC=${TCC:-tcc-anchor/tcc_bench.py}
mkdir -p "$OUT"
# The build lives outside the checkout (a machine that stays warm keeps it between calls that carry the tree again).
B=${WF_BUILD_DIR:-/tmp/wf-build-correlator}
if [ -z "${WF_NO_BUILD:-}" ]; then
  sysroot=/tmp/wf-sysroot
  mkdir -p $sysroot
  for d in .deps/*.deb; do dpkg -x "$d" $sysroot; done
  export PATH=/usr/local/cuda/bin:$PATH
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DWARPFORGE_ASAN_FUZZ=OFF -DCMAKE_PREFIX_PATH=$sysroot/usr \
    -DFFTW3_INCLUDE_DIR=$sysroot/usr/include -DFFTW3_LIBRARY=$sysroot/usr/lib/x86_64-linux-gnu/libfftw3.a > "$OUT/cmake.log" 2>&1 || { tail -20 "$OUT/cmake.log"; exit 1; }
  cmake --build "$B" -j16 --target warpforge --target gpu_correlator_tests > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -30; exit 1; }
fi
export WARPFORGE_CACHE_DIR=/tmp/wf-cache
wf=$B/warpforge
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
if [ -z "${WF_NO_TESTS:-}" ]; then
  timeout ${WF_TEST_TIMEOUT:-150} "$B"/tests/gpu_correlator_tests --gtest_filter="${WF_TESTS:-*}" > "$OUT/gpu-tests.log" 2>&1
  echo "gpu_correlator_tests rc=$?: $(grep -cE '^\[       OK' "$OUT/gpu-tests.log") ok, $(grep -cE '^\[  FAILED  \].*\(' "$OUT/gpu-tests.log") failed"
  grep -E '^\[  FAILED  \]' "$OUT/gpu-tests.log" | head -5
fi
# One shape: ours (correlate kernel only and the reduce) then TCC, printed as one line.
shape() {  # bits R C T
  if [ "$SECONDS" -gt "${WF_DEADLINE:-100000}" ]; then echo "$1-bit R=$2 C=$3 T=$4: skipped (deadline)"; return; fi
  local bits=$1 R=$2 C=$3 T=$4 name="shape_${1}_${2}_${3}_${4}"
  local ty=$([ "$bits" = 4 ] && echo ci4 || ([ "$bits" = 8 ] && echo ci8 || echo cf16))
  printf '{"name": "%s", "family": "correlator", "receivers": %s, "polarizations": 2, "channels": %s, "samples_per_call": %s, "sample_type": "%s", "input": {"layout": "tcc"}, "conjugate": "r1", "polarization_order": "r2_r1"}\n' \
    "$name" "$R" "$C" "$T" "$ty" > "$OUT/$name.json"
  timeout 90 $wf bench "$OUT/$name.json" --reps ${WF_REPS:-10} --batch 1 > "$OUT/bench-$name.log" 2>&1
  local ours=$(grep "correlate kernel only" "$OUT/bench-$name.log" | grep -oE '[0-9.]+ TOPS' | head -1)
  local other=$(grep "pipeline with the other tile" "$OUT/bench-$name.log" | grep -oE '[0-9.]+ TOPS' | head -1)
  local xform=$(grep "pipeline with the other transform" "$OUT/bench-$name.log" | grep -oE '[0-9.]+ TOPS' | head -1)
  local red=$(grep "reduce kernel only" "$OUT/bench-$name.log" | grep -oE '[0-9.]+ GB/s' | head -1)
  local copy=$(grep "copy of the same bytes" "$OUT/bench-$name.log" | awk '{print $(NF)}')
  local check=$(grep -oE "check: .*(OK|FAILED)" "$OUT/bench-$name.log" | grep -oE '(OK|FAILED)$')
  local tcc=$(timeout 60 python3 "$TCC" "$bits:$R:$C:$T" 2>&1 | tee "$OUT/tcc-$name.log" | grep -oE 'best [0-9.]+' | grep -oE '[0-9.]+')
  echo "$bits-bit R=$R C=$C T=$T: ours ${ours:-?} (other tile ${other:-?}, other transform ${xform:-?}), TCC ${tcc:-?} TOPS, check ${check:-?}; reduce ${red:-?} vs copy ${copy:-?} GB/s"
}
if [ -z "${WF_NO_TCC:-}" ]; then
  IFS=';' read -ra configs <<< "${WF_CONFIGS:-8 576 64 3072;4 576 64 3072;8 2048 16 2048;16 576 64 3072;8 64 1024 4096;8 80 1024 4096;16 80 1024 4096}"
  for cfg in "${configs[@]}"; do shape $cfg; done
fi
if [ -n "${WF_RANDOM:-}" ]; then
  seed=${WF_SEED:-$RANDOM}
  echo "random shapes, seed $seed"
  python3 - "$seed" "$WF_RANDOM" > "$OUT/random-shapes.txt" <<'EOF'
import random, sys, math
r = random.Random(int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    bits = r.choice([4, 8, 8, 16])
    R = int(math.exp(r.uniform(math.log(16), math.log(4096))))
    T = max(128, int(math.exp(r.uniform(math.log(256), math.log(8192)))) // 128 * 128)
    C = max(1, min(1024, int(2e11 / (8 * R * R / 2 * 4 * T))))
    print(bits, R, C, T)
EOF
  while read -r cfg; do shape $cfg; done < "$OUT/random-shapes.txt"
fi
if [ -n "${WF_SWEEP:-}" ]; then
  timeout ${WF_SWEEP_TIMEOUT:-200} $wf bench --sweep correlator --cases "$WF_SWEEP" --seed "${WF_SEED:-$RANDOM}" --sweep-log "$OUT/sweep.jsonl" > "$OUT/sweep.log" 2>&1
  grep -E "^sweep of|geometric mean|cases:|^  [a-z0-9]+ (tcc|katgpucbf)" "$OUT/sweep.log" | head -20
fi
