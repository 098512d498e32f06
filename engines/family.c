/* Families, dtypes and problem descriptors: defaults, --shape parsing,
 * strides, validation, canonical keys and useful flops.  The shape keys of
 * each family are one table (key, kind, the fields it sets). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdtune/engine.h"
#include "gdtune/gdtune.h"

/* ------------------------------------------------------------- families */

#define GDT__FAMILY_NAME(name, str) str,
static const char *const family_names[] = {GDT_FAMILY_MAP(GDT__FAMILY_NAME)};
#undef GDT__FAMILY_NAME
_Static_assert(sizeof family_names / sizeof family_names[0] == GDT_FAMILY_COUNT,
               "family names and enum disagree");

const char *gdt_family_name(gdt_family f)
{
    return (unsigned)f < GDT_FAMILY_COUNT ? family_names[f] : "unknown_family";
}

gdt_status gdt_family_parse(const char *s, gdt_family *out, gdt_error *e)
{
    for (int f = 0; f < GDT_FAMILY_COUNT; f++)
        if (s && !strcmp(s, family_names[f])) {
            *out = (gdt_family)f;
            return GDT_STATUS_OK;
        }
    if (s && !strcmp(s, "sdpa"))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                             "family \"sdpa\" names two families (sdpa_fwd and sdpa_bwd); "
                             "name one of them here");
    return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                         "unknown family \"%s\" (expected gemm, sdpa_fwd or sdpa_bwd)",
                         s ? s : "(null)");
}

gdt_status gdt_family_parse_set(const char *s, unsigned *mask, gdt_error *e)
{
    if (s && !strcmp(s, "sdpa")) {
        *mask = (1u << GDT_FAMILY_SDPA_FWD) | (1u << GDT_FAMILY_SDPA_BWD);
        return GDT_STATUS_OK;
    }
    gdt_family f = GDT_FAMILY_GEMM;
    if (s && gdt_family_parse(s, &f, NULL) == GDT_STATUS_OK) {
        *mask = 1u << f;
        return GDT_STATUS_OK;
    }
    return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                         "unknown family \"%s\" (expected gemm, sdpa_fwd, sdpa_bwd or sdpa)",
                         s ? s : "(null)");
}

/* ---------------------------------------------------------------- dtypes */

static const struct {
    const char *name;
    size_t size;
    double tolerance; /* relative L2 bound with fp32 accumulation */
} dtypes[] = {
    [GDT_DTYPE_BF16] = {"bf16", 2, 2e-2},
    [GDT_DTYPE_FP16] = {"fp16", 2, 1e-2},
    [GDT_DTYPE_FP32] = {"fp32", 4, 1e-4},
};
_Static_assert(sizeof dtypes / sizeof dtypes[0] == GDT_DTYPE_COUNT, "dtype table and enum disagree");

const char *gdt_dtype_name(gdt_dtype t) { return (unsigned)t < GDT_DTYPE_COUNT ? dtypes[t].name : "unknown_dtype"; }
size_t gdt_dtype_size(gdt_dtype t) { return (unsigned)t < GDT_DTYPE_COUNT ? dtypes[t].size : 0; }
double gdt_dtype_tolerance(gdt_dtype t) { return (unsigned)t < GDT_DTYPE_COUNT ? dtypes[t].tolerance : 0; }

/* -------------------------------------------------------------- defaults */

void gdt_problem_default(gdt_family f, gdt_problem *p)
{
    memset(p, 0, sizeof *p);
    p->family = f;
    if (f == GDT_FAMILY_GEMM) {
        gdt_gemm_desc *g = &p->u.gemm;
        g->batch = 1;
        g->m = g->n = g->k = 4096;
        g->dtype = GDT_DTYPE_BF16;
        g->a_stride[2] = 1; /* row-major marks, completed by set_strides */
        g->b_stride[2] = 1;
    } else {
        gdt_sdpa_desc *s = &p->u.sdpa;
        s->b = 4;
        s->h_q = s->h_kv = 32;
        s->s_q = s->s_kv = 4096;
        s->d = 128;
        s->dtype = GDT_DTYPE_BF16;
        s->causal = GDT_CAUSAL_TOP_LEFT;
        s->layout = GDT_LAYOUT_BSHD;
        s->scale = 1.0 / sqrt((double)s->d);
    }
    gdt_problem_set_strides(p);
}

/* --------------------------------------------------------------- strides */

/* GEMM operands carry their layout in the strides: the unit stride on the
 * last axis means row-major, so set_strides reads the current layout back
 * from them before recomputing. */
static bool gemm_row(const int64_t st[3]) { return st[2] == 1 || (st[1] == 0 && st[2] == 0); }

/* Wraps instead of overflowing: strides of a problem that validate refuses
 * are never used, but computing them must not be undefined. */
static int64_t mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

static void bhsd_strides(int64_t st[4], gdt_layout l, int64_t h, int64_t s, int64_t d)
{
    if (l == GDT_LAYOUT_BHSD) {
        st[0] = mul(mul(h, s), d), st[1] = mul(s, d), st[2] = d, st[3] = 1;
    } else {
        st[0] = mul(mul(s, h), d), st[1] = d, st[2] = mul(h, d), st[3] = 1;
    }
}

void gdt_problem_set_strides(gdt_problem *p)
{
    if (p->family == GDT_FAMILY_GEMM) {
        gdt_gemm_desc *g = &p->u.gemm;
        bool ar = gemm_row(g->a_stride), br = gemm_row(g->b_stride);
        int64_t a_row[3] = {mul(g->m, g->k), g->k, 1}, a_col[3] = {mul(g->m, g->k), 1, g->m};
        int64_t b_row[3] = {mul(g->k, g->n), g->n, 1}, b_col[3] = {mul(g->k, g->n), 1, g->k};
        int64_t c_row[3] = {mul(g->m, g->n), g->n, 1};
        memcpy(g->a_stride, ar ? a_row : a_col, sizeof a_row);
        memcpy(g->b_stride, br ? b_row : b_col, sizeof b_row);
        memcpy(g->c_stride, c_row, sizeof c_row);
        return;
    }
    gdt_sdpa_desc *s = &p->u.sdpa;
    bhsd_strides(s->q_stride, s->layout, s->h_q, s->s_q, s->d);
    bhsd_strides(s->o_stride, s->layout, s->h_q, s->s_q, s->d);
    bhsd_strides(s->k_stride, s->layout, s->h_kv, s->s_kv, s->d);
    bhsd_strides(s->v_stride, s->layout, s->h_kv, s->s_kv, s->d);
}

/* ------------------------------------------------------------ shape keys */

typedef enum key_kind { K_DIM, K_DTYPE, K_MAJOR_A, K_MAJOR_B, K_CAUSAL, K_LAYOUT, K_SCALE } key_kind;

typedef struct shape_key {
    const char *name;
    key_kind kind;
    size_t off[2]; /* int64 fields a K_DIM sets (second may equal the first) */
} shape_key;

#define G(f) offsetof(gdt_problem, u.gemm.f)
#define S(f) offsetof(gdt_problem, u.sdpa.f)
static const shape_key gemm_keys[] = {
    {"batch", K_DIM, {G(batch), G(batch)}}, {"m", K_DIM, {G(m), G(m)}},
    {"n", K_DIM, {G(n), G(n)}},             {"k", K_DIM, {G(k), G(k)}},
    {"dtype", K_DTYPE, {0, 0}},             {"a", K_MAJOR_A, {0, 0}},
    {"b", K_MAJOR_B, {0, 0}},
};
static const shape_key sdpa_keys[] = {
    {"b", K_DIM, {S(b), S(b)}},          {"h", K_DIM, {S(h_q), S(h_kv)}},
    {"h_q", K_DIM, {S(h_q), S(h_q)}},    {"h_kv", K_DIM, {S(h_kv), S(h_kv)}},
    {"s", K_DIM, {S(s_q), S(s_kv)}},     {"s_q", K_DIM, {S(s_q), S(s_q)}},
    {"s_kv", K_DIM, {S(s_kv), S(s_kv)}}, {"d", K_DIM, {S(d), S(d)}},
    {"dtype", K_DTYPE, {0, 0}},          {"causal", K_CAUSAL, {0, 0}},
    {"layout", K_LAYOUT, {0, 0}},        {"scale", K_SCALE, {0, 0}},
};
#undef G
#undef S

static const shape_key *family_keys(gdt_family f, int *n)
{
    if (f == GDT_FAMILY_GEMM) {
        *n = (int)(sizeof gemm_keys / sizeof gemm_keys[0]);
        return gemm_keys;
    }
    *n = (int)(sizeof sdpa_keys / sizeof sdpa_keys[0]);
    return sdpa_keys;
}

static void key_list(gdt_family f, char *buf, size_t n)
{
    int nk, at = 0;
    const shape_key *k = family_keys(f, &nk);
    buf[0] = '\0';
    for (int i = 0; i < nk && (size_t)at < n; i++)
        at += snprintf(buf + at, n - (size_t)at, "%s%s", i ? ", " : "", k[i].name);
}

static gdt_status parse_dim(const char *key, const char *v, int64_t *out, gdt_error *e)
{
    char *end;
    errno = 0;
    long long x = (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) ? strtoll(v, &end, 10) : 0;
    if (!(v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) || *end)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "shape: %s=%s: expected a positive integer, got \"%s\"", key, v, v);
    if (errno == ERANGE || x > INT32_MAX)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "shape: %s=%s: expected a positive integer at most 2147483647 "
                             "(2^31-1), got %s", key, v, v);
    if (x <= 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "shape: %s=%s: expected a positive integer, got %lld", key, v, x);
    *out = x;
    return GDT_STATUS_OK;
}

static gdt_status parse_choice(const char *key, const char *v, const char *const *names, int n,
                               int *out, gdt_error *e)
{
    char list[256];
    int at = 0;
    for (int i = 0; i < n; i++) {
        if (names[i] && !strcmp(v, names[i])) {
            *out = i;
            return GDT_STATUS_OK;
        }
        if (names[i]) at += snprintf(list + at, sizeof list - (size_t)at, "%s%s", at ? "|" : "", names[i]);
    }
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "shape: %s=%s: expected %s, got \"%s\"", key, v,
                         list, v);
}

static gdt_status parse_scale(const char *key, const char *v, double *out, gdt_error *e)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x) || x <= 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "shape: %s=%s: expected a finite number > 0, got \"%s\"", key, v, v);
    *out = x;
    return GDT_STATUS_OK;
}

static gdt_status apply_causal(gdt_sdpa_desc *s, const char *key, const char *v, gdt_error *e)
{
    static const char *const names[] = {"none", "top_left", "bottom_right", "0", "1"};
    static const gdt_causal value[] = {GDT_CAUSAL_NONE, GDT_CAUSAL_TOP_LEFT,
                                       GDT_CAUSAL_BOTTOM_RIGHT, GDT_CAUSAL_NONE,
                                       GDT_CAUSAL_TOP_LEFT};
    int i = 0;
    gdt_status st = parse_choice(key, v, names, 5, &i, e);
    if (!st) s->causal = value[i];
    return st;
}

static gdt_status apply_key(gdt_problem *p, const shape_key *k, const char *v, bool *scale_set,
                            gdt_error *e)
{
    static const char *const dt[] = {"bf16", "fp16", "fp32"};
    static const char *const major[] = {"row", "col"};
    static const char *const layout[] = {"bhsd", "bshd"};
    int i = 0;
    int64_t x = 0;
    gdt_status st = GDT_STATUS_OK;
    switch (k->kind) {
    case K_DIM:
        if (!(st = parse_dim(k->name, v, &x, e))) {
            *(int64_t *)((char *)p + k->off[0]) = x;
            *(int64_t *)((char *)p + k->off[1]) = x;
        }
        return st;
    case K_DTYPE:
        if (!(st = parse_choice(k->name, v, dt, 3, &i, e))) {
            if (p->family == GDT_FAMILY_GEMM) p->u.gemm.dtype = (gdt_dtype)i;
            else p->u.sdpa.dtype = (gdt_dtype)i;
        }
        return st;
    case K_MAJOR_A:
    case K_MAJOR_B:
        if (!(st = parse_choice(k->name, v, major, 2, &i, e))) {
            int64_t *s = k->kind == K_MAJOR_A ? p->u.gemm.a_stride : p->u.gemm.b_stride;
            s[1] = 0, s[2] = i == 0 ? 1 : 0; /* layout mark, completed by set_strides */
            if (i == 1) s[1] = 1;
        }
        return st;
    case K_CAUSAL: return apply_causal(&p->u.sdpa, k->name, v, e);
    case K_LAYOUT:
        if (!(st = parse_choice(k->name, v, layout, 2, &i, e))) p->u.sdpa.layout = (gdt_layout)i;
        return st;
    case K_SCALE:
        *scale_set = true;
        return parse_scale(k->name, v, &p->u.sdpa.scale, e);
    }
    return GDT_STATUS_OK;
}

/* "h" sets h_q and h_kv, "s" sets s_q and s_kv: giving both forms would let
 * their order decide silently, so it is refused.  Returns the earlier key. */
static int overlapping_key(const shape_key *keys, int nk, unsigned seen, const shape_key *k)
{
    if (k->kind != K_DIM) return -1;
    for (int j = 0; j < nk; j++) {
        if (!(seen & (1u << j)) || keys[j].kind != K_DIM) continue;
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                if (keys[j].off[a] == k->off[b]) return j;
    }
    return -1;
}

static gdt_status apply_item(gdt_problem *p, char *item, bool *scale_set, unsigned *seen,
                             gdt_error *e)
{
    char *eq = strchr(item, '=');
    if (!*item) return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "shape: empty item (two commas, or a trailing comma)");
    if (!eq || eq == item)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "shape: expected key=value, got \"%s\"", item);
    *eq = '\0';
    int nk;
    const shape_key *keys = family_keys(p->family, &nk);
    for (int i = 0; i < nk; i++) {
        if (strcmp(item, keys[i].name)) continue;
        if (*seen & (1u << i))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "shape: key \"%s\" given twice", item);
        int other = overlapping_key(keys, nk, *seen, &keys[i]);
        if (other >= 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "shape: keys \"%s\" and \"%s\" both set the same dimension; "
                                 "give one of them", keys[other].name, item);
        *seen |= 1u << i;
        return apply_key(p, &keys[i], eq + 1, scale_set, e);
    }
    char list[256];
    key_list(p->family, list, sizeof list);
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "shape: unknown key \"%s\" for %s (valid keys: %s)",
                         item, gdt_family_name(p->family), list);
}

gdt_status gdt_problem_parse(gdt_family f, const char *spec, gdt_problem *p, gdt_error *e)
{
    gdt_problem q;
    if ((unsigned)f >= GDT_FAMILY_COUNT)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "shape: unknown family %d", (int)f);
    gdt_problem_default(f, &q);
    bool scale_set = false;
    unsigned seen = 0;
    if (spec && *spec) {
        char *copy = strdup(spec);
        if (!copy) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "shape: out of memory");
        gdt_status st = GDT_STATUS_OK;
        char *item = copy;
        for (;;) {
            char *comma = strchr(item, ',');
            if (comma) *comma = '\0';
            if ((st = apply_item(&q, item, &scale_set, &seen, e)) || !comma) break;
            item = comma + 1;
        }
        free(copy);
        if (st) return st;
    }
    if (f != GDT_FAMILY_GEMM && !scale_set) q.u.sdpa.scale = 1.0 / sqrt((double)q.u.sdpa.d);
    gdt_problem_set_strides(&q);
    gdt_status st = gdt_problem_validate(&q, e);
    if (st) return st;
    *p = q;
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ validation */

/* Elements and bytes of one operand must fit int64: a*b*c*d*size. */
static bool product_fits(const int64_t *dims, int n, int64_t size, int64_t *out)
{
    int64_t acc = size;
    for (int i = 0; i < n; i++)
        if (__builtin_mul_overflow(acc, dims[i], &acc)) return false;
    *out = acc;
    return true;
}

static gdt_status check_dims(const char *fam, const char *const *names, const int64_t *v, int n,
                             gdt_error *e)
{
    for (int i = 0; i < n; i++)
        if (v[i] <= 0 || v[i] > INT32_MAX)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "%s: %s = %" PRId64 ": expected 1..2147483647", fam, names[i], v[i]);
    return GDT_STATUS_OK;
}

static gdt_status check_operand(const char *fam, const char *op, const int64_t *dims, int n,
                                int64_t size, gdt_error *e)
{
    int64_t bytes;
    if (!product_fits(dims, n, size, &bytes))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: operand %s: its %d dims times %" PRId64 " bytes per element "
                             "overflow int64", fam, op, n, size);
    return GDT_STATUS_OK;
}

static gdt_status validate_gemm(const gdt_gemm_desc *g, gdt_error *e)
{
    static const char *const names[] = {"batch", "m", "n", "k"};
    int64_t v[4] = {g->batch, g->m, g->n, g->k};
    gdt_status st = check_dims("gemm", names, v, 4, e);
    if (st) return st;
    if ((unsigned)g->dtype >= GDT_DTYPE_COUNT || g->dtype == GDT_DTYPE_FP32)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "gemm: dtype = %s: expected bf16 or fp16",
                             gdt_dtype_name(g->dtype));
    int64_t sz = (int64_t)gdt_dtype_size(g->dtype);
    int64_t a[3] = {g->batch, g->m, g->k}, b[3] = {g->batch, g->k, g->n}, c[3] = {g->batch, g->m, g->n};
    if ((st = check_operand("gemm", "A", a, 3, sz, e))) return st;
    if ((st = check_operand("gemm", "B", b, 3, sz, e))) return st;
    return check_operand("gemm", "C", c, 3, sz, e);
}

static gdt_status validate_sdpa(const gdt_problem *p, gdt_error *e)
{
    static const char *const names[] = {"b", "h_q", "h_kv", "s_q", "s_kv", "d"};
    const gdt_sdpa_desc *s = &p->u.sdpa;
    const char *fam = gdt_family_name(p->family);
    int64_t v[6] = {s->b, s->h_q, s->h_kv, s->s_q, s->s_kv, s->d};
    gdt_status st = check_dims(fam, names, v, 6, e);
    if (st) return st;
    if (s->h_q % s->h_kv)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: h_q = %" PRId64 " is not a multiple of h_kv = %" PRId64
                             " (GQA needs h_q %% h_kv == 0)", fam, s->h_q, s->h_kv);
    if (s->causal == GDT_CAUSAL_BOTTOM_RIGHT && s->s_q > s->s_kv)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: causal = bottom_right needs s_q <= s_kv, got s_q = %" PRId64
                             ", s_kv = %" PRId64, fam, s->s_q, s->s_kv);
    if ((unsigned)s->dtype >= GDT_DTYPE_COUNT || s->dtype == GDT_DTYPE_FP32)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: dtype = %s: expected bf16 or fp16", fam,
                             gdt_dtype_name(s->dtype));
    if (!isfinite(s->scale) || s->scale <= 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: scale = %g: expected a finite number > 0",
                             fam, s->scale);
    int64_t q[4] = {s->b, s->h_q, s->s_q, s->d}, k[4] = {s->b, s->h_kv, s->s_kv, s->d};
    int64_t sz = (int64_t)gdt_dtype_size(s->dtype);
    if ((st = check_operand(fam, "Q", q, 4, sz, e))) return st; /* O, dO, dQ: same extent */
    return check_operand(fam, "K", k, 4, sz, e);               /* V, dK, dV: same extent */
}

gdt_status gdt_problem_validate(const gdt_problem *p, gdt_error *e)
{
    if (p->family == GDT_FAMILY_GEMM) return validate_gemm(&p->u.gemm, e);
    if (p->family == GDT_FAMILY_SDPA_FWD || p->family == GDT_FAMILY_SDPA_BWD)
        return validate_sdpa(p, e);
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "problem: unknown family %d", (int)p->family);
}

/* ------------------------------------------------------------ key, flops */

static const char *causal_name(gdt_causal c)
{
    return c == GDT_CAUSAL_NONE ? "none" : c == GDT_CAUSAL_TOP_LEFT ? "top_left" : "bottom_right";
}

int gdt_problem_key(const gdt_problem *p, char *buf, size_t n)
{
    if (p->family == GDT_FAMILY_GEMM) {
        const gdt_gemm_desc *g = &p->u.gemm;
        return snprintf(buf, n, "gemm:b%" PRId64 ",m%" PRId64 ",n%" PRId64 ",k%" PRId64 ",%s,a=%s,b=%s",
                        g->batch, g->m, g->n, g->k, gdt_dtype_name(g->dtype),
                        g->a_stride[2] == 1 ? "row" : "col", g->b_stride[2] == 1 ? "row" : "col");
    }
    const gdt_sdpa_desc *s = &p->u.sdpa;
    return snprintf(buf, n,
                    "%s:b%" PRId64 ",hq%" PRId64 ",hkv%" PRId64 ",sq%" PRId64 ",skv%" PRId64
                    ",d%" PRId64 ",%s,causal=%s,%s,scale=%.9g",
                    gdt_family_name(p->family), s->b, s->h_q, s->h_kv, s->s_q, s->s_kv, s->d,
                    gdt_dtype_name(s->dtype), causal_name(s->causal),
                    s->layout == GDT_LAYOUT_BHSD ? "bhsd" : "bshd", s->scale);
}

double gdt_problem_flops(const gdt_problem *p)
{
    if (p->family == GDT_FAMILY_GEMM) {
        const gdt_gemm_desc *g = &p->u.gemm;
        return 2.0 * (double)g->batch * (double)g->m * (double)g->n * (double)g->k;
    }
    const gdt_sdpa_desc *s = &p->u.sdpa;
    double fwd = 4.0 * (double)s->b * (double)s->h_q * (double)s->s_q * (double)s->s_kv * (double)s->d;
    if (s->causal != GDT_CAUSAL_NONE) fwd *= 0.5;
    return p->family == GDT_FAMILY_SDPA_BWD ? 2.5 * fwd : fwd;
}

/* -------------------------------------------------------------- operands */

#define GDT__OPERAND_NAME(name, str) str,
static const char *const operand_names[] = {GDT_OPERAND_MAP(GDT__OPERAND_NAME)};
#undef GDT__OPERAND_NAME
_Static_assert(sizeof operand_names / sizeof operand_names[0] == GDT_OPERAND_COUNT,
               "operand names and enum disagree");

const char *gdt_operand_name(gdt_operand_role r)
{
    return (unsigned)r < GDT_OPERAND_COUNT ? operand_names[r] : "unknown_operand";
}

/* Inputs first, then outputs. */
static const struct {
    int n, noutputs;
    gdt_operand_role roles[9];
} family_operands[GDT_FAMILY_COUNT] = {
    [GDT_FAMILY_GEMM] = {3, 1, {GDT_OPERAND_A, GDT_OPERAND_B, GDT_OPERAND_C}},
    [GDT_FAMILY_SDPA_FWD] = {5, 2, {GDT_OPERAND_Q, GDT_OPERAND_K, GDT_OPERAND_V, GDT_OPERAND_O,
                                    GDT_OPERAND_STATS}},
    [GDT_FAMILY_SDPA_BWD] = {9, 3, {GDT_OPERAND_Q, GDT_OPERAND_K, GDT_OPERAND_V, GDT_OPERAND_O,
                                    GDT_OPERAND_DO, GDT_OPERAND_STATS, GDT_OPERAND_DQ,
                                    GDT_OPERAND_DK, GDT_OPERAND_DV}},
};

int gdt_family_operands(gdt_family f, gdt_operand_role roles[GDT_OPERAND_COUNT], int *noutputs)
{
    if ((unsigned)f >= GDT_FAMILY_COUNT) {
        if (noutputs) *noutputs = 0;
        return 0;
    }
    for (int i = 0; i < family_operands[f].n; i++) roles[i] = family_operands[f].roles[i];
    if (noutputs) *noutputs = family_operands[f].noutputs;
    return family_operands[f].n;
}

static bool family_binds(gdt_family f, gdt_operand_role r)
{
    if ((unsigned)f >= GDT_FAMILY_COUNT) return false;
    for (int i = 0; i < family_operands[f].n; i++)
        if (family_operands[f].roles[i] == r) return true;
    return false;
}

/* Span of a strided tensor: the offset of its last element plus one. */
static size_t span(const int64_t *dims, const int64_t *strides, int n, size_t elem)
{
    int64_t last = 0;
    for (int i = 0; i < n; i++) last += (dims[i] - 1) * strides[i];
    return (size_t)(last + 1) * elem;
}

static size_t gemm_bytes(const gdt_gemm_desc *g, gdt_operand_role r)
{
    size_t el = gdt_dtype_size(g->dtype);
    int64_t a[3] = {g->batch, g->m, g->k}, b[3] = {g->batch, g->k, g->n}, c[3] = {g->batch, g->m, g->n};
    if (r == GDT_OPERAND_A) return span(a, g->a_stride, 3, el);
    if (r == GDT_OPERAND_B) return span(b, g->b_stride, 3, el);
    return span(c, g->c_stride, 3, el);
}

static size_t sdpa_bytes(const gdt_sdpa_desc *s, gdt_operand_role r)
{
    size_t el = gdt_dtype_size(s->dtype);
    int64_t q[4] = {s->b, s->h_q, s->s_q, s->d}, k[4] = {s->b, s->h_kv, s->s_kv, s->d};
    switch (r) {
    case GDT_OPERAND_Q:
    case GDT_OPERAND_DQ: return span(q, s->q_stride, 4, el);
    case GDT_OPERAND_O:
    case GDT_OPERAND_DO: return span(q, s->o_stride, 4, el);
    case GDT_OPERAND_K:
    case GDT_OPERAND_DK: return span(k, s->k_stride, 4, el);
    case GDT_OPERAND_V:
    case GDT_OPERAND_DV: return span(k, s->v_stride, 4, el);
    case GDT_OPERAND_STATS: return (size_t)(s->b * s->h_q * s->s_q) * sizeof(float);
    default: return 0;
    }
}

size_t gdt_operand_bytes(const gdt_problem *p, gdt_operand_role r)
{
    if (!family_binds(p->family, r)) return 0;
    return p->family == GDT_FAMILY_GEMM ? gemm_bytes(&p->u.gemm, r) : sdpa_bytes(&p->u.sdpa, r);
}

gdt_dtype gdt_operand_dtype(const gdt_problem *p, gdt_operand_role r)
{
    if (r == GDT_OPERAND_STATS) return GDT_DTYPE_FP32;
    return p->family == GDT_FAMILY_GEMM ? p->u.gemm.dtype : p->u.sdpa.dtype;
}

gdt_status gdt_operands_check(const gdt_problem *p, const gdt_operands *ops, gdt_error *e)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int n = gdt_family_operands(p->family, roles, NULL);
    for (int i = 0; i < n; i++) {
        size_t need = gdt_operand_bytes(p, roles[i]);
        const char *name = gdt_operand_name(roles[i]);
        if (!ops || !ops->ptr[roles[i]])
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "%s: operand %s: missing pointer (declared %zu bytes)",
                                 gdt_family_name(p->family), name, need);
        if (ops->bytes[roles[i]] < need)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "%s: operand %s: buffer of %zu bytes is smaller than the %zu "
                                 "bytes declared", gdt_family_name(p->family), name,
                                 ops->bytes[roles[i]], need);
    }
    return GDT_STATUS_OK;
}
