/* The hand engine's GEMM (slot gemm.hand): kernels/hand/gemm_sm90.cu, built
 * by nvcc for sm_90a and embedded as a cubin.  One configuration (the
 * knobs below); check_support declines, with the reason, every problem the
 * kernel cannot run exactly: another arch, dtype or configuration, an
 * operand without a unit stride, and strides TMA cannot describe (16-byte
 * multiples).  build loads the cubin; execute encodes the three tensor
 * maps (again only when the pointers change) and launches the persistent
 * grid. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_hand.h"
#include "gdt_util.h"

/* What kernels/hand/gemm_sm90.cu is compiled for: keep the two in step. */
enum { TILE_M = 128, TILE_N = 256, TILE_K = 64, STAGES = 4, GROUP_M = 8, THREADS = 384 };
/* Its shared memory: the ring, four 64 x 64 output blocks, the barriers,
 * and 1024 bytes of slack to align the swizzle atoms. */
#define SMEM_BYTES (STAGES * (TILE_M + TILE_N) * TILE_K * 2 + 4 * 64 * 64 * 2 + 16 * STAGES + 1024)

static const gdt_knob gemm_knobs[] = {
    {GDT_KNOB_TILE_M, TILE_M}, {GDT_KNOB_TILE_N, TILE_N}, {GDT_KNOB_TILEK, TILE_K},
    {GDT_KNOB_STAGES, STAGES}, {GDT_KNOB_GROUP_M, GROUP_M},
};

/* Mirrors struct gdt_hand_gemm_params in kernels/hand/gemm_sm90.cu. */
typedef struct gdt_hand_gemm_params {
    int m, n, k, batch;
    int tiles_m, tiles_n;
} gdt_hand_gemm_params;

/* One tensor map: three dims (unit-stride axis first, then the other
 * matrix axis, then batch), two byte strides and the box. */
typedef struct map_geometry {
    cuuint64_t dims[3], strides[2];
    cuuint32_t box[2];
} map_geometry;

struct gdt_compiled {
    CUtensorMap maps[3]; /* A, B, C: first, for their 128-byte alignment */
    const gdt_cu_api *cu;
    gdt_facts facts;
    map_geometry geo[3];
    const void *bound[3]; /* the pointers the maps describe */
    gdt_hand_gemm_params params;
    CUmodule mod;
    CUfunction fn;
    CUlaunchConfig cfg;
};

void gdt__hand_gemm_plan(int64_t engine_id, gdt_plan_id *out)
{
    memset(out, 0, sizeof *out);
    out->engine_id = engine_id;
    for (size_t i = 0; i < sizeof gemm_knobs / sizeof gemm_knobs[0]; i++)
        gdt_plan_id_set_knob(out, gemm_knobs[i].type, gemm_knobs[i].value);
}

static int64_t round16(int64_t bytes) { return (bytes + 15) / 16 * 16; }

/* A stride over an extent of 1 is never used; TMA still wants a 16-byte
 * multiple there, so it gets one. */
static int64_t stride_bytes(int64_t stride, int64_t extent, int64_t fallback)
{
    return extent == 1 ? round16(fallback) : stride * 2;
}

/* The operand's tensor map: its unit-stride axis u (extent eu), its other
 * axis o (extent eo, stride so) and the batch (stride sb). */
static void geometry(int64_t eu, int64_t eo, int64_t so, int64_t batch, int64_t sb,
                     uint32_t box_o, map_geometry *g)
{
    g->dims[0] = (cuuint64_t)eu, g->dims[1] = (cuuint64_t)eo, g->dims[2] = (cuuint64_t)batch;
    g->strides[0] = (cuuint64_t)stride_bytes(so, eo, eu * 2);
    g->strides[1] = (cuuint64_t)stride_bytes(sb, batch, (int64_t)g->strides[0] * eo);
    g->box[0] = 64, g->box[1] = box_o;
}

/* The three maps of a problem, or why TMA cannot describe an operand.  A
 * is K-major when its K axis has unit stride, else MN-major; B MN-major
 * when its N axis has, else K-major; C must be row-major. */
static bool layout(const gdt_gemm_desc *g, map_geometry geo[3], char *why, size_t n)
{
    const int64_t *sa = g->a_stride, *sb = g->b_stride, *sc = g->c_stride;
    if (sa[2] == 1)
        geometry(g->k, g->m, sa[1], g->batch, sa[0], TILE_M, &geo[0]);
    else if (sa[1] == 1)
        geometry(g->m, g->k, sa[2], g->batch, sa[0], 64, &geo[0]);
    else
        return snprintf(why, n, "operand A: no unit stride (strides %" PRId64 ", %" PRId64
                        ", %" PRId64 ")", sa[0], sa[1], sa[2]), false;
    if (sb[2] == 1)
        geometry(g->n, g->k, sb[1], g->batch, sb[0], 64, &geo[1]);
    else if (sb[1] == 1)
        geometry(g->k, g->n, sb[2], g->batch, sb[0], TILE_N, &geo[1]);
    else
        return snprintf(why, n, "operand B: no unit stride (strides %" PRId64 ", %" PRId64
                        ", %" PRId64 ")", sb[0], sb[1], sb[2]), false;
    if (sc[2] != 1)
        return snprintf(why, n, "operand C: not row-major (stride %" PRId64 " along n; the TMA "
                        "store writes rows)", sc[2]), false;
    geometry(g->n, g->m, sc[1], g->batch, sc[0], 64, &geo[2]);
    static const char *const names[3] = {"A", "B", "C"};
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 2; i++)
            if (geo[r].strides[i] % 16 || geo[r].strides[i] >= (1ull << 40))
                return snprintf(why, n, "operand %s: %s stride of %llu bytes is not a multiple "
                                "of 16 below 2^40, as TMA needs", names[r],
                                i ? "batch" : "leading", (unsigned long long)geo[r].strides[i]),
                       false;
    return true;
}

static bool knobs_ok(const gdt_engine_slot *s, const gdt_plan_id *p, char *why, size_t n)
{
    gdt_plan_id fixed;
    char want[256], got[256];
    gdt__hand_gemm_plan(p->engine_id, &fixed);
    /* No knobs: the planner's name for a fixed-configuration slot. */
    if (p->nknobs == 0 || gdt_plan_id_equal(p, &fixed))
        return true;
    gdt_plan_id_format(&fixed, want, sizeof want);
    gdt_plan_id_format(p, got, sizeof got);
    snprintf(why, n, "%s: plan %s: the kernel is built for %s only", s->name, got, want);
    return false;
}

static bool sizes_ok(const gdt_gemm_desc *g, char *why, size_t n)
{
    int64_t tiles = ((g->m + TILE_M - 1) / TILE_M) * ((g->n + TILE_N - 1) / TILE_N);
    if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX || tiles > INT_MAX / g->batch)
        return snprintf(why, n, "m %" PRId64 ", n %" PRId64 ", k %" PRId64 ", batch %" PRId64
                        ": the kernel indexes tiles and coordinates with 32-bit integers",
                        g->m, g->n, g->k, g->batch), false;
    return true;
}

/* The device and dtype the cubin serves. */
static bool target_ok(const gdt_facts *f, char *why, size_t n)
{
    gdt_device_props lim;
    if (!gdt_arch_limits(f->device.arch, &lim))
        lim = f->device;
    if (f->family != GDT_FAMILY_GEMM)
        return snprintf(why, n, "serves gemm, problem is %s", gdt_family_name(f->family)), false;
    if (f->device.arch != 90)
        return snprintf(why, n, "sm%d: the cubin is built for sm_90a only", f->device.arch), false;
    if (f->dtype != GDT_DTYPE_BF16 && f->dtype != GDT_DTYPE_FP16)
        return snprintf(why, n, "dtype %s: bf16 and fp16 only", gdt_dtype_name(f->dtype)), false;
    if (lim.smem_per_block < SMEM_BYTES)
        return snprintf(why, n, "needs %d bytes of shared memory, the device allows %" PRId64,
                        SMEM_BYTES, lim.smem_per_block), false;
    return true;
}

static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e)
{
    char why[512] = "", what[1024];
    map_geometry geo[3];
    if (!target_ok(f, why, sizeof why) || !sizes_ok(&f->problem.u.gemm, why, sizeof why) ||
        !layout(&f->problem.u.gemm, geo, why, sizeof why))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: %s", s->name, why);
    if (!knobs_ok(s, p, what, sizeof what))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s", what);
    return GDT_STATUS_OK;
}

/* The entry for the dtype and the two operand layouts (k: K-major). */
static const char *entry_name(const gdt_facts *f, char *buf, size_t n)
{
    const int64_t *sa = f->problem.u.gemm.a_stride, *sb = f->problem.u.gemm.b_stride;
    bool a_k = sa[2] == 1, b_k = sb[2] != 1;
    snprintf(buf, n, "gdt_hand_gemm_%s_%c%c", f->dtype == GDT_DTYPE_FP16 ? "fp16" : "bf16",
             a_k ? 'k' : 'm', b_k ? 'k' : 'm');
    return buf;
}

static gdt_status load(gdt_compiled *c, gdt_build_info *info, gdt_error *e)
{
    const gdt_embedded *cubin = gdt_embedded_find(GDT_HAND_GEMM_CUBIN);
    char name[64];
    int sms = 0, dev = 0;
    double t0 = gdt_now();
    if (!cubin || !cubin->len)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "gemm.hand: %s is not embedded in this build",
                             GDT_HAND_GEMM_CUBIN);
    if (!(c->cu = gdt_cu(e)))
        return e ? e->status : GDT_STATUS_NO_DEVICE;
    /* Driver calls need a current context: the runtime's primary one. */
    GDT_CHECK_CUDA(e, cudaFree(0));
    GDT_CHECK_CUDA(e, cudaGetDevice(&dev));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    GDT_CHECK_CU(e, c->cu->cuModuleLoadData(&c->mod, cubin->data));
    GDT_CHECK_CU(e, c->cu->cuModuleGetFunction(&c->fn, c->mod, entry_name(&c->facts, name, sizeof name)));
    GDT_CHECK_CU(e, c->cu->cuFuncSetAttribute(c->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              SMEM_BYTES));
    int64_t tiles = (int64_t)c->params.tiles_m * c->params.tiles_n * c->params.batch;
    c->cfg.gridDimX = (unsigned)(tiles < sms ? tiles : sms);
    c->cfg.gridDimY = c->cfg.gridDimZ = 1;
    c->cfg.blockDimX = THREADS, c->cfg.blockDimY = c->cfg.blockDimZ = 1;
    c->cfg.sharedMemBytes = SMEM_BYTES;
    if (info)
        info->load_seconds = gdt_now() - t0;
    return GDT_STATUS_OK;
}

static void destroy(gdt_compiled *c)
{
    if (!c)
        return;
    if (c->mod && c->cu)
        c->cu->cuModuleUnload(c->mod);
    free(c);
}

static gdt_compiled *compiled_new(const gdt_facts *f)
{
    /* CUtensorMap wants 128-byte alignment, more than malloc promises. */
    size_t bytes = (sizeof(gdt_compiled) + 127) / 128 * 128;
    gdt_compiled *c = aligned_alloc(128, bytes);
    if (!c)
        return NULL;
    memset(c, 0, bytes);
    const gdt_gemm_desc *g = &f->problem.u.gemm;
    char why[8];
    c->facts = *f;
    layout(g, c->geo, why, sizeof why); /* check_support accepted it */
    c->params = (gdt_hand_gemm_params){(int)g->m, (int)g->n, (int)g->k, (int)g->batch,
                                       (int)((g->m + TILE_M - 1) / TILE_M),
                                       (int)((g->n + TILE_N - 1) / TILE_N)};
    return c;
}

static gdt_status build(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                        const gdt_build_opts *o, gdt_compiled **out, gdt_build_info *info,
                        gdt_error *e)
{
    *out = NULL;
    if (info)
        memset(info, 0, sizeof *info);
    gdt_status st = check_support(s, f, p, e);
    /* Nothing to compile: nvcc built the cubin with the library. */
    if (st != GDT_STATUS_OK || o->compile_only)
        return st;
    gdt_compiled *c = compiled_new(f);
    if (!c)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: compiled plan", s->name);
    st = load(c, info, e);
    if (st != GDT_STATUS_OK) {
        destroy(c);
        return st;
    }
    *out = c;
    return GDT_STATUS_OK;
}

static size_t workspace_size(const gdt_compiled *c)
{
    (void)c;
    return 0;
}

static gdt_status encode(gdt_compiled *c, int i, void *ptr, gdt_error *e)
{
    static const cuuint32_t unit[3] = {1, 1, 1};
    const map_geometry *g = &c->geo[i];
    cuuint32_t box[3] = {g->box[0], g->box[1], 1};
    CUtensorMapDataType t = c->facts.dtype == GDT_DTYPE_FP16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                             : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    /* OOB_FILL_NONE fills with zeros: the K tail adds nothing. */
    GDT_CHECK_CU(e, c->cu->cuTensorMapEncodeTiled(
                        &c->maps[i], t, 3, ptr, g->dims, g->strides, box, unit,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    c->bound[i] = ptr;
    return GDT_STATUS_OK;
}

static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t ws_bytes,
                          void *stream, gdt_error *e)
{
    static const gdt_operand_role roles[3] = {GDT_OPERAND_A, GDT_OPERAND_B, GDT_OPERAND_C};
    (void)ws, (void)ws_bytes;
    gdt_status st = gdt_operands_check(&c->facts.problem, ops, e);
    for (int i = 0; i < 3 && st == GDT_STATUS_OK; i++) {
        void *ptr = ops->ptr[roles[i]];
        if ((uintptr_t)ptr % 16)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "gemm.hand: operand %s: pointer %p is "
                                 "not 16-byte aligned, as TMA requires",
                                 gdt_operand_name(roles[i]), ptr);
        if (ptr != c->bound[i])
            st = encode(c, i, ptr, e);
    }
    if (st != GDT_STATUS_OK)
        return st;
    void *args[] = {&c->maps[0], &c->maps[1], &c->maps[2], &c->params};
    c->cfg.hStream = (CUstream)stream;
    GDT_CHECK_CU(e, c->cu->cuLaunchKernelEx(&c->cfg, c->fn, args, NULL));
    return GDT_STATUS_OK;
}

const gdt_engine_ops gdt__hand_gemm_ops = {
    .check_support = check_support,
    .build = build,
    .workspace_size = workspace_size,
    .execute = execute,
    .destroy = destroy,
};
