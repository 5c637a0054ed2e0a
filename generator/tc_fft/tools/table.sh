#!/usr/bin/env bash
# One table of the synthesized tensor-core FFTs against cuFFT f16 on the same zero-padded data, on this GPU: every
# covered size (n_out 16 .. 4096, n_in = n_out / 1, 2, 4, 8; sign +1, the kernel for -1 differs only in its phases),
# each from a spec that gives only the transform.
# Per size: `warpforge bench` on 2^20 FFTs, or fewer where those exceed 512 MiB of input + output (then ~512 MiB);
# medians of REPS interleaved runs; bench checks the timed kernel against FFTW first (error within the design's f16
# bound, every output written). ratio = cuFFT ms / ours; % copy = a device-to-device copy of the same bytes / ours;
# cycles/FFT = the in-register variant (load once, repeat the steps, store once) at the max clock, against the eq. 30
# model. A first pass compiles every kernel in parallel (JOBS processes, tiny batches) into a fresh NVRTC cache, so
# the timed pass loads CUBINs only.
# Usage: generator/tc_fft/tools/table.sh [n_out ...]     (WF: the CLI, default build/warpforge; REPS: default 10;
#                                              JOBS: default nproc; PADS: the j of n_in = n_out / 2^j, default "0 1 2 3")
set -euo pipefail
cd "$(dirname "$0")/../../.."
wf=${WF:-build/warpforge}
reps=${REPS:-10}
jobs=${JOBS:-$(nproc)}
pads=(${PADS:-0 1 2 3})
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(16 32 64 128 256 512 1024 2048 4096)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -m 700 "$dir/cache"
export WARPFORGE_CACHE_DIR="$dir/cache"
start=$SECONDS

specs=()
for nout in "${sizes[@]}"; do
  for j in "${pads[@]}"; do
    nin=$((nout >> j))
    spec="$dir/fft_${nin}_${nout}.json"
    printf '{"name": "fft_%d_%d", "family": "tc_fft", "precision": "f16", "transform": {"n_in": %d, "n_out": %d, "sign": 1}}\n' \
      "$nin" "$nout" "$nin" "$nout" > "$spec"
    specs+=("$spec")
  done
done

# Compile pass: the same kernels as the timed pass (the batch is a kernel argument, not part of the source).
printf '%s\n' "${specs[@]}" | xargs -P "$jobs" -I{} sh -c '"$0" bench "$1" --batch 4096 --reps 1 > "$1.warm" 2>&1 || true' "$wf" {}
echo "compiled ${#specs[@]} specs' kernels in $((SECONDS - start)) s ($jobs processes)"

printf '%-11s %10s %10s %7s %7s %10s %8s %8s  %s\n' "size" "ours ms" "cuFFT ms" "ratio" "% copy" "cycles/FFT" "model" "batch" "check"
for spec in "${specs[@]}"; do
  name=$(basename "$spec" .json)
  nin=$(echo "$name" | cut -d_ -f2) nout=$(echo "$name" | cut -d_ -f3)
  per=$((4 * (nin + nout)))
  batch=1048576
  [ $((batch * per)) -gt $((512 << 20)) ] && batch=$(((512 << 20) / per))
  out="$dir/out.txt"
  if ! "$wf" bench "$spec" --batch "$batch" --reps "$reps" > "$out" 2>&1; then
    printf '%-11s %s\n' "$nin->$nout" "FAILED: $(grep -m1 -i 'error\|fail' "$out" || tail -1 "$out")"
    continue
  fi
  # bench's rows: "warpforge (default)" (the spec's kernel), the variants, the baseline (cuFFT ...), the copy line.
  ours=$(grep -m1 '^warpforge (default)' "$out" | awk '{print $3}')
  base=$(grep -m1 '^cuFFT' "$out" | awk '{for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9]+\.[0-9]+$/) {print $i; exit}}')
  pct=$(grep -m1 'of the copy ceiling' "$out" | sed -E 's/.*warpforge at ([0-9]+)%.*/\1/')
  ratio=$(grep -m1 'of the copy ceiling' "$out" | sed -E 's/.*ratio ([0-9.]+)x.*/\1/')
  cyc=$(grep -m1 '^in-register:' "$out" | sed -E 's/in-register: ([0-9.]+) SM-cycles.*/\1/')
  model=$(grep -m1 '^in-register:' "$out" | sed -E 's/.*model \(eq. 30\): ([0-9.]+).*/\1/')
  check=$(grep -m1 '^check:' "$out" | sed -E 's/^check: error ([^ ]+) \(bound ([^)]+)\).*: ([A-Z]+)$/\3 \1 <= \2/')
  printf '%-11s %10s %10s %7s %7s %10s %8s %8s  %s\n' "$nin->$nout" "${ours:-?}" "${base:-?}" "${ratio:-?}x" "${pct:-?}" "${cyc:-?}" \
    "${model:-?}" "$batch" "${check:-?}"
done
echo "total $((SECONDS - start)) s"
