/* cuBLASLt algo configurations as plan identities, the enumeration space
 * of one algo, and the lowering of a gemm problem to cuBLASLt's
 * column-major view.  Pure: no library call, so the CPU tests cover it.
 *
 * Knobs: the backend's numbers where the meaning matches (TILE_SIZE,
 * STAGES, SPLIT_K, REDUCTION_MODE, SWIZZLE), gdtune's band otherwise (ALGO,
 * CUSTOM_OPTION, INNER_SHAPE, CLUSTER_SHAPE).  Values are cuBLASLt's own
 * enum values (TILE_SIZE=20 is CUBLASLT_MATMUL_TILE_128x128), so a name
 * replays on the library that listed it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cublaslt/gdt_cublaslt.h"

/* One knob per config field: its type, where it lives, its default (left
 * out of the name), its range. */
typedef struct knob_field {
    int type;
    size_t offset, size; /* into gdt__cublaslt_config */
    bool is_signed;
    int64_t def, lo, hi;
} knob_field;

#define FIELD(knob, member, sgn, def, lo, hi)                                                     \
    {knob, offsetof(gdt__cublaslt_config, member), sizeof(((gdt__cublaslt_config *)0)->member), \
     sgn, def, lo, hi}

static const knob_field fields[] = {
    FIELD(GDT_KNOB_ALGO, algo, true, -1, 0, INT32_MAX),
    FIELD(GDT_KNOB_TILE_SIZE, tile, false, 0, 0, UINT32_MAX),
    FIELD(GDT_KNOB_STAGES, stages, false, 0, 0, UINT32_MAX),
    FIELD(GDT_KNOB_SPLIT_K, split_k, true, 1, 1, INT32_MAX),
    FIELD(GDT_KNOB_REDUCTION_MODE, reduction, false, 0, 0, UINT32_MAX),
    FIELD(GDT_KNOB_SWIZZLE, swizzle, false, 0, 0, UINT32_MAX),
    FIELD(GDT_KNOB_CUSTOM_OPTION, custom, false, 0, 0, UINT32_MAX),
    FIELD(GDT_KNOB_INNER_SHAPE, inner_shape, false, 0, 0, UINT16_MAX),
    FIELD(GDT_KNOB_CLUSTER_SHAPE, cluster_shape, false, 0, 0, UINT16_MAX),
};
#define NFIELDS ((int)(sizeof fields / sizeof fields[0]))
_Static_assert(sizeof fields / sizeof fields[0] <= GDT_MAX_KNOBS, "a config must fit one identity");

static int64_t field_get(const gdt__cublaslt_config *c, const knob_field *f)
{
    const char *p = (const char *)c + f->offset;
    if (f->size == 2) return *(const uint16_t *)(const void *)p;
    if (f->is_signed) return *(const int32_t *)(const void *)p;
    return *(const uint32_t *)(const void *)p;
}

static void field_set(gdt__cublaslt_config *c, const knob_field *f, int64_t v)
{
    char *p = (char *)c + f->offset;
    if (f->size == 2) *(uint16_t *)(void *)p = (uint16_t)v;
    else if (f->is_signed) *(int32_t *)(void *)p = (int32_t)v;
    else *(uint32_t *)(void *)p = (uint32_t)v;
}

void gdt__cublaslt_config_to_id(const gdt__cublaslt_config *c, int64_t engine_id, gdt_plan_id *id)
{
    memset(id, 0, sizeof *id);
    id->engine_id = engine_id;
    for (int i = 0; i < NFIELDS; i++) {
        int64_t v = field_get(c, &fields[i]);
        if (v != fields[i].def) gdt_plan_id_set_knob(id, fields[i].type, v);
    }
}

static const knob_field *field_of(int type)
{
    for (int i = 0; i < NFIELDS; i++)
        if (fields[i].type == type) return &fields[i];
    return NULL;
}

gdt_status gdt__cublaslt_config_from_id(const gdt_plan_id *id, gdt__cublaslt_config *c, gdt_error *e)
{
    char name[512];
    memset(c, 0, sizeof *c);
    for (int i = 0; i < NFIELDS; i++) field_set(c, &fields[i], fields[i].def);
    gdt_plan_id_format(id, name, sizeof name);
    for (int i = 0; i < id->nknobs; i++) {
        const knob_field *f = field_of(id->knobs[i].type);
        const char *kn = gdt_knob_name(id->knobs[i].type);
        int64_t v = id->knobs[i].value;
        if (!f)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "cublaslt: %s: knob %s is not a cuBLASLt algo attribute (expected "
                                 "ALGO, TILE_SIZE, STAGES, SPLIT_K, REDUCTION_MODE, SWIZZLE, "
                                 "CUSTOM_OPTION, INNER_SHAPE, CLUSTER_SHAPE)", name, kn ? kn : "?");
        if (v < f->lo || v > f->hi)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "cublaslt: %s: knob %s: expected %" PRId64 "..%" PRId64
                                 ", got %" PRId64, name, kn, f->lo, f->hi, v);
        field_set(c, f, v);
    }
    if (c->algo < 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "cublaslt: %s: no ALGO knob (the algo id)", name);
    return GDT_STATUS_OK;
}

bool gdt__cublaslt_config_equal(const gdt__cublaslt_config *a, const gdt__cublaslt_config *b)
{
    for (int i = 0; i < NFIELDS; i++)
        if (field_get(a, &fields[i]) != field_get(b, &fields[i])) return false;
    return true;
}

const char *gdt__cublaslt_rank_why(int rank)
{
    static const char *const why[GDT__CUBLASLT_TOP] = {
        "cuBLASLt heuristic rank 1", "cuBLASLt heuristic rank 2", "cuBLASLt heuristic rank 3",
        "cuBLASLt heuristic rank 4", "cuBLASLt heuristic rank 5", "cuBLASLt heuristic rank 6",
        "cuBLASLt heuristic rank 7", "cuBLASLt heuristic rank 8",
    };
    return rank >= 1 && rank <= GDT__CUBLASLT_TOP ? why[rank - 1] : "cuBLASLt heuristic";
}

/* ------------------------------------------------------ enumeration space */

static const int32_t splits[] = {2, 4, 8, 16};
#define NSPLITS ((int)(sizeof splits / sizeof splits[0]))
static const uint32_t fp32_schemes[] = {CUBLASLT_REDUCTION_SCHEME_INPLACE,
                                        CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE};
#define NSCHEMES ((int)(sizeof fp32_schemes / sizeof fp32_schemes[0]))

/* The (split, scheme) pairs: (1, NONE) first, then the split ones. */
static int split_pairs(const gdt__cublaslt_space *s, int32_t split[], uint32_t scheme[])
{
    int n = 0;
    split[n] = 1, scheme[n++] = CUBLASLT_REDUCTION_SCHEME_NONE;
    for (int i = 0; s->split_k && i < NSPLITS; i++)
        for (int j = 0; j < NSCHEMES; j++)
            if (s->reduction_mask & fp32_schemes[j]) split[n] = splits[i], scheme[n++] = fp32_schemes[j];
    return n;
}

/* Radix of each axis, fastest first; an empty id list counts as one
 * (the UNDEFINED id 0). */
static void radix(const gdt__cublaslt_space *s, int64_t r[5])
{
    int32_t sp[1 + NSPLITS * NSCHEMES];
    uint32_t sc[1 + NSPLITS * NSCHEMES];
    r[0] = s->ntiles > 0 ? s->ntiles : 1;
    r[1] = s->nstages > 0 ? s->nstages : 1;
    r[2] = split_pairs(s, sp, sc);
    r[3] = s->swizzle ? 2 : 1;
    r[4] = s->custom_max > 0 ? (int64_t)s->custom_max + 1 : 1;
}

int64_t gdt__cublaslt_space_size(const gdt__cublaslt_space *s)
{
    int64_t r[5], n = 1;
    radix(s, r);
    for (int i = 0; i < 5; i++) n *= r[i];
    return n;
}

bool gdt__cublaslt_space_at(const gdt__cublaslt_space *s, int64_t i, gdt__cublaslt_config *c)
{
    int64_t r[5], d[5];
    int32_t sp[1 + NSPLITS * NSCHEMES];
    uint32_t sc[1 + NSPLITS * NSCHEMES];
    if (i < 0 || i >= gdt__cublaslt_space_size(s)) return false;
    radix(s, r);
    split_pairs(s, sp, sc);
    for (int k = 0; k < 5; k++) d[k] = i % r[k], i /= r[k];
    *c = (gdt__cublaslt_config){
        .algo = s->algo,
        .tile = s->ntiles > 0 ? s->tiles[d[0]] : 0,
        .stages = s->nstages > 0 ? s->stages[d[1]] : 0,
        .split_k = sp[d[2]],
        .reduction = sc[d[2]],
        .swizzle = (uint32_t)d[3],
        .custom = (uint32_t)d[4],
    };
    return true;
}

/* ------------------------------------------------------------- lowering */

/* One operand of the problem as a stored column-major matrix: unit stride
 * on the column axis (row-major: the stored matrix is the transpose) or on
 * the row axis. */
static gdt_status stored(const char *what, const int64_t st[3], int64_t rows, int64_t cols,
                         bool *row_major, int64_t *ld, gdt_error *e)
{
    if (st[2] == 1 && st[1] >= cols && st[1] >= 1) return *row_major = true, *ld = st[1], GDT_STATUS_OK;
    if (st[1] == 1 && st[2] >= rows && st[2] >= 1) return *row_major = false, *ld = st[2], GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                         "cublaslt: operand %s: strides (%" PRId64 ", %" PRId64 ", %" PRId64
                         ") have no unit-stride axis with a leading dimension covering it", what,
                         st[0], st[1], st[2]);
}

gdt_status gdt__cublaslt_lower(const gdt_problem *p, gdt__cublaslt_lowering *out, gdt_error *e)
{
    if (p->family != GDT_FAMILY_GEMM)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "cublaslt: serves gemm, not %s",
                             gdt_family_name(p->family));
    const gdt_gemm_desc *d = &p->u.gemm;
    if (d->dtype != GDT_DTYPE_BF16 && d->dtype != GDT_DTYPE_FP16)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "cublaslt: dtype %s: expected bf16 or fp16",
                             gdt_dtype_name(d->dtype));
    if (d->batch > INT32_MAX)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "cublaslt: batch %" PRId64 " above %d",
                             d->batch, INT32_MAX);
    bool a_row = false, b_row = false, c_row = false; /* set by stored() on success */
    int64_t lda = 0, ldb = 0, ldc = 0;
    gdt_status s = stored("A", d->a_stride, d->m, d->k, &a_row, &lda, e);
    if (!s) s = stored("B", d->b_stride, d->k, d->n, &b_row, &ldb, e);
    if (!s) s = stored("C", d->c_stride, d->m, d->n, &c_row, &ldc, e);
    if (s) return s;
    if (!c_row)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "cublaslt: operand C: expected row-major");
    memset(out, 0, sizeof *out);
    /* First operand: B^T (n x k).  Row-major B is stored as B^T already. */
    out->trans[0] = b_row ? CUBLAS_OP_N : CUBLAS_OP_T;
    out->rows[0] = (uint64_t)(b_row ? d->n : d->k), out->cols[0] = (uint64_t)(b_row ? d->k : d->n);
    out->ld[0] = ldb, out->batch_stride[0] = d->b_stride[0];
    /* Second operand: A^T (k x m).  Row-major A is stored as A^T. */
    out->trans[1] = a_row ? CUBLAS_OP_N : CUBLAS_OP_T;
    out->rows[1] = (uint64_t)(a_row ? d->k : d->m), out->cols[1] = (uint64_t)(a_row ? d->m : d->k);
    out->ld[1] = lda, out->batch_stride[1] = d->a_stride[0];
    out->rows[2] = (uint64_t)d->n, out->cols[2] = (uint64_t)d->m;
    out->ld[2] = ldc, out->batch_stride[2] = d->c_stride[0];
    out->batch = (int32_t)d->batch;
    out->dtype = d->dtype == GDT_DTYPE_BF16 ? CUDA_R_16BF : CUDA_R_16F;
    return GDT_STATUS_OK;
}
