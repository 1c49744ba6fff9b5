# One ctest test per claim file of every paper papers/NAME/claims/: claim.NAME.<id>, labels
# claim;<tier>;paper:NAME and the claim's folder under claims/ (its section). Each reads its paper's
# fixtures (catalogue/paper_layout.h) and is compared with the paper's baseline (its expected.json):
# the expected outcome -> pass, an expected FAIL included; SKIPPED -> ctest skip (exit 77); any change
# from the baseline -> fail (exit 3). A rung of a paper's scale ladder with a `baseline:` (paper.yaml) is
# one test more, rung.NAME.<rung>: the whole paper verified at that rung against that baseline.
#
# The tests are asked of the binary when ctest runs (`claimcheck list --ctest`), as gtest_discover_tests
# asks a test binary: the claim files `verify` reads are the tests, found by the same code, so the two
# can never disagree, and adding a claim is adding a YAML file (no re-configure).
set(CLAIMCHECK_CLAIM_BUDGET "fixture" CACHE STRING "--budget for the claim tests: fixture | cpu | gpu")

set(claimcheck_claim_tests_include ${CMAKE_CURRENT_BINARY_DIR}/claim_tests_include.cmake)
file(GENERATE OUTPUT ${claimcheck_claim_tests_include} CONTENT
"set(CLAIMCHECK_EXE \"$<TARGET_FILE:claimcheck>\")
set(CLAIMCHECK_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
set(CLAIMCHECK_BINARY_DIR \"${PROJECT_BINARY_DIR}\")
set(CLAIMCHECK_CLAIM_BUDGET \"${CLAIMCHECK_CLAIM_BUDGET}\")
include(\"${PROJECT_SOURCE_DIR}/cmake/ClaimTestsDiscover.cmake\")
")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${claimcheck_claim_tests_include})
