#!/usr/bin/env bash
# ctest cli.exit_codes: each exit status of the table every --help prints (app/cli.h kExitCodes), from
# the command that gives it, run from a scratch working directory (a baseline's claim files resolve
# against its own folder, not the cwd); and junit.xml agreeing with each: a pipeline that reads the
# exit code and one that reads junit.xml go red together. Usage: exit_codes.sh CLAIMCHECK SOURCE_DIR
set -euo pipefail
cc=$1 src=$2
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-exit.XXXXXX")
trap 'rm -rf "$w"' EXIT
cd "$w"
P=$src/papers/assign_and_add
G1=$P/claims/s4_generalization/G1.yaml G3=$P/claims/s4_generalization/G3.yaml
fail() {
  echo "FAIL: $1"
  exit 1
}
# expect STATUS REPORT_DIR|- COMMAND...: the exit status, and junit.xml's failures + errors > 0 exactly
# when the status is neither 0 nor 77.
expect() {
  local want=$1 report=$2 got=0
  shift 2
  "$@" > "$w/out" 2>&1 || got=$?
  [ "$got" -eq "$want" ] || { cat "$w/out"; fail "exit $got, expected $want: $*"; }
  [ "$report" = - ] && return 0
  python3 - "$report/junit.xml" "$got" <<'PY' || fail "junit.xml disagrees with exit $got: $*"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
red = int(suite.get("failures")) + int(suite.get("errors")) > 0
sys.exit(0 if red == (int(sys.argv[2]) not in (0, 77)) else 1)
PY
}
expect 0 "$w/r0" "$cc" verify "$G1" --baseline "$P/expected.json" --report "$w/r0"
grep -q 'testcase name="claim.assign_and_add.G1"' "$w/r0/junit.xml" || fail "junit.xml lacks ctest's name"
grep -q "1 change" "$w/out" && fail "a subset run reported a removed claim"
expect 1 "$w/r1" "$cc" verify "$G3" --report "$w/r1"
expect 0 "$w/r1e" "$cc" verify "$G3" --fail-on error --report "$w/r1e"
expect 0 "$w/r3e" "$cc" verify "$G3" --baseline "$P/expected.json" --report "$w/r3e"  # an expected FAIL
expect 2 - "$cc" verify --no-such-flag
expect 2 - "$cc" verify "$G1" --budget gpus --report "$w/x"
expect 2 - "$cc" verify "$P/claims/no_such_claim.yaml" --report "$w/x"
expect 2 - "$cc" verify "$G1" --fail-on some --report "$w/x"
expect 2 - "$cc" frobnicate
expect 2 - "$cc" verify "$G1" --seeds "" --report "$w/x"               # not "every seed"
expect 2 - "$cc" verify "$G1" --fixtures "$w/no_such_folder" --report "$w/x"  # not "all SKIPPED"
expect 2 - "$cc" train --config "$P/runs.yaml" --run default --out "$w/t" --stop-after -5  # not "to the end"
# Every exit writes junit.xml: a usage error or a missing input into a folder that holds an old, green
# junit.xml replaces it with one <error> naming why (no stale green file survives a failing run).
cp -r "$w/r0" "$w/rstale"
expect 2 "$w/rstale" "$cc" verify "$G1" --budget gpus --report "$w/rstale"
grep -q "usage error: --budget gpus" "$w/rstale/junit.xml" || fail "the usage error's junit.xml does not name it"
cp -r "$w/r0" "$w/rstale2"
expect 2 "$w/rstale2" "$cc" verify "$G1" --baseline "$w/no_such_baseline.json" --report "$w/rstale2"
expect 2 "$w/rstale2" "$cc" verify "$G1" --runs "$w/no_such_runs.yaml" --report "$w/rstale2"
echo 'runs: [' > "$w/broken_runs.yaml"
expect 1 "$w/rstale2" "$cc" verify "$G1" --runs "$w/broken_runs.yaml" --report "$w/rstale2"
expect 0 "$w/rj" "$cc" verify "$G1" --report "$w/rj" --junit "$w/elsewhere.xml"
cmp -s "$w/rj/junit.xml" "$w/elsewhere.xml" || fail "--junit did not get the report's junit.xml"
: > "$w/a_file"
expect 4 - "$cc" verify "$G1" --report "$w/a_file"
# -k selects claims by id (shell patterns): only they are measured and judged against their rows;
# report.json's status says what the exit status says; a pattern matching nothing is a usage error.
expect 0 "$w/rk" "$cc" verify "$P" -k 'M8*' --baseline "$P/expected.json" --report "$w/rk"
if [ "$(grep -c '<testcase ' "$w/rk/junit.xml")" -ne 2 ] || ! grep -q 'claim.assign_and_add.M8b' "$w/rk/junit.xml"; then
  fail "-k 'M8*' did not measure exactly M8a and M8b"
fi
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["status"]; sys.exit(0 if s == {"exit": 0, "outcome": "ok"} else 1)' \
  "$w/rk/report.json" || fail "report.json's status does not say ok"
expect 2 "$w/rk" "$cc" verify "$P" -k 'Z*' --report "$w/rk"
# A baseline that records G1 as failing: G1's PASS is an unexpected pass.
python3 - "$P/expected.json" "$w/edited.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for c in d["claims"]:
    c["file"] = os.path.join(os.path.dirname(sys.argv[1]), c["file"])  # absolute: the copy lives elsewhere
    if c["id"] == "G1":
        c["verdict"] = "FAIL"
json.dump(d, open(sys.argv[2], "w"))
PY
expect 3 "$w/r3" "$cc" verify "$G1" --baseline "$w/edited.json" --report "$w/r3"
grep -q "unexpected pass" "$w/r3/junit.xml" || fail "junit.xml does not name the change"
expect 77 "$w/r77" "$cc" verify "$P/claims/repro/R2.yaml" --report "$w/r77"
# 4: an output that cannot be written. A file-size limit (claimcheck ignores SIGXFSZ: write fails with EFBIG)
# stands for a full disk, which a test cannot make without root; the report written before stays whole.
cp -r "$w/r0" "$w/r4"
before=$(cat "$w/r4/report.json" "$w/r4/REPORT.md" | sha256sum)
# (ulimit -f 0: no byte can be written to a file; its output goes through a pipe, which the limit spares)
set +e
(
  ulimit -f 0  # SIGXFSZ left at its default: claimcheck ignores it itself (it died of it, exit 153)
  exec "$cc" verify "$G1" --report "$w/r4"
) 2>&1 | cat > "$w/out"
expect_rc=${PIPESTATUS[0]}
set -e
[ "$expect_rc" -eq 4 ] || { cat "$w/out"; fail "an output that could not be written: exit $expect_rc, expected 4"; }
grep -q "is unchanged" "$w/out" || { cat "$w/out"; fail "the write error does not say the old file is unchanged"; }
[ "$(cat "$w/r4/report.json" "$w/r4/REPORT.md" | sha256sum)" = "$before" ] || fail "a failed write changed the report"
! ls "$w/r4"/*.tmp > /dev/null 2>&1 || fail "a failed write left a .tmp file"
"$cc" verify --help | grep -q "^  77 " || fail "verify --help lists no exit status table"
"$cc" verify --help | grep -q "^  4 " || fail "verify --help does not list exit status 4"
# Each other command prints the statuses it can return, not verify's.
"$cc" train --help | grep -Eq "^  (3|75|77) " && fail "train --help lists a status train never returns"
"$cc" train --help | grep -q "^  4 " || fail "train --help does not list exit status 4"
"$cc" diff --help | grep -q "^  3 " || fail "diff --help does not list exit status 3"
"$cc" sweep --help | grep -q "^  75 " || fail "sweep --help does not list exit status 75"
"$cc" list --help | grep -Eq "^  (3|4|77) " && fail "list --help lists a status list never returns"
echo "exit codes: ok"
