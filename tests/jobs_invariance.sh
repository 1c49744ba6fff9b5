#!/usr/bin/env bash
# ctest cli.jobs_invariance: the verdicts and every measured number do not depend on --jobs. With
# more than one thread, claims run at once, a claim's seeds run at once (util/work_pool.h) and the
# grokking claims share one key-frequency reading per checkpoint (ActivationStore::derived): the
# same claims with --jobs 1 and --jobs 3 must give the same report.json, bit for bit, less the
# times. Usage: jobs_invariance.sh CLAIMCHECK SOURCE_DIR
set -euo pipefail
cc=$1 src=$2
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-jobs.XXXXXX")
trap 'rm -rf "$w"' EXIT
G=$src/papers/nanda_grokking/claims
claims=("$G/N5b.yaml" "$G/N7a.yaml" "$G/N12.yaml" "$G/N1.yaml")
for j in 1 3; do
  "$cc" verify "${claims[@]}" --budget fixture --fail-on error --jobs "$j" --quiet --report "$w/j$j" > "$w/out$j" 2>&1 ||
    { cat "$w/out$j"; echo "FAIL: verify --jobs $j exited non-zero"; exit 1; }
done
python3 - "$w/j1/report.json" "$w/j3/report.json" <<'PY'
import json, sys
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ("seconds", "wall_s", "generated", "command")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    for ca, cb in zip(a["claims"], b["claims"]):
        if ca != cb:
            print("FAIL: claim", ca.get("id"), "differs between --jobs 1 and --jobs 3")
    sys.exit(1)
print("jobs invariance: ok (%d claims)" % len(a["claims"]))
PY
