/* The worker protocol's rows (gdt_wire.h) and the few functions that read
 * and write a message's fields through them. */
#include <assert.h>
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "gdt_json.h"
#include "gdt_table.h"
#include "gdt_util.h"
#include "gdt_wire.h"

static const gdt__field rows[GDT__W_COUNT] = {
#define ROW(id, key, kind, req, lo, hi, def, sub) [GDT__W_##id] = GDT__WIRE_FIELD(id, key, kind, req, lo, hi, def, sub)
#define MSG_ROWS(m, op, r) r(ROW)
    GDT_WIRE_MSG_MAP(MSG_ROWS)
    GDT_WIRE_OBJ_MAP(MSG_ROWS)
#undef MSG_ROWS
#undef ROW
};

/* A message's rows are consecutive ids from its "op" row, GDT__W_<m>_OP;
 * a nested object's from the first row its map names. */
#define COUNT_ROW(id, key, kind, req, lo, hi, def, sub) +1
#define TABLE(m, op, r) [GDT__WM_##m] = {NULL, &rows[GDT__W_##m##_OP], 0 r(COUNT_ROW), NULL},
#define OBJ_TABLE(m, first, r) [GDT__WM_##m] = {NULL, &rows[GDT__W_##first], 0 r(COUNT_ROW), NULL},
const gdt__table gdt__wire_tables[GDT__WM_COUNT] = {GDT_WIRE_MSG_MAP(TABLE)
                                                    GDT_WIRE_OBJ_MAP(OBJ_TABLE)};
#undef OBJ_TABLE
#undef TABLE
#undef COUNT_ROW

static const char *const ops[GDT__WM_COUNT] = {
#define OP(m, op, r) [GDT__WM_##m] = op,
    GDT_WIRE_MSG_MAP(OP)
#undef OP
};

const gdt__table *gdt__wire_table(gdt__wire_msg m)
{
    assert((unsigned)m < GDT__WM_COUNT);
    return &gdt__wire_tables[m];
}

const char *gdt__wire_op(gdt__wire_msg m)
{
    assert((unsigned)m < GDT__WM_COUNT);
    return ops[m];
}

static const gdt__field *row_of(gdt__wire_field f)
{
    assert((unsigned)f < GDT__W_COUNT);
    return &rows[f];
}

const char *gdt__wire_key(gdt__wire_field f) { return row_of(f)->key; }
double gdt__wire_lo(gdt__wire_field f) { return row_of(f)->lo; }
double gdt__wire_hi(gdt__wire_field f) { return row_of(f)->hi; }
double gdt__wire_def(gdt__wire_field f) { return row_of(f)->def; }

/* Every message's first row is its "op" (test_worker_wire checks). */
static const char *op_key(gdt__wire_msg m) { return gdt__wire_table(m)->f[0].key; }

cJSON *gdt__wire_new(gdt__wire_msg m)
{
    assert(m < GDT__WM_MESSAGES);
    cJSON *o = cJSON_CreateObject();
    if (o)
        cJSON_AddStringToObject(o, op_key(m), gdt__wire_op(m));
    return o;
}

void gdt__wire_add_num(cJSON *o, gdt__wire_field f, double v)
{
    assert(row_of(f)->kind == GDT__NUM || row_of(f)->kind == GDT__INT);
    cJSON_AddNumberToObject(o, gdt__wire_key(f), v);
}

void gdt__wire_add_str(cJSON *o, gdt__wire_field f, const char *v)
{
    assert(row_of(f)->kind == GDT__STR || row_of(f)->kind == GDT__NAME);
    cJSON_AddStringToObject(o, gdt__wire_key(f), v);
}

void gdt__wire_add_bool(cJSON *o, gdt__wire_field f, bool v)
{
    assert(row_of(f)->kind == GDT__BOOL);
    cJSON_AddBoolToObject(o, gdt__wire_key(f), v);
}

void gdt__wire_add(cJSON *o, gdt__wire_field f, cJSON *item)
{
    cJSON_AddItemToObject(o, gdt__wire_key(f), item);
}

cJSON *gdt__wire_get(const cJSON *o, gdt__wire_field f)
{
    return cJSON_GetObjectItemCaseSensitive(o, gdt__wire_key(f));
}

bool gdt__wire_is(const cJSON *o, gdt__wire_msg m)
{
    const char *op = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, op_key(m)));
    return op && !strcmp(op, gdt__wire_op(m));
}

double gdt__wire_num_or(const cJSON *o, gdt__wire_field f, double def)
{
    return gdt_json_num_or(o, gdt__wire_key(f), def);
}

bool gdt__wire_true(const cJSON *o, gdt__wire_field f) { return cJSON_IsTrue(gdt__wire_get(o, f)); }

const char *gdt__wire_str(const cJSON *o, gdt__wire_field f)
{
    return cJSON_GetStringValue(gdt__wire_get(o, f));
}

/* The row of key in t, NULL for none. */
static const gdt__field *row_named(const gdt__table *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->f[i].key, key))
            return &t->f[i];
    return NULL;
}

gdt_status gdt__wire_keys(const gdt__table *t, const char *at, const cJSON *o, gdt_error *e)
{
    char what[128];
    if (!cJSON_IsObject(o))
        return gdt_json_describe(o, what, sizeof what),
               gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /: expected an object, got %s", at,
                             o ? what : "nothing (missing)");
    for (const cJSON *c = o->child; c; c = c->next) {
        char jk[512], shown[80];
        const char *k = c->string ? c->string : "";
        gdt_json_path_key(jk, sizeof jk, "", k);
        if (!row_named(t, k))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: unknown field \"%s\"", at, jk,
                                 gdt_text_escape(k, shown, sizeof shown));
        for (const cJSON *d = o->child; d != c; d = d->next)
            if (d->string && !strcmp(d->string, k))
                return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: duplicate field \"%s\"",
                                     at, jk, gdt_text_escape(k, shown, sizeof shown));
    }
    return GDT_STATUS_OK;
}

bool gdt__wire_has(gdt__wire_msg m, const char *key) { return row_named(gdt__wire_table(m), key); }

gdt_status gdt__wire_known(gdt__wire_msg m, const char *at, const cJSON *o, gdt_error *e)
{
    return gdt__wire_keys(gdt__wire_table(m), at, o, e);
}

gdt_status gdt__wire_int(const cJSON *o, gdt__wire_field f, const char *at, int64_t *out,
                         gdt_error *e)
{
    const gdt__field *r = row_of(f);
    const cJSON *n = gdt__wire_get(o, f);
    char jp[64];
    int64_t v = 0, lo = (int64_t)r->lo, hi = (int64_t)r->hi;
    assert(r->kind == GDT__INT);
    if (!n)
        return GDT_STATUS_OK;
    gdt_json_path_key(jp, sizeof jp, "", r->key);
    gdt_status s = gdt_json_int(n, at, jp, &v, e);
    if (s == GDT_STATUS_OK && (v < lo || v > hi))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected an integer in [%lld, %lld], "
                          "got %lld", at, jp, (long long)lo, (long long)hi, (long long)v);
    if (s == GDT_STATUS_OK)
        *out = v;
    return s;
}

gdt_status gdt__wire_number(const cJSON *o, gdt__wire_field f, const char *at, double *out,
                            gdt_error *e)
{
    const gdt__field *r = row_of(f);
    const cJSON *n = gdt__wire_get(o, f);
    char jp[64];
    double v = 0;
    assert(r->kind == GDT__NUM);
    if (!n)
        return GDT_STATUS_OK;
    gdt_json_path_key(jp, sizeof jp, "", r->key);
    gdt_status s = gdt_json_number(n, at, jp, &v, e);
    if (s == GDT_STATUS_OK && !(v >= r->lo && v <= r->hi))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected a number in [%g, %g], got %g",
                          at, jp, r->lo, r->hi, v);
    if (s == GDT_STATUS_OK)
        *out = v;
    return s;
}
