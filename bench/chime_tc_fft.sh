#!/usr/bin/env bash
# The CHIME FFT benchmark recorded in bench/RESULTS.md: correctness run, then
# timings against cuFFT f16 and the device-to-device copy in one process, the
# in-register cycle count, and SASS counts (cuobjdump) beside the verifier's.
set -euo pipefail
cd "$(dirname "$0")/.."
wf=${WF:-build/warpforge}
spec=specs/chime_fft_256_512.json
$wf run "$spec" --batch 1048576 --seed 2026
$wf bench "$spec" --batch "${BATCH:-1048576}" --reps "${REPS:-40}"
$wf compile "$spec" --arch sm_90
