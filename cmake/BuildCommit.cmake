# Run at build time (cmake -P), not configure time: writes OUT with the commit the sources are at,
# "-dirty" when the code paths PATHS ("lib app CMakeLists.txt", from lib/util/CMakeLists.txt, which gives
# provenance.cpp's git_commit the same) differ from it.
# The file is rewritten only when that changes, so a build without a new commit recompiles nothing.
# Why: a sidecar's git_commit is read when the binary runs, from the checkout, which may have moved on
# since the binary was built (a long sweep on a frozen binary); build_commit says what was compiled.
execute_process(COMMAND git -C "${SRC}" rev-parse HEAD OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR head STREQUAL "")
  set(commit "unknown")
else()
  separate_arguments(paths UNIX_COMMAND "${PATHS}")
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no -- ${paths}
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(commit "${head}")
  if(NOT dirty STREQUAL "")
    set(commit "${head}-dirty")
  endif()
endif()
set(text "#define CLAIMCHECK_BUILD_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
