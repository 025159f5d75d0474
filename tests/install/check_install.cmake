# Installs the build at BUILD_DIR into WORK_DIR/prefix, then configures, builds and runs the
# consumer project against it. Fails on any step.
file(REMOVE_RECURSE ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
# Without a GPU the consumer must still start and say so; with one it prints the histogram the
# README shows.
execute_process(COMMAND ${WORK_DIR}/build/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message(STATUS "consumer exit ${rc}:\n${out}${err}")
if(NOT (rc EQUAL 0 OR (rc EQUAL 3 AND err MATCHES "no CUDA device")))
  message(FATAL_ERROR "consumer failed unexpectedly")
endif()
if(rc EQUAL 0 AND NOT out MATCHES "configuration tpb[^\n]* \\(lookup: [a-z_]+\\)\n.*bin 250: 4177\n.*1048576 of 1048576 samples counted")
  message(FATAL_ERROR "consumer ran but did not print the expected histogram")
endif()
