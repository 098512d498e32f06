/* The flash-attention templates (kernels/attn_fwd.cuh, kernels/attn_bwd.cuh)
 * as the NVRTC engine sees them: the compile-time constants of one
 * attention row and problem, the launch geometry of each kernel, the one
 * parameter block they share, the backward's workspace (D and the fp32 dQ
 * accumulator), and the support rules beyond row legality.  A forward row
 * with PIPE=1 (kernels/gdt_attn_fwd_sm90.cuh) takes instead the tensor
 * maps, parameters, grid and tile counters of engines/attn_fwd_tma.c, the
 * host side the hand engine's sdpa_fwd.hand launches the same kernel with; a backward
 * row with PIPE=1 (kernels/gdt_attn_bwd_sm90.cuh) those of
 * engines/attn_bwd_tma.c, sdpa_bwd.hand's, for its three kernels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_attention.h"
#include "gdt_attn_bwd_tma.h"
#include "gdt_attn_fwd_tma.h"
#include "gdt_nvrtc.h"
#include "gdt_rows.h"

/* Mirrors struct gdt_attn_params in kernels/attn_{fwd,bwd}.cuh field for field. */
typedef struct gdt__attn_params {
    const void *q, *k, *v;
    void *o;
    const void *dout;
    float *stats;
    void *dq, *dk, *dv;
    float *dsum, *dq_acc;
    long long q_s[4], k_s[4], v_s[4], o_s[4];
    long long b, h_q, h_kv, s_q, s_kv, group;
    float scale, scale_log2;
} gdt__attn_params;
_Static_assert(sizeof(gdt__attn_params) == 272, "gdt__attn_params must match kernels/attn_*.cuh");

#define ROW_WARPS 8      /* rows per CTA of gdt_attn_bwd_pre / _post (kernels/attn_bwd.cuh) */
#define GRID_YZ_MAX 65535

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t pad16(int64_t n) { return n + 8; } /* +8 elements = +16 bytes per smem row (LDS, LDQ) */

/* PIPE=1: the consumer warpgroups of a forward row, its warpgroups but the
 * producer's (WARPS 12: two, 16: three, the d64 _m192 entries'). */
static int fwd_tma_consumers(const int64_t *r) { return (int)(r[GDT_ATTN_WARPS] / 4 - 1); }

/* PIPE=1: the query tiles of a forward row's cluster (CLUSTER_SHAPE). */
static int fwd_tma_cluster(const int64_t *r) { return r[GDT_ATTN_CLUSTER] == GDT_ATTN_CLUSTER_2X1X1 ? 2 : 1; }

/* Q tile + STAGES x (K, V) tiles: padded rows (mma.sync), or swizzled ones
 * plus 1024 bytes to align the swizzle atoms (MMA 1 and 2, wgmma); PIPE=1
 * the Hopper kernel's. */
int64_t gdt__attn_fwd_smem(const int64_t *r, int64_t d)
{
    if (r[GDT_ATTN_PIPE] == GDT_ATTN_PIPE_TMA)
        return gdt__attn_fwd_tma_smem_bytes(d, fwd_tma_consumers(r), (int)r[GDT_ATTN_STAGES],
                                            (int)r[GDT_ATTN_BN]);
    int64_t rows = r[GDT_ATTN_BM] + 2 * r[GDT_ATTN_STAGES] * r[GDT_ATTN_BN];
    return r[GDT_ATTN_MMA] >= 1 ? rows * d * 2 + 1024 : rows * pad16(d) * 2;
}

/* K, V tiles + STAGES x (Q, dO) tiles + the dS^T tile + STAGES x (LSE, D)
 * rows: padded rows (mma.sync), or swizzled ones plus 1024 bytes to align
 * the swizzle atoms (MMA=1, wgmma); PIPE=1 the Hopper kernel's. */
int64_t gdt__attn_bwd_smem(const int64_t *r, int64_t d)
{
    if (r[GDT_ATTN_PIPE] == GDT_ATTN_PIPE_TMA)
        return gdt__attn_bwd_tma_smem_bytes(d);
    int64_t bm = r[GDT_ATTN_BM], bn = r[GDT_ATTN_BN], st = r[GDT_ATTN_STAGES];
    if (r[GDT_ATTN_MMA] == 1)
        return (2 * bn * d + 2 * st * bm * d + bn * bm) * 2 + 8 * st * bm + 1024;
    return (2 * bn * pad16(d) + 2 * st * bm * pad16(d) + bn * pad16(bm)) * 2 + 8 * st * bm;
}

static int64_t align256(int64_t n) { return (n + 255) / 256 * 256; }

/* A row without a PIPE column reads PIPE=0. */
static void plan_row(const gdt_row_family *rf, const gdt_plan_id *p, int64_t *row)
{
    memset(row, 0, sizeof(int64_t) * GDT_ATTN_NCOLS);
    for (int i = 0; i < rf->ncols && i < GDT_ATTN_NCOLS; i++)
        row[i] = gdt_plan_id_knob(p, rf->cols[i].knob, rf->cols[i].optional ? rf->cols[i].absent : 0);
}

static bool pipe_tma(const gdt_row_family *rf, const gdt_plan_id *p)
{
    int64_t row[GDT_ATTN_NCOLS];
    plan_row(rf, p, row);
    return row[GDT_ATTN_PIPE] == GDT_ATTN_PIPE_TMA;
}

static bool fwd_tma(const gdt_plan_id *p) { return pipe_tma(&gdt__rows_attention_fwd, p); }
static bool bwd_tma(const gdt_plan_id *p) { return pipe_tma(&gdt__rows_attention_bwd, p); }

/* DETERMINISTIC=1 (PIPE=1 only, by the row rules). */
static bool bwd_det(const gdt_plan_id *p)
{
    int64_t row[GDT_ATTN_NCOLS];
    plan_row(&gdt__rows_attention_bwd, p, row);
    return row[GDT_ATTN_DET] == 1;
}

/* PIPE=1: what names the hand slot's entries (the PIPE branch of
 * kernels/attn_fwd.cuh and attn_bwd.cuh takes nothing else; the mask is a
 * kernel parameter). */
static int tma_defines(const gdt_facts *f, gdt_nvrtc_define *out, int max)
{
    const gdt_nvrtc_define all[] = {
        {"PIPE", GDT_ATTN_PIPE_TMA},
        {"GDT_FP16", f->dtype == GDT_DTYPE_FP16},
        {"HEAD_DIM", f->problem.u.sdpa.d},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
        out[n++] = all[i];
    return n;
}

static int defines(const gdt_row_family *rf, const gdt_facts *f, const gdt_plan_id *p,
                   gdt_nvrtc_define *out, int max)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    int64_t row[GDT_ATTN_NCOLS];
    plan_row(rf, p, row);
    const gdt_nvrtc_define all[] = {
        {"HEAD_DIM", s->d},
        {"BLOCK_M", row[GDT_ATTN_BM]},
        {"BLOCK_N", row[GDT_ATTN_BN]},
        {"WARPS", row[GDT_ATTN_WARPS]},
        {"STAGES", row[GDT_ATTN_STAGES]},
        {"GDT_FP16", f->dtype == GDT_DTYPE_FP16},
        {"CAUSAL", s->causal},
        {"MMA", row[GDT_ATTN_MMA]},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
        out[n++] = all[i];
    return n;
}

/* PIPE=1 with three consumers binds CONSUMERS, with rings of three stages
 * STAGES, with blocks of 176 keys BLOCK_N (absent: two consumers, two
 * stages, 128 keys, so the defines and the cache key of the hand engine's
 * configurations stay as they were); CLUSTER=2 is bound where the row has
 * CLUSTER_SHAPE=3 (the rules reject it with PIPE=0, whose template ignores
 * it), as the backward's PINGPONG. */
static int fwd_defines(const gdt_facts *f, const gdt_plan_id *p, gdt_nvrtc_define *out, int max)
{
    int64_t row[GDT_ATTN_NCOLS];
    plan_row(&gdt__rows_attention_fwd, p, row);
    int n = 0;
    if (row[GDT_ATTN_PIPE] != GDT_ATTN_PIPE_TMA) {
        n = defines(&gdt__rows_attention_fwd, f, p, out, max);
    } else {
        int nc = fwd_tma_consumers(row);
        n = tma_defines(f, out, max);
        if (nc != GDT_ATTN_FWD_TMA_CONSUMERS && n < max)
            out[n++] = (gdt_nvrtc_define){"CONSUMERS", nc};
        if (row[GDT_ATTN_STAGES] != GDT_ATTN_FWD_TMA_STAGES && n < max)
            out[n++] = (gdt_nvrtc_define){"STAGES", row[GDT_ATTN_STAGES]};
        if (row[GDT_ATTN_BN] != GDT_ATTN_FWD_TMA_BLOCK_N && n < max)
            out[n++] = (gdt_nvrtc_define){"BLOCK_N", row[GDT_ATTN_BN]};
    }
    if (fwd_tma_cluster(row) > 1 && n < max)
        out[n++] = (gdt_nvrtc_define){"CLUSTER", fwd_tma_cluster(row)};
    return n;
}

/* PINGPONG=1 and DETERMINISTIC=1 are bound where the row has them (the
 * PIPE=1 branch's sdpa_bwd.hand PINGPONG=1 main kernel, or its
 * DETERMINISTIC=1 pre and main kernels; the row rules reject them with
 * PIPE=0, whose template ignores them); absent, the defines and so the
 * cache key of a row stay as they were. */
static int bwd_defines(const gdt_facts *f, const gdt_plan_id *p, gdt_nvrtc_define *out, int max)
{
    int64_t row[GDT_ATTN_NCOLS];
    plan_row(&gdt__rows_attention_bwd, p, row);
    int n = bwd_tma(p) ? tma_defines(f, out, max) : defines(&gdt__rows_attention_bwd, f, p, out, max);
    if (row[GDT_ATTN_PINGPONG] == 1 && n < max)
        out[n++] = (gdt_nvrtc_define){"PINGPONG", 1};
    if (row[GDT_ATTN_DET] == 1 && n < max)
        out[n++] = (gdt_nvrtc_define){"DETERMINISTIC", 1};
    return n;
}

static void set_launch(gdt_nvrtc_launch *out, int64_t gx, int64_t gy, int64_t threads, int64_t smem)
{
    memset(out, 0, sizeof *out);
    out->grid[0] = (unsigned)gx, out->grid[1] = (unsigned)gy, out->grid[2] = 1;
    out->block[0] = (unsigned)threads, out->block[1] = out->block[2] = 1;
    out->smem_bytes = (unsigned)smem;
}

/* One CTA per (batch * query head, BLOCK_M query rows); PIPE=1 one CTA
 * here, since fwd_prepare sets the persistent grid (it needs the device's
 * SMs). */
static void fwd_launch(const gdt_facts *f, const gdt_plan_id *p, int i, gdt_nvrtc_launch *out)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    int64_t row[GDT_ATTN_NCOLS];
    (void)i;
    plan_row(&gdt__rows_attention_fwd, p, row);
    bool tma = fwd_tma(p);
    set_launch(out, tma ? 1 : s->b * s->h_q, tma ? 1 : ceil_div(s->s_q, row[GDT_ATTN_BM]),
               row[GDT_ATTN_WARPS] * 32, gdt__attn_fwd_smem(row, s->d));
}

/* kernels/attn_bwd.cuh reads %dynamic_smem_size: given room for a second
 * dS^T tile it runs one barrier per query block instead of two.  Granted
 * only where it fits the block limit and costs no resident CTA (1 KB per
 * CTA reserved by the driver). */
static int64_t bwd_main_smem(const gdt_facts *f, const int64_t *row)
{
    int64_t base = gdt__attn_bwd_smem(row, f->problem.u.sdpa.d);
    if (row[GDT_ATTN_MMA] == 1) /* the wgmma path keeps one dS^T tile */
        return base;
    int64_t two = base + row[GDT_ATTN_BN] * pad16(row[GDT_ATTN_BM]) * 2;
    int64_t lim = f->device.smem_per_block, sm = lim + 1024;
    if (lim <= 0 || two > lim || sm / (two + 1024) < sm / (base + 1024))
        return base;
    return two;
}

/* pre and post: one warp per query row; main: one CTA per (batch * kv head,
 * BLOCK_N key/value rows).  PIPE=1: sdpa_bwd.hand's three launches. */
static void bwd_launch(const gdt_facts *f, const gdt_plan_id *p, int i, gdt_nvrtc_launch *out)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    int64_t row[GDT_ATTN_NCOLS];
    plan_row(&gdt__rows_attention_bwd, p, row);
    if (row[GDT_ATTN_PIPE] == GDT_ATTN_PIPE_TMA) {
        CUlaunchConfig g;
        gdt__attn_bwd_tma_geometry(s, i, &g);
        set_launch(out, g.gridDimX, g.gridDimY, g.blockDimX, g.sharedMemBytes);
    } else if (i == 1)
        set_launch(out, s->b * s->h_kv, ceil_div(s->s_kv, row[GDT_ATTN_BN]),
                   row[GDT_ATTN_WARPS] * 32, bwd_main_smem(f, row));
    else
        set_launch(out, ceil_div(s->b * s->h_q * s->s_q, ROW_WARPS), 1, ROW_WARPS * 32, 0);
}

/* Backward workspace: D (fp32 per query row), then the fp32 dQ
 * accumulator; PIPE=1 sdpa_bwd.hand's (with DETERMINISTIC=1 its
 * semaphores too). */
static size_t bwd_workspace(const gdt_facts *f, const gdt_plan_id *p)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    int64_t rows = s->b * s->h_q * s->s_q;
    if (bwd_tma(p))
        return gdt__attn_bwd_tma_workspace(s, bwd_det(p));
    return (size_t)(align256(rows * 4) + rows * s->d * 4);
}

static void copy4(long long *dst, const int64_t *src)
{
    for (int i = 0; i < 4; i++) dst[i] = src[i];
}

static gdt_status pack(const gdt__attn_params *k, gdt_nvrtc_args *out, gdt_error *e)
{
    out->nargs = 0;
    out->used = 0;
    if (!gdt_nvrtc_arg(out, k, sizeof *k))
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "tmpl_attention: parameter block of %zu bytes "
                             "does not fit the argument buffer", sizeof *k);
    return GDT_STATUS_OK;
}

/* cp.async moves 16-byte chunks: every operand base must be 16-byte aligned. */
static gdt_status aligned(const gdt_operands *ops, const gdt_operand_role *roles, int n, gdt_error *e)
{
    for (int i = 0; i < n; i++)
        if ((uintptr_t)ops->ptr[roles[i]] % 16)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tmpl_attention: operand %s at %p is not "
                                 "16-byte aligned", gdt_operand_name(roles[i]), ops->ptr[roles[i]]);
    return GDT_STATUS_OK;
}

static void common_params(const gdt_facts *f, const gdt_operands *ops, gdt__attn_params *k)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    memset(k, 0, sizeof *k);
    k->q = ops->ptr[GDT_OPERAND_Q], k->k = ops->ptr[GDT_OPERAND_K], k->v = ops->ptr[GDT_OPERAND_V];
    k->o = ops->ptr[GDT_OPERAND_O], k->stats = ops->ptr[GDT_OPERAND_STATS];
    copy4(k->q_s, s->q_stride), copy4(k->k_s, s->k_stride);
    copy4(k->v_s, s->v_stride), copy4(k->o_s, s->o_stride);
    k->b = s->b, k->h_q = s->h_q, k->h_kv = s->h_kv, k->s_q = s->s_q, k->s_kv = s->s_kv;
    k->group = s->h_q / s->h_kv;
    k->scale = (float)s->scale;
    k->scale_log2 = (float)(s->scale * M_LOG2E);
}

/* PIPE=1: the maps (re-encoded when a pointer changed) and the parameters
 * stay in the plan's state, which outlives the launch. */
static gdt_status fwd_tma_args(const gdt_facts *f, const gdt_operands *ops, gdt_attn_fwd_tma *t,
                               gdt_nvrtc_args *out, gdt_error *e)
{
    void *a[4];
    gdt_status st = gdt__attn_fwd_tma_bind(t, f, ops, a, e);
    if (st != GDT_STATUS_OK)
        return st;
    out->used = 0;
    for (int i = 0; i < 4; i++)
        out->args[i] = a[i];
    out->nargs = 4;
    return GDT_STATUS_OK;
}

static gdt_status fwd_args(const gdt_facts *f, const gdt_plan_id *p, int i, const gdt_operands *ops,
                           void *workspace, void *state, gdt_nvrtc_args *out, gdt_error *e)
{
    if (state)
        return fwd_tma_args(f, ops, state, out, e);
    static const gdt_operand_role roles[] = {GDT_OPERAND_Q, GDT_OPERAND_K, GDT_OPERAND_V,
                                             GDT_OPERAND_O};
    gdt__attn_params k;
    (void)p, (void)i, (void)workspace;
    gdt_status st = aligned(ops, roles, 4, e);
    if (st) return st;
    common_params(f, ops, &k);
    return pack(&k, out, e);
}

/* PIPE=1: the three kernels share one launch state (bwd_prepare); the
 * first one's arguments check and bind every operand and the workspace,
 * so a refusal comes before any launch. */
static gdt_status bwd_tma_args(const gdt_facts *f, int i, const gdt_operands *ops, void *workspace,
                               gdt_attn_bwd_tma *t, gdt_nvrtc_args *out, gdt_error *e)
{
    void *a[5];
    gdt_status st = i == 0 ? gdt__attn_bwd_tma_bind(t, f, ops, workspace,
                                                    gdt__attn_bwd_tma_workspace(&f->problem.u.sdpa, t->det), e)
                           : GDT_STATUS_OK;
    if (st != GDT_STATUS_OK)
        return st;
    out->used = 0;
    out->nargs = gdt__attn_bwd_tma_args(t, i, a);
    for (int k = 0; k < out->nargs; k++)
        out->args[k] = a[k];
    return GDT_STATUS_OK;
}

static gdt_status bwd_args(const gdt_facts *f, const gdt_plan_id *p, int i, const gdt_operands *ops,
                           void *workspace, void *state, gdt_nvrtc_args *out, gdt_error *e)
{
    if (state)
        return bwd_tma_args(f, i, ops, workspace, state, out, e);
    static const gdt_operand_role roles[] = {GDT_OPERAND_Q,  GDT_OPERAND_K,  GDT_OPERAND_V,
                                             GDT_OPERAND_O,  GDT_OPERAND_DO, GDT_OPERAND_DQ,
                                             GDT_OPERAND_DK, GDT_OPERAND_DV};
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    gdt__attn_params k;
    (void)i;
    gdt_status st = aligned(ops, roles, 8, e);
    if (st) return st;
    if (!workspace)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tmpl_attention: sdpa_bwd needs a workspace "
                             "of %zu bytes, got none", bwd_workspace(f, p));
    common_params(f, ops, &k);
    k.dout = ops->ptr[GDT_OPERAND_DO];
    k.dq = ops->ptr[GDT_OPERAND_DQ], k.dk = ops->ptr[GDT_OPERAND_DK], k.dv = ops->ptr[GDT_OPERAND_DV];
    k.dsum = workspace;
    k.dq_acc = (float *)((char *)workspace + align256(s->b * s->h_q * s->s_q * 4));
    return pack(&k, out, e);
}

/* Strides the kernels read with 16-byte cp.async chunks along d. */
static gdt_status strides_ok(const gdt_sdpa_desc *s, gdt_error *e)
{
    static const char *const names[] = {"Q", "K", "V", "O"};
    const int64_t *st[] = {s->q_stride, s->k_stride, s->v_stride, s->o_stride};
    for (int t = 0; t < 4; t++) {
        if (st[t][3] != 1)
            return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "attention template: %s stride of d "
                                 "is %lld, expected 1", names[t], (long long)st[t][3]);
        for (int a = 0; a < 3; a++)
            if (st[t][a] % 8)
                return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "attention template: %s stride[%d] "
                                     "= %lld is not a multiple of 8 elements (16 bytes)", names[t], a,
                                     (long long)st[t][a]);
    }
    return GDT_STATUS_OK;
}

/* The row itself is re-bound by the engine before check runs. */
static gdt_status common_check(const gdt_facts *f, gdt_error *e)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    if (f->dtype != GDT_DTYPE_BF16 && f->dtype != GDT_DTYPE_FP16)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "attention template: io dtype %s, "
                             "expected bf16 or fp16", gdt_dtype_name(f->dtype));
    if (!(s->scale > 0) || !isfinite(s->scale))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "attention template: scale %g, expected "
                             "a positive finite value (the running max assumes it)", s->scale);
    if (f->device.arch < 80)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "attention template: sm%d, needs sm80+ "
                             "(bf16 mma.sync, cp.async)", f->device.arch);
    return strides_ok(s, e);
}

/* PIPE=1: the row rules ran sdpa_fwd.hand's checks (rows_attention.c), no
 * more and no fewer. */
static gdt_status fwd_check(const gdt_facts *f, const gdt_plan_id *p, gdt_error *e)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    int64_t bm = gdt_plan_id_knob(p, GDT_KNOB_TILE_M, 0);
    if (fwd_tma(p))
        return GDT_STATUS_OK;
    gdt_status st = common_check(f, e);
    if (st) return st;
    if (ceil_div(s->s_q, bm) > GRID_YZ_MAX || s->b * s->h_q > INT32_MAX)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "attention_fwd: grid %lld x %lld exceeds "
                             "the launch limits", (long long)(s->b * s->h_q),
                             (long long)ceil_div(s->s_q, bm));
    return GDT_STATUS_OK;
}

static gdt_status bwd_check(const gdt_facts *f, const gdt_plan_id *p, gdt_error *e)
{
    const gdt_sdpa_desc *s = &f->problem.u.sdpa;
    int64_t bn = gdt_plan_id_knob(p, GDT_KNOB_TILE_N, 0);
    if (bwd_tma(p)) /* as the forward's: the row rules ran sdpa_bwd.hand's checks */
        return GDT_STATUS_OK;
    gdt_status st = common_check(f, e);
    if (st) return st;
    if (ceil_div(s->s_kv, bn) > GRID_YZ_MAX || ceil_div(s->b * s->h_q * s->s_q, ROW_WARPS) > INT32_MAX)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "attention_bwd: grid of %lld key/value "
                             "blocks or %lld query rows exceeds the launch limits",
                             (long long)ceil_div(s->s_kv, bn), (long long)(s->b * s->h_q * s->s_q));
    return GDT_STATUS_OK;
}

/* A PIPE=1 launch state of `size` bytes, zeroed, at a 128-byte boundary
 * for its tensor maps; NULL without memory. */
static void *launch_state(size_t size)
{
    size_t bytes = (size + 127) / 128 * 128;
    void *t = aligned_alloc(128, bytes);
    if (t)
        memset(t, 0, bytes);
    return t;
}

/* PIPE=1: the launch state sdpa_fwd.hand keeps too (engines/attn_fwd_tma.c),
 * at a 128-byte boundary for the maps; its load sets the same shared
 * memory launch() gave and the persistent grid, and allocates the tile
 * counters (zeroed once; fwd_release frees them). */
static gdt_status fwd_prepare(const gdt_facts *f, const gdt_plan_id *p, int i, const gdt_cu_api *cu,
                              CUfunction fn, CUlaunchConfig *cfg, void **state, gdt_error *e)
{
    (void)i;
    *state = NULL;
    int64_t row[GDT_ATTN_NCOLS];
    plan_row(&gdt__rows_attention_fwd, p, row);
    if (row[GDT_ATTN_PIPE] != GDT_ATTN_PIPE_TMA)
        return GDT_STATUS_OK;
    gdt_attn_fwd_tma *t = launch_state(sizeof *t);
    if (!t)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sdpa_fwd.nvrtc: launch state");
    *state = t;
    gdt__attn_fwd_tma_init(t, "sdpa_fwd.nvrtc", f, fwd_tma_consumers(row), (int)row[GDT_ATTN_STAGES],
                           (int)row[GDT_ATTN_BN], fwd_tma_cluster(row));
    return gdt__attn_fwd_tma_load(t, cu, fn, cfg, e);
}

/* PIPE=1: one launch state for the three kernels, sdpa_bwd.hand's
 * (engines/attn_bwd_tma.c): made at kernel 0, and kernels 1 and 2 find it
 * in *state (the engine hands each kernel's prepare the state of the one
 * before); its load sets each kernel's grid, shared memory and, for main
 * and post, the programmatic dependent launch. */
static gdt_status bwd_prepare(const gdt_facts *f, const gdt_plan_id *p, int i, const gdt_cu_api *cu,
                              CUfunction fn, CUlaunchConfig *cfg, void **state, gdt_error *e)
{
    if (!bwd_tma(p)) {
        *state = NULL;
        return GDT_STATUS_OK;
    }
    if (i > 0 && !*state)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "sdpa_bwd.nvrtc: kernel %d finds no launch "
                             "state from kernel 0", i);
    if (i == 0) {
        gdt_attn_bwd_tma *t = launch_state(sizeof *t);
        if (!t)
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sdpa_bwd.nvrtc: launch state");
        *state = t;
        gdt__attn_bwd_tma_init(t, "sdpa_bwd.nvrtc", f);
        t->det = bwd_det(p);
    }
    return gdt__attn_bwd_tma_load(*state, cu, i, fn, f, cfg, e);
}

static void tma_release(void *state) { free(state); }

/* PIPE=1: the forward's launch state and its tile counters. */
static void fwd_release(void *state)
{
    gdt__attn_fwd_tma_release(state);
    free(state);
}

const gdt_nvrtc_template gdt__tmpl_attn_fwd = {
    .rows = &gdt__rows_attention_fwd,
    .source = "kernels/attn_fwd.cuh",
    .nkernels = 1,
    .entries = {"gdt_attn_fwd"},
    .defines = fwd_defines,
    .launch = fwd_launch,
    .args = fwd_args,
    .workspace = NULL,
    .check = fwd_check,
    .prepare = fwd_prepare,
    .release = fwd_release,
};

const gdt_nvrtc_template gdt__tmpl_attn_bwd = {
    .rows = &gdt__rows_attention_bwd,
    .source = "kernels/attn_bwd.cuh",
    .nkernels = 3,
    .entries = {"gdt_attn_bwd_pre", "gdt_attn_bwd_main", "gdt_attn_bwd_post"},
    .defines = bwd_defines,
    .launch = bwd_launch,
    .args = bwd_args,
    .workspace = bwd_workspace,
    .check = bwd_check,
    .prepare = bwd_prepare,
    .release = tma_release,
};
