/* Sweep specs: the strict reader of gdtune.sweep/1 (sweeps/README.md), the
 * grid's cells, the embedded defaults, and sharding. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_json.h"
#include "gdt_spec.h"
#include "gdt_sweep.h"
#include "gdt_util.h"

typedef struct axis {
    char keys[8][32];
    int nkeys;
    const cJSON *values;
    char path[256];
} axis;

/* Splits "n,k" into keys; each must be a plain word. */
static gdt_status axis_keys(const char *name, const char *file, const char *jpath, axis *a,
                            gdt_error *e)
{
    const char *p = name;
    a->nkeys = 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof a->keys[0] || a->nkeys == 8 ||
            strspn(p, "abcdefghijklmnopqrstuvwxyz_0123456789") < n)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "%s: %s: expected an axis name (a shape key such as \"m\", or "
                                 "keys tied together such as \"n,k\"), got \"%s\"",
                                 file, jpath, name);
        memcpy(a->keys[a->nkeys], p, n);
        a->keys[a->nkeys++][n] = 0;
        p += n + (p[n] == ',');
    }
    if (!a->nkeys)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: empty axis name", file, jpath);
    return GDT_STATUS_OK;
}

/* Appends "key=value" for one scalar of an axis. */
static gdt_status put_scalar(char *shape, size_t n, const char *key, const cJSON *v,
                             const char *file, const char *jpath, gdt_error *e)
{
    char val[64], what[96];
    int64_t iv;
    if (cJSON_IsString(v) && strlen(v->valuestring) < sizeof val &&
        strspn(v->valuestring, "abcdefghijklmnopqrstuvwxyz_0123456789.") == strlen(v->valuestring) &&
        v->valuestring[0] >= 'a' && v->valuestring[0] <= 'z') /* a word; "128" is a string, not a size */
        snprintf(val, sizeof val, "%s", v->valuestring);
    else if (cJSON_IsNumber(v) && gdt_json_int(v, file, jpath, &iv, NULL) == GDT_STATUS_OK)
        snprintf(val, sizeof val, "%lld", (long long)iv);
    else if (cJSON_IsNumber(v) && isfinite(v->valuedouble))
        snprintf(val, sizeof val, "%.17g", v->valuedouble);
    else {
        gdt_json_describe(v, what, sizeof what);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: expected a number or a short lowercase word for \"%s\", got %s",
                             file, jpath, key, what);
    }
    size_t used = strlen(shape);
    if (snprintf(shape + used, n - used, "%s%s=%s", used ? "," : "", key, val) >= (int)(n - used))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: shape text too long", file, jpath);
    return GDT_STATUS_OK;
}

static gdt_status put_value(char *shape, size_t n, const axis *a, int vi, const char *file,
                            gdt_error *e)
{
    char jp[300], what[96];
    const cJSON *v = cJSON_GetArrayItem(a->values, vi);
    gdt_json_path_index(jp, sizeof jp, a->path, vi);
    if (a->nkeys == 1)
        return put_scalar(shape, n, a->keys[0], v, file, jp, e);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != a->nkeys) {
        gdt_json_describe(v, what, sizeof what);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected an array of %d values "
                             "(one per tied key), got %s", file, jp, a->nkeys, what);
    }
    for (int k = 0; k < a->nkeys; k++) {
        char jk[320];
        gdt_json_path_index(jk, sizeof jk, jp, k);
        gdt_status s = put_scalar(shape, n, a->keys[k], cJSON_GetArrayItem(v, k), file, jk, e);
        if (s != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

static gdt_status add_cell(gdt_sweep_spec *sp, gdt_family f, const char *shape, const char *file,
                           const char *jpath, gdt_error *e)
{
    gdt_sweep_cell c = {.family = f};
    snprintf(c.shape, sizeof c.shape, "%s", shape);
    gdt_error pe = {0};
    if (gdt_problem_parse(f, shape, &c.problem, &pe) != GDT_STATUS_OK ||
        gdt_problem_validate(&c.problem, &pe) != GDT_STATUS_OK)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: cell %s (%s): %s", file, jpath,
                             shape, gdt_family_name(f), pe.msg);
    char k1[256], k2[256];
    gdt_problem_key(&c.problem, k1, sizeof k1);
    for (int i = 0; i < sp->ncells; i++)
        if (sp->cells[i].family == f && (gdt_problem_key(&sp->cells[i].problem, k2, sizeof k2), !strcmp(k1, k2)))
            return GDT_STATUS_OK; /* grids may overlap: a cell is measured once */
    gdt_sweep_cell *g = realloc(sp->cells, sizeof *g * (size_t)(sp->ncells + 1));
    if (!g)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", file);
    sp->cells = g;
    sp->cells[sp->ncells++] = c;
    return GDT_STATUS_OK;
}

/* The product of one grid object's axes, first axis slowest. */
static gdt_status grid_cells(gdt_sweep_spec *sp, const cJSON *grid, const char *file,
                             const char *jpath, gdt_error *e)
{
    axis ax[16];
    int nax = 0, idx[16] = {0};
    const cJSON *it;
    if (!cJSON_IsObject(grid) || !grid->child)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected an object of axes "
                             "({\"m\": [128, 1024], ...}), got %s", file, jpath,
                             cJSON_IsObject(grid) ? "an empty object" : gdt_json_type_name(grid));
    cJSON_ArrayForEach(it, grid)
    {
        axis *a = &ax[nax];
        gdt_json_path_key(a->path, sizeof a->path, jpath, it->string);
        if (nax == 16)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: more than 16 axes", file, a->path);
        gdt_status s = axis_keys(it->string, file, a->path, a, e);
        if (s != GDT_STATUS_OK)
            return s;
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) == 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected a non-empty array of "
                                 "values, got %s", file, a->path,
                                 cJSON_IsArray(it) ? "an empty array" : gdt_json_type_name(it));
        a->values = it;
        nax++;
    }
    for (;;) {
        char shape[256] = "";
        for (int i = 0; i < nax; i++) {
            gdt_status s = put_value(shape, sizeof shape, &ax[i], idx[i], file, e);
            if (s != GDT_STATUS_OK)
                return s;
        }
        for (int f = 0; f < GDT_FAMILY_COUNT; f++)
            if (sp->families & (1u << f)) {
                gdt_status s = add_cell(sp, (gdt_family)f, shape, file, jpath, e);
                if (s != GDT_STATUS_OK)
                    return s;
            }
        int i = nax - 1;
        while (i >= 0 && ++idx[i] == cJSON_GetArraySize(ax[i].values))
            idx[i--] = 0;
        if (i < 0)
            return GDT_STATUS_OK;
    }
}

static gdt_status parse_families(gdt_sweep_spec *sp, const cJSON *root, const char *file,
                                 gdt_error *e)
{
    const cJSON *fa, *it;
    gdt_status s = gdt_json_require(root, "families", file, "", &fa, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (!cJSON_IsArray(fa) || !cJSON_GetArraySize(fa))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /families: expected a non-empty array "
                             "of family names, got %s", file, gdt_json_type_name(fa));
    int i = 0;
    cJSON_ArrayForEach(it, fa)
    {
        char jp[64];
        const char *name;
        gdt_family f;
        gdt_error fe = {0};
        gdt_json_path_index(jp, sizeof jp, "/families", i++);
        if ((s = gdt_json_string(it, file, jp, &name, e)) != GDT_STATUS_OK)
            return s;
        if (gdt_family_parse(name, &f, &fe) != GDT_STATUS_OK)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: %s", file, jp, fe.msg);
        sp->families |= 1u << f;
    }
    return GDT_STATUS_OK;
}

/* bursts, target_rel, max_plan_seconds, noise_floor, heat_seconds, metric_sample_s,
 * cudnn_knob_cap, build_threads of obj at jpath. */
static gdt_status parse_settings(gdt_sweep_spec *sp, const cJSON *obj, const char *file,
                                 const char *jpath, gdt_error *e)
{
    char jp[128];
    const cJSON *b = gdt_json_get(obj, "bursts"), *it;
    gdt_status s = GDT_STATUS_OK;
    if (b) {
        gdt_json_path_key(jp, sizeof jp, jpath, "bursts");
        int n = cJSON_GetArraySize(b);
        if (!cJSON_IsArray(b) || n < 1 || n > GDT_MAX_BURSTS)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected 1 to %d burst sizes, "
                                 "got %s of %d", file, jp, GDT_MAX_BURSTS, gdt_json_type_name(b), n);
        sp->nbursts = 0;
        cJSON_ArrayForEach(it, b)
        {
            char ji[160];
            int64_t v;
            gdt_json_path_index(ji, sizeof ji, jp, sp->nbursts);
            if ((s = gdt_json_int(it, file, ji, &v, e)) != GDT_STATUS_OK)
                return s;
            if (v < 1 || v > GDT_BURST_MAX || (sp->nbursts && v <= sp->bursts[sp->nbursts - 1]))
                return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected increasing burst "
                                     "sizes in 1..%d, got %lld", file, ji, GDT_BURST_MAX, (long long)v);
            sp->bursts[sp->nbursts++] = (int)v;
        }
    }
    struct { const char *key; double *out; double lo, hi; } num[] = {
        {"target_rel", &sp->target_rel, GDT_TARGET_REL_MIN, GDT_TARGET_REL_MAX},
        {"max_plan_seconds", &sp->max_plan_seconds, GDT_PLAN_SECONDS_MIN, GDT_PLAN_SECONDS_MAX},
        {"noise_floor", &sp->noise_floor, 0, GDT_NOISE_FLOOR_MAX},
        {"heat_seconds", &sp->heat_seconds, 0, GDT_HEAT_SECONDS_MAX},
        {"metric_sample_s", &sp->metric_sample_s, 0, GDT_METRIC_SAMPLE_MAX},
    };
    for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
        const cJSON *v = gdt_json_get(obj, num[i].key);
        if (!v)
            continue;
        gdt_json_path_key(jp, sizeof jp, jpath, num[i].key);
        if ((s = gdt_json_number(v, file, jp, num[i].out, e)) != GDT_STATUS_OK)
            return s;
        if (*num[i].out < num[i].lo || *num[i].out > num[i].hi)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected a number in [%g, %g], "
                                 "got %g", file, jp, num[i].lo, num[i].hi, *num[i].out);
    }
    struct { const char *key; int *out; int lo, hi; } ints[] = {
        {"cudnn_knob_cap", &sp->knob_cap, 0, GDT_KNOB_CAP_MAX},
        {"build_threads", &sp->build_threads, 0, GDT_BUILD_THREADS_MAX},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        const cJSON *v = gdt_json_get(obj, ints[i].key);
        int64_t iv;
        if (!v)
            continue;
        gdt_json_path_key(jp, sizeof jp, jpath, ints[i].key);
        if ((s = gdt_json_int(v, file, jp, &iv, e)) != GDT_STATUS_OK)
            return s;
        if (iv < ints[i].lo || iv > ints[i].hi)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected an integer in "
                                 "[%d, %d], got %lld", file, jp, ints[i].lo, ints[i].hi, (long long)iv);
        *ints[i].out = (int)iv;
    }
    return GDT_STATUS_OK;
}

static gdt_status parse_grids(gdt_sweep_spec *sp, const cJSON *grids, const char *file,
                              const char *jpath, gdt_error *e)
{
    if (!cJSON_IsArray(grids) || !cJSON_GetArraySize(grids))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected a non-empty array of "
                             "grids, got %s", file, jpath, gdt_json_type_name(grids));
    const cJSON *g;
    int i = 0;
    cJSON_ArrayForEach(g, grids)
    {
        char jp[128];
        gdt_json_path_index(jp, sizeof jp, jpath, i++);
        gdt_status s = grid_cells(sp, g, file, jp, e);
        if (s != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

static gdt_status parse_root(gdt_sweep_spec *sp, const cJSON *root, const char *file, bool quick,
                             gdt_error *e)
{
    static const char *const top[] = {"schema", "description", "families", "grid", "quick",
                                      "bursts", "target_rel", "max_plan_seconds", "noise_floor",
                                      "heat_seconds", "metric_sample_s", "cudnn_knob_cap",
                                      "build_threads"};
    static const char *const qk[] = {"description", "grid", "bursts", "target_rel",
                                     "max_plan_seconds", "noise_floor", "heat_seconds",
                                     "metric_sample_s", "cudnn_knob_cap", "build_threads"};
    const cJSON *schema, *grid, *q = NULL;
    const char *sv;
    gdt_status s;
    if ((s = gdt_json_check_keys(root, top, (int)(sizeof top / sizeof top[0]), file, "", e)) != GDT_STATUS_OK ||
        (s = gdt_json_require(root, "schema", file, "", &schema, e)) != GDT_STATUS_OK ||
        (s = gdt_json_string(schema, file, "/schema", &sv, e)) != GDT_STATUS_OK)
        return s;
    if (strcmp(sv, GDT_SWEEP_SCHEMA) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /schema: expected \"%s\", got \"%s\"",
                             file, GDT_SWEEP_SCHEMA, sv);
    if ((s = parse_families(sp, root, file, e)) != GDT_STATUS_OK ||
        (s = gdt_json_require(root, "grid", file, "", &grid, e)) != GDT_STATUS_OK ||
        (s = parse_settings(sp, root, file, "", e)) != GDT_STATUS_OK)
        return s;
    if ((q = gdt_json_get(root, "quick")) &&
        (s = gdt_json_check_keys(q, qk, (int)(sizeof qk / sizeof qk[0]), file, "/quick", e)) != GDT_STATUS_OK)
        return s;
    if (quick && !q)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: --quick asks for the \"quick\" subset, "
                             "but the spec has no /quick", file);
    /* The quick settings are checked either way, applied only with quick. */
    gdt_sweep_spec scratch = {.knob_cap = -1, .build_threads = -1};
    if (q && (s = parse_settings(quick ? sp : &scratch, q, file, "/quick", e)) != GDT_STATUS_OK)
        return s;
    const cJSON *qg = NULL;
    if (q && (s = gdt_json_require(q, "grid", file, "/quick", &qg, e)) != GDT_STATUS_OK)
        return s;
    /* Both grids are checked whichever runs: a spec is valid or not, not
     * valid for --quick only. */
    gdt_sweep_spec other = {.families = sp->families, .knob_cap = -1, .build_threads = -1};
    s = quick ? parse_grids(&other, grid, file, "/grid", e)
              : qg ? parse_grids(&other, qg, file, "/quick/grid", e) : GDT_STATUS_OK;
    free(other.cells);
    if (s != GDT_STATUS_OK)
        return s;
    return quick ? parse_grids(sp, qg, file, "/quick/grid", e) : parse_grids(sp, grid, file, "/grid", e);
}

gdt_status gdt_sweep_spec_parse(const char *text, size_t len, const char *file, bool quick,
                                gdt_sweep_spec **out, gdt_error *e)
{
    *out = NULL;
    gdt_sweep_spec *sp = calloc(1, sizeof *sp);
    if (!sp || !(sp->text = malloc(len + 1))) {
        free(sp);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", file);
    }
    memcpy(sp->text, text, len);
    sp->text[len] = 0;
    snprintf(sp->source, sizeof sp->source, "%s", file);
    gdt_digest_hex(text, len, sp->digest);
    sp->quick = quick;
    sp->knob_cap = -1;
    sp->build_threads = -1;
    cJSON *root = NULL;
    gdt_status s = gdt_json_parse(text, len, file, &root, e);
    if (s == GDT_STATUS_OK && !cJSON_IsObject(root))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: expected a JSON object at the top, got %s",
                          file, gdt_json_type_name(root));
    if (s == GDT_STATUS_OK)
        s = parse_root(sp, root, file, quick, e);
    cJSON_Delete(root);
    return GDT_CREATED(s, sp, gdt_sweep_spec_destroy, out);
}

static gdt_status spec_text(const char *family_arg, const char *path, char **text, size_t *len,
                            char *name, size_t nname, gdt_error *e)
{
    if (path) {
        snprintf(name, nname, "%s", path);
        gdt_status s = gdt_file_read(path, text, len, e);
        /* An unreadable --spec is bad input (exit 2), not a failure while running. */
        return s == GDT_STATUS_IO ? gdt_error_prefix(e, GDT_STATUS_BAD_INPUT, "--spec: ") : s;
    }
    snprintf(name, nname, "sweeps/%s.json", strncmp(family_arg, "sdpa", 4) ? family_arg : "sdpa");
    const gdt_embedded *em = gdt_embedded_find(name);
    if (!em)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "no embedded sweep spec %s for family \"%s\"",
                             name, family_arg);
    if (!(*text = malloc(em->len + 1)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", name);
    memcpy(*text, em->data, em->len);
    (*text)[em->len] = 0;
    *len = em->len;
    return GDT_STATUS_OK;
}

/* The cells of the families family_arg names, of the spec text named name. */
static gdt_status spec_of_text(const char *family_arg, const char *text, size_t len, const char *name,
                               bool quick, gdt_sweep_spec **out, gdt_error *e)
{
    unsigned mask = 0;
    gdt_status s = gdt_family_parse_set(family_arg, &mask, e);
    if (s == GDT_STATUS_OK)
        s = gdt_sweep_spec_parse(text, len, name, quick, out, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt_sweep_spec *sp = *out;
    int k = 0;
    for (int i = 0; i < sp->ncells; i++)
        if (mask & (1u << sp->cells[i].family))
            sp->cells[k++] = sp->cells[i];
    sp->ncells = k;
    sp->families &= mask;
    if (!k) {
        gdt_sweep_spec_destroy(sp);
        *out = NULL;
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: no cell of family \"%s\" (the spec's "
                             "/families does not name it)", name, family_arg);
    }
    return GDT_STATUS_OK;
}

gdt_status gdt__sweep_spec_text(const char *family_arg, const char *path, char **text, size_t *len,
                                char *name, size_t nname, gdt_error *e)
{
    unsigned mask = 0;
    gdt_status s = gdt_family_parse_set(family_arg, &mask, e);
    return s == GDT_STATUS_OK ? spec_text(family_arg, path, text, len, name, nname, e) : s;
}

gdt_status gdt_sweep_spec_load(const char *family_arg, const char *path, bool quick,
                               gdt_sweep_spec **out, gdt_error *e)
{
    char name[PATH_MAX];
    char *text = NULL;
    size_t len = 0;
    gdt_status s = gdt__sweep_spec_text(family_arg, path, &text, &len, name, sizeof name, e);
    if (s == GDT_STATUS_OK)
        s = spec_of_text(family_arg, text, len, name, quick, out, e);
    free(text);
    return s;
}

gdt_status gdt_sweep_spec_of(const gdt_sweep_opts *o, gdt_sweep_spec **out, gdt_error *e)
{
    if (!o->shape_spec)
        return gdt_sweep_spec_load(o->family, o->spec_path, o->quick, out, e);
    return spec_of_text(o->family, o->shape_spec, strlen(o->shape_spec), GDT_SWEEP_SHAPE_SOURCE, false, out, e);
}

void gdt_sweep_spec_shard(gdt_sweep_spec *s, int k, int n)
{
    if (n <= 1)
        return;
    int m = 0;
    for (int i = 0; i < s->ncells; i++)
        if (i % n == k)
            s->cells[m++] = s->cells[i];
    s->ncells = m;
}

int gdt_sweep_build_threads(const gdt_sweep_spec *sp)
{
    if (sp && sp->build_threads >= 0)
        return sp->build_threads;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long n = cpus > 1 ? cpus - 1 : 0;
    return (int)(n < GDT_BUILD_THREADS_DEFAULT ? n : GDT_BUILD_THREADS_DEFAULT);
}

void gdt_sweep_spec_destroy(gdt_sweep_spec *s)
{
    if (!s)
        return;
    free(s->cells);
    free(s->text);
    free(s);
}
