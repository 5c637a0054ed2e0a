#!/usr/bin/env bash
# One table of the synthesized tensor-core FFTs against cuFFT f16 on the same zero-padded data, on this GPU:
# every covered size (n_out 16 .. 2048, n_in = n_out / 1, 2, 4, 8; sign +1), each from a spec that gives only the
# transform. Per size: `warpforge bench` at ~512 MiB of input + output (at least 2^20 FFTs where that is less), medians
# of REPS interleaved runs; the copy ceiling is a device-to-device copy of the same bytes; cycles are the in-register
# variant's SM-cycles per FFT (load once, repeat the steps, store once) against the eq. 30 model.
# Usage: bench/tc_fft_table.sh [n_out ...]     (WF: the CLI, default build/warpforge; REPS: default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
wf=${WF:-build/warpforge}
reps=${REPS:-20}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(16 32 64 128 256 512 1024 2048)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%-12s %12s %12s %7s %8s %10s %10s %s\n' "size" "ours ms" "cuFFT ms" "ratio" "% copy" "cycles/FFT" "model" "batch"
for nout in "${sizes[@]}"; do
  for j in 0 1 2 3; do
    nin=$((nout >> j))
    spec="$dir/fft_${nin}_${nout}.json"
    printf '{"name": "fft_%d_%d", "family": "tc_fft", "precision": "f16", "transform": {"n_in": %d, "n_out": %d, "sign": 1}}\n' \
      "$nin" "$nout" "$nin" "$nout" > "$spec"
    batch=$(( (512 << 20) / (4 * (nin + nout)) ))
    [ "$batch" -lt 1048576 ] && [ $(( 1048576 * 4 * (nin + nout) )) -le $((1 << 30)) ] && batch=1048576
    out="$dir/out.txt"
    if ! "$wf" bench "$spec" --batch "$batch" --reps "$reps" > "$out" 2>&1; then
      printf '%-12s %s\n' "$nin->$nout" "FAILED: $(tail -1 "$out")"
      continue
    fi
    # bench's rows: "warpforge (default)" (the spec's kernel), the variants, the baseline (cuFFT ...), the copy line.
    ours=$(grep -m1 '^warpforge (default)' "$out" | awk '{print $3}')
    base=$(grep -m1 '^cuFFT' "$out" | awk '{for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9]+\.[0-9]+$/) {print $i; exit}}')
    pct=$(grep -m1 'of the copy ceiling' "$out" | sed -E 's/.*warpforge at ([0-9]+)%.*/\1/')
    ratio=$(grep -m1 'of the copy ceiling' "$out" | sed -E 's/.*ratio ([0-9.]+)x.*/\1/')
    cyc=$(grep -m1 '^in-register:' "$out" | sed -E 's/in-register: ([0-9.]+) SM-cycles.*/\1/')
    model=$(grep -m1 '^in-register:' "$out" | sed -E 's/.*model \(eq. 30\): ([0-9.]+).*/\1/')
    printf '%-12s %12s %12s %7s %8s %10s %10s %s\n' "$nin->$nout" "${ours:-?}" "${base:-?}" "${ratio:-?}x" "${pct:-?}" "${cyc:-?}" "${model:-?}" "$batch"
  done
done
