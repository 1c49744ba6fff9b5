# Included by ctest (TEST_INCLUDE_FILES, cmake/ClaimTests.cmake) each time it runs: asks claimcheck for
# the claim tests and adds them. Without the binary (not built yet) or when it cannot list them, one
# test, claims.discovery, fails with the reason, so a broken discovery is never a green run.
if(NOT EXISTS "${CLAIMCHECK_EXE}")
  add_test(claims.discovery /bin/sh -c "echo 'claimcheck is not built: ${CLAIMCHECK_EXE}; build it first'; exit 1")
  return()
endif()
execute_process(COMMAND "${CLAIMCHECK_EXE}" list --ctest --root "${CLAIMCHECK_SOURCE_DIR}" --budget "${CLAIMCHECK_CLAIM_BUDGET}"
                WORKING_DIRECTORY "${CLAIMCHECK_SOURCE_DIR}"
                OUTPUT_VARIABLE listing ERROR_VARIABLE why RESULT_VARIABLE rc TIMEOUT 300)
if(NOT rc EQUAL 0)
  string(REPLACE "'" "" why "${why}")
  add_test(claims.discovery /bin/sh -c "echo 'claimcheck list --ctest failed (${rc}): ${why}'; exit 1")
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(REPLACE "\t" ";" fields "${line}")
  list(GET fields 0 name)
  list(GET fields 1 file)
  list(GET fields 2 budget)
  list(GET fields 3 baseline)
  list(GET fields 4 labels)
  string(REPLACE "," ";" labels "${labels}")
  # A sixth field: verify's extra arguments (a rung test's --rung NAME), ','-separated.
  set(extra "")
  list(LENGTH fields n_fields)
  if(n_fields GREATER 5)
    list(GET fields 5 extra)
    string(REPLACE "," ";" extra "${extra}")
  endif()
  add_test("${name}" "${CLAIMCHECK_EXE}" verify "${file}" ${extra} --budget "${budget}" --baseline "${baseline}"
           --report "${CLAIMCHECK_BINARY_DIR}/claim-reports/${name}" --cache "${CLAIMCHECK_SOURCE_DIR}/cache" --jobs 1)
  # One thread and one BLAS thread per test: ctest -j N runs N claims side by side, and N processes of 2
  # threads each on N cores oversubscribe them (measured: 2 min 40 s vs the figure in reports/perf.md).
  set_tests_properties("${name}" PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77
                       ENVIRONMENT "CLAIMCHECK_BLAS_THREADS=1" WORKING_DIRECTORY "${CLAIMCHECK_SOURCE_DIR}")
endforeach()
