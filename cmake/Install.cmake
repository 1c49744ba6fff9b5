# `cmake --install build/release [--prefix DIR]`: the claimcheck binary and its data (component
# `claimcheck`, the default):
#   bin/claimcheck
#   share/claimcheck/papers/NAME/{claims,runs.yaml,paper.yaml,expected.json,...}, schemas
#   share/doc/claimcheck: README.md, docs/, LICENSE, CITATION.cff, CHANGELOG.md, CONTRIBUTING.md
# and three components a plain install leaves out, each installed by name (--component NAME):
#   fixtures     share/claimcheck/fixtures (Assign and Add's), papers/NAME/fixtures   (~400 MB)
#   reports      share/claimcheck/reports/fixtures, papers/NAME/reports: the committed reports, which a
#                paper's cross_checks read (N6 beside M8b)
#   development  the CMake package, for a paper module built out of this tree (CONTRIBUTING.md, "Add a paper"):
#                include/claimcheck (the engine's headers), lib/claimcheck (its static libraries, the
#                commands, the papers' modules), lib/cmake/claimcheck (find_package(claimcheck))
# `verify` finds a paper's fixtures as paper.yaml places them (catalogue/paper_layout.h), so an installed
# tree with the fixtures verifies as the source tree does: claimcheck verify PREFIX/share/claimcheck/papers/NAME.
# Without them the claims need --budget cpu (training) or a --fixtures folder of their own.
set(CLAIMCHECK_DATADIR ${CMAKE_INSTALL_DATADIR}/claimcheck)

install(TARGETS claimcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT claimcheck)
install(DIRECTORY schemas DESTINATION ${CLAIMCHECK_DATADIR} COMPONENT claimcheck)
# Each paper's data; its C++ module is compiled into the binary, its fixtures are their own component.
install(DIRECTORY papers DESTINATION ${CLAIMCHECK_DATADIR} COMPONENT claimcheck
        PATTERN module EXCLUDE PATTERN tests EXCLUDE PATTERN fixtures EXCLUDE PATTERN reports EXCLUDE)
install(DIRECTORY fixtures DESTINATION ${CLAIMCHECK_DATADIR} COMPONENT fixtures EXCLUDE_FROM_ALL)
install(DIRECTORY reports/fixtures DESTINATION ${CLAIMCHECK_DATADIR}/reports COMPONENT reports EXCLUDE_FROM_ALL)
foreach(part fixtures reports)
  file(GLOB dirs LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/papers/*/${part})
  foreach(dir ${dirs})
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${dir})
    get_filename_component(parent ${rel} DIRECTORY)
    install(DIRECTORY ${dir} DESTINATION ${CLAIMCHECK_DATADIR}/${parent} COMPONENT ${part} EXCLUDE_FROM_ALL)
  endforeach()
endforeach()
install(FILES README.md LICENSE CITATION.cff CHANGELOG.md CONTRIBUTING.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT claimcheck)
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT claimcheck)

# The package: every engine library, the commands (cc_app) and every paper's module, exported as
# claimcheck::NAME (cc_ dropped: claimcheck::plugin, claimcheck::app, claimcheck::paper_nanda_grokking).
# A project finds it with find_package(claimcheck), adds its own papers/NAME/module folders with
# claimcheck_add_paper_modules() and links its binary with claimcheck_add_executable(NAME)
# (cmake/PaperModules.cmake, installed beside the config).
include(CMakePackageConfigHelpers)
set(CLAIMCHECK_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/claimcheck)
set(engine_targets cc_util cc_model_core cc_model cc_train cc_analysis cc_plugin cc_catalogue cc_claims cc_sweep
                   cc_report cc_verify cc_app)
get_property(installed_papers GLOBAL PROPERTY CLAIMCHECK_PAPER_MODULES)
get_property(module_parts GLOBAL PROPERTY CLAIMCHECK_PAPER_MODULE_PARTS)
set(package_targets ${engine_targets} ${module_parts})
foreach(paper ${installed_papers})
  list(APPEND package_targets cc_paper_${paper})
endforeach()
foreach(target ${package_targets})
  string(REGEX REPLACE "^cc_" "" export_name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
install(TARGETS ${package_targets} EXPORT claimcheckTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}/claimcheck COMPONENT development EXCLUDE_FROM_ALL)
install(EXPORT claimcheckTargets NAMESPACE claimcheck:: DESTINATION ${CLAIMCHECK_CMAKEDIR}
        COMPONENT development EXCLUDE_FROM_ALL)
install(DIRECTORY lib/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/claimcheck COMPONENT development EXCLUDE_FROM_ALL
        FILES_MATCHING PATTERN "*.h")
install(FILES app/cli.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/claimcheck/app COMPONENT development EXCLUDE_FROM_ALL)
configure_package_config_file(cmake/claimcheckConfig.cmake.in ${CMAKE_BINARY_DIR}/claimcheckConfig.cmake
                              INSTALL_DESTINATION ${CLAIMCHECK_CMAKEDIR})
# 0.x: a minor version may change the module interface.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/claimcheckConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/claimcheckConfig.cmake ${CMAKE_BINARY_DIR}/claimcheckConfigVersion.cmake
              cmake/PaperModules.cmake app/main.cpp
        DESTINATION ${CLAIMCHECK_CMAKEDIR} COMPONENT development EXCLUDE_FROM_ALL)
