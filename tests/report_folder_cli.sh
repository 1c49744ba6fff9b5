#!/usr/bin/env bash
# A report folder is written only inside itself and as a whole (report/report_folder.h): links planted
# where the report's files go are replaced, never written through (a figures/ link to another folder
# had every PNG there deleted; a report.json.tmp link had its target overwritten), and a verify killed
# while gnuplot draws leaves the old report whole (it deleted the old figures).
# usage: report_folder_cli.sh CLAIMCHECK SOURCE_DIR
set -uo pipefail
CC=$1 SRC=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
R=$W/report
CLAIM=$SRC/papers/bietti_birth/claims/B1.yaml
verify_into_r() { "$CC" verify "$CLAIM" --report "$R" --cache "$W/cache" --quiet > "$W/out" 2>&1; }
result() {  # NAME CONDITION-STATUS
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; tail -5 "$W/out"; fail=1; fi
}
no_staging() { [ -z "$(find "$R" -maxdepth 1 -name '.report-*' -print -quit)" ]; }
digest() { (cd "$R" && find . -path './.report-*' -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }

# The report as written: its four entries, figures drawn, nothing of the staging left.
verify_into_r && [ -f "$R/report.json" ] && [ -f "$R/REPORT.md" ] && [ -f "$R/junit.xml" ] &&
  [ -n "$(find "$R/figures" -name '*.png' -print -quit)" ] && no_staging
result "written whole, no staging left" $?

# figures/ a link to another folder: that folder keeps its files; figures/ becomes the report's own.
mkdir -p "$W/elsewhere" && echo keep > "$W/elsewhere/keep.png"
rm -rf "$R/figures" && ln -s "$W/elsewhere" "$R/figures"
verify_into_r && [ "$(cat "$W/elsewhere/keep.png")" = keep ] && [ ! -L "$R/figures" ] && [ -d "$R/figures" ]
result "figures/ link: its target untouched, replaced by a folder" $?

# report.json.tmp and report.json links: their targets untouched, report.json a file of its own.
echo victim > "$W/victim1" && echo victim > "$W/victim2"
ln -s "$W/victim1" "$R/report.json.tmp" && rm "$R/report.json" && ln -s "$W/victim2" "$R/report.json"
verify_into_r && [ "$(cat "$W/victim1")" = victim ] && [ "$(cat "$W/victim2")" = victim ] && [ ! -L "$R/report.json" ] &&
  grep -q '"claims"' "$R/report.json"
result "report.json(.tmp) links: their targets untouched" $?

# kill -9 while gnuplot draws (a gnuplot that says it started, then waits): the old report stays whole.
before=$(digest)
mkdir -p "$W/bin"
printf '#!/bin/sh\necho $$ > "%s/drawing.tmp" && mv "%s/drawing.tmp" "%s/drawing"\nexec sleep 60\n' "$W" "$W" "$W" > "$W/bin/gnuplot"
chmod +x "$W/bin/gnuplot"
PATH=$W/bin:$PATH "$CC" verify "$CLAIM" --report "$R" --cache "$W/cache" --quiet > "$W/out" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -e "$W/drawing" ] && break; sleep 0.1; done
kill -9 "$pid"
wait "$pid" 2> /dev/null
[ -e "$W/drawing" ] && kill "$(cat "$W/drawing")" 2> /dev/null  # the orphaned gnuplot (now sleep) itself
[ -e "$W/drawing" ] && [ "$(digest)" = "$before" ]
result "killed while drawing: the old report whole" $?
# ... and the next verify leaves no staging folder of the killed one.
verify_into_r && no_staging
result "the next write removes the killed one's staging" $?

# An interrupted install (a complete report staged as .report-ready): the next writer installs it first.
cp -a "$R" "$W/copy" && find "$W/copy" -maxdepth 1 -name '.report-*' -exec rm -rf {} + && mv "$W/copy" "$R/.report-ready"
verify_into_r && no_staging && [ -f "$R/report.json" ]
result "an interrupted install rolled forward" $?
exit $fail
