/* The cuBLASLt engine (slot gemm.cublaslt): support check, build, execute,
 * the ops table, and the plans it proposes: the heuristic's best
 * GDT__CUBLASLT_TOP (cublasLtMatmulAlgoGetHeuristic) and, for sweeps, the
 * enumeration (cublasLtMatmulAlgoGetIds, each algo's capabilities, every
 * config cublasLtMatmulAlgoCheck accepts, at most `cap` per algo after at
 * most GDT__CUBLASLT_CHECKS_PER_ALGO checks, GDT__CUBLASLT_ENUM_MAX in all,
 * algos in the order cuBLASLt gives their ids).
 *
 * A plan id is (the slot's engine id, the config's knobs:
 * cublaslt_knobs.c); build rebuilds exactly that algo (AlgoInit and every
 * config attribute) and asks cublasLtMatmulAlgoCheck, so a listed plan and
 * a replayed name run the same kernel.  fp32 compute and scale, alpha 1,
 * beta 0, C written in place; workspace: what AlgoCheck says the algo
 * needs, at most GDT__CUBLASLT_MAX_WORKSPACE, caller-allocated. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cublaslt/gdt_cublaslt.h"
#include "gdt_util.h"

struct gdt_compiled {
    gdt_plan_id id;
    cublasLtHandle_t handle;
    gdt__cublaslt_descs d;
    cublasLtMatmulAlgo_t algo;
    size_t workspace;
    gdt_problem problem;
};

/* cuBLASLt's operands 0, 1, 2: it computes C^T = B^T A^T (gdt__cublaslt_lower). */
static const gdt_operand_role lt_roles[3] = {GDT_OPERAND_B, GDT_OPERAND_A, GDT_OPERAND_C};
static const char WHY_ENUM[] = "cuBLASLt algo enumeration";

/* ------------------------------------------------------------ descriptors */

void gdt__cublaslt_descs_destroy(gdt__cublaslt_descs *d)
{
    const gdt__cublaslt_api *L = gdt__cublaslt(NULL);
    if (!L || !d) return;
    for (int i = 0; i < 3; i++)
        if (d->layout[i]) L->cublasLtMatrixLayoutDestroy(d->layout[i]);
    if (d->op) L->cublasLtMatmulDescDestroy(d->op);
    memset(d, 0, sizeof *d);
}

static gdt_status layout_make(const gdt__cublaslt_api *L, const gdt__cublaslt_lowering *w, int i,
                              cublasLtMatrixLayout_t *out, gdt_error *e)
{
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatrixLayoutCreate(out, w->dtype, w->rows[i], w->cols[i], w->ld[i]));
    if (w->batch <= 1) return GDT_STATUS_OK;
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                              &w->batch, sizeof w->batch));
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatrixLayoutSetAttribute(
                              *out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &w->batch_stride[i],
                              sizeof w->batch_stride[i]));
    return GDT_STATUS_OK;
}

static gdt_status descs_fill(const gdt__cublaslt_api *L, const gdt__cublaslt_lowering *w,
                             gdt__cublaslt_descs *d, gdt_error *e)
{
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulDescCreate(&d->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulDescSetAttribute(d->op, CUBLASLT_MATMUL_DESC_TRANSA,
                                                            &w->trans[0], sizeof w->trans[0]));
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulDescSetAttribute(d->op, CUBLASLT_MATMUL_DESC_TRANSB,
                                                            &w->trans[1], sizeof w->trans[1]));
    for (int i = 0; i < 3; i++) {
        gdt_status s = layout_make(L, w, i, &d->layout[i], e);
        if (s) return s;
    }
    return GDT_STATUS_OK;
}

gdt_status gdt__cublaslt_descs_create(const gdt_problem *p, gdt__cublaslt_descs *d, gdt_error *e)
{
    gdt__cublaslt_lowering w;
    const gdt__cublaslt_api *L = gdt__cublaslt(e);
    memset(d, 0, sizeof *d);
    if (!L) return GDT_STATUS_NOT_SUPPORTED;
    gdt_status s = gdt__cublaslt_lower(p, &w, e);
    if (!s) s = descs_fill(L, &w, d, e);
    if (s) gdt__cublaslt_descs_destroy(d);
    return s;
}

static cudaDataType_t lt_dtype(const gdt_problem *p)
{
    return p->u.gemm.dtype == GDT_DTYPE_FP16 ? CUDA_R_16F : CUDA_R_16BF;
}

/* ------------------------------------------------------------------ algos */

/* Every config attribute, with the width cuBLASLt stores it in. */
#define CONFIG_ATTRS(X)                                                                       \
    X(CUBLASLT_ALGO_CONFIG_TILE_ID, tile) X(CUBLASLT_ALGO_CONFIG_STAGES_ID, stages)            \
    X(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, split_k)                                                \
    X(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, reduction)                                        \
    X(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, swizzle) X(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, custom) \
    X(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, inner_shape)                                        \
    X(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, cluster_shape)

gdt_status gdt__cublaslt_algo_init(cublasLtHandle_t h, const gdt_problem *p,
                                   const gdt__cublaslt_config *c, cublasLtMatmulAlgo_t *algo,
                                   gdt_error *e)
{
    const gdt__cublaslt_api *L = gdt__cublaslt(e);
    cudaDataType_t t = lt_dtype(p);
    if (!L) return GDT_STATUS_NOT_SUPPORTED;
    memset(algo, 0, sizeof *algo);
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulAlgoInit(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, t, t, t, t,
                                                    c->algo, algo));
#define SET_ATTR(attr, member)                                                                \
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulAlgoConfigSetAttribute(algo, attr, &c->member,       \
                                                                  sizeof c->member));
    CONFIG_ATTRS(SET_ATTR)
#undef SET_ATTR
    return GDT_STATUS_OK;
}

gdt_status gdt__cublaslt_algo_config(const cublasLtMatmulAlgo_t *algo, gdt__cublaslt_config *c,
                                     gdt_error *e)
{
    const gdt__cublaslt_api *L = gdt__cublaslt(e);
    size_t got = 0;
    if (!L) return GDT_STATUS_NOT_SUPPORTED;
    memset(c, 0, sizeof *c);
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &c->algo,
                                                                  sizeof c->algo, &got));
#define GET_ATTR(attr, member)                                                                \
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulAlgoConfigGetAttribute(algo, attr, &c->member,       \
                                                                  sizeof c->member, &got));
    CONFIG_ATTRS(GET_ATTR)
#undef GET_ATTR
    return GDT_STATUS_OK;
}

/* One capability attribute: a scalar of `size` bytes. */
static uint32_t cap_u32(const gdt__cublaslt_api *L, const cublasLtMatmulAlgo_t *a,
                        cublasLtMatmulAlgoCapAttributes_t attr)
{
    uint32_t v = 0;
    size_t got = 0;
    return L->cublasLtMatmulAlgoCapGetAttribute(a, attr, &v, sizeof v, &got) == CUBLAS_STATUS_SUCCESS ? v : 0;
}

/* An id array capability, at most GDT__CUBLASLT_MAX_CAP_IDS of it. */
static int cap_ids(const gdt__cublaslt_api *L, const cublasLtMatmulAlgo_t *a,
                   cublasLtMatmulAlgoCapAttributes_t attr, uint32_t out[GDT__CUBLASLT_MAX_CAP_IDS])
{
    size_t need = 0, got = 0;
    if (L->cublasLtMatmulAlgoCapGetAttribute(a, attr, NULL, 0, &need) != CUBLAS_STATUS_SUCCESS || !need)
        return 0;
    uint32_t *all = malloc(need);
    int n = 0;
    if (all && L->cublasLtMatmulAlgoCapGetAttribute(a, attr, all, need, &got) == CUBLAS_STATUS_SUCCESS)
        for (size_t i = 0; i < got / sizeof *all && n < GDT__CUBLASLT_MAX_CAP_IDS; i++) out[n++] = all[i];
    free(all);
    return n;
}

/* NOT_SUPPORTED when the algo asks more alignment than execute promises. */
static gdt_status alignment_ok(const gdt__cublaslt_api *L, const cublasLtMatmulAlgo_t *a, gdt_error *e)
{
    static const struct { cublasLtMatmulAlgoCapAttributes_t attr; const char *what; } caps[] = {
        {CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES, "B (its first operand)"},
        {CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES, "A (its second operand)"},
        {CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES, "C"},
        {CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES, "C (as D)"},
    };
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        uint32_t need = cap_u32(L, a, caps[i].attr);
        if (need > GDT__CUBLASLT_ALIGN)
            return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                                 "the algo needs operand %s %u-byte aligned; gdtune promises %d",
                                 caps[i].what, need, GDT__CUBLASLT_ALIGN);
    }
    return GDT_STATUS_OK;
}

/* AlgoCheck on the problem: OK with the workspace it needs, or
 * NOT_SUPPORTED with cuBLASLt's status name. */
static gdt_status algo_check(cublasLtHandle_t h, const gdt__cublaslt_descs *d,
                             const cublasLtMatmulAlgo_t *algo, size_t *workspace, gdt_error *e)
{
    const gdt__cublaslt_api *L = gdt__cublaslt(e);
    cublasLtMatmulHeuristicResult_t r;
    if (!L) return GDT_STATUS_NOT_SUPPORTED;
    memset(&r, 0, sizeof r);
    cublasStatus_t st = L->cublasLtMatmulAlgoCheck(h, d->op, d->layout[0], d->layout[1], d->layout[2],
                                                   d->layout[2], algo, &r);
    if (st != CUBLAS_STATUS_SUCCESS)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "cublasLtMatmulAlgoCheck: %s",
                             gdt__cublaslt_status_name(st));
    if (r.workspaceSize > GDT__CUBLASLT_MAX_WORKSPACE)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "needs %zu bytes of workspace, above %zu",
                             r.workspaceSize, GDT__CUBLASLT_MAX_WORKSPACE);
    *workspace = r.workspaceSize;
    return alignment_ok(L, algo, e);
}

/* -------------------------------------------------------------- heuristic */

static gdt_status pref_fill(const gdt__cublaslt_api *L, cublasLtMatmulPreference_t pref, gdt_error *e)
{
    uint64_t ws = GDT__CUBLASLT_MAX_WORKSPACE;
    uint32_t align = GDT__CUBLASLT_ALIGN;
    /* fp32 reductions only: the family's contract is fp32 accumulation. */
    uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_INPLACE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    static const cublasLtMatmulPreferenceAttributes_t aligns[] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulPreferenceSetAttribute(
                              pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulPreferenceSetAttribute(
                              pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes, sizeof schemes));
    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++)
        GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulPreferenceSetAttribute(pref, aligns[i], &align, sizeof align));
    return GDT_STATUS_OK;
}

static gdt_status heuristic_run(const gdt__cublaslt_api *L, cublasLtHandle_t h,
                                const gdt__cublaslt_descs *d, cublasLtMatmulPreference_t pref,
                                int max, cublasLtMatmulHeuristicResult_t *out, int *n, gdt_error *e)
{
    int got = 0;
    gdt_status s = pref_fill(L, pref, e);
    if (s) return s;
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulAlgoGetHeuristic(h, d->op, d->layout[0], d->layout[1],
                                                            d->layout[2], d->layout[2], pref, max,
                                                            out, &got));
    for (int i = 0; i < got; i++)
        if (out[i].state == CUBLAS_STATUS_SUCCESS) out[(*n)++] = out[i];
    return GDT_STATUS_OK;
}

gdt_status gdt__cublaslt_heuristic(cublasLtHandle_t h, const gdt_problem *p,
                                   const gdt__cublaslt_descs *d, int max,
                                   cublasLtMatmulHeuristicResult_t *out, int *n, gdt_error *e)
{
    const gdt__cublaslt_api *L = gdt__cublaslt(e);
    cublasLtMatmulPreference_t pref = NULL;
    (void)p;
    *n = 0;
    if (!L) return GDT_STATUS_NOT_SUPPORTED;
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmulPreferenceCreate(&pref));
    gdt_status s = heuristic_run(L, h, d, pref, max, out, n, e);
    L->cublasLtMatmulPreferenceDestroy(pref);
    /* A problem no algo serves proposes nothing rather than failing. */
    if (s == GDT_STATUS_NOT_SUPPORTED) s = GDT_STATUS_OK, *n = 0;
    return s;
}

/* ------------------------------------------------------------ engine ops */

static gdt_status lt_check_support(const gdt_engine_slot *slot, const gdt_facts *f,
                                   const gdt_plan_id *plan, gdt_error *e)
{
    gdt__cublaslt_lowering w;
    gdt__cublaslt_config c;
    (void)slot;
    gdt_status s = gdt__cublaslt_lower(&f->problem, &w, e);
    if (!s && plan) s = gdt__cublaslt_config_from_id(plan, &c, e);
    if (!s && !gdt__cublaslt(e)) s = GDT_STATUS_NOT_SUPPORTED;
    return s;
}

static void lt_destroy(gdt_compiled *c)
{
    if (!c) return;
    gdt__cublaslt_descs_destroy(&c->d);
    free(c);
}

/* The algo of c->id on c's descriptors, checked; a step cuBLASLt refuses
 * is a decline naming the plan and cuBLASLt's status. */
static gdt_status lt_prepare(gdt_compiled *c, const gdt_facts *f, gdt_error *e)
{
    gdt__cublaslt_config cfg;
    gdt_error why = {0};
    char name[512];
    gdt_status s = gdt__cublaslt_config_from_id(&c->id, &cfg, e);
    if (!s) s = gdt__cublaslt_handle(&c->handle, e);
    if (!s) s = gdt__cublaslt_descs_create(&f->problem, &c->d, e);
    if (s) return s;
    s = gdt__cublaslt_algo_init(c->handle, &f->problem, &cfg, &c->algo, &why);
    if (!s) s = algo_check(c->handle, &c->d, &c->algo, &c->workspace, &why);
    if (!s) return GDT_STATUS_OK;
    gdt_plan_id_format(&c->id, name, sizeof name);
    return gdt_error_set(e, s, "cublaslt: %s declined: %s", name, why.msg);
}

static gdt_status lt_build(const gdt_engine_slot *slot, const gdt_facts *f, const gdt_plan_id *plan,
                           const gdt_build_opts *opts, gdt_compiled **out, gdt_build_info *info,
                           gdt_error *e)
{
    *out = NULL;
    if (info) memset(info, 0, sizeof *info);
    gdt_status s = lt_check_support(slot, f, plan, e);
    if (s) return s;
    if (opts && opts->compile_only)
        return gdt_error_set(e, GDT_STATUS_NO_DEVICE, "cublaslt: cuBLASLt plans are built on the "
                             "device, not compiled ahead (compile-only build for sm%d)", opts->device.arch);
    gdt_compiled *c = calloc(1, sizeof *c);
    if (!c) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "cublaslt: out of memory for a plan");
    double t0 = gdt_now();
    c->id = *plan;
    c->problem = f->problem;
    if ((s = lt_prepare(c, f, e))) {
        lt_destroy(c);
        return s;
    }
    if (info) info->compile_seconds = gdt_now() - t0;
    *out = c;
    return GDT_STATUS_OK;
}

static size_t lt_workspace_size(const gdt_compiled *c) { return c ? c->workspace : 0; }

static gdt_status lt_operands(const gdt_compiled *c, const gdt_operands *ops, void *ws, size_t wsb,
                              gdt_error *e)
{
    gdt_status s = gdt_operands_check(&c->problem, ops, e);
    if (s) return s;
    for (int i = 0; i < 3; i++) {
        gdt_operand_role r = lt_roles[i];
        if ((uintptr_t)ops->ptr[r] % GDT__CUBLASLT_ALIGN)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "cublaslt: operand %s: pointer %p is not %d-byte aligned",
                                 gdt_operand_name(r), ops->ptr[r], GDT__CUBLASLT_ALIGN);
    }
    if (wsb < c->workspace || (c->workspace && !ws))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "cublaslt: workspace: declared %zu bytes, got %zu%s",
                             c->workspace, wsb, ws ? "" : " (NULL pointer)");
    return GDT_STATUS_OK;
}

static gdt_status lt_execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t wsb,
                             void *stream, gdt_error *e)
{
    static const float alpha = 1.0f, beta = 0.0f;
    const gdt__cublaslt_api *L = gdt__cublaslt(e);
    gdt_status s = L ? lt_operands(c, ops, ws, wsb, e) : GDT_STATUS_NOT_SUPPORTED;
    if (s) return s;
    void *x = ops->ptr[lt_roles[0]], *y = ops->ptr[lt_roles[1]], *z = ops->ptr[lt_roles[2]];
    GDT_CHECK_CUBLASLT(e, L->cublasLtMatmul(c->handle, c->d.op, &alpha, x, c->d.layout[0], y,
                                            c->d.layout[1], &beta, z, c->d.layout[2], z,
                                            c->d.layout[2], &c->algo, ws, c->workspace,
                                            (cudaStream_t)stream));
    return GDT_STATUS_OK;
}

/* -------------------------------------------------------------- proposals */

static gdt_status list_push(gdt_plan_entry **list, int *n, const gdt_plan_entry *x, gdt_error *e)
{
    for (int i = 0; i < *n; i++)
        if (gdt_plan_id_equal(&(*list)[i].id, &x->id)) return GDT_STATUS_OK;
    gdt_plan_entry *l = realloc(*list, (size_t)(*n + 1) * sizeof *l);
    if (!l) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "cublaslt: out of memory for the plan list");
    l[(*n)++] = *x;
    *list = l;
    return GDT_STATUS_OK;
}

/* The heuristic and the algos answer for the device this process runs on:
 * a problem planned for another arch gets nothing from them. */
static gdt_status device_matches(const gdt_facts *f, gdt_error *e)
{
    int major = 0, minor = 0;
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
    if (major * 10 + minor != f->device.arch)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "cublaslt: the device is sm%d, the problem is planned for sm%d",
                             major * 10 + minor, f->device.arch);
    return GDT_STATUS_OK;
}

/* What list and enumerate share: the problem served, the handle, the
 * device's arch, the descriptors. */
static gdt_status lists_ready(const gdt_facts *f, cublasLtHandle_t *h, gdt__cublaslt_descs *d,
                              gdt_error *e)
{
    gdt__cublaslt_lowering w;
    memset(d, 0, sizeof *d);
    gdt_status s = gdt__cublaslt_lower(&f->problem, &w, e);
    if (!s) s = gdt__cublaslt_handle(h, e);
    if (!s) s = device_matches(f, e);
    if (!s) s = gdt__cublaslt_descs_create(&f->problem, d, e);
    return s;
}

static gdt_status heur_entries(const gdt_engine_slot *slot, const cublasLtMatmulHeuristicResult_t *r,
                               int nr, gdt_plan_entry **out, int *n, gdt_error *e)
{
    int64_t id = gdt_engine_id(slot->family, slot->slot);
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < nr && !s; i++) {
        gdt__cublaslt_config c;
        gdt_plan_entry x = {.mode = GDT_MODE_A, .why = gdt__cublaslt_rank_why(i + 1), .untimed = -1};
        if ((s = gdt__cublaslt_algo_config(&r[i].algo, &c, e))) break;
        gdt__cublaslt_config_to_id(&c, id, &x.id);
        s = list_push(out, n, &x, e);
    }
    return s;
}

static gdt_status lt_list(const gdt_engine_slot *slot, const gdt_facts *f, gdt_plan_entry **out,
                          int *n, gdt_error *e)
{
    cublasLtHandle_t h = NULL;
    gdt__cublaslt_descs d;
    cublasLtMatmulHeuristicResult_t r[GDT__CUBLASLT_TOP];
    int nr = 0;
    *out = NULL, *n = 0;
    gdt_status s = lists_ready(f, &h, &d, e);
    if (!s) s = gdt__cublaslt_heuristic(h, &f->problem, &d, GDT__CUBLASLT_TOP, r, &nr, e);
    if (!s) s = heur_entries(slot, r, nr, out, n, e);
    gdt__cublaslt_descs_destroy(&d);
    if (s) free(*out), *out = NULL, *n = 0;
    return s;
}

/* One algo's capability space. */
static void space_read(const gdt__cublaslt_api *L, const cublasLtMatmulAlgo_t *a, int32_t algo,
                       gdt__cublaslt_space *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->algo = algo;
    sp->ntiles = cap_ids(L, a, CUBLASLT_ALGO_CAP_TILE_IDS, sp->tiles);
    sp->nstages = cap_ids(L, a, CUBLASLT_ALGO_CAP_STAGES_IDS, sp->stages);
    sp->split_k = cap_u32(L, a, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0;
    sp->reduction_mask = cap_u32(L, a, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
    sp->swizzle = cap_u32(L, a, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT) != 0;
    sp->custom_max = (int32_t)cap_u32(L, a, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX);
}

/* The first `cap` configs of one algo that AlgoCheck accepts. */
static gdt_status walk_algo(const gdt_engine_slot *slot, const gdt_facts *f, cublasLtHandle_t h,
                            const gdt__cublaslt_descs *d, int32_t algo, int cap,
                            gdt_plan_entry **out, int *n, gdt_error *e)
{
    const gdt__cublaslt_api *L = gdt__cublaslt(e);
    gdt__cublaslt_config c = {.algo = algo, .split_k = 1};
    cublasLtMatmulAlgo_t a;
    gdt__cublaslt_space sp;
    gdt_error skip;
    if (gdt__cublaslt_algo_init(h, &f->problem, &c, &a, &skip)) return GDT_STATUS_OK;
    space_read(L, &a, algo, &sp);
    gdt_status s = GDT_STATUS_OK;
    size_t ws;
    for (int64_t i = 0, made = 0; !s && made < cap && i < GDT__CUBLASLT_CHECKS_PER_ALGO &&
                                  gdt__cublaslt_space_at(&sp, i, &c); i++) {
        if (gdt__cublaslt_algo_init(h, &f->problem, &c, &a, &skip) || algo_check(h, d, &a, &ws, &skip))
            continue;
        gdt_plan_entry x = {.mode = GDT_MODE_COUNT, .why = WHY_ENUM, .untimed = -1};
        gdt__cublaslt_config_to_id(&c, gdt_engine_id(slot->family, slot->slot), &x.id);
        s = list_push(out, n, &x, e);
        made++;
    }
    return s;
}

static gdt_status lt_enumerate(const gdt_engine_slot *slot, const gdt_facts *f, int cap,
                               gdt_plan_entry **out, int *n, gdt_error *e)
{
    cublasLtHandle_t h = NULL;
    gdt__cublaslt_descs d;
    int ids[GDT__CUBLASLT_MAX_IDS], nids = 0;
    *out = NULL, *n = 0;
    if (cap <= 0)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "cublaslt: enumerate: cap must be positive (got %d)", cap);
    gdt_status s = lists_ready(f, &h, &d, e);
    const gdt__cublaslt_api *L = s ? NULL : gdt__cublaslt(e);
    cudaDataType_t t = lt_dtype(&f->problem);
    if (L && L->cublasLtMatmulAlgoGetIds(h, CUBLAS_COMPUTE_32F, CUDA_R_32F, t, t, t, t,
                                         GDT__CUBLASLT_MAX_IDS, ids, &nids) != CUBLAS_STATUS_SUCCESS)
        nids = 0; /* no algo for these types: nothing to enumerate */
    for (int i = 0; !s && i < nids && *n < GDT__CUBLASLT_ENUM_MAX; i++) {
        int left = GDT__CUBLASLT_ENUM_MAX - *n;
        s = walk_algo(slot, f, h, &d, ids[i], cap < left ? cap : left, out, n, e);
    }
    gdt__cublaslt_descs_destroy(&d);
    if (s) free(*out), *out = NULL, *n = 0;
    return s;
}

const gdt__library_engine gdt__cublaslt_engine = {
    .ops = {
        .check_support = lt_check_support,
        .build = lt_build,
        .workspace_size = lt_workspace_size,
        .execute = lt_execute,
        .destroy = lt_destroy,
    },
    .list = lt_list,
    .enumerate = lt_enumerate,
};
