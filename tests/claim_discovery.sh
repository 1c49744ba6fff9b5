#!/usr/bin/env bash
# ctest cli.claim_discovery: ctest's claim tests come from the binary (`claimcheck list --ctest`,
# cmake/ClaimTests.cmake), so verify and ctest find the same files: a claim saved as .yml is a test and
# is verified; defaults.yaml, runs.yaml and paper.yaml are neither; a paper without a baseline has no
# tests. Usage: claim_discovery.sh CLAIMCHECK SOURCE_DIR
set -euo pipefail
cc=$1 src=$2
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-discovery.XXXXXX")
trap 'rm -rf "$w"' EXIT
fail() {
  echo "FAIL: $1"
  exit 1
}
mkdir -p "$w/papers"
cp -r "$src/tests/data/synthetic_paper" "$w/papers/synth"
mv "$w/papers/synth/claims/S1.yaml" "$w/papers/synth/claims/S1.yml"
printf 'tier: cpu\n' > "$w/papers/synth/claims/defaults.yaml"
cp -r "$w/papers/synth" "$w/papers/no_baseline"
echo '{}' > "$w/papers/synth/expected.json"

"$cc" list --ctest --root "$w" > "$w/tests.txt"
cat "$w/tests.txt"
grep -q "^claim\.synth\.S1	.*/claims/S1\.yml	cpu	" "$w/tests.txt" || fail "the .yml claim is not a ctest test"
grep -q "^claim\.synth\.S2	" "$w/tests.txt" || fail "S2 is not a ctest test"
[ "$(wc -l < "$w/tests.txt")" -eq 2 ] || fail "expected exactly the two claims of the paper with a baseline"
grep -q 'defaults\.yaml\|runs\.yaml\|paper\.yaml\|no_baseline' "$w/tests.txt" && fail "a data file or a paper without a baseline was listed"
# verify reads the same files.
"$cc" list "$w/papers/synth" > "$w/list.txt"
grep -q '^S1 ' "$w/list.txt" || fail "list does not read the .yml claim"
# --ctest lists papers, not paths.
rc=0
"$cc" list --ctest "$w/papers/synth" > /dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "list --ctest with a path exited $rc, not 2"
echo "claim discovery: ok"
