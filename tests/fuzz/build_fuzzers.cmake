# Configures and builds the fuzz targets of SOURCE_DIR into BUILD_DIR with the clang++ CXX names
# (and the main build's compiler LAUNCHER, if any); the fuzz.build test. Fails with the reason.
string(CONCAT _hint "The fuzz tests need clang++ and its fuzzer runtime (Debian: apt-get install "
       "clang libclang-rt-dev, as README.md's command 2 does, or the libclang-rt-<version>-dev "
       "of another clang); configure the main build with -DHISTTUNE_FUZZ=OFF to skip them.")
find_program(_cxx NAMES ${CXX})
if(NOT _cxx)
  message(FATAL_ERROR "fuzz.build: ${CXX} not found. ${_hint}")
endif()

set(_args -S ${SOURCE_DIR} -B ${BUILD_DIR} -DCMAKE_CXX_COMPILER=${_cxx})
if(NOT EXISTS ${BUILD_DIR}/CMakeCache.txt AND GENERATOR)
  list(APPEND _args -G ${GENERATOR})
endif()
if(LAUNCHER)
  list(APPEND _args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${_args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz.build: configuring ${SOURCE_DIR} with ${_cxx} failed:\n${out}${err}\n${_hint}")
endif()

cmake_host_system_information(RESULT _cores QUERY NUMBER_OF_LOGICAL_CORES)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --parallel ${_cores}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz.build: building the fuzz targets failed:\n${out}${err}")
endif()
message(STATUS "fuzz targets built in ${BUILD_DIR}")
