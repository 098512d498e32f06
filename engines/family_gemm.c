/* The gemm family: C[batch, m, n] = A[batch, m, k] · B[batch, k, n].  Its
 * layouts are the strides: the unit stride on the last axis means
 * row-major. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gdt_family.h"

static const char *const majors[] = {"row", "col"};

static void gemm_defaults(gdt_problem *p)
{
    gdt_gemm_desc *g = &p->u.gemm;
    g->batch = 1;
    g->m = g->n = g->k = 4096;
    g->dtype = GDT_DTYPE_BF16;
    g->a_stride[2] = 1; /* row-major marks, completed by set_strides */
    g->b_stride[2] = 1;
}

#define G(f) offsetof(gdt_problem, u.gemm.f)
/* A key that sets the one member of its name. */
#define KEY(kind, m) GDT__KEY_ROW(#m, kind, G(m), G(m))
#define MAJOR(key, f) {.name = key, .kind = GDT__KEY_MAJOR, .off = {G(f), G(f)}, .names = majors, .nnames = 2}
static const gdt__shape_key gemm_keys[] = {
    KEY(DIM, batch),
    KEY(DIM, m),
    KEY(DIM, n),
    KEY(DIM, k),
    KEY(DTYPE, dtype),
    MAJOR("a", a_stride),
    MAJOR("b", b_stride),
};
#undef MAJOR
#undef KEY

/* set_strides reads the current layout back from the strides before
 * recomputing them; a fresh mark (0, 0 on the last two axes) is row-major. */
static bool gemm_row(const int64_t st[3]) { return st[2] == 1 || (st[1] == 0 && st[2] == 0); }

static void gemm_set_strides(gdt_problem *p)
{
    gdt_gemm_desc *g = &p->u.gemm;
    bool ar = gemm_row(g->a_stride), br = gemm_row(g->b_stride);
    int64_t mk = gdt__mul_wrap(g->m, g->k), kn = gdt__mul_wrap(g->k, g->n);
    int64_t a_row[3] = {mk, g->k, 1}, a_col[3] = {mk, 1, g->m};
    int64_t b_row[3] = {kn, g->n, 1}, b_col[3] = {kn, 1, g->k};
    int64_t c_row[3] = {gdt__mul_wrap(g->m, g->n), g->n, 1};
    memcpy(g->a_stride, ar ? a_row : a_col, sizeof a_row);
    memcpy(g->b_stride, br ? b_row : b_col, sizeof b_row);
    memcpy(g->c_stride, c_row, sizeof c_row);
}

static gdt_status gemm_validate(const gdt_problem *p, gdt_error *e)
{
    static const char *const names[] = {"batch", "m", "n", "k"};
    const gdt_gemm_desc *g = &p->u.gemm;
    int64_t v[4] = {g->batch, g->m, g->n, g->k};
    gdt_status st = gdt__check_dims("gemm", names, v, 4, e);
    if (st) return st;
    if ((unsigned)g->dtype >= GDT_DTYPE_COUNT || g->dtype == GDT_DTYPE_FP32)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "gemm: dtype = %s: expected bf16 or fp16",
                             gdt_dtype_name(g->dtype));
    int64_t sz = (int64_t)gdt_dtype_size(g->dtype);
    int64_t a[3] = {g->batch, g->m, g->k}, b[3] = {g->batch, g->k, g->n}, c[3] = {g->batch, g->m, g->n};
    if ((st = gdt__check_operand("gemm", "A", a, 3, sz, e))) return st;
    if ((st = gdt__check_operand("gemm", "B", b, 3, sz, e))) return st;
    return gdt__check_operand("gemm", "C", c, 3, sz, e);
}

static int gemm_key(const gdt_problem *p, char *buf, size_t n)
{
    const gdt_gemm_desc *g = &p->u.gemm;
    return snprintf(buf, n, "gemm:b%" PRId64 ",m%" PRId64 ",n%" PRId64 ",k%" PRId64 ",%s,a=%s,b=%s",
                    g->batch, g->m, g->n, g->k, gdt_dtype_name(g->dtype),
                    majors[g->a_stride[2] != 1], majors[g->b_stride[2] != 1]);
}

static double gemm_flops(const gdt_problem *p)
{
    const gdt_gemm_desc *g = &p->u.gemm;
    return 2.0 * (double)g->batch * (double)g->m * (double)g->n * (double)g->k;
}

static int gemm_geometry(const gdt_problem *p, gdt_operand_role r, int64_t dims[4], int64_t strides[4])
{
    const gdt_gemm_desc *g = &p->u.gemm;
    switch (r) {
    case GDT_OPERAND_A: return gdt__geometry_set(dims, strides, (int64_t[3]){g->batch, g->m, g->k}, g->a_stride, 3);
    case GDT_OPERAND_B: return gdt__geometry_set(dims, strides, (int64_t[3]){g->batch, g->k, g->n}, g->b_stride, 3);
    case GDT_OPERAND_C: return gdt__geometry_set(dims, strides, (int64_t[3]){g->batch, g->m, g->n}, g->c_stride, 3);
    default: return 0;
    }
}

static void gemm_facts(const gdt_problem *p, gdt_facts *f)
{
    const gdt_gemm_desc *g = &p->u.gemm;
    int64_t el = (int64_t)gdt_dtype_size(g->dtype);
    f->a_row_major = g->a_stride[2] == 1;
    f->b_row_major = g->b_stride[2] == 1;
    f->c_row_major = g->c_stride[2] == 1;
    /* The leading dimension is the stride of the non-unit axis. */
    int64_t lda = f->a_row_major ? g->a_stride[1] : g->a_stride[2];
    int64_t ldb = f->b_row_major ? g->b_stride[1] : g->b_stride[2];
    int64_t ldc = f->c_row_major ? g->c_stride[1] : g->c_stride[2];
    f->aligned16 = (lda * el) % 16 == 0 && (ldb * el) % 16 == 0 && (ldc * el) % 16 == 0;
}

/* Each field keyed by its member's name (engines/gdt_family.h). */
#define FIELD(kind, m) GDT__PROBLEM_ROW(gemm, kind, m)
#define INTS(m) GDT__PROBLEM_INTS_ROW(gemm, m)
static const gdt__field gemm_problem_fields[] = {
    FIELD(INT, batch),
    FIELD(INT, m),
    FIELD(INT, n),
    FIELD(INT, k),
    FIELD(DTYPE, dtype),
    INTS(a_stride),
    INTS(b_stride),
    INTS(c_stride),
};
#undef FIELD
#undef INTS
#undef G

static const gdt__field gemm_facts_fields[] = {
    GDT__FACT_ROW(EXACT, flops),
    GDT__FACT_ROW(BOOL, a_row_major),
    GDT__FACT_ROW(BOOL, b_row_major),
    GDT__FACT_ROW(BOOL, c_row_major),
    GDT__FACT_ROW(BOOL, aligned16),
};

/* Cells of one dtype and one set of majors, ordered by flops. */
static const gdt__field gemm_group_fields[] = {
    GDT__GROUP_ROW("dtype", DTYPE),
    GDT__GROUP_ROW("a_row_major", BOOL),
    GDT__GROUP_ROW("b_row_major", BOOL),
    GDT__GROUP_ROW("c_row_major", BOOL),
};

static void gemm_group(const gdt_facts *f, int64_t v[GDT__GROUP_MAX])
{
    v[0] = f->dtype, v[1] = f->a_row_major, v[2] = f->b_row_major, v[3] = f->c_row_major;
}

static double gemm_metric(const gdt_facts *f) { return f->flops; }

static int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

static const char *const gemm_feature_names[] = {"log_work", "log_steps", "log_bytes"};

/* A wave of tiles runs K/TILEK steps; the last wave is paid in full, so
 * padding and an idle tail both show up as work. */
static void gemm_features(const gdt_facts *f, const gdt_plan_id *id, int sms, double *phi)
{
    const gdt_gemm_desc *g = &f->problem.u.gemm;
    int64_t tm = gdt_plan_id_knob(id, GDT_KNOB_TILE_M, 128), tn = gdt_plan_id_knob(id, GDT_KNOB_TILE_N, 128);
    int64_t tk = gdt_plan_id_knob(id, GDT_KNOB_TILEK, 64);
    tm = tm > 0 ? tm : 128, tn = tn > 0 ? tn : 128, tk = tk > 0 ? tk : 64;
    int64_t tiles = g->batch * div_up(g->m, tm) * div_up(g->n, tn);
    double waves = (double)div_up(tiles, sms > 0 ? sms : 1);
    double el = (double)gdt_dtype_size(g->dtype);
    double bytes = el * (double)g->batch * ((double)g->m * g->k + (double)g->k * g->n + (double)g->m * g->n);
    phi[0] = log(waves * 2.0 * (double)tm * (double)tn * (double)g->k);
    phi[1] = log(waves * (double)div_up(g->k, tk));
    phi[2] = log(bytes);
}

#define COUNT(a) (int)(sizeof(a) / sizeof((a)[0]))
const gdt_family_desc gdt__family_gemm = {
    .name = "gemm",
    .defaults = gemm_defaults,
    .keys = gemm_keys,
    .nkeys = COUNT(gemm_keys),
    .set_strides = gemm_set_strides,
    .validate = gemm_validate,
    .key = gemm_key,
    .flops = gemm_flops,
    .dtype_off = offsetof(gdt_problem, u.gemm.dtype),
    .noperands = 3,
    .noutputs = 1,
    .operands = {GDT_OPERAND_A, GDT_OPERAND_B, GDT_OPERAND_C},
    .geometry = gemm_geometry,
    .facts = gemm_facts,
    .problem_fields = gemm_problem_fields,
    .nproblem_fields = COUNT(gemm_problem_fields),
    .facts_fields = gemm_facts_fields,
    .nfacts_fields = COUNT(gemm_facts_fields),
    .group_fields = gemm_group_fields,
    .ngroup_fields = COUNT(gemm_group_fields),
    .group = gemm_group,
    .metric_name = "flops",
    .metric = gemm_metric,
    .feature_names = gemm_feature_names,
    .nfeatures = COUNT(gemm_feature_names),
    .features = gemm_features,
};
