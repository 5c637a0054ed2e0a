#!/bin/sh
# `warpforge emit` output builds with nvcc as an nvcc user would: every kernel source for sm_80 and
# sm_90, and a translation unit that includes <name>_plan.h and calls its init/run/destroy.
# Arguments: warpforge nvcc source-dir
set -eu
wf=$1
nvcc=$2
src=$3
for spec in "$src"/specs/*.json; do
  name=$(basename "$spec" .json)
  out=emitted/$name
  rm -rf "$out"
  "$wf" emit "$spec" -o "$out" --arch sm_90 >/dev/null
  plan=$(ls "$out"/*_plan.h)
  ns=wf_$(basename "$plan" _plan.h)
  printf '#include "%s"\nint main() { %s::State s; if (%s::init(&s) != cudaSuccess) return 1; %s::Arrays a; (void)%s::run(s, a, 1, nullptr, 0); %s::destroy(&s); return 0; }\n' \
    "$(basename "$plan")" "$ns" "$ns" "$ns" "$ns" "$ns" >"$out/use_plan.cu"
  for arch in sm_80 sm_90; do
    objs=""
    for cu in "$out"/*.cu; do
      "$nvcc" -arch=$arch -std=c++17 -c "$cu" -o "$cu.$arch.o" 2>"$cu.$arch.log" || { cat "$cu.$arch.log"; exit 1; }
      objs="$objs $cu.$arch.o"
    done
    "$nvcc" -arch=$arch $objs -o "$out/use_plan_$arch"
  done
  echo "ok: $name"
done
