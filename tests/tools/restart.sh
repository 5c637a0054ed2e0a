#!/bin/sh
# A cold start fills the plan cache; a restarted process gets the same plan from it, in milliseconds: the r2c 16384
# Stockham spec, whose spill probe takes seconds of NVRTC at every start without the cache.
set -eu
tool=$1
dir=$(pwd)/restart
rm -rf "$dir"
mkdir -p "$dir"
export WARPFORGE_CACHE_DIR="$dir/cache"
cat > "$dir/r2c_16384.json" <<'SPEC'
{"name": "r2c_16384", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 16384}
SPEC
cold=$("$tool" "$dir/r2c_16384.json" --arch sm_90)
warm=$("$tool" "$dir/r2c_16384.json" --arch sm_90)
echo "cold start: $cold"
echo "warm start: $warm"
echo "$cold" | grep -q "^plan: miss " || { echo "FAIL: the first start did not miss"; exit 1; }
echo "$warm" | grep -q "^plan: hit " || { echo "FAIL: the restart did not hit the plan cache"; exit 1; }
d1=$(echo "$cold" | sed 's/.*digest \([0-9a-f]*\).*/\1/')
d2=$(echo "$warm" | sed 's/.*digest \([0-9a-f]*\).*/\1/')
[ "$d1" = "$d2" ] || { echo "FAIL: the restarted process got another plan ($d2, cold $d1)"; exit 1; }
t=$(echo "$warm" | sed 's/^plan: hit \([0-9.]*\) s.*/\1/')
awk "BEGIN { exit !($t < 0.5) }" || { echo "FAIL: a warm start took $t s"; exit 1; }
# Without the cache every start pays the probe again, and gets the same plan.
uncached=$("$tool" "$dir/r2c_16384.json" --arch sm_90 --no-plan-cache)
echo "no plan cache: $uncached"
d3=$(echo "$uncached" | sed 's/.*digest \([0-9a-f]*\).*/\1/')
[ "$d1" = "$d3" ] || { echo "FAIL: the uncached plan differs from the cached one"; exit 1; }
echo PASS
