/* One checking path for every CUDA runtime, driver, NVRTC, cuDNN and CUPTI
 * call: the macro records the call text, the library's own error name and
 * the place, fills the caller's error record and returns its status.
 * Private to libgdtune and the harness.
 *
 * The driver API is reached through cudaGetDriverEntryPointByVersion (see
 * gdt_cu), so no binary links libcuda: everything loads and runs its CPU
 * parts on a machine without a driver. */
#ifndef GDT_CUDA_H
#define GDT_CUDA_H

#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <cudnn.h>

#include "gdtune/gdtune.h"

gdt_status gdt__fail_cuda(gdt_error *e, cudaError_t r, const char *call, const char *file, int line);
gdt_status gdt__fail_cu(gdt_error *e, CUresult r, const char *call, const char *file, int line);
gdt_status gdt__fail_nvrtc(gdt_error *e, nvrtcResult r, const char *call, const char *file, int line);
gdt_status gdt__fail_cudnn(gdt_error *e, cudnnStatus_t r, const char *call, const char *file, int line);

#define GDT__CHECK(kind, okval, type, e, call)                                     \
    do {                                                                           \
        type gdt__r = (call);                                                      \
        if (gdt__r != (okval))                                                     \
            return gdt__fail_##kind((e), gdt__r, #call, __FILE__, __LINE__);       \
    } while (0)

#define GDT_CHECK_CUDA(e, call) GDT__CHECK(cuda, cudaSuccess, cudaError_t, e, call)
#define GDT_CHECK_CU(e, call) GDT__CHECK(cu, CUDA_SUCCESS, CUresult, e, call)
#define GDT_CHECK_NVRTC(e, call) GDT__CHECK(nvrtc, NVRTC_SUCCESS, nvrtcResult, e, call)
#define GDT_CHECK_CUDNN(e, call) GDT__CHECK(cudnn, CUDNN_STATUS_SUCCESS, cudnnStatus_t, e, call)

/* Driver entry points, resolved once through the runtime. */
typedef struct gdt_cu_api {
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int);
    CUresult (*cuFuncGetAttribute)(int *, CUfunction_attribute, CUfunction);
    CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
    CUresult (*cuOccupancyMaxActiveClusters)(int *, CUfunction, const CUlaunchConfig *);
    CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, CUstream, void **, void **);
    /* Host-side only (no device work): the hand engine's TMA descriptors. */
    CUresult (*cuTensorMapEncodeTiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                       const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                       const cuuint32_t *, CUtensorMapInterleave,
                                       CUtensorMapSwizzle, CUtensorMapL2promotion,
                                       CUtensorMapFloatOOBfill);
} gdt_cu_api;

/* NULL with *e filled when the driver is absent. */
const gdt_cu_api *gdt_cu(gdt_error *e);

/* The properties of CUDA device `device` as the analyzer reads them (creates
 * the context: only the worker, bench and GPU tests may call it). */
gdt_status gdt__device_props(int device, gdt_device_props *out, gdt_error *e);

/* true when a CUDA device is present (does not create a context? it does:
 * only the worker may call it). */
bool gdt__device_present(void);

#endif
