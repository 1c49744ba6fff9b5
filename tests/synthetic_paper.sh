#!/usr/bin/env bash
# ctest engine.synthetic_paper: the engine end to end on a paper that has no committed fixtures
# (tests/data/synthetic_paper: a + b mod 11, three seeds of 300 steps, trained here in seconds).
# Training through the run store, the verdicts, the baseline round trip, the exit codes, a claim that
# moves, the schemas, and a corrupt checkpoint in the cache. Usage: synthetic_paper.sh CLAIMCHECK SOURCE_DIR
set -euo pipefail
cc=$1 src=$2
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-synthetic.XXXXXX")
trap 'rm -rf "$w"' EXIT
cp -r "$src/tests/data/synthetic_paper" "$w/paper"
fail() {
  echo "FAIL: $1"
  exit 1
}
run() { # run NAME ARGS...: claimcheck verify with the paper's claims and a fresh cache; sets rc
  local name=$1
  shift
  rc=0
  "$cc" verify "$w/paper/claims" --budget cpu --cache "$w/cache" --report "$w/$name" "$@" > "$w/$name.log" 2>&1 || rc=$?
  cat "$w/$name.log"
}

# 1. Nothing is cached: the runs are trained, S1 passes, S2 fails as meant; the baseline is written.
run first --fail-on error --write-baseline "$w/paper/expected.json"
[ "$rc" -eq 0 ] || fail "first run exited $rc"
grep -q '^PASS  *S1 ' "$w/first.log" || fail "S1 did not pass"
grep -q '^FAIL  *S2 ' "$w/first.log" || fail "S2 did not fail"
n=$(find "$w/cache" -name 'step000300.safetensors' | wc -l)
[ "$n" -eq 3 ] || fail "expected 3 trained runs in the cache, found $n"
for f in REPORT.md report.json junit.xml; do [ -s "$w/first/$f" ] || fail "no $f"; done

# 2. Against its own baseline: nothing moved (S2's FAIL is expected), nothing is trained again.
before=$(find "$w/cache" -type f -newer "$w/paper/expected.json" | wc -l)
run second --baseline "$w/paper/expected.json"
[ "$rc" -eq 0 ] || fail "second run against the baseline exited $rc"
grep -q 'no change' "$w/second.log" || fail "the second run reported a change"
after=$(find "$w/cache" -type f -newer "$w/paper/expected.json" | wc -l)
[ "$before" -eq "$after" ] || fail "the second run wrote to the cache (trained again?)"

# 3. A claim whose rule changes moves its verdict: exit 3, the changed row named.
sed -i 's/threshold: 0.9,/threshold: 1.0,/' "$w/paper/claims/S1.yaml"
run moved --baseline "$w/paper/expected.json"
[ "$rc" -eq 3 ] || fail "a moved verdict exited $rc, not 3"
grep -q 'CHANGED S1' "$w/moved.log" || fail "the moved claim is not named"
sed -i 's/threshold: 1.0,/threshold: 0.9,/' "$w/paper/claims/S1.yaml"

# 4. The claim files, the report and the baseline against schemas/ (where python3-jsonschema is).
if python3 -c 'import jsonschema, yaml' 2> /dev/null; then
  python3 - "$src/schemas" "$w" << 'EOF'
import glob, json, sys, jsonschema, yaml
schemas, w = sys.argv[1], sys.argv[2]
load = lambda name: json.load(open(f"{schemas}/{name}.schema.json"))
for f in glob.glob(f"{w}/paper/claims/*.yaml"):
    jsonschema.validate(yaml.safe_load(open(f)), load("claim"))
jsonschema.validate(json.load(open(f"{w}/first/report.json")), load("report"))
jsonschema.validate(json.load(open(f"{w}/paper/expected.json")), load("baseline"))
print("schemas: the claims, report.json and the baseline validate")
EOF
else
  echo "schemas: not checked (python3-jsonschema or python3-yaml missing)"
fi

# 5. A corrupt final checkpoint in the cache: a clear error naming the file, a non-zero exit, no crash.
victim=$(find "$w/cache" -name 'step000300.safetensors' | sort | head -1)
head -c 100 "$victim" > "$w/part" && cp "$w/part" "$victim"
run corrupt --fail-on error
if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then fail "a corrupt checkpoint exited $rc"; fi
grep -q "$(basename "$(dirname "$(dirname "$victim")")")" "$w/corrupt.log" || fail "the error does not name the run"
echo "PASS: the synthetic paper trained, verified, round-tripped its baseline and refused a corrupt checkpoint"
