#!/usr/bin/env bash
# Hostile inputs, one case each, through the CLI a user runs:
#   tests/hostile/hostile-cli.sh path/to/warpforge
# prints PASS/FAIL per case and exits 1 when any case fails. It only uses CLI commands that
# every build has (verify, emit, compile), so it can be pointed at an older binary to
# show which cases that binary fails.
# A case passes when the contract holds: a bad spec is exit 2 naming the JSON path, fast and
# without a crash; `verify` exit 0 means `emit` and `compile` succeed; nothing from a path or
# name reaches emitted code unescaped; emit fails loudly when it cannot write.
set -uo pipefail
WF=$(realpath "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHIME="$ROOT/specs/chime_fft_256_512.json"
T=$(mktemp -d /tmp/wf-hostile.XXXXXX)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
export WARPFORGE_CACHE_DIR="$T/cache"
fails=0
passes=0

pass() { echo "PASS $1"; passes=$((passes + 1)); }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# wf <seconds> args...: runs the CLI, sets rc (124 = timed out) and out (stdout + stderr).
wf() {
  local secs=$1; shift
  out=$(timeout -k 5 "$secs" "$WF" "$@" 2>&1); rc=$?
}

# expect_error NAME FILE SECONDS PATH-FRAGMENT: verify exits 2 within SECONDS and names the fragment.
expect_error() {
  local name=$1 file=$2 secs=$3 frag=$4
  wf "$secs" verify "$file"
  if [ $rc -eq 2 ] && grep -qF -- "$frag" <<<"$out"; then pass "$name"
  else fail "$name" "verify exit $rc (want 2 naming '$frag'): $(head -c 300 <<<"$out")"; fi
}

# verify_implies_runnable NAME FILE: verify exit 2, or verify exit 0 and emit and compile exit 0.
verify_implies_runnable() {
  local name=$1 file=$2
  wf 120 verify "$file"
  if [ $rc -eq 2 ]; then pass "$name (rejected: $(grep -m1 -o '/[a-zA-Z_/0-9]*:.*' <<<"$out" | head -c 120))"; return; fi
  if [ $rc -ne 0 ]; then fail "$name" "verify exit $rc: $(head -c 300 <<<"$out")"; return; fi
  wf 120 emit "$file" -o "$T/emit-$name"; local erc=$rc
  wf 120 compile "$file" --arch sm_90; local crc=$rc
  if [ $erc -eq 0 ] && [ $crc -eq 0 ]; then pass "$name (verify, emit and compile agree)"
  else fail "$name" "verify said OK, then emit exit $erc, compile exit $crc: $(head -c 300 <<<"$out")"; fi
}

chime_with() {  # chime_with FILE sed-expression
  sed -e "$2" "$CHIME" > "$1"
}

# ---- Names ------------------------------------------------------------------------------
chime_with "$T/input.json" 's/"Z2"/"input"/g'
wf 120 verify "$T/input.json"
if [ $rc -eq 2 ]; then pass "array named 'input' (rejected)"
elif [ $rc -eq 0 ]; then
  wf 120 emit "$T/input.json" -o "$T/emit-input"
  if [ $rc -eq 0 ] && ! grep -rqE '(^|[^_A-Za-z0-9])input\[16\]' "$T/emit-input"; then pass "array named 'input' (own namespace, no shadowing)"
  else fail "array named 'input'" "a local 'input[16]' shadows the input pointer (emit exit $rc)"; fi
else fail "array named 'input'" "verify exit $rc"; fi

for n in stage fft lane int threadIdx printf; do
  chime_with "$T/name_$n.json" "s/\"Z2\"/\"$n\"/g"
  verify_implies_runnable "array named '$n'" "$T/name_$n.json"
done
chime_with "$T/specname.json" 's/"chime_fft_256_512"/"int"/'
verify_implies_runnable "spec named 'int'" "$T/specname.json"

# ---- Paths never reach emitted code ------------------------------------------------------
nl_dir="$T/a"$'\n''static int injected_global = 42;'$'\n''//'
mkdir -p "$nl_dir"; cp "$CHIME" "$nl_dir/spec.json"
wf 120 emit "$nl_dir/spec.json" -o "$T/emit-nl"
if [ $rc -eq 0 ] && ! grep -rq '^static int injected_global' "$T/emit-nl"; then pass "newline in the spec path"
else fail "newline in the spec path" "emit exit $rc; injected line present: $(grep -rl '^static int injected_global' "$T/emit-nl" 2>/dev/null | head -1)"; fi
cr_dir="$T/b"$'\r''int cr_global = 1;'
mkdir -p "$cr_dir"; cp "$CHIME" "$cr_dir/spec.json"
wf 120 emit "$cr_dir/spec.json" -o "$T/emit-cr"
if [ $rc -eq 0 ] && ! grep -rq 'cr_global' "$T/emit-cr"; then pass "carriage return in the spec path"
else fail "carriage return in the spec path" "emit exit $rc; path text in emitted code"; fi

# ---- Overlapping outputs -----------------------------------------------------------------
echo '{"name": "s2d", "family": "stockham", "precision": "f32", "lengths": [64, 64], "output": {"strides": [1, 1], "distance": 4096}}' > "$T/strides11.json"
expect_error "2D output strides [1, 1]" "$T/strides11.json" 60 "/output"
echo '{"name": "d1", "family": "stockham", "precision": "f32", "length": 256, "output": {"stride": 1, "distance": 1}}' > "$T/dist1.json"
wf 60 verify "$T/dist1.json"
if [ $rc -eq 2 ] && grep -qF "/output" <<<"$out"; then pass "output distance 1 (rejected)"
elif [ $rc -eq 0 ] && grep -qi "batch" <<<"$out" && grep -qi "warning" <<<"$out"; then pass "output distance 1 (warning names the batch limit)"
else fail "output distance 1" "verify exit $rc, no error or batch warning: $(head -c 300 <<<"$out")"; fi
echo '{"name": "r", "family": "stockham", "precision": "f32", "transform": "r2c", "length": 1024, "output": {"distance": 512}}' > "$T/r2c512.json"
expect_error "r2c 1024 with output distance 512" "$T/r2c512.json" 60 "/output/distance"
wf 120 verify "$ROOT/specs/stockham_729_f64_strided.json"
if [ $rc -eq 0 ] && grep -qi "warning" <<<"$out" && grep -q "batch 4" <<<"$out"; then pass "interleaved entries: verify names the largest safe batch"
else fail "interleaved entries: verify names the largest safe batch" "verify exit $rc: $(head -c 300 <<<"$out")"; fi

# ---- Parser: crashes and exit codes ------------------------------------------------------
{ printf '%.0s[' $(seq 60000); printf '1'; printf '%.0s]' $(seq 60000); } > "$T/deep.json"
expect_error "JSON nested 60000 deep" "$T/deep.json" 30 "nested"
digits=$(printf '%.0s9' $(seq 50000))
chime_with "$T/longtoken.json" "s/r <-> n2 n1 n0\"/r <-> n2 n1 n$digits\"/"
expect_error "layout token of 50000 digits" "$T/longtoken.json" 30 "/arrays/"
chime_with "$T/e400.json" 's/"n_in": 256/"n_in": 1e400/'
expect_error "number 1e400" "$T/e400.json" 30 "/transform/n_in"
big=$(printf '%.0s7' $(seq 400))
chime_with "$T/d400.json" "s/\"n_in\": 256/\"n_in\": $big/"
expect_error "400-digit integer" "$T/d400.json" 30 "/transform/n_in"
chime_with "$T/n999.json" 's/r <-> n2 n1 n0"/r <-> n2 n1 n99999999999"/'
expect_error "layout bit n99999999999" "$T/n999.json" 30 "/arrays/"
chime_with "$T/sign.json" 's/"sign": 1/"sign": 18446744073709551615/'
expect_error "sign 18446744073709551615" "$T/sign.json" 30 "/transform/sign"
echo '{"name": "w", "family": "stockham", "precision": "f32", "length": 64, "factors": [4294967296, 4294967296, 64]}' > "$T/wrap.json"
expect_error "radix product that wraps modulo 2^64" "$T/wrap.json" 30 "/factors"
chime_with "$T/dup.json" 's/"n_out": 512,/"n_out": 512, "n_out": 1024,/'
expect_error "duplicate key" "$T/dup.json" 30 "/transform/n_out"
chime_with "$T/family.json" 's/"family": "tc_fft"/"family": "tc_ftt"/'
expect_error "misspelled family" "$T/family.json" 30 "unknown family"

# ---- Runaway resources -------------------------------------------------------------------
echo '{"name": "t1", "family": "stockham", "precision": "f32", "length": 4096, "tuning": {"threads_per_fft": 1}}' > "$T/tpf1.json"
wf 120 verify "$T/tpf1.json"
if [ $rc -eq 2 ]; then pass "4096 points on one thread (rejected)"
elif [ $rc -eq 0 ]; then
  wf 120 compile "$T/tpf1.json" --arch sm_90
  if [ $rc -eq 0 ]; then pass "4096 points on one thread (compiles within 120 s)"; else fail "4096 points on one thread" "compile exit $rc (124: still compiling after 120 s)"; fi
else fail "4096 points on one thread" "verify exit $rc"; fi
echo '{"name": "p", "family": "stockham", "precision": "f32", "length": 33554393}' > "$T/prime.json"
expect_error "prime length 33554393" "$T/prime.json" 20 "/length"
{ sed -n '1,/"X": /p' "$CHIME" | sed '$d'; printf '    "X": { "layout": "b <-> ReIm, t0 t1 t2 t3 t4 <-> n7 n6 n5 n4 n3, r <-> n2 n1 n0'; printf '%.0s n0' $(seq 750000); printf '" },\n'; sed -n '/"E_X_Z1": /,$p' "$CHIME"; } > "$T/hugelayout.json"
expect_error "3 MB layout string" "$T/hugelayout.json" 20 "/arrays/X"
echo '{' > "$T/huge.json"; truncate -s 200M "$T/huge.json"
expect_error "200 MB spec file" "$T/huge.json" 10 "limit"

# ---- verify OK means it emits ------------------------------------------------------------
chime_with "$T/yq3.json" 's/"layout": "b <-> ReIm, t0 t1 t2 t3 t4 <-> q4 q5 q6 q7 q8, r <-> q0 q1 q2 q3"/"layout": "b <-> q3, t0 t1 t2 t3 t4 <-> q4 q5 q6 q7 q8, r <-> q0 q1 q2 ReIm"/'
verify_implies_runnable "tc_fft output Y with b <-> q3" "$T/yq3.json"
echo '{"name": "bt", "family": "stockham", "precision": "f32", "length": 256, "tuning": {"block_threads": 1024}}' > "$T/bt.json"
wf 120 verify "$T/bt.json"
if [ $rc -eq 2 ] || grep -qi "warning" <<<"$out"; then pass "tuning the generator cannot honour is stated ($(grep -m1 -i -o 'warning.*' <<<"$out" | head -c 100))"
else fail "tuning the generator cannot honour is stated" "verify exit $rc, silent"; fi

# ---- emit and compile --------------------------------------------------------------------
long=$(printf '%.0sa' $(seq 300))
echo "{\"name\": \"$long\", \"family\": \"stockham\", \"precision\": \"f32\", \"length\": 64}" > "$T/longname.json"
wf 120 emit "$T/longname.json" -o "$T/emit-long"
if [ $rc -ne 0 ]; then pass "emit of a name too long for a file exits $rc"; else fail "emit of a name too long for a file" "exit 0"; fi
echo plain > "$T/not-a-dir"
wf 120 emit "$ROOT/specs/stockham_4096_f32.json" -o "$T/not-a-dir/out"
if [ $rc -ne 0 ]; then pass "emit into a path that cannot be a directory exits $rc"; else fail "emit into a path that cannot be a directory" "exit 0"; fi
wf 120 emit "$ROOT/specs/stockham_4096_f32.json" -o "$T/emit-arch" --arch sm_80
if [ $rc -eq 0 ]; then pass "emit --arch"; else fail "emit --arch" "exit $rc: $(head -c 200 <<<"$out")"; fi
wf 120 compile "$ROOT/specs/stockham_4096_f32.json" --arch sm_90 --cubin "$T/cubins"
n=$(ls "$T/cubins"/*.cubin 2>/dev/null | wc -l)
if [ $rc -eq 0 ] && [ "$n" -ge 1 ]; then pass "compile --cubin for stockham ($n cubin)"; else fail "compile --cubin for stockham" "exit $rc, $n cubin files"; fi

# ---- Cache -------------------------------------------------------------------------------
# The CLI commands that run without a GPU do not read the cache; its cases (world-writable or foreign
# directory, FIFO and symlinked entries, an empty path, the per-user fallback) are tests/CacheTest.cpp.

# ---- Several files -----------------------------------------------------------------------
wf 120 verify "$T/dup.json" "$ROOT/specs/stockham_4096_f32.json" "$T/sign.json"
if [ $rc -eq 2 ] && grep -qF "dup.json" <<<"$out" && grep -qF "sign.json" <<<"$out"; then pass "verify a b c reports every file"
else fail "verify a b c reports every file" "exit $rc: $(head -c 300 <<<"$out")"; fi

# ---- Arch-specific code ------------------------------------------------------------------
# A correlator asking for wgmma (sm_90a code): emitting it for sm_80 is a spec error at /tuning/mma, not a kernel
# that fails in ptxas; for sm_90 the source carries its #error guard and the header says how to build it.
sed -e 's/"polarization_order": "r1_r2"/"polarization_order": "r1_r2", "tuning": {"mma": "wgmma"}/' "$ROOT/specs/correlator_meerkat_80_8bit.json" > "$T/wgmma.json"
wf 60 emit "$T/wgmma.json" -o "$T/emit-wgmma80" --arch sm_80
if [ $rc -eq 2 ] && grep -qF "/tuning/mma" <<<"$out"; then pass "wgmma spec emitted for sm_80 (rejected at /tuning/mma)"
else fail "wgmma spec emitted for sm_80" "exit $rc: $(head -c 300 <<<"$out")"; fi
wf 60 emit "$T/wgmma.json" -o "$T/emit-wgmma90" --arch sm_90
if [ $rc -eq 0 ] && grep -qF "__CUDA_ARCH_FEAT_SM90_ALL" "$T"/emit-wgmma90/*_correlate.cu && grep -qF "sm_90a" "$T"/emit-wgmma90/*_plan.h; then
  pass "wgmma spec emitted for sm_90 (guarded sm_90a source, header says so)"
else fail "wgmma spec emitted for sm_90" "exit $rc: $(head -c 300 <<<"$out")"; fi

# ---- Round 2: files that are not files -----------------------------------------------------
mkfifo "$T/fifo.json"
wf 10 verify "$T/fifo.json"
if [ $rc -eq 2 ] && grep -qF "FIFO" <<<"$out"; then pass "FIFO with no writer as a spec (refused, no hang)"
else fail "FIFO with no writer as a spec" "exit $rc (124: blocked): $(head -c 300 <<<"$out")"; fi
wf 10 bench --sweep stockham --dry-run --cases 1 --seed 1 --sweep-cases "$T/fifo.json"
if [ $rc -eq 2 ] && grep -qF "FIFO" <<<"$out"; then pass "FIFO with no writer as bench --sweep-cases (refused, no hang)"
else fail "FIFO with no writer as bench --sweep-cases" "exit $rc (124: blocked): $(head -c 300 <<<"$out")"; fi
wf 10 verify /dev/zero
if [ $rc -eq 2 ] && grep -qF "device" <<<"$out"; then pass "/dev/zero as a spec (refused at once)"
else fail "/dev/zero as a spec" "exit $rc: $(head -c 300 <<<"$out")"; fi

mkdir -p "$T/emit-link"; echo precious > "$T/precious.txt"
ln -s "$T/precious.txt" "$T/emit-link/stockham_4096_f32_plan.h"
wf 60 emit "$ROOT/specs/stockham_4096_f32.json" -o "$T/emit-link"
if [ $rc -eq 2 ] && [ "$(cat "$T/precious.txt")" = precious ] && grep -qF "symbolic link" <<<"$out"; then pass "emit -o DIR with a planted symlink (refused, target untouched)"
else fail "emit -o DIR with a planted symlink" "exit $rc, target now: $(head -c 40 "$T/precious.txt"): $(head -c 300 <<<"$out")"; fi
ln -s "$T/nowhere/at/all" "$T/dangling-out"
wf 60 emit "$ROOT/specs/stockham_4096_f32.json" -o "$T/dangling-out"
if [ $rc -eq 2 ] && grep -qF "dangling symbolic link" <<<"$out"; then pass "emit -o onto a dangling symlink (says so)"
else fail "emit -o onto a dangling symlink" "exit $rc: $(head -c 300 <<<"$out")"; fi
mkdir -p "$T/emit-dangling"; ln -s "$T/nowhere/x" "$T/emit-dangling/stockham_4096_f32_plan.h"
wf 60 emit "$ROOT/specs/stockham_4096_f32.json" -o "$T/emit-dangling"
if [ $rc -eq 2 ] && grep -qF "dangling symbolic link" <<<"$out" && [ ! -e "$T/nowhere/x" ]; then pass "emit -o DIR with a dangling symlink planted (refused, nothing created)"
else fail "emit -o DIR with a dangling symlink planted" "exit $rc: $(head -c 300 <<<"$out")"; fi

# ---- Round 2: standard input, did you mean, exit codes ------------------------------------
wf 60 verify --no-compile - < "$ROOT/specs/stockham_4096_f32.json"
if [ $rc -eq 0 ]; then pass "verify - reads the spec from standard input"; else fail "verify - reads standard input" "exit $rc: $(head -c 300 <<<"$out")"; fi
out=$(sed 's/"length": 4096/"lenght": 4096/' "$ROOT/specs/stockham_4096_f32.json" | timeout -k 5 30 "$WF" verify - 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -qF "<stdin>: /lenght: unknown field; did you mean 'length'?" <<<"$out"; then pass "misspelt member from standard input: did you mean, named <stdin>"
else fail "misspelt member from standard input" "exit $rc: $(head -c 300 <<<"$out")"; fi
wf 10 --help
if grep -qF "4 internal" <<<"$out" && grep -qF "3 CUDA" <<<"$out"; then pass "--help documents the exit codes (4: internal error)"
else fail "--help documents the exit codes" "$(tail -c 300 <<<"$out")"; fi

# ---- Round 2: slow parses and walks --------------------------------------------------------
python3 -c '
import sys
sys.stdout.write("{\"name\": \"s\", \"family\": \"stockham\", \"precision\": \"f32\", \"length\": 64, \"tuning\": {" + ", ".join("\"k%d\": %d" % (i, i) for i in range(300000)) + "}}")
' > "$T/keys300k.json"
wf 10 verify "$T/keys300k.json"
if [ $rc -eq 2 ] && grep -qF "/tuning/k0" <<<"$out"; then pass "5 MB spec of 300k keys (refused within 10 s; it took 91 s)"
else fail "5 MB spec of 300k keys" "exit $rc (124: still parsing after 10 s): $(head -c 300 <<<"$out")"; fi
bfj() {  # bfj FILE RECEIVERS BEAMS SAMPLES OUTPUT EXTRA
  echo "{\"name\": \"b\", \"family\": \"beamformer\", \"receivers\": $2, \"beams\": $3, \"samples_per_call\": $4, \"sample_type\": \"ci8\", \"weight_type\": \"ci8\", \"output\": $5$6}" > "$1"
}
bfj "$T/power20.json" 64 96 2097152 '{"kind": "power", "integrate": 1048576}' ''
wf 10 verify --no-compile "$T/power20.json"
if [ $rc -eq 0 ]; then pass "beamformer power with integrate 2^20 verifies within 10 s"
else fail "beamformer power with integrate 2^20" "exit $rc (124: still walking after 10 s): $(head -c 300 <<<"$out")"; fi

# ---- Round 2: extents and grids ------------------------------------------------------------
for ty in cf16:1073741824 ci4:16777216; do
  echo "{\"name\": \"cw\", \"family\": \"correlator\", \"receivers\": 2, \"channels\": 1, \"samples_per_call\": ${ty#*:}, \"sample_type\": \"${ty%%:*}\", \"input\": {\"layout\": \"strides\", \"strides\": {\"batch\": 0, \"channel\": 0, \"receiver\": 1, \"polarization\": 2, \"time\": 1099511627776}}}" > "$T/wrap_${ty%%:*}.json"
  expect_error "correlator ${ty%%:*} time stride 2^40 (extent past 2^63)" "$T/wrap_${ty%%:*}.json" 30 "/input/strides/time"
done
bfj "$T/bfwrap.json" 4 8 268435456 '{"kind": "beams", "type": "cf32"}' ', "samples": {"layout": "strides", "strides": {"batch": 0, "channel": 0, "polarization": 0, "time": 1099511627776, "receiver": 1}}'
expect_error "beamformer samples time stride 2^40 (extent past 2^63)" "$T/bfwrap.json" 30 "/samples/strides/time"
bfj "$T/bfgrid.json" 16 65536 65536 '{"kind": "beams", "type": "cf32"}' ', "tuning": {"block_times": 8, "block_beams": 8, "warp_times": 8, "warp_beams": 8, "mma": "mma_sync"}'
wf 60 emit "$T/bfgrid.json" -o "$T/emit-bfgrid" --arch sm_80
if [ $rc -eq 0 ] && grep -qF "max_batch = 31LL" "$T"/emit-bfgrid/b_plan.h; then pass "beamformer of 2^26 blocks per entry: the plan refuses batch 32 (max_batch 31)"
else fail "beamformer grid past 2^31 - 1 blocks" "exit $rc: $(head -c 300 <<<"$out")"; fi

# ---- Round 2: verify --json and bytes that are not UTF-8 -----------------------------------
bad_name="$T/name-"$'\xff\xfe'".json"
cp "$ROOT/specs/stockham_4096_f32.json" "$bad_name"
printf '{"name": "s", "family": "stockham", "precision": "f32", "length": 64, "description": "\xff\xfe"}' > "$T/nonutf8.json"
out=$(timeout -k 5 120 "$WF" verify --json --no-compile "$ROOT/specs/stockham_4096_f32.json" "$bad_name" "$T/nonutf8.json" 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
objs = [json.loads(l) for l in lines]
assert len(objs) == 3, len(objs)
assert objs[0]["ok"] and objs[0]["exit"] == 0 and objs[1]["ok"] and objs[1]["exit"] == 0, objs[:2]
assert not objs[2]["ok"] and objs[2]["exit"] == 2, objs[2]
' <<<"$out"; then pass "verify --json with non-UTF-8 bytes in a file name and a spec (valid JSON for every file, exit per file)"
else fail "verify --json with non-UTF-8 bytes" "exit $rc: $(head -c 400 <<<"$out")"; fi

# ---- Round 2: descriptions, names, defaults, tuning ---------------------------------------
for f in correlator_meerkat_80_8bit beamformer_chord_512x96_4bit gridder_s32_4pol_sfu stockham_4096_f32 chime_fft_256_512; do
  python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["description"] = 5; print(json.dumps(j))' "$ROOT/specs/$f.json" > "$T/desc_$f.json"
  expect_error "$f with a numeric description" "$T/desc_$f.json" 30 "/description: expected a string"
done
for n in _ u32 pad x_ a__b; do
  sed -e "s/\"name\": \"correlator_meerkat_80_8bit\"/\"name\": \"$n\"/" "$ROOT/specs/correlator_meerkat_80_8bit.json" > "$T/cname_$n.json"
  expect_error "correlator named '$n'" "$T/cname_$n.json" 30 "/name: name '$n' is reserved"
done
grj() {  # grj FILE S P EXTRA
  echo "{\"name\": \"g\", \"family\": \"gridder\", \"direction\": \"grid\", \"subgrid_size\": $2, \"correlations\": $3, \"grid_size\": 256, \"image_size\": 0.04, \"observation\": {\"stations\": 4, \"time_steps\": 16, \"channels\": 4}, \"channels_per_subgrid\": 4$4}" > "$1"
}
grj "$T/g_name.json" 16 4 ''; sed -i 's/"name": "g"/"name": "_"/' "$T/g_name.json"
wf 30 verify "$T/g_name.json"
if [ $rc -eq 2 ] && grep -qF "g_name.json: /name: name '_' is reserved" <<<"$out" && ! grep -qF "subgrid FFT" <<<"$out"; then pass "gridder named '_' (refused at /name in the user's terms)"
else fail "gridder named '_'" "exit $rc: $(head -c 300 <<<"$out")"; fi
for S in 8 24 40 56; do
  grj "$T/g_s$S.json" $S 4 ''
  wf 60 verify --no-compile "$T/g_s$S.json"
  if [ $rc -eq 0 ]; then pass "gridder subgrid size $S with default tuning"; else fail "gridder subgrid size $S" "exit $rc: $(head -c 300 <<<"$out")"; fi
done
grj "$T/g_s64.json" 64 4 ''
wf 300 compile "$T/g_s64.json" --arch sm_90
if [ $rc -eq 0 ]; then pass "gridder S=64 with 4 correlations compiles without spills"; else fail "gridder S=64, 4 correlations" "compile exit $rc: $(grep -i spill <<<"$out" | head -c 300)"; fi
for w in 24 8; do
  bfj "$T/bf_w$w.json" 64 96 256 '{"kind": "beams", "type": "cf32"}' ", \"tuning\": {\"warp_beams\": $w}"
  wf 60 verify --no-compile "$T/bf_w$w.json"
  if [ $rc -eq 0 ]; then pass "beamformer warp_beams $w with 96 beams (default tiles adapt)"; else fail "beamformer warp_beams $w" "exit $rc: $(head -c 300 <<<"$out")"; fi
done
bfj "$T/bf_huge.json" 64 1024 1024 '{"kind": "beams", "type": "cf32"}' ', "tuning": {"block_times": 512, "block_beams": 512, "warp_times": 8, "warp_beams": 8}'
expect_error "beamformer tuning of 4096 warps (a spec error)" "$T/bf_huge.json" 30 "/tuning"
bfj "$T/bf_stages.json" 64 96 256 '{"kind": "beams", "type": "cf32"}' ', "tuning": {"stages": 6, "mma": "mma_sync"}'
wf 60 verify --no-compile "$T/bf_stages.json"; r1=$rc; o1=$out
wf 60 verify --no-compile --strict "$T/bf_stages.json"
if [ $r1 -eq 0 ] && grep -qF "warning:" <<<"$o1" && grep -qF "stages 6" <<<"$o1" && [ $rc -eq 2 ]; then pass "stages 6 on mma.sync: a warning, an error with --strict"
else fail "stages 6 on mma.sync" "exit $r1 then $rc: $(head -c 300 <<<"$o1")"; fi
grj "$T/g_res.json" 32 4 ', "tuning": {"resident_threads": 32}'
wf 60 verify --no-compile "$T/g_res.json"; r1=$rc; o1=$out
wf 60 verify --no-compile --strict "$T/g_res.json"
if [ $r1 -eq 0 ] && grep -qF "resident_threads 32" <<<"$o1" && [ $rc -eq 2 ]; then pass "gridder resident_threads 32: a warning, an error with --strict"
else fail "gridder resident_threads 32" "exit $r1 then $rc: $(head -c 300 <<<"$o1")"; fi

# ---- Round 2: user text in messages --------------------------------------------------------
printf '{"name": "s", "family": "\\u001b]0;owned\\u0007x\\nerror: forged"}' > "$T/esc_family.json"
printf '{"name": "s", "family": "stockham", "precision": "f32", "length": 64, "\\u001b[2J\\nerror: forged": 1}' > "$T/esc_key.json"
printf '{"name": "c", "family": "correlator", "receivers": 4, "channels": 1, "samples_per_call": 256, "sample_type": "ci8\\u0000\\u001b[31m", "input": {"layout": "tcc"}}' > "$T/esc_corr.json"
bfj "$T/esc_bf.json" 4 8 64 '{"kind": "\u001b[31m\nerror: forged"}' ''
for f in esc_family esc_key esc_corr esc_bf; do
  wf 30 verify "$T/$f.json"
  if [ $rc -eq 2 ] && ! grep -q $'\x1b' <<<"$out" && ! grep -q $'\x07' <<<"$out" && [ "$(grep -c '^error:' <<<"$out")" -eq 1 ]; then pass "escape sequences and newlines in $f (escaped, no forged line)"
  else fail "escape sequences and newlines in $f" "exit $rc: $(head -c 300 <<<"$out" | cat -v)"; fi
done

# ---- README ------------------------------------------------------------------------------
if ! grep -qF "../shared" "$ROOT/README.md"; then pass "README has no links outside the repository"; else fail "README has no links outside the repository" "../shared"; fi
i=0; bad=0
while IFS= read -r -d '' block; do
  i=$((i + 1)); printf '%s' "$block" > "$T/readme_$i.json"
  wf 120 verify "$T/readme_$i.json"; [ $rc -eq 0 ] || { bad=$((bad + 1)); echo "  README block $i: exit $rc: $(head -c 200 <<<"$out")"; }
done < <(awk '/^```json$/ {on = 1; buf = ""; next} /^```$/ && on {printf "%s%c", buf, 0; on = 0; next} on {buf = buf $0 "\n"}' "$ROOT/README.md")
if [ $i -ge 3 ] && [ $bad -eq 0 ]; then pass "README's $i JSON blocks verify as written"; else fail "README's JSON blocks verify as written" "$bad of $i fail"; fi
if grep -qi "not scaled\|unnormali\|neither direction is scaled" "$ROOT/README.md"; then pass "README says whether transforms are scaled"; else fail "README says whether transforms are scaled" "nothing"; fi

echo "hostile-cli: $passes passed, $fails failed ($WF)"
[ $fails -eq 0 ]
