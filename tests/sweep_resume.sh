#!/usr/bin/env bash
# kill -9 during `claimcheck sweep run`, then rerun: the collected summary must be bitwise the
# summary of an uninterrupted sweep, and `sweep plan` must have shown the killed points as partial.
# usage: sweep_resume.sh CLAIMCHECK RUNS_FILE
set -euo pipefail
CC=$1 RUNS=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
run() { "$CC" sweep "$@" --config "$RUNS"; }

# Uninterrupted.
run run tiny_sweep --cache "$W/a" --jobs 2 >/dev/null
run collect tiny_sweep --cache "$W/a" --out "$W/out_a" >/dev/null

# Interrupted: a process group of its own, killed with SIGKILL once a point has saved a resume
# point past step 0 and before the sweep is done (bounded: 60 s).
setsid "$CC" sweep run tiny_sweep --config "$RUNS" --cache "$W/b" --jobs 2 >"$W/b.log" 2>&1 &
pgid=$!
for _ in $(seq 600); do
  if compgen -G "$W/b/*/seed*/step0001[05]0.optim.safetensors" >/dev/null; then break; fi
  sleep 0.1
done
kill -9 -- "-$pgid" 2>/dev/null || true
wait "$pgid" 2>/dev/null || true
plan=$(run plan tiny_sweep --cache "$W/b")
echo "$plan"
if ! grep -q "partial at step" <<<"$plan"; then
  echo "FAIL: no point was left partial by kill -9 (the kill came too late to test resuming)"
  exit 1
fi
run run tiny_sweep --cache "$W/b" --jobs 2 >/dev/null   # resumes the partial points
run collect tiny_sweep --cache "$W/b" --out "$W/out_b" >/dev/null
if cmp "$W/out_a/summary.jsonl" "$W/out_b/summary.jsonl"; then
  echo "PASS: the resumed sweep's summary is bitwise the uninterrupted one ($(wc -l <"$W/out_a/summary.jsonl") points)"
else
  echo "FAIL: summaries differ"; diff <(tr ',' '\n' <"$W/out_a/summary.jsonl") <(tr ',' '\n' <"$W/out_b/summary.jsonl") | head -20
  exit 1
fi
# A second run on a finished sweep trains nothing.
run run tiny_sweep --cache "$W/b" | grep -q "0 to train, 4 done"
