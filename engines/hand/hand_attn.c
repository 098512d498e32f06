/* The hand engine's attention forward (slot sdpa_fwd.hand):
 * kernels/hand/attn_fwd_sm90.cu, built by nvcc for sm_90a and embedded as
 * a cubin.  One configuration (the knobs below); check_support declines,
 * with the reason, every problem the kernel cannot run exactly: another
 * arch, dtype, head dim or configuration, a tensor without a unit stride
 * along d, strides TMA cannot describe (16-byte multiples below 2^40) and
 * sizes past the kernel's 32-bit indexing.  build loads the cubin; execute
 * encodes the Q, K and V tensor maps (again only when the pointers change)
 * and launches one CTA per (batch, query head, 128 query rows). */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_hand.h"
#include "gdt_util.h"

/* What kernels/hand/attn_fwd_sm90.cu is compiled for: keep the two in step.
 * MMA=2 is the attention templates' word for S of block j+1 issued beside
 * P V of block j; the two consumer warpgroups also take turns (ping-pong). */
enum { BLOCK_M = 128, BLOCK_N = 128, STAGES = 2, WARPS = 12, MMA = 2, GRID_Y_MAX = 65535 };

static const gdt_knob attn_knobs[] = {
    {GDT_KNOB_TILE_M, BLOCK_M}, {GDT_KNOB_TILE_N, BLOCK_N}, {GDT_KNOB_STAGES, STAGES},
    {GDT_KNOB_WARPS, WARPS},    {GDT_KNOB_MMA, MMA},
};

/* Its shared memory: Q, two stages of K and of V (128 rows x d each), the
 * barriers, and 1024 bytes of slack to align the swizzle atoms. */
static int smem_bytes(int64_t d) { return (int)((1 + 2 * STAGES) * 128 * d * 2 + 128 + 1024); }

/* Mirrors struct gdt_hand_attn_params in kernels/hand/attn_fwd_sm90.cu. */
typedef struct gdt_hand_attn_params {
    void *o;
    float *lse;
    long long o_s[3];
    int s_q, s_kv, h_q, group;
    int causal;
    float scale_log2;
} gdt_hand_attn_params;
_Static_assert(sizeof(gdt_hand_attn_params) == 64, "must match kernels/hand/attn_fwd_sm90.cu");

/* One tensor map over [b, h, s, d]: dims d first, three byte strides. */
typedef struct map_geometry {
    cuuint64_t dims[4], strides[3];
} map_geometry;

struct gdt_compiled {
    CUtensorMap maps[3]; /* Q, K, V: first, for their 128-byte alignment */
    const gdt_cu_api *cu;
    gdt_facts facts;
    map_geometry geo[3];
    const void *bound[3]; /* the pointers the maps describe */
    gdt_hand_attn_params params;
    CUmodule mod;
    CUfunction fn;
    CUlaunchConfig cfg;
};

void gdt__hand_attn_plan(int64_t engine_id, gdt_plan_id *out)
{
    memset(out, 0, sizeof *out);
    out->engine_id = engine_id;
    for (size_t i = 0; i < sizeof attn_knobs / sizeof attn_knobs[0]; i++)
        gdt_plan_id_set_knob(out, attn_knobs[i].type, attn_knobs[i].value);
}

static int64_t round16(int64_t bytes) { return (bytes + 15) / 16 * 16; }

/* A stride over an extent of 1 is never used; TMA still wants a 16-byte
 * multiple there, so it gets one. */
static void geometry(const int64_t ext[4], const int64_t st[4], map_geometry *g)
{
    int64_t below = ext[3] * 2; /* bytes spanned by the axes inside this one */
    for (int i = 0; i < 4; i++)
        g->dims[i] = (cuuint64_t)ext[3 - i];
    for (int i = 0; i < 3; i++) {
        int64_t axis = 2 - i; /* s, h, b */
        g->strides[i] = (cuuint64_t)(ext[axis] == 1 ? round16(below) : st[axis] * 2);
        below = (int64_t)g->strides[i] * ext[axis];
    }
}

/* The maps of Q, K and V, or why TMA cannot describe one; O is written by
 * 4-byte stores and needs a unit d stride and even strides. */
static bool layout(const gdt_sdpa_desc *s, map_geometry geo[3], char *why, size_t n)
{
    static const char *const names[4] = {"Q", "K", "V", "O"}, *const axes[3] = {"s", "h", "b"};
    const int64_t *st[4] = {s->q_stride, s->k_stride, s->v_stride, s->o_stride};
    int64_t q[4] = {s->b, s->h_q, s->s_q, s->d}, kv[4] = {s->b, s->h_kv, s->s_kv, s->d};
    for (int t = 0; t < 4; t++)
        if (st[t][3] != 1)
            return snprintf(why, n, "operand %s: stride %" PRId64 " along d, expected 1 (TMA and "
                            "the stores read d contiguously)", names[t], st[t][3]), false;
    for (int a = 0; a < 3; a++)
        if (st[3][a] % 2)
            return snprintf(why, n, "operand O: stride[%d] = %" PRId64 " is odd; the kernel "
                            "stores 4-byte pairs", a, st[3][a]), false;
    for (int t = 0; t < 3; t++) {
        geometry(t ? kv : q, st[t], &geo[t]);
        for (int i = 0; i < 3; i++)
            if (geo[t].strides[i] % 16 || geo[t].strides[i] >= (1ull << 40))
                return snprintf(why, n, "operand %s: stride of %llu bytes along %s is not a "
                                "multiple of 16 below 2^40, as TMA needs", names[t],
                                (unsigned long long)geo[t].strides[i], axes[i]),
                       false;
    }
    return true;
}

static bool knobs_ok(const gdt_engine_slot *s, const gdt_plan_id *p, char *why, size_t n)
{
    gdt_plan_id fixed;
    char want[256], got[256];
    gdt__hand_attn_plan(p->engine_id, &fixed);
    /* No knobs: the planner's name for a fixed-configuration slot. */
    if (p->nknobs == 0 || gdt_plan_id_equal(p, &fixed))
        return true;
    gdt_plan_id_format(&fixed, want, sizeof want);
    gdt_plan_id_format(p, got, sizeof got);
    snprintf(why, n, "%s: plan %s: the kernel is built for %s only", s->name, got, want);
    return false;
}

static bool sizes_ok(const gdt_sdpa_desc *s, char *why, size_t n)
{
    int64_t tiles = (s->s_q + BLOCK_M - 1) / BLOCK_M;
    if (s->s_q > INT_MAX - BLOCK_M || s->s_kv > INT_MAX - BLOCK_N || s->b * s->h_q > INT_MAX ||
        tiles > GRID_Y_MAX)
        return snprintf(why, n, "b %" PRId64 ", h_q %" PRId64 ", s_q %" PRId64 ", s_kv %" PRId64
                        ": the grid is b*h_q x ceil(s_q/128) (at most 2^31-1 x 65535) and rows "
                        "are 32-bit", s->b, s->h_q, s->s_q, s->s_kv), false;
    return true;
}

/* The device, dtype and head dims the cubin serves. */
static bool target_ok(const gdt_facts *f, char *why, size_t n)
{
    gdt_device_props lim;
    int64_t d = f->problem.u.sdpa.d;
    if (!gdt_arch_limits(f->device.arch, &lim))
        lim = f->device;
    if (f->family != GDT_FAMILY_SDPA_FWD)
        return snprintf(why, n, "serves sdpa_fwd, problem is %s", gdt_family_name(f->family)), false;
    if (f->device.arch != 90)
        return snprintf(why, n, "sm%d: the cubin is built for sm_90a only", f->device.arch), false;
    if (f->dtype != GDT_DTYPE_BF16 && f->dtype != GDT_DTYPE_FP16)
        return snprintf(why, n, "dtype %s: bf16 and fp16 only", gdt_dtype_name(f->dtype)), false;
    if (d != 64 && d != 128)
        return snprintf(why, n, "head dim %" PRId64 ": 64 and 128 only", d), false;
    if (lim.smem_per_block < smem_bytes(d))
        return snprintf(why, n, "needs %d bytes of shared memory, the device allows %" PRId64,
                        smem_bytes(d), lim.smem_per_block), false;
    return true;
}

static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e)
{
    char why[512] = "", what[1024];
    map_geometry geo[3];
    if (!target_ok(f, why, sizeof why) || !sizes_ok(&f->problem.u.sdpa, why, sizeof why) ||
        !layout(&f->problem.u.sdpa, geo, why, sizeof why))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: %s", s->name, why);
    if (!knobs_ok(s, p, what, sizeof what))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s", what);
    return GDT_STATUS_OK;
}

static const char *entry_name(const gdt_facts *f, char *buf, size_t n)
{
    snprintf(buf, n, "gdt_hand_attn_fwd_%s_d%" PRId64, f->dtype == GDT_DTYPE_FP16 ? "fp16" : "bf16",
             f->problem.u.sdpa.d);
    return buf;
}

static gdt_status load(gdt_compiled *c, gdt_build_info *info, gdt_error *e)
{
    const gdt_embedded *cubin = gdt_embedded_find(GDT_HAND_ATTN_CUBIN);
    const gdt_sdpa_desc *s = &c->facts.problem.u.sdpa;
    char name[64];
    double t0 = gdt_now();
    if (!cubin || !cubin->len)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "sdpa_fwd.hand: %s is not embedded in this "
                             "build", GDT_HAND_ATTN_CUBIN);
    if (!(c->cu = gdt_cu(e)))
        return e ? e->status : GDT_STATUS_NO_DEVICE;
    /* Driver calls need a current context: the runtime's primary one. */
    GDT_CHECK_CUDA(e, cudaFree(0));
    GDT_CHECK_CU(e, c->cu->cuModuleLoadData(&c->mod, cubin->data));
    GDT_CHECK_CU(e, c->cu->cuModuleGetFunction(&c->fn, c->mod, entry_name(&c->facts, name, sizeof name)));
    GDT_CHECK_CU(e, c->cu->cuFuncSetAttribute(c->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              smem_bytes(s->d)));
    c->cfg.gridDimX = (unsigned)(s->b * s->h_q);
    c->cfg.gridDimY = (unsigned)((s->s_q + BLOCK_M - 1) / BLOCK_M);
    c->cfg.gridDimZ = 1;
    c->cfg.blockDimX = WARPS * 32, c->cfg.blockDimY = c->cfg.blockDimZ = 1;
    c->cfg.sharedMemBytes = (unsigned)smem_bytes(s->d);
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
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    char why[8];
    c->facts = *f;
    layout(s, c->geo, why, sizeof why); /* check_support accepted it */
    c->params = (gdt_hand_attn_params){
        .o_s = {s->o_stride[0], s->o_stride[1], s->o_stride[2]},
        .s_q = (int)s->s_q, .s_kv = (int)s->s_kv, .h_q = (int)s->h_q,
        .group = (int)(s->h_q / s->h_kv), .causal = (int)s->causal,
        .scale_log2 = (float)(s->scale * M_LOG2E),
    };
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

/* Box: 64 elements of d (128 bytes, the widest the 128-byte swizzle
 * takes) by 128 rows; the kernel loads d/64 boxes per tile. */
static gdt_status encode(gdt_compiled *c, int i, void *ptr, gdt_error *e)
{
    static const cuuint32_t box[4] = {64, 128, 1, 1}, unit[4] = {1, 1, 1, 1};
    const map_geometry *g = &c->geo[i];
    CUtensorMapDataType t = c->facts.dtype == GDT_DTYPE_FP16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                             : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    /* OOB_FILL_NONE fills with zeros: rows past s_q or s_kv add nothing
     * before the mask removes them. */
    GDT_CHECK_CU(e, c->cu->cuTensorMapEncodeTiled(
                        &c->maps[i], t, 4, ptr, g->dims, g->strides, box, unit,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    c->bound[i] = ptr;
    return GDT_STATUS_OK;
}

static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t ws_bytes,
                          void *stream, gdt_error *e)
{
    static const gdt_operand_role roles[4] = {GDT_OPERAND_Q, GDT_OPERAND_K, GDT_OPERAND_V,
                                              GDT_OPERAND_O};
    (void)ws, (void)ws_bytes;
    gdt_status st = gdt_operands_check(&c->facts.problem, ops, e);
    for (int i = 0; i < 4 && st == GDT_STATUS_OK; i++) {
        void *ptr = ops->ptr[roles[i]];
        if ((uintptr_t)ptr % 16)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "sdpa_fwd.hand: operand %s: pointer %p "
                                 "is not 16-byte aligned, as TMA (Q, K, V) and "
                                 "the stores (O) require",
                                 gdt_operand_name(roles[i]), ptr);
        if (i < 3 && ptr != c->bound[i])
            st = encode(c, i, ptr, e);
    }
    if (st != GDT_STATUS_OK)
        return st;
    c->params.o = ops->ptr[GDT_OPERAND_O];
    c->params.lse = ops->ptr[GDT_OPERAND_STATS];
    void *args[] = {&c->maps[0], &c->maps[1], &c->maps[2], &c->params};
    c->cfg.hStream = (CUstream)stream;
    GDT_CHECK_CU(e, c->cu->cuLaunchKernelEx(&c->cfg, c->fn, args, NULL));
    return GDT_STATUS_OK;
}

static int fixed_plans(const gdt_engine_slot *slot, const gdt_facts *f, gdt_plan_id *out, int cap)
{
    (void)f;
    if (cap < 1)
        return 0;
    gdt__hand_attn_plan(gdt_engine_id(slot->family, slot->slot), out);
    return 1;
}

const gdt_engine_ops gdt__hand_attn_ops = {
    .check_support = check_support,
    .build = build,
    .workspace_size = workspace_size,
    .execute = execute,
    .destroy = destroy,
    .fixed_plans = fixed_plans,
};
