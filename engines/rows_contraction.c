/* The `contraction` structural family: complete rows for the GEMM template
 * (kernels/gemm.cuh).  Columns, domains and the knobs they bind are declared
 * here once; bind() applies the complete-row rules of the kernel's real
 * resource use, so that a row it accepts compiles, loads and runs. */
#include <limits.h>
#include <stdio.h>

#include "gdt_rows.h"
#include "nvrtc/gdt_gemm.h"

static const int64_t tile_mn[] = {16, 32, 64, 128, 256};
static const int64_t tile_k[] = {16, 32, 64, 128};
static const int64_t warps[] = {1, 2, 4, 8};
static const int64_t stages[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const int64_t group[] = {1, 2, 4, 8, 16, 32};
static const int64_t boolean[] = {0, 1};

#define D(a) a, (int)(sizeof a / sizeof a[0])
static const gdt_column cols[GDT_GEMM_NCOLS] = {
    {"BM", GDT_COL_INT, D(tile_mn), GDT_KNOB_TILE_M, "CTA tile rows (M)", GDT_AXIS_M},
    {"BN", GDT_COL_INT, D(tile_mn), GDT_KNOB_TILE_N, "CTA tile columns (N)", GDT_AXIS_N},
    {"BK", GDT_COL_INT, D(tile_k), GDT_KNOB_TILEK, "reduction chunk per stage (K)", GDT_AXIS_K},
    {"WARPS_M", GDT_COL_INT, D(warps), GDT_KNOB_WARPS_M, "warps along M (MMA=1: 4 per warpgroup)", -1},
    {"WARPS_N", GDT_COL_INT, D(warps), GDT_KNOB_WARPS_N, "warps along N (MMA=1: 1)", -1},
    {"STAGES", GDT_COL_INT, D(stages), GDT_KNOB_STAGES, "shared-memory pipeline stages", -1},
    {"GROUP_M", GDT_COL_INT, D(group), GDT_KNOB_GROUP_M, "tile-order group (CTA rows per swizzle band)", -1},
    {"MMA", GDT_COL_BOOL, D(boolean), GDT_KNOB_MMA, "0: ldmatrix + mma.sync, 1: wgmma (sm_90a)", -1},
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

static bool bind(int64_t *r, const gdt_facts *f, const gdt_device_props *lim, char *why, size_t n)
{
    const gdt_gemm_desc *g = &f->problem.u.gemm;
    int64_t threads = gdt__gemm_threads(r), smem = gdt__gemm_smem_bytes(r, f);
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
    if (!(r[GDT_GEMM_MMA] == 1 ? bind_wgmma(r, f, lim, why, n) : bind_mma_sync(r, why, n)))
        return false;
    if (smem > lim->smem_per_block)
        REJECT("shared memory %lld bytes exceeds %lld on sm%d", LL(smem),
               LL(lim->smem_per_block), lim->arch);
    return true;
}

const gdt_row_family gdt__rows_contraction = {"contraction", cols, GDT_GEMM_NCOLS, bind};
