# `cmake --install build/release [--prefix DIR]`: the claimcheck binary and its data (component
# `claimcheck`, the default):
#   bin/claimcheck
#   share/claimcheck/papers/NAME/{claims,runs.yaml,paper.yaml,expected.json,...}, schemas
#   share/doc/claimcheck: README.md, docs/, LICENSE, CITATION.cff, CHANGELOG.md
# and two components a plain install leaves out, each installed by name (--component NAME):
#   fixtures   share/claimcheck/fixtures (Assign and Add's), papers/NAME/fixtures   (~400 MB)
#   reports    share/claimcheck/reports/fixtures, papers/NAME/reports: the committed reports, which a
#              paper's cross_checks read (N6 beside M8b)
# `verify` finds a paper's fixtures as paper.yaml places them (catalogue/paper_layout.h), so an installed
# tree with the fixtures verifies as the source tree does: claimcheck verify PREFIX/share/claimcheck/papers/NAME.
# Without them the claims need --budget cpu (training) or a --fixtures folder of their own.
include(GNUInstallDirs)
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
install(FILES README.md LICENSE CITATION.cff CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT claimcheck)
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT claimcheck)
