#!/usr/bin/env bash
# ctest cli.folder_locks: one writer per output folder. Two `train` into one --out at once: the second
# says it waits, then resumes where the first ended; both exit 0, and the metrics log has each step
# once, in order (it had duplicated steps). Two `verify` into one --report at once: the second waits,
# and the folder holds one whole report whose figures all exist. Usage: folder_locks.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
cc=$1 src=$2
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-locks.XXXXXX")
trap 'rm -rf "$w"' EXIT
fail() {
  echo "FAIL: $1"
  exit 1
}
runs=$src/tests/data/synthetic_paper/runs.yaml
"$cc" train --config "$runs" --run tiny --seed 0 --out "$w/run" > "$w/a.log" 2>&1 &
a=$!
"$cc" train --config "$runs" --run tiny --seed 0 --out "$w/run" > "$w/b.log" 2>&1 &
b=$!
wait $a || fail "the first trainer exited $?: $(tail -2 "$w/a.log")"
wait $b || fail "the second trainer exited $?: $(tail -2 "$w/b.log")"
grep -q "waiting: another claimcheck is writing" "$w/a.log" "$w/b.log" || fail "neither trainer waited for the other"
python3 - "$w/run/metrics.jsonl" <<'PY' || fail "the metrics log has a step twice or out of order"
import json, sys
steps = [json.loads(line)["step"] for line in open(sys.argv[1])]
assert steps == sorted(set(steps)), steps
PY

cp -r "$src/tests/data/synthetic_paper" "$w/paper"
"$cc" verify "$w/paper/claims" --budget cpu --cache "$w/cache1" --report "$w/report" > "$w/v1.log" 2>&1 &
a=$!
"$cc" verify "$w/paper/claims" --budget cpu --cache "$w/cache2" --report "$w/report" > "$w/v2.log" 2>&1 &
b=$!
wait $a; ra=$?
wait $b; rb=$?
if [ "$ra" -ne 1 ] || [ "$rb" -ne 1 ]; then fail "verify exited $ra and $rb, not 1 and 1 (S2 fails as meant)"; fi
grep -q "waiting: another claimcheck is writing" "$w/v1.log" "$w/v2.log" || fail "neither verify waited for the other"
python3 - "$w/report" <<'PY' || fail "the report folder does not hold one whole report"
import json, os, sys
d = sys.argv[1]
r = json.load(open(f"{d}/report.json"))
for c in r["claims"]:
    for f in c.get("figures", []):
        p = f["file"] if isinstance(f, dict) else f
        assert os.path.exists(os.path.join(d, p)), p
PY
echo "folder locks: ok"
