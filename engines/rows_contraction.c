/* The `contraction` structural family: complete rows for the GEMM template
 * (kernels/gemm.cuh).  Columns, domains and the knobs they bind are declared
 * here once; bind() applies the complete-row rules of the kernel's real
 * resource use, so that a row it accepts compiles, loads and runs. */
#include <limits.h>
#include <stdio.h>

#include "gdt_rows.h"
#include "nvrtc/gdt_gemm.h"

static const int64_t tile_mn[] = {16, 32, 64, 128, 256};
static const int64_t tile_n[] = {16, 32, 64, 128, 192, 256}; /* 192: PIPE=1's wgmma n192 */
static const int64_t tile_k[] = {16, 32, 64, 128};
static const int64_t warps[] = {1, 2, 4, 8};
static const int64_t stages[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const int64_t group[] = {1, 2, 4, 8, 16, 32};
static const int64_t boolean[] = {0, 1};
static const int64_t pipes[] = {GDT_GEMM_PIPE_CTA, GDT_GEMM_PIPE_TMA};
static const int64_t splits[] = {1, 2, 4, 8};
static const int64_t clusters[] = {GDT_GEMM_CLUSTER_1X1X1, GDT_GEMM_CLUSTER_1X2X1};
static const int64_t reductions[] = {GDT_GEMM_REDUCE_WORKSPACE, GDT_GEMM_REDUCE_DSMEM,
                                     GDT_GEMM_REDUCE_STREAMK};
static const int64_t swaps[] = {GDT_GEMM_SWAP_NONE, GDT_GEMM_SWAP_AB_ON};
static const int64_t consumer_forms[] = {GDT_GEMM_COOPERATIVE, GDT_GEMM_PINGPONG_ON};
static const int64_t rasters[] = {GDT_GEMM_RASTER_M, GDT_GEMM_RASTER_N};
static const int64_t epilogues[] = {GDT_GEMM_EPILOGUE_TMA, GDT_GEMM_EPILOGUE_REGS};

#define D(a) a, (int)(sizeof a / sizeof a[0])
static const gdt_column cols[GDT_GEMM_NCOLS] = {
    {"BM", GDT_COL_INT, D(tile_mn), GDT_KNOB_TILE_M, "CTA tile rows (M)", GDT_AXIS_M, false, 0},
    {"BN", GDT_COL_INT, D(tile_n), GDT_KNOB_TILE_N, "CTA tile columns (N)", GDT_AXIS_N, false, 0},
    {"BK", GDT_COL_INT, D(tile_k), GDT_KNOB_TILEK, "reduction chunk per stage (K)", GDT_AXIS_K, false, 0},
    {"WARPS_M", GDT_COL_INT, D(warps), GDT_KNOB_WARPS_M, "warps along M (MMA=1: 4 per warpgroup)", -1, false, 0},
    {"WARPS_N", GDT_COL_INT, D(warps), GDT_KNOB_WARPS_N, "warps along N (MMA=1: 1)", -1, false, 0},
    {"STAGES", GDT_COL_INT, D(stages), GDT_KNOB_STAGES, "shared-memory pipeline stages", -1, false, 0},
    {"GROUP_M", GDT_COL_INT, D(group), GDT_KNOB_GROUP_M, "tile-order group (CTA rows per swizzle band)", -1, false, 0},
    {"MMA", GDT_COL_BOOL, D(boolean), GDT_KNOB_MMA, "0: ldmatrix + mma.sync, 1: wgmma (sm_90a)", -1, false, 0},
    /* Optional: a row may end at MMA (PIPE=0, no split, no cluster), and
     * those values are not recorded in the plan's name. */
    {"PIPE", GDT_COL_ENUM, D(pipes), GDT_KNOB_PIPE,
     "0: CTA-wide cp.async pipeline (gemm.cuh), 1: TMA producer warp, mbarrier ring, two consumer "
     "warpgroups, persistent (gdt_gemm_sm90.cuh, sm_90a)", -1, true, GDT_GEMM_PIPE_CTA},
    {"SPLIT_K", GDT_COL_INT, D(splits), GDT_KNOB_SPLIT_K, "PIPE=1: ranges of K per tile", -1, true, 1},
    {"CLUSTER_SHAPE", GDT_COL_ENUM, D(clusters), GDT_KNOB_CLUSTER_SHAPE,
     "PIPE=1: 2 (1x1x1) one CTA, 5 (1x2x1) two CTAs along N sharing A by multicast", -1, true,
     GDT_GEMM_CLUSTER_1X1X1},
    {"REDUCTION_MODE", GDT_COL_ENUM, D(reductions), GDT_KNOB_REDUCTION_MODE,
     "PIPE=1 split-K: 0 through the workspace, 1 two splits of a tile as a cluster summed in "
     "distributed shared memory, 2 stream-K (whole tiles, then equal runs of K tiles a CTA, a "
     "tile cut across CTAs summed through the workspace)", -1, true, GDT_GEMM_REDUCE_WORKSPACE},
    {"SWAP_AB", GDT_COL_BOOL, D(swaps), GDT_KNOB_SWAP_AB,
     "PIPE=1: 1 swap-AB for decode-sized M, C^T = B^T . A^T: BM rows of M (16, 32 or 64) on the "
     "wgmma's N side, WARPS_N / 4 consumer warpgroups of 64 rows of N (BN) on its M side", -1, true,
     GDT_GEMM_SWAP_NONE},
    {"PINGPONG", GDT_COL_BOOL, D(consumer_forms), GDT_KNOB_PINGPONG,
     "PIPE=1: 0 cooperative consumers (both warpgroups on one 128 x BN tile, 64 rows each, both "
     "then storing it), 1 ping-pong (each warpgroup owns whole 128 x BN tiles, the CTA's even "
     "and odd ones, the two taking turns at the tensor cores so that one's epilogue runs under "
     "the other's wgmmas)", -1, true, GDT_GEMM_COOPERATIVE},
    {"RASTER", GDT_COL_ENUM, D(rasters), GDT_KNOB_RASTER,
     "PIPE=1: the persistent grid's tile walk, 0 bands of GROUP_M tile rows walked column by "
     "column (B reused from L2), 1 bands of GROUP_M tile columns walked row by row (A reused)",
     -1, true, GDT_GEMM_RASTER_M},
    {"EPILOGUE", GDT_COL_ENUM, D(epilogues), GDT_KNOB_EPILOGUE,
     "PIPE=1: 0 C through swizzled shared memory and a TMA store, 1 straight from the "
     "accumulator registers to global memory in 16-byte pieces (no swap-AB)",
     -1, true, GDT_GEMM_EPILOGUE_TMA},
};
#undef D

#define REJECT(...) return snprintf(why, n, __VA_ARGS__), false
#define LL(x) ((long long)(x))

/* Beyond 128 fp32 accumulators per thread the kernel spills to local memory
 * (ptxas reports 224-240 registers at 128). */
#define MAX_ACC_PER_THREAD 128

/* mma.sync: each warp owns a (BM/WARPS_M) x (BN/WARPS_N) tile of m16n8k16
 * steps, B fragments loaded two n8 columns at a time. */
static bool bind_mma_sync(const int64_t *r, char *why, size_t n)
{
    int64_t wm = r[GDT_GEMM_BM] / r[GDT_GEMM_WARPS_M], wn = r[GDT_GEMM_BN] / r[GDT_GEMM_WARPS_N];
    if (r[GDT_GEMM_BM] % (16 * r[GDT_GEMM_WARPS_M]) || r[GDT_GEMM_BN] % (16 * r[GDT_GEMM_WARPS_N]))
        REJECT("warp tile %lldx%lld (BM/WARPS_M x BN/WARPS_N) is not a multiple of 16x16", LL(wm),
               LL(wn));
    if (r[GDT_GEMM_STAGES] < 2)
        REJECT("STAGES=%lld: the cp.async pipeline needs at least 2 stages", LL(r[GDT_GEMM_STAGES]));
    if (wm * wn / 32 > MAX_ACC_PER_THREAD)
        REJECT("%lld fp32 accumulators per thread exceed %d (the kernel would spill)",
               LL(wm * wn / 32), MAX_ACC_PER_THREAD);
    return true;
}

/* wgmma: 128-thread warpgroups stacked along M, each issuing m64nBNk16 over
 * BK=64 slabs in 128-byte-swizzled shared memory, loads STAGES-2 ahead. */
static bool bind_wgmma(const int64_t *r, const gdt_facts *f, const gdt_device_props *lim,
                       char *why, size_t n)
{
    int64_t bm = r[GDT_GEMM_BM], bn = r[GDT_GEMM_BN], nwg = r[GDT_GEMM_WARPS_M] / 4;
    gdt_gemm_layout l;
    gdt__gemm_layout(f, &l);
    if (lim->arch != 90)
        REJECT("MMA=1 (wgmma) needs sm_90a, target is sm%d", lim->arch);
    if (r[GDT_GEMM_WARPS_N] != 1 || (r[GDT_GEMM_WARPS_M] != 4 && r[GDT_GEMM_WARPS_M] != 8))
        REJECT("MMA=1 takes WARPS_M 4 or 8 (one or two warpgroups) and WARPS_N 1, got %lldx%lld",
               LL(r[GDT_GEMM_WARPS_M]), LL(r[GDT_GEMM_WARPS_N]));
    if (r[GDT_GEMM_BK] != 64)
        REJECT("MMA=1 takes BK=64 (one 128-byte swizzle row), got BK=%lld", LL(r[GDT_GEMM_BK]));
    if (bn != 64 && bn != 128 && bn != 256)
        REJECT("MMA=1 takes BN 64, 128 or 256 (the wgmma N), got BN=%lld", LL(bn));
    if (bm % (64 * nwg))
        REJECT("MMA=1: BM=%lld is not a multiple of 64 rows per warpgroup x %lld warpgroups",
               LL(bm), LL(nwg));
    if (bm / nwg * bn / 128 > MAX_ACC_PER_THREAD)
        REJECT("MMA=1: %lld fp32 accumulators per thread exceed %d", LL(bm / nwg * bn / 128),
               MAX_ACC_PER_THREAD);
    if (r[GDT_GEMM_STAGES] < 3)
        REJECT("MMA=1: STAGES=%lld, the wgmma pipeline needs at least 3", LL(r[GDT_GEMM_STAGES]));
    if (!l.a_vec || !l.b_vec)
        REJECT("MMA=1 needs 16-byte aligned rows along the unit-stride axis of A and B "
               "(extent and strides multiples of 8 elements); operand %s is not", l.a_vec ? "B" : "A");
    return true;
}

/* PIPE=1's split and cluster columns, as the kernel's entries take them. */
static bool bind_tma_split(const int64_t *r, char *why, size_t n)
{
    int64_t split = r[GDT_GEMM_SPLIT_K], cl = r[GDT_GEMM_CLUSTER_SHAPE], bn = r[GDT_GEMM_BN];
    if (r[GDT_GEMM_REDUCTION_MODE] == GDT_GEMM_REDUCE_DSMEM &&
        (split != 2 || bn != 64 || cl != GDT_GEMM_CLUSTER_1X1X1))
        REJECT("PIPE=1: REDUCTION_MODE=1 (the two splits of a tile a cluster summing in distributed "
               "shared memory) takes SPLIT_K=2, BN=64 (the 64 x BN fp32 message fits a consumer's "
               "output blocks) and CLUSTER_SHAPE=2, got SPLIT_K=%lld, BN=%lld, CLUSTER_SHAPE=%lld",
               LL(split), LL(bn), LL(cl));
    if (r[GDT_GEMM_REDUCTION_MODE] == GDT_GEMM_REDUCE_STREAMK &&
        (split != 1 || bn == 256 || cl != GDT_GEMM_CLUSTER_1X1X1))
        REJECT("PIPE=1: REDUCTION_MODE=2 (stream-K, the schedule cuts K itself) takes SPLIT_K=1, "
               "BN 64, 128 or 192 (a cut tile's epilogue is split-K's, which spills at 256) and "
               "CLUSTER_SHAPE=2, got SPLIT_K=%lld, BN=%lld, CLUSTER_SHAPE=%lld", LL(split), LL(bn),
               LL(cl));
    if (cl == GDT_GEMM_CLUSTER_1X2X1 && split != 1)
        REJECT("PIPE=1: CLUSTER_SHAPE=5 (two CTAs along N) with SPLIT_K=%lld: a cluster is along N "
               "or along K, never both", LL(split));
    if (split > 1 && bn == 256)
        REJECT("PIPE=1: SPLIT_K=%lld with BN=256: the split-K epilogue of a 128 x 256 tile spills "
               "(engines/hand/README.md)", LL(split));
    return true;
}

/* Swap-AB's tile: BM rows of M are the wgmma's N (16, 32 or 64: a
 * consumer stores its 64 x BM accumulator as one output block), one or two
 * consumer warpgroups stacked along N (WARPS_N 4 or 8, WARPS_M 1), 64 rows
 * of N each (BN = 16 WARPS_N); no cluster and no pair of splits (both
 * pair two consumers of 64 rows of M).  BM is the projection's, capped by
 * M: the tile follows a decode-sized M down to 16. */
static bool bind_swab(const int64_t *r, char *why, size_t n)
{
    int64_t bm = r[GDT_GEMM_BM], bn = r[GDT_GEMM_BN], wn = r[GDT_GEMM_WARPS_N];
    if (r[GDT_GEMM_MMA] != 1 || r[GDT_GEMM_WARPS_M] != 1 || (wn != 4 && wn != 8))
        REJECT("PIPE=1 SWAP_AB=1 takes MMA=1, WARPS_M=1 and WARPS_N 4 or 8 (one or two consumer "
               "warpgroups stacked along N), got MMA=%lld, WARPS %lldx%lld", LL(r[GDT_GEMM_MMA]),
               LL(r[GDT_GEMM_WARPS_M]), LL(wn));
    if (bn != 16 * wn)
        REJECT("PIPE=1 SWAP_AB=1: BN=%lld, expected 64 rows of N a consumer warpgroup (BN = 16 x "
               "WARPS_N = %lld)", LL(bn), LL(16 * wn));
    if (bm != 16 && bm != 32 && bm != 64)
        REJECT("PIPE=1 SWAP_AB=1 takes BM 16, 32 or 64 (the wgmma N, one output block), got "
               "BM=%lld", LL(bm));
    if (r[GDT_GEMM_CLUSTER_SHAPE] != GDT_GEMM_CLUSTER_1X1X1 ||
        r[GDT_GEMM_REDUCTION_MODE] != GDT_GEMM_REDUCE_WORKSPACE)
        REJECT("PIPE=1 SWAP_AB=1 has no cluster: CLUSTER_SHAPE=2 and REDUCTION_MODE=0, got %lld, "
               "%lld", LL(r[GDT_GEMM_CLUSTER_SHAPE]), LL(r[GDT_GEMM_REDUCTION_MODE]));
    if (r[GDT_GEMM_EPILOGUE] != GDT_GEMM_EPILOGUE_TMA)
        REJECT("PIPE=1 SWAP_AB=1 stores C^T's tile transposed through shared memory: EPILOGUE=0, "
               "got %lld", LL(r[GDT_GEMM_EPILOGUE]));
    return true;
}

/* PINGPONG=1: each consumer holds a whole 128 x BN accumulator (BN fp32
 * a thread), so BN 64 or 128 within its 232 registers; unsplit, no
 * cluster, no swap-AB (the kernel's PP form). */
static bool bind_pingpong(const int64_t *r, char *why, size_t n)
{
    int64_t bn = r[GDT_GEMM_BN];
    if (r[GDT_GEMM_SWAP_AB] != GDT_GEMM_SWAP_NONE)
        REJECT("PIPE=1 PINGPONG=1 has no swap-AB (each consumer owns whole 128-row tiles of M): "
               "SWAP_AB=0, got %lld", LL(r[GDT_GEMM_SWAP_AB]));
    if (bn != 64 && bn != 128)
        REJECT("PIPE=1 PINGPONG=1 takes BN 64 or 128 (a consumer's 128 x BN accumulator, BN fp32 "
               "registers a thread, within 232), got BN=%lld", LL(bn));
    if (r[GDT_GEMM_SPLIT_K] != 1 || r[GDT_GEMM_CLUSTER_SHAPE] != GDT_GEMM_CLUSTER_1X1X1 ||
        r[GDT_GEMM_REDUCTION_MODE] != GDT_GEMM_REDUCE_WORKSPACE)
        REJECT("PIPE=1 PINGPONG=1 has no split-K, stream-K or cluster: SPLIT_K=1, CLUSTER_SHAPE=2 "
               "and REDUCTION_MODE=0, got %lld, %lld, %lld", LL(r[GDT_GEMM_SPLIT_K]),
               LL(r[GDT_GEMM_CLUSTER_SHAPE]), LL(r[GDT_GEMM_REDUCTION_MODE]));
    return true;
}

/* One consumer warpgroup (WARPS_M=4, 64 x BN tiles, 256 threads, no
 * setmaxnreg): no cluster (each CTA of one multicasts half of two
 * consumers' rows), no DSMEM pair of splits, no ping-pong (two consumers
 * taking turns). */
static bool bind_one_consumer(const int64_t *r, char *why, size_t n)
{
    if (r[GDT_GEMM_CLUSTER_SHAPE] != GDT_GEMM_CLUSTER_1X1X1 ||
        r[GDT_GEMM_REDUCTION_MODE] == GDT_GEMM_REDUCE_DSMEM || r[GDT_GEMM_PINGPONG] != GDT_GEMM_COOPERATIVE)
        REJECT("PIPE=1 WARPS_M=4 (one consumer warpgroup, 64-row tiles) has no cluster, no pair of "
               "splits in a cluster and no ping-pong: CLUSTER_SHAPE=2, REDUCTION_MODE 0 or 2, "
               "PINGPONG=0, got %lld, %lld, %lld", LL(r[GDT_GEMM_CLUSTER_SHAPE]),
               LL(r[GDT_GEMM_REDUCTION_MODE]), LL(r[GDT_GEMM_PINGPONG]));
    return true;
}

/* The non-swapped tile: one or two consumer warpgroups of 64 rows of M. */
static bool bind_tma_tile(int64_t *r, char *why, size_t n)
{
    int64_t bn = r[GDT_GEMM_BN], wm = r[GDT_GEMM_WARPS_M];
    if (r[GDT_GEMM_MMA] != 1 || (wm != 4 && wm != 8) || r[GDT_GEMM_WARPS_N] != 1)
        REJECT("PIPE=1 takes MMA=1, WARPS_M 4 or 8 and WARPS_N=1 (one or two consumer warpgroups "
               "of wgmma beside the producer warpgroup: 256 or 384 threads), got MMA=%lld, WARPS "
               "%lldx%lld", LL(r[GDT_GEMM_MMA]), LL(wm), LL(r[GDT_GEMM_WARPS_N]));
    r[GDT_GEMM_BM] = 16 * wm; /* 64 rows a consumer warpgroup (4 warps) */
    if (bn != 64 && bn != 128 && bn != 192 && bn != 256)
        REJECT("PIPE=1 takes BN 64, 128, 192 or 256 (the wgmma N, in 64-column output blocks), "
               "got BN=%lld", LL(bn));
    if (wm == 4 && !bind_one_consumer(r, why, n))
        return false;
    return bind_tma_split(r, why, n);
}

/* The TMA pipeline (kernels/gdt_gemm_sm90.cuh): 128 x BN x 64 tiles, a
 * producer warpgroup and two consumer warpgroups of wgmma (384 threads),
 * sm_90a.  Its tile is 128 x 64 along M and K whatever the problem (TMA
 * zero-fills past M and K), so BM and BK are bound to 128 and 64 here,
 * undoing the projection's cap for small M or K.  The operands must be
 * what TMA describes (engines/gemm_tma.c). */
static bool bind_tma(int64_t *r, const gdt_facts *f, const gdt_device_props *lim, char *why,
                     size_t n)
{
    const gdt_gemm_desc *g = &f->problem.u.gemm;
    gdt_gemm_tma_config c;
    gdt_gemm_tma_map geo[3];
    char reason[200];
    if (lim->arch != 90)
        REJECT("PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a, target is sm%d", lim->arch);
    r[GDT_GEMM_BK] = GDT_GEMM_TMA_TILE_K;
    if (r[GDT_GEMM_PINGPONG] == GDT_GEMM_PINGPONG_ON && !bind_pingpong(r, why, n))
        return false;
    if (r[GDT_GEMM_SWAP_AB] == GDT_GEMM_SWAP_AB_ON ? !bind_swab(r, why, n)
                                                   : !bind_tma_tile(r, why, n))
        return false;
    if (r[GDT_GEMM_STAGES] < 2)
        REJECT("PIPE=1: STAGES=%lld, the ring frees a stage one K tile late and needs at least 2",
               LL(r[GDT_GEMM_STAGES]));
    gdt__gemm_tma_config_of(r, &c);
    if (!gdt__gemm_tma_sizes_ok(g, &c, reason, sizeof reason) ||
        !gdt__gemm_tma_layout(g, &c, geo, reason, sizeof reason))
        REJECT("PIPE=1: %s", reason);
    return true;
}

/* PIPE=0 rows leave the TMA pipeline's columns at their absent values. */
static bool bind_cta(const int64_t *r, char *why, size_t n)
{
    if (r[GDT_GEMM_SPLIT_K] != 1 || r[GDT_GEMM_CLUSTER_SHAPE] != GDT_GEMM_CLUSTER_1X1X1 ||
        r[GDT_GEMM_REDUCTION_MODE] != GDT_GEMM_REDUCE_WORKSPACE)
        REJECT("PIPE=0 has no split-K or cluster: SPLIT_K, CLUSTER_SHAPE and REDUCTION_MODE are "
               "PIPE=1's (PIPE=0 takes 1, 2, 0), got %lld, %lld, %lld", LL(r[GDT_GEMM_SPLIT_K]),
               LL(r[GDT_GEMM_CLUSTER_SHAPE]), LL(r[GDT_GEMM_REDUCTION_MODE]));
    if (r[GDT_GEMM_SWAP_AB] != GDT_GEMM_SWAP_NONE)
        REJECT("PIPE=0 has no swap-AB: SWAP_AB is PIPE=1's (PIPE=0 takes 0), got %lld",
               LL(r[GDT_GEMM_SWAP_AB]));
    if (r[GDT_GEMM_PINGPONG] != GDT_GEMM_COOPERATIVE)
        REJECT("PIPE=0 has no consumer warpgroups to ping-pong: PINGPONG is PIPE=1's (PIPE=0 "
               "takes 0), got %lld", LL(r[GDT_GEMM_PINGPONG]));
    if (r[GDT_GEMM_RASTER] != GDT_GEMM_RASTER_M)
        REJECT("PIPE=0 launches a CTA a tile in bands of tile rows: RASTER is PIPE=1's persistent "
               "walk (PIPE=0 takes 0), got %lld", LL(r[GDT_GEMM_RASTER]));
    if (r[GDT_GEMM_EPILOGUE] != GDT_GEMM_EPILOGUE_TMA)
        REJECT("PIPE=0 stores C from registers already: EPILOGUE is PIPE=1's (PIPE=0 takes 0), "
               "got %lld", LL(r[GDT_GEMM_EPILOGUE]));
    return true;
}

static bool bind_kind(int64_t *r, const gdt_facts *f, const gdt_device_props *lim, char *why,
                      size_t n)
{
    if (r[GDT_GEMM_PIPE] == GDT_GEMM_PIPE_TMA)
        return bind_tma(r, f, lim, why, n);
    if (!bind_cta(r, why, n))
        return false;
    return r[GDT_GEMM_MMA] == 1 ? bind_wgmma(r, f, lim, why, n) : bind_mma_sync(r, why, n);
}

static bool bind(int64_t *r, const gdt_facts *f, const gdt_device_props *lim, char *why, size_t n)
{
    const gdt_gemm_desc *g = &f->problem.u.gemm;
    int64_t threads = gdt__gemm_threads(r), smem;
    int64_t tiles = ((g->m + r[GDT_GEMM_BM] - 1) / r[GDT_GEMM_BM]) *
                    ((g->n + r[GDT_GEMM_BN] - 1) / r[GDT_GEMM_BN]);
    if (f->dtype != GDT_DTYPE_BF16 && f->dtype != GDT_DTYPE_FP16)
        REJECT("dtype %s: the GEMM template takes bf16 or fp16", gdt_dtype_name(f->dtype));
    if (threads > lim->max_threads_per_block)
        REJECT("WARPS_M*WARPS_N*32 = %lld threads exceeds %d on sm%d", LL(threads),
               lim->max_threads_per_block, lim->arch);
    if (g->batch > 65535 || tiles > INT_MAX || g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX)
        REJECT("grid of %lld tiles x batch %lld (or an extent above 2^31) exceeds the launch limits",
               LL(tiles), LL(g->batch));
    if (!bind_kind(r, f, lim, why, n))
        return false;
    smem = gdt__gemm_smem_bytes(r, f); /* after bind_kind, which binds PIPE=1's BM and BK */
    if (smem > lim->smem_per_block)
        REJECT("shared memory %lld bytes exceeds %lld on sm%d", LL(smem),
               LL(lim->smem_per_block), lim->arch);
    return true;
}

const gdt_row_family gdt__rows_contraction = {"contraction", cols, GDT_GEMM_NCOLS, bind};
