#!/usr/bin/env bash
# The correlator on a GPU machine, in one call (logs under $LOG, default $OUT; a summary on stdout and in $LOG/summary.txt):
#   build   the CLI and gpu_correlator_tests into $WF_BUILD_DIR (scripts/device-check's recipe: .deps/*.deb unpacked into
#           a sysroot); WF_BIN=DIR instead takes DIR/warpforge and DIR/gpu_correlator_tests as they are
#   warm    every shape's kernels compiled once, all shapes in parallel (warpforge's and CuPy's NVRTC caches), the GPU
#           tests beside them (gpu_correlator_tests, WF_TESTS: a gtest filter, default the tests that run the pipeline,
#           ~40 s; "*": all, over 150 s): the timed pass below compiles nothing
#   shapes  `warpforge bench` (correlate kernel alone, TCC's op count; its variants: the correlate kernel of the output
#           "visibilities" (TCC's model), the other tile, the other transform, the split transform, the raw ring of 4 slots, the path before
#           the pipeline, the reduce
#           (GB/s and % of the copy ceiling) beside the previous reduce kernel and its variants, the copy ceiling) on
#           TCC's seven configurations
#           (WF_CONFIGS: "bits R C T;..." instead, "none" for none) and WF_RANDOM=N random 2-pol shapes (seed WF_SEED,
#           printed), one after the other, after ASTRON's TCC (tcc_bench.py, best of 32/48/64 receivers per block) on the
#           same shapes in one process
#   profile (WF_PROFILE=1) Nsight Compute's full set on the default plan's correlate and reduce kernels of the first shape
#   tune    (WF_TUNE=1) `warpforge bench --tune` per shape before the timed pass, which then uses the wisdom
#   sweep   (WF_SWEEP=N) `warpforge bench --sweep correlator --cases N` (full plan against cuBLAS)
#           WF_OUTPUT: the specs' output models, space-separated: "accumulators" (default: katgpucbf's model; its bench
#           also times the visibilities model's correlate kernel as a variant) and / or "visibilities" (TCC's model: the
#           default plan is the correlate kernel writing the visibilities, checked on the device; no reduce lines)
#           WF_RANGE: the specs' sample ranges, "full" (default) and / or "symmetric" (sample_range: no clamp)
#           WF_VARIANTS: `bench --variants` (only the variants whose name contains it; "none": the default alone)
# TCC's script is found at $TCC (default ./tcc-anchor/tcc_bench.py); it is only measured against.
# WF_DEADLINE (seconds since the start): no shape starts after it. One shape's `bench` costs ~25 s (host work: random
# inputs, the sampled reference, the cuBLAS baseline): TCC's seven configurations and 8 random shapes take ~8 minutes.
# LOG apart from OUT (e.g. LOG=/tmp/wflog): at the end OUT gets summary.txt and logs.tgz (LOG packed) only, which keeps
# the device tool's returned files within its count.
# Usage (repository root): OUT=/tmp/out bash generator/correlator/tools/device-bench.sh
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/wf-out}
LOG=${LOG:-$OUT}
TCC=${TCC:-tcc-anchor/tcc_bench.py}
mkdir -p "$OUT" "$LOG"
export PATH=/usr/local/cuda/bin:$PATH
export WARPFORGE_CACHE_DIR=/tmp/wf-cache WARPFORGE_SOURCE_DIR=$PWD
if [ -n "${WF_BIN:-}" ]; then
  wf=$WF_BIN/warpforge tests=$WF_BIN/gpu_correlator_tests
else
  # The build lives outside the checkout (a machine that stays warm keeps it between calls that carry the tree again).
  B=${WF_BUILD_DIR:-/tmp/wf-build-correlator}
  sysroot=/tmp/wf-sysroot
  mkdir -p $sysroot
  for d in .deps/*.deb; do dpkg -x "$d" $sysroot; done
  export PATH=/usr/local/cuda/bin:$PATH
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DWARPFORGE_ASAN_FUZZ=OFF -DCMAKE_PREFIX_PATH=$sysroot/usr \
    -DFFTW3_INCLUDE_DIR=$sysroot/usr/include -DFFTW3_LIBRARY=$sysroot/usr/lib/x86_64-linux-gnu/libfftw3.a > "$LOG/cmake.log" 2>&1 || { tail -20 "$LOG/cmake.log"; exit 1; }
  cmake --build "$B" -j16 --target warpforge --target gpu_correlator_tests > "$LOG/build.log" 2>&1 || { grep -E "error" -A3 "$LOG/build.log" | head -30; exit 1; }
  wf=$B/warpforge tests=$B/tests/gpu_correlator_tests
fi
say() { echo "$*" | tee -a "$LOG/summary.txt"; }
say "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader), $(date -u +%FT%TZ)"

# The shapes: TCC's seven, then the random ones.
shapes=()
IFS=';' read -ra configs <<< "${WF_CONFIGS:-8 576 64 3072;4 576 64 3072;8 2048 16 2048;16 576 64 3072;8 64 1024 4096;8 80 1024 4096;16 80 1024 4096}"
[ "${WF_CONFIGS:-}" = none ] || shapes+=("${configs[@]}")
if [ -n "${WF_RANDOM:-}" ]; then
  seed=${WF_SEED:-$RANDOM}
  say "random shapes, seed $seed"
  while read -r cfg; do shapes+=("$cfg"); done < <(python3 - "$seed" "$WF_RANDOM" <<'EOF'
import random, sys, math
r = random.Random(int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    bits = r.choice([4, 8, 8, 16])
    R = int(math.exp(r.uniform(math.log(16), math.log(4096))))
    T = max(128, int(math.exp(r.uniform(math.log(256), math.log(8192)))) // 128 * 128)
    C = max(1, min(1024, int(2e11 / (8 * R * R / 2 * 4 * T))))
    print(bits, R, C, T)
EOF
)
fi
outputs=(${WF_OUTPUT:-accumulators})
# WF_RANGE: the specs' sample ranges, space-separated: "full" (default; -128 / -8 clamped) and / or "symmetric"
# (sample_range "symmetric": no clamp; the data hold no -128 / -8). cf16 shapes take "full" only.
ranges=(${WF_RANGE:-full})
for rg in "${ranges[@]}"; do
  case $rg in full | symmetric) ;; *) echo "WF_RANGE: '$rg' (expected full and / or symmetric)" >&2; exit 2 ;; esac
done
nameOf() {  # output range bits R C T -> the spec's name
  echo "shape_$([ "$1" = visibilities ] && echo vis_)$([ "$2" = symmetric ] && echo sym_)${3}_${4}_${5}_${6}"
}
specOf() {  # output range bits R C T -> the spec file
  local out=$1 rg=$2; shift 2
  local ty=$([ "$1" = 4 ] && echo ci4 || ([ "$1" = 8 ] && echo ci8 || echo cf16)) name=$(nameOf $out $rg "$@")
  printf '{"name": "%s", "family": "correlator", "receivers": %s, "polarizations": 2, "channels": %s, "samples_per_call": %s, "sample_type": "%s", "sample_range": "%s", "input": {"layout": "tcc"}, "conjugate": "r1", "polarization_order": "r2_r1", "output": "%s"}\n' \
    "$name" "$2" "$3" "$4" "$ty" "$rg" "$out" > "$LOG/$name.json"
  echo "$LOG/$name.json"
}
rangesOf() {  # bits -> the ranges timed for it
  if [ "$1" = 16 ]; then echo full; else echo "${ranges[@]}"; fi
}

# Warm: compile everything in parallel (timings of this pass are discarded), the GPU tests beside it.
if [ -z "${WF_NO_TESTS:-}" ]; then
  (timeout ${WF_TEST_TIMEOUT:-150} "$tests" --gtest_filter="${WF_TESTS:-*Pipeline*:*Visibilities*:*Accumulates*:*Float16*:*Extreme*:*Saturation*}" > "$LOG/gpu-tests.log" 2>&1; echo "rc=$?" >> "$LOG/gpu-tests.log") &
fi
for cfg in "${shapes[@]}"; do
  set -- $cfg
  for out in "${outputs[@]}"; do
    for rg in $(rangesOf $1); do
      spec=$(specOf $out $rg "$@")
      timeout 120 $wf bench "$spec" --reps 1 --batch 1 ${WF_VARIANTS:+--variants "$WF_VARIANTS"} > /dev/null 2>&1 &
    done
  done
  [ -f "$TCC" ] && timeout 120 python3 "$TCC" "$1:$2:$3:$4" > /dev/null 2>&1 &
done
wait
say "warm pass done at ${SECONDS}s"
if [ -z "${WF_NO_TESTS:-}" ]; then
  say "gpu_correlator_tests $(tail -1 "$LOG/gpu-tests.log"): $(grep -cE '^\[       OK' "$LOG/gpu-tests.log") ok, $(grep -cE '^\[  FAILED  \].*\(' "$LOG/gpu-tests.log") failed"
  grep -E '^\[  FAILED  \]|^\[       OK' "$LOG/gpu-tests.log" | tee -a "$LOG/summary.txt"
fi

# WF_TUNE=1: `bench --tune` per shape first (CorrelatorTune.h's candidates on this GPU); the timed pass below then
# runs each spec with the wisdom it recorded.
if [ -n "${WF_TUNE:-}" ]; then
  for cfg in "${shapes[@]}"; do
    set -- $cfg
    for out in "${outputs[@]}"; do
      for rg in $(rangesOf $1); do
        name=$(nameOf $out $rg "$@")
        timeout ${WF_TUNE_TIMEOUT:-150} $wf bench "$LOG/$name.json" --tune --batch 1 --reps 5 > "$LOG/tune-$name.log" 2>&1
        say "$1-bit R=$2 C=$3 T=$4 ($out, sample range $rg): tuned: $(grep -iE 'best|winner|wisdom recorded' "$LOG/tune-$name.log" | head -2 | tr '\n' ' ')"
      done
    done
  done
  say "tune pass done at ${SECONDS}s"
fi

# The anchor first (TCC on every shape in one process), so that a call's deadline cuts our shapes, never TCC's; then
# the timed pass: ours shape by shape.
tccArgs=()
for cfg in "${shapes[@]}"; do
  set -- $cfg
  tccArgs+=("$1:$2:$3:$4")
done
if [ -f "$TCC" ] && [ ${#tccArgs[@]} -gt 0 ]; then
  timeout 300 python3 "$TCC" "${tccArgs[@]}" > "$LOG/tcc.log" 2>&1
  grep -E '^TCC' "$LOG/tcc.log" | tee -a "$LOG/summary.txt"
fi
val() { grep -F "$2" "$1" | grep -oE "[0-9.]+ $3" | head -1; }
# A reduce variant's GB/s (accumulators read and reset, visibilities written) and its share of the copy ceiling.
red() {
  local g=$(val $f "$1" 'GB/s' | grep -oE '^[0-9.]+')
  [ -n "$g" ] && [ -n "${copy:-}" ] && awk -v g="$g" -v c="$copy" 'BEGIN { printf "%.1f GB/s (%.0f%% of the copy)", g, 100 * g / c }' || echo "${g:-?} GB/s"
}
for cfg in "${shapes[@]}"; do
  set -- $cfg
  if [ "$SECONDS" -gt "${WF_DEADLINE:-100000}" ]; then say "$1-bit R=$2 C=$3 T=$4: skipped (deadline)"; continue; fi
  for out in "${outputs[@]}"; do
   for rg in $(rangesOf $1); do
    name=$(nameOf $out $rg "$@")
    timeout 90 $wf bench "$LOG/$name.json" --reps ${WF_REPS:-10} --batch 1 ${WF_VARIANTS:+--variants "$WF_VARIANTS"} > "$LOG/bench-$name.log" 2>&1
    f=$LOG/bench-$name.log
    check=$(grep -oE "check: .*(OK|FAILED)" "$f" | grep -oE '(OK|FAILED)$')
    copy=$(grep "copy of the same bytes" "$f" | awk '{print $(NF)}')
    if [ "$out" = visibilities ]; then
      say "$1-bit R=$2 C=$3 T=$4, output visibilities, sample range $rg: ours $(val $f 'correlate kernel only' TOPS) (other column copies $(val $f 'column side by tensor' TOPS), persistent <-> a block per tile $(val $f 'persistent blocks <->' TOPS), second warpgroup behind $(val $f 'warpgroup' TOPS), without the store (ablation) $(val $f 'store left out' TOPS), persistent starting apart $(val $f 'persistent blocks starting' TOPS), persistent with bulk stores $(val $f 'persistent blocks, visibilities by bulk' TOPS), bulk stores $(val $f 'bulk stores (a block' TOPS), narrow edge tile at full width $(val $f 'narrow edge tile at full' TOPS), other tile $(val $f 'the other tile' TOPS), other transform $(val $f 'the other transform' TOPS), split transform $(val $f 'split transform' TOPS), operands as stored $(val $f 'operands as stored (transform' TOPS), as stored other tile $(val $f 'as stored, 64 <-> 128' TOPS), as stored other stages per wait $(val $f 'as stored, 1 <-> 2' TOPS), other row copies $(val $f 'row side by bulk' TOPS), multicast pairs $(val $f 'multicast in cluster' TOPS), with the transform $(val $f 'with the transform (shared' TOPS), deepest raw ring $(val $f 'deepest raw ring' TOPS), other stages per wait $(val $f 'other stages per wait' TOPS), before the pipeline $(val $f 'before the pipeline' TOPS)); check ${check:-?}"
    else
      say "$1-bit R=$2 C=$3 T=$4, sample range $rg: ours $(val $f 'correlate kernel only' TOPS), output visibilities $(val $f 'output visibilities' TOPS) (other tile $(val $f 'the other tile' TOPS), other transform $(val $f 'the other transform' TOPS), split transform $(val $f 'split transform' TOPS), operands as stored $(val $f 'operands as stored (transform' TOPS), as stored other stages per wait $(val $f 'as stored, 1 <-> 2' TOPS), other row copies $(val $f 'row side by bulk' TOPS), multicast pairs $(val $f 'multicast in cluster' TOPS), persistent <-> a block per tile $(val $f 'persistent blocks <->' TOPS), with the transform $(val $f 'with the transform (shared' TOPS), deepest raw ring $(val $f 'deepest raw ring' TOPS), before the pipeline $(val $f 'before the pipeline' TOPS)); check ${check:-?}"
      say "  reduce $(red 'reduce kernel only  ') (resets with the loads $(red 'resets issued with the loads'), no prefetch $(red 'no prefetch'), half the units $(red 'half the units'), twice $(red 'twice the units'); previous kernel $(red 'previous kernel'), the one before it $(red 'the kernel before it')) vs copy ${copy:-?} GB/s"
    fi
   done
  done
done
say "timed pass done at ${SECONDS}s"

if [ -n "${WF_PROFILE:-}" ]; then
  set -- ${shapes[0]}
  ncu --clock-control none --set full -k regex:'correlate|reduce' -c 2 -f -o "$LOG/profile" $wf run "$LOG/$(nameOf ${outputs[0]} $(rangesOf $1 | cut -d' ' -f1) "$@").json" --batch 1 > "$LOG/ncu-run.log" 2>&1
  ncu --import "$LOG/profile.ncu-rep" --page details > "$LOG/profile.txt" 2>&1
  grep -E '^  [a-z_0-9]+\(|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Eligible Warps|Issued Warp|No Eligible' "$LOG/profile.txt" | tee -a "$LOG/summary.txt"
  say "profile done at ${SECONDS}s"
fi
if [ -n "${WF_SWEEP:-}" ]; then
  timeout ${WF_SWEEP_TIMEOUT:-200} $wf bench --sweep correlator --cases "$WF_SWEEP" --seed "${WF_SEED:-$RANDOM}" --sweep-log "$LOG/sweep.jsonl" > "$LOG/sweep.log" 2>&1
  grep -E "^sweep of|geometric mean|cases:|^  [a-z0-9]+ (tcc|katgpucbf)" "$LOG/sweep.log" | head -20 | tee -a "$LOG/summary.txt"
fi
if [ "$(cd "$LOG" && pwd)" != "$(cd "$OUT" && pwd)" ]; then
  cp "$LOG/summary.txt" "$OUT/" 2>/dev/null
  tar czf "$OUT/logs.tgz" -C "$LOG" --exclude='*.ncu-rep' .
fi
