/* The hand engine's attention backward (slot sdpa_bwd.hand):
 * kernels/hand/attn_bwd_sm90.cu, built by nvcc for sm_90a and embedded as
 * a cubin.  One configuration (the knobs below); check_support declines,
 * with the reason, every problem the kernels cannot run exactly: another
 * arch, dtype, head dim or configuration, a tensor without a unit stride
 * along d, strides TMA cannot describe (16-byte multiples below 2^40) and
 * sizes past the kernels' 32-bit indexing.  build loads the cubin; execute
 * encodes the Q, K, V and dO tensor maps (again only when the pointers
 * change) and launches three kernels on the caller's stream: the
 * preprocess (D, LSE log2 e, dQ accumulator zeroed), the KV-block-parallel
 * main kernel (its dQ added into the accumulator from shared memory by one
 * 16 KB bulk reduction per 64-column chunk and query block, each consumer
 * its own), and the postprocess (dQ to the io dtype), the last two by
 * programmatic dependent launch (load). */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_hand.h"
#include "hand_common.h"

/* What kernels/hand/attn_bwd_sm90.cu is compiled for: keep the two in step.
 * MMA=1 is the attention templates' word for their wgmma path without an
 * overlap of one block's GEMMs with the next's. */
enum { BLOCK_M = 64, BLOCK_N = 128, STAGES = 2, WARPS = 12, MMA = 1, ROW_WARPS = 8, GRID_Y_MAX = 65535 };

static const gdt_knob bwd_knobs[] = {
    {GDT_KNOB_TILE_M, BLOCK_M}, {GDT_KNOB_TILE_N, BLOCK_N}, {GDT_KNOB_STAGES, STAGES},
    {GDT_KNOB_WARPS, WARPS},    {GDT_KNOB_MMA, MMA},
};

/* Its shared memory: K and V (128 rows x d), STAGES x (Q, dO) of 64 rows,
 * two 128 x 64 dS^T tiles, the two consumers' fp32 dQ slices (64 x 64
 * each), STAGES x 512 bytes of LSE and D rows, the barriers
 * (K/V, the stage ring, the dS^T ring and a dQ slice pair per consumer),
 * and 1024 bytes of slack to align the swizzle atoms. */
static int smem_bytes(int64_t d)
{
    return (int)(2 * BLOCK_N * d * 2 + STAGES * 2 * BLOCK_M * d * 2 + 2 * BLOCK_N * BLOCK_M * 2 +
                 2 * BLOCK_M * 64 * 4 + STAGES * 512 + 8 * (1 + 2 * STAGES + 4 + 4) + 1024);
}

/* Mirrors struct gdt_hand_attn_bwd_params in kernels/hand/attn_bwd_sm90.cu. */
typedef struct gdt_hand_attn_bwd_params {
    const void *o, *dout;
    const float *lse;
    void *dq, *dk, *dv;
    float *lse2, *dd, *dq_acc;
    long long q_s[3], k_s[3], v_s[3], o_s[3];
    int b, h_q, h_kv, group, s_q, s_kv, s_pad, causal;
    float scale, scale_log2;
    int section;
} gdt_hand_attn_bwd_params;
_Static_assert(sizeof(gdt_hand_attn_bwd_params) == 216, "must match kernels/hand/attn_bwd_sm90.cu");

enum { MAP_Q, MAP_K, MAP_V, MAP_DO, NMAPS };

struct gdt_compiled {
    CUtensorMap maps[NMAPS]; /* first, for their 128-byte alignment */
    const gdt_cu_api *cu;
    gdt_facts facts;
    gdt__hand_attn_map geo[NMAPS];
    const void *bound[NMAPS]; /* the pointers the maps describe */
    gdt_hand_attn_bwd_params params;
    CUmodule mod;
    CUfunction fn[3]; /* pre, main, post */
    CUlaunchConfig cfg[3];
    CUlaunchAttribute pdl; /* main's and post's launch attribute (load) */
};

void gdt__hand_attn_bwd_plan(int64_t engine_id, gdt_plan_id *out)
{
    gdt__hand_fixed_plan(bwd_knobs, sizeof bwd_knobs / sizeof bwd_knobs[0], engine_id, out);
}

static int64_t padded_rows(int64_t s_q) { return (s_q + BLOCK_M - 1) / BLOCK_M * BLOCK_M; }

/* pre runs over b*h_q*s_pad rows, post over b*h_q*s_pad/2 row pairs, ROW_WARPS a CTA;
 * main over b*h_kv x ceil(s_kv/128); rows and their products are 32-bit
 * inside the kernels where they index within one head. */
static bool sizes_ok(const gdt_sdpa_desc *s, char *why, size_t n)
{
    int64_t rows = s->b * s->h_q * padded_rows(s->s_q), kv_blocks = (s->s_kv + BLOCK_N - 1) / BLOCK_N;
    if (s->s_q > INT_MAX - BLOCK_M || s->s_kv > INT_MAX - BLOCK_N || s->b * s->h_kv > INT_MAX ||
        kv_blocks > GRID_Y_MAX || rows / ROW_WARPS >= INT_MAX)
        return snprintf(why, n, "b %" PRId64 ", h_q %" PRId64 ", h_kv %" PRId64 ", s_q %" PRId64
                        ", s_kv %" PRId64 ": the grids are b*h_kv x ceil(s_kv/128) (at most "
                        "2^31-1 x 65535) and b*h_q*s_q/8 rows (below 2^31)", s->b, s->h_q,
                        s->h_kv, s->s_q, s->s_kv), false;
    return true;
}

/* The maps of Q, K, V and dO (O's strides): the gradients share their
 * tensor's strides, and O dO's, so these four judge every operand. */
static const gdt__hand_attn_spec bwd_spec = {
    .family = GDT_FAMILY_SDPA_BWD, .nmaps = NMAPS, .o_pairs = false,
    .smem_bytes = smem_bytes, .sizes_ok = sizes_ok, .plan = gdt__hand_attn_bwd_plan,
};

static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                                gdt_error *e)
{
    return gdt__hand_attn_check(&bwd_spec, s, f, p, e);
}

static void set_grid(CUlaunchConfig *cfg, int64_t x, int64_t y, int threads, int smem)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->gridDimX = (unsigned)x, cfg->gridDimY = (unsigned)y, cfg->gridDimZ = 1;
    cfg->blockDimX = (unsigned)threads, cfg->blockDimY = cfg->blockDimZ = 1;
    cfg->sharedMemBytes = (unsigned)smem;
}

/* gdt_hand_attn_bwd{_pre,,_post}_{bf16,fp16}_d{64,128}. */
static gdt_status find_entries(gdt_compiled *c, gdt_error *e)
{
    static const char *const stage[3] = {"_pre", "", "_post"};
    const char *dt = c->facts.dtype == GDT_DTYPE_FP16 ? "fp16" : "bf16";
    char name[64];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "gdt_hand_attn_bwd%s_%s_d%" PRId64, stage[i], dt,
                 c->facts.problem.u.sdpa.d);
        GDT_CHECK_CU(e, c->cu->cuModuleGetFunction(&c->fn[i], c->mod, name));
    }
    return GDT_STATUS_OK;
}

static gdt_status load(gdt_compiled *c, gdt_error *e)
{
    const gdt_sdpa_desc *s = &c->facts.problem.u.sdpa;
    gdt_status st = gdt__hand_module("sdpa_bwd.hand", GDT_HAND_ATTN_BWD_CUBIN, &c->cu, &c->mod, e);
    if (st == GDT_STATUS_OK)
        st = find_entries(c, e);
    if (st != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CU(e, c->cu->cuFuncSetAttribute(c->fn[1], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              smem_bytes(s->d)));
    int64_t pad_rows = s->b * s->h_q * padded_rows(s->s_q), pairs = pad_rows / 2;
    set_grid(&c->cfg[0], (pad_rows + ROW_WARPS - 1) / ROW_WARPS, 1, ROW_WARPS * 32, 0);
    set_grid(&c->cfg[1], s->b * s->h_kv, (s->s_kv + BLOCK_N - 1) / BLOCK_N, WARPS * 32, smem_bytes(s->d));
    set_grid(&c->cfg[2], (pairs + ROW_WARPS - 1) / ROW_WARPS, 1, ROW_WARPS * 32, 0);
    /* Programmatic dependent launch: main's CTAs start as pre's last ones
     * run and post's as main's do (their first waits are the kernels'
     * grid_dep_wait); pre starts as any launch, after what came before. */
    c->pdl.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    c->pdl.value.programmaticStreamSerializationAllowed = 1;
    for (int i = 1; i < 3; i++)
        c->cfg[i].attrs = &c->pdl, c->cfg[i].numAttrs = 1;
    return GDT_STATUS_OK;
}

static void destroy(gdt_compiled *c)
{
    if (c)
        gdt__hand_compiled_free(c, c->cu, c->mod);
}

static void copy3(long long *dst, const int64_t *src)
{
    for (int i = 0; i < 3; i++)
        dst[i] = src[i];
}

/* The main kernel runs its CTAs section by section, each section all the
 * key blocks of `section` (batch, kv head) pairs (kernels/hand/attn_bwd_sm90.cu,
 * schedule), so that the CTAs in flight share their heads' Q, dO and fp32
 * dQ accumulator in L2.  A section's share, group * s_pad * d * 8 bytes a
 * pair (2 + 2 + 4 bytes an element), is held to SECTION_BYTES: a third of
 * the H200's 50 MB L2, since under a causal mask about two sections' heads
 * are in flight as the short key blocks of one finish beside the long ones
 * of the next.  At b4 h32 s4096 d128 that is 4 heads of 4 MiB, 128 CTAs. */
#define SECTION_BYTES (16 << 20)
static int section_pairs(const gdt_sdpa_desc *s)
{
    int64_t pair = s->h_q / s->h_kv * padded_rows(s->s_q) * s->d * 8, n = SECTION_BYTES / pair;
    return n < 1 ? 1 : n > s->b * s->h_kv ? (int)(s->b * s->h_kv) : (int)n;
}

static gdt_compiled *compiled_new(const gdt_facts *f, const gdt_plan_id *p)
{
    (void)p;
    gdt_compiled *c = gdt__hand_compiled_alloc(sizeof(gdt_compiled));
    if (!c)
        return NULL;
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    c->facts = *f;
    gdt__hand_attn_geometry(&bwd_spec, f, c->geo);
    gdt_hand_attn_bwd_params *k = &c->params;
    copy3(k->q_s, s->q_stride), copy3(k->k_s, s->k_stride);
    copy3(k->v_s, s->v_stride), copy3(k->o_s, s->o_stride);
    k->b = (int)s->b, k->h_q = (int)s->h_q, k->h_kv = (int)s->h_kv, k->group = (int)(s->h_q / s->h_kv);
    k->s_q = (int)s->s_q, k->s_kv = (int)s->s_kv, k->s_pad = (int)padded_rows(s->s_q);
    k->causal = (int)s->causal;
    k->scale = (float)s->scale, k->scale_log2 = (float)(s->scale * M_LOG2E);
    k->section = section_pairs(s);
    return c;
}

GDT__HAND_BUILD(check_support, compiled_new, load, destroy)

/* LSE log2 e and D, [b h_q][s_pad] fp32 each, then the fp32 dQ accumulator,
 * s_pad * d a (batch, query head), blocked: per 64-row block its d/64
 * chunks of 64 x 64, each contiguous for one bulk reduce-add
 * (kernels/hand/attn_bwd_sm90.cu, DQ_CHUNK); s_pad is a multiple
 * of 64, so every part, every block's 256-byte rows of LSE and D and every
 * 16 KB chunk start 256-byte aligned. */
static size_t workspace_bytes(const gdt_sdpa_desc *s)
{
    return (size_t)(s->b * s->h_q * padded_rows(s->s_q) * (2 + s->d) * 4);
}

static size_t workspace_size(const gdt_compiled *c) { return workspace_bytes(&c->facts.problem.u.sdpa); }

/* Box: 64 elements of d (128 bytes, the widest the 128-byte swizzle takes)
 * by 64 (Q, dO) or 128 (K, V) rows; the kernel loads d/64 boxes per tile. */
static gdt_status encode(gdt_compiled *c, int i, void *ptr, gdt_error *e)
{
    const cuuint32_t box[4] = {64, i == MAP_K || i == MAP_V ? BLOCK_N : BLOCK_M, 1, 1};
    const gdt__hand_attn_map *g = &c->geo[i];
    /* The zero fill out of bounds: query rows past s_q carry LSE +inf and
     * give P = 0; key rows past s_kv are masked. */
    return gdt__tma_encode(c->cu, &c->maps[i], &c->bound[i], c->facts.dtype, 4, ptr, g->dims,
                            g->strides, box, e);
}

/* Every pointer 16-byte aligned (TMA, the bulk copies, the vector stores);
 * the workspace present and large enough. */
static gdt_status check_pointers(const gdt_compiled *c, const gdt_operands *ops, void *ws, size_t ws_bytes,
                                 gdt_error *e)
{
    static const gdt_operand_role roles[] = {GDT_OPERAND_Q,  GDT_OPERAND_K,     GDT_OPERAND_V,
                                             GDT_OPERAND_O,  GDT_OPERAND_DO,    GDT_OPERAND_STATS,
                                             GDT_OPERAND_DQ, GDT_OPERAND_DK,    GDT_OPERAND_DV};
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if ((uintptr_t)ops->ptr[roles[i]] % 16)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "sdpa_bwd.hand: operand %s: pointer %p "
                                 "is not 16-byte aligned, as TMA and the vector loads and stores "
                                 "require", gdt_operand_name(roles[i]), ops->ptr[roles[i]]);
    if (!ws || ws_bytes < workspace_size(c) || (uintptr_t)ws % 16)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "sdpa_bwd.hand: workspace %p of %zu bytes, "
                             "expected %zu bytes at a 16-byte aligned address", ws, ws_bytes,
                             workspace_size(c));
    return GDT_STATUS_OK;
}

static void bind(gdt_compiled *c, const gdt_operands *ops, void *ws)
{
    gdt_hand_attn_bwd_params *k = &c->params;
    size_t part = (size_t)k->b * k->h_q * k->s_pad;
    k->o = ops->ptr[GDT_OPERAND_O], k->dout = ops->ptr[GDT_OPERAND_DO];
    k->lse = ops->ptr[GDT_OPERAND_STATS];
    k->dq = ops->ptr[GDT_OPERAND_DQ], k->dk = ops->ptr[GDT_OPERAND_DK], k->dv = ops->ptr[GDT_OPERAND_DV];
    k->lse2 = ws, k->dd = k->lse2 + part, k->dq_acc = k->dd + part;
}

static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t ws_bytes,
                          void *stream, gdt_error *e)
{
    static const gdt_operand_role mapped[NMAPS] = {GDT_OPERAND_Q, GDT_OPERAND_K, GDT_OPERAND_V,
                                                   GDT_OPERAND_DO};
    gdt_status st = gdt_operands_check(&c->facts.problem, ops, e);
    if (st == GDT_STATUS_OK)
        st = check_pointers(c, ops, ws, ws_bytes, e);
    for (int i = 0; i < NMAPS && st == GDT_STATUS_OK; i++)
        if (ops->ptr[mapped[i]] != c->bound[i])
            st = encode(c, i, ops->ptr[mapped[i]], e);
    if (st != GDT_STATUS_OK)
        return st;
    bind(c, ops, ws);
    void *rows[] = {&c->params};
    void *main_args[] = {&c->maps[MAP_Q], &c->maps[MAP_K], &c->maps[MAP_V], &c->maps[MAP_DO], &c->params};
    for (int i = 0; i < 3; i++) {
        c->cfg[i].hStream = (CUstream)stream;
        GDT_CHECK_CU(e, c->cu->cuLaunchKernelEx(&c->cfg[i], c->fn[i], i == 1 ? main_args : rows, NULL));
    }
    return GDT_STATUS_OK;
}

GDT__HAND_FIXED_OPS(gdt__hand_attn_bwd_ops, gdt__hand_attn_bwd_plan);
