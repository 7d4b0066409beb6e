#!/usr/bin/env bash
# Installs the Debian packages dtsim needs, if any is missing.
#   scripts/install-deps.sh run   what `dtsim run` needs: compiler, CMake, SimGrid, yaml-cpp,
#                                 nlohmann-json, CLI11, fmt, Boost.Graph, zlib and protobuf (traces)
#                                 (scripts/run.sh)
#   scripts/install-deps.sh       all of it (scripts/test.sh): the above, GoogleTest, Qt 6 for
#                                 the sweep charts (plot/: Gui, Svg, a font) and dtsim-gui (gui/:
#                                 Widgets, Charts, and the OpenGL module Qt 6 Charts' CMake package needs),
#                                 and Slurm with munge, which the Slurm tests start on this machine
#   scripts/install-deps.sh fuzz  what `dtsim run` needs, and clang with its libFuzzer runtime
#                                 (bench/fuzz.sh)
# The profiler's CUDA, CUPTI and NCCL are not Debian packages: they come with a GPU machine's
# toolkit. tools/gui-screenshots.sh installs Xvfb itself.
set -euo pipefail
run_packages=(cmake g++ make pkg-config libsimgrid-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
              libfmt-dev libboost-graph-dev zlib1g-dev libprotobuf-dev protobuf-compiler)
test_packages=(libgtest-dev libgmock-dev
               qt6-base-dev qt6-svg-dev qt6-charts-dev libqt6opengl6-dev fonts-dejavu-core
               slurm-wlm munge)
case "${1:-all}" in
  run) packages=("${run_packages[@]}") ;;
  all) packages=("${run_packages[@]}" "${test_packages[@]}") ;;
  fuzz) packages=("${run_packages[@]}" clang libclang-rt-14-dev) ;;
  *) echo "install-deps.sh: expected 'run', 'all' or 'fuzz', found '$1'" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "dtsim: installing ${missing[*]}"
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
