#!/usr/bin/env bash
# ctest cli.folder_locks: one writer per output folder. While another process holds a run folder (or a
# report folder), `train` (or `verify`) into it says it waits and waits; released, it finishes, exit 0
# (verify: 1, S2 fails as meant). Two `train` into one --out at once both exit 0 and the metrics log
# has each step once, in order (it had duplicated steps). No timing is assumed: the holder keeps the
# lock until this script, having seen the waiting message, releases it.
# Usage: folder_locks.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
cc=$1 src=$2
command -v flock >/dev/null || { echo "SKIP: flock (util-linux) is not installed"; exit 77; }
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-locks.XXXXXX")
holder=""
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$w"' EXIT
fail() {
  echo "FAIL: $1"
  exit 1
}
runs=$src/tests/data/synthetic_paper/runs.yaml
hold() {  # DIR: lock DIR until $w/release-NAME exists
  mkdir -p "$1"
  flock "$1" sh -c "while [ ! -e '$w/release-$(basename "$1")' ]; do sleep 0.1; done" &
  holder=$!
  for _ in $(seq 600); do flock -n "$1" true 2>/dev/null || return 0; sleep 0.1; done
  fail "the holder did not take $1"
}
await_waiting() {  # LOG PID
  for _ in $(seq 1200); do
    grep -q "waiting: another claimcheck is writing" "$1" && return 0
    kill -0 "$2" 2>/dev/null || fail "it finished without waiting: $(tail -2 "$1")"
    sleep 0.1
  done
  fail "no waiting message in 120 s"
}

hold "$w/run"
"$cc" train --config "$runs" --run tiny --seed 0 --out "$w/run" > "$w/a.log" 2>&1 &
a=$!
await_waiting "$w/a.log" $a
touch "$w/release-run"
wait $a || fail "the waiting trainer exited $?: $(tail -2 "$w/a.log")"
wait "$holder"; holder=""

rm -rf "$w/run2"
"$cc" train --config "$runs" --run tiny --seed 0 --out "$w/run2" > "$w/b.log" 2>&1 &
a=$!
"$cc" train --config "$runs" --run tiny --seed 0 --out "$w/run2" > "$w/c.log" 2>&1 &
b=$!
wait $a || fail "the first of two trainers exited $?: $(tail -2 "$w/b.log")"
wait $b || fail "the second of two trainers exited $?: $(tail -2 "$w/c.log")"
python3 - "$w/run2/metrics.jsonl" <<'PY' || fail "the metrics log has a step twice or out of order"
import json, sys
steps = [json.loads(line)["step"] for line in open(sys.argv[1])]
assert steps == sorted(set(steps)), steps
PY

cp -r "$src/tests/data/synthetic_paper" "$w/paper"
hold "$w/report"
"$cc" verify "$w/paper/claims" --budget cpu --cache "$w/cache" --report "$w/report" > "$w/v.log" 2>&1 &
a=$!
await_waiting "$w/v.log" $a
touch "$w/release-report"
wait $a; rc=$?
[ "$rc" -eq 1 ] || fail "the waiting verify exited $rc, not 1 (S2 fails as meant)"
wait "$holder"; holder=""
if [ ! -s "$w/report/REPORT.md" ] || [ ! -s "$w/report/report.json" ]; then fail "no whole report after the wait"; fi
echo "folder locks: ok"
