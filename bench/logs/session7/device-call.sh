#!/bin/bash
# device call 2 (session 7): helpers' work: beamformer tests+bench, gridder tests+bench, stockham sweep + quick tests
mkdir -p /work && ln -sfn "$PWD" /work/main
export WARPFORGE_CACHE_DIR=/tmp/wfc
D=.devbin
t0=$(date +%s); el() { echo "[t=$(( $(date +%s) - t0 ))s] $*"; }
el bf-tests; timeout 80 $D/gpu_beamformer_tests > $OUT/bf.log 2>&1; echo "rc $?" >> $OUT/bf.log
el bf-bench; for s in chord_512x96_4bit lofar_576x1024_f16 frb_power; do echo "== $s"; timeout 35 $D/warpforge bench specs/beamformer_$s.json --reps 10 2>&1 | tail -22; done > $OUT/bfbench.log 2>&1
el grid-tests; timeout 80 $D/gpu_gridder_tests > $OUT/grid.log 2>&1; echo "rc $?" >> $OUT/grid.log
el grid-bench; for s in s32_4pol_sfu s32_4pol_degrid_sfu; do echo "== $s"; timeout 30 $D/warpforge bench specs/gridder_$s.json --reps 10 2>&1 | tail -25; done > $OUT/gridbench.log 2>&1
el sweep; timeout 230 $D/warpforge bench --sweep stockham --cases 300 --budget 190 --sweep-log $OUT/sweep.jsonl > $OUT/sweep.log 2>&1; echo "rc $?" >> $OUT/sweep.log
el st-quick; timeout 60 $D/gpu_stockham_tests --gtest_filter='*Issue16Quick*:*PrimeRadices*' > $OUT/st.log 2>&1; echo "rc $?" >> $OUT/st.log
el done
