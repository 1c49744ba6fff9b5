#!/usr/bin/env bash
# Sourced by the CLI tests that replay a user's command and read its answer:
#   check NAME WANT-RC REGEX CMD...   runs CMD; it must exit WANT-RC and print a line matching REGEX,
#                                     and never "internal error"; sets fail=1 otherwise
check() {
  local name=$1 want=$2 regex=$3 out rc
  shift 3
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -Eq -- "$regex" <<<"$out" || grep -q "internal error" <<<"$out"; then
    echo "FAIL $name: exit $rc (want $want), or no line matching: $regex"
    tail -5 <<<"$out"
    # shellcheck disable=SC2034  # the sourcing test's own status
    fail=1
    return
  fi
  echo "ok   $name: exit $rc: $(grep -Eo -- "$regex.*" <<<"$out" | head -1 | cut -c1-150)"
}
