# Use ccache when present. The torch precompiled header needs ccache's pch sloppiness,
# otherwise every PCH user is a cache miss. CCACHE_BASEDIR makes the paths under the checkout
# relative in what ccache hashes, and CCACHE_NOHASHDIR leaves the working directory out (the
# sanitize build's -g1 would hash it), so that a second checkout of the same sources (CI's clean
# one, a git worktree) hits the cache the first one filled instead of compiling every
# translation unit again (a cold release + sanitize build is most of ci/test's time on 2 cores).
# Paths given as macro values (-DCLAIMCHECK_SOURCE_DIR=...) are not rewritten, so an object
# that names its checkout is compiled again for another one.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      "CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}" CCACHE_NOHASHDIR=1 ${CCACHE_PROGRAM})
  message(STATUS "ccache: ${CCACHE_PROGRAM}")
endif()
