# cmake --install: libgdtune (shared and static) with its public headers, the
# gdtune executable, the default candidate rows and sweep specs, the
# committed tables and the scheduler examples as data, a versioned CMake
# package (find_package(gdtune 0.2 CONFIG): gdtune::gdtune,
# gdtune::gdtune_static) and gdtune.pc.
include(CMakePackageConfigHelpers)
set(GDT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gdtune)
set(GDT_DATA_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/gdtune) # relative: --prefix moves it
# Nothing installed is anyone else's to write, whatever the umask of whoever
# installs (under umask 000 the folders install() makes on the way were 0777):
# folders 0755, data 0644, programs and scripts 0755.
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
  GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(GDT_DATA_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

install(TARGETS gdtune_shared gdtune_static gdt_deps EXPORT gdtuneTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS gdtune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engines/include/gdtune
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tables/candidates DESTINATION ${GDT_DATA_INSTALL_DIR}
  FILES_MATCHING PATTERN "*.json")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sweeps/ DESTINATION ${GDT_DATA_INSTALL_DIR}/sweeps
  FILES_MATCHING PATTERN "*.json")
# The tables: tables/<arch>/*.{placement,tuning}.json.  The journals they
# come from (runs/) and tools/ are not installed.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tables/ DESTINATION ${GDT_DATA_INSTALL_DIR}/tables
  FILES_MATCHING REGEX "/sm[0-9]+/[a-z_]+\\.(placement|tuning)\\.json$"
  PATTERN candidates EXCLUDE)
# Scale-out through schedulers (README: Scale-out): SLURM scripts, Kubernetes Jobs.
# Modes from here, not from the checkout (a clone under umask 000 is 0666).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${GDT_DATA_INSTALL_DIR}/examples
  FILE_PERMISSIONS ${GDT_DATA_PERMISSIONS}
  PATTERN "*.sh" PERMISSIONS ${CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS}
  PATTERN "*.sbatch" PERMISSIONS ${CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS})

install(EXPORT gdtuneTargets NAMESPACE gdtune:: DESTINATION ${GDT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gdtuneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/gdtuneConfig.cmake INSTALL_DESTINATION ${GDT_CMAKE_DIR}
  PATH_VARS GDT_DATA_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gdtuneConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gdtuneConfig.cmake ${PROJECT_BINARY_DIR}/gdtuneConfigVersion.cmake
  DESTINATION ${GDT_CMAKE_DIR})

# gdtune.pc.  prefix=${pcfiledir}/.. up to the prefix: relocatable while
# CMAKE_INSTALL_LIBDIR is relative (the default); a directory given
# absolute is written as given.
file(RELATIVE_PATH GDT_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" GDT_PC_TO_PREFIX "${GDT_PC_TO_PREFIX}")
foreach(d LIBDIR INCLUDEDIR DATADIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    set(GDT_PC_${d} "${CMAKE_INSTALL_${d}}")
  else()
    set(GDT_PC_${d} "\${prefix}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
# Libs.private: what libgdtune.a leaves undefined (nm -u libgdtune.a):
# cuDNN, the CUDA runtime, NVRTC, cJSON, libm, libdl, pthreads; not HDF5,
# CUPTI or the driver, which only the harness uses.  cJSON through its own
# .pc where pkg-config knows one.  test_install links a consumer with the
# whole archive, so that a missing entry fails there.
set(GDT_PC_LIBS_PRIVATE "")
set(GDT_PC_REQUIRES_PRIVATE "")
function(gdt_pc_lib file)
  get_filename_component(dir ${file} DIRECTORY)
  get_filename_component(name ${file} NAME)
  string(REGEX REPLACE "^lib([^.]+)\\..*$" "\\1" name ${name})
  set(flags ${GDT_PC_LIBS_PRIVATE})
  if(NOT dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES AND NOT "-L${dir}" IN_LIST flags)
    list(APPEND flags "-L${dir}")
  endif()
  list(APPEND flags "-l${name}")
  set(GDT_PC_LIBS_PRIVATE ${flags} PARENT_SCOPE)
endfunction()
gdt_pc_lib(${CUDNN_LIBRARY})
gdt_pc_lib(${CUDA_cudart_LIBRARY})
gdt_pc_lib(${CUDA_nvrtc_LIBRARY})
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(GDT_PC_CJSON QUIET libcjson)
endif()
if(GDT_PC_CJSON_FOUND)
  set(GDT_PC_REQUIRES_PRIVATE libcjson)
else()
  gdt_pc_lib(${CJSON_LIBRARY})
endif()
list(APPEND GDT_PC_LIBS_PRIVATE -lm -ldl -lpthread)
list(JOIN GDT_PC_LIBS_PRIVATE " " GDT_PC_LIBS_PRIVATE)
configure_file(${PROJECT_SOURCE_DIR}/cmake/gdtune.pc.in ${PROJECT_BINARY_DIR}/gdtune.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gdtune.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
