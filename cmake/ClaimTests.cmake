# One ctest test per claim file of every paper papers/NAME/claims/: claim.NAME.<id>, labels
# claim;<tier>;<section folder>;paper:NAME. Each reads its paper's fixtures (catalogue/paper_layout.h).
# The outcome the paper's baseline (its expected.json) expects -> pass, an expected FAIL included;
# SKIPPED -> ctest skip (exit 77); any change from the baseline -> fail (exit 3).
# Adding a claim is adding a YAML file: the glob re-runs at build time (CONFIGURE_DEPENDS).
set(CLAIMCHECK_CLAIM_BUDGET "fixture" CACHE STRING "--budget for the claim tests: fixture | cpu | gpu")

# claim_tests(PAPER CLAIMS_DIR BASELINE PREFIX)
function(claim_tests paper claims_dir baseline prefix)
  file(GLOB_RECURSE claim_files CONFIGURE_DEPENDS ${claims_dir}/*.yaml)
  list(FILTER claim_files EXCLUDE REGEX "/(runs|paper)\\.yaml$")
  foreach(file IN LISTS claim_files)
    file(STRINGS ${file} id_line REGEX "^id:[ ]*[^ ]+" LIMIT_COUNT 1)
    file(STRINGS ${file} tier_line REGEX "^tier:[ ]*[a-z]+" LIMIT_COUNT 1)
    string(REGEX REPLACE "^id:[ ]*([^ #]+).*" "\\1" id "${id_line}")
    string(REGEX REPLACE "^tier:[ ]*([a-z]+).*" "\\1" tier "${tier_line}")
    if(id STREQUAL "")
      get_filename_component(id ${file} NAME_WE)  # the engine reports the missing id as ERROR
    endif()
    if(tier STREQUAL "")
      set(tier fixture)
    endif()
    get_filename_component(section_dir ${file} DIRECTORY)
    get_filename_component(section ${section_dir} NAME)
    # The reproducibility claims train by design (R1, R2: about a minute), so they get the budget
    # their tier names; every other claim uses the configured budget.
    set(budget ${CLAIMCHECK_CLAIM_BUDGET})
    if(section STREQUAL "repro" AND budget STREQUAL "fixture")
      set(budget ${tier})
    endif()
    # Against the committed baseline: the test passes when the outcome is the expected one, an
    # expected FAIL (a finding) included, and fails when a verdict or a value moves (exit 3).
    add_test(NAME ${prefix}${id}
             COMMAND claimcheck verify ${file} --budget ${budget} --baseline ${baseline}
                     --report ${PROJECT_BINARY_DIR}/claim-reports/${prefix}${id}
                     --cache ${PROJECT_SOURCE_DIR}/cache
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    # One BLAS thread per test: ctest -j N runs N claims side by side, and N processes of 2 BLAS
    # threads each on N cores oversubscribe them (measured: 2 min 40 s vs the figure in reports/perf.md).
    set_tests_properties(${prefix}${id} PROPERTIES LABELS "claim;${tier};${section};paper:${paper}"
                         SKIP_RETURN_CODE 77 ENVIRONMENT "CLAIMCHECK_BLAS_THREADS=1")
  endforeach()
endfunction()

file(GLOB paper_dirs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/papers/*)
foreach(dir IN LISTS paper_dirs)
  if(IS_DIRECTORY ${dir}/claims AND EXISTS ${dir}/expected.json)  # a paper without a baseline yet has no tests
    get_filename_component(name ${dir} NAME)
    claim_tests(${name} ${dir}/claims ${dir}/expected.json "claim.${name}.")
  endif()
endforeach()
