#!/usr/bin/env bash
# The training memory estimate (train/memory_estimate.h) against a training run's max RSS, on a shape
# where the logits dominate: grokking's task at p = 400 with 17 % of the pairs as the full batch
# (27 200 rows, logits in float64) and a model of width 16. The run's RSS over that of the same task
# with almost no training rows (the data and libtorch, which the estimate leaves out) must not pass the
# estimate, read from the refusal `train` prints under a 1 MB budget. Before the logits were counted
# as the loss's backward holds them (7 floats an entry in float64, not 3) and before training mapped its
# large blocks (util/heap.h), this shape took about twice its estimate.
# While training kept glibc's 64 MB heap pad, its max RSS was ~384 or ~455 MB by the environment's size
# or the thread count (util/heap.h), so it is measured at the default thread count and at 4 threads.
# usage: memory_bound_cli.sh CLAIMCHECK
set -uo pipefail
CC=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cat > "$W/runs.yaml" <<'YAML'
runs:
  logit_heavy:
    seeds: [0]
    tier: cpu
    config:
      task: {family: modular_addition, modulus: 400, train_fraction: 0.17, split_seed: 0}
      model: {n_layers: 1, mlp_layers: [0], d_model: 16, n_heads: 1, d_head: 16, d_mlp: 16, activation: relu,
              output_vocab: numbers, init_std: 0.25}
      train: {batch: full, steps: 3, lr: 1.0e-3, weight_decay: 1.0, beta1: 0.9, beta2: 0.98, eps: 1.0e-8,
              warmup_steps: 10, eval_every: 1000, checkpoint_every: 1000, resume_every: 1000}
  data_only:
    base: logit_heavy
    seeds: [0]
    config: {task: {train_fraction: 0.001}}
YAML
# max RSS in kB of training RUN from step 0 (a fresh folder each time: the same one would resume)
rss_kb() {
  local out
  out=$(mktemp -d "$W/$1.XXXX")
  /usr/bin/time -f "%M" -o "$out.rss" "$CC" train --config "$W/runs.yaml" --run "$1" --out "$out" --quiet > "$out.log" 2>&1 ||
    { echo "FAIL: training $1 failed: $(tail -5 "$out.log")"; return; }
  tail -1 "$out.rss"
}
refusal=$(CLAIMCHECK_TRAIN_MEMORY_MB=1 "$CC" train --config "$W/runs.yaml" --run logit_heavy --out "$W/refused" 2>&1)
estimate_mb=$(grep -Eo 'about [0-9.]+ (MB|GB)' <<<"$refusal" | awk '{print ($3 == "GB" ? $2 * 1000 : $2)}')
if [ -z "$estimate_mb" ]; then echo "FAIL: no estimate in the refusal under a 1 MB budget: $refusal"; exit 1; fi
for threads in default 4; do
  if [ "$threads" = default ]; then unset CLAIMCHECK_BLAS_THREADS; else export CLAIMCHECK_BLAS_THREADS=$threads; fi
  heavy=$(rss_kb logit_heavy) base=$(rss_kb data_only)
  for kb in "$heavy" "$base"; do [[ $kb =~ ^[0-9]+$ ]] || { echo "$kb"; exit 1; }; done
  used_mb=$(( (heavy - base) * 1024 / 1000000 ))
  echo "BLAS threads $threads: estimate ${estimate_mb} MB; measured ${used_mb} MB over the task's own (max RSS ${heavy} kB against ${base} kB)"
  # The logits alone are 27 200 x 400 x 4 bytes = 44 MB a copy: a run that allocated none of them measures nothing.
  if [ "$used_mb" -lt 100 ]; then echo "FAIL: the training step allocated under 100 MB: it did not run the shape"; exit 1; fi
  awk -v e="$estimate_mb" -v u="$used_mb" 'BEGIN { exit !(u <= e) }' || { echo "FAIL: the estimate is not an upper bound"; exit 1; }
done
echo "memory bound: ok"
