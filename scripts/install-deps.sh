#!/usr/bin/env bash
# Installs the Debian packages dtsim needs, if any is missing. Qt 6 Gui and Svg, with a font, are
# for the charts of `dtsim sweep` (plot/); Qt 6 Widgets (in qt6-base-dev) and Charts for dtsim-gui
# and its tests (gui/, tests/gui/). dtsim builds without any of them. The profiler's CUDA is not
# installed here; tools/gui-screenshots.sh installs Xvfb itself.
set -euo pipefail
packages=(cmake g++ make pkg-config libsimgrid-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
          libfmt-dev libboost-graph-dev libgtest-dev libgmock-dev
          qt6-base-dev qt6-svg-dev qt6-charts-dev fonts-dejavu-core)
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
