#!/usr/bin/env bash
# Run on a GPU machine, from the repo root: builds claimcheck against the CUDA libtorch of the pip
# torch there (Debian's -dev packages from .gpu-debs/, see ci/gpu/fetch-debs.sh, when the machine
# has no package mirror), runs the gpu-labelled tests, then times a 30000-step default run and a
# K = 32 ensemble on cuda, writing everything under $OUT.
# Not yet run on real hardware: reports/perf.md has no GPU figures so far.
set -euo pipefail
OUT=${OUT:-/tmp/claimcheck-gpu}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1 || true
ci/gpu/setup > "$OUT/build.txt" 2>&1
ctest --test-dir build/cuda -L gpu --output-on-failure > "$OUT/gpu-tests.txt" 2>&1 || true
start=$(date +%s.%N)
build/cuda/app/claimcheck train --config claims/runs.yaml --run default --seed 0 --device cuda \
  --out "$OUT/default-seed0" --no-progress > "$OUT/train.txt" 2>&1
end=$(date +%s.%N)
echo "30000-step default run on cuda: $(echo "$end - $start" | bc) s" | tee "$OUT/summary.txt"
rm -f "$OUT"/default-seed0/*.optim.safetensors
# A K = 32 ensemble of seeds 0..31 (one stacked model), 2000 steps, checkpoints off the clock:
# the ensemble's GPU throughput, scaled to 30000 steps in the summary.
seeds=$(seq -s, 0 31)
start=$(date +%s.%N)
build/cuda/app/claimcheck train --config claims/runs.yaml --run default --seeds "$seeds" --ensemble --steps 2000 \
  --device cuda --out "$OUT/ensemble32" --no-progress > "$OUT/ensemble.txt" 2>&1
end=$(date +%s.%N)
echo "K=32 ensemble, 2000 steps on cuda: $(echo "$end - $start" | bc) s (x15 for 30000 steps)" | tee -a "$OUT/summary.txt"
rm -rf "$OUT/ensemble32"
