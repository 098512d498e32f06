/* Candidate rows (tables/candidates/README.md): the registry of structural families, the
 * strict loader of {"nvrtc": {"<family>": [[...], ...]}} tables, the
 * --tuning-config override, and materialization of rows into plans:
 * projection, bind, plan identity, deduplication.  No Cartesian products:
 * each row yields at most one plan. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_engine_impl.h"
#include "gdt_json.h"
#include "gdt_rows.h"
#include "gdt_util.h"

#define NAMESPACE "nvrtc"

/* ---------------------------------------------------------------- registry */

static const gdt_row_family *const row_families[] = {
    &gdt__rows_contraction,
    &gdt__rows_attention_fwd,
    &gdt__rows_attention_bwd,
};
#define NFAM ((int)(sizeof row_families / sizeof row_families[0]))

int gdt__row_family_count(void) { return NFAM; }

const gdt_row_family *gdt__row_family_at(int i)
{
    return i >= 0 && i < NFAM ? row_families[i] : NULL;
}

int gdt__row_family_required(const gdt_row_family *rf)
{
    int n = rf->ncols;
    while (n > 0 && rf->cols[n - 1].optional) n--;
    return n;
}

static int family_index(const char *name)
{
    for (int i = 0; name && i < NFAM; i++)
        if (!strcmp(row_families[i]->name, name)) return i;
    return -1;
}

/* The registry index of rf, -1 when it is not registered. */
static int registry_index(const gdt_row_family *rf)
{
    for (int i = 0; i < NFAM; i++)
        if (row_families[i] == rf) return i;
    return -1;
}

const gdt_row_family *gdt__row_family_find(const char *name)
{
    return gdt__row_family_at(family_index(name));
}

static void family_list(char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < NFAM && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", row_families[i]->name);
}

/* ------------------------------------------------------------------ table */

typedef struct fam_rows {
    bool present;
    int nrows;
    int64_t *v; /* nrows * ncols, row-major */
} fam_rows;

struct gdt_row_table {
    fam_rows fam[NFAM];
};

void gdt_rows_destroy(gdt_row_table *t)
{
    if (!t) return;
    for (int i = 0; i < NFAM; i++) free(t->fam[i].v);
    free(t);
}

int gdt_rows_count(const gdt_row_table *t, const char *row_family)
{
    int i = family_index(row_family);
    return (t && i >= 0 && t->fam[i].present) ? t->fam[i].nrows : 0;
}

/* -------------------------------------------------------------- row checks */

static gdt_status check_cell(const gdt_column *c, int64_t v, const char *file, const char *path,
                             gdt_error *e)
{
    if (c->kind == GDT_COL_BOOL && v != 0 && v != 1)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: column %s: expected a boolean (0 or 1), got %" PRId64, file,
                             path, c->name, v);
    if (c->kind == GDT_COL_INT && v <= 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: column %s: expected a positive integer, got %" PRId64, file,
                             path, c->name, v);
    if (c->kind == GDT_COL_ENUM) {
        for (int i = 0; i < c->ndomain; i++)
            if (c->domain[i] == v) return GDT_STATUS_OK;
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: column %s: expected one of its %d enum values, got %" PRId64,
                             file, path, c->name, c->ndomain, v);
    }
    return GDT_STATUS_OK;
}

static gdt_status append_column(gdt_error *e, gdt_status st, const char *col)
{
    if (e) {
        size_t n = strlen(e->msg);
        snprintf(e->msg + n, sizeof e->msg - n, " (column %s)", col);
    }
    return st;
}

/* "8 columns", or with optional columns "8 to 15 columns (from PIPE on optional)". */
static const char *column_count(const gdt_row_family *rf, char *buf, size_t n)
{
    int need = gdt__row_family_required(rf);
    if (need == rf->ncols)
        snprintf(buf, n, "%d columns", rf->ncols);
    else
        snprintf(buf, n, "%d to %d columns (from %s on optional)", need, rf->ncols,
                 rf->cols[need].name);
    return buf;
}

static gdt_status read_row(const gdt_row_family *rf, const cJSON *row, const char *file,
                           const char *path, int64_t *out, gdt_error *e)
{
    if (!cJSON_IsArray(row)) {
        char got[96];
        gdt_json_describe(row, got, sizeof got);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: expected a row (array of %d integers), got %s", file, path,
                             rf->ncols, got);
    }
    int n = cJSON_GetArraySize(row), need = gdt__row_family_required(rf);
    char count[96];
    if (n < need || n > rf->ncols)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected %s, got %d", file, path,
                             column_count(rf, count, sizeof count), n);
    for (int c = n; c < rf->ncols; c++)
        out[c] = rf->cols[c].absent;
    int c = 0;
    for (const cJSON *cell = row->child; cell; cell = cell->next, c++) {
        char cp[600];
        gdt_json_path_index(cp, sizeof cp, path, c);
        gdt_status st = gdt_json_int(cell, file, cp, &out[c], e);
        if (st) return append_column(e, st, rf->cols[c].name);
        if ((st = check_cell(&rf->cols[c], out[c], file, cp, e))) return st;
    }
    return GDT_STATUS_OK;
}

typedef struct row_ref {
    const int64_t *v;
    int ncols, index;
} row_ref;

static int row_ref_cmp(const void *a, const void *b)
{
    const row_ref *x = a, *y = b;
    for (int i = 0; i < x->ncols; i++)
        if (x->v[i] != y->v[i]) return x->v[i] < y->v[i] ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Sorting keeps a 10^5-row hostile file O(n log n); the pair reported is the
 * first repeat in document order. */
static gdt_status check_duplicates(const int64_t *v, int nrows, int ncols, const char *file,
                                   const char *path, gdt_error *e)
{
    if (nrows < 2) return GDT_STATUS_OK;
    row_ref *r = malloc((size_t)nrows * sizeof *r);
    if (!r) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: %s: out of memory", file, path);
    for (int i = 0; i < nrows; i++) r[i] = (row_ref){v + (size_t)i * ncols, ncols, i};
    qsort(r, (size_t)nrows, sizeof *r, row_ref_cmp);
    int first = -1, later = nrows;
    for (int i = 1; i < nrows; i++) {
        if (memcmp(r[i].v, r[i - 1].v, (size_t)ncols * sizeof *v)) continue;
        int g = i - 1;
        while (g > 0 && !memcmp(r[g - 1].v, r[i].v, (size_t)ncols * sizeof *v)) g--;
        if (r[i].index < later) later = r[i].index, first = r[g].index;
    }
    free(r);
    if (first < 0) return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                         "%s: %s/%d: duplicate row (same as %s/%d)", file, path, later, path, first);
}

static gdt_status read_family(const gdt_row_family *rf, const cJSON *arr, const char *file,
                              const char *path, fam_rows *out, gdt_error *e)
{
    char got[96], count[96];
    if (!cJSON_IsArray(arr)) {
        gdt_json_describe(arr, got, sizeof got);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected an array of rows, got %s",
                             file, path, got);
    }
    int n = cJSON_GetArraySize(arr);
    if (n == 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: empty family: expected at least one row of %s, got 0",
                             file, path, column_count(rf, count, sizeof count));
    int64_t *v = malloc((size_t)n * (size_t)rf->ncols * sizeof *v);
    if (!v) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: %s: out of memory", file, path);
    int i = 0;
    gdt_status st = GDT_STATUS_OK;
    for (const cJSON *row = arr->child; row && !st; row = row->next, i++) {
        char rp[600];
        gdt_json_path_index(rp, sizeof rp, path, i);
        st = read_row(rf, row, file, rp, v + (size_t)i * rf->ncols, e);
    }
    if (!st) st = check_duplicates(v, n, rf->ncols, file, path, e);
    if (st) {
        free(v);
        return st;
    }
    *out = (fam_rows){true, n, v};
    return GDT_STATUS_OK;
}

/* -------------------------------------------------------------- loading */

static gdt_status read_namespace(const cJSON *ns, const char *file, gdt_row_table *t, gdt_error *e)
{
    char got[96], list[256];
    const char *path = "/" NAMESPACE;
    if (!cJSON_IsObject(ns)) {
        gdt_json_describe(ns, got, sizeof got);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: expected an object of structural families, got %s", file,
                             path, got);
    }
    family_list(list, sizeof list);
    if (!ns->child)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: empty table: expected at least one structural family (%s)",
                             file, path, list);
    for (const cJSON *m = ns->child; m; m = m->next) {
        char fp[600];
        gdt_json_path_key(fp, sizeof fp, path, m->string);
        int fi = family_index(m->string);
        if (fi < 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "%s: %s: unknown structural family \"%s\" (expected one of: %s)",
                                 file, fp, m->string, list);
        gdt_status st = read_family(row_families[fi], m, file, fp, &t->fam[fi], e);
        if (st) return st;
    }
    return GDT_STATUS_OK;
}

static gdt_status read_root(const cJSON *root, const char *file, gdt_row_table *t, gdt_error *e)
{
    char got[96];
    if (!cJSON_IsObject(root)) {
        gdt_json_describe(root, got, sizeof got);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: /: expected an object keyed by provider namespace (\"%s\"), got %s",
                             file, NAMESPACE, got);
    }
    if (!root->child)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: /: empty table: expected the provider namespace \"%s\"", file,
                             NAMESPACE);
    for (const cJSON *m = root->child; m; m = m->next) {
        char np[600];
        gdt_json_path_key(np, sizeof np, "", m->string);
        if (strcmp(m->string, NAMESPACE))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "%s: %s: unknown namespace \"%s\" (expected \"%s\")", file, np,
                                 m->string, NAMESPACE);
    }
    return read_namespace(root->child, file, t, e);
}

gdt_status gdt_rows_load_text(const char *text, size_t len, const char *path_for_messages,
                              gdt_row_table **out, gdt_error *e)
{
    const char *file = path_for_messages ? path_for_messages : "<text>";
    *out = NULL;
    cJSON *root;
    gdt_status st = gdt_json_parse(text, len, file, &root, e);
    if (st) return st;
    gdt_row_table *t = calloc(1, sizeof *t);
    if (!t) st = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", file);
    else st = read_root(root, file, t, e);
    cJSON_Delete(root);
    if (st) {
        gdt_rows_destroy(t);
        return st;
    }
    *out = t;
    return GDT_STATUS_OK;
}

gdt_status gdt_rows_load_default(gdt_row_table **out, gdt_error *e)
{
    const gdt_embedded *d = gdt_embedded_find(GDT_ROWS_DEFAULT_PATH);
    if (!d) {
        *out = NULL;
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "%s: not embedded in this build", GDT_ROWS_DEFAULT_PATH);
    }
    return gdt_rows_load_text(d->data, d->len, GDT_ROWS_DEFAULT_PATH, out, e);
}

gdt_status gdt_rows_load_file(const char *path, gdt_row_table **out, gdt_error *e)
{
    char *text;
    size_t len;
    *out = NULL;
    gdt_status st = gdt_file_read(path, &text, &len, e);
    /* An unreadable table is the caller's bad input, not a failure while running. */
    if (st) {
        if (e) e->status = GDT_STATUS_BAD_INPUT;
        return GDT_STATUS_BAD_INPUT;
    }
    st = gdt_rows_load_text(text, len, path, out, e);
    free(text);
    return st;
}

gdt_status gdt_rows_override(gdt_row_table *t, const char *path, gdt_error *e)
{
    gdt_row_table *o;
    gdt_status st = gdt_rows_load_file(path, &o, e);
    if (st) return st;
    for (int i = 0; i < NFAM; i++) {
        if (!o->fam[i].present) continue;
        free(t->fam[i].v);
        t->fam[i] = o->fam[i];
        o->fam[i] = (fam_rows){false, 0, NULL};
    }
    gdt_rows_destroy(o);
    return GDT_STATUS_OK;
}

/* The columns of row v up to its last one that is not an optional column
 * at its absent value: the row as its shortest form writes it, so that a
 * column added as optional leaves the digests of the rows of before. */
int gdt__row_written(const gdt_row_family *rf, const int64_t *v)
{
    int last = rf->ncols, need = gdt__row_family_required(rf);
    while (last > need && v[last - 1] == rf->cols[last - 1].absent) last--;
    return last;
}

const int64_t *gdt__rows_values(const gdt_row_table *t, int family, int *nrows)
{
    const fam_rows *f = family >= 0 && family < NFAM ? &t->fam[family] : NULL;
    *nrows = f && f->present ? f->nrows : 0;
    return f && f->present ? f->v : NULL;
}

void gdt_rows_digest(const gdt_row_table *t, char out[65])
{
    size_t cap = 64, n = 0;
    for (int i = 0; i < NFAM; i++)
        if (t->fam[i].present) cap += 64 + (size_t)t->fam[i].nrows * (size_t)row_families[i]->ncols * 21;
    char *buf = malloc(cap);
    if (!buf) {
        memset(out, '0', 64), out[64] = '\0';
        return;
    }
    for (int i = 0; i < NFAM; i++) {
        const fam_rows *f = &t->fam[i];
        if (!f->present) continue;
        int nc = row_families[i]->ncols;
        n += (size_t)snprintf(buf + n, cap - n, "%s:", row_families[i]->name);
        for (int r = 0; r < f->nrows; r++) {
            const int64_t *v = f->v + (size_t)r * nc;
            int last = gdt__row_written(row_families[i], v);
            for (int c = 0; c < last; c++)
                n += (size_t)snprintf(buf + n, cap - n, "%" PRId64 "%c", v[c], c + 1 < last ? ',' : ';');
        }
        n += (size_t)snprintf(buf + n, cap - n, "\n");
    }
    gdt_digest_hex(buf, n, out);
    free(buf);
}

/* ---------------------------------------------------------- materialize */

static int64_t problem_extent(const gdt_facts *f, int axis)
{
    const gdt_problem *p = &f->problem;
    if (p->family == GDT_FAMILY_GEMM) {
        if (axis == GDT_AXIS_M) return p->u.gemm.m;
        if (axis == GDT_AXIS_N) return p->u.gemm.n;
        if (axis == GDT_AXIS_K) return p->u.gemm.k;
        return 0;
    }
    if (axis == GDT_AXIS_SQ) return p->u.sdpa.s_q;
    if (axis == GDT_AXIS_SKV) return p->u.sdpa.s_kv;
    return 0;
}

static int64_t next_pow2(int64_t x)
{
    int64_t p = 1;
    while (p < x && p < ((int64_t)1 << 62)) p <<= 1;
    return p;
}

/* Cap at the next power of two >= the problem extent, then the largest
 * domain value not above the request, else the domain minimum. */
static int64_t project(const gdt_column *c, int64_t req, const gdt_facts *f)
{
    int64_t ext = c->problem_axis >= 0 ? problem_extent(f, c->problem_axis) : 0;
    if (ext > 0 && req > next_pow2(ext)) req = next_pow2(ext);
    if (c->ndomain <= 0) return req;
    int64_t best = c->domain[0];
    for (int i = 0; i < c->ndomain; i++)
        if (c->domain[i] <= req) best = c->domain[i];
    return best;
}

static gdt_status limits_for(const gdt_facts *f, gdt_device_props *lim, gdt_error *e)
{
    if (gdt_arch_limits(f->device.arch, lim)) return GDT_STATUS_OK;
    /* An arch the table does not hold: the device's own report, when any. */
    if (f->device.smem_per_block > 0 && f->device.max_threads_per_block > 0) {
        *lim = f->device;
        return GDT_STATUS_OK;
    }
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                         "candidates: no resource limits for sm%d (the per-arch table holds "
                         "sm80, sm86, sm87, sm89, sm90, sm100, sm120)", f->device.arch);
}

static void bind_row(const gdt_row_family *rf, const int64_t *row, const gdt_engine_slot *slot,
                     const gdt_facts *f, const gdt_device_props *lim, gdt_candidate *c)
{
    c->ncols = rf->ncols;
    for (int k = 0; k < rf->ncols; k++) {
        c->requested[k] = row[k];
        c->bound[k] = project(&rf->cols[k], row[k], f);
    }
    if (rf->bind && !rf->bind(c->bound, f, lim, c->reason, sizeof c->reason)) {
        c->rejected = true;
        return;
    }
    c->id.engine_id = gdt_engine_id(slot->family, slot->slot);
    for (int k = 0; k < rf->ncols; k++)
        if (!rf->cols[k].optional || c->bound[k] != rf->cols[k].absent)
            gdt_plan_id_set_knob(&c->id, rf->cols[k].knob, c->bound[k]);
}

typedef struct plan_ref {
    const gdt_candidate *c;
    int pos;
} plan_ref;

static int plan_ref_cmp(const void *a, const void *b)
{
    const plan_ref *x = a, *y = b;
    const gdt_plan_id *p = &x->c->id, *q = &y->c->id;
    if (p->engine_id != q->engine_id) return p->engine_id < q->engine_id ? -1 : 1;
    if (p->nknobs != q->nknobs) return p->nknobs < q->nknobs ? -1 : 1;
    for (int i = 0; i < p->nknobs; i++) {
        if (p->knobs[i].type != q->knobs[i].type) return p->knobs[i].type < q->knobs[i].type ? -1 : 1;
        if (p->knobs[i].value != q->knobs[i].value) return p->knobs[i].value < q->knobs[i].value ? -1 : 1;
    }
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Identical plans: the earliest surviving row keeps the plan, later rows
 * point at it.  Sorted, so a large override stays O(n log n). */
static gdt_status dedupe(gdt_candidate *c, int n, gdt_error *e)
{
    plan_ref *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    if (!r) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "candidates: out of memory");
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!c[i].rejected) r[m++] = (plan_ref){&c[i], i};
    qsort(r, (size_t)m, sizeof *r, plan_ref_cmp);
    for (int i = 1, first = 0; i < m; i++) {
        if (!gdt_plan_id_equal(&r[i].c->id, &r[first].c->id)) {
            first = i;
            continue;
        }
        gdt_candidate *d = &c[r[i].pos];
        d->duplicate_of_earlier = true;
        d->dup_of = r[first].c->row_index;
        snprintf(d->reason, sizeof d->reason, "binds the same plan as row %d", d->dup_of);
    }
    free(r);
    return GDT_STATUS_OK;
}

gdt_status gdt_candidates_materialize(const gdt_row_table *t, const gdt_engine_slot *slot,
                                      const gdt_facts *f, gdt_candidate **out, int *n,
                                      gdt_error *e)
{
    *out = NULL;
    *n = 0;
    const gdt_row_family *rf = gdt__slot_rows(slot);
    if (!rf) return GDT_STATUS_OK; /* fixed-config engines carry no rows */
    int fi = registry_index(rf);
    if (fi < 0)
        return gdt_error_set(e, GDT_STATUS_INTERNAL,
                             "%s: row family \"%s\" is not in the registry", slot->name, rf->name);
    if (!t || !t->fam[fi].present) return GDT_STATUS_OK;
    if (rf->ncols > GDT_MAX_COLUMNS || rf->ncols > GDT_MAX_KNOBS)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "%s: %d columns exceed %d", rf->name,
                             rf->ncols, GDT_MAX_COLUMNS);
    gdt_device_props lim;
    gdt_status st = limits_for(f, &lim, e);
    if (st) return st;
    const fam_rows *fr = &t->fam[fi];
    gdt_candidate *c = calloc((size_t)fr->nrows, sizeof *c);
    if (!c) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "candidates: out of memory");
    for (int i = 0; i < fr->nrows; i++) {
        c[i].row_index = i;
        c[i].dup_of = -1;
        bind_row(rf, fr->v + (size_t)i * rf->ncols, slot, f, &lim, &c[i]);
    }
    if ((st = dedupe(c, fr->nrows, e))) {
        free(c);
        return st;
    }
    *out = c;
    *n = fr->nrows;
    return GDT_STATUS_OK;
}
