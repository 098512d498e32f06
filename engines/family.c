/* Families, dtypes and problem descriptors: names, --shape parsing driven
 * by each family's key table, and the public problem and operand functions,
 * which answer through the family's descriptor (engines/gdt_family.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_family.h"
#include "gdt_util.h"
#include "gdtune/plan.h"

/* ------------------------------------------------------------- families */

GDT_NAME_TABLE(GDT_FAMILY_MAP, gdt_family, GDT_FAMILY_COUNT, gdt_family_name, "unknown_family")

static const gdt_family_desc *const descs[] = {
    [GDT_FAMILY_GEMM] = &gdt__family_gemm,
    [GDT_FAMILY_SDPA_FWD] = &gdt__family_sdpa_fwd,
    [GDT_FAMILY_SDPA_BWD] = &gdt__family_sdpa_bwd,
};
_Static_assert(sizeof descs / sizeof descs[0] == GDT_FAMILY_COUNT, "family descriptors and enum disagree");

const gdt_family_desc *gdt__family_desc(gdt_family f)
{
    return (unsigned)f < GDT_FAMILY_COUNT ? descs[f] : NULL;
}

gdt_status gdt_family_parse(const char *s, gdt_family *out, gdt_error *e)
{
    for (int f = 0; f < GDT_FAMILY_COUNT; f++)
        if (s && !strcmp(s, gdt_family_name_table[f])) {
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


/* ---------------------------------------------------- problems, generic */

void gdt_problem_default(gdt_family f, gdt_problem *p)
{
    const gdt_family_desc *d = gdt__family_desc(f);
    memset(p, 0, sizeof *p);
    p->family = f;
    if (!d) return;
    d->defaults(p);
    d->set_strides(p);
}

void gdt_problem_set_strides(gdt_problem *p)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    if (d) d->set_strides(p);
}

gdt_dtype gdt_problem_dtype(const gdt_problem *p)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    return d ? *(const gdt_dtype *)((const char *)p + d->dtype_off) : GDT_DTYPE_COUNT;
}

/* ------------------------------------------------------------ shape keys */

static void key_list(const gdt_family_desc *d, char *buf, size_t n)
{
    int at = 0;
    buf[0] = '\0';
    for (int i = 0; i < d->nkeys && (size_t)at < n; i++)
        at += snprintf(buf + at, n - (size_t)at, "%s%s", i ? ", " : "", d->keys[i].name);
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

static gdt_status parse_number(const char *key, const char *v, double *out, gdt_error *e)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !isfinite(x) || x <= 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "shape: %s=%s: expected a finite number > 0, got \"%s\"", key, v, v);
    *out = x;
    return GDT_STATUS_OK;
}

/* The names, then the aliases: value i of the list is values[i]. */
static gdt_status apply_choice(gdt_problem *p, const gdt__shape_key *k, const char *v, gdt_error *e)
{
    const char *names[GDT__KEY_CHOICES_MAX];
    int values[GDT__KEY_CHOICES_MAX], n = 0, i = 0;
    for (int j = 0; j < k->nnames && n < GDT__KEY_CHOICES_MAX; j++) names[n] = k->names[j], values[n++] = j;
    for (int j = 0; j < k->naliases && n < GDT__KEY_CHOICES_MAX; j++)
        names[n] = k->aliases[j].name, values[n++] = k->aliases[j].value;
    gdt_status st = parse_choice(k->name, v, names, n, &i, e);
    if (!st) *(int *)((char *)p + k->off[0]) = values[i];
    return st;
}

/* Only the layout mark: set_strides completes it. */
static gdt_status apply_major(gdt_problem *p, const gdt__shape_key *k, const char *v, gdt_error *e)
{
    int i = 0;
    gdt_status st = parse_choice(k->name, v, k->names, k->nnames, &i, e);
    if (st) return st;
    int64_t *s = (int64_t *)((char *)p + k->off[0]);
    s[1] = i == 1, s[2] = i == 0;
    return GDT_STATUS_OK;
}

static gdt_status apply_key(gdt_problem *p, const gdt__shape_key *k, const char *v, gdt_error *e)
{
    const char *dt[GDT_DTYPE_COUNT];
    char *field = (char *)p + k->off[0];
    int i = 0;
    int64_t x = 0;
    gdt_status st = GDT_STATUS_OK;
    switch (k->kind) {
    case GDT__KEY_DIM:
        if (!(st = parse_dim(k->name, v, &x, e))) {
            *(int64_t *)field = x;
            *(int64_t *)((char *)p + k->off[1]) = x;
        }
        return st;
    case GDT__KEY_DTYPE:
        for (int j = 0; j < GDT_DTYPE_COUNT; j++) dt[j] = dtypes[j].name;
        if (!(st = parse_choice(k->name, v, dt, GDT_DTYPE_COUNT, &i, e))) *(gdt_dtype *)field = (gdt_dtype)i;
        return st;
    case GDT__KEY_CHOICE: return apply_choice(p, k, v, e);
    case GDT__KEY_MAJOR: return apply_major(p, k, v, e);
    case GDT__KEY_NUMBER: return parse_number(k->name, v, (double *)field, e);
    }
    return GDT_STATUS_OK;
}

/* "h" sets h_q and h_kv, "s" sets s_q and s_kv: giving both forms would let
 * their order decide silently, so it is refused.  Returns the earlier key. */
static int overlapping_key(const gdt__shape_key *keys, int nk, unsigned seen, const gdt__shape_key *k)
{
    if (k->kind != GDT__KEY_DIM) return -1;
    for (int j = 0; j < nk; j++) {
        if (!(seen & (1u << j)) || keys[j].kind != GDT__KEY_DIM) continue;
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                if (keys[j].off[a] == k->off[b]) return j;
    }
    return -1;
}

static gdt_status apply_item(gdt_problem *p, const gdt_family_desc *d, char *item, unsigned *seen,
                             gdt_error *e)
{
    char *eq = strchr(item, '=');
    if (!*item) return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "shape: empty item (two commas, or a trailing comma)");
    if (!eq || eq == item)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "shape: expected key=value, got \"%s\"", item);
    *eq = '\0';
    for (int i = 0; i < d->nkeys; i++) {
        if (strcmp(item, d->keys[i].name)) continue;
        if (*seen & (1u << i))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "shape: key \"%s\" given twice", item);
        int other = overlapping_key(d->keys, d->nkeys, *seen, &d->keys[i]);
        if (other >= 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "shape: keys \"%s\" and \"%s\" both set the same dimension; "
                                 "give one of them", d->keys[other].name, item);
        *seen |= 1u << i;
        return apply_key(p, &d->keys[i], eq + 1, e);
    }
    char list[256];
    key_list(d, list, sizeof list);
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "shape: unknown key \"%s\" for %s (valid keys: %s)",
                         item, d->name, list);
}

static gdt_status apply_spec(gdt_problem *q, const gdt_family_desc *d, const char *spec,
                             unsigned *seen, gdt_error *e)
{
    char *copy = strdup(spec);
    if (!copy) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "shape: out of memory");
    gdt_status st = GDT_STATUS_OK;
    char *item = copy;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = '\0';
        if ((st = apply_item(q, d, item, seen, e)) || !comma) break;
        item = comma + 1;
    }
    free(copy);
    return st;
}

gdt_status gdt__problem_apply(gdt_family f, const char *spec, gdt_error *e)
{
    gdt_problem q;
    const gdt_family_desc *d = gdt__family_desc(f);
    unsigned seen = 0;
    if (!d) return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "shape: unknown family %d", (int)f);
    gdt_problem_default(f, &q);
    return spec && *spec ? apply_spec(&q, d, spec, &seen, e) : GDT_STATUS_OK;
}

gdt_status gdt_problem_parse(gdt_family f, const char *spec, gdt_problem *p, gdt_error *e)
{
    gdt_problem q;
    const gdt_family_desc *d = gdt__family_desc(f);
    if (!d) return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "shape: unknown family %d", (int)f);
    gdt_problem_default(f, &q);
    unsigned seen = 0;
    gdt_status st = spec && *spec ? apply_spec(&q, d, spec, &seen, e) : GDT_STATUS_OK;
    if (st) return st;
    if (d->complete) d->complete(&q, seen);
    d->set_strides(&q);
    if ((st = d->validate(&q, e))) return st;
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

gdt_status gdt__check_dims(const char *fam, const char *const *names, const int64_t *v, int n,
                           gdt_error *e)
{
    for (int i = 0; i < n; i++)
        if (v[i] <= 0 || v[i] > INT32_MAX)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "%s: %s = %" PRId64 ": expected 1..2147483647", fam, names[i], v[i]);
    return GDT_STATUS_OK;
}

gdt_status gdt__check_operand(const char *fam, const char *op, const int64_t *dims, int n,
                              int64_t size, gdt_error *e)
{
    int64_t bytes;
    if (!product_fits(dims, n, size, &bytes))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: operand %s: its %d dims times %" PRId64 " bytes per element "
                             "overflow int64", fam, op, n, size);
    return GDT_STATUS_OK;
}

gdt_status gdt_problem_validate(const gdt_problem *p, gdt_error *e)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    if (!d) return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "problem: unknown family %d", (int)p->family);
    return d->validate(p, e);
}

/* ------------------------------------------------------------ key, flops */

int gdt_problem_key(const gdt_problem *p, char *buf, size_t n)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    return d ? d->key(p, buf, n) : snprintf(buf, n, "%s:", gdt_family_name(p->family));
}

double gdt_problem_flops(const gdt_problem *p)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    return d ? d->flops(p) : 0;
}

/* -------------------------------------------------------------- operands */

GDT_NAME_TABLE(GDT_OPERAND_MAP, gdt_operand_role, GDT_OPERAND_COUNT, gdt_operand_name, "unknown_operand")

int gdt_family_operands(gdt_family f, gdt_operand_role roles[GDT_OPERAND_COUNT], int *noutputs)
{
    const gdt_family_desc *d = gdt__family_desc(f);
    if (!d) {
        if (noutputs) *noutputs = 0;
        return 0;
    }
    for (int i = 0; i < d->noperands; i++) roles[i] = d->operands[i];
    if (noutputs) *noutputs = d->noutputs;
    return d->noperands;
}

int gdt_family_outputs(gdt_family f, gdt_operand_role roles[GDT_OPERAND_COUNT])
{
    const gdt_family_desc *d = gdt__family_desc(f);
    int first = d ? d->noperands - d->noutputs : 0;
    for (int i = 0; d && i < d->noutputs; i++) roles[i] = d->operands[first + i];
    return d ? d->noutputs : 0;
}

static bool family_binds(const gdt_family_desc *d, gdt_operand_role r)
{
    for (int i = 0; d && i < d->noperands; i++)
        if (d->operands[i] == r) return true;
    return false;
}

int gdt__geometry_set(int64_t dims[4], int64_t strides[4], const int64_t *d, const int64_t *s, int rank)
{
    for (int i = 0; i < 4; i++) {
        dims[i] = i < rank ? d[i] : 1;
        strides[i] = i < rank ? s[i] : 0;
    }
    return rank;
}

int gdt__operand_geometry(const gdt_problem *p, gdt_operand_role r, int64_t dims[4], int64_t strides[4])
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    for (int i = 0; i < 4; i++) dims[i] = 1, strides[i] = 0;
    return family_binds(d, r) ? d->geometry(p, r, dims, strides) : 0;
}

/* Span of a strided tensor: the offset of its last element plus one. */
static size_t span(const int64_t *dims, const int64_t *strides, int n, size_t elem)
{
    int64_t last = 0;
    for (int i = 0; i < n; i++) last += (dims[i] - 1) * strides[i];
    return (size_t)(last + 1) * elem;
}

size_t gdt_operand_bytes(const gdt_problem *p, gdt_operand_role r)
{
    int64_t dims[4], strides[4];
    if (!gdt__operand_geometry(p, r, dims, strides)) return 0;
    return span(dims, strides, 4, gdt_dtype_size(gdt_operand_dtype(p, r)));
}

double gdt_problem_bytes(const gdt_problem *p)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int n = gdt_family_operands(p->family, roles, NULL);
    double bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += (double)gdt_operand_bytes(p, roles[i]);
    return bytes;
}

/* Stats (log-sum-exp) is fp32 whatever the problem's dtype. */
gdt_dtype gdt_operand_dtype(const gdt_problem *p, gdt_operand_role r)
{
    return r == GDT_OPERAND_STATS ? GDT_DTYPE_FP32 : gdt_problem_dtype(p);
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
