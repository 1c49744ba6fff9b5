#!/usr/bin/env bash
# Hostile claim files through `claimcheck verify`, as a user would meet them: each must end in an
# ERROR naming FILE:LINE:COL (or FILE) and the problem, exit 1, and stay small in memory (max RSS
# under 256 MB, most of it libtorch itself; GNU time measures it). Prints each file's wall time;
# a hang is caught by the test's ctest TIMEOUT, not by a timing assertion.
# usage: hostile_cli.sh CLAIMCHECK RUNS_FILE CLAIM_TEMPLATE
set -uo pipefail
CC=$1 RUNS=$2 TEMPLATE=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp "$(dirname "$TEMPLATE")/../defaults.yaml" "$W/"  # paper.arxiv and tier, as the claims folder gives them
python3 - "$TEMPLATE" "$W" <<'PY'
import sys
g1, w = open(sys.argv[1]).read(), sys.argv[2]
files = {
    "long_id": g1.replace("id: G1", "id: " + "a" * 5_000_000, 1),
    "laughs": "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
              + "".join(f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10) + "]\n" for p, c in zip("abcdefgh", "bcdefghi")),
    "two_docs": g1 + "---\nid: X2\n",
    "tag": g1.replace("threshold: 0.98", "threshold: !!str 0.98", 1),
    "bigint": g1.replace("min_seeds: 3", "min_seeds: 1000000000000", 1),
    "big_size": g1.replace("size: 10000", "size: 10000000", 1),
    "dup_seeds": g1.replace("seeds: all", "seeds: [2, 2, 2]", 1),
    "empty_seeds": g1.replace("seeds: all", "seeds: []", 1),
    # YAML's \N escape is U+0085, a C1 control character: refused like any other.
    "yaml_next_line": g1.replace("title: 0-var test accuracy is above 98%", 'title: "\\N0-var test accuracy"', 1),
}
for name, text in files.items():
    open(f"{w}/{name}.yaml", "w").write(text)
# §7 theory claims within every parameter's range, but past the work caps.
t1a = open(sys.argv[1].replace("s4_generalization/G1.yaml", "s7_theory/T1a.yaml")).read()
open(f"{w}/theory_batch.yaml", "w").write(t1a.replace("samples: 32768", "samples: 1048576", 1))
open(f"{w}/theory_seeds.yaml", "w").write(t1a.replace("seeds: [0]", "seeds: [0, 1, 2, 3, 4, 5, 6, 7, 8]", 1))
# A raw 0xFF byte in the title: not UTF-8, so nothing a report could carry.
open(f"{w}/bad_utf8.yaml", "wb").write(g1.encode().replace(b"title: 0-var", b"title: \xff0-var", 1))
PY
expect() {  # FILE REGEX
  local out rc rss
  out=$(/usr/bin/time -f "%e %M" "$CC" verify "$W/$1.yaml" --runs "$RUNS" --report "$W/report" 2>&1)
  rc=$?
  read -r secs rss <<<"$(tail -1 <<<"$out")"
  if [ "$rc" -ne 1 ]; then echo "FAIL $1: exit $rc, expected 1"; echo "$out" | tail -5; return 1; fi
  if ! grep -Eq "$2" <<<"$out"; then echo "FAIL $1: no message matching: $2"; echo "$out" | tail -5; return 1; fi
  if [ "$rss" -ge 262144 ]; then echo "FAIL $1: max RSS $rss KB >= 256 MB"; return 1; fi
  echo "ok   $1: exit 1, ${secs} s, max RSS $((rss / 1024)) MB: $(grep -Eo "$2.*" <<<"$out" | head -1 | cut -c1-110)"
}
command -v /usr/bin/time >/dev/null || { echo "SKIP: GNU time (package 'time') is not installed"; exit 77; }
fail=0
# One case a line: FILE (under $W, without .yaml), a tab, the message it must produce.
while IFS=$'\t' read -r name regex; do expect "$name" "$regex" || fail=1; done <<'CASES'
long_id	long_id.yaml: [0-9]+ bytes; a claim or run file is at most
laughs	laughs.yaml:[0-9]+:[0-9]+: the document expands to more than 100000 values
two_docs	two_docs.yaml:25:1: a second YAML document
tag	tag.yaml:20:14: explicit YAML tag '!!str' is not accepted
bigint	bigint.yaml:22:14: field 'expect.min_seeds': 1000000000000 is outside \[1, 1000\]
big_size	big_size.yaml:[0-9]+:[0-9]+: field 'measure.size': must be in \[1, 1000000\]
dup_seeds	dup_seeds.yaml:[0-9]+:[0-9]+: field 'subject.seeds': seed 2 is listed twice
empty_seeds	empty_seeds.yaml:[0-9]+:[0-9]+: field 'subject.seeds': an empty list
bad_utf8	bad_utf8.yaml:[0-9]+:[0-9]+: this value is not valid UTF-8 \(byte 1 is 0xFF\)
yaml_next_line	yaml_next_line.yaml:[0-9]+:[0-9]+: this value (is not valid UTF-8|holds a control character)
theory_batch	theory_batch.yaml:[0-9]+:[0-9]+: field 'measure.samples': one batch is [0-9.e+]+ token slots
theory_seeds	theory_seeds.yaml:[0-9]+:[0-9]+: field 'subject.seeds': at most 8 Monte Carlo seeds
CASES

# JSON inside the 16 MiB size cap but wide: a list of 5.6 million empty objects, and one of short-string
# objects, as the baseline of `verify` and both sides of `diff`. Each is refused at once, in bounded
# memory (the parser with a callback took minutes, a DOM of them 164-500 MB); a real report still reads.
python3 - "$W" <<'PY'
import sys
w = sys.argv[1]
n = (16 * 1024 * 1024 - 100) // 3
open(f"{w}/wide.json", "w").write('{"format":"claimcheck-report/1","claims":[' + ",".join(["{}"] * n) + "]}")
rows = ",".join('{"id":"a%d","verdict":"PASS","x":"%s"}' % (i, "y" * 16) for i in range(250000))
open(f"{w}/strings.json", "w").write('{"format":"claimcheck-report/1","claims":[' + rows + "]}")
PY
json_case() {  # NAME REGEX CMD...
  local name=$1 regex=$2 out rc secs rss
  shift 2
  out=$(/usr/bin/time -f "%e %M" "$@" 2>&1)
  rc=$?
  read -r secs rss <<<"$(tail -1 <<<"$out")"
  if [ "$rc" -eq 0 ] || ! grep -Eq "$regex" <<<"$out"; then echo "FAIL $name: exit $rc, looking for: $regex"; echo "$out" | tail -3; fail=1; return; fi
  if [ "$rss" -ge 262144 ]; then echo "FAIL $name: max RSS $rss KB >= 256 MB"; fail=1; return; fi
  echo "ok   $name: exit $rc, ${secs} s, max RSS $((rss / 1024)) MB: $(grep -Eo "$regex.*" <<<"$out" | head -1 | cut -c1-100)"
}
for f in wide strings; do
  json_case "$f.diff" "$f.json: JSON whose parsed form would take more than" "$CC" diff "$W/$f.json" "$W/$f.json"
  json_case "$f.baseline" "$f.json: JSON whose parsed form would take more than" \
    "$CC" verify "$TEMPLATE" --runs "$RUNS" --baseline "$W/$f.json" --report "$W/report"
done
exit $fail
