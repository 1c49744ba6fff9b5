#!/usr/bin/env bash
# Run ON the GPU machine (device tool), from the repo root, with .gpu-debs carried:
#   builds claimcheck against the CUDA libtorch of the pip torch there, runs the gpu-labelled
#   tests, then times a 30000-step default run and a K = 32 ensemble on cuda, writing under $OUT.
# Not yet run: no session so far was lent a GPU (see reports/perf.md).
set -euo pipefail
OUT=${OUT:-/tmp/claimcheck-gpu}
mkdir -p "$OUT"
root=$PWD/.gpu-root
mkdir -p "$root"
for f in .gpu-debs/*.deb; do dpkg -x "$f" "$root"; done
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
# pip wheels of torch >= 2.6 use the C++11 ABI like Debian's libraries; older ones do not, and
# then yaml-cpp/boost from Debian cannot be linked: say so instead of failing obscurely.
python3 -c 'import torch, sys; sys.exit(0 if torch.compiled_with_cxx11_abi() else 1)' ||
  { echo "this torch uses the pre-C++11 ABI; Debian's yaml-cpp/boost cannot link with it" | tee "$OUT/abi.txt"; exit 1; }
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true
cmake -S . -B build/cuda -DCMAKE_BUILD_TYPE=Release -DCLAIMCHECK_BUILD_BENCH=OFF \
  -DCMAKE_PREFIX_PATH="$torch_prefix;$root/usr" -DCMAKE_CXX_FLAGS="-isystem $root/usr/include" \
  > "$OUT/configure.txt" 2>&1
cmake --build build/cuda -j "$(nproc)" > "$OUT/build.txt" 2>&1
ctest --test-dir build/cuda -L gpu --output-on-failure > "$OUT/gpu-tests.txt" 2>&1 || true
start=$(date +%s.%N)
build/cuda/app/claimcheck train --config claims/runs.yaml --run default --seed 0 --device cuda \
  --out "$OUT/default-seed0" --no-progress > "$OUT/train.txt" 2>&1
end=$(date +%s.%N)
echo "30000-step default run on cuda: $(echo "$end - $start" | bc) s" | tee "$OUT/summary.txt"
rm -f "$OUT"/default-seed0/*.optim.safetensors
# A K = 32 ensemble of seeds 0..31 (one stacked model), 2000 steps, checkpoints off the clock:
# the figure issue 6 asks for, scaled to 30000 steps in the summary.
seeds=$(seq -s, 0 31)
start=$(date +%s.%N)
build/cuda/app/claimcheck train --config claims/runs.yaml --run default --seeds "$seeds" --ensemble --steps 2000 \
  --device cuda --out "$OUT/ensemble32" --no-progress > "$OUT/ensemble.txt" 2>&1
end=$(date +%s.%N)
echo "K=32 ensemble, 2000 steps on cuda: $(echo "$end - $start" | bc) s (x15 for 30000 steps)" | tee -a "$OUT/summary.txt"
rm -rf "$OUT/ensemble32"
