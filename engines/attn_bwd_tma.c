/* The host side of the Hopper attention backward (engines/gdt_attn_bwd_tma.h):
 * what the hand engine's sdpa_bwd.hand and the NVRTC engine's PIPE=1
 * attention_bwd rows both do before and at the launches of
 * kernels/gdt_attn_bwd_sm90.cuh's pre, main and post. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gdt_attn_bwd_tma.h"
#include "gdt_tma.h"
#include "hand/gdt_hand.h"

enum { BLOCK_M = GDT_ATTN_BWD_TMA_BLOCK_M, BLOCK_N = GDT_ATTN_BWD_TMA_BLOCK_N,
       STAGES = GDT_ATTN_BWD_TMA_STAGES, ROW_WARPS = 8, GRID_Y_MAX = 65535 };
enum { MAP_Q = GDT_ATTN_BWD_TMA_MAP_Q, MAP_K = GDT_ATTN_BWD_TMA_MAP_K,
       MAP_V = GDT_ATTN_BWD_TMA_MAP_V, MAP_DO = GDT_ATTN_BWD_TMA_MAP_DO,
       NMAPS = GDT_ATTN_BWD_TMA_NMAPS };

_Static_assert(sizeof(gdt_attn_bwd_tma_params) == 216, "must match kernels/gdt_attn_bwd_sm90.cuh");

int gdt__attn_bwd_tma_smem_bytes(int64_t d)
{
    return (int)(2 * BLOCK_N * d * 2 + STAGES * 2 * BLOCK_M * d * 2 + 2 * BLOCK_N * BLOCK_M * 2 +
                 2 * BLOCK_M * 64 * 4 + STAGES * 512 + 8 * (1 + 2 * STAGES + 4 + 4) + 1024);
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
const gdt__hand_attn_spec gdt__attn_bwd_tma_spec = {
    .family = GDT_FAMILY_SDPA_BWD, .nmaps = NMAPS, .o_pieces = false,
    .smem_bytes = gdt__attn_bwd_tma_smem_bytes, .sizes_ok = sizes_ok,
    .configs = GDT_HAND_ATTN_BWD_CONFIGS, .config_plan = gdt__hand_attn_bwd_config_plan,
};

bool gdt__attn_bwd_tma_supported(const gdt_facts *f, char *why, size_t n)
{
    return gdt__hand_attn_ok(&gdt__attn_bwd_tma_spec, f, why, n);
}

/* s_pad is a multiple of 64, so every part, every block's 256-byte rows of
 * LSE and D and every 16 KB chunk of the accumulator (blocked per 64-row
 * block into d/64 chunks of 64 x 64, each contiguous for one bulk
 * reduce-add: kernels/gdt_attn_bwd_sm90.cuh, AB90_DQ_CHUNK) start 256-byte
 * aligned.  The deterministic kernels' semaphores follow, one int32 per
 * chunk (the kernel's dq_sems), which their pre kernel zeroes. */
size_t gdt__attn_bwd_tma_workspace(const gdt_sdpa_desc *s, bool det)
{
    int64_t rows = s->b * s->h_q * padded_rows(s->s_q), chunks = rows / BLOCK_M * (s->d / 64);
    return (size_t)(rows * (2 + s->d) * 4 + (det ? chunks * 4 : 0));
}

void gdt__attn_bwd_tma_geometry(const gdt_sdpa_desc *s, int i, CUlaunchConfig *cfg)
{
    int64_t pad_rows = s->b * s->h_q * padded_rows(s->s_q), pairs = pad_rows / 2;
    int64_t x = i == 0 ? (pad_rows + ROW_WARPS - 1) / ROW_WARPS : (pairs + ROW_WARPS - 1) / ROW_WARPS;
    memset(cfg, 0, sizeof *cfg);
    cfg->gridDimY = cfg->gridDimZ = cfg->blockDimY = cfg->blockDimZ = 1;
    cfg->gridDimX = (unsigned)x, cfg->blockDimX = ROW_WARPS * 32;
    if (i == GDT_ATTN_BWD_TMA_MAIN) {
        cfg->gridDimX = (unsigned)(s->b * s->h_kv);
        cfg->gridDimY = (unsigned)((s->s_kv + BLOCK_N - 1) / BLOCK_N);
        cfg->blockDimX = GDT_ATTN_BWD_TMA_WARPS * 32;
        cfg->sharedMemBytes = (unsigned)gdt__attn_bwd_tma_smem_bytes(s->d);
    }
}

/* The main kernel runs its CTAs section by section, each section all the
 * key blocks of `section` (batch, kv head) pairs (kernels/gdt_attn_bwd_sm90.cuh,
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

static void copy3(long long *dst, const int64_t *src)
{
    for (int i = 0; i < 3; i++)
        dst[i] = src[i];
}

void gdt__attn_bwd_tma_init(gdt_attn_bwd_tma *t, const char *who, const gdt_facts *f)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    gdt_attn_bwd_tma_params *k = &t->params;
    t->who = who;
    t->dtype = f->dtype;
    gdt__hand_attn_geometry(&gdt__attn_bwd_tma_spec, f, t->geo);
    copy3(k->q_s, s->q_stride), copy3(k->k_s, s->k_stride);
    copy3(k->v_s, s->v_stride), copy3(k->o_s, s->o_stride);
    k->b = (int)s->b, k->h_q = (int)s->h_q, k->h_kv = (int)s->h_kv, k->group = (int)(s->h_q / s->h_kv);
    k->s_q = (int)s->s_q, k->s_kv = (int)s->s_kv, k->s_pad = (int)padded_rows(s->s_q);
    k->causal = (int)s->causal;
    k->scale = (float)s->scale, k->scale_log2 = (float)(s->scale * M_LOG2E);
    k->section = section_pairs(s);
    t->det = false;
}

/* Programmatic dependent launch: main's CTAs start as pre's last ones run
 * and post's as main's do (their first waits are the kernels'
 * grid_dep_wait); pre starts as any launch, after what came before. */
gdt_status gdt__attn_bwd_tma_load(gdt_attn_bwd_tma *t, const gdt_cu_api *cu, int i, CUfunction fn,
                                  const gdt_facts *f, CUlaunchConfig *cfg, gdt_error *e)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    t->cu = cu;
    if (i == GDT_ATTN_BWD_TMA_MAIN)
        GDT_CHECK_CU(e, cu->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               gdt__attn_bwd_tma_smem_bytes(s->d)));
    gdt__attn_bwd_tma_geometry(s, i, cfg);
    t->pdl.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    t->pdl.value.programmaticStreamSerializationAllowed = 1;
    if (i > 0)
        cfg->attrs = &t->pdl, cfg->numAttrs = 1;
    return GDT_STATUS_OK;
}

/* Box: 64 elements of d (128 bytes, the widest the 128-byte swizzle takes)
 * by 64 (Q, dO) or 128 (K, V) rows; the kernel loads d/64 boxes per tile. */
static gdt_status encode(gdt_attn_bwd_tma *t, int i, void *ptr, gdt_error *e)
{
    const cuuint32_t box[4] = {64, i == MAP_K || i == MAP_V ? BLOCK_N : BLOCK_M, 1, 1};
    const gdt__hand_attn_map *g = &t->geo[i];
    /* The zero fill out of bounds: query rows past s_q carry LSE +inf and
     * give P = 0; key rows past s_kv are masked. */
    return gdt__tma_encode(t->cu, &t->maps[i], &t->bound[i], t->dtype, 4, ptr, g->dims, g->strides,
                           box, e);
}

/* Every pointer 16-byte aligned (TMA, the bulk copies, the vector stores);
 * the workspace present and large enough. */
static gdt_status check_pointers(const gdt_attn_bwd_tma *t, const gdt_facts *f, const gdt_operands *ops,
                                 void *ws, size_t ws_bytes, gdt_error *e)
{
    static const gdt_operand_role roles[] = {GDT_OPERAND_Q,  GDT_OPERAND_K,     GDT_OPERAND_V,
                                             GDT_OPERAND_O,  GDT_OPERAND_DO,    GDT_OPERAND_STATS,
                                             GDT_OPERAND_DQ, GDT_OPERAND_DK,    GDT_OPERAND_DV};
    size_t need = gdt__attn_bwd_tma_workspace(&f->problem.u.sdpa, t->det);
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if ((uintptr_t)ops->ptr[roles[i]] % 16)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: operand %s: pointer %p "
                                 "is not 16-byte aligned, as TMA and the vector loads and stores "
                                 "require", t->who, gdt_operand_name(roles[i]), ops->ptr[roles[i]]);
    if (!ws || ws_bytes < need || (uintptr_t)ws % 16)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: workspace %p of %zu bytes, "
                             "expected %zu bytes at a 16-byte aligned address", t->who, ws, ws_bytes,
                             need);
    return GDT_STATUS_OK;
}

gdt_status gdt__attn_bwd_tma_bind(gdt_attn_bwd_tma *t, const gdt_facts *f, const gdt_operands *ops,
                                  void *ws, size_t ws_bytes, gdt_error *e)
{
    static const gdt_operand_role mapped[NMAPS] = {GDT_OPERAND_Q, GDT_OPERAND_K, GDT_OPERAND_V,
                                                   GDT_OPERAND_DO};
    gdt_status st = gdt_operands_check(&f->problem, ops, e);
    if (st == GDT_STATUS_OK)
        st = check_pointers(t, f, ops, ws, ws_bytes, e);
    for (int i = 0; i < NMAPS && st == GDT_STATUS_OK; i++)
        if (ops->ptr[mapped[i]] != t->bound[i])
            st = encode(t, i, ops->ptr[mapped[i]], e);
    if (st != GDT_STATUS_OK)
        return st;
    gdt_attn_bwd_tma_params *k = &t->params;
    size_t part = (size_t)k->b * k->h_q * k->s_pad;
    k->o = ops->ptr[GDT_OPERAND_O], k->dout = ops->ptr[GDT_OPERAND_DO];
    k->lse = ops->ptr[GDT_OPERAND_STATS];
    k->dq = ops->ptr[GDT_OPERAND_DQ], k->dk = ops->ptr[GDT_OPERAND_DK], k->dv = ops->ptr[GDT_OPERAND_DV];
    k->lse2 = ws, k->dd = k->lse2 + part, k->dq_acc = k->dd + part;
    return GDT_STATUS_OK;
}

int gdt__attn_bwd_tma_args(gdt_attn_bwd_tma *t, int i, void *args[5])
{
    if (i != GDT_ATTN_BWD_TMA_MAIN) {
        args[0] = &t->params;
        return 1;
    }
    for (int m = 0; m < NMAPS; m++)
        args[m] = &t->maps[m];
    args[NMAPS] = &t->params;
    return NMAPS + 1;
}
