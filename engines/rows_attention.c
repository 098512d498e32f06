/* The `attention_fwd` and `attention_bwd` structural families: complete rows
 * for the flash-attention templates (kernels/attn_fwd.cuh, attn_bwd.cuh).
 * The head dimension is fixed by the problem and never a column.  Both
 * have an optional PIPE column: 1 is the hand engine's Hopper kernel of
 * that direction in its configuration, or the forward's wide one at d64
 * (bind_tma); the backward's rows
 * have an optional PINGPONG column after it, 1 with PIPE=1 only: that
 * kernel with its consumers taking turns (sdpa_bwd.hand's PINGPONG=1), and
 * an optional DETERMINISTIC column after that, 1 with PIPE=1 and
 * PINGPONG=0 only: dQ added in key-block order (sdpa_bwd.hand's
 * DETERMINISTIC=1).
 *
 * bind() mirrors the kernels' real resource use: the shared-memory layouts
 * (rows padded by 16 bytes, see LDS / LDQ in the kernels) and the fp32
 * accumulators each thread keeps live, which decide whether the kernel fits
 * the register file without heavy spilling. */
#include <stdio.h>

#include "gdt_attn_bwd_tma.h"
#include "gdt_attn_fwd_tma.h"
#include "gdt_rows.h"
#include "nvrtc/gdt_attention.h"

static const int64_t tile[] = {16, 32, 64, 128, 256};
static const int64_t tile_fwd_m[] = {16, 32, 64, 128, 192, 256}; /* 192: PIPE=1's three consumers */
static const int64_t tile_fwd_n[] = {16, 32, 64, 128, 176, 256}; /* 176: PIPE=1's with two consumers */
static const int64_t warps[] = {1, 2, 4, 8, 12, 16}; /* 12: PIPE=1's three warpgroups (16: four) */
static const int64_t stages[] = {1, 2, 3, 4};
static const int64_t mma[] = {0, 1, 2};
static const int64_t mma_bwd[] = {0, 1};
static const int64_t pipes[] = {GDT_ATTN_PIPE_CTA, GDT_ATTN_PIPE_TMA};
static const int64_t flags[] = {0, 1};
static const int64_t clusters[] = {GDT_ATTN_CLUSTER_1X1X1, GDT_ATTN_CLUSTER_2X1X1};

#define D(a) a, (int)(sizeof a / sizeof a[0])
enum { A_BM = GDT_ATTN_BM, A_BN = GDT_ATTN_BN, A_W = GDT_ATTN_WARPS, A_ST = GDT_ATTN_STAGES,
       A_MMA = GDT_ATTN_MMA, A_PIPE = GDT_ATTN_PIPE, A_PP = GDT_ATTN_PINGPONG, A_DET = GDT_ATTN_DET,
       A_CL = GDT_ATTN_CLUSTER, A_COUNT = GDT_ATTN_NCOLS };
static const gdt_column fwd_cols[A_CL + 1] = {
    {"BLOCK_M", GDT_COL_INT, D(tile_fwd_m), GDT_KNOB_TILE_M, "query rows per CTA (192: PIPE=1 only)",
     GDT_AXIS_SQ, false, 0},
    {"BLOCK_N", GDT_COL_INT, D(tile_fwd_n), GDT_KNOB_TILE_N, "key/value rows per inner step (176: PIPE=1 only)",
     GDT_AXIS_SKV, false, 0},
    {"WARPS", GDT_COL_INT, D(warps), GDT_KNOB_WARPS, "warps per CTA (split the query rows)", -1, false, 0},
    {"STAGES", GDT_COL_INT, D(stages), GDT_KNOB_STAGES, "K/V shared-memory stages", -1, false, 0},
    {"MMA", GDT_COL_ENUM, D(mma), GDT_KNOB_MMA,
     "0: ldmatrix + mma.sync, 1: wgmma (sm_90a), 2: wgmma with S of the next block beside P V", -1, false, 0},
    /* Optional: a row may end at MMA (PIPE=0), and PIPE=0 is not recorded
     * in the plan's name. */
    {"PIPE", GDT_COL_ENUM, D(pipes), GDT_KNOB_PIPE,
     "0: CTA-wide cp.async ring (attn_fwd.cuh), 1: TMA producer warp, mbarrier rings, two ping-pong "
     "consumer warpgroups, three with WARPS=16 at d64 (gdt_attn_fwd_sm90.cuh, sdpa_fwd.hand's kernel, "
     "sm_90a)", -1, true,
     GDT_ATTN_PIPE_CTA},
    /* Optional, after PIPE: absent 1x1x1, not recorded in the plan's name. */
    {"CLUSTER_SHAPE", GDT_COL_ENUM, D(clusters), GDT_KNOB_CLUSTER_SHAPE,
     "2: one CTA a query tile, 3 (2x1x1): two query tiles of one head in a cluster, each CTA "
     "loading half of every K and V block into both (TMA multicast); PIPE=1, 128-key blocks",
     -1, true, GDT_ATTN_CLUSTER_1X1X1},
};
static const gdt_column bwd_cols[A_COUNT] = {
    {"BLOCK_M", GDT_COL_INT, D(tile), GDT_KNOB_TILE_M, "query rows per inner step", GDT_AXIS_SQ, false, 0},
    {"BLOCK_N", GDT_COL_INT, D(tile), GDT_KNOB_TILE_N, "key/value rows per CTA", GDT_AXIS_SKV, false, 0},
    {"WARPS", GDT_COL_INT, D(warps), GDT_KNOB_WARPS, "warps per CTA (split the K/V rows)", -1, false, 0},
    {"STAGES", GDT_COL_INT, D(stages), GDT_KNOB_STAGES, "Q/dO shared-memory stages", -1, false, 0},
    {"MMA", GDT_COL_ENUM, D(mma_bwd), GDT_KNOB_MMA, "0: ldmatrix + mma.sync, 1: wgmma (sm_90a)", -1, false, 0},
    /* Optional, as the forward's. */
    {"PIPE", GDT_COL_ENUM, D(pipes), GDT_KNOB_PIPE,
     "0: CTA-wide cp.async ring (attn_bwd.cuh), 1: TMA producer thread, mbarrier Q/dO ring, two "
     "consumer warpgroups holding dK and dV, dQ by bulk reduce-adds, programmatic dependent launch "
     "(gdt_attn_bwd_sm90.cuh, sdpa_bwd.hand's kernels, sm_90a)", -1, true, GDT_ATTN_PIPE_CTA},
    /* Optional, after PIPE: a row may end at MMA or PIPE (PINGPONG=0,
     * not recorded in the plan's name). */
    {"PINGPONG", GDT_COL_BOOL, D(flags), GDT_KNOB_PINGPONG,
     "1: PIPE=1's two consumer warpgroups take turns at the tensor cores, half a block apart, one's "
     "P^T and dS^T under the other's GEMMs (sdpa_bwd.hand's PINGPONG=1); PIPE=1 only", -1, true, 0},
    /* Optional, after PINGPONG (DETERMINISTIC=0 not recorded in the name). */
    {"DETERMINISTIC", GDT_COL_BOOL, D(flags), GDT_KNOB_DETERMINISTIC,
     "1: PIPE=1's CTAs add dQ in key-block order behind a semaphore per query block, so dQ is the "
     "same bits every run, at some speed (sdpa_bwd.hand's DETERMINISTIC=1); PIPE=1 and PINGPONG=0 "
     "only", -1, true, 0},
};
#undef D

/* Per-thread fp32 values the kernels keep live; above this ptxas spills
 * enough to lose more than the row could win. */
#define MAX_LIVE_FP32 232
/* The wgmma forward (S, O and the P fragments live): ptxas uses 244
 * registers without spilling at 160 (d 128, BLOCK_N 128) and 248 at 176
 * (d 256, BLOCK_N 64), and spills from 192 (d 192, BLOCK_N 128).  With
 * MMA=2 (the next block's S beside P V) 176 spills, 160 takes 242. */
static const int max_live_wgmma[3] = {0, 176, 160};


static bool common(const int64_t *r, int64_t smem, const gdt_facts *f, const gdt_device_props *lim,
                   char *why, size_t n)
{
    int64_t threads = r[A_W] * 32, d = f->problem.u.sdpa.d;
    if (threads > lim->max_threads_per_block)
        return snprintf(why, n, "WARPS*32 = %lld threads exceeds %d on sm%d", (long long)threads,
                        lim->max_threads_per_block, lim->arch), false;
    if (d % 16 || d > 256)
        return snprintf(why, n, "head dim %lld: the templates need a multiple of 16 up to 256",
                        (long long)d), false;
    if (smem > lim->smem_per_block)
        return snprintf(why, n, "shared memory %lld bytes exceeds %lld on sm%d", (long long)smem,
                        (long long)lim->smem_per_block, lim->arch), false;
    return true;
}

/* Shrinks WARPS (a power of two) until `rows` splits into 16-row warp tiles:
 * a short problem caps the tile, and the row stays useful instead of dying. */
static void fit_warps(int64_t *r, int64_t rows)
{
    while (r[A_W] > 1 && rows % (16 * r[A_W])) r[A_W] /= 2;
}

/* Forward, mma.sync: per thread O and S accumulators (RM m16 tiles each)
 * plus Q fragments when the kernel keeps them (RM*d <= 128). */
static bool bind_fwd_mma_sync(const int64_t *r, int64_t d, char *why, size_t n)
{
    if (r[A_BM] % (16 * r[A_W]))
        return snprintf(why, n, "BLOCK_M %lld is not a multiple of 16*WARPS = %lld",
                        (long long)r[A_BM], (long long)(16 * r[A_W])), false;
    int64_t rm = r[A_BM] / (16 * r[A_W]);
    int64_t live = rm * (d / 2 + r[A_BN] / 2) + (rm * d <= 128 ? rm * d / 4 : 0);
    if (live > MAX_LIVE_FP32)
        return snprintf(why, n, "%lld live fp32 values per thread (O, S, Q fragments) exceed %d",
                        (long long)live, MAX_LIVE_FP32), false;
    return true;
}

/* Forward, wgmma: one warpgroup per 64 query rows, n64 chunks of S and O,
 * 128-byte swizzled tiles (d in 64-column blocks).  MMA=2 reads K of one
 * block and V of the one before in the same iteration: three stages. */
static bool bind_fwd_wgmma(const int64_t *r, int64_t d, const gdt_device_props *lim, char *why,
                           size_t n)
{
    int64_t live = d / 2 + r[A_BN] / 2 + r[A_BN] / 4, mma = r[A_MMA];
    if (lim->arch != 90)
        return snprintf(why, n, "MMA=%lld (wgmma) needs sm_90a, target is sm%d", (long long)mma,
                        lim->arch), false;
    if ((r[A_W] != 4 && r[A_W] != 8) || r[A_BM] != 16 * r[A_W])
        return snprintf(why, n, "MMA=%lld takes one or two warpgroups of 64 query rows (WARPS 4 or 8, "
                        "BLOCK_M = 16*WARPS), got BLOCK_M %lld, WARPS %lld", (long long)mma,
                        (long long)r[A_BM], (long long)r[A_W]), false;
    if (d % 64 || r[A_BN] % 64)
        return snprintf(why, n, "MMA=%lld takes head dim and BLOCK_N multiples of 64 (128-byte "
                        "swizzle rows), got d %lld, BLOCK_N %lld", (long long)mma, (long long)d,
                        (long long)r[A_BN]), false;
    if (r[A_ST] < mma + 1)
        return snprintf(why, n, "MMA=%lld: STAGES=%lld, the K/V ring needs at least %lld",
                        (long long)mma, (long long)r[A_ST], (long long)(mma + 1)), false;
    if (live > max_live_wgmma[mma])
        return snprintf(why, n, "MMA=%lld: %lld live values per thread (O, S, P) exceed %d",
                        (long long)mma, (long long)live, max_live_wgmma[mma]), false;
    return true;
}

/* PIPE=1 of either direction: a hand slot's kernel in its configuration
 * (and, where the slot has one, its wide configuration at one head dim:
 * wide_warps 0 for none; rings of stages .. max_stages, the slot's first;
 * and key blocks of bn or, with the slot's two consumers, wide_bn: bn for
 * none), on the problems its check_support takes. */
typedef struct tma_config {
    const char *slot;
    int64_t bm, bn, wide_bn, warps, stages, max_stages, mma;
    int64_t wide_bm, wide_warps, wide_d;
    bool (*supported)(const gdt_facts *f, char *why, size_t n);
} tma_config;

/* sdpa_fwd.hand's kernel (kernels/gdt_attn_fwd_sm90.cuh, engines/attn_fwd_tma.c):
 * two consumer warpgroups, or three of 192 query rows at d64 (its _m192
 * entries, ahead of two by 2-13% in the H200's d64 cells, 2026-12-07); K
 * and V rings of two stages (the hand engine's) or three (AF90_STAGES;
 * at d128 224 KB of shared memory, which the shared-memory rule checks);
 * key blocks of 128 (the hand engine's) or, with two consumers, 176
 * (AF90_BLOCK_N, FlashAttention-3's non-causal d128 block: S and P take
 * 132 registers beside O, more than three consumers' 160 hold). */
static const tma_config fwd_tma = {
    "sdpa_fwd.hand", GDT_ATTN_FWD_TMA_BLOCK_M, GDT_ATTN_FWD_TMA_BLOCK_N, GDT_ATTN_FWD_TMA_BLOCK_N_WIDE,
    GDT_ATTN_FWD_TMA_WARPS,
    GDT_ATTN_FWD_TMA_STAGES, GDT_ATTN_FWD_TMA_STAGES_MAX, GDT_ATTN_FWD_TMA_MMA, 64 * GDT_ATTN_FWD_TMA_WIDE,
    4 * (GDT_ATTN_FWD_TMA_WIDE + 1), 64, gdt__attn_fwd_tma_supported,
};
/* sdpa_bwd.hand's kernels (kernels/gdt_attn_bwd_sm90.cuh, engines/attn_bwd_tma.c). */
static const tma_config bwd_tma = {
    "sdpa_bwd.hand", GDT_ATTN_BWD_TMA_BLOCK_M, GDT_ATTN_BWD_TMA_BLOCK_N, GDT_ATTN_BWD_TMA_BLOCK_N,
    GDT_ATTN_BWD_TMA_WARPS,
    GDT_ATTN_BWD_TMA_STAGES, GDT_ATTN_BWD_TMA_STAGES, GDT_ATTN_BWD_TMA_MMA, 0, 0, 0, gdt__attn_bwd_tma_supported,
};

/* Its tiles are fixed whatever the problem (TMA zero-fills past s_q and
 * s_kv), so BLOCK_M and BLOCK_N are bound to them here, undoing the
 * projection's cap for short sequences; a row asking for wide_bn keeps it. */
static bool bind_tma(int64_t *r, const tma_config *k, const gdt_facts *f, const gdt_device_props *lim,
                     char *why, size_t n)
{
    char reason[512];
    if (lim->arch != 90)
        return snprintf(why, n, "PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a, target "
                        "is sm%d", lim->arch), false;
    bool wide = k->wide_warps > 0 && r[A_W] == k->wide_warps;
    char alt[160] = "";
    if (k->wide_warps > 0)
        snprintf(alt, sizeof alt, ", or BLOCK_M=%lld and WARPS=%lld at head dim %lld (three)",
                 (long long)k->wide_bm, (long long)k->wide_warps, (long long)k->wide_d);
    char stages[64];
    if (k->max_stages > k->stages)
        snprintf(stages, sizeof stages, "%lld to %lld", (long long)k->stages, (long long)k->max_stages);
    else
        snprintf(stages, sizeof stages, "%lld", (long long)k->stages);
    if (r[A_BN] == k->wide_bn && k->wide_bn != k->bn && wide)
        return snprintf(why, n, "PIPE=1 with BLOCK_N=%lld takes two consumer warpgroups (WARPS=%lld), "
                        "got WARPS=%lld", (long long)k->wide_bn, (long long)k->warps, (long long)r[A_W]),
               false;
    r[A_BM] = wide ? k->wide_bm : k->bm, r[A_BN] = r[A_BN] == k->wide_bn ? k->wide_bn : k->bn;
    if ((!wide && r[A_W] != k->warps) || r[A_ST] < k->stages || r[A_ST] > k->max_stages ||
        r[A_MMA] != k->mma)
        return snprintf(why, n, "PIPE=1 is %s's configuration: BLOCK_M=%lld, BLOCK_N=%lld, "
                        "WARPS=%lld (a producer and two consumer warpgroups)%s, STAGES=%s, MMA=%lld, "
                        "got WARPS=%lld, STAGES=%lld, MMA=%lld", k->slot, (long long)k->bm,
                        (long long)k->bn, (long long)k->warps, alt, stages,
                        (long long)k->mma, (long long)r[A_W], (long long)r[A_ST],
                        (long long)r[A_MMA]), false;
    if (wide && f->problem.u.sdpa.d != k->wide_d)
        return snprintf(why, n, "PIPE=1 with WARPS=%lld (three consumer warpgroups of 64 query rows) "
                        "takes head dim %lld, got %lld", (long long)k->wide_warps, (long long)k->wide_d,
                        (long long)f->problem.u.sdpa.d), false;
    if (!k->supported(f, reason, sizeof reason))
        return snprintf(why, n, "PIPE=1: %s", reason), false;
    return true;
}

/* PIPE=0 takes powers of two; 12 warps, 192-row tiles and 176-key blocks are PIPE=1's. */
static bool pipe0_warps(const int64_t *r, char *why, size_t n)
{
    if (r[A_W] == GDT_ATTN_FWD_TMA_WARPS || r[A_W] == GDT_ATTN_BWD_TMA_WARPS)
        return snprintf(why, n, "WARPS=%lld is PIPE=1's (a producer and two consumer warpgroups); "
                        "PIPE=0 takes a power of two", (long long)r[A_W]), false;
    if (r[A_BM] == 64 * GDT_ATTN_FWD_TMA_WIDE)
        return snprintf(why, n, "BLOCK_M=%lld is PIPE=1's (three consumer warpgroups of 64 query rows); "
                        "PIPE=0 takes a power of two", (long long)r[A_BM]), false;
    if (r[A_BN] == GDT_ATTN_FWD_TMA_BLOCK_N_WIDE)
        return snprintf(why, n, "BLOCK_N=%lld is PIPE=1's (key blocks of the two consumer warpgroups); "
                        "PIPE=0 takes a power of two", (long long)r[A_BN]), false;
    return true;
}

/* Backward, mma.sync: per thread dK, dV, S^T, dP^T and the dQ partial. */
static bool bind_bwd_mma_sync(const int64_t *r, int64_t d, char *why, size_t n)
{
    if (r[A_BN] % (16 * r[A_W]))
        return snprintf(why, n, "BLOCK_N %lld is not a multiple of 16*WARPS = %lld",
                        (long long)r[A_BN], (long long)(16 * r[A_W])), false;
    if ((d / 8) % r[A_W])
        return snprintf(why, n, "head dim %lld: d/8 = %lld columns of dQ do not split over %lld warps",
                        (long long)d, (long long)(d / 8), (long long)r[A_W]), false;
    int64_t rr = r[A_BN] / (16 * r[A_W]);
    /* dK, dV stay live; S^T and dP^T die before the dQ partial is born. */
    int64_t sp = rr * r[A_BM], dq = r[A_BM] * d / (32 * r[A_W]);
    int64_t live = rr * d + (sp > dq ? sp : dq);
    if (live > MAX_LIVE_FP32)
        return snprintf(why, n, "%lld live fp32 values per thread (dK, dV, S, dP, dQ) exceed %d",
                        (long long)live, MAX_LIVE_FP32), false;
    return true;
}

/* The wgmma backward: dK and dV (d/2 each per thread) and S^T, dP^T (32
 * each) live together; ptxas fits d=128 in 253 registers without spilling. */
#define MAX_LIVE_WGMMA_BWD 192

/* Backward, wgmma: one warpgroup per 64 K/V rows, 64-row query blocks,
 * 128-byte swizzled tiles (d in 64-column blocks). */
static bool bind_bwd_wgmma(const int64_t *r, int64_t d, const gdt_device_props *lim, char *why,
                           size_t n)
{
    int64_t live = d + 64;
    if (lim->arch != 90)
        return snprintf(why, n, "MMA=1 (wgmma) needs sm_90a, target is sm%d", lim->arch), false;
    if ((r[A_W] != 4 && r[A_W] != 8) || r[A_BN] != 16 * r[A_W] || r[A_BM] != 64)
        return snprintf(why, n, "MMA=1 takes one or two warpgroups of 64 K/V rows (WARPS 4 or 8, "
                        "BLOCK_N = 16*WARPS) and BLOCK_M 64, got BLOCK_M %lld, BLOCK_N %lld, WARPS %lld",
                        (long long)r[A_BM], (long long)r[A_BN], (long long)r[A_W]), false;
    if (d % 64)
        return snprintf(why, n, "MMA=1 takes a head dim multiple of 64 (128-byte swizzle rows), "
                        "got %lld", (long long)d), false;
    if (r[A_ST] < 2)
        return snprintf(why, n, "MMA=1: STAGES=%lld, the Q/dO ring needs at least 2",
                        (long long)r[A_ST]), false;
    if (live > MAX_LIVE_WGMMA_BWD)
        return snprintf(why, n, "MMA=1: %lld live fp32 values per thread (dK, dV, S^T, dP^T) exceed %d",
                        (long long)live, MAX_LIVE_WGMMA_BWD), false;
    return true;
}

/* What the directions' binds do differently: PIPE=1's configuration,
 * the rows WARPS split (the query rows forward, the K/V rows backward), the
 * PIPE=0 kernels' register rules (MMA 0: mma.sync, else wgmma; the
 * backward's MMA column stops at 1) and the shared memory
 * (gdt__attn_*_smem, beside the templates). */
typedef struct attn_dir {
    const tma_config *tma;
    int split;
    bool (*mma_sync)(const int64_t *r, int64_t d, char *why, size_t n);
    bool (*wgmma)(const int64_t *r, int64_t d, const gdt_device_props *lim, char *why, size_t n);
    int64_t (*smem)(const int64_t *row, int64_t d);
} attn_dir;

static const attn_dir fwd = {&fwd_tma, A_BM, bind_fwd_mma_sync, bind_fwd_wgmma, gdt__attn_fwd_smem};
static const attn_dir bwd = {&bwd_tma, A_BN, bind_bwd_mma_sync, bind_bwd_wgmma, gdt__attn_bwd_smem};

/* PIPE=0: the CTA-wide kernels of attn_fwd.cuh and attn_bwd.cuh. */
static bool bind_cta(const attn_dir *k, int64_t *r, int64_t d, const gdt_device_props *lim, char *why,
                     size_t n)
{
    if (!pipe0_warps(r, why, n))
        return false;
    fit_warps(r, r[k->split]);
    return r[A_MMA] >= 1 ? k->wgmma(r, d, lim, why, n) : k->mma_sync(r, d, why, n);
}

static bool bind(const attn_dir *k, int64_t *r, const gdt_facts *f, const gdt_device_props *lim,
                 char *why, size_t n)
{
    int64_t d = f->problem.u.sdpa.d;
    bool ok = r[A_PIPE] == GDT_ATTN_PIPE_TMA ? bind_tma(r, k->tma, f, lim, why, n)
                                             : bind_cta(k, r, d, lim, why, n);
    return ok && common(r, k->smem(r, d), f, lim, why, n);
}

/* A cluster of two query tiles: the PIPE=1 kernel (AF90_CLUSTER), whose
 * halves of a block are 64 keys of 128.  Any mask: under a causal one the
 * pair's lower tile skips the blocks only the upper one sees. */
static bool bind_fwd_cluster(const int64_t *r, char *why, size_t n)
{
    if (r[A_CL] != GDT_ATTN_CLUSTER_2X1X1)
        return true;
    if (r[A_PIPE] != GDT_ATTN_PIPE_TMA || r[A_BN] != GDT_ATTN_FWD_TMA_BLOCK_N)
        return snprintf(why, n, "CLUSTER_SHAPE=%d (two query tiles in a cluster) takes PIPE=1 and "
                        "BLOCK_N=%d, got PIPE=%lld, BLOCK_N=%lld", GDT_ATTN_CLUSTER_2X1X1,
                        GDT_ATTN_FWD_TMA_BLOCK_N, (long long)r[A_PIPE], (long long)r[A_BN]), false;
    return true;
}

static bool bind_fwd(int64_t *r, const gdt_facts *f, const gdt_device_props *lim, char *why, size_t n)
{
    return bind(&fwd, r, f, lim, why, n) && bind_fwd_cluster(r, why, n);
}

/* PINGPONG=1 and DETERMINISTIC=1 are variants of the PIPE=1 kernel alone,
 * and not of each other (sdpa_bwd.hand has no such configuration). */
static bool bind_bwd(int64_t *r, const gdt_facts *f, const gdt_device_props *lim, char *why, size_t n)
{
    if (r[A_PP] && r[A_PIPE] != GDT_ATTN_PIPE_TMA)
        return snprintf(why, n, "PINGPONG=1 takes PIPE=1 (the consumer warpgroups of sdpa_bwd.hand's "
                        "kernel), got PIPE=%lld", (long long)r[A_PIPE]), false;
    if (r[A_DET] && (r[A_PIPE] != GDT_ATTN_PIPE_TMA || r[A_PP]))
        return snprintf(why, n, "DETERMINISTIC=1 takes PIPE=1 and PINGPONG=0 (sdpa_bwd.hand's in-phase "
                        "kernel), got PIPE=%lld, PINGPONG=%lld", (long long)r[A_PIPE], (long long)r[A_PP]),
               false;
    return bind(&bwd, r, f, lim, why, n);
}

const gdt_row_family gdt__rows_attention_fwd = {"attention_fwd", fwd_cols, A_CL + 1, bind_fwd};
const gdt_row_family gdt__rows_attention_bwd = {"attention_bwd", bwd_cols, A_COUNT, bind_bwd};
