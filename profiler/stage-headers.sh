#!/usr/bin/env bash
# Copies the header-only libraries the profiler uses (nlohmann-json, CLI11) from a machine that
# has them installed into profiler/third_party/ (ignored by git), so that profiler/ configures on
# its own on a GPU machine that has only the CUDA toolkit and CMake. Usage: stage-headers.sh [PREFIX]
# with PREFIX the include folder holding nlohmann/ and CLI/ (default /usr/include).
set -euo pipefail
src="${1:-/usr/include}"
dst="$(cd "$(dirname "$0")" && pwd)/third_party"
for d in nlohmann CLI; do
  if [ ! -d "$src/$d" ]; then
    echo "stage-headers: $src/$d not found (Debian: apt-get install nlohmann-json3-dev libcli11-dev)" >&2
    exit 1
  fi
done
mkdir -p "$dst"
rm -rf "$dst/nlohmann" "$dst/CLI"
cp -r "$src/nlohmann" "$src/CLI" "$dst/"
echo "stage-headers: nlohmann/ and CLI/ copied into $dst"
