#!/usr/bin/env bash
# A/B of tuning members against the defaults, per case, with `warpforge bench --ab` (2^25 points):
# the variant is checked against FFTW and timed against cuFFT, then the defaults and the variant are
# timed interleaved (A B A) in one process, medians of $REPS; "A vs A" is the noise.
# Usage: generator/stockham/tools/variant.sh '<tuning JSON>' case...   case = transform:precision:length
set -uo pipefail
wf=${WARPFORGE:-build/warpforge}
tuning=$1
shift
dir=$(mktemp -d)
for c in "$@"; do
  IFS=: read -r t p n <<<"$c"
  f=$dir/${t}_${p}_${n}.json
  printf '{"name": "ab_%s_%s_%s", "family": "stockham", "precision": "%s", "transform": "%s", "length": %s}\n' "$t" "$p" "$n" "$p" "$t" "$n" >"$f"
  echo "== $c with $tuning"
  "$wf" bench "$f" --batch $(((1 << 25) / n)) --reps "${REPS:-25}" --ab "$tuning" 2>&1 | grep -E "check:|ratio|A/B|error" || echo "FAILED: $c"
done
