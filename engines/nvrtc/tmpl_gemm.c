/* The GEMM template (kernels/gemm.cuh) as the NVRTC engine sees it: the
 * compile-time constants of one contraction row and problem layout, the
 * launch geometry, and the kernel's parameters: one parameter block for
 * PIPE=0, or for PIPE=1 (kernels/gdt_gemm_sm90.cuh) the tensor maps,
 * counters, persistent grid and cluster of engines/gemm_tma.c, the host
 * side the hand engine's gemm.hand launches the same kernel with. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_gemm.h"
#include "gdt_nvrtc.h"
#include "gdt_rows.h"

/* Mirrors struct gdt_gemm_params in kernels/gemm.cuh field for field. */
typedef struct gdt_gemm_params {
    const void *a, *b;
    void *c;
    long long sa0, sa1, sa2, sb0, sb1, sb2, sc0, sc1, sc2;
    int m, n, k, batch;
    int tiles_m, tiles_n;
} gdt_gemm_params;
_Static_assert(sizeof(gdt_gemm_params) == 120, "gdt_gemm_params must match kernels/gemm.cuh");

/* 16-byte chunks along the unit-stride axis: that axis's extent and every
 * other stride in use are multiples of 8 elements. */
static bool vec_ok(int64_t unit_extent, int64_t other_stride, int64_t other_extent,
                   int64_t batch_stride, int64_t batch)
{
    return unit_extent % 8 == 0 && (other_extent == 1 || other_stride % 8 == 0) &&
           (batch == 1 || batch_stride % 8 == 0);
}

void gdt__gemm_layout(const gdt_facts *f, gdt_gemm_layout *out)
{
    const gdt_gemm_desc *g = &f->problem.u.gemm;
    const int64_t *sa = g->a_stride, *sb = g->b_stride, *sc = g->c_stride;
    /* A[b, m, k] = sa0*b + sa1*m + sa2*k; B[b, k, n] = sb0*b + sb1*k + sb2*n.
     * With no unit stride at all the element-wise path reads any layout. */
    bool a_mn = sa[2] != 1 && sa[1] == 1, b_mn = sb[1] != 1 && sb[2] == 1;
    out->a_kmajor = !a_mn;
    out->b_kmajor = !b_mn;
    out->a_vec = a_mn ? vec_ok(g->m, sa[2], g->k, sa[0], g->batch)
                      : sa[2] == 1 && vec_ok(g->k, sa[1], g->m, sa[0], g->batch);
    out->b_vec = b_mn ? vec_ok(g->n, sb[1], g->k, sb[0], g->batch)
                      : sb[1] == 1 && vec_ok(g->k, sb[2], g->n, sb[0], g->batch);
    out->c_vec2 = sc[2] == 1 && g->n % 2 == 0 && (g->m == 1 || sc[1] % 2 == 0) &&
                  (g->batch == 1 || sc[0] % 2 == 0);
}

void gdt__gemm_tma_config_of(const int64_t *r, gdt_gemm_tma_config *out)
{
    bool dsmem = r[GDT_GEMM_REDUCTION_MODE] == GDT_GEMM_REDUCE_DSMEM;
    bool swap = r[GDT_GEMM_SWAP_AB] == GDT_GEMM_SWAP_AB_ON;
    /* Under swap-AB BM (M) is the wgmma's N side, BN (N) its M side. */
    out->tile_n = (int)r[swap ? GDT_GEMM_BM : GDT_GEMM_BN];
    out->split_k = (int)r[GDT_GEMM_SPLIT_K];
    out->stages = (int)r[GDT_GEMM_STAGES];
    out->cluster_n = r[GDT_GEMM_CLUSTER_SHAPE] == GDT_GEMM_CLUSTER_1X2X1 ? 2 : 1;
    out->cluster_k = dsmem ? 2 : 1;
    out->consumers = (int)(swap ? r[GDT_GEMM_BN] / 64 : r[GDT_GEMM_WARPS_M] / 4);
    out->swap_ab = swap;
    out->stream_k = r[GDT_GEMM_REDUCTION_MODE] == GDT_GEMM_REDUCE_STREAMK;
    out->pingpong = r[GDT_GEMM_PINGPONG] == GDT_GEMM_PINGPONG_ON;
    out->regs_epilogue = r[GDT_GEMM_EPILOGUE] == GDT_GEMM_EPILOGUE_REGS;
}

static bool tma(const int64_t *r) { return r[GDT_GEMM_PIPE] == GDT_GEMM_PIPE_TMA; }

int64_t gdt__gemm_threads(const int64_t *r)
{
    gdt_gemm_tma_config c;
    if (tma(r)) {
        gdt__gemm_tma_config_of(r, &c);
        return gdt__gemm_tma_threads(&c);
    }
    return r[GDT_GEMM_WARPS_M] * r[GDT_GEMM_WARPS_N] * 32;
}

int64_t gdt__gemm_smem_bytes(const int64_t *r, const gdt_facts *f)
{
    int64_t bm = r[GDT_GEMM_BM], bn = r[GDT_GEMM_BN], bk = r[GDT_GEMM_BK];
    int64_t st = r[GDT_GEMM_STAGES];
    gdt_gemm_tma_config c;
    if (tma(r)) {
        gdt__gemm_tma_config_of(r, &c);
        return gdt__gemm_tma_smem_bytes(&c);
    }
    if (r[GDT_GEMM_MMA] == 1) /* swizzled tiles plus 1024 bytes to align the atoms */
        return st * (bm + bn) * bk * 2 + 1024;
    gdt_gemm_layout l;
    gdt__gemm_layout(f, &l);
    /* Rows padded by 8 elements (see gemm.cuh) to keep ldmatrix conflict-free. */
    int64_t a = l.a_kmajor ? bm * (bk + 8) : bk * (bm + 8);
    int64_t b = l.b_kmajor ? bn * (bk + 8) : bk * (bn + 8);
    return st * (a + b) * 2;
}

static void plan_row(const gdt_plan_id *p, int64_t *row)
{
    const gdt_row_family *rf = &gdt__rows_contraction;
    for (int i = 0; i < rf->ncols && i < GDT_GEMM_NCOLS; i++)
        row[i] = gdt_plan_id_knob(p, rf->cols[i].knob, rf->cols[i].optional ? rf->cols[i].absent : 0);
}

static int defines(const gdt_facts *f, const gdt_plan_id *p, gdt_nvrtc_define *out, int max)
{
    static const char *const row_names[GDT_GEMM_NCOLS] = {
        "BM", "BN", "BK", "WARPS_M", "WARPS_N", "STAGES", "GROUP_M", "MMA",
        "PIPE", "SPLIT_K", "CLUSTER_SHAPE", "REDUCTION_MODE", "SWAP_AB", "PINGPONG", "RASTER",
        "EPILOGUE"};
    int64_t row[GDT_GEMM_NCOLS];
    gdt_gemm_layout l;
    plan_row(p, row);
    gdt__gemm_layout(f, &l);
    if (tma(row)) /* the entry gemm.hand would take for these strides */
        gdt__gemm_tma_majors(&f->problem.u.gemm, &l.a_kmajor, &l.b_kmajor);
    gdt_nvrtc_define all[] = {
        {"GDT_FP16", f->dtype == GDT_DTYPE_FP16},
        {"A_KMAJOR", l.a_kmajor}, {"B_KMAJOR", l.b_kmajor},
        {"A_VEC", l.a_vec},       {"B_VEC", l.b_vec},
        {"C_VEC2", l.c_vec2},
    };
    int n = 0;
    for (int i = 0; i < GDT_GEMM_NCOLS && n < max; i++)
        out[n++] = (gdt_nvrtc_define){row_names[i], row[i]};
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
        out[n++] = all[i];
    return n;
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static void launch(const gdt_facts *f, const gdt_plan_id *p, int i, gdt_nvrtc_launch *out)
{
    const gdt_gemm_desc *g = &f->problem.u.gemm;
    int64_t row[GDT_GEMM_NCOLS];
    (void)i;
    plan_row(p, row);
    memset(out, 0, sizeof *out);
    if (tma(row)) { /* prepare sets the persistent grid and the cluster */
        gdt_gemm_tma_config c;
        gdt__gemm_tma_config_of(row, &c);
        out->grid[0] = out->grid[1] = out->grid[2] = 1;
        out->block[0] = (unsigned)gdt__gemm_tma_threads(&c), out->block[1] = out->block[2] = 1;
        out->smem_bytes = (unsigned)gdt__gemm_tma_smem_bytes(&c);
        return;
    }
    out->grid[0] = (unsigned)(ceil_div(g->m, row[GDT_GEMM_BM]) * ceil_div(g->n, row[GDT_GEMM_BN]));
    out->grid[1] = (unsigned)g->batch;
    out->grid[2] = 1;
    out->block[0] = (unsigned)gdt__gemm_threads(row);
    out->block[1] = out->block[2] = 1;
    out->smem_bytes = (unsigned)gdt__gemm_smem_bytes(row, f);
}

/* The kernel moves 16-byte chunks of A and B (4-byte pairs of C) where the
 * layout allows; a caller's pointer that breaks that alignment is refused
 * by name rather than faulting. */
static gdt_status check_alignment(const gdt_facts *f, const gdt_operands *ops, gdt_error *e)
{
    gdt_gemm_layout l;
    gdt__gemm_layout(f, &l);
    const struct { gdt_operand_role r; bool vec; unsigned align; } need[] = {
        {GDT_OPERAND_A, l.a_vec, 16}, {GDT_OPERAND_B, l.b_vec, 16}, {GDT_OPERAND_C, l.c_vec2, 4}};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (need[i].vec && (uintptr_t)ops->ptr[need[i].r] % need[i].align)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "gemm: operand %s: pointer %p is not %u-byte aligned, as the "
                                 "plan's layout requires", gdt_operand_name(need[i].r),
                                 ops->ptr[need[i].r], need[i].align);
    return GDT_STATUS_OK;
}

/* PIPE=1: the maps (re-encoded when a pointer changed), the parameters,
 * the counters and C's pointer and strides stay in the plan's state, which
 * outlives the launch;
 * the workspace pointer is copied.  The engine checked the workspace's
 * size against workspace(), gdt__gemm_tma_bind checks its alignment. */
static gdt_status tma_args(const gdt_facts *f, const gdt_operands *ops, void *workspace,
                           gdt_gemm_tma *t, gdt_nvrtc_args *out, gdt_error *e)
{
    void *a[GDT_GEMM_TMA_NARGS];
    gdt_status st = gdt__gemm_tma_bind(t, f, ops, &workspace, t->ws_bytes, a, e);
    if (st != GDT_STATUS_OK)
        return st;
    out->nargs = 0;
    out->used = 0;
    if (!gdt_nvrtc_arg(out, &workspace, sizeof workspace))
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "tmpl_gemm: no room for the workspace pointer");
    void *ws_arg = out->args[0];
    out->args[0] = a[0], out->args[1] = a[1], out->args[2] = a[2], out->args[3] = a[3];
    out->args[4] = ws_arg, out->args[5] = a[5], out->args[6] = a[6];
    out->nargs = GDT_GEMM_TMA_NARGS;
    return GDT_STATUS_OK;
}

static gdt_status args(const gdt_facts *f, const gdt_plan_id *p, int i, const gdt_operands *ops,
                       void *workspace, void *state, gdt_nvrtc_args *out, gdt_error *e)
{
    const gdt_gemm_desc *g = &f->problem.u.gemm;
    if (state)
        return tma_args(f, ops, workspace, state, out, e);
    gdt_gemm_params k = {
        ops->ptr[GDT_OPERAND_A], ops->ptr[GDT_OPERAND_B], ops->ptr[GDT_OPERAND_C],
        g->a_stride[0], g->a_stride[1], g->a_stride[2],
        g->b_stride[0], g->b_stride[1], g->b_stride[2],
        g->c_stride[0], g->c_stride[1], g->c_stride[2],
        (int)g->m, (int)g->n, (int)g->k, (int)g->batch,
        (int)ceil_div(g->m, gdt_plan_id_knob(p, GDT_KNOB_TILE_M, 1)),
        (int)ceil_div(g->n, gdt_plan_id_knob(p, GDT_KNOB_TILE_N, 1)),
    };
    (void)i, (void)workspace;
    if (((uintptr_t)k.a | (uintptr_t)k.b | (uintptr_t)k.c) & 15) {
        gdt_status st = check_alignment(f, ops, e);
        if (st != GDT_STATUS_OK)
            return st;
    }
    out->nargs = 0;
    out->used = 0;
    if (!gdt_nvrtc_arg(out, &k, sizeof k))
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "tmpl_gemm: parameter block of %zu bytes "
                             "does not fit the argument buffer", sizeof k);
    return GDT_STATUS_OK;
}

/* PIPE=1: the launch state gemm.hand keeps too (engines/gemm_tma.c), at a
 * 128-byte boundary for the maps. */
static gdt_status prepare(const gdt_facts *f, const gdt_plan_id *p, int i, const gdt_cu_api *cu,
                          CUfunction fn, CUlaunchConfig *cfg, void **state, gdt_error *e)
{
    int64_t row[GDT_GEMM_NCOLS];
    gdt_gemm_tma_config c;
    (void)i;
    plan_row(p, row);
    *state = NULL;
    if (!tma(row))
        return GDT_STATUS_OK;
    gdt__gemm_tma_config_of(row, &c);
    size_t bytes = (sizeof(gdt_gemm_tma) + 127) / 128 * 128;
    gdt_gemm_tma *t = aligned_alloc(128, bytes);
    if (!t)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gemm.nvrtc: launch state");
    memset(t, 0, bytes);
    *state = t;
    gdt__gemm_tma_init(t, "gemm.nvrtc", f, &c);
    return gdt__gemm_tma_load(t, cu, fn, cfg, e);
}

static void release(void *state)
{
    gdt__gemm_tma_release(state);
    free(state);
}

static size_t workspace(const gdt_facts *f, const gdt_plan_id *p)
{
    int64_t row[GDT_GEMM_NCOLS];
    gdt_gemm_tma_config c;
    plan_row(p, row);
    if (!tma(row))
        return 0;
    gdt__gemm_tma_config_of(row, &c);
    return gdt__gemm_tma_workspace(&c, &f->problem.u.gemm, gdt__gemm_tma_sms(f));
}

const gdt_nvrtc_template gdt__tmpl_gemm = {
    .rows = &gdt__rows_contraction,
    .source = "kernels/gemm.cuh",
    .nkernels = 1,
    .entries = {"gdt_gemm"},
    .defines = defines,
    .launch = launch,
    .args = args,
    .workspace = workspace,
    .check = NULL,
    .prepare = prepare,
    .release = release,
};
