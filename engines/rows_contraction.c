/* The `contraction` structural family: complete rows for the GEMM template
 * (kernels/gemm.cuh).  Columns, domains and the knobs they bind are declared
 * here once; bind() applies the complete-row resource rules. */
#include <stdio.h>

#include "gdt_rows.h"

static const int64_t tile_mn[] = {16, 32, 64, 128, 256};
static const int64_t tile_k[] = {16, 32, 64, 128};
static const int64_t warps[] = {1, 2, 4, 8};
static const int64_t stages[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const int64_t group[] = {1, 2, 4, 8, 16, 32};
static const int64_t boolean[] = {0, 1};

#define D(a) a, (int)(sizeof a / sizeof a[0])
enum { C_BM, C_BN, C_BK, C_WM, C_WN, C_ST, C_GM, C_MMA, C_COUNT };
static const gdt_column cols[C_COUNT] = {
    {"BM", GDT_COL_INT, D(tile_mn), GDT_KNOB_TILE_M, "CTA tile rows (M)", GDT_AXIS_M},
    {"BN", GDT_COL_INT, D(tile_mn), GDT_KNOB_TILE_N, "CTA tile columns (N)", GDT_AXIS_N},
    {"BK", GDT_COL_INT, D(tile_k), GDT_KNOB_TILEK, "reduction chunk per stage (K)", GDT_AXIS_K},
    {"WARPS_M", GDT_COL_INT, D(warps), GDT_KNOB_WARPS_M, "warps along M", -1},
    {"WARPS_N", GDT_COL_INT, D(warps), GDT_KNOB_WARPS_N, "warps along N", -1},
    {"STAGES", GDT_COL_INT, D(stages), GDT_KNOB_STAGES, "shared-memory pipeline stages", -1},
    {"GROUP_M", GDT_COL_INT, D(group), GDT_KNOB_GROUP_M, "tile-order group (CTA rows per swizzle band)", -1},
    {"MMA", GDT_COL_BOOL, D(boolean), GDT_KNOB_MMA, "0: ldmatrix + mma.sync, 1: wgmma (sm_90a)", -1},
};
#undef D

static bool bind(int64_t *r, const gdt_facts *f, const gdt_device_props *lim, char *why, size_t n)
{
    int64_t threads = r[C_WM] * r[C_WN] * 32;
    int64_t elem = (int64_t)gdt_dtype_size(f->dtype);
    int64_t smem = r[C_ST] * (r[C_BM] * r[C_BK] + r[C_BK] * r[C_BN]) * elem;
    if (threads > lim->max_threads_per_block)
        return snprintf(why, n, "WARPS_M*WARPS_N*32 = %lld threads exceeds %d on sm%d",
                        (long long)threads, lim->max_threads_per_block, lim->arch), false;
    if (r[C_BM] % (16 * r[C_WM]) || r[C_BN] % (16 * r[C_WN]))
        return snprintf(why, n, "warp tile %lldx%lld is not a multiple of 16x16",
                        (long long)(r[C_BM] / r[C_WM]), (long long)(r[C_BN] / r[C_WN])), false;
    if (smem > lim->smem_per_block)
        return snprintf(why, n, "shared memory %lld bytes exceeds %lld on sm%d", (long long)smem,
                        (long long)lim->smem_per_block, lim->arch), false;
    if (r[C_BM] * r[C_BN] / threads > 256)
        return snprintf(why, n, "%lld fp32 accumulators per thread exceed the register file",
                        (long long)(r[C_BM] * r[C_BN] / threads)), false;
    if (r[C_MMA] == 1 && lim->arch != 90)
        return snprintf(why, n, "MMA=1 (wgmma) needs sm_90a, target is sm%d", lim->arch), false;
    return true;
}

const gdt_row_family gdt__rows_contraction = {"contraction", cols, C_COUNT, bind};
