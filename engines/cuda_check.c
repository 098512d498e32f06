/* The checking path of gdt_cuda.h and the driver entry-point table. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gdt_cuda.h"

gdt_status gdt__fail_cuda(gdt_error *e, cudaError_t r, const char *call, const char *file, int line)
{
    return gdt_error_set(e, r == cudaErrorMemoryAllocation ? GDT_STATUS_NO_MEMORY : GDT_STATUS_CUDA,
                         "%s:%d: %s failed: %s (%s)", file, line, call, cudaGetErrorName(r),
                         cudaGetErrorString(r));
}

gdt_status gdt__fail_cu(gdt_error *e, CUresult r, const char *call, const char *file, int line)
{
    const char *name = "CUDA_ERROR_UNKNOWN";
    const gdt_cu_api *cu = gdt_cu(NULL);
    if (cu)
        cu->cuGetErrorName(r, &name);
    return gdt_error_set(e, r == CUDA_ERROR_OUT_OF_MEMORY ? GDT_STATUS_NO_MEMORY : GDT_STATUS_CUDA,
                         "%s:%d: %s failed: %s (%d)", file, line, call, name, (int)r);
}

gdt_status gdt__fail_nvrtc(gdt_error *e, nvrtcResult r, const char *call, const char *file, int line)
{
    return gdt_error_set(e, GDT_STATUS_NVRTC, "%s:%d: %s failed: %s", file, line, call,
                         nvrtcGetErrorString(r));
}

gdt_status gdt__fail_cudnn(gdt_error *e, cudnnStatus_t r, const char *call, const char *file, int line)
{
    char last[512] = "";
    cudnnGetLastErrorString(last, sizeof last);
    return gdt_error_set(e, r / 1000 == 3 ? GDT_STATUS_NOT_SUPPORTED : GDT_STATUS_CUDNN,
                         "%s:%d: %s failed: %s (%d)%s%s", file, line, call, cudnnGetErrorString(r),
                         (int)r, last[0] ? ": " : "", last);
}

static gdt_cu_api cu_api;
static gdt_status cu_status = GDT_STATUS_OK;
static char cu_msg[256];
static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

static bool resolve(const char *sym, void **fn)
{
    enum cudaDriverEntryPointQueryResult q;
    cudaError_t r = cudaGetDriverEntryPointByVersion(sym, fn, 12000, cudaEnableDefault, &q);
    if (r != cudaSuccess || q != cudaDriverEntryPointSuccess || !*fn) {
        snprintf(cu_msg, sizeof cu_msg, "driver entry point %s unavailable: %s", sym,
                 cudaGetErrorName(r));
        return false;
    }
    return true;
}

static void cu_init(void)
{
    struct { const char *sym; void **fn; } table[] = {
        {"cuGetErrorName", (void **)&cu_api.cuGetErrorName},
        {"cuModuleLoadData", (void **)&cu_api.cuModuleLoadData},
        {"cuModuleUnload", (void **)&cu_api.cuModuleUnload},
        {"cuModuleGetFunction", (void **)&cu_api.cuModuleGetFunction},
        {"cuFuncSetAttribute", (void **)&cu_api.cuFuncSetAttribute},
        {"cuFuncGetAttribute", (void **)&cu_api.cuFuncGetAttribute},
        {"cuLaunchKernelEx", (void **)&cu_api.cuLaunchKernelEx},
        {"cuOccupancyMaxActiveClusters", (void **)&cu_api.cuOccupancyMaxActiveClusters},
        {"cuOccupancyMaxActiveBlocksPerMultiprocessor",
         (void **)&cu_api.cuOccupancyMaxActiveBlocksPerMultiprocessor},
        {"cuLaunchKernel", (void **)&cu_api.cuLaunchKernel},
        {"cuTensorMapEncodeTiled", (void **)&cu_api.cuTensorMapEncodeTiled},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!resolve(table[i].sym, table[i].fn)) {
            cu_status = GDT_STATUS_NO_DEVICE;
            return;
        }
}

const gdt_cu_api *gdt_cu(gdt_error *e)
{
    pthread_once(&cu_once, cu_init);
    if (cu_status != GDT_STATUS_OK) {
        gdt_error_set(e, cu_status, "%s", cu_msg);
        return NULL;
    }
    return &cu_api;
}

bool gdt__device_present(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

gdt_status gdt__device_props(int device, gdt_device_props *d, gdt_error *e)
{
    struct cudaDeviceProp p;
    GDT_CHECK_CUDA(e, cudaGetDeviceProperties(&p, device));
    memset(d, 0, sizeof *d);
    d->arch = p.major * 10 + p.minor;
    d->sm_count = p.multiProcessorCount;
    d->smem_per_block = (int64_t)p.sharedMemPerBlockOptin;
    d->regs_per_block = p.regsPerBlock;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->l2_bytes = p.l2CacheSize;
    snprintf(d->name, sizeof d->name, "%.127s", p.name);
    return GDT_STATUS_OK;
}
