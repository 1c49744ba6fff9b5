#!/usr/bin/env bash
# ctest install.cmake_package: a paper built out of claimcheck's tree against the installed CMake package
# (find_package(claimcheck), cmake/claimcheckConfig.cmake.in). Installs the binary and the `development`
# component into a fresh prefix; the installed binary writes a project of its own (`new-paper
# --project`: papers/NAME, a CMakeLists.txt against the package, a README); the README's commands, as
# written there (PREFIX filled in), configure, build and verify it with no edit of the scaffold; and the
# scratch binary links the scratch module and the installed papers' (--version), lists the installed
# papers' kinds, and verifies the scaffold's example claim (a tiny run of the grokking module's family,
# which the package brings) under --budget cpu.
# A project of the same name as an installed paper is refused at configure time.
# Usage: cmake_package_check.sh BUILD_DIR
set -euo pipefail
build=$1
w=$(mktemp -d "${TMPDIR:-/tmp}/claimcheck-package.XXXXXX")
trap 'rm -rf "$w"' EXIT
fail() {
  echo "install.cmake_package: FAIL: $1"
  exit 1
}
prefix=$w/prefix project=$w/project
for component in claimcheck development; do
  cmake --install "$build" --prefix "$prefix" --component "$component" > "$w/install.log" 2>&1 ||
    { cat "$w/install.log"; fail "cmake --install --component $component"; }
done
for f in lib/cmake/claimcheck/claimcheckConfig.cmake lib/cmake/claimcheck/claimcheckConfigVersion.cmake \
         include/claimcheck/plugin/paper_module.h lib/claimcheck/libcc_app.a lib/claimcheck/libcc_paper_nanda_grokking.a; do
  [ -e "$prefix/$f" ] || fail "the development component lacks $f"
done
"$prefix/bin/claimcheck" new-paper scratch_paper --project "$project" --title "A scratch paper" > /dev/null
for f in CMakeLists.txt README.md papers/scratch_paper/runs.yaml; do
  [ -f "$project/$f" ] || fail "new-paper --project wrote no $f"
done
# The README's commands, one per line of its sh block: configure, build, verify.
# shellcheck disable=SC2016  # the backticks are a markdown fence, not a command
sed -n '/^```sh$/,/^```$/p' "$project/README.md" | sed '1d;$d' > "$w/readme_commands"
[ "$(wc -l < "$w/readme_commands")" -eq 3 ] || { cat "$w/readme_commands"; fail "the project README has no 3 commands"; }
configure=$(sed -n 1p "$w/readme_commands") build_command=$(sed -n 2p "$w/readme_commands")
verify_command=$(sed -n 3p "$w/readme_commands")
# ccache, as claimcheck's own build uses it (cmake/Ccache.cmake): paths under $w hashed relative to it,
# so a second run of this test hits the cache the first filled.
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="cmake;-E;env;CCACHE_BASEDIR=$w;CCACHE_NOHASHDIR=1;CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime;ccache")
fi
# shellcheck disable=SC2086  # each command is split into its words, as a shell reading the README would
(cd "$project" && ${configure/=PREFIX/=$prefix} "${launcher[@]}") > "$w/configure.log" 2>&1 ||
  { cat "$w/configure.log"; fail "configure of the scratch project: $configure"; }
# shellcheck disable=SC2086
(cd "$project" && $build_command) > "$w/build.log" 2>&1 || { tail -40 "$w/build.log"; fail "build: $build_command"; }
cc=$project/build/scratch_paper-claimcheck
[ -x "$cc" ] || fail "the README's build made no $cc"
"$cc" --version | grep -qx "paper modules assign_and_add bietti_birth nanda_grokking scratch_paper" ||
  { "$cc" --version; fail "the scratch binary does not link the four modules"; }
# Written to a file first: grep -q stops at the match, and under pipefail the writer's SIGPIPE would fail the pipe.
"$cc" kinds > "$w/kinds.txt"
grep -q "^wl_residual_share  (run, scalar; papers/nanda_grokking/module)" "$w/kinds.txt" ||
  fail "the scratch binary lacks an installed paper's kind"
# shellcheck disable=SC2086
(cd "$project" && $verify_command --cache "$w/cache" > "$w/verify.txt") ||
  { cat "$w/verify.txt"; fail "verify of the scaffold's example claim: $verify_command"; }
grep -E "^PASS +E1 " "$w/verify.txt" || { cat "$w/verify.txt"; fail "E1 did not PASS"; }
# A project paper named like an installed one would register twice: refused when configured.
mv "$project/papers/scratch_paper" "$project/papers/nanda_grokking"
if cmake -S "$project" -B "$w/build2" -DCMAKE_PREFIX_PATH="$prefix" > "$w/configure2.log" 2>&1; then
  fail "a project paper named like an installed paper was configured"
fi
tr -s ' \n' ' ' < "$w/configure2.log" | grep -q "the installed claimcheck package already has a paper named 'nanda_grokking'" ||
  { cat "$w/configure2.log"; fail "no clear message for a paper named like an installed one"; }
# CONTRIBUTING.md's project file configures as written, and without its first two lines too (every policy
# OLD then: the package sets its own).
# shellcheck disable=SC2016  # the backticks are a markdown fence, not a command
sed -n '/^```cmake$/,/^```$/p' "$(dirname "$0")/../CONTRIBUTING.md" | sed '1d;$d' > "$w/documented.cmake"
grep -q "^claimcheck_add_executable" "$w/documented.cmake" || fail "no project file found in CONTRIBUTING.md"
mv "$project/papers/nanda_grokking" "$project/papers/scratch_paper"
for variant in documented bare; do
  if [ "$variant" = bare ]; then grep -v "^cmake_minimum_required\|^project(" "$w/documented.cmake"
  else cat "$w/documented.cmake"; fi > "$project/CMakeLists.txt"
  cmake -S "$project" -B "$w/build-$variant" -DCMAKE_PREFIX_PATH="$prefix" > "$w/configure-$variant.log" 2>&1 ||
    { cat "$w/configure-$variant.log"; fail "CONTRIBUTING.md's project file ($variant) does not configure"; }
done
echo "install.cmake_package: a paper module built out of tree against the installed package, linked with the installed papers, verified"
