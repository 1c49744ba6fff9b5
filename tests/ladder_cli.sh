#!/usr/bin/env bash
# ctest cli.ladder: the scale ladder (claims/ladder.h, report/ladder.h) on a scratch checkout with the
# grokking paper's N1 (fixtures linked). A rung that reads `stated` as `no_weight_decay` (a model that
# never groks) must move N1 from PASS to FAIL, its report must say which rung it is, and the main
# report must put the two side by side with "depends on the scale"; a rung that is not declared, a
# rung with --run, a second committed rung, an unknown run and a report outside the paper's folder are
# errors naming the file or flag; a rung's report written for another rung is "unavailable", never read
# as this rung's. Usage: ladder_cli.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
fail=0
cc=$1 src=$(cd "$2" && pwd)
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-ladder.XXXXXX")
trap 'rm -rf "$w"' EXIT
# shellcheck source=/dev/null  # tests/lib/check_cmd.sh, which ci/lint-shell checks on its own
. "$(dirname "$0")/lib/check_cmd.sh"  # check NAME WANT-RC REGEX CMD...
g=papers/nanda_grokking
mkdir -p "$w/$g/claims"
cp "$src/$g/runs.yaml" "$w/$g/"
cp "$src/$g/claims/N1.yaml" "$src/$g/claims/defaults.yaml" "$w/$g/claims/"
ln -s "$src/$g/fixtures" "$w/$g/fixtures"
# paper_yaml RUNGS: the paper.yaml with a ladder of axis `test` whose rungs are RUNGS (YAML list items).
paper_yaml() {
  cat > "$w/$g/paper.yaml" <<YAML
paper: {title: "Progress measures for grokking", arxiv: 2301.05217v3}
ladder:
  test:
    why: "a rung that reads a model that never groks"
    rungs:
$1
YAML
}
base='      - {name: base, label: "committed"}'
swap='      - {name: swap, label: "no weight decay", paper: true, runs: {stated: no_weight_decay}, report: reports/swap/report.json}'
paper_yaml "$base
$swap"
v=("$cc" verify "$w/$g" --quiet)

check "an undeclared rung" 2 "declares no such rung \(its rungs: base, swap\)" "${v[@]}" --rung nosuch --report "$w/r0"
check "--rung with --run" 2 "not with --run" "${v[@]}" --rung swap --run stated --report "$w/r0"
check "the committed rung" 2 "the committed runs' rung" "${v[@]}" --rung base --report "$w/r0"
check "the main report before the rung's exists" 0 "PASS +N1" "${v[@]}" --report "$w/main"
grep -q '"unavailable"' "$w/main/report.json" || { echo "FAIL: the missing rung report is not said"; exit 1; }
check "N1 at the rung" 1 "FAIL +N1" "${v[@]}" --rung swap --report "$w/$g/reports/swap"
python3 - "$w/$g/reports/swap/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["rung"]["name"] == "swap" and r["rung"]["runs"] == {"stated": "no_weight_decay"}, r["rung"]
n1 = [c for c in r["claims"] if c["id"] == "N1"][0]
assert n1["verdict"] == "FAIL" and n1["measured"]["value"] < 0.5, n1["measured"]
PY
check "the main report with the rung" 0 "PASS +N1" "${v[@]}" --report "$w/main"
python3 - "$w/main/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
(axis,) = r["ladder"]
(n1,) = axis["claims"]
assert n1["depends_on_scale"] and "depends on the scale" in n1["trend"], n1
assert [e["verdict"] for e in n1["rungs"]] == ["PASS", "FAIL"], n1["rungs"]
PY
if ! grep -q "## Scale ladder" "$w/main/REPORT.md" || ! grep -q "(depends on the scale: see Scale ladder)" "$w/main/REPORT.md"; then
  echo "FAIL: REPORT.md lacks the ladder"
  exit 1
fi
if [ ! -s "$w/main/figures/ladder-test-N1.png" ] || ! grep -q "(figures/ladder-test-N1.png)" "$w/main/REPORT.md"; then
  echo "FAIL: no figure of N1 against the axis"
  exit 1
fi
echo "ok: the ladder in report.json and REPORT.md"
# A rung with a baseline is a ctest test of its own, which compares the rung's outcomes with it.
cp "$src/$g/expected.json" "$w/$g/"
paper_yaml "$base
${swap%\}}, baseline: expected-swap.json}"
check "the rung's baseline written" 1 "FAIL +N1" "${v[@]}" --rung swap --report "$w/r2" --write-baseline "$w/$g/expected-swap.json"
check "the rung against its baseline" 0 "no change" "${v[@]}" --rung swap --report "$w/r2" --baseline "$w/$g/expected-swap.json"
check "the committed runs against the rung's baseline" 3 "differ from" "${v[@]}" --report "$w/r2" --baseline "$w/$g/expected-swap.json"
check "the rung's ctest test" 0 "^rung\.nanda_grokking\.swap	.*	--rung,swap$" "$cc" list --ctest --root "$w"
# The same report named as another rung's: unavailable, not read as that rung's.
mkdir -p "$w/$g/reports/other" && cp "$w/$g/reports/swap/report.json" "$w/$g/reports/other/"
paper_yaml "$base
$swap
      - {name: other, runs: {stated: no_weight_decay}, report: reports/other/report.json}"
check "another rung's report" 0 "PASS +N1" "${v[@]}" --report "$w/main"
grep -q "not a report of rung other (it is rung swap's)" "$w/main/report.json" ||
  { echo "FAIL: another rung's report was not refused"; exit 1; }
echo "ok: another rung's report is unavailable"
# Declarations that are wrong: errors naming paper.yaml's line.
paper_yaml "$base
      - {name: base2}"
check "two committed rungs" 1 "paper.yaml:[0-9]+:[0-9]+.*exactly one rung without" "${v[@]}" --report "$w/r1"
paper_yaml "$base
      - {name: x, runs: {stated: nosuch}, report: reports/x/report.json}"
check "an unknown run" 1 "paper.yaml:[0-9]+:[0-9]+.*maps to no run" "${v[@]}" --report "$w/r1"
paper_yaml "$base
      - {name: x, runs: {stated: no_weight_decay}, report: ../../outside/report.json}"
check "a report outside the paper" 1 "paper.yaml:[0-9]+:[0-9]+.*inside the paper's folder" "${v[@]}" --report "$w/r1"
paper_yaml "$base
      - {name: base, runs: {stated: no_weight_decay}, report: reports/x/report.json}"
check "a rung declared twice" 1 "paper.yaml:[0-9]+:[0-9]+.*declared twice" "${v[@]}" --report "$w/r1"
[ "$fail" -eq 0 ] && echo "ladder: ok"
exit "$fail"
