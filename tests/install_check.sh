#!/usr/bin/env bash
# ctest install.layout: `cmake --install` puts the binary and its data where the installed binary
# finds them. A plain install into a fresh prefix (the `claimcheck` component: no fixtures, no
# reports), then the `reports` component; links the source tree's fixtures where the `fixtures`
# component would put them (rather than copying 400 MB), and runs the installed binary: --version,
# list and one claim verified from the installed claims/, against the installed baseline.
# Usage: install_check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > "$prefix.log" 2>&1 || { cat "$prefix.log"; rm -f "$prefix.log"; exit 1; }
rm -f "$prefix.log"
for f in share/claimcheck/fixtures share/claimcheck/papers/nanda_grokking/fixtures share/claimcheck/reports include lib \
         share/claimcheck/papers/nanda_grokking/reports share/claimcheck/papers/nanda_grokking/tests; do
  [ ! -e "$prefix/$f" ] || { echo "install.layout: a plain install put $f there"; exit 1; }
done
cmake --install "$build" --prefix "$prefix" --component reports > /dev/null
for f in share/claimcheck/reports/fixtures/report.json share/claimcheck/papers/nanda_grokking/reports/fixtures/report.json; do
  [ -e "$prefix/$f" ] || { echo "install.layout: the reports component lacks $f"; exit 1; }
done
share=$prefix/share/claimcheck
for f in bin/claimcheck share/claimcheck/papers/assign_and_add/runs.yaml share/claimcheck/papers/assign_and_add/expected.json \
         share/claimcheck/schemas/claim.schema.json share/claimcheck/papers/nanda_grokking/runs.yaml \
         share/doc/claimcheck/README.md share/doc/claimcheck/LICENSE share/doc/claimcheck/docs/using.md; do
  [ -e "$prefix/$f" ] || { echo "install.layout: $f is not installed"; exit 1; }
done
[ ! -e "$share/papers/nanda_grokking/module" ] || { echo "install.layout: a paper's C++ module was installed as data"; exit 1; }
grep -q 'CMAKE_INSTALL_COMPONENT STREQUAL "fixtures"' "$build/cmake_install.cmake" \
  || { echo "install.layout: no install component 'fixtures'"; exit 1; }
version=$("$prefix/bin/claimcheck" --version)
echo "${version%%$'\n'*}"
ln -s "$src/fixtures" "$share/fixtures"
listed=$("$prefix/bin/claimcheck" list "$share/papers/assign_and_add/claims/s4_generalization/G1.yaml")
grep -q 'G1' <<<"$listed" || { echo "install.layout: list does not show G1:"; echo "$listed"; exit 1; }
"$prefix/bin/claimcheck" verify "$share/papers/assign_and_add/claims/s4_generalization/G1.yaml" --report "$prefix/report" \
  --baseline "$share/papers/assign_and_add/expected.json" > "$prefix/verify.txt"
grep -E "^PASS +G1 " "$prefix/verify.txt" || { echo "install.layout: G1 did not PASS:"; cat "$prefix/verify.txt"; exit 1; }
echo "install.layout: installed, and the installed binary verified G1 from $share"
