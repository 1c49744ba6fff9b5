#!/usr/bin/env bash
# Run HERE (the CPU machine, which reaches Debian's mirror): downloads the -dev packages the GPU
# machine lacks into .gpu-debs/ (git-ignored), to be carried there by the device tool
# (carry: [".gpu-debs"]). The GPU machine has no package registry.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-debs
cd .gpu-debs
apt-get download libyaml-cpp-dev libyaml-cpp0.7 libboost-program-options-dev libboost-program-options1.74-dev \
  libboost-program-options1.74.0 libboost1.74-dev nlohmann-json3-dev libgtest-dev googletest
ls -la
