#!/usr/bin/env bash
# A claim whose verdict hangs on a constant its reading chose cannot PASS or FAIL on that constant alone
# (`sensitivity:`, claims::Sensitivity). Bietti et al.'s B5-share (B5 read as 90 % of the global loss's
# drop) FAILs on its committed constant alone; with the range it declares (0.8 to 0.95) it is
# INCONCLUSIVE, naming where the verdict changes. A declared range is part of the claim's meaning (a
# changed one is exit 3 against the baseline), `explain` shows it, and mistakes name their line.
# usage: sensitivity_cli.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
CC=$1 SRC=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
# shellcheck source=/dev/null  # tests/lib/check_cmd.sh, which ci/lint-shell checks on its own
. "$(dirname "$0")/lib/check_cmd.sh"  # check NAME WANT-RC REGEX CMD...
P=$SRC/papers/bietti_birth
# shellcheck disable=SC2317  # called through `check NAME RC REGEX verify ...`, which shellcheck cannot follow
verify() { "$CC" verify "$@" --runs "$P/runs.yaml" --report "$W/report" --cache "$W/cache"; }
cp -r "$P/claims" "$W/c"
grep -q '^  - at: denominator.share_of_change' "$W/c/B5-share.yaml" || { echo "FAIL: B5-share declares no range"; exit 1; }
sed '/^sensitivity:/,/^control:/{/^control:/!d}' "$P/claims/B5-share.yaml" > "$W/one_reading.yaml"
cp "$P/claims/defaults.yaml" "$W/" 2>/dev/null
check one_constant_decides 1 "FAIL +B5-share " verify "$W/one_reading.yaml"
check range_inconclusive 1 "INCONCLUSIVE +B5-share .*depends on the reading: the verdict changes at denominator.share_of_change between" \
  verify "$W/c/B5-share.yaml"
check explain_names_readings 0 "the same verdict at each reading: at_least: 0.9 \(committed\), 0.8, 0.95" \
  "$CC" explain B8 --paths "$P/claims" --runs "$P/runs.yaml"
# A range changed is a change of the claim's meaning, whatever the verdict.
sed -i 's/^    values: \[0.8, 0.95\]$/    values: [0.85, 0.95]/' "$W/c/B8.yaml"
check changed_range 3 "B8 +sensitivity changed" verify "$W/c" -k B8 --baseline "$P/expected.json"
# The threshold as a reading (`at: expect.threshold`): the same measurements judged again. B6a (block 1
# attends to the previous token at >= 90 % of positions) FAILs at 53-60 %; a declared 0.5 makes it
# depend on the reading, and the report shows both thresholds' verdicts on the same values.
{ sed '/^sensitivity:/,$d' "$P/claims/B6a.yaml"   # its own threshold readings replaced by this one
  printf 'sensitivity:\n  - {at: expect.threshold, values: [0.5], why: "a test reading"}\n'
  sed -n '/^control:/,$p' "$P/claims/B6a.yaml"; } > "$W/threshold.yaml"
check threshold_reading 1 "INCONCLUSIVE +B6a .*depends on the reading: the verdict changes at expect.threshold between 0.5 and 0.9 \(expect.threshold = 0.5: PASS [0-9.]+, 0.9 \(committed\): FAIL" \
  verify "$W/threshold.yaml"
# Mistakes: a value the kind refuses, a constant the measure block does not write; each names its line.
sed 's/^    values: \[0.8, 0.95\]$/    values: [0.8, 1.5]/' "$P/claims/B5-share.yaml" > "$W/bad_value.yaml"
check value_the_kind_refuses 1 "bad_value.yaml:[0-9]+:[0-9]+: .*at denominator.share_of_change = 1.5: .*must be in \(0, 1\]" \
  verify "$W/bad_value.yaml"
sed 's/^  - at: denominator.share_of_change$/  - at: denominator.at_least/' "$P/claims/B5-share.yaml" > "$W/not_written.yaml"
check constant_not_written 1 "not_written.yaml:[0-9]+:[0-9]+: .*no single value at 'denominator.at_least'" \
  verify "$W/not_written.yaml"
exit $fail
