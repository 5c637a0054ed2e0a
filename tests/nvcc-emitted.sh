#!/bin/sh
# `warpforge emit` output builds with nvcc as an nvcc user would: every kernel source for sm_80 and
# sm_90, and a translation unit that includes <name>_plan.h and calls its init/run/destroy.
# NVRTC compiles every spec for both archs in plan_tests (SpecsTest); here the nvcc path (plan header, sm_90a guards,
# offline build) is checked on the first and last spec of each family by name, which covers one- and multi-kernel plans.
# Arguments: warpforge nvcc source-dir
set -eu
wf=$1
nvcc=$2
src=$3
specs=""
for family in $(sed -n 's/.*"family": *"\([a-z_0-9]*\)".*/\1/p' "$src"/specs/*.json | sort -u); do
  of_family=$(grep -l "\"family\": *\"$family\"" "$src"/specs/*.json | sort)
  specs="$specs $(echo "$of_family" | head -n 1) $(echo "$of_family" | tail -n 1)"
done
specs=$(echo $specs | tr ' ' '\n' | sort -u)
# Each arch gets its own emission (a plan emitted for sm_90 may hold sm_90a code: such a source says so in an #error
# guard, and is built as its header asks, with -gencode arch=compute_90a,code=sm_90a).
for spec in $specs; do
  name=$(basename "$spec" .json)
  for arch in sm_80 sm_90; do
    out=emitted/$name/$arch
    rm -rf "$out"
    "$wf" emit "$spec" -o "$out" --arch $arch >/dev/null
    plan=$(ls "$out"/*_plan.h)
    ns=wf_$(basename "$plan" _plan.h)
    printf '#include "%s"\nint main() { %s::State s; if (%s::init(&s) != cudaSuccess) return 1; %s::Arrays a; (void)%s::run(s, a, 1, nullptr, 0); %s::destroy(&s); return 0; }\n' \
      "$(basename "$plan")" "$ns" "$ns" "$ns" "$ns" "$ns" >"$out/use_plan.cu"
    objs=""
    for cu in "$out"/*.cu; do
      target="-arch=$arch"
      if grep -q "__CUDA_ARCH_FEAT_SM90_ALL" "$cu"; then
        target="-gencode arch=compute_90a,code=sm_90a"
        grep -q "sm_90a" "$plan" || { echo "$plan: an sm_90a source but the header does not say so"; exit 1; }
        # built for plain sm_90 it must stop at its guard, not at ptxas
        if "$nvcc" -arch=$arch -std=c++17 -c "$cu" -o /dev/null 2>"$cu.guard.log"; then echo "$cu: built for $arch without sm_90a"; exit 1; fi
        grep -q "generated for sm_90a" "$cu.guard.log" || { cat "$cu.guard.log"; exit 1; }
      fi
      "$nvcc" $target -std=c++17 -c "$cu" -o "$cu.o" 2>"$cu.log" || { cat "$cu.log"; exit 1; }
      objs="$objs $cu.o"
    done
    "$nvcc" -arch=$arch $objs -o "$out/use_plan"
  done
  echo "ok: $name"
done
# A plan whose tables are too large to inline: they are written beside the header and init() reads them.
big=emitted/large_tables
rm -rf "$big" && mkdir -p "$big"
printf '{"name": "bluestein_200003_f64", "family": "stockham", "precision": "f64", "length": 200003}\n' >"$big/spec.json"
"$wf" emit "$big/spec.json" -o "$big" --arch sm_90 >/dev/null
ls "$big"/bluestein_200003_f64_*.bin >/dev/null || { echo "no table file written for the large plan"; exit 1; }
[ "$(wc -c <"$big/bluestein_200003_f64_plan.h")" -lt 2000000 ] || { echo "large tables were inlined into the header"; exit 1; }
printf '#include "bluestein_200003_f64_plan.h"\nint main() { wf_bluestein_200003_f64::State s; return wf_bluestein_200003_f64::init(&s, ".") == cudaSuccess ? 0 : 1; }\n' >"$big/use_plan.cu"
"$nvcc" -arch=sm_90 -std=c++17 -c "$big/use_plan.cu" -o "$big/use_plan.o"
echo "ok: large tables in files"
