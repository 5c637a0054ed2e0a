#!/bin/sh
# Every tracked C++ source and test follows .clang-format (the device helper templates under templates/ are embedded
# into emitted kernels and keep their own layout). Arguments: clang-format source-dir
set -eu
cd "$2"
files=$(git ls-files '*.cpp' '*.h' | grep -v '^templates/' || true)
[ -n "$files" ] || { echo "no git checkout: nothing to check"; exit 0; }
echo "$files" | xargs "$1" --dry-run --Werror
echo "$(echo "$files" | wc -l) files formatted as .clang-format says"
