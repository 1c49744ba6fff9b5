# `cmake --install build/release [--prefix DIR]`: the claimcheck binary and its data.
#   bin/claimcheck
#   share/claimcheck/papers/NAME/{claims,runs.yaml,paper.yaml,expected.json,...}, schemas
#   share/claimcheck/fixtures (Assign and Add's), papers/NAME/fixtures   (component `fixtures`: ~400 MB)
#   share/doc/claimcheck: README.md, docs/, LICENSE, CITATION.cff, CHANGELOG.md
# `verify` finds a paper's fixtures as paper.yaml places them (catalogue/paper_layout.h), so the installed tree verifies as the source
# tree does: claimcheck verify PREFIX/share/claimcheck/papers/NAME. Without the fixtures, install only the
# component `claimcheck` (cmake --install build/release --component claimcheck): the claims then need
# --budget cpu (training) or a --fixtures folder of their own.
include(GNUInstallDirs)
set(CLAIMCHECK_DATADIR ${CMAKE_INSTALL_DATADIR}/claimcheck)

install(TARGETS claimcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT claimcheck)
install(DIRECTORY schemas DESTINATION ${CLAIMCHECK_DATADIR} COMPONENT claimcheck)
# Each paper's data; its C++ module is compiled into the binary, its fixtures are their own component.
install(DIRECTORY papers DESTINATION ${CLAIMCHECK_DATADIR} COMPONENT claimcheck
        PATTERN module EXCLUDE PATTERN fixtures EXCLUDE)
install(DIRECTORY fixtures DESTINATION ${CLAIMCHECK_DATADIR} COMPONENT fixtures)
file(GLOB CLAIMCHECK_PAPER_FIXTURES LIST_DIRECTORIES true ${PROJECT_SOURCE_DIR}/papers/*/fixtures)
foreach(dir ${CLAIMCHECK_PAPER_FIXTURES})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${dir})
  get_filename_component(parent ${rel} DIRECTORY)
  install(DIRECTORY ${dir} DESTINATION ${CLAIMCHECK_DATADIR}/${parent} COMPONENT fixtures)
endforeach()
install(FILES README.md LICENSE CITATION.cff CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT claimcheck)
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT claimcheck)
