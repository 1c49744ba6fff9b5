#!/usr/bin/env bash
# A second worker that finds a point locked by another process must not exit 0 with the sweep
# unfinished: `sweep run --point K` and `sweep run` both exit 75 (EX_TEMPFAIL) naming the point.
# usage: sweep_busy.sh CLAIMCHECK RUNS_FILE
set -uo pipefail
CC=$1 RUNS=$2
command -v flock >/dev/null || { echo "SKIP: flock (util-linux) is not installed"; exit 77; }
W=$(mktemp -d)
holder=""
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$W"' EXIT
# Point 0's folder, from the plan: CACHE/tiny_sweep-HASH/seedK.
read -r _ _ seed hash _ <<<"$("$CC" sweep plan tiny_sweep --config "$RUNS" --cache "$W/c" | head -1)"
dir=$W/c/tiny_sweep-$hash/${seed/=/}
mkdir -p "$dir"
flock "$dir/.lock" sleep 60 &   # another worker, holding point 0
holder=$!
for _ in $(seq 50); do flock -n "$dir/.lock" true 2>/dev/null || break; sleep 0.1; done
fail=0
out=$("$CC" sweep run tiny_sweep --point 0 --config "$RUNS" --cache "$W/c" 2>&1); rc=$?
if [ "$rc" -eq 75 ] && grep -q "locked by another process" <<<"$out"; then echo "ok   --point 0: exit 75: $out"
else echo "FAIL --point 0: exit $rc: $out"; fail=1; fi
out=$("$CC" sweep run tiny_sweep --config "$RUNS" --cache "$W/c" --jobs 2 --stop-after 20 2>&1); rc=$?
if [ "$rc" -eq 75 ] && grep -q "point(s) 0 are being trained by another process" <<<"$out"; then
  echo "ok   sweep run: exit 75: $(tail -1 <<<"$out")"
else echo "FAIL sweep run: exit $rc:"; echo "$out" | tail -5; fail=1; fi
# A point left unfinished by a holder that died while this worker waited is checked without timing
# in SweepEnsemble.LeftBehindNamesBusyAndUnfinishedPoints (the end-of-run check itself).
exit $fail
