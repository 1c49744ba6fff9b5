#!/usr/bin/env bash
# ctest cli.paper_yaml: paper.yaml is input like any other. A cross-check's `report` must name a
# report.json inside the checkout, relative to paper.yaml (an absolute path, a climb out of the tree
# or a link out of it is an error naming the line, and nothing of the file it named reaches the
# output); a cross-checked report that is not JSON is "unavailable" without quoting its text; a
# misspelt key and a phase on an evaluation set no task family has are errors naming the line.
# A scratch checkout with the grokking paper's N1 (fixtures linked). Usage: paper_yaml_cli.sh CLAIMCHECK SOURCE_DIR
set -euo pipefail
cc=$1 src=$(cd "$2" && pwd)
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-paperyaml.XXXXXX")
trap 'rm -rf "$w"' EXIT
g=papers/nanda_grokking
mkdir -p "$w/$g/claims" "$w/reports/fixtures"
cp "$src/$g/runs.yaml" "$w/$g/"
cp "$src/$g/claims/N1.yaml" "$src/$g/claims/defaults.yaml" "$w/$g/claims/"
ln -s "$src/$g/fixtures" "$w/$g/fixtures"
secret="SECRET-$$-TEXT"
printf 'x %s\n' "$secret" > "$w/outside.txt"
fail() {
  echo "FAIL: $1"
  exit 1
}
# paper_yaml REPORT [EXTRA]: the grokking paper.yaml with a cross-check on REPORT, and EXTRA lines.
paper_yaml() {
  cat > "$w/$g/paper.yaml" <<YAML
paper:
  title: "Progress measures for grokking"
  arxiv: 2301.05217v3
cross_checks:
  - claim: N1
    relation: "a relation"
    report: $1
    other_claim: M8b
${2:-}
YAML
}
# refused WHAT PATTERN: verify fails, the output matches PATTERN and holds nothing of the secret.
refused() {
  local rc=0
  "$cc" verify "$w/$g" --budget fixture --report "$w/out" > "$w/log" 2>&1 || rc=$?
  [ "$rc" -ne 0 ] || { cat "$w/log"; fail "$1: exit 0"; }
  grep -q -- "$2" "$w/log" || { cat "$w/log"; fail "$1: no '$2' in the output"; }
  ! grep -rq "$secret" "$w/log" "$w/out" 2> /dev/null || fail "$1: the secret reached the output"
  echo "ok: $1"
}
paper_yaml "$w/outside.txt"
refused "an absolute path" "paper.yaml:7:.*must name a report.json inside the checkout"
paper_yaml "../../outside.txt"
refused "a file not named report.json" "must name a report.json inside the checkout"
out=$(dirname "$w")/claimcheck-paperyaml-out.$$  # beside the scratch checkout, outside it
mkdir -p "$out" && trap 'rm -rf "$w" "$out"' EXIT
printf '{"claims": [], "x": "%s"}\n' "$secret" > "$out/report.json"
paper_yaml "../../../claimcheck-paperyaml-out.$$/report.json"
refused "a climb out of the checkout" "must name a report.json inside the checkout"
printf 'x %s\n' "$secret" > "$out/secret.txt"
ln -s "$out/secret.txt" "$w/reports/fixtures/report.json"
paper_yaml "../../reports/fixtures/report.json"
refused "a link out of the checkout" "must name a report.json inside the checkout"
rm "$w/reports/fixtures/report.json"
# Inside the checkout but not JSON: unavailable, its text not quoted.
printf 'not json %s\n' "$secret" > "$w/reports/fixtures/report.json"
"$cc" verify "$w/$g" --budget fixture --report "$w/out" > "$w/log" 2>&1 || { cat "$w/log"; fail "a report that is not JSON stopped verify"; }
grep -q "not JSON (a syntax error at byte" "$w/out/REPORT.md" || fail "the unreadable report is not said to be unavailable"
! grep -rq "$secret" "$w/log" "$w/out" || fail "the text of a report that is not JSON reached the output"
echo "ok: a cross-checked report that is not JSON"
paper_yaml "../../reports/fixtures/report.json" "cross_check: []"
refused "a misspelt key" "paper.yaml:9:.*cross_check"
paper_yaml "../../reports/fixtures/report.json" "phases:
  steps: [{name: grok, sets: [tset], level: 0.9}]
  learned: [grok]"
refused "a phase on an unknown set" "names no evaluation set of any task family: 'tset'"
# A cross-check beside a claim the paper does not have would be shown nowhere: an error naming it.
paper_yaml "../../reports/fixtures/report.json"
sed -i 's/  - claim: N1/  - claim: N99/' "$w/$g/paper.yaml"
refused "a cross-check on a claim the paper lacks" "cross_checks\[0\].claim 'N99': no claim of this paper"
echo "paper.yaml: ok"
