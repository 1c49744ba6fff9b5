#!/usr/bin/env bash
# ctest cli.verify_every_paper: with no path, `verify`, `list` and `explain` read every paper of the
# checkout (papers/NAME), each with its own runs file and fixtures (Assign and Add's found through its
# paper.yaml's `fixtures:`), `verify` into REPORT/NAME. A scratch checkout with one claim of each paper
# (their fixtures linked, not copied). Usage: verify_every_paper.sh CLAIMCHECK SOURCE_DIR
set -euo pipefail
cc=$1 src=$2
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-papers.XXXXXX")
trap 'rm -rf "$w"' EXIT
a=papers/assign_and_add g=papers/nanda_grokking
mkdir -p "$w/$a/claims" "$w/$g/claims"
cp "$src/$a/runs.yaml" "$src/$a/paper.yaml" "$w/$a/"
cp "$src/$a/claims/s4_generalization/G1.yaml" "$src/$a/claims/defaults.yaml" "$w/$a/claims/"
ln -s "$src/fixtures" "$w/fixtures"
cp "$src/$g/runs.yaml" "$src/$g/paper.yaml" "$w/$g/"
cp "$src/$g/claims/N1.yaml" "$src/$g/claims/defaults.yaml" "$w/$g/claims/"
ln -s "$src/$g/fixtures" "$w/$g/fixtures"
# The papers' cross-checks sit beside claims this scratch checkout leaves out (M8b, N6): a cross-check on
# a claim a paper lacks is an error, so they are dropped from the copies.
for p in "$w/$a/paper.yaml" "$w/$g/paper.yaml"; do
  python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); d.pop("cross_checks", None); yaml.safe_dump(d, open(sys.argv[1], "w"), allow_unicode=True)' "$p"
done
cd "$w"
rc=0
"$cc" verify --report "$w/out" > "$w/log" 2>&1 || rc=$?
cat "$w/log"
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
for id in G1 N1; do
  grep -q "^PASS  *$id " "$w/log" || { echo "FAIL: $id was not verified"; exit 1; }
done
for r in assign_and_add nanda_grokking; do
  [ -f "$w/out/$r/REPORT.md" ] || { echo "FAIL: no $w/out/$r/REPORT.md"; exit 1; }
done
grep -q 'Progress measures for grokking' "$w/out/nanda_grokking/REPORT.md" || { echo "FAIL: the grokking report names another paper"; exit 1; }
grep -q 'Assign and Add' "$w/out/assign_and_add/REPORT.md" || { echo "FAIL: Assign and Add's report names another paper"; exit 1; }
# A paper's folder as the path: that paper alone, into REPORT itself.
"$cc" verify "$a" --report "$w/one" > /dev/null 2>&1
[ -f "$w/one/REPORT.md" ] || { echo "FAIL: verify $a did not write REPORT/REPORT.md"; exit 1; }
# An option that names one paper's files, with no path: a usage error, not a guess.
rc=0
"$cc" verify --baseline "$src/$a/expected.json" --report "$w/two" > "$w/log" 2>&1 || rc=$?
{ [ "$rc" -eq 2 ] && grep -q "give that paper's folder" "$w/log"; } || { echo "FAIL: exit $rc:"; cat "$w/log"; exit 1; }
# list: a header before each paper's rows, each claim's inputs found in its own paper's fixtures.
"$cc" list > "$w/list" 2>&1 || { cat "$w/list"; echo "FAIL: list"; exit 1; }
{ grep -q "^== $a/claims" "$w/list" && grep -q "^== $g/claims" "$w/list"; } || { cat "$w/list"; echo "FAIL: list headers"; exit 1; }
grep -E -q "^G1 .* [1-9][0-9]*/[0-9]+ checkpoints" "$w/list" || { cat "$w/list"; echo "FAIL: G1's checkpoints not found"; exit 1; }
# explain finds an id in any paper.
"$cc" explain N1 | grep -q "^N1: " || { echo "FAIL: explain N1"; exit 1; }
"$cc" explain G1 | grep -q "^G1: " || { echo "FAIL: explain G1"; exit 1; }
# A broken paper (its runs file cut short) is an error naming it, and the next paper is still verified.
printf 'runs: [\n' > "$w/$a/runs.yaml"
rc=0
"$cc" verify --report "$w/broken" > "$w/log" 2>&1 || rc=$?
cat "$w/log"
[ "$rc" -eq 1 ] || { echo "FAIL: a broken paper: exit $rc, not 1"; exit 1; }
grep -q "error: .*$a/claims" "$w/log" || { echo "FAIL: the broken paper is not named"; exit 1; }
grep -q "^PASS  *N1 " "$w/log" || { echo "FAIL: the paper after the broken one was not verified"; exit 1; }
echo "PASS: both papers verified, each into its own report; list and explain read both; a broken paper stops no other"
