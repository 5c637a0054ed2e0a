#!/bin/sh
# Installs warpforge from build dir $1 into a private prefix, configures and builds tests/consumer
# against it with find_package(warpforge), and runs it on the CHIME spec (source dir $2).
set -eu
build=$1
src=$2
here=$(pwd)
prefix=$here/consumer-prefix
rm -rf "$prefix" "$here/consumer-build"
cmake --install "$build" --prefix "$prefix" >/dev/null
deps=$(sed -n 's/^CMAKE_PREFIX_PATH:[A-Z]*=//p' "$build/CMakeCache.txt")
cmake -S "$src/tests/consumer" -B "$here/consumer-build" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix;$deps" >/dev/null
cmake --build "$here/consumer-build" -j2 >/dev/null
"$here/consumer-build/consumer" "$src/specs/chime_fft_256_512.json"
