# The install-and-consume test: cmake --install into a fresh prefix, build a
# program outside the tree with find_package(gdtune 0.2 CONFIG), rank a
# shape from the installed tables, and check its first plans against the
# installed `gdtune plans`.  Run as: cmake -DBUILD=... -DSRC=... -DWORK=... -P
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
set(P ${WORK}/prefix)

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY ${WORK})
# Under umask 000, so that a mode left to the umask shows: nothing installed
# may be writable by group or others (links aside: their mode means nothing).
run("cmake --install" sh -c "umask 000 && exec \"$0\" \"$@\"" ${CMAKE_COMMAND} --install ${BUILD}
    --prefix ${P})
run("find" find ${P} ! -type l -perm /022 -printf "%m %p\\n")
if(NOT OUT STREQUAL "")
  message(FATAL_ERROR "cmake --install left these writable by group or others:\n${OUT}")
endif()
file(GLOB_RECURSE so ${P}/*/libgdtune.so)
file(GLOB_RECURSE a ${P}/*/libgdtune.a)
file(GLOB_RECURSE cfg ${P}/*/gdtuneConfig.cmake)
file(GLOB_RECURSE pc ${P}/*/gdtune.pc)
foreach(f so a cfg pc)
  if(NOT ${f})
    message(FATAL_ERROR "installed tree lacks ${f}")
  endif()
endforeach()
foreach(f bin/gdtune include/gdtune/gdtune.h include/gdtune/plan.h share/gdtune/candidates/nvrtc.json
          share/gdtune/sweeps/gemm.json share/gdtune/tables/sm90/gemm.placement.json
          share/gdtune/tables/sm90/sdpa_bwd.tuning.json share/gdtune/examples/slurm/submit.sh
          share/gdtune/examples/slurm/sweep-array.sbatch share/gdtune/examples/k8s/sweep-indexed-job.yaml)
  if(NOT EXISTS ${P}/${f})
    message(FATAL_ERROR "installed tree lacks ${f}")
  endif()
endforeach()
foreach(f include/gdtune/gdt_json.h include/gdt_json.h share/gdtune/tables/sm90/runs share/gdtune/runs
          share/gdtune/tools share/gdtune/tables/clock_whatif.py)
  if(EXISTS ${P}/${f})
    message(FATAL_ERROR "installed tree holds ${f}, which is not installed data or a public header")
  endif()
endforeach()

run("consumer configure" ${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/cb
    -DCMAKE_PREFIX_PATH=${P} -DCMAKE_BUILD_TYPE=Release)
run("consumer build" ${CMAKE_COMMAND} --build ${WORK}/cb)
set(shape m=128,n=4096,k=4096)
run("consumer" ${WORK}/cb/rank ${shape})
set(ranked "${OUT}")
set(T ${P}/share/gdtune/tables)
foreach(mode A OPENSOURCE)
  run("gdtune plans --mode ${mode}" ${P}/bin/gdtune plans gemm --shape ${shape} --arch sm90 --tables ${T} --mode ${mode})
  # "   0  NAME  MODE, why" (a name holds single spaces), or "   0  BACKEND(A) ..."
  if(OUT MATCHES "\n +0  BACKEND")
    set(want BACKEND)
  elseif(OUT MATCHES "\n +0  ([^\n]*[^ \n])  +(A|B|FALLBACK|OPENSOURCE),")
    set(want "${CMAKE_MATCH_1}")
  else()
    message(FATAL_ERROR "gdtune plans printed no entry 0:\n${OUT}")
  endif()
  if(NOT ranked MATCHES "(^|\n)${mode} ([^\n]+)")
    message(FATAL_ERROR "consumer printed no ${mode} entry:\n${ranked}")
  endif()
  if(NOT CMAKE_MATCH_2 STREQUAL want)
    message(FATAL_ERROR "mode ${mode}: the consumer ranks ${CMAKE_MATCH_2} first, gdtune plans ${want}:\n${OUT}")
  endif()
  message(STATUS "mode ${mode}: first ${want} (consumer and gdtune plans agree)")
endforeach()

# The tables are found through GDTUNE_TABLES_PATH when no --tables is given
# (run where no ./tables is).
set(ENV{GDTUNE_TABLES_PATH} "${WORK}/no-such-dir:${T}")
run("gdtune plans with GDTUNE_TABLES_PATH" ${P}/bin/gdtune plans gemm --shape ${shape} --arch sm90)
if(NOT OUT MATCHES "tables: ${T}/sm90/gemm")
  message(FATAL_ERROR "GDTUNE_TABLES_PATH=${T}: gdtune plans did not use it:\n${OUT}")
endif()
file(REMOVE_RECURSE ${WORK})
