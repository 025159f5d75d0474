# ctest entries for the fuzz targets of this folder, included by tests/CMakeLists.txt. One test
# configures and builds the targets with clang into the build tree (a fixture); one test per
# target then runs it for HISTTUNE_FUZZ_SECONDS on a scratch copy of its seed corpus and fails
# on any crash, leak, sanitizer report or timeout. docs/testing.md says how to run them longer.
option(HISTTUNE_FUZZ "Build and run the libFuzzer targets in ctest (needs clang and libclang-rt)" ON)
set(HISTTUNE_FUZZ_SECONDS 30 CACHE STRING "Seconds each fuzz target runs in ctest")
set(HISTTUNE_FUZZ_CXX clang++ CACHE STRING "The clang++ that builds the fuzz targets")

set(_fuzz_src ${CMAKE_CURRENT_LIST_DIR})
set(_fuzz_build ${CMAKE_CURRENT_BINARY_DIR}/fuzz_build)
set(_fuzz_targets import_json problem_spec config_label)

# The four tests, reported as skipped (not passed) with the reason.
function(fuzz_tests_skipped reason)
  foreach(_name build ${_fuzz_targets})
    add_test(NAME fuzz.${_name} COMMAND ${CMAKE_COMMAND} -E echo "fuzz.${_name}: skipped, ${reason}")
    set_tests_properties(fuzz.${_name} PROPERTIES SKIP_REGULAR_EXPRESSION "fuzz[.][a-z_]+: skipped, ")
  endforeach()
endfunction()

# Whether the clang++ at hand links libFuzzer with the sanitizers: empty when it does, else why
# not. The compiler is asked (it finds the runtime of its own version, wherever its packages put
# it), once per compiler: the answer is cached.
function(fuzz_runtime_problem cxx out)
  set(_cache_key "${cxx}")
  if(DEFINED CACHE{_HISTTUNE_FUZZ_PROBE_FOR} AND "$CACHE{_HISTTUNE_FUZZ_PROBE_FOR}" STREQUAL _cache_key)
    set(${out} "$CACHE{_HISTTUNE_FUZZ_PROBE}" PARENT_SCOPE)
    return()
  endif()
  set(_dir ${CMAKE_CURRENT_BINARY_DIR}/fuzz_probe)
  file(WRITE ${_dir}/probe.cpp [[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
]])
  execute_process(COMMAND ${cxx} --version OUTPUT_VARIABLE _banner ERROR_QUIET)
  string(REGEX MATCH "clang version ([0-9]+)[.0-9]*" _version "${_banner}")
  set(_major "${CMAKE_MATCH_1}")
  if(NOT _major)
    set(_why "${cxx} is not clang (HISTTUNE_FUZZ_CXX names the clang++ to build them with)")
    set(_HISTTUNE_FUZZ_PROBE_FOR "${_cache_key}" CACHE INTERNAL "")
    set(_HISTTUNE_FUZZ_PROBE "${_why}" CACHE INTERNAL "")
    set(${out} "${_why}" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND ${cxx} -fsanitize=fuzzer,address,undefined ${_dir}/probe.cpp
                          -o ${_dir}/probe
                  RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
  set(_why "")
  if(NOT _rc EQUAL 0)
    # The linker's line that names the missing library, if it said one.
    string(REGEX MATCH "[^\n]*(cannot find|not found|No such file)[^\n]*" _line "${_err}")
    string(CONCAT _why "${cxx} (${_version}) cannot link -fsanitize=fuzzer,address,"
           "undefined: its fuzzer and sanitizer runtimes are missing (Debian: apt-get install "
           "libclang-rt-${_major}-dev) ${_line}")
  endif()
  set(_HISTTUNE_FUZZ_PROBE_FOR "${_cache_key}" CACHE INTERNAL "")
  set(_HISTTUNE_FUZZ_PROBE "${_why}" CACHE INTERNAL "")
  set(${out} "${_why}" PARENT_SCOPE)
endfunction()

if(NOT HISTTUNE_FUZZ)
  fuzz_tests_skipped("HISTTUNE_FUZZ=OFF")
  return()
endif()
find_program(_fuzz_cxx NAMES ${HISTTUNE_FUZZ_CXX} NO_CACHE)
if(NOT _fuzz_cxx)
  message(STATUS "fuzz tests skipped: no ${HISTTUNE_FUZZ_CXX} on PATH")
  fuzz_tests_skipped("no ${HISTTUNE_FUZZ_CXX} (HISTTUNE_FUZZ_CXX) on PATH: install clang and its "
                     "libclang-rt-<version>-dev")
  return()
endif()
fuzz_runtime_problem(${_fuzz_cxx} _fuzz_problem)
if(_fuzz_problem)
  message(STATUS "fuzz tests skipped: ${_fuzz_problem}")
  fuzz_tests_skipped("${_fuzz_problem}")
  return()
endif()

add_test(NAME fuzz.build
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${_fuzz_src} -DBUILD_DIR=${_fuzz_build}
    -DCXX=${_fuzz_cxx} "-DGENERATOR=${CMAKE_GENERATOR}"
    -DLAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER} -P ${_fuzz_src}/build_fuzzers.cmake)
# COST: ctest -j starts the costliest ready tests first, so the build starts at once and each run
# as soon as it is done, beside the suite, rather than last in declaration order (a fresh clone has
# no timings of its own): a minute off CI's 2 cores.
set_tests_properties(fuzz.build PROPERTIES FIXTURES_SETUP histtune_fuzz TIMEOUT 900 COST 1000)

math(EXPR _fuzz_timeout "${HISTTUNE_FUZZ_SECONDS} + 300")
foreach(_name ${_fuzz_targets})
  add_test(NAME fuzz.${_name}
    COMMAND ${CMAKE_COMMAND} -DFUZZER=${_fuzz_build}/fuzz_${_name}
      -DCORPUS=${_fuzz_src}/corpus/${_name} -DDICT=${_fuzz_src}/${_name}.dict
      -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/fuzz_work/${_name}
      -DSECONDS=${HISTTUNE_FUZZ_SECONDS} -P ${_fuzz_src}/run_fuzzer.cmake)
  set_tests_properties(fuzz.${_name} PROPERTIES FIXTURES_REQUIRED histtune_fuzz
                       TIMEOUT ${_fuzz_timeout} COST 500)
endforeach()
