#!/usr/bin/env bash
# Short runs of the default config under one changed unstated choice, several seeds each, to
# see how often variable binding is learned (reports/assumptions.md, "Seed sweep").
# Usage: experiments/seed_sweep.sh NAME STEPS "SEEDS" [extra claimcheck train flags...]
#   e.g. experiments/seed_sweep.sh b128 8000 "0 1 2 3 4 5" --batch 128
# CLAIMCHECK=path picks the binary (e.g. a copy, so rebuilding does not disturb a sweep).
# Runs go to ${SWEEP_DIR:-sweeps}/NAME/seedK (resumable); summarise with experiments/summarise.py.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1 steps=$2 seeds=$3; shift 3
for s in $seeds; do
  "${CLAIMCHECK:-./build/release/app/claimcheck}" train --config claims/runs.yaml --run default --seed "$s" --steps "$steps" \
    --out "${SWEEP_DIR:-sweeps}/$name/seed$s" --no-progress "$@"
done
