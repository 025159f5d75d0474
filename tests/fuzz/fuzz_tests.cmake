# ctest entries for the fuzz targets of this folder, included by tests/CMakeLists.txt. One test
# configures and builds the targets with clang into the build tree (a fixture); one test per
# target then runs it for HISTTUNE_FUZZ_SECONDS on a scratch copy of its seed corpus and fails
# on any crash, leak, sanitizer report or timeout. docs/testing.md says how to run them longer.
option(HISTTUNE_FUZZ "Build and run the libFuzzer targets in ctest (needs clang and libclang-rt)" ON)
set(HISTTUNE_FUZZ_SECONDS 60 CACHE STRING "Seconds each fuzz target runs in ctest")
set(HISTTUNE_FUZZ_CXX clang++ CACHE STRING "The clang++ that builds the fuzz targets")

set(_fuzz_src ${CMAKE_CURRENT_LIST_DIR})
set(_fuzz_build ${CMAKE_CURRENT_BINARY_DIR}/fuzz_build)
set(_fuzz_targets import_json problem_spec config_label)

if(NOT HISTTUNE_FUZZ)
  # Reported as skipped (not passed), with the reason.
  foreach(_name build ${_fuzz_targets})
    add_test(NAME fuzz.${_name} COMMAND ${CMAKE_COMMAND} -E echo
             "fuzz.${_name}: skipped, HISTTUNE_FUZZ=OFF")
    set_tests_properties(fuzz.${_name} PROPERTIES SKIP_REGULAR_EXPRESSION "skipped, HISTTUNE_FUZZ=OFF")
  endforeach()
  return()
endif()

add_test(NAME fuzz.build
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${_fuzz_src} -DBUILD_DIR=${_fuzz_build}
    -DCXX=${HISTTUNE_FUZZ_CXX} "-DGENERATOR=${CMAKE_GENERATOR}"
    -DLAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER} -P ${_fuzz_src}/build_fuzzers.cmake)
set_tests_properties(fuzz.build PROPERTIES FIXTURES_SETUP histtune_fuzz TIMEOUT 900)

math(EXPR _fuzz_timeout "${HISTTUNE_FUZZ_SECONDS} + 300")
foreach(_name ${_fuzz_targets})
  add_test(NAME fuzz.${_name}
    COMMAND ${CMAKE_COMMAND} -DFUZZER=${_fuzz_build}/fuzz_${_name}
      -DCORPUS=${_fuzz_src}/corpus/${_name} -DDICT=${_fuzz_src}/${_name}.dict
      -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/fuzz_work/${_name}
      -DSECONDS=${HISTTUNE_FUZZ_SECONDS} -P ${_fuzz_src}/run_fuzzer.cmake)
  set_tests_properties(fuzz.${_name} PROPERTIES FIXTURES_REQUIRED histtune_fuzz
                       TIMEOUT ${_fuzz_timeout})
endforeach()
