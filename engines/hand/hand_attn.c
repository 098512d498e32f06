/* The hand engine's attention forward (slot sdpa_fwd.hand):
 * kernels/hand/attn_fwd_sm90.cu (the entries of kernels/gdt_attn_fwd_sm90.cuh),
 * built by nvcc for sm_90a and embedded as a cubin.  One configuration
 * (the knobs below); check_support declines, with the reason, every
 * problem the kernel cannot run exactly: another
 * arch, dtype, head dim or configuration, a tensor without a unit stride
 * along d, strides TMA cannot describe (16-byte multiples below 2^40) and
 * sizes past the kernel's 32-bit indexing.  build loads the cubin; execute
 * encodes the Q, K and V tensor maps (again only when the pointers change)
 * and launches one CTA per (batch, query head, 128 query rows), in sections
 * of a few heads (section_heads). */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_hand.h"
#include "hand_common.h"

/* What kernels/gdt_attn_fwd_sm90.cuh is compiled for: keep the two in step.
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

/* Mirrors struct gdt_hand_attn_params in kernels/gdt_attn_fwd_sm90.cuh. */
typedef struct gdt_hand_attn_params {
    void *o;
    float *lse;
    long long o_s[3];
    int s_q, s_kv, h_q, group;
    int causal;
    float scale_log2;
    int section;
} gdt_hand_attn_params;
_Static_assert(sizeof(gdt_hand_attn_params) == 72, "must match kernels/gdt_attn_fwd_sm90.cuh");

struct gdt_compiled {
    CUtensorMap maps[3]; /* Q, K, V: first, for their 128-byte alignment */
    const gdt_cu_api *cu;
    gdt_facts facts;
    gdt__hand_attn_map geo[3];
    const void *bound[3]; /* the pointers the maps describe */
    gdt_hand_attn_params params;
    CUmodule mod;
    CUfunction fn;
    CUlaunchConfig cfg;
};

void gdt__hand_attn_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_fixed_plan(attn_knobs, sizeof attn_knobs / sizeof attn_knobs[0], engine_id, out);
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

/* O is written by 4-byte stores: its strides must be even. */
static const gdt__hand_attn_spec attn_spec = {
    .family = GDT_FAMILY_SDPA_FWD, .nmaps = 3, .o_pairs = true,
    .smem_bytes = smem_bytes, .sizes_ok = sizes_ok, .plan = gdt__hand_attn_plan,
};

static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e)
{
    return gdt__hand_attn_check(&attn_spec, s, f, p, e);
}

static const char *entry_name(const gdt_facts *f, char *buf, size_t n)
{
    snprintf(buf, n, "gdt_hand_attn_fwd_%s_d%" PRId64, f->dtype == GDT_DTYPE_FP16 ? "fp16" : "bf16",
             f->problem.u.sdpa.d);
    return buf;
}

static gdt_status load(gdt_compiled *c, gdt_error *e)
{
    const gdt_sdpa_desc *s = &c->facts.problem.u.sdpa;
    char name[64];
    gdt_status st = gdt__hand_module("sdpa_fwd.hand", GDT_HAND_ATTN_CUBIN, &c->cu, &c->mod, e);
    if (st != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CU(e, c->cu->cuModuleGetFunction(&c->fn, c->mod, entry_name(&c->facts, name, sizeof name)));
    GDT_CHECK_CU(e, c->cu->cuFuncSetAttribute(c->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              smem_bytes(s->d)));
    c->cfg.gridDimX = (unsigned)(s->b * s->h_q);
    c->cfg.gridDimY = (unsigned)((s->s_q + BLOCK_M - 1) / BLOCK_M);
    c->cfg.gridDimZ = 1;
    c->cfg.blockDimX = WARPS * 32, c->cfg.blockDimY = c->cfg.blockDimZ = 1;
    c->cfg.sharedMemBytes = (unsigned)smem_bytes(s->d);
    return GDT_STATUS_OK;
}

static void destroy(gdt_compiled *c)
{
    if (c)
        gdt__hand_compiled_free(c, c->cu, c->mod);
}

/* The kernel starts its CTAs section by section, each section every query
 * tile of `section` consecutive query heads (kernels/gdt_attn_fwd_sm90.cuh,
 * schedule), so that the CTAs in flight share their heads' K and V in L2.
 * A kv head's K and V, 4 s_kv d bytes, are held to SECTION_BYTES a section:
 * a third of the H200's 50 MB L2, since about two sections' heads are in
 * flight where one's short causal tiles finish beside the next one's long
 * ones.  Whole GQA groups, a power of two of kv heads (the usual head counts
 * then split into equal sections); at b4 h32 s4096 d128, 8 heads of 2 MiB,
 * 256 CTAs a section. */
#define SECTION_BYTES (16 << 20)
static int section_heads(const gdt_sdpa_desc *s)
{
    int64_t pairs = s->b * s->h_kv, fit = SECTION_BYTES / (4 * s->s_kv * s->d), n = 1;
    while (n * 2 <= fit && n * 2 <= pairs)
        n *= 2;
    return (int)(n * (s->h_q / s->h_kv));
}

static gdt_compiled *compiled_new(const gdt_facts *f, const gdt_plan_id *p)
{
    (void)p;
    gdt_compiled *c = gdt__hand_compiled_alloc(sizeof(gdt_compiled));
    if (!c)
        return NULL;
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    c->facts = *f;
    gdt__hand_attn_geometry(&attn_spec, f, c->geo);
    c->params = (gdt_hand_attn_params){
        .o_s = {s->o_stride[0], s->o_stride[1], s->o_stride[2]},
        .s_q = (int)s->s_q, .s_kv = (int)s->s_kv, .h_q = (int)s->h_q,
        .group = (int)(s->h_q / s->h_kv), .causal = (int)s->causal,
        .scale_log2 = (float)(s->scale * M_LOG2E), .section = section_heads(s),
    };
    return c;
}

GDT__HAND_BUILD(check_support, compiled_new, load, destroy)

static size_t workspace_size(const gdt_compiled *c)
{
    (void)c;
    return 0;
}

/* Box: 64 elements of d (128 bytes, the widest the 128-byte swizzle
 * takes) by 128 rows; the kernel loads d/64 boxes per tile. */
static gdt_status encode(gdt_compiled *c, int i, void *ptr, gdt_error *e)
{
    static const cuuint32_t box[4] = {64, 128, 1, 1};
    const gdt__hand_attn_map *g = &c->geo[i];
    /* The zero fill out of bounds: rows past s_q or s_kv add nothing
     * before the mask removes them. */
    return gdt__tma_encode(c->cu, &c->maps[i], &c->bound[i], c->facts.dtype, 4, ptr, g->dims,
                            g->strides, box, e);
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

GDT__HAND_FIXED_OPS(gdt__hand_attn_ops, gdt__hand_attn_plan);
