#!/usr/bin/env bash
# ctest cli.verify_every_paper: `claimcheck verify` with no path verifies every paper of the checkout,
# each with its own runs file and fixtures, into REPORT/claims and REPORT/NAME. A scratch checkout with
# one claim of each paper (their fixtures linked, not copied). Usage: verify_every_paper.sh CLAIMCHECK SOURCE_DIR
set -euo pipefail
cc=$1 src=$2
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-papers.XXXXXX")
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/claims" "$w/papers/nanda_grokking/claims"
cp "$src/claims/runs.yaml" "$src/claims/paper.yaml" "$src/claims/s4_generalization/G1.yaml" "$w/claims/"
ln -s "$src/fixtures" "$w/fixtures"
cp "$src/papers/nanda_grokking/runs.yaml" "$src/papers/nanda_grokking/paper.yaml" "$w/papers/nanda_grokking/"
cp "$src/papers/nanda_grokking/claims/N1.yaml" "$w/papers/nanda_grokking/claims/"
ln -s "$src/papers/nanda_grokking/fixtures" "$w/papers/nanda_grokking/fixtures"
cd "$w"
rc=0
"$cc" verify --report "$w/out" > "$w/log" 2>&1 || rc=$?
cat "$w/log"
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
for id in G1 N1; do
  grep -q "^PASS  *$id " "$w/log" || { echo "FAIL: $id was not verified"; exit 1; }
done
for r in claims nanda_grokking; do
  [ -f "$w/out/$r/REPORT.md" ] || { echo "FAIL: no $w/out/$r/REPORT.md"; exit 1; }
done
grep -q 'Progress measures for grokking' "$w/out/nanda_grokking/REPORT.md" || { echo "FAIL: the grokking report names another paper"; exit 1; }
# Naming one paper keeps the one-paper behaviour.
"$cc" verify claims --report "$w/one" > /dev/null 2>&1
[ -f "$w/one/REPORT.md" ] || { echo "FAIL: verify claims did not write REPORT/REPORT.md"; exit 1; }
echo "PASS: both papers verified, each into its own report"
