# Use ccache when present. The torch precompiled header needs ccache's pch sloppiness,
# otherwise every PCH user is a cache miss.
# With GCC, CCACHE_BASEDIR makes the paths under the checkout relative in what ccache hashes, and
# CCACHE_NOHASHDIR leaves the working directory out, so that a second checkout of the same sources
# (CI's clean one, a git worktree) hits the cache the first one filled instead of compiling every
# translation unit again (a cold release build was a third of ci/test's time on 2 cores). A GCC
# precompiled header built in another folder is valid here (measured: a worktree's build and suite
# passed on them). A clang PCH is not: it records its inputs' absolute paths and checks them when
# used. So the clang sanitize build has no precompiled header (CMakePresets.json) and gets the same
# base directory: without it, CI's clean checkout compiled all of that build afresh (about 20 min on
# 2 cores); without the PCH each torch translation unit takes about twice as long once.
# Paths given as macro values (-DCLAIMCHECK_TEST_DATA=...) are not rewritten, so a file that names
# its checkout is compiled again for another one.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(ccache_env "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR CMAKE_DISABLE_PRECOMPILE_HEADERS)
    list(APPEND ccache_env "CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}" CCACHE_NOHASHDIR=1)
  endif()
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env ${ccache_env} ${CCACHE_PROGRAM})
  message(STATUS "ccache: ${CCACHE_PROGRAM}")
endif()
