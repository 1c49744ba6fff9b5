# Run at build time (cmake -P), not configure time: writes OUT with the commit the sources are at
# (and the version that makes, below),
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
# The version this binary says it is: VERSION at the commit that released it (the tag vVERSION, else
# the last commit that changed CMakeLists.txt's project(... VERSION) line), built from a clean tree;
# VERSION+dev.N.gHASH N commits later (+dev.gHASH where a shallow clone cannot count them), with
# ".dirty" when the code differs from HEAD. Semantic versioning's build metadata: it sorts with VERSION.
set(version "${VERSION}")
if(NOT commit STREQUAL "unknown")
  execute_process(COMMAND git -C "${SRC}" rev-list -n 1 "v${VERSION}" OUTPUT_VARIABLE released
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0 OR released STREQUAL "")
    execute_process(COMMAND git -C "${SRC}" log -1 --format=%H "-Gproject\\(claimcheck VERSION" -- CMakeLists.txt
                    OUTPUT_VARIABLE released OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  set(count "")
  if(NOT released STREQUAL "")
    execute_process(COMMAND git -C "${SRC}" rev-list --count "${released}..HEAD" OUTPUT_VARIABLE count
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
    if(NOT rc EQUAL 0)
      set(count "")
    endif()
  endif()
  string(SUBSTRING "${head}" 0 7 short)
  if(count STREQUAL "")
    set(version "${VERSION}+dev.g${short}")
  elseif(NOT count STREQUAL "0")
    set(version "${VERSION}+dev.${count}.g${short}")
  endif()
  if(commit MATCHES "-dirty$")
    if(version STREQUAL VERSION)
      set(version "${VERSION}+dirty")
    else()
      set(version "${version}.dirty")
    endif()
  endif()
endif()
set(text "#define CLAIMCHECK_BUILD_COMMIT \"${commit}\"\n#define CLAIMCHECK_BUILD_VERSION \"${version}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
