/* The host side of the Hopper attention forward (engines/gdt_attn_fwd_tma.h):
 * what the hand engine's sdpa_fwd.hand and the NVRTC engine's PIPE=1
 * attention rows both do before and at a launch of
 * kernels/gdt_attn_fwd_sm90.cuh. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gdt_attn_fwd_tma.h"
#include "gdt_plan_counters.h"
#include "gdt_tma.h"
#include "hand/gdt_hand.h"

enum { BLOCK_M = GDT_ATTN_FWD_TMA_BLOCK_M, BLOCK_N_MAX = GDT_ATTN_FWD_TMA_BLOCK_N_WIDE };

_Static_assert(sizeof(gdt_attn_fwd_tma_params) == 88, "must match kernels/gdt_attn_fwd_sm90.cuh");

int gdt__attn_fwd_tma_smem_bytes(int64_t d, int consumers, int stages, int block_n)
{
    return (int)((64 * consumers + 2 * stages * block_n) * d * 2 + 128 + 1024);
}

int gdt__attn_fwd_tma_hand_consumers(const gdt_sdpa_desc *s)
{
    return s->d == 64 ? GDT_ATTN_FWD_TMA_WIDE : GDT_ATTN_FWD_TMA_CONSUMERS;
}

/* What check_support compares with the device's: the most sdpa_fwd.hand's
 * configurations at head dim d take (the rule reads the head dim alone). */
static int hand_smem_bytes(int64_t d)
{
    gdt_sdpa_desc s = {.d = d};
    return gdt__attn_fwd_tma_smem_bytes(d, gdt__attn_fwd_tma_hand_consumers(&s), GDT_ATTN_FWD_TMA_STAGES,
                                        GDT_ATTN_FWD_TMA_BLOCK_N);
}

/* The kernel's tile index is 32-bit: b*h_q*ceil(s_q/128) tiles at most
 * 2^31-1 (128 rows, the smaller tile, so 192-row tiles are fewer), and
 * its rows too: s_q plus a 192-row tile, s_kv plus a 176-key block, and
 * b*h_q below 2^31. */
static bool sizes_ok(const gdt_sdpa_desc *s, char *why, size_t n)
{
    int64_t tiles = (s->s_q + BLOCK_M - 1) / BLOCK_M;
    if (s->s_q > INT_MAX - 64 * GDT_ATTN_FWD_TMA_WIDE || s->s_kv > INT_MAX - BLOCK_N_MAX ||
        s->b * s->h_q > INT_MAX ||
        s->b * s->h_q > INT_MAX / (tiles > 0 ? tiles : 1))
        return snprintf(why, n, "b %" PRId64 ", h_q %" PRId64 ", s_q %" PRId64 ", s_kv %" PRId64
                        ": the tiles, b*h_q x ceil(s_q/128), are at most 2^31-1 and rows "
                        "are 32-bit", s->b, s->h_q, s->s_q, s->s_kv), false;
    return true;
}

/* O is written in 16-byte pieces: its strides must be multiples of 8 elements. */
const gdt__hand_attn_spec gdt__attn_fwd_tma_spec = {
    .family = GDT_FAMILY_SDPA_FWD, .nmaps = 3, .o_pieces = true,
    .smem_bytes = hand_smem_bytes, .sizes_ok = sizes_ok,
    .configs = GDT_HAND_ATTN_FWD_CONFIGS, .config_plan = gdt__hand_attn_fwd_config_plan,
};

bool gdt__attn_fwd_tma_supported(const gdt_facts *f, char *why, size_t n)
{
    return gdt__hand_attn_ok(&gdt__attn_fwd_tma_spec, f, why, n);
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

void gdt__attn_fwd_tma_init(gdt_attn_fwd_tma *t, const char *who, const gdt_facts *f, int consumers,
                            int stages, int block_n, int cluster)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    const int block_m = 64 * consumers;
    t->who = who;
    t->dtype = f->dtype;
    t->consumers = consumers;
    t->stages = stages;
    t->block_n = block_n;
    t->cluster = cluster;
    t->threads = 128 * (consumers + 1);
    t->smem_bytes = gdt__attn_fwd_tma_smem_bytes(s->d, consumers, stages, block_n);
    gdt__hand_attn_geometry(&gdt__attn_fwd_tma_spec, f, t->geo);
    t->params = (gdt_attn_fwd_tma_params){
        .o_s = {s->o_stride[0], s->o_stride[1], s->o_stride[2]},
        .s_q = (int)s->s_q, .s_kv = (int)s->s_kv, .h_q = (int)s->h_q,
        .group = (int)(s->h_q / s->h_kv), .causal = (int)s->causal,
        .scale_log2 = (float)(s->scale * M_LOG2E), .section = section_heads(s),
        .heads = (int)(s->b * s->h_q), .tiles = (int)((s->s_q + block_m * cluster - 1) / (block_m * cluster)),
    };
}

/* Every tile count takes the persistent grid: the CTAs draw their tiles from
 * the plan's counter as they free up, so uneven causal tiles balance as
 * under the hardware's dispatch of one CTA per tile.  (Until the counter, a
 * static walk i, i + gridDim.x, ... cost 5% and 13% at s8192 causal d128 on
 * an H100, docs/results/2026-12-06.md, and causal masks over 32 key blocks
 * took one CTA per tile.) */
unsigned gdt__attn_fwd_tma_grid(const gdt_attn_fwd_tma_params *p, int sms, int per_sm)
{
    int64_t tiles = (int64_t)p->heads * p->tiles, resident = (int64_t)sms * per_sm;
    return (unsigned)(tiles < resident ? tiles : resident);
}

gdt_status gdt__attn_fwd_tma_load(gdt_attn_fwd_tma *t, const gdt_cu_api *cu, CUfunction fn,
                                  CUlaunchConfig *cfg, gdt_error *e)
{
    int smem = t->smem_bytes, threads = t->threads;
    int sms = 0, dev = 0, per_sm = 0;
    t->cu = cu;
    GDT_CHECK_CU(e, cu->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    GDT_CHECK_CUDA(e, cudaGetDevice(&dev));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    GDT_CHECK_CU(e, cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, (size_t)smem));
    if (per_sm < 1)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: no CTA of %d threads and %d bytes "
                             "of shared memory fits on an SM of this device", t->who, threads, smem);
    cfg->gridDimX = gdt__attn_fwd_tma_grid(&t->params, sms / t->cluster, per_sm) * (unsigned)t->cluster;
    cfg->gridDimY = cfg->gridDimZ = 1;
    cfg->blockDimX = (unsigned)threads, cfg->blockDimY = cfg->blockDimZ = 1;
    cfg->sharedMemBytes = (unsigned)smem;
    if (t->cluster > 1) { /* each cluster walks its own pairs: no more than are resident */
        cfg->attrs = t->attrs, cfg->numAttrs = 0;
        gdt_status st = gdt__tma_cluster_launch(t->cu, fn, cfg, t->cluster, t->who, e);
        if (st != GDT_STATUS_OK)
            return st;
    }
    /* The kernel's last CTA sets them back to zero. */
    return gdt__plan_counters_new(&t->params.sched, GDT_ATTN_FWD_TMA_COUNTERS, e);
}

void gdt__attn_fwd_tma_release(gdt_attn_fwd_tma *t)
{
    gdt__plan_counters_free(&t->params.sched);
}

/* Box: 64 elements of d (128 bytes, the widest the 128-byte swizzle
 * takes) by a tile's rows, block_n for K and V, 64 a consumer for Q; the
 * kernel loads d/64 boxes per tile, and its barriers expect their bytes. */
static gdt_status encode(gdt_attn_fwd_tma *t, int i, void *ptr, gdt_error *e)
{
    const cuuint32_t box[4] = {64, i == 0 ? 64u * (cuuint32_t)t->consumers : (cuuint32_t)(t->block_n / t->cluster), 1, 1};
    const gdt__hand_attn_map *g = &t->geo[i];
    /* The zero fill out of bounds: rows past s_q or s_kv add nothing
     * before the mask removes them. */
    return gdt__tma_encode(t->cu, &t->maps[i], &t->bound[i], t->dtype, 4, ptr, g->dims, g->strides,
                           box, e);
}

gdt_status gdt__attn_fwd_tma_bind(gdt_attn_fwd_tma *t, const gdt_facts *f, const gdt_operands *ops,
                                  void *args[4], gdt_error *e)
{
    static const gdt_operand_role roles[4] = {GDT_OPERAND_Q, GDT_OPERAND_K, GDT_OPERAND_V,
                                              GDT_OPERAND_O};
    gdt_status st = gdt_operands_check(&f->problem, ops, e);
    for (int i = 0; i < 4 && st == GDT_STATUS_OK; i++) {
        void *ptr = ops->ptr[roles[i]];
        if ((uintptr_t)ptr % 16)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: operand %s: pointer %p "
                                 "is not 16-byte aligned, as TMA (Q, K, V) and "
                                 "the stores (O) require", t->who,
                                 gdt_operand_name(roles[i]), ptr);
        if (i < 3 && ptr != t->bound[i])
            st = encode(t, i, ptr, e);
    }
    if (st != GDT_STATUS_OK)
        return st;
    t->params.o = ops->ptr[GDT_OPERAND_O];
    t->params.lse = ops->ptr[GDT_OPERAND_STATS];
    args[0] = &t->maps[0], args[1] = &t->maps[1], args[2] = &t->maps[2], args[3] = &t->params;
    return GDT_STATUS_OK;
}
