# Use ccache when present. The torch precompiled header needs ccache's pch sloppiness,
# otherwise every PCH user is a cache miss.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      ${CCACHE_PROGRAM})
  message(STATUS "ccache: ${CCACHE_PROGRAM}")
endif()
