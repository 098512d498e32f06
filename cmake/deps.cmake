# Finds every dependency; a missing one fails configure naming it and the
# Debian package that provides it.  Produces the interface target gdt_deps.

function(gdt_missing what pkg)
  message(FATAL_ERROR "gdtune: ${what} not found. Install it with: apt-get install -y ${pkg}")
endfunction()

find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND)
  gdt_missing("CUDA Toolkit (runtime, driver API headers, NVRTC, CUPTI)" "cuda-toolkit-13-0")
endif()
foreach(t CUDA::cudart CUDA::nvrtc CUDA::cupti)
  if(NOT TARGET ${t})
    gdt_missing("${t}" "cuda-toolkit-13-0")
  endif()
endforeach()
# cuBLASLt: only its header at build time.  libgdtune dlopens the library
# (engines/cublaslt/cublaslt_api.c), so a machine without it runs the rest.
find_path(CUBLASLT_INCLUDE_DIR cublasLt.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(NOT CUBLASLT_INCLUDE_DIR)
  gdt_missing("cuBLASLt header (cublasLt.h)" "libcublas-dev-13-0")
endif()

# cuDNN (>= 9.0): version read from cudnn_version.h
find_path(CUDNN_INCLUDE_DIR cudnn_version.h
  HINTS ${CUDNN_ROOT} ENV CUDNN_ROOT ${CUDAToolkit_INCLUDE_DIRS}
  PATHS /usr/include/x86_64-linux-gnu /usr/include /usr/local/include
  PATH_SUFFIXES include)
find_library(CUDNN_LIBRARY cudnn
  HINTS ${CUDNN_ROOT} ENV CUDNN_ROOT ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib
  PATHS /usr/lib/x86_64-linux-gnu /usr/local/cuda/lib /usr/local/cuda/lib64
  PATH_SUFFIXES lib lib64)
if(NOT CUDNN_INCLUDE_DIR OR NOT CUDNN_LIBRARY)
  gdt_missing("cuDNN >= 9.0 (cudnn_version.h and libcudnn)" "cudnn9-cuda-13")
endif()
file(STRINGS ${CUDNN_INCLUDE_DIR}/cudnn_version.h _v REGEX "#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) ")
string(REGEX REPLACE ".*CUDNN_MAJOR ([0-9]+).*" "\\1" CUDNN_MAJOR "${_v}")
string(REGEX REPLACE ".*CUDNN_MINOR ([0-9]+).*" "\\1" CUDNN_MINOR "${_v}")
string(REGEX REPLACE ".*CUDNN_PATCHLEVEL ([0-9]+).*" "\\1" CUDNN_PATCH "${_v}")
if(CUDNN_MAJOR LESS 9)
  message(FATAL_ERROR "gdtune: cuDNN ${CUDNN_MAJOR}.${CUDNN_MINOR} found in ${CUDNN_INCLUDE_DIR}; need >= 9.0. Install: apt-get install -y cudnn9-cuda-13")
endif()
math(EXPR CUDNN_VERSION_NUM "${CUDNN_MAJOR} * 10000 + ${CUDNN_MINOR} * 100 + ${CUDNN_PATCH}")
message(STATUS "gdtune: cuDNN ${CUDNN_MAJOR}.${CUDNN_MINOR}.${CUDNN_PATCH} (${CUDNN_LIBRARY})")

find_path(CJSON_INCLUDE_DIR cjson/cJSON.h)
find_library(CJSON_LIBRARY cjson)
if(NOT CJSON_INCLUDE_DIR OR NOT CJSON_LIBRARY)
  gdt_missing("cJSON (cjson/cJSON.h, libcjson)" "libcjson-dev")
endif()

find_package(HDF5 QUIET COMPONENTS C)
if(NOT HDF5_FOUND)
  gdt_missing("HDF5 (C library)" "libhdf5-dev")
endif()

find_package(Threads REQUIRED)

add_library(gdt_deps INTERFACE)
target_include_directories(gdt_deps INTERFACE ${CUDNN_INCLUDE_DIR} ${CUBLASLT_INCLUDE_DIR} ${CJSON_INCLUDE_DIR}
  ${HDF5_INCLUDE_DIRS} ${CUDAToolkit_INCLUDE_DIRS})
target_compile_definitions(gdt_deps INTERFACE ${HDF5_DEFINITIONS})
target_link_libraries(gdt_deps INTERFACE ${CUDNN_LIBRARY} ${CJSON_LIBRARY} ${HDF5_C_LIBRARIES}
  CUDA::cudart CUDA::nvrtc CUDA::cupti Threads::Threads m dl)
