#!/usr/bin/env bash
# ctest cli.claims_walk: what a claims folder may hold besides claim files. An entry named like a claim
# that is a FIFO, a dangling link, a link loop or a link out of the paper's folder (to /etc/passwd) is an
# ERROR naming it, and the other claims are still verified and reported; a folder link back to its parent
# does not trap the walk; a file name that is not UTF-8 does not stop `list --json`. No "internal error",
# no fragment of the linked file in the report. Usage: claims_walk.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
cc=$1 src=$2
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-walk.XXXXXX")
trap 'rm -rf "$w"' EXIT
fail() {
  echo "FAIL: $1"
  exit 1
}
p=$w/paper
cp -r "$src/tests/data/synthetic_paper" "$p"
c=$p/claims
mkfifo "$c/fifo.yaml"
ln -s loop.yaml "$c/loop.yaml"
ln -s nowhere.yaml "$c/dangling.yaml"
ln -s /etc/passwd "$c/passwd.yaml"
ln -s .. "$c/up"                     # a folder link to the paper: not followed
ln -s S1.yaml "$c/inside_link.yml"   # a link inside the paper: read (one file, not two claims)
sed 's/^id: S1$/id: S1u/' "$c/S1.yaml" > "$c/$(printf 'u\xff').yaml"

rc=0
timeout 60 "$cc" list "$p/claims" --json > "$w/list.json" 2> "$w/list.err" || rc=$?
cat "$w/list.err"
[ "$rc" -eq 1 ] || fail "list --json exited $rc, not 1 (some files are broken)"
python3 - "$w/list.json" <<'PY' || fail "list --json: not the rows expected"
import json, sys
rows = json.load(open(sys.argv[1]))
ids = {r.get("id") for r in rows}
assert {"S1", "S2", "S1u"} <= ids, ids
errors = " ".join(r.get("error", "") for r in rows)
for needle in ("fifo.yaml: claim or run file is a FIFO", "loop.yaml: cannot open", "dangling.yaml: cannot open",
               "passwd.yaml: a symbolic link to /etc/passwd, outside the paper's folder"):
    assert needle in errors, (needle, errors)
assert "root:" not in errors
PY

rc=0
timeout 300 "$cc" verify "$p/claims" --budget cpu --cache "$w/cache" --report "$w/r" > "$w/verify.log" 2>&1 || rc=$?
cat "$w/verify.log"
[ "$rc" -eq 1 ] || fail "verify exited $rc, not 1"
grep -q "internal error" "$w/verify.log" && fail "an internal error"
grep -q '^PASS  *S1 ' "$w/verify.log" || fail "S1 was not verified beside the broken files"
for f in fifo loop dangling passwd; do
  grep -q "^ERROR .*$f\.yaml" "$w/verify.log" || fail "no ERROR naming $f.yaml"
  grep -q "$f\.yaml" "$w/r/REPORT.md" || fail "REPORT.md does not name $f.yaml"
done
grep -q "root:" "$w/r/REPORT.md" "$w/r/report.json" && fail "the linked file's text reached the report"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$w/r/report.json" || fail "report.json does not parse"
echo "claims walk: ok"
