/* The `attention_fwd` and `attention_bwd` structural families: complete rows
 * for the flash-attention templates (kernels/attn_fwd.cuh, attn_bwd.cuh).
 * The head dimension is fixed by the problem and never a column. */
#include <stdio.h>

#include "gdt_rows.h"

static const int64_t tile[] = {16, 32, 64, 128, 256};
static const int64_t warps[] = {1, 2, 4, 8, 16};
static const int64_t stages[] = {1, 2, 3, 4};

#define D(a) a, (int)(sizeof a / sizeof a[0])
enum { A_BM, A_BN, A_W, A_ST, A_COUNT };
static const gdt_column fwd_cols[A_COUNT] = {
    {"BLOCK_M", GDT_COL_INT, D(tile), GDT_KNOB_TILE_M, "query rows per CTA", GDT_AXIS_SQ},
    {"BLOCK_N", GDT_COL_INT, D(tile), GDT_KNOB_TILE_N, "key/value rows per inner step", GDT_AXIS_SKV},
    {"WARPS", GDT_COL_INT, D(warps), GDT_KNOB_WARPS, "warps per CTA", -1},
    {"STAGES", GDT_COL_INT, D(stages), GDT_KNOB_STAGES, "K/V shared-memory stages", -1},
};
static const gdt_column bwd_cols[A_COUNT] = {
    {"BLOCK_M", GDT_COL_INT, D(tile), GDT_KNOB_TILE_M, "query rows per inner step", GDT_AXIS_SQ},
    {"BLOCK_N", GDT_COL_INT, D(tile), GDT_KNOB_TILE_N, "key/value rows per CTA", GDT_AXIS_SKV},
    {"WARPS", GDT_COL_INT, D(warps), GDT_KNOB_WARPS, "warps per CTA", -1},
    {"STAGES", GDT_COL_INT, D(stages), GDT_KNOB_STAGES, "Q/dO shared-memory stages", -1},
};
#undef D

static bool common(const int64_t *r, int64_t smem, const gdt_facts *f, const gdt_device_props *lim,
                   char *why, size_t n)
{
    int64_t threads = r[A_W] * 32;
    if (threads > lim->max_threads_per_block)
        return snprintf(why, n, "WARPS*32 = %lld threads exceeds %d on sm%d", (long long)threads,
                        lim->max_threads_per_block, lim->arch), false;
    if (f->problem.u.sdpa.d % 16)
        return snprintf(why, n, "head dim %lld is not a multiple of 16",
                        (long long)f->problem.u.sdpa.d), false;
    if (smem > lim->smem_per_block)
        return snprintf(why, n, "shared memory %lld bytes exceeds %lld on sm%d", (long long)smem,
                        (long long)lim->smem_per_block, lim->arch), false;
    return true;
}

static bool bind_fwd(int64_t *r, const gdt_facts *f, const gdt_device_props *lim, char *why, size_t n)
{
    int64_t d = f->problem.u.sdpa.d, elem = (int64_t)gdt_dtype_size(f->dtype);
    if (r[A_BM] % (16 * r[A_W]))
        return snprintf(why, n, "BLOCK_M %lld is not a multiple of 16*WARPS = %lld",
                        (long long)r[A_BM], (long long)(16 * r[A_W])), false;
    return common(r, (r[A_BM] * d + r[A_ST] * 2 * r[A_BN] * d) * elem, f, lim, why, n);
}

static bool bind_bwd(int64_t *r, const gdt_facts *f, const gdt_device_props *lim, char *why, size_t n)
{
    int64_t d = f->problem.u.sdpa.d, elem = (int64_t)gdt_dtype_size(f->dtype);
    if (r[A_BN] % (16 * r[A_W]))
        return snprintf(why, n, "BLOCK_N %lld is not a multiple of 16*WARPS = %lld",
                        (long long)r[A_BN], (long long)(16 * r[A_W])), false;
    return common(r, (2 * r[A_BN] * d + r[A_ST] * 2 * r[A_BM] * d) * elem, f, lim, why, n);
}

const gdt_row_family gdt__rows_attention_fwd = {"attention_fwd", fwd_cols, A_COUNT, bind_fwd};
const gdt_row_family gdt__rows_attention_bwd = {"attention_bwd", bwd_cols, A_COUNT, bind_bwd};
