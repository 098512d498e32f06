/* Test-only engines (opt-in slots gemm.test_fault and gemm.test_hang): one
 * kernel writes through an illegal address, poisoning the context; one never
 * ends.  They exist to prove worker isolation, and break "accept means run"
 * on purpose: never enable them outside tests (GDTUNE_ENABLE_OPT_IN=1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_util.h"

static const char fault_src[] =
    "extern \"C\" __global__ void gdt_test_kernel(float *c)\n"
    "{\n"
    "    /* Address 16 is never mapped: the write faults and poisons the context. */\n"
    "    volatile float *bad = (volatile float *)(16ull + (unsigned long long)(c ? 0 : 8));\n"
    "    *bad = 1.0f;\n"
    "}\n";

static const char hang_src[] =
    "__device__ volatile int gdt_test_never;\n"
    "extern \"C\" __global__ void gdt_test_kernel(float *c)\n"
    "{\n"
    "    while (gdt_test_never == 0) {\n"
    "    }\n"
    "    if (c) c[0] = 0.0f;\n"
    "}\n";

struct gdt_compiled {
    CUmodule module;
    CUfunction fn;
};

static gdt_status check_support(const gdt_engine_slot *slot, const gdt_facts *f,
                                const gdt_plan_id *plan, gdt_error *e)
{
    (void)plan;
    if (f->family != GDT_FAMILY_GEMM)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: serves gemm only, not %s",
                             slot ? slot->name : "test engine", gdt_family_name(f->family));
    return GDT_STATUS_OK;
}

static gdt_status nvrtc_cubin(nvrtcProgram prog, int arch, void **cubin, size_t *len,
                              gdt_build_info *info, gdt_error *e)
{
    char opt[32];
    snprintf(opt, sizeof opt, "--gpu-architecture=sm_%d", arch);
    const char *opts[] = {opt};
    nvrtcResult r = nvrtcCompileProgram(prog, 1, opts);
    if (r != NVRTC_SUCCESS && info) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char *log = malloc(n + 1);
        if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            snprintf(info->log, sizeof info->log, "%s", log);
        free(log);
    }
    GDT_CHECK_NVRTC(e, r);
    GDT_CHECK_NVRTC(e, nvrtcGetCUBINSize(prog, len));
    if (!(*cubin = malloc(*len)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "test engine: out of memory");
    GDT_CHECK_NVRTC(e, nvrtcGetCUBIN(prog, *cubin));
    return GDT_STATUS_OK;
}

static gdt_status compile(const char *src, int arch, void **cubin, size_t *len,
                          gdt_build_info *info, gdt_error *e)
{
    nvrtcProgram prog;
    *cubin = NULL;
    GDT_CHECK_NVRTC(e, nvrtcCreateProgram(&prog, src, "gdt_test_kernel.cu", 0, NULL, NULL));
    gdt_status s = nvrtc_cubin(prog, arch, cubin, len, info, e);
    nvrtcDestroyProgram(&prog);
    if (s != GDT_STATUS_OK) {
        free(*cubin);
        *cubin = NULL;
    }
    return s;
}

static gdt_status load(const gdt_cu_api *cu, const void *cubin, gdt_compiled *c, gdt_error *e)
{
    GDT_CHECK_CU(e, cu->cuModuleLoadData(&c->module, cubin));
    GDT_CHECK_CU(e, cu->cuModuleGetFunction(&c->fn, c->module, "gdt_test_kernel"));
    return GDT_STATUS_OK;
}

static gdt_status build_src(const char *src, const gdt_build_opts *opts, gdt_compiled **out,
                            gdt_build_info *info, gdt_error *e)
{
    void *cubin = NULL;
    size_t len = 0;
    double t0 = gdt_now();
    *out = NULL;
    gdt_status s = compile(src, opts->device.arch, &cubin, &len, info, e);
    if (info)
        info->compile_seconds = gdt_now() - t0;
    if (s != GDT_STATUS_OK || opts->compile_only) {
        free(cubin);
        return s;
    }
    const gdt_cu_api *cu = gdt_cu(e);
    gdt_compiled *c = calloc(1, sizeof *c);
    s = !cu ? GDT_STATUS_NO_DEVICE
            : c ? load(cu, cubin, c, e) : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "test engine: out of memory");
    free(cubin);
    if (s != GDT_STATUS_OK) {
        if (c && c->module)
            cu->cuModuleUnload(c->module);
        free(c);
        return s;
    }
    *out = c;
    return GDT_STATUS_OK;
}

static gdt_status build_fault(const gdt_engine_slot *slot, const gdt_facts *f,
                              const gdt_plan_id *plan, const gdt_build_opts *opts,
                              gdt_compiled **out, gdt_build_info *info, gdt_error *e)
{
    (void)slot, (void)f, (void)plan;
    return build_src(fault_src, opts, out, info, e);
}

static gdt_status build_hang(const gdt_engine_slot *slot, const gdt_facts *f,
                             const gdt_plan_id *plan, const gdt_build_opts *opts,
                             gdt_compiled **out, gdt_build_info *info, gdt_error *e)
{
    (void)slot, (void)f, (void)plan;
    return build_src(hang_src, opts, out, info, e);
}

static size_t workspace_size(const gdt_compiled *c)
{
    (void)c;
    return 0;
}

static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *workspace,
                          size_t workspace_bytes, void *stream, gdt_error *e)
{
    (void)workspace, (void)workspace_bytes;
    const gdt_cu_api *cu = gdt_cu(e);
    if (!cu)
        return GDT_STATUS_NO_DEVICE;
    void *out = ops->ptr[GDT_OPERAND_C];
    void *args[] = {&out};
    GDT_CHECK_CU(e, cu->cuLaunchKernel(c->fn, 1, 1, 1, 1, 1, 1, 0, (CUstream)stream, args, NULL));
    return GDT_STATUS_OK;
}

static void destroy(gdt_compiled *c)
{
    if (!c)
        return;
    const gdt_cu_api *cu = gdt_cu(NULL);
    if (cu && c->module)
        cu->cuModuleUnload(c->module);
    free(c);
}

const gdt_engine_ops gdt__test_fault_ops = {check_support, build_fault, workspace_size, execute,
                                            destroy, NULL, false};
const gdt_engine_ops gdt__test_hang_ops = {check_support, build_hang, workspace_size, execute,
                                           destroy, NULL, false};
