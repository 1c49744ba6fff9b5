#!/usr/bin/env bash
# claimcheck's training step (Google Benchmark BM_TrainStep: libtorch engine; BM_TrainStepBlas: blas engine) against the PyTorch reference
# (bench/reference_step.py, Debian's python3-torch) in one run, so the ratio is a same-machine,
# same-moment figure: batch 128 on 1 thread (1 libtorch + 1 BLAS) and batch 512 on 2 (1 + 2 BLAS
# threads; the reference with 2 threads). Stop any training first. Prints a markdown table.
#   bench/compare.sh                 # OpenBLAS as the environment sets it (OPENBLAS_CORETYPE, ...)
#   bench/compare.sh --openblas-own  # both sides with OpenBLAS choosing its own kernel
#   bench/compare.sh --all           # then the other rows of perf.md's targets: `verify
#                                    # papers/assign_and_add --budget fixture` timed, and ci/time-run (a 30000-step run
#                                    # against its roofline, ~5 min)
set -euo pipefail
cd "$(dirname "$0")/.."
bench=build/release/bench/claimcheck_bench
[ -x "$bench" ] || { echo "bench/compare.sh: build $bench first (cmake --build --preset release)" >&2; exit 1; }
/usr/bin/python3 -c 'import torch' 2>/dev/null ||
  { echo "bench/compare.sh: the reference needs Debian's python3-torch (apt-get install python3-torch)" >&2; exit 1; }
kernel="as the environment sets it (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset})"
all=0
if [ "${1:-}" = --all ]; then
  all=1
elif [ "${1:-}" = --openblas-own ]; then
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
  kernel="OpenBLAS's own choice"
fi
median_of() {  # $1 a field (real_time, GFLOP/s); Google Benchmark JSON on stdin -> the median's value
  python3 -c 'import json, sys; d = json.load(sys.stdin); print(next(b[sys.argv[1]] for b in d["benchmarks"] if b.get("aggregate_name") == "median"))' "$1"
}
median_ms() { median_of real_time; }
echo "OpenBLAS kernel: $kernel; $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores"
echo
echo "| batch | threads | claimcheck, libtorch engine | claimcheck, blas engine | reference (median of 30 steps) | ratio libtorch / blas |"
echo "| --- | --- | --- | --- | --- | --- |"
run_bench() {  # $1 filter, $2 BLAS threads -> Google Benchmark JSON, medians of 3
  CLAIMCHECK_TORCH_THREADS=1 CLAIMCHECK_BLAS_THREADS=$2 "$bench" --benchmark_filter="$1" \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_format=json 2>/dev/null
}
ours() { run_bench "^$1/$2/" "$3" | median_ms; }  # $1 benchmark name, $2 batch, $3 BLAS threads -> median ms
for cfg in "128 1 1" "512 2 2"; do
  read -r batch threads blas <<< "$cfg"
  lt=$(ours BM_TrainStep "$batch" "$blas")
  fast=$(ours BM_TrainStepBlas "$batch" "$blas")
  ref=$(OPENBLAS_NUM_THREADS=$blas /usr/bin/python3 bench/reference_step.py --batch "$batch" --threads "$threads" --steps 30 |
          sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
  ratios=$(python3 -c "print(f'{$ref / $lt:.2f}x / {$ref / $fast:.2f}x')")
  printf '| %s | %s | %.1f ms | %.1f ms | %s ms | %s |\n' "$batch" "$threads" "$lt" "$fast" "$ref" "$ratios"
done

# The roofline, the same minutes: one core's sgemm rate on a large square product, against the
# blas step's own FLOP count (bench/bench_train.cpp) at batch 128 on one thread.
sgemm=$(run_bench '^BM_Sgemm/1024' 1 | median_of GFLOP/s)
step=$(run_bench '^BM_TrainStepBlas/128/' 1 | median_of GFLOP/s)
echo
python3 -c "
sgemm, step = $sgemm, $step
print(f'Roofline: BM_Sgemm/1024 on one thread {sgemm:.0f} GFLOP/s; the batch-128 blas step {step:.0f} GFLOP/s '
      f'of its own FLOP count: {sgemm / step:.2f}x its roofline')"
[ "$all" = 1 ] || exit 0

echo
report=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-compare.XXXXXX")
trap 'rm -rf "$report"' EXIT
build/release/app/claimcheck verify papers/assign_and_add --budget fixture --baseline papers/assign_and_add/expected.json --report "$report" |
  grep -E '^measured [0-9]+ claim' | sed 's/^/verify papers\/assign_and_add --budget fixture: /'
ci/time-run
