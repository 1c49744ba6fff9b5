#!/usr/bin/env bash
# ci/pack-points, then ci/restore-points on a tiny grid, in a scratch copy of the scripts: every
# finished point is packed, the restored points are "done" in a fresh cache with the trained files'
# exact bytes, a second pack adds nothing, and a packed file changed afterwards is refused.
# usage: pack_points.sh CLAIMCHECK SOURCE_DIR RUNS_FILE
set -euo pipefail
CC=$1 SRC=$2 RUNS=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/repo/ci" "$W/repo/claims" "$W/repo/fixtures"
cp "$SRC/ci/pack-points" "$SRC/ci/restore-points" "$SRC/ci/pack-fixture" "$W/repo/ci/"
cp "$RUNS" "$W/repo/claims/runs.yaml"
cd "$W/repo"
export CLAIMCHECK=$CC
"$CC" sweep run tiny_sweep --config claims/runs.yaml --cache "$W/cache" --jobs 2 >/dev/null
ci/pack-points tiny_sweep "$W/cache"
packed=$(ls -d fixtures/tiny_sweep/*/seed* | wc -l)
[ "$packed" -eq 4 ] || { echo "FAIL: $packed of 4 points packed"; exit 1; }
ci/pack-points tiny_sweep "$W/cache" | grep -q "packed 0 point" || { echo "FAIL: a second pack added points"; exit 1; }

ci/restore-points tiny_sweep "$W/restored"
done=$("$CC" sweep plan tiny_sweep --config claims/runs.yaml --cache "$W/restored" | grep -c $'\tdone$')
[ "$done" -eq 4 ] || { echo "FAIL: $done of 4 restored points are done"; exit 1; }
for f in "$W"/restored/*/seed*/*; do
  cmp -s "$f" "$W/cache/${f#"$W"/restored/}" || { echo "FAIL: $f differs from the trained file"; exit 1; }
done

one=$(ls -d fixtures/tiny_sweep/*/seed* | head -1)
printf 'x' >>"$one/metrics.jsonl"
if ci/restore-points tiny_sweep "$W/tampered" 2>"$W/err"; then
  echo "FAIL: a changed packed file was restored"; exit 1
fi
grep -q "does not match run.json" "$W/err" || { echo "FAIL: unexpected error:"; cat "$W/err"; exit 1; }
echo "PASS: 4 points packed and restored byte for byte; a changed one is refused"
