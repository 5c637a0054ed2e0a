#!/usr/bin/env bash
# A/B of one tuning member against the defaults, per case, with `warpforge bench` (2^25 points,
# medians of $REPS, checked against FFTW, timed against cuFFT in the same process).
# Usage: bench/stockham_variant.sh '<tuning JSON>' case...   case = transform:precision:length
set -uo pipefail
wf=${WARPFORGE:-build/warpforge}
tuning=$1
shift
dir=$(mktemp -d)
for c in "$@"; do
  IFS=: read -r t p n <<<"$c"
  for v in default variant; do
    f=$dir/${t}_${p}_${n}_$v.json
    extra=""
    [ $v = variant ] && extra=", \"tuning\": $tuning"
    printf '{"name": "ab_%s_%s_%s_%s", "family": "stockham", "precision": "%s", "transform": "%s", "length": %s%s}\n' "$t" "$p" "$n" "$v" "$p" "$t" "$n" "$extra" >"$f"
    echo "== $c $v"
    "$wf" bench "$f" --batch $(((1 << 25) / n)) --reps "${REPS:-15}" 2>&1 | grep -E "max_rel_err|ratio|error" || echo "FAILED: $c $v"
  done
done
