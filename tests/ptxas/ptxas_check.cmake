# The handwritten kernels' ptxas report, checked for what -Werror=all-warnings
# does not catch: ptxas prints register spills and wgmma serialization
# (C7512: "wgmma ... serialized", every wgmma of the function waiting on the
# last) as info lines, and either can cost a hand kernel most of its speed
# while it still compiles cleanly and verifies.
#
#   cmake -DNVCC=... -DSRC=<source dir> -DWORK=<scratch dir> -P ptxas_check.cmake
#   cmake -DLOG=<a saved ptxas report> -P ptxas_check.cmake   (checks that file only)
#
# Fails on a spill (a nonzero "bytes spill stores/loads") or on C7512, naming
# the kernel file and the offending line; C7519 (an injected warpgroup.arrive
# before a wgmma that reads registers) is reported, not failed: the forward
# carries it today (engines/hand/README.md).

function(check_report name text)
  string(REGEX MATCHALL "[^\n]*[ :][1-9][0-9]* bytes spill (stores|loads)[^\n]*" spills "${text}")
  string(REGEX MATCHALL "[^\n]*\\(C7512\\)[^\n]*" serial "${text}")
  string(REGEX MATCHALL "[^\n]*\\(C7519\\)[^\n]*" arrive "${text}")
  string(REGEX MATCHALL "Compiling entry function" entries "${text}")
  list(LENGTH entries n)
  list(LENGTH arrive narrive)
  if(narrive GREATER 0)
    message(STATUS "${name}: ${narrive} C7519 (warpgroup.arrive injected), reported only")
  endif()
  if(spills OR serial)
    string(REPLACE ";" "\n  " bad "${spills};${serial}")
    message(FATAL_ERROR "${name}: ptxas reports spills or serialized wgmma:\n  ${bad}")
  endif()
  message(STATUS "${name}: ${n} entries, no spills, no C7512")
endfunction()

if(DEFINED LOG)
  file(READ "${LOG}" text)
  check_report("${LOG}" "${text}")
  return()
endif()

file(GLOB kernels "${SRC}/kernels/hand/*.cu")
if(NOT kernels)
  message(FATAL_ERROR "no kernels under ${SRC}/kernels/hand")
endif()
file(MAKE_DIRECTORY "${WORK}")
foreach(cu IN LISTS kernels)
  get_filename_component(base "${cu}" NAME_WE)
  execute_process(
    COMMAND "${NVCC}" -gencode=arch=compute_90a,code=sm_90a -cubin -O3 -std=c++17
            -Xptxas -v -I${SRC}/kernels -o "${WORK}/${base}.cubin" "${cu}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${cu}: nvcc exited ${rc}:\n${out}")
  endif()
  check_report("kernels/hand/${base}.cu" "${out}")
endforeach()
