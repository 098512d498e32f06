/* The SM clock probe (gdt_measure.h): one thread spins on clock64 for a
 * fixed number of SM cycles and reads %globaltimer (nanoseconds) around the
 * spin.  Cycles over nanoseconds is the clock the SM ran at just then, which
 * is what a throttled sample needs to be recognised by.  Its module also
 * holds a bare spin of a given number of cycles: a planted slowdown's delay
 * after each timed call (gdt_plant.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "gdt_cuda.h"
#include "gdt_measure.h"
#include "gdt_util.h"

/* About 50 us at 2 GHz: long enough that %globaltimer's microsecond-scale
 * update granularity costs under 2%. */
#define PROBE_CYCLES 100000LL

static const char probe_src[] =
    "extern \"C\" __global__ void gdt_clock_probe(unsigned long long *out, long long cycles)\n"
    "{\n"
    "    unsigned long long t0, t1;\n"
    "    long long c0, c;\n"
    "    asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(c0));\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
    "    do { asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(c)); } while (c - c0 < cycles);\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t1));\n"
    "    out[0] = t1 - t0;\n"
    "    out[1] = (unsigned long long)(c - c0);\n"
    "}\n"
    "extern \"C\" __global__ void gdt_clock_spin(long long cycles)\n"
    "{\n"
    "    long long c0, c;\n"
    "    asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(c0));\n"
    "    do { asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(c)); } while (c - c0 < cycles);\n"
    "}\n";

struct gdt_clock_probe {
    CUmodule module;
    CUfunction fn, spin;
    unsigned long long *dev;   /* [ns, cycles] */
    unsigned long long *host;  /* pinned */
    double rated_mhz;
};

gdt_status gdt__nvrtc_cubin(const char *src, const char *name, int arch, void **cubin, size_t *len,
                            gdt_error *e)
{
    nvrtcProgram prog;
    char opt[64];
    snprintf(opt, sizeof opt, "--gpu-architecture=sm_%d", arch);
    const char *opts[] = {opt};
    GDT_CHECK_NVRTC(e, nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL));
    nvrtcResult r = nvrtcCompileProgram(prog, 1, opts);
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        char *log = nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS ? calloc(1, n + 1) : NULL;
        if (log)
            nvrtcGetProgramLog(prog, log);
        nvrtcDestroyProgram(&prog);
        gdt_error_set(e, GDT_STATUS_NVRTC, "%s: compiling for sm_%d: %s: %s", name, arch,
                      nvrtcGetErrorString(r), log ? log : "");
        free(log);
        return GDT_STATUS_NVRTC;
    }
    nvrtcResult rs = nvrtcGetCUBINSize(prog, len);
    if (rs == NVRTC_SUCCESS && !(*cubin = malloc(*len)))
        rs = NVRTC_ERROR_OUT_OF_MEMORY;
    if (rs == NVRTC_SUCCESS)
        rs = nvrtcGetCUBIN(prog, *cubin);
    nvrtcDestroyProgram(&prog);
    GDT_CHECK_NVRTC(e, rs);
    return GDT_STATUS_OK;
}

/* The probe's cubin, compiled once per process (and arch): every
 * measurement makes a probe, and NVRTC takes 20-30 ms for this kernel (on
 * the CI's CPU), which 1565 plans and their rounds paid each time. */
static struct {
    pthread_mutex_t mu;
    int arch;
    void *cubin;
} probe_cache = {PTHREAD_MUTEX_INITIALIZER, 0, NULL};

/* The probe's module for arch into *module, from the cached cubin. */
static gdt_status probe_module(int arch, CUmodule *module, const gdt_cu_api *cu, gdt_error *e)
{
    pthread_mutex_lock(&probe_cache.mu);
    gdt_status st = GDT_STATUS_OK;
    if (!probe_cache.cubin || probe_cache.arch != arch) {
        void *cubin = NULL;
        size_t len = 0;
        st = gdt__nvrtc_cubin(probe_src, "gdt_clock_probe.cu", arch, &cubin, &len, e);
        if (st == GDT_STATUS_OK) {
            free(probe_cache.cubin);
            probe_cache.cubin = cubin, probe_cache.arch = arch;
        }
    }
    CUresult r = st == GDT_STATUS_OK ? cu->cuModuleLoadData(module, probe_cache.cubin) : CUDA_SUCCESS;
    pthread_mutex_unlock(&probe_cache.mu);
    if (st != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CU(e, r);
    return GDT_STATUS_OK;
}

static gdt_status probe_init(gdt_clock_probe *p, gdt_error *e)
{
    int dev = 0, major = 0, minor = 0, khz = 0;
    GDT_CHECK_CUDA(e, cudaGetDevice(&dev));
    GDT_CHECK_CUDA(e, cudaFree(0)); /* the primary context the module loads into */
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    p->rated_mhz = khz / 1000.0;
    const gdt_cu_api *cu = gdt_cu(e);
    if (!cu)
        return e ? e->status : GDT_STATUS_NO_DEVICE;
    gdt_status st = probe_module(major * 10 + minor, &p->module, cu, e);
    if (st != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CU(e, cu->cuModuleGetFunction(&p->fn, p->module, "gdt_clock_probe"));
    GDT_CHECK_CU(e, cu->cuModuleGetFunction(&p->spin, p->module, "gdt_clock_spin"));
    GDT_CHECK_CUDA(e, cudaMalloc((void **)&p->dev, 2 * sizeof *p->dev));
    GDT_CHECK_CUDA(e, cudaMallocHost((void **)&p->host, 2 * sizeof *p->host));
    return GDT_STATUS_OK;
}

gdt_status gdt_clock_probe_create(gdt_clock_probe **out, gdt_error *e)
{
    *out = NULL;
    gdt_clock_probe *p = calloc(1, sizeof *p);
    if (!p)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "clock probe: out of host memory");
    gdt_status st = probe_init(p, e);
    return GDT_CREATED(st, p, gdt_clock_probe_destroy, out);
}

void gdt_clock_probe_destroy(gdt_clock_probe *p)
{
    if (!p)
        return;
    const gdt_cu_api *cu = gdt_cu(NULL);
    if (p->module && cu)
        cu->cuModuleUnload(p->module);
    if (p->dev)
        cudaFree(p->dev);
    if (p->host)
        cudaFreeHost(p->host);
    free(p);
}

gdt_status gdt_clock_probe_read(gdt_clock_probe *p, void *stream, double *mhz, gdt_error *e)
{
    const gdt_cu_api *cu = gdt_cu(e);
    if (!cu)
        return e ? e->status : GDT_STATUS_NO_DEVICE;
    long long cycles = PROBE_CYCLES;
    void *args[] = {&p->dev, &cycles};
    GDT_CHECK_CU(e, cu->cuLaunchKernel(p->fn, 1, 1, 1, 1, 1, 1, 0, (CUstream)stream, args, NULL));
    GDT_CHECK_CUDA(e, cudaMemcpyAsync(p->host, p->dev, 2 * sizeof *p->host, cudaMemcpyDeviceToHost,
                                      (cudaStream_t)stream));
    GDT_CHECK_CUDA(e, cudaStreamSynchronize((cudaStream_t)stream));
    *mhz = p->host[0] ? (double)p->host[1] / (double)p->host[0] * 1000.0 : 0.0;
    return GDT_STATUS_OK;
}

gdt_status gdt_clock_probe_spin(gdt_clock_probe *p, long long cycles, void *stream, gdt_error *e)
{
    const gdt_cu_api *cu = gdt_cu(e);
    if (!cu)
        return e ? e->status : GDT_STATUS_NO_DEVICE;
    void *args[] = {&cycles};
    GDT_CHECK_CU(e, cu->cuLaunchKernel(p->spin, 1, 1, 1, 1, 1, 1, 0, (CUstream)stream, args, NULL));
    return GDT_STATUS_OK;
}

double gdt_clock_probe_rated_mhz(const gdt_clock_probe *p) { return p->rated_mhz; }
