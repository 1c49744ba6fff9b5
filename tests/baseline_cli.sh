#!/usr/bin/env bash
# The baseline guard can fail: on copies of committed claims (the claims themselves untouched),
# `claimcheck verify --baseline papers/assign_and_add/expected.json` must exit 3 and name the change for
#   - a claim that PASSes, its threshold raised above its value  -> regression
#   - a claim that FAILs, its threshold lowered                   -> unexpected pass
#   - a measurement that returns a slightly different value       -> value
#   - a claim the baseline does not know                          -> added
#   - a loosened rule, another subject, a removed control          -> rule/subject/controls changed
# and exit 0 for unchanged copies, an expected FAIL included. `claimcheck diff` prints the rows.
# usage (from the source tree): baseline_cli.sh CLAIMCHECK
set -uo pipefail
CC=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
G1=papers/assign_and_add/claims/s4_generalization/G1.yaml G4=papers/assign_and_add/claims/s4_generalization/G4.yaml
v() { "$CC" verify "$@" --runs papers/assign_and_add/runs.yaml --baseline papers/assign_and_add/expected.json --report "$W/report"; }
check() {  # NAME EXIT REGEX FILE
  local out rc
  out=$(v "$4" 2>&1); rc=$?
  if [ "$rc" -ne "$2" ] || ! grep -Eq "$3" <<<"$out"; then
    echo "FAIL $1: exit $rc (expected $2), looking for: $3"; echo "$out" | tail -4; fail=1
  else echo "ok   $1: exit $rc: $(grep -Eo "$3.*" <<<"$out" | head -1 | cut -c1-120)"; fi
}
mkdir -p "$W/c"
cp papers/assign_and_add/claims/defaults.yaml "$W/c/"  # paper.arxiv and tier, as the claims folder gives them
cp "$G1" "$W/c/g1_same.yaml"
check unchanged_pass 0 "PASS +G1 " "$W/c/g1_same.yaml"
cp "$G4" "$W/c/g4_same.yaml"
check unchanged_expected_fail 0 "FAIL +G4 .*\[expected: in the baseline\]" "$W/c/g4_same.yaml"
sed 's/  threshold: 0.98/  threshold: 0.999/' "$G1" >"$W/c/g1_raised.yaml"
check regression 3 "CHANGED G1 +regression +PASS [0-9.]+ -> FAIL" "$W/c/g1_raised.yaml"
sed 's/  threshold: 0.98/  threshold: 0.5/' "$G4" >"$W/c/g4_lowered.yaml"
check unexpected_pass 3 "CHANGED G4 +unexpected pass +FAIL [0-9.]+ -> PASS" "$W/c/g4_lowered.yaml"
sed 's/  size: 10000/  size: 9999/' "$G1" >"$W/c/g1_value.yaml"
check value_change 3 "CHANGED G1 +value +.* -> " "$W/c/g1_value.yaml"
sed 's/^id: G1$/id: G1new/' "$G1" >"$W/c/g1_new.yaml"
check added 3 "CHANGED G1new +added" "$W/c/g1_new.yaml"
# diff: the baseline against the last report (the added claim), and against itself.
out=$("$CC" diff papers/assign_and_add/expected.json "$W/report/report.json" 2>&1); rc=$?
if [ "$rc" -eq 3 ] && grep -q "| G1new | \*\*added\*\*" <<<"$out"; then echo "ok   diff: exit 3, the added row"; else echo "FAIL diff: exit $rc"; echo "$out"; fail=1; fi
out=$("$CC" diff papers/assign_and_add/expected.json papers/assign_and_add/expected.json 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -qx "none" <<<"$out"; then echo "ok   diff with itself: none"; else echo "FAIL diff with itself: exit $rc"; echo "$out"; fail=1; fi
# The claim's meaning is pinned: a loosened rule, another subject or a removed control is a change even
# where the verdict and every value stay the same; a wording edit is not.
sed 's/  threshold: 0.98/  threshold: 0.5/' "$G1" >"$W/c/g1_loosened.yaml"
check rule_loosened 3 "CHANGED G1 +rule changed +each seed > 0.98 \(>= 3 seeds\) -> each seed > 0.5 \(>= 3 seeds\)" "$W/c/g1_loosened.yaml"
sed 's/  seeds: all/  seeds: [0, 1, 2]/' "$G1" >"$W/c/g1_subject.yaml"
check subject_changed 3 "CHANGED G1 +subject changed" "$W/c/g1_subject.yaml"
sed '/^control:/,$d' "$G1" >"$W/c/g1_no_control.yaml" && printf 'control:\n  none: "removed"\n' >>"$W/c/g1_no_control.yaml"
check control_removed 3 "CHANGED G1 +controls changed" "$W/c/g1_no_control.yaml"
sed 's/^title: .*/title: "0-var accuracy, reworded"/; s/  text: "> 98%"/  text: "above 98 %"/' "$G1" >"$W/c/g1_title.yaml"
check title_only 0 "expected.json: no change" "$W/c/g1_title.yaml"
# A baseline that would hide a change is refused before anything is measured, naming the entry:
# a huge or negative tolerance, an unknown or missing format, no tolerance, a claim listed twice, a seed's
# row given twice.
badb() {  # NAME REGEX PYTHON-EDIT (of the dict b)
  python3 - "$W/$1.json" "$3" <<'PY'
import json, sys
b = json.load(open("papers/assign_and_add/expected.json"))
exec(sys.argv[2])
json.dump(b, open(sys.argv[1], "w"))
PY
  local out rc
  out=$("$CC" verify "$G1" --runs papers/assign_and_add/runs.yaml --baseline "$W/$1.json" --report "$W/report" 2>&1); rc=$?
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || ! grep -Eq "$2" <<<"$out"; then
    echo "FAIL $1: exit $rc, looking for: $2"; echo "$out" | tail -3; fail=1
  else echo "ok   $1: exit $rc: $(grep -Eo "$2.*" <<<"$out" | head -1 | cut -c1-120)"; fi
}
badb huge_tolerance "tolerance.cpu.scalar_rel = 1000000000.0: must be a number in \[0, 0.01\]" 'b["tolerance"]["cpu"]["scalar_rel"] = 1e9'
badb negative_tolerance "tolerance.cpu.scalar_abs = -0.1: must be a number" 'b["tolerance"]["cpu"]["scalar_abs"] = -0.1'
badb unknown_format 'unknown "format" "claimcheck-baseline/9"' 'b["format"] = "claimcheck-baseline/9"'
badb missing_format 'no "format"' 'del b["format"]'
badb missing_tolerance 'a baseline without "tolerance"' 'del b["tolerance"]'
badb duplicate_seed_row 'seed [0-9]+ has two rows' 'c = next(c for c in b["claims"] if c.get("seeds")); c["seeds"].append(dict(c["seeds"][0], verdict="PASS"))'
badb duplicate_id 'claim "G1" is listed twice' 'b["claims"].append(next(c for c in b["claims"] if c["id"] == "G1"))'
# A full disk at report time (files limited to 1 KB; SIGXFSZ ignored, so writes fail with EFBIG): the
# verdict line is still printed, the exit is non-zero, and no partial figure is left behind.
out=$(bash -c 'trap "" XFSZ; ulimit -f 1; exec "$0" verify papers/assign_and_add/claims/s5_mechanisms/M8a.yaml --runs papers/assign_and_add/runs.yaml --report "$1"' "$CC" "$W/full" 2>&1); rc=$?
partial=$(find "$W/full" -name '*.part' 2>/dev/null | wc -l)
if [ "$rc" -ne 0 ] && grep -Eq "^(PASS|FAIL|INCONCLUSIVE|INVALID) +M8a " <<<"$out" && [ "$partial" -eq 0 ]; then
  echo "ok   disk full: exit $rc, the verdict printed, no partial figure: $(tail -1 <<<"$out" | cut -c1-100)"
else echo "FAIL disk full: exit $rc, $partial partial file(s):"; echo "$out" | tail -4; fail=1; fi

# A report folder used again keeps no figure of the earlier report.
"$CC" verify papers/assign_and_add/claims/s5_mechanisms/M8a.yaml --runs papers/assign_and_add/runs.yaml --report "$W/again" >/dev/null 2>&1
shopt -s nullglob
figs=("$W/again/figures"/M8a-*); before=${#figs[@]}
"$CC" verify "$G1" --runs papers/assign_and_add/runs.yaml --report "$W/again" >/dev/null 2>&1
figs=("$W/again/figures"/M8a-*); after=${#figs[@]}
if [ "$before" -gt 0 ] && [ "$after" -eq 0 ]; then echo "ok   stale figures: $before M8a figure(s) removed by the next report"
else echo "FAIL stale figures: $before before, $after after"; fail=1; fi
exit $fail
