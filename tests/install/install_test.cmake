# The install-and-consume test: cmake --install into a fresh prefix, build a
# program outside the tree with find_package(gdtune 0.2 CONFIG), rank a
# shape from the installed tables, and check its first plans against the
# installed `gdtune plans`; then, with no environment at all, the installed
# gdtune and pkg-config consumers (shared, static) find the installed
# tables, before and after the prefix is moved whole.
# Run as: cmake -DBUILD=... -DSRC=... -DWORK=... -DCC=... -P
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

# ---- With no environment, and relocated.  Every run below has none of
# the caller's environment (env -i PATH=/usr/bin:/bin: no GDTUNE_*, no
# LD_LIBRARY_PATH) and runs in an empty folder outside the checkout, so
# that only what the install holds can find the tables: the installed
# gdtune (libgdtune.a inside: beside the executable), a pkg-config
# consumer of libgdtune.so (outside the prefix: beside the library) and
# one of libgdtune.a (in the prefix's bin).  Then the prefix is moved
# whole and all of it is checked again, with the CMake package too.
execute_process(COMMAND mktemp -d /tmp/gdtune-install-test.XXXXXX OUTPUT_VARIABLE OUTSIDE
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${OUTSIDE}")
  message(FATAL_ERROR "mktemp -d /tmp/gdtune-install-test.XXXXXX failed (${rc})")
endif()
file(MAKE_DIRECTORY ${OUTSIDE}/cwd)
get_filename_component(pcdir ${pc} DIRECTORY)
file(RELATIVE_PATH PCDIR ${P} ${pcdir})

# clean_run(RC WHAT COMMAND...): COMMAND must exit RC; OUT gets stdout and
# stderr together.
function(clean_run want what)
  execute_process(COMMAND env -i PATH=/usr/bin:/bin ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out WORKING_DIRECTORY ${OUTSIDE}/cwd)
  if(NOT rc STREQUAL want)
    message(FATAL_ERROR "${what}: expected exit ${want}, got ${rc} (work left in ${OUTSIDE}):\n${out}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
endfunction()

function(expect_in what needle)
  string(FIND "${OUT}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected \"${needle}\" in (work left in ${OUTSIDE}):\n${OUT}")
  endif()
endfunction()

# flags(VAR ARGS...): pkg-config ARGS gdtune, found through PKG_CONFIG_PATH alone.
function(flags var)
  clean_run(0 "pkg-config ${ARGN} gdtune" PKG_CONFIG_PATH=${PKG} pkg-config ${ARGN} gdtune)
  string(STRIP "${OUT}" out)
  separate_arguments(out UNIX_COMMAND "${out}")
  set(${var} ${out} PARENT_SCOPE)
endfunction()

function(check_prefix prefix)
  file(REAL_PATH ${prefix} prefix)
  set(PKG ${prefix}/${PCDIR})
  set(want ${prefix}/share/gdtune/tables)
  clean_run(0 "${prefix}/bin/gdtune plans, no environment" ${prefix}/bin/gdtune plans gemm
            --shape ${shape} --arch sm90)
  expect_in("${prefix}/bin/gdtune plans, no environment: the installed tables"
            "tables: ${want}/sm90/gemm.{placement,tuning}.json")

  flags(cflags --cflags --libs)
  flags(libdir --variable=libdir)
  clean_run(0 "cc with pkg-config --cflags --libs gdtune" ${CC} ${SRC}/tests/install/consumer/find.c
            ${cflags} -Wl,-rpath,${libdir} -o ${OUTSIDE}/find-shared)
  clean_run(0 "pkg-config consumer of libgdtune.so" ${OUTSIDE}/find-shared)
  expect_in("pkg-config consumer of libgdtune.so (beside the library)" "found ${want} (")

  # libgdtune.a, whole: every object's needs must be in Libs.private
  flags(static --static --cflags --libs)
  set(link "")
  foreach(f IN LISTS static)
    if(f STREQUAL "-lgdtune")
      list(APPEND link -Wl,--whole-archive -l:libgdtune.a -Wl,--no-whole-archive)
    else()
      list(APPEND link ${f})
    endif()
  endforeach()
  clean_run(0 "cc with pkg-config --static --cflags --libs gdtune, libgdtune.a"
            ${CC} ${SRC}/tests/install/consumer/find.c ${link} -o ${prefix}/bin/find-static)
  clean_run(0 "readelf -d" readelf -d ${prefix}/bin/find-static)
  if(OUT MATCHES "libgdtune")
    message(FATAL_ERROR "find-static links libgdtune.so, not libgdtune.a:\n${OUT}")
  endif()
  clean_run(0 "pkg-config consumer of libgdtune.a" ${prefix}/bin/find-static)
  expect_in("pkg-config consumer of libgdtune.a in the prefix's bin (beside the executable)"
            "found ${want} (")
  # outside the prefix a static consumer has no place of its own: it says
  # each place it searched, and none is beside a library
  file(COPY ${prefix}/bin/find-static DESTINATION ${OUTSIDE})
  clean_run(1 "libgdtune.a consumer outside the prefix" ${OUTSIDE}/find-static)
  expect_in("libgdtune.a consumer outside the prefix" "(beside the executable ${OUTSIDE}/find-static)")
  expect_in("libgdtune.a consumer outside the prefix" "searched tables (the working folder's ./tables)")
  if(OUT MATCHES "beside libgdtune")
    message(FATAL_ERROR "a libgdtune.a consumer searched beside a library:\n${OUT}")
  endif()
  message(STATUS "${prefix}: gdtune plans and the pkg-config consumers find ${want} with no environment")
endfunction()

check_prefix(${P})
set(M ${OUTSIDE}/moved/prefix)
file(MAKE_DIRECTORY ${OUTSIDE}/moved)
run("cp -a" cp -a ${P} ${M})
file(REMOVE_RECURSE ${P})
check_prefix(${M})
run("consumer configure, moved prefix" ${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/cm
    -DCMAKE_PREFIX_PATH=${M} -DCMAKE_BUILD_TYPE=Release)
run("consumer build, moved prefix" ${CMAKE_COMMAND} --build ${WORK}/cm)
clean_run(0 "find_package consumer, moved prefix" ${WORK}/cm/rank ${shape})
file(REMOVE_RECURSE ${OUTSIDE})
file(REMOVE_RECURSE ${WORK})
