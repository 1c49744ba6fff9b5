#!/usr/bin/env bash
# For a GPU machine without access to a package mirror: run this on a machine that has one; it
# downloads the -dev packages a bare CUDA machine lacks into .gpu-debs/ (git-ignored). Copy that
# folder to the GPU machine next to the checkout; ci/gpu/bench.sh unpacks it there. A GPU runner
# with apt access does not need it (bench.sh installs what is missing). It carries no CBLAS on
# purpose: Debian's libblas3 alone is the reference BLAS, ~18x slower. Where the GPU machine has its
# own OpenBLAS with cblas.h (the H200 image does: OpenBLAS 0.3.26, seen 2026-11-30), CMake finds it
# and the blas engine (a CPU path) is built; elsewhere it is not, and CPU evaluation uses libtorch's.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-debs
cd .gpu-debs
apt-get download libyaml-cpp-dev libyaml-cpp0.7 libboost-program-options-dev libboost-program-options1.74-dev \
  libboost-program-options1.74.0 libboost1.74-dev nlohmann-json3-dev libgtest-dev googletest libssl-dev libssl3
ls -la
