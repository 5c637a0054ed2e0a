#!/bin/sh
# Installs warpforge from build dir $1 into a private prefix, checks the installed files (no FFTW symbol in any
# library, no absolute path in the CMake package or a RUNPATH), moves the prefix, then builds tests/consumer against it
# with find_package(warpforge) and runs: the C++17 consumer, the C++20 one on the CHIME spec, the runtime-only one
# on a plan file the moved CLI saved (on a GPU also run and checked against the reference), and the Python module
# from the moved prefix ($3: the interpreter, if the module was built).
set -eu
build=$1
src=$2
python=${3:-}
here=$(pwd)
prefix=$here/consumer-prefix
moved=$here/consumer-moved
rm -rf "$prefix" "$moved" "$here/consumer-build" "$here/consumer-run"
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "FAIL: $*"; exit 1; }

libs=$(find "$prefix" -name 'libwarpforge_*.so*' -type f; find "$prefix" -name '_warpforge*.so' -type f)
[ -n "$libs" ] || fail "no shared libraries installed"
for f in $libs; do
  # FFTW's own symbols (fftw_plan_dft_1d, fftwf_execute, ...), defined or needed; not names that mention it.
  if { nm -D "$f"; nm "$f" 2>/dev/null; } | grep -Eq ' [A-Za-z] _?fftw[fl]?_'; then fail "$f has FFTW symbols"; fi
  if readelf -d "$f" | grep NEEDED | grep -qi fftw; then fail "$f needs FFTW"; fi
  if readelf -d "$f" | grep -E 'RUNPATH|RPATH' | grep -v '\$ORIGIN' | grep -q .; then fail "$f has an absolute RUNPATH"; fi
done
for f in $(find "$prefix/lib" -name 'libwarpforge_*.so.*.*.*'); do
  readelf -d "$f" | grep -q "SONAME.*libwarpforge_[a-z]*\.so\.[0-9]*\.[0-9]*\]" || fail "$f has no versioned SONAME"
done
if grep -rl -e "$build" -e "$src" -e "$prefix" -e /usr/local/cuda -e fftw "$prefix/lib/cmake"; then fail "absolute paths in the CMake package"; fi
# Each library's calls to functions it defines itself are bound when it is linked (-Bsymbolic-functions): a library
# loaded earlier that exports the same template instantiation (PyTorch loads its std::regex instantiations with
# RTLD_GLOBAL) can never replace ours. Here: no PLT slot names a function the library defines.
for f in $(find "$prefix/lib" -name 'libwarpforge_*.so.*.*.*'); do
  readelf -W --dyn-syms "$f" | awk '$4 == "FUNC" && $7 != "UND" {print $8}' | sed 's/@.*//' | sort -u > "$here/defined.txt"
  readelf -rW "$f" | awk '/JUMP_SLO/ {print $5}' | sed 's/@.*//' | sort -u > "$here/slots.txt"
  [ -s "$here/defined.txt" ] || fail "$f: no defined functions read (readelf's format?)"
  own=$(comm -12 "$here/defined.txt" "$here/slots.txt" | wc -l)
  [ "$own" -eq 0 ] || fail "$f calls $own of its own functions through the dynamic linker, e.g. $(comm -12 "$here/defined.txt" "$here/slots.txt" | head -1)"
done
echo "installed: $(echo $libs | wc -w) shared libraries, no FFTW symbol, own functions bound at link time, relative RUNPATHs, a relocatable CMake package"

mv "$prefix" "$moved"
deps=$(sed -n 's/^CMAKE_PREFIX_PATH:[A-Z]*=//p' "$build/CMakeCache.txt")
cmake -S "$src/tests/consumer" -B "$here/consumer-build" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$moved;$deps" >/dev/null
cmake --build "$here/consumer-build" -j2 >/dev/null
if readelf -d "$here/consumer-build/runtime_only" | grep NEEDED | grep -q generator; then fail "runtime_only links the generator"; fi

spec=$src/specs/chime_fft_256_512.json
"$here/consumer-build/consumer17" "$spec"
"$here/consumer-build/consumer" "$spec"

# A plan saved by the (moved) CLI, loaded by the runtime alone.
arch=$("$here/consumer-build/runtime_only" --device-arch)
run=$here/consumer-run
mkdir -p "$run"
"$moved/bin/warpforge" emit "$spec" -o "$run" --arch "$arch" --plan-json >/dev/null
plan=$run/chime_fft_256_512_plan.json
"$here/consumer-build/runtime_only" "$plan"
if "$here/consumer-build/runtime_only" --has-gpu; then
  "$here/consumer-build/consumer" "$spec" --write-inputs "$run" 1000 4242
  "$here/consumer-build/runtime_only" "$plan" "$run" 1000
  "$here/consumer-build/consumer" "$spec" --check "$run" 1000 4242
fi

if [ -n "$python" ] && [ -d "$(echo "$moved"/lib/python3*/site-packages/warpforge)" ]; then
  PYTHONPATH=$(echo "$moved"/lib/python3*/site-packages) "$python" -c \
    "import warpforge; print('python from the moved prefix:', warpforge.__version__, sorted(warpforge.families()))"
fi
echo PASS
