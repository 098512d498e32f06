/* `gdtune sweep FAMILY --shape k=v,...`: a sweep spec from shapes given on
 * the command line (gdt_sweep.h).  The shapes become one grid object of the
 * base spec, whose other fields (bursts, target_rel, caps) stay; each value
 * is checked by the family's own shape parser, so a bad one is named in
 * the words `gdtune plans --shape` uses. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_family.h"
#include "gdt_sweep.h"

typedef struct shape_ctx {
    const char *shape; /* the --shape argument being read, for messages */
    gdt_family family; /* whose keys and values are checked */
    cJSON *grid;       /* {"key": [values], ...} */
    cJSON *axis;       /* the values of the key being read */
    char key[32];
    double cells;      /* the product of the axes so far */
} shape_ctx;

static gdt_status refuse(const shape_ctx *c, gdt_error *e, const char *what)
{
    return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shape %s: %s", c->shape, what);
}

/* A positive integer of a range, all of tok; false otherwise. */
static bool range_int(const char *tok, long *v)
{
    char *end = NULL;
    errno = 0;
    *v = tok[0] >= '0' && tok[0] <= '9' ? strtol(tok, &end, 10) : 0;
    return *v > 0 && !errno && end && !*end && *v <= INT_MAX;
}

/* Adds one value of the current key, as the family reads "key=value". */
static gdt_status add_value(shape_ctx *c, const char *v, gdt_error *e)
{
    char kv[160], *end = NULL;
    gdt_error pe = {0};
    snprintf(kv, sizeof kv, "%s=%s", c->key, v);
    if (gdt__problem_apply(c->family, kv, &pe) != GDT_STATUS_OK)
        return refuse(c, e, pe.msg);
    if (cJSON_GetArraySize(c->axis) >= GDT_SWEEP_SHAPE_VALUES_MAX) {
        snprintf(kv, sizeof kv, "%s: expected at most %d values of one key", c->key,
                 GDT_SWEEP_SHAPE_VALUES_MAX);
        return refuse(c, e, kv);
    }
    double num = strtod(v, &end);
    cJSON *item = *v && end && !*end ? cJSON_CreateNumber(num) : cJSON_CreateString(v);
    if (!item || !cJSON_AddItemToArray(c->axis, item))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "--shape: out of memory");
    return GDT_STATUS_OK;
}

/* LO:HI:xF or LO:HI:+S, each value added in turn. */
static gdt_status add_range(shape_ctx *c, const char *tok, gdt_error *e)
{
    char buf[96], why[300], *lo_s = buf, *hi_s, *step_s;
    long lo = 0, hi = 0, step = 0;
    snprintf(buf, sizeof buf, "%s", tok);
    hi_s = strchr(lo_s, ':');
    step_s = hi_s ? strchr(hi_s + 1, ':') : NULL;
    if (hi_s) *hi_s++ = 0;
    if (step_s) *step_s++ = 0;
    bool geo = step_s && step_s[0] == 'x', ok = step_s && (geo || step_s[0] == '+');
    ok = ok && range_int(lo_s, &lo) && range_int(hi_s, &hi) && range_int(step_s + 1, &step) &&
         lo <= hi && (!geo || step >= 2);
    if (!ok) {
        snprintf(why, sizeof why, "%s=%s: expected a range LO:HI:xF (F >= 2) or LO:HI:+S, "
                 "integers with 0 < LO <= HI", c->key, tok);
        return refuse(c, e, why);
    }
    gdt_status s = GDT_STATUS_OK;
    for (long v = lo; v <= hi && s == GDT_STATUS_OK; v = geo ? v * step : v + step) {
        snprintf(buf, sizeof buf, "%ld", v);
        s = add_value(c, buf, e);
    }
    return s;
}

/* Starts key k (the text before '='): refused when unknown to the family's
 * parser (checked with its first value) or given before. */
static gdt_status start_key(shape_ctx *c, const char *k, size_t n, gdt_error *e)
{
    char why[160];
    if (n == 0 || n >= sizeof c->key)
        return snprintf(why, sizeof why, "expected key=value, got a key of %zu characters", n),
               refuse(c, e, why);
    if (c->axis)
        c->cells *= cJSON_GetArraySize(c->axis);
    memcpy(c->key, k, n);
    c->key[n] = 0;
    if (cJSON_GetObjectItemCaseSensitive(c->grid, c->key))
        return snprintf(why, sizeof why, "key \"%s\" given twice (give its values once: "
                        "%s=V1,V2,... or a range)", c->key, c->key), refuse(c, e, why);
    c->axis = cJSON_AddArrayToObject(c->grid, c->key);
    return c->axis ? GDT_STATUS_OK : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "--shape: out of memory");
}

/* One --shape argument: comma-separated tokens; "k=v" starts a key, a
 * token without '=' is one more value of the key before it. */
static gdt_status read_shape(shape_ctx *c, const char *shape, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    c->shape = shape;
    c->axis = NULL;
    for (const char *p = shape; s == GDT_STATUS_OK && *p;) {
        size_t n = strcspn(p, ","), eq = strcspn(p, "=");
        char tok[96];
        snprintf(tok, sizeof tok, "%.*s", (int)(n - (eq < n ? eq + 1 : 0)), p + (eq < n ? eq + 1 : 0));
        if (eq < n)
            s = start_key(c, p, eq, e);
        else if (!c->axis)
            s = refuse(c, e, "expected key=value first (a value without a key before it)");
        if (s == GDT_STATUS_OK && !*tok)
            s = refuse(c, e, "an empty value (two commas, or one at the end?)");
        if (s == GDT_STATUS_OK)
            s = strchr(tok, ':') ? add_range(c, tok, e) : add_value(c, tok, e);
        p += n + (p[n] == ',');
    }
    if (s == GDT_STATUS_OK && !*shape)
        s = refuse(c, e, "expected key=value,... (an empty shape)");
    if (c->axis)
        c->cells *= cJSON_GetArraySize(c->axis);
    return s;
}

/* The base spec with the grid replaced: the spec's other fields stay, its
 * quick subset goes (its grid would not be these cells). */
static gdt_status splice(const char *family_arg, const char *path, cJSON *grid, char **text, gdt_error *e)
{
    char name[PATH_MAX];
    char *base = NULL;
    size_t len = 0;
    gdt_status s = gdt__sweep_spec_text(family_arg, path, &base, &len, name, sizeof name, e);
    cJSON *root = s == GDT_STATUS_OK ? cJSON_ParseWithLength(base, len) : NULL;
    free(base);
    if (s == GDT_STATUS_OK && !cJSON_IsObject(root))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: not a JSON object (gdtune sweep --spec %s "
                          "says where)", name, name);
    cJSON *grids = s == GDT_STATUS_OK ? cJSON_CreateArray() : NULL;
    if (grids) {
        cJSON_AddItemToArray(grids, grid);
        cJSON_DeleteItemFromObjectCaseSensitive(root, "quick");
        cJSON_ReplaceItemInObjectCaseSensitive(root, "grid", grids);
        *text = cJSON_Print(root);
    } else {
        cJSON_Delete(grid);
    }
    cJSON_Delete(root);
    if (s == GDT_STATUS_OK && !*text)
        s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "--shape: out of memory");
    return s;
}

gdt_status gdt_sweep_spec_shapes(const char *family_arg, const char *path, const char *const *shapes,
                                 int nshapes, char **text, gdt_error *e)
{
    unsigned mask = 0;
    *text = NULL;
    gdt_status s = gdt_family_parse_set(family_arg, &mask, e);
    shape_ctx c = {.grid = cJSON_CreateObject(), .cells = 1};
    while (s == GDT_STATUS_OK && !(mask & (1u << c.family)))
        c.family++;
    if (s == GDT_STATUS_OK && !c.grid)
        s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "--shape: out of memory");
    for (int i = 0; i < nshapes && s == GDT_STATUS_OK; i++)
        s = read_shape(&c, shapes[i], e);
    if (s == GDT_STATUS_OK && c.cells > GDT_SWEEP_SHAPE_CELLS_MAX)
        s = gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shape: %.0f cells (the product of the keys' "
                          "values): expected at most %d per sweep; split it into several", c.cells,
                          GDT_SWEEP_SHAPE_CELLS_MAX);
    if (s != GDT_STATUS_OK) {
        cJSON_Delete(c.grid);
        return s;
    }
    return splice(family_arg, path, c.grid, text, e);
}
