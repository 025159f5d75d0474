# Runs the fuzz target FUZZER for SECONDS on a scratch copy (WORK_DIR) of its seed corpus CORPUS,
# with its dictionary DICT; the fuzz.<target> tests. Fails on anything libFuzzer reports: a
# crash, a sanitizer report, a leak, an input slower than 10 s, more than 2 GB. The seed corpus
# stays as it is; new inputs and reproducers go to WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/corpus ${WORK_DIR}/artifacts)
file(COPY ${CORPUS}/ DESTINATION ${WORK_DIR}/corpus)
set(ENV{UBSAN_OPTIONS} "print_stacktrace=1")
execute_process(
  COMMAND ${FUZZER} ${WORK_DIR}/corpus -dict=${DICT} -max_total_time=${SECONDS} -timeout=10
          -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=${WORK_DIR}/artifacts/
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE log)
file(WRITE ${WORK_DIR}/fuzz.log "${out}${log}")
# The log without its progress lines: the start, the summary, and any report.
string(REGEX REPLACE "\n(#[0-9]+\t(NEW|REDUCE|pulse)|\tNEW_FUNC)[^\n]*" "" log "${log}")
string(REGEX REPLACE "\n###### Recommended dictionary.*End of recommended dictionary. ######" ""
       log "${log}")
if(NOT rc EQUAL 0)
  file(GLOB _found ${WORK_DIR}/artifacts/*)
  message(FATAL_ERROR "${log}\n${FUZZER} failed (exit ${rc}); reproducer: ${_found}\n"
                      "full log: ${WORK_DIR}/fuzz.log")
endif()
message(STATUS "${log}")
