#!/usr/bin/env bash
# Run on a GPU machine, from the repo root: builds claimcheck against the CUDA libtorch of the pip
# torch there (Debian's -dev packages from .gpu-debs/, see ci/gpu/fetch-debs.sh, when the machine
# has no package mirror), runs the gpu-labelled tests, checks that CUDA training repeats bitwise,
# times deterministic against free kernels (BENCH_QUICK=1 stops there),
# trains a 30000-step default run on cuda (timed, then evaluated: does the same seed learn the task
# on the GPU?), times a K = 32 ensemble and a sweep's points stacked (`sweep run --ensemble`). At most 8 flat files under $OUT (the device tool's limit).
# Each stage has its own time limit so that one slow stage still leaves the others' results.
set -uo pipefail
OUT=${OUT:-/tmp/claimcheck-gpu}
mkdir -p "$OUT"
S="$OUT/summary.txt"
now() { date +%s.%N; }
secs() { python3 -c "print(round($2 - $1, 1))"; }
{
  nvidia-smi; echo; uname -a; nproc
  for t in g++ c++ cmake make ninja ccache nvcc python3; do echo "$t: $(command -v $t) $($t --version 2>/dev/null | head -1)"; done
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
} > "$OUT/env.txt" 2>&1
t0=$(now)
if ! ci/gpu/setup claimcheck gpu_tests > "$OUT/build.txt" 2>&1; then
  echo "build failed after $(secs "$t0" "$(now)") s: see build.txt" | tee "$S"; exit 1
fi
echo "build (claimcheck, gpu_tests; $(nproc) cores): $(secs "$t0" "$(now)") s" | tee "$S"
cc=build/cuda/app/claimcheck
timeout 120 ctest --test-dir build/cuda -L gpu --output-on-failure > "$OUT/gpu-tests.txt" 2>&1
echo "ctest -L gpu: exit $?" | tee -a "$S"

# Determinism: the same 1000 steps twice on cuda (deterministic kernels, the default), every
# checkpoint's sha256 compared; then 2000 steps timed with and without deterministic kernels.
D="$OUT/determinism.txt"
for k in 1 2; do
  timeout 90 $cc train --config papers/assign_and_add/runs.yaml --run default --seed 0 --steps 1000 --device cuda \
    --out /tmp/det$k --no-progress >> "$D" 2>&1 || echo "determinism run $k: exit $?" | tee -a "$S"
done
{
  (cd /tmp/det1 && sha256sum step*[0-9].safetensors) > /tmp/det1.sha
  (cd /tmp/det2 && sha256sum step*[0-9].safetensors) > /tmp/det2.sha
  cat /tmp/det1.sha /tmp/det2.sha
} >> "$D" 2>&1
if [ -s /tmp/det1.sha ] && diff /tmp/det1.sha /tmp/det2.sha > /dev/null; then
  echo "cuda determinism: 1000 steps twice, $(wc -l < /tmp/det1.sha) checkpoints bitwise equal" | tee -a "$S"
else
  echo "cuda determinism: checkpoints DIFFER (or missing) between two identical 1000-step runs" | tee -a "$S"
fi
for det in 1 0; do
  t0=$(now)
  CLAIMCHECK_CUDA_DETERMINISTIC=$det timeout 120 $cc train --config papers/assign_and_add/runs.yaml --run default --seed 1 \
    --steps 2000 --device cuda --out /tmp/timing$det --no-progress >> "$D" 2>&1
  echo "default seed 1, 2000 steps on cuda, CLAIMCHECK_CUDA_DETERMINISTIC=$det: exit $? after $(secs "$t0" "$(now)") s" | tee -a "$S"
done
[ "${BENCH_QUICK:-0}" = 1 ] && exit 0

# The 30000-step default run, seed 0, as the fixtures' CPU run but on cuda.
t0=$(now)
timeout 270 $cc train --config papers/assign_and_add/runs.yaml --run default --seed 0 --device cuda \
  --out /tmp/gpu-seed0 --no-progress >> "$D" 2>&1
rc=$?
last=$(find /tmp/gpu-seed0 -maxdepth 1 -name 'step*[0-9].safetensors' 2>/dev/null | sort | tail -1)
echo "default seed 0 on cuda: exit $rc after $(secs "$t0" "$(now)") s, last checkpoint $last" | tee -a "$S"
cp /tmp/gpu-seed0/metrics.jsonl "$OUT/metrics-cuda-seed0.jsonl" 2>/dev/null
if [ -n "$last" ]; then
  timeout 60 $cc eval "$last" --device cuda > "$OUT/eval-cuda-seed0.txt" 2>&1
  echo "eval of $last: exit $?" | tee -a "$S"
fi

# A K = 32 ensemble of seeds 0..31 (one stacked model), 2000 steps: GPU throughput for many seeds.
t0=$(now)
timeout 120 $cc train --config papers/assign_and_add/runs.yaml --run default --seeds "$(seq -s, 0 31)" --ensemble --steps 2000 \
  --device cuda --out /tmp/ensemble32 --no-progress > /dev/null 2>&1
echo "K=32 ensemble, 2000 steps on cuda: exit $? after $(secs "$t0" "$(now)") s" | tee -a "$S"

# A sweep on the GPU path: pair_fraction's 21 points (libtorch engine) as one stacked model
# (`sweep run --ensemble`), 2000 steps each with the sweep's own eval cadence, against one point alone
# in its own process. Points of 30000 steps in a 10-minute job = 21 * 600 / (15 * t_stacked); one
# point per process: 600 / (15 * t_one). The target is >= 60 (#25).
t0=$(now)
timeout 200 $cc sweep run pair_fraction --ensemble 21 --device cuda --stop-after 2000 --cache /tmp/sweep-stacked \
  > "$OUT/sweep-ensemble.txt" 2>&1
rc=$?; t_stacked=$(secs "$t0" "$(now)")
t0=$(now)
timeout 100 $cc sweep run pair_fraction --point 0 --device cuda --stop-after 2000 --cache /tmp/sweep-one \
  >> "$OUT/sweep-ensemble.txt" 2>&1
rc1=$?; t_one=$(secs "$t0" "$(now)")
echo "sweep pair_fraction, 2000 steps: 21 points stacked on cuda exit $rc after $t_stacked s" \
  "($(python3 -c "print(round(21 * 600 / (15 * $t_stacked), 1))") points of 30000 steps per 10 min);" \
  "one point alone exit $rc1 after $t_one s ($(python3 -c "print(round(600 / (15 * $t_one), 2))") per 10 min)" | tee -a "$S"

# The committed CPU checkpoint of seed 0, evaluated on cuda (when copied beside the debs): the GPU's
# evaluation path against the CPU figures in reports/fixtures/REPORT.md.
if [ -f .gpu-debs/cpu-seed0/step030000.safetensors ]; then
  timeout 60 $cc eval .gpu-debs/cpu-seed0/step030000.safetensors --device cuda > "$OUT/eval-cpu-checkpoint-on-cuda.txt" 2>&1
  echo "eval of the CPU seed-0 checkpoint on cuda: exit $?" | tee -a "$S"
fi
