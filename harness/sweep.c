/* The sweep: spec loading and cells, the run loop through the worker, the
 * journal, table emission, and the compile-only check. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gdt_engines.h"
#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_run.h"
#include "gdt_sweep.h"
#include "gdt_util.h"
#include "gdt_worker.h"
#include "gdtune/tables.h"
#include "nvrtc/gdt_nvrtc.h"
#include "nvrtc/gdt_nvrtc_cache.h"

/* Prefixes e's message and sets its status (the message cannot be
 * formatted into itself). */
static gdt_status rewrap(gdt_error *e, gdt_status s, const char *prefix)
{
    char msg[GDT_ERROR_MAX];
    snprintf(msg, sizeof msg, "%s", e->msg);
    return gdt_error_set(e, s, "%s%s", prefix, msg);
}

/* ------------------------------------------------------------- spec */

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

/* bursts, target_rel, max_plan_seconds, cudnn_knob_cap of obj at jpath. */
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
    const cJSON *kc = gdt_json_get(obj, "cudnn_knob_cap");
    if (kc) {
        int64_t v;
        gdt_json_path_key(jp, sizeof jp, jpath, "cudnn_knob_cap");
        if ((s = gdt_json_int(kc, file, jp, &v, e)) != GDT_STATUS_OK)
            return s;
        if (v < 0 || v > GDT_KNOB_CAP_MAX)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected an integer in "
                                 "[0, %d], got %lld", file, jp, GDT_KNOB_CAP_MAX, (long long)v);
        sp->knob_cap = (int)v;
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
                                      "bursts", "target_rel", "max_plan_seconds", "cudnn_knob_cap"};
    static const char *const qk[] = {"description", "grid", "bursts", "target_rel",
                                     "max_plan_seconds", "cudnn_knob_cap"};
    const cJSON *schema, *grid, *q = NULL;
    const char *sv;
    gdt_status s;
    if ((s = gdt_json_check_keys(root, top, 9, file, "", e)) != GDT_STATUS_OK ||
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
        (s = gdt_json_check_keys(q, qk, 6, file, "/quick", e)) != GDT_STATUS_OK)
        return s;
    if (quick && !q)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: --quick asks for the \"quick\" subset, "
                             "but the spec has no /quick", file);
    /* The quick settings are checked either way, applied only with quick. */
    gdt_sweep_spec scratch = {.knob_cap = -1};
    if (q && (s = parse_settings(quick ? sp : &scratch, q, file, "/quick", e)) != GDT_STATUS_OK)
        return s;
    if (!quick)
        return parse_grids(sp, grid, file, "/grid", e);
    const cJSON *qg;
    if ((s = gdt_json_require(q, "grid", file, "/quick", &qg, e)) != GDT_STATUS_OK)
        return s;
    return parse_grids(sp, qg, file, "/quick/grid", e);
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
    cJSON *root = NULL;
    gdt_status s = gdt_json_parse(text, len, file, &root, e);
    if (s == GDT_STATUS_OK && !cJSON_IsObject(root))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: expected a JSON object at the top, got %s",
                          file, gdt_json_type_name(root));
    if (s == GDT_STATUS_OK)
        s = parse_root(sp, root, file, quick, e);
    cJSON_Delete(root);
    if (s != GDT_STATUS_OK) {
        gdt_sweep_spec_destroy(sp);
        return s;
    }
    *out = sp;
    return GDT_STATUS_OK;
}

static gdt_status spec_text(const char *family_arg, const char *path, char **text, size_t *len,
                            char *name, size_t nname, gdt_error *e)
{
    if (path) {
        snprintf(name, nname, "%s", path);
        gdt_status s = gdt_file_read(path, text, len, e);
        /* An unreadable --spec is bad input (exit 2), not a failure while running. */
        return s == GDT_STATUS_IO ? rewrap(e, GDT_STATUS_BAD_INPUT, "--spec: ") : s;
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

gdt_status gdt_sweep_spec_load(const char *family_arg, const char *path, bool quick,
                               gdt_sweep_spec **out, gdt_error *e)
{
    unsigned mask = 0;
    char name[PATH_MAX];
    char *text = NULL;
    size_t len = 0;
    gdt_status s = gdt_family_parse_set(family_arg, &mask, e);
    if (s == GDT_STATUS_OK)
        s = spec_text(family_arg, path, &text, &len, name, sizeof name, e);
    if (s == GDT_STATUS_OK)
        s = gdt_sweep_spec_parse(text, len, name, quick, out, e);
    free(text);
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

void gdt_sweep_spec_destroy(gdt_sweep_spec *s)
{
    if (!s)
        return;
    free(s->cells);
    free(s->text);
    free(s);
}

void gdt_sweep_opts_default(gdt_sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->knob_cap = -1;
}

/* -------------------------------------------------------------- run */

#define HELLO_DEADLINE_S 120.0
#define CELL_DEADLINE_S 900.0

typedef struct run_cell {
    cJSON *plans;    /* the plan list as journaled (owned), NULL until listed */
    cJSON **results; /* per plan, owned; NULL when none yet */
    int nplans;
    bool journaled;  /* its "cell" record is in the journal */
} run_cell;

struct run;

/* One worker and the GPU it owns; cells are spread over the lanes. */
typedef struct lane {
    struct run *r;
    int index;       /* in the journal's results ("gpu") */
    int gpu;         /* -1: the first worker, which sees every device */
    gdt_worker *w;
    bool hello;
    int prepared;    /* cell prepared in the current worker, -1 none */
    cJSON *device;   /* its hello's device object (owned) */
    pthread_t thread;
    gdt_status status;
    gdt_error err;
} lane;

#define MAX_LANES 16

typedef struct run {
    gdt_sweep_opts o;
    gdt_sweep_spec *spec;
    run_cell *cells;
    char dir[PATH_MAX];
    char family[32]; /* a resumed run's FAMILY, from its header */
    gdt_journal *j;
    lane lanes[MAX_LANES];
    int nlanes;
    cJSON *device;   /* the first lane's device: provenance */
    cJSON *journal_device; /* the run header's device (owned), for emission from a journal */
    char journal_source[65]; /* the run header's gdtune source digest */
    char journal_candidates[65]; /* and its candidate-row table digest */
    char journal_version[32];    /* and the gdtune version that measured it */
    gdt_journal_tail tail;   /* a resumed journal's end, for resume_repair */
    int arch;
    /* Shared between lanes, under mu: the journal, the counts, the next
     * cell, the cells' plan lists. */
    pthread_mutex_t mu;
    int next_cell;
    bool stop;
    int done, total, verified, incorrect, failed, declined, cell_errors;
    int session_plans;
    double t0;
    bool tty;
} run;

static const char *default_tables_dir = "tables";


static double plan_deadline(const run *r)
{
    if (r->o.deadline > 0)
        return r->o.deadline;
    /* Build (NVRTC or finalize), verification and the measurement cap with
     * its warm-up and cold samples, plus a margin for a slow first load. */
    return 120.0 + 30.0 + 3.0 * r->o.max_plan_seconds + 30.0;
}

static void effective_settings(gdt_sweep_opts *o, const gdt_sweep_spec *sp)
{
    static const int def_bursts[] = {1, 4, 16, 64};
    if (!o->nbursts && sp->nbursts) {
        memcpy(o->bursts, sp->bursts, sizeof sp->bursts);
        o->nbursts = sp->nbursts;
    }
    if (!o->nbursts) {
        memcpy(o->bursts, def_bursts, sizeof def_bursts);
        o->nbursts = 4;
    }
    if (o->target_rel <= 0)
        o->target_rel = sp->target_rel > 0 ? sp->target_rel : 0.005;
    if (o->max_plan_seconds <= 0)
        o->max_plan_seconds = sp->max_plan_seconds > 0 ? sp->max_plan_seconds : 2.0;
    if (o->knob_cap < 0)
        o->knob_cap = sp->knob_cap >= 0 ? sp->knob_cap : 8;
}

static gdt_status journal_put(run *r, cJSON *rec, gdt_error *e)
{
    char *txt = cJSON_PrintUnformatted(rec);
    pthread_mutex_lock(&r->mu);
    gdt_status s = txt ? gdt_journal_append(r->j, txt, e)
                       : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "journal: out of memory");
    pthread_mutex_unlock(&r->mu);
    free(txt);
    return s;
}

/* ------------------------------------------------------ the worker side */

static gdt_status call(lane *ln, cJSON *req, double deadline, cJSON **reply, gdt_error *e)
{
    char *txt = cJSON_PrintUnformatted(req), *line = NULL;
    *reply = NULL;
    if (!txt)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker request: out of memory");
    gdt_status s = gdt_worker_call(ln->w, txt, deadline, &line, e);
    free(txt);
    /* cJSON_Parse records its error position in a global: lanes take turns. */
    pthread_mutex_lock(&ln->r->mu);
    if (s == GDT_STATUS_OK)
        *reply = cJSON_Parse(line);
    pthread_mutex_unlock(&ln->r->mu);
    if (s == GDT_STATUS_OK && !*reply)
        s = gdt_error_set(e, GDT_STATUS_INTERNAL, "worker reply is not JSON: %.200s", line);
    free(line);
    return s;
}

static gdt_status no_device(const char *detail, gdt_error *e)
{
    return gdt_error_set(e, GDT_STATUS_NO_DEVICE,
                         "no CUDA device found: measuring needs an NVIDIA GPU with its driver; "
                         "`--compile-only` checks every candidate row for --arch without one\n"
                         "  (worker: %s)", detail);
}

/* Starts (or restarts) the lane's worker and greets it. */
static gdt_status worker_up(run *r, lane *ln, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    if (!ln->w)
        s = gdt_worker_spawn_gpu(r->o.worker_exe, ln->gpu, &ln->w, e);
    else if (!ln->hello) /* lost: dead, killed, or exiting after a fatal reply */
        s = gdt_worker_respawn(ln->w, e);
    if (s != GDT_STATUS_OK || ln->hello)
        return s;
    ln->prepared = -1;
    cJSON *req = cJSON_CreateObject(), *rep = NULL;
    cJSON_AddStringToObject(req, "op", "hello");
    s = call(ln, req, HELLO_DEADLINE_S, &rep, e);
    cJSON_Delete(req);
    if (s != GDT_STATUS_OK) {
        char why[GDT_ERROR_MAX];
        snprintf(why, sizeof why, "%s", e->msg);
        cJSON_Delete(rep);
        return no_device(why, e);
    }
    cJSON *dev = cJSON_DetachItemFromObject(rep, "device");
    if (!cJSON_IsObject(dev)) {
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(rep, "error"));
        s = no_device(why ? why : "no device", e);
        cJSON_Delete(dev);
    } else {
        /* A respawned worker owns the same device: the first hello stays
         * (the run's provenance may point at it). */
        if (!ln->device)
            ln->device = dev;
        else
            cJSON_Delete(dev);
        ln->hello = true;
    }
    cJSON_Delete(rep);
    return s;
}

static void worker_lost(lane *ln)
{
    ln->hello = false;
    ln->prepared = -1;
}

/* ------------------------------------------------------------ progress */

/* Plans of cells not listed yet are estimated from the listed ones. */
static int estimated_total(const run *r)
{
    int listed = 0;
    for (int i = 0; i < r->spec->ncells; i++)
        listed += r->cells[i].plans != NULL;
    if (!listed)
        return r->total;
    return r->total + (r->spec->ncells - listed) * r->total / listed;
}

static void progress(run *r, int ci, const char *name, const cJSON *res)
{
    int total = estimated_total(r), left = total - r->done;
    double per = r->session_plans ? (gdt_now() - r->t0) / r->session_plans : 0;
    double eta = per * left;
    if (r->tty) {
        fprintf(stderr, "\r\033[Kcell %d/%d  plans %d/%d  verified %d  incorrect %d  failed %d  "
                "declined %d  ETA %dm%02ds", ci + 1, r->spec->ncells, r->done, total,
                r->verified, r->incorrect, r->failed, r->declined, (int)(eta / 60), (int)eta % 60);
        fflush(stderr);
        return;
    }
    const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(res, "disposition"));
    const cJSON *t = cJSON_GetObjectItem(res, "time_us");
    const char *err = cJSON_GetStringValue(cJSON_GetObjectItem(res, "error"));
    fprintf(stderr, "gdtune sweep: [%d/%d] %s %s: %s: %s", r->done, total,
            gdt_family_name(r->spec->cells[ci].family), r->spec->cells[ci].shape, name, d ? d : "?");
    if (cJSON_IsNumber(t) && d && !strcmp(d, "verified"))
        fprintf(stderr, " %.2f us", t->valuedouble);
    else if (err && *err)
        fprintf(stderr, " (%.300s)", err);
    fprintf(stderr, "  [verified %d incorrect %d failed %d declined %d, ETA %.0f s]\n",
            r->verified, r->incorrect, r->failed, r->declined, eta);
}

static void count(run *r, const cJSON *res)
{
    const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(res, "disposition"));
    r->done++;
    if (!d)
        return;
    if (!strcmp(d, "verified"))
        r->verified++;
    else if (!strcmp(d, "incorrect"))
        r->incorrect++;
    else if (!strcmp(d, "declined"))
        r->declined++;
    else
        r->failed++;
}

/* ---------------------------------------------------------- the cells */

static cJSON *cell_record(const run *r, int ci, const char *type)
{
    const gdt_sweep_cell *c = &r->spec->cells[ci];
    char key[256];
    gdt_problem_key(&c->problem, key, sizeof key);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", type);
    cJSON_AddNumberToObject(o, "cell", ci);
    cJSON_AddStringToObject(o, "family", gdt_family_name(c->family));
    cJSON_AddStringToObject(o, "shape", c->shape);
    cJSON_AddStringToObject(o, "key", key);
    return o;
}

static gdt_status set_plans(run *r, int ci, cJSON *plans, const cJSON *rep, gdt_error *e)
{
    run_cell *rc = &r->cells[ci];
    cJSON **res = calloc((size_t)cJSON_GetArraySize(plans) + 1, sizeof *res);
    if (!res) {
        cJSON_Delete(plans);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    }
    pthread_mutex_lock(&r->mu);
    rc->plans = plans;
    rc->nplans = cJSON_GetArraySize(plans);
    rc->results = res;
    r->total += rc->nplans;
    pthread_mutex_unlock(&r->mu);
    if (!rep)
        return GDT_STATUS_OK;
    cJSON *rec = cell_record(r, ci, "plans");
    cJSON_AddItemReferenceToObject(rec, "plans", plans);
    cJSON_AddItemToObject(rec, "reference", cJSON_Duplicate(cJSON_GetObjectItem(rep, "reference"), 1));
    cJSON_AddItemToObject(rec, "reference_cpu", cJSON_Duplicate(cJSON_GetObjectItem(rep, "reference_cpu"), 1));
    gdt_status s = journal_put(r, rec, e);
    cJSON_Delete(rec);
    return s;
}

/* Hands the cell to the worker (buffers, reference, and, the first time,
 * the plan list).  A cell that cannot be prepared is journaled as a
 * cell_error and returns NOT_SUPPORTED with the reason in e. */
static gdt_status prepare(run *r, lane *ln, int ci, gdt_error *e)
{
    gdt_status s = worker_up(r, ln, e);
    if (s != GDT_STATUS_OK || ln->prepared == ci)
        return s;
    const gdt_sweep_cell *c = &r->spec->cells[ci];
    cJSON *req = cJSON_CreateObject(), *rep = NULL;
    cJSON_AddStringToObject(req, "op", "cell");
    cJSON_AddStringToObject(req, "family", gdt_family_name(c->family));
    cJSON_AddStringToObject(req, "problem", c->shape);
    cJSON_AddNumberToObject(req, "seed", 1000 + ci);
    cJSON_AddNumberToObject(req, "knob_cap", r->o.knob_cap);
    s = call(ln, req, CELL_DEADLINE_S, &rep, e);
    cJSON_Delete(req);
    if (s != GDT_STATUS_OK)
        worker_lost(ln);
    else if (strcmp(gdt_json_str_or(rep, "op", ""), "cell") != 0) {
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(rep, "error"));
        s = gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s", why ? why : "worker refused the cell");
        if (cJSON_IsTrue(cJSON_GetObjectItem(rep, "fatal")))
            worker_lost(ln);
    } else {
        ln->prepared = ci;
        if (!r->cells[ci].plans)
            s = set_plans(r, ci, cJSON_DetachItemFromObject(rep, "plans"), rep, e);
    }
    cJSON_Delete(rep);
    if (s == GDT_STATUS_FAULT || s == GDT_STATUS_TIMEOUT || s == GDT_STATUS_INTERNAL)
        s = rewrap(e, GDT_STATUS_NOT_SUPPORTED, "preparing the cell: ");
    return s;
}

static cJSON *failed_result(const char *why)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "disposition", "failed");
    cJSON_AddStringToObject(o, "error", why);
    return o;
}

static gdt_status record_result(run *r, const lane *ln, int ci, int pi, cJSON *res, gdt_error *e)
{
    const cJSON *pl = cJSON_GetArrayItem(r->cells[ci].plans, pi);
    cJSON_DeleteItemFromObject(res, "op");
    cJSON_AddStringToObject(res, "type", "result");
    cJSON_AddNumberToObject(res, "cell", ci);
    cJSON_AddNumberToObject(res, "plan", pi);
    cJSON_AddStringToObject(res, "family", gdt_family_name(r->spec->cells[ci].family));
    cJSON_AddItemToObject(res, "name", cJSON_Duplicate(cJSON_GetObjectItem(pl, "name"), 1));
    cJSON_AddNumberToObject(res, "gpu", ln->index);
    gdt_status s = journal_put(r, res, e);
    pthread_mutex_lock(&r->mu);
    r->cells[ci].results[pi] = res;
    count(r, res);
    r->session_plans++;
    progress(r, ci, gdt_json_str_or(pl, "name", "?"), res);
    pthread_mutex_unlock(&r->mu);
    return s;
}

static cJSON *plan_request(const run *r, const cJSON *plan)
{
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "plan");
    cJSON_AddItemToObject(req, "plan", cJSON_Duplicate(plan, 1));
    cJSON_AddItemToObject(req, "bursts", cJSON_CreateIntArray(r->o.bursts, r->o.nbursts));
    cJSON_AddNumberToObject(req, "target_rel", r->o.target_rel);
    cJSON_AddNumberToObject(req, "max_seconds", r->o.max_plan_seconds);
    return req;
}

/* One plan: attempt record, the worker's verdict (or how it died), result. */
static gdt_status run_plan(run *r, lane *ln, int ci, int pi, gdt_error *e)
{
    const cJSON *plan = cJSON_GetArrayItem(r->cells[ci].plans, pi);
    cJSON *att = cell_record(r, ci, "attempt");
    cJSON_AddNumberToObject(att, "plan", pi);
    cJSON_AddItemToObject(att, "name", cJSON_Duplicate(cJSON_GetObjectItem(plan, "name"), 1));
    gdt_status s = journal_put(r, att, e);
    cJSON_Delete(att);
    if (s != GDT_STATUS_OK)
        return s;
    cJSON *req = plan_request(r, plan), *rep = NULL;
    gdt_error we = {0};
    gdt_status ws = call(ln, req, plan_deadline(r), &rep, &we);
    cJSON_Delete(req);
    if (ws != GDT_STATUS_OK) {
        cJSON_Delete(rep);
        rep = failed_result(we.msg);
        worker_lost(ln);
    } else if (!cJSON_IsString(cJSON_GetObjectItem(rep, "disposition"))) {
        char why[GDT_ERROR_MAX];
        snprintf(why, sizeof why, "worker answered without a disposition: %s",
                 gdt_json_str_or(rep, "error", "(no error text)"));
        cJSON_Delete(rep);
        rep = failed_result(why);
        worker_lost(ln); /* it lost the cell: start afresh */
    } else if (cJSON_IsTrue(cJSON_GetObjectItem(rep, "fatal")))
        worker_lost(ln); /* it exits after a fatal reply; respawned on demand */
    return record_result(r, ln, ci, pi, rep, e);
}

static gdt_status run_cell_plans(run *r, lane *ln, int ci, gdt_error *e)
{
    run_cell *rc = &r->cells[ci];
    for (int pi = 0; rc->plans && pi < rc->nplans; pi++) {
        if (rc->results[pi])
            continue;
        gdt_error pe = {0};
        gdt_status s = prepare(r, ln, ci, &pe);
        if (s == GDT_STATUS_NOT_SUPPORTED) {
            /* The cell was listed before but cannot be prepared now: every
             * plan left is failed with the reason, so the sweep goes on. */
            char why[GDT_ERROR_MAX + 64];
            snprintf(why, sizeof why, "cell preparation failed: %s", pe.msg);
            for (; pi < rc->nplans && s != GDT_STATUS_IO; pi++)
                if (!rc->results[pi])
                    s = record_result(r, ln, ci, pi, failed_result(why), e);
            return s == GDT_STATUS_IO ? s : GDT_STATUS_OK;
        }
        if (s != GDT_STATUS_OK)
            return (*e = pe, s);
        if ((s = run_plan(r, ln, ci, pi, e)) != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

static gdt_status sweep_cell(run *r, lane *ln, int ci, gdt_error *e)
{
    run_cell *rc = &r->cells[ci];
    gdt_status s;
    if (!rc->journaled) {
        cJSON *rec = cell_record(r, ci, "cell");
        s = journal_put(r, rec, e);
        cJSON_Delete(rec);
        if (s != GDT_STATUS_OK)
            return s;
        rc->journaled = true;
    }
    if (!rc->plans) {
        gdt_error pe = {0};
        s = prepare(r, ln, ci, &pe);
        if (s == GDT_STATUS_NOT_SUPPORTED) {
            cJSON *rec = cell_record(r, ci, "cell_error");
            cJSON_AddStringToObject(rec, "error", pe.msg);
            s = journal_put(r, rec, e);
            cJSON_Delete(rec);
            pthread_mutex_lock(&r->mu);
            r->cell_errors++;
            pthread_mutex_unlock(&r->mu);
            fprintf(stderr, "%sgdtune sweep: %s %s: cell skipped: %s\n", r->tty ? "\n" : "",
                    gdt_family_name(r->spec->cells[ci].family), r->spec->cells[ci].shape, pe.msg);
            return s;
        }
        if (s != GDT_STATUS_OK)
            return (*e = pe, s);
    }
    return run_cell_plans(r, ln, ci, e);
}

/* --------------------------------------------------- header and resume */

static cJSON *options_json(const run *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "bursts", cJSON_CreateIntArray(r->o.bursts, r->o.nbursts));
    cJSON_AddNumberToObject(o, "target_rel", r->o.target_rel);
    cJSON_AddNumberToObject(o, "max_plan_seconds", r->o.max_plan_seconds);
    cJSON_AddNumberToObject(o, "deadline", r->o.deadline);
    cJSON_AddNumberToObject(o, "cudnn_knob_cap", r->o.knob_cap);
    cJSON_AddNumberToObject(o, "shard_i", r->o.shard_i);
    cJSON_AddNumberToObject(o, "shard_n", r->o.shard_n);
    return o;
}

/* The digest of this binary's candidate rows ("" when they do not load). */
static void rows_digest_now(char out[65])
{
    gdt_row_table *rows = NULL;
    out[0] = '\0';
    if (gdt_rows_load_default(&rows, NULL) == GDT_STATUS_OK)
        gdt_rows_digest(rows, out);
    gdt_rows_destroy(rows);
}

static void utc_now(char when[32])
{
    time_t now = time(NULL);
    strftime(when, 32, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

/* The lanes' GPU UUIDs, in lane order: results name their lane ("gpu"). */
static cJSON *lane_uuids(const run *r)
{
    cJSON *devs = cJSON_CreateArray();
    for (int i = 0; i < r->nlanes; i++)
        cJSON_AddItemToArray(devs, cJSON_CreateString(gdt_json_str_or(r->lanes[i].device, "uuid", "")));
    return devs;
}

static gdt_status write_header(run *r, gdt_error *e)
{
    char cand[65], when[32];
    rows_digest_now(cand);
    utc_now(when);
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "type", "run");
    cJSON_AddStringToObject(h, "gdtune_version", GDT_VERSION_STRING);
    cJSON_AddStringToObject(h, "source_digest", gdt__source_digest);
    cJSON_AddStringToObject(h, "started", when);
    cJSON_AddStringToObject(h, "family", r->o.family);
    cJSON_AddBoolToObject(h, "quick", r->o.quick);
    cJSON_AddStringToObject(h, "spec_source", r->spec->source);
    cJSON_AddStringToObject(h, "spec_digest", r->spec->digest);
    cJSON_AddStringToObject(h, "spec", r->spec->text);
    cJSON_AddStringToObject(h, "candidates_digest", cand);
    /* The candidate table used, whole: a later release may ship other rows. */
    const gdt_embedded *ct = gdt_embedded_find("tables/candidates/nvrtc.json");
    if (ct)
        cJSON_AddStringToObject(h, "candidates", ct->data); /* embedded data is NUL-terminated */
    cJSON_AddNumberToObject(h, "arch", r->arch);
    cJSON_AddItemToObject(h, "device", cJSON_Duplicate(r->device, 1));
    cJSON_AddItemToObject(h, "gpus", lane_uuids(r));
    cJSON_AddItemToObject(h, "options", options_json(r));
    gdt_status s = journal_put(r, h, e);
    cJSON_Delete(h);
    return s;
}


/* Where a resumed part begins, on what devices, and how much was left. */
static gdt_status write_resume(run *r, gdt_error *e)
{
    char when[32];
    utc_now(when);
    cJSON *h = cJSON_CreateObject();
    cJSON_AddStringToObject(h, "type", "resume");
    cJSON_AddStringToObject(h, "started", when);
    cJSON_AddStringToObject(h, "source_digest", gdt__source_digest);
    cJSON_AddNumberToObject(h, "results_before", r->done);
    cJSON_AddItemToObject(h, "gpus", lane_uuids(r));
    gdt_status s = journal_put(r, h, e);
    cJSON_Delete(h);
    return s;
}

/* The settings of the run being resumed: its header wins over the command
 * line, so the resumed part measures what the first part did.  The model
 * checked them with the command line's ranges. */
static gdt_status resume_settings(run *r, gdt_run *jr, gdt_error *e)
{
    if (r->o.family && strcmp(r->o.family, jr->family) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s:1: the run sweeps \"%s\", not \"%s\"",
                             jr->path, jr->family, r->o.family);
    snprintf(r->family, sizeof r->family, "%s", jr->family);
    r->o.family = r->family;
    r->o.quick = jr->quick;
    const gdt_run_options *op = &jr->options;
    memcpy(r->o.bursts, op->bursts, sizeof op->bursts);
    r->o.nbursts = op->nbursts;
    r->o.target_rel = op->target_rel;
    r->o.max_plan_seconds = op->max_plan_seconds;
    r->o.deadline = r->o.deadline > 0 ? r->o.deadline : op->deadline;
    r->o.knob_cap = op->knob_cap;
    r->o.shard_i = op->shard_i;
    r->o.shard_n = op->shard_n;
    r->spec = jr->spec; /* the run owns it from here; the model's cells point into it */
    jr->spec = NULL;
    r->arch = jr->arch;
    r->journal_device = cJSON_Duplicate(jr->device, 1);
    snprintf(r->journal_source, sizeof r->journal_source, "%s", jr->source_digest);
    snprintf(r->journal_candidates, sizeof r->journal_candidates, "%s", jr->candidates_digest);
    snprintf(r->journal_version, sizeof r->journal_version, "%s", jr->gdtune_version);
    return r->journal_device ? GDT_STATUS_OK : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
}

/* The journal's cells, plan lists and results as the run's state. */
static gdt_status replay(run *r, const gdt_run *jr, gdt_error *e)
{
    for (int ci = 0; ci < jr->ncells; ci++) {
        const gdt_run_cell *c = &jr->cells[ci];
        r->cells[ci].journaled = c->journaled;
        if (!c->plans)
            continue;
        cJSON *plans = cJSON_Duplicate(c->plans, 1);
        gdt_status s = plans ? set_plans(r, ci, plans, NULL, e)
                             : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
        for (int pi = 0; s == GDT_STATUS_OK && pi < c->nplans; pi++) {
            if (!c->result[pi].rec)
                continue;
            if (!(r->cells[ci].results[pi] = cJSON_Duplicate(c->result[pi].rec, 1)))
                return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
            count(r, c->result[pi].rec);
        }
        if (s != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

/* A resumed sweep adds results to the ones in the journal: from another
 * build (other kernels, other measurement code) they would be ranked
 * together in one table.  Emission reads any journal. */
static gdt_status same_build(const run *r, const char *path, gdt_error *e)
{
    if (!r->journal_source[0] || !strcmp(r->journal_source, gdt__source_digest))
        return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s:1: the run was measured by gdtune source "
                         "%.16s, this gdtune is %.16s: a resumed sweep would rank plans measured by "
                         "two builds in one table; start a new run, or write the tables of its "
                         "complete cells with `gdtune tables emit %s`", path, r->journal_source,
                         gdt__source_digest, r->dir);
}

/* Reads the run's journal through the model; nothing is changed on disk
 * here (a torn tail is cut only once the resume goes ahead: resume_repair). */
static gdt_status load_resume(run *r, bool read_only, gdt_error *e)
{
    gdt_run *jr = NULL;
    gdt_status s = gdt_run_load(r->dir, &jr, e);
    if (s == GDT_STATUS_OK)
        s = resume_settings(r, jr, e);
    if (s == GDT_STATUS_OK && !read_only)
        s = same_build(r, jr->path, e);
    if (s == GDT_STATUS_OK && !(r->cells = calloc((size_t)r->spec->ncells + 1, sizeof *r->cells)))
        s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    if (s == GDT_STATUS_OK)
        s = replay(r, jr, e);
    if (jr)
        r->tail = jr->tail;
    gdt_run_destroy(jr);
    return s;
}

/* Cuts the torn tail the resumed journal had, now that the resume goes
 * ahead (the header, build and device checks passed). */
static gdt_status resume_repair(run *r, gdt_error *e)
{
    char path[PATH_MAX + 32];
    size_t cut = 0;
    snprintf(path, sizeof path, "%s/%s", r->dir, GDT_JOURNAL_NAME);
    gdt_status s = gdt_journal_repair(path, &r->tail, &cut, e);
    if (s == GDT_STATUS_OK && cut)
        fprintf(stderr, "gdtune sweep: %s: cut a torn last record (%zu bytes)\n", path, cut);
    return s;
}

/* ------------------------------------------------------------ emission */

static gdt_mode tag_mode(const char *tag, bool backend)
{
    gdt_mode m;
    if (!backend)
        return GDT_MODE_OPENSOURCE;
    if (gdt_mode_parse(tag, &m, NULL) == GDT_STATUS_OK)
        return m;
    return GDT_MODE_COUNT; /* knob-enumerated: no heuristic mode made it */
}

/* Host enqueue per call at burst 1 (the first burst when 1 was not swept). */
static double host_us_first_burst(const cJSON *res)
{
    const cJSON *b0 = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "bursts"), 0);
    return gdt_json_num_or(b0, "median_host_us", 0);
}

static int samples_last_burst(const cJSON *res)
{
    const cJSON *bs = cJSON_GetObjectItem(res, "bursts");
    const cJSON *last = cJSON_GetArrayItem(bs, cJSON_GetArraySize(bs) - 1);
    return cJSON_GetArraySize(cJSON_GetObjectItem(last, "device_us"));
}

/* The verified plans of one cell as the table writer takes them. */
static gdt_status measured_cell(const run *r, int ci, gdt_measured_cell *mc, gdt_error *e)
{
    const run_cell *rc = &r->cells[ci];
    mc->problem = r->spec->cells[ci].problem;
    mc->nplans = 0;
    mc->plans = calloc((size_t)rc->nplans + 1, sizeof *mc->plans);
    if (!mc->plans)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    for (int pi = 0; pi < rc->nplans; pi++) {
        const cJSON *res = rc->results[pi], *pl = cJSON_GetArrayItem(rc->plans, pi);
        if (!res || strcmp(gdt_json_str_or(res, "disposition", ""), "verified") != 0)
            continue;
        gdt_measured_plan *m = &mc->plans[mc->nplans];
        if (gdt__plan_id_from_json(pl, &m->id, e) != GDT_STATUS_OK)
            return GDT_STATUS_INTERNAL;
        m->is_backend = cJSON_IsTrue(cJSON_GetObjectItem(pl, "backend"));
        m->mode = tag_mode(gdt_json_str_or(pl, "tag", ""), m->is_backend);
        m->untimed_position = (int)gdt_json_num_or(pl, "untimed", pi);
        m->time_us = gdt_json_num_or(res, "time_us", 0);
        m->noise = gdt_json_num_or(res, "noise", 0);
        m->host_us = host_us_first_burst(res);
        m->samples = samples_last_burst(res);
        if (m->time_us > 0)
            mc->nplans++;
    }
    return GDT_STATUS_OK;
}

static void provenance(const run *r, gdt_provenance *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->device_name, sizeof p->device_name, "%s", gdt_json_str_or(r->device, "name", ""));
    p->arch = r->arch;
    p->driver_version = (int)gdt_json_num_or(r->device, "driver_version", 0);
    p->cuda_version = (int)gdt_json_num_or(r->device, "cuda_version", 0);
    p->cudnn_version = (int)gdt_json_num_or(r->device, "cudnn_version", 0);
    p->nvrtc_version = (int)gdt_json_num_or(r->device, "nvrtc_version", 0);
    /* Emitted from a journal: the version and digests its header recorded,
     * not this binary's (another build may emit the tables of a kept
     * journal). */
    bool from_journal = r->device == r->journal_device;
    snprintf(p->gdtune_version, sizeof p->gdtune_version, "%s",
             from_journal && r->journal_version[0] ? r->journal_version : GDT_VERSION_STRING);
    snprintf(p->source_digest, sizeof p->source_digest, "%s",
             from_journal && r->journal_source[0] ? r->journal_source : gdt__source_digest);
    snprintf(p->sweep_digest, sizeof p->sweep_digest, "%s", r->spec->digest);
    if (from_journal && r->journal_candidates[0])
        snprintf(p->candidates_digest, sizeof p->candidates_digest, "%s", r->journal_candidates);
    else
        rows_digest_now(p->candidates_digest);
}

/* A cell enters the tables only when every plan of its list has a result:
 * a cell cut short by a killed sweep would rank a partial list. */
static bool cell_complete(const run *r, int ci)
{
    const run_cell *rc = &r->cells[ci];
    int have = 0;
    for (int pi = 0; pi < rc->nplans; pi++)
        have += rc->results[pi] != NULL;
    if (rc->plans && have < rc->nplans)
        fprintf(stderr, "gdtune sweep: %s: %d of %d plans have a result: cell left out of the "
                "tables\n", r->spec->cells[ci].shape, have, rc->nplans);
    return rc->plans && have == rc->nplans;
}

/* Appends the complete cells of family f in run r to cells[*n]; a cell that
 * an earlier run already gave is refused, naming both runs. */
static gdt_status collect_family(const run *r, gdt_family f, gdt_measured_cell *cells,
                                 const char **from, int *n, gdt_error *e)
{
    for (int ci = 0; ci < r->spec->ncells; ci++) {
        if (r->spec->cells[ci].family != f || !cell_complete(r, ci))
            continue;
        char key[512], other[512];
        gdt_problem_key(&r->spec->cells[ci].problem, key, sizeof key);
        for (int k = 0; k < *n; k++)
            if (gdt_problem_key(&cells[k].problem, other, sizeof other) >= 0 && !strcmp(key, other))
                return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "cell %s is measured in both %s and "
                                     "%s: merge runs of disjoint cells (--shard)", key, from[k], r->dir);
        gdt_status s = measured_cell(r, ci, &cells[*n], e);
        if (s != GDT_STATUS_OK || cells[*n].nplans == 0) {
            free(cells[*n].plans);
            if (s != GDT_STATUS_OK)
                return s;
            continue;
        }
        from[(*n)++] = r->dir;
    }
    return GDT_STATUS_OK;
}

static gdt_status emit_family(const run *const *runs, int nruns, gdt_family f, const char *dir,
                              gdt_error *e)
{
    int cap = 1, n = 0;
    for (int i = 0; i < nruns; i++)
        cap += runs[i]->spec->ncells;
    gdt_measured_cell *cells = calloc((size_t)cap, sizeof *cells);
    const char **from = calloc((size_t)cap, sizeof *from);
    gdt_status s = cells && from ? GDT_STATUS_OK
                                 : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    for (int i = 0; i < nruns && s == GDT_STATUS_OK; i++)
        s = collect_family(runs[i], f, cells, from, &n, e);
    gdt_provenance prov;
    provenance(runs[0], &prov);
    if (s == GDT_STATUS_OK && n > 0) {
        s = gdt_tables_write(dir, f, &prov, cells, n, e);
        if (s == GDT_STATUS_OK)
            fprintf(stderr, "gdtune sweep: wrote %s/%s.{tuning,placement}.json (%d cells)\n", dir,
                    gdt_family_name(f), n);
    } else if (s == GDT_STATUS_OK)
        fprintf(stderr, "gdtune sweep: %s: no cell has a verified plan: no table written\n",
                gdt_family_name(f));
    for (int i = 0; i < n; i++)
        free(cells[i].plans);
    free(cells);
    free(from);
    return s;
}

/* Runs merged into one set of tables must describe one measurement: the
 * same arch, device model and sweep spec (the provenance names one). */
static gdt_status same_sweep(const run *a, const run *b, gdt_error *e)
{
    const char *da = gdt_json_str_or(a->device, "name", ""), *db = gdt_json_str_or(b->device, "name", "");
    if (a->arch != b->arch || strcmp(da, db) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s ran on %s (sm%d) but %s on %s (sm%d): "
                             "tables merge runs of one device model", a->dir, da, a->arch, b->dir,
                             db, b->arch);
    if (strcmp(a->spec->digest, b->spec->digest) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s swept spec %s (digest %.16s) but %s "
                             "spec %s (digest %.16s): tables merge shards of one sweep", a->dir,
                             a->spec->source, a->spec->digest, b->dir, b->spec->source,
                             b->spec->digest);
    return GDT_STATUS_OK;
}

static gdt_status emit(const run *const *runs, int nruns, const char *tables_dir, gdt_error *e)
{
    char dir[PATH_MAX + 16];
    unsigned families = 0;
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < nruns && s == GDT_STATUS_OK; i++) {
        families |= runs[i]->spec->families;
        if (i > 0)
            s = same_sweep(runs[0], runs[i], e);
    }
    snprintf(dir, sizeof dir, "%s/sm%d", tables_dir ? tables_dir : default_tables_dir,
             runs[0]->arch); /* the table writer makes it once the tables pass its checks */
    for (int f = 0; f < GDT_FAMILY_COUNT && s == GDT_STATUS_OK; f++)
        if (families & (1u << f))
            s = emit_family(runs, nruns, (gdt_family)f, dir, e);
    return s;
}

/* ------------------------------------------------------------- the run */

static gdt_status check_arch(run *r, gdt_error *e)
{
    int dev = (int)gdt_json_num_or(r->device, "arch", 0);
    if (r->o.arch && r->o.arch != dev)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                             "--arch sm%d names sm%d, but the device is sm%d (%s): measuring for "
                             "another arch is refused; `--arch sm%d --compile-only` checks its rows "
                             "without measuring", r->o.arch, r->o.arch, dev, gdt_json_str_or(r->device, "name", "?"),
                             r->o.arch);
    if (r->arch && r->arch != dev)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: the run was measured on sm%d, but this "
                             "device is sm%d (%s): resume it on an sm%d device", r->dir, r->arch,
                             dev, gdt_json_str_or(r->device, "name", "?"), r->arch);
    r->arch = dev;
    return GDT_STATUS_OK;
}

static gdt_status setup_new(run *r, gdt_error *e)
{
    gdt_status s = gdt_sweep_spec_load(r->o.family, r->o.spec_path, r->o.quick, &r->spec, e);
    if (s != GDT_STATUS_OK)
        return s;
    effective_settings(&r->o, r->spec);
    gdt_sweep_spec_shard(r->spec, r->o.shard_i, r->o.shard_n);
    if (!(r->cells = calloc((size_t)r->spec->ncells + 1, sizeof *r->cells)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    if (r->o.out_dir)
        snprintf(r->dir, sizeof r->dir, "%s", r->o.out_dir);
    else {
        time_t now = time(NULL);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", gmtime(&now));
        snprintf(r->dir, sizeof r->dir, "runs/%s-%s", r->o.family, stamp);
    }
    return GDT_STATUS_OK;
}

static void lanes_stop(run *r)
{
    for (int i = 0; i < r->nlanes; i++) {
        gdt_worker_destroy(r->lanes[i].w);
        r->lanes[i].w = NULL;
    }
}

static void run_free(run *r)
{
    for (int i = 0; r->cells && i < r->spec->ncells; i++) {
        for (int k = 0; k < r->cells[i].nplans; k++)
            cJSON_Delete(r->cells[i].results[k]);
        free(r->cells[i].results);
        cJSON_Delete(r->cells[i].plans);
    }
    free(r->cells);
    gdt_sweep_spec_destroy(r->spec);
    lanes_stop(r);
    for (int i = 0; i < r->nlanes; i++)
        cJSON_Delete(r->lanes[i].device);
    cJSON_Delete(r->journal_device);
    gdt_journal_close(r->j);
    pthread_mutex_destroy(&r->mu);
}

static bool same_model(const cJSON *a, const cJSON *b)
{
    return gdt_json_num_or(a, "arch", 0) == gdt_json_num_or(b, "arch", -1) && !strcmp(gdt_json_str_or(a, "name", ""), gdt_json_str_or(b, "name", "?"));
}

/* One lane per device, at most --gpus and no more than there are cells.
 * Lane 0's worker sees every device (and uses the first); each further
 * lane's worker sees only its own.  A device that does not answer, or is
 * another model than the first, is left out: its numbers would not belong
 * in the same tables. */
static void start_lanes(run *r)
{
    int want = (int)gdt_json_num_or(r->lanes[0].device, "device_count", 1);
    if (r->o.gpus > 0 && r->o.gpus < want)
        want = r->o.gpus;
    want = want > r->spec->ncells ? r->spec->ncells : want;
    want = want > MAX_LANES ? MAX_LANES : want;
    for (int g = 1; g < want; g++) {
        lane *ln = &r->lanes[r->nlanes];
        *ln = (lane){.r = r, .index = r->nlanes, .gpu = g, .prepared = -1};
        gdt_error le = {0};
        if (worker_up(r, ln, &le) == GDT_STATUS_OK && same_model(ln->device, r->lanes[0].device)) {
            r->nlanes++;
            continue;
        }
        fprintf(stderr, "gdtune sweep: GPU %d left out: %s\n", g,
                le.msg[0] ? le.msg : "another model than GPU 0");
        gdt_worker_destroy(ln->w);
        cJSON_Delete(ln->device);
        memset(ln, 0, sizeof *ln);
    }
}

/* A lane takes the next cell until none is left or one lane fails. */
static void *lane_main(void *arg)
{
    lane *ln = arg;
    run *r = ln->r;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        int ci = !r->stop && r->next_cell < r->spec->ncells ? r->next_cell++ : -1;
        pthread_mutex_unlock(&r->mu);
        if (ci < 0)
            return NULL;
        ln->status = sweep_cell(r, ln, ci, &ln->err);
        if (ln->status != GDT_STATUS_OK) {
            pthread_mutex_lock(&r->mu);
            r->stop = true;
            pthread_mutex_unlock(&r->mu);
            return NULL;
        }
    }
}

static int spawn_count(const run *r)
{
    int n = 0;
    for (int i = 0; i < r->nlanes; i++)
        n += gdt_worker_spawn_count(r->lanes[i].w);
    return n;
}

static gdt_status sweep_cells(run *r, gdt_error *e)
{
    bool started[MAX_LANES] = {false};
    fprintf(stderr, "gdtune sweep: %s on %s (sm%d)%s%.0d: %d cells, run directory %s\n",
            r->o.family, gdt_json_str_or(r->device, "name", "?"), r->arch, r->nlanes > 1 ? ", GPUs: " : "",
            r->nlanes > 1 ? r->nlanes : 0, r->spec->ncells, r->dir);
    for (int i = 1; i < r->nlanes; i++)
        started[i] = pthread_create(&r->lanes[i].thread, NULL, lane_main, &r->lanes[i]) == 0;
    lane_main(&r->lanes[0]);
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < r->nlanes; i++) {
        if (started[i])
            pthread_join(r->lanes[i].thread, NULL);
        if (s == GDT_STATUS_OK && r->lanes[i].status != GDT_STATUS_OK) {
            s = r->lanes[i].status;
            *e = r->lanes[i].err;
        }
    }
    if (r->tty)
        fputc('\n', stderr);
    fprintf(stderr, "gdtune sweep: %d plans in %d cells: %d verified, %d incorrect, %d failed, "
            "%d declined; %d cells skipped; %.1f s; worker started %d times\n", r->done,
            r->spec->ncells, r->verified, r->incorrect, r->failed, r->declined, r->cell_errors,
            gdt_now() - r->t0, spawn_count(r));
    return s;
}

gdt_status gdt_sweep_run(const gdt_sweep_opts *o, char *run_dir, size_t nrun_dir, gdt_error *e)
{
    run r = {.o = *o, .t0 = gdt_now(), .tty = isatty(2), .nlanes = 1};
    r.lanes[0] = (lane){.r = &r, .index = 0, .gpu = -1, .prepared = -1};
    pthread_mutex_init(&r.mu, NULL);
    gdt_status s;
    if (o->resume_dir) {
        snprintf(r.dir, sizeof r.dir, "%s", o->resume_dir);
        s = load_resume(&r, false, e);
    } else
        s = setup_new(&r, e);
    if (s == GDT_STATUS_OK)
        s = worker_up(&r, &r.lanes[0], e);
    r.device = r.lanes[0].device;
    if (s == GDT_STATUS_OK)
        s = check_arch(&r, e);
    if (s == GDT_STATUS_OK)
        start_lanes(&r);
    if (s == GDT_STATUS_OK && o->resume_dir)
        s = resume_repair(&r, e);
    if (s == GDT_STATUS_OK)
        s = gdt_journal_open(r.dir, o->resume_dir != NULL, &r.j, e);
    if (s == GDT_STATUS_OK)
        s = o->resume_dir ? write_resume(&r, e) : write_header(&r, e);
    if (run_dir)
        snprintf(run_dir, nrun_dir, "%s", r.dir);
    if (s == GDT_STATUS_OK)
        s = sweep_cells(&r, e);
    lanes_stop(&r);
    const run *one = &r;
    if (s == GDT_STATUS_OK)
        s = emit(&one, 1, r.o.tables_dir, e);
    run_free(&r);
    return s;
}

static gdt_status load_for_emit(run *r, const char *run_dir, gdt_error *e)
{
    gdt_sweep_opts_default(&r->o);
    r->o.resume_dir = run_dir;
    pthread_mutex_init(&r->mu, NULL);
    snprintf(r->dir, sizeof r->dir, "%s", run_dir);
    gdt_status s = load_resume(r, true, e);
    r->device = r->journal_device;
    if (s == GDT_STATUS_OK && !cJSON_IsObject(r->device))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s/%s:1: the run header names no device",
                          run_dir, GDT_JOURNAL_NAME);
    return s;
}

gdt_status gdt_sweep_emit(const char *const *run_dirs, int nruns, const char *tables_dir,
                          gdt_error *e)
{
    run *rs = calloc((size_t)(nruns > 0 ? nruns : 1), sizeof *rs);
    const run **runs = calloc((size_t)(nruns > 0 ? nruns : 1), sizeof *runs);
    gdt_status s = rs && runs ? GDT_STATUS_OK
                              : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "sweep: out of memory");
    if (s == GDT_STATUS_OK && nruns < 1)
        s = gdt_error_set(e, GDT_STATUS_BAD_USAGE, "no run directory given");
    int loaded = 0;
    for (; s == GDT_STATUS_OK && loaded < nruns; loaded++) {
        runs[loaded] = &rs[loaded];
        s = load_for_emit(&rs[loaded], run_dirs[loaded], e);
    }
    if (s == GDT_STATUS_OK)
        s = emit(runs, nruns, tables_dir, e);
    for (int i = 0; i < loaded; i++)
        run_free(&rs[i]);
    free(rs);
    free(runs);
    return s;
}

/* -------------------------------------------------------- compile-only */

typedef struct compile_job {
    const gdt_nvrtc_template *t;
    gdt_facts facts;
    gdt_plan_id id;
    char key[1024];
    char where[640];  /* the first cell and plan that needs it */
    gdt_status status;
    char msg[GDT_ERROR_MAX];
} compile_job;

typedef struct compile_set {
    compile_job *jobs;
    int n, cap;
    int arch;
    int next;          /* next job to take */
    pthread_mutex_t mu;
    int rejected, declined, plans;
    const char *cache;  /* the compiled-kernel cache root, or NULL */
} compile_set;

static const gdt_nvrtc_template *template_for(const char *row_family)
{
    static const struct { const char *rows; const gdt_nvrtc_template *t; } map[] = {
        {"contraction", &gdt__tmpl_gemm},
        {"attention_fwd", &gdt__tmpl_attn_fwd},
        {"attention_bwd", &gdt__tmpl_attn_bwd},
    };
    for (size_t i = 0; row_family && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].rows, row_family))
            return map[i].t;
    return NULL;
}

/* Cells that bind the same defines share one compile. */
static void job_key(const gdt_nvrtc_template *t, const gdt_facts *f, const gdt_plan_id *id,
                    char *key, size_t n)
{
    gdt_nvrtc_define d[GDT_NVRTC_MAX_DEFINES];
    int nd = t->defines(f, id, d, GDT_NVRTC_MAX_DEFINES);
    int used = snprintf(key, n, "%s", t->source);
    for (int i = 0; i < nd && used > 0 && (size_t)used < n; i++)
        used += snprintf(key + used, n - (size_t)used, " %s=%lld", d[i].name, (long long)d[i].value);
}

static gdt_status add_job(compile_set *cs, const gdt_nvrtc_template *t, const gdt_facts *f,
                          const gdt_plan_id *id, const char *where, gdt_error *e)
{
    char key[1024];
    job_key(t, f, id, key, sizeof key);
    for (int i = 0; i < cs->n; i++)
        if (!strcmp(cs->jobs[i].key, key))
            return GDT_STATUS_OK;
    if (cs->n == cs->cap) {
        compile_job *g = realloc(cs->jobs, sizeof *g * (size_t)(cs->cap = cs->cap * 2 + 32));
        if (!g)
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "compile-only: out of memory");
        cs->jobs = g;
    }
    compile_job *j = &cs->jobs[cs->n++];
    memset(j, 0, sizeof *j);
    j->t = t;
    j->facts = *f;
    j->id = *id;
    snprintf(j->key, sizeof j->key, "%s", key);
    snprintf(j->where, sizeof j->where, "%s", where);
    return GDT_STATUS_OK;
}

/* One slot of one cell: rejected rows reported, surviving plans queued. */
static gdt_status slot_jobs(compile_set *cs, const gdt_row_table *rows, const gdt_engine_slot *sl,
                            const gdt_facts *f, const gdt_sweep_cell *c, FILE *out, gdt_error *e)
{
    const gdt_nvrtc_template *t = template_for(sl->row_family);
    gdt_candidate *cand = NULL;
    int n = 0;
    if (!t)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "%s: no NVRTC template for rows \"%s\"",
                             sl->name, sl->row_family ? sl->row_family : "(none)");
    gdt_status s = gdt_candidates_materialize(rows, sl, f, &cand, &n, e);
    for (int i = 0; i < n && s == GDT_STATUS_OK; i++) {
        char name[320], where[640];
        gdt_plan_id_format(&cand[i].id, name, sizeof name);
        snprintf(where, sizeof where, "%s %s: %.300s", gdt_family_name(c->family), c->shape, name);
        gdt_error ce = {0};
        if (cand[i].rejected) {
            cs->rejected++;
            fprintf(out, "  illegal: %s %s: %s row %d: %s\n", gdt_family_name(c->family), c->shape,
                    sl->row_family, cand[i].row_index, cand[i].reason);
        } else if (cand[i].duplicate_of_earlier)
            continue;
        else if (t->check && t->check(f, &cand[i].id, &ce) != GDT_STATUS_OK) {
            cs->declined++;
            fprintf(out, "  declined: %s: %s\n", where, ce.msg);
        } else {
            cs->plans++;
            s = add_job(cs, t, f, &cand[i].id, where, e);
        }
    }
    free(cand);
    return s;
}

static gdt_status gather_jobs(compile_set *cs, const gdt_sweep_spec *sp, FILE *out, gdt_error *e)
{
    gdt_device_props dev;
    gdt_row_table *rows = NULL;
    if (!gdt_arch_limits(cs->arch, &dev))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--arch sm%d: no per-arch limits for it "
                             "(the limits table knows sm80, sm90, sm100 and their kin)", cs->arch);
    gdt_status s = gdt_rows_load_default(&rows, e);
    const gdt_manifest *m = gdt_manifest_default();
    bool *told = calloc((size_t)m->nslots + 1, sizeof *told); /* "not offered" said once per slot */
    for (int ci = 0; ci < sp->ncells && s == GDT_STATUS_OK; ci++) {
        gdt_facts f;
        gdt_facts_analyze(&sp->cells[ci].problem, &dev, &f);
        for (int i = 0; i < m->nslots && s == GDT_STATUS_OK; i++) {
            const gdt_engine_slot *sl = &m->slots[i];
            char why[256] = "";
            if (sl->family != sp->cells[ci].family || sl->kind != GDT_ENGINE_NVRTC)
                continue;
            if (!gdt_slot_offered(m, sl, &f, why, sizeof why)) {
                if (told && !told[i])
                    fprintf(out, "  not offered: %s on sm%d: %s\n", sl->name, cs->arch, why);
                if (told)
                    told[i] = true;
                continue;
            }
            s = slot_jobs(cs, rows, sl, &f, &sp->cells[ci], out, e);
        }
    }
    free(told);
    gdt_rows_destroy(rows);
    return s;
}

static void *compile_worker(void *arg)
{
    compile_set *cs = arg;
    for (;;) {
        pthread_mutex_lock(&cs->mu);
        int i = cs->next < cs->n ? cs->next++ : -1;
        pthread_mutex_unlock(&cs->mu);
        if (i < 0)
            return NULL;
        compile_job *j = &cs->jobs[i];
        void *cubin = NULL;
        size_t len = 0;
        gdt_build_info info = {0};
        gdt_error e = {0};
        /* Through the cache: a compile-only run on the GPU machine warms it
         * for the sweep that follows (on every core, not in the worker). */
        j->status = gdt__nvrtc_compile_cached(j->t, &j->facts, &j->id, cs->arch, cs->cache, &cubin, &len,
                                              &info, &e);
        snprintf(j->msg, sizeof j->msg, "%s", e.msg);
        free(cubin);
    }
}

static void compile_all(compile_set *cs, int jobs)
{
    pthread_t th[64];
    int n = jobs > 0 ? jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    n = n < 1 ? 1 : n > 64 ? 64 : n > cs->n ? cs->n : n;
    int started = 0;
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[started], NULL, compile_worker, cs) == 0)
            started++;
    if (!started)
        compile_worker(cs);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

gdt_status gdt_sweep_compile_only(const gdt_sweep_opts *o, FILE *out, gdt_error *e)
{
    gdt_sweep_spec *sp = NULL;
    char root[4096];
    compile_set cs = {.arch = o->arch, .cache = gdt_nvrtc_cache_root(root, sizeof root)};
    pthread_mutex_init(&cs.mu, NULL);
    if (!o->arch)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--compile-only needs --arch smXY (there is "
                             "no device to take the arch from)");
    gdt_status s = gdt_sweep_spec_load(o->family, o->spec_path, o->quick, &sp, e);
    if (s == GDT_STATUS_OK) {
        gdt_sweep_spec_shard(sp, o->shard_i, o->shard_n);
        double t0 = gdt_now();
        fprintf(out, "gdtune sweep %s --compile-only: sm%d, %d cells (%s)\n", o->family, o->arch,
                sp->ncells, sp->source);
        s = gather_jobs(&cs, sp, out, e);
        if (s == GDT_STATUS_OK)
            compile_all(&cs, o->jobs);
        int failed = 0;
        for (int i = 0; i < cs.n && s == GDT_STATUS_OK; i++)
            if (cs.jobs[i].status != GDT_STATUS_OK) {
                failed++;
                fprintf(out, "  compile failed: %s: %s\n", cs.jobs[i].where, cs.jobs[i].msg);
            }
        if (s == GDT_STATUS_OK)
            fprintf(out, "gdtune sweep: sm%d: %d plans, %d distinct compiles: %d compiled, %d "
                    "failed; %d rows illegal, %d plans declined; %.1f s\n", o->arch, cs.plans,
                    cs.n, cs.n - failed, failed, cs.rejected, cs.declined, gdt_now() - t0);
        if (s == GDT_STATUS_OK && failed)
            s = gdt_error_set(e, GDT_STATUS_NVRTC, "%d of %d distinct plans did not compile for "
                              "sm%d", failed, cs.n, o->arch);
    }
    free(cs.jobs);
    pthread_mutex_destroy(&cs.mu);
    gdt_sweep_spec_destroy(sp);
    return s;
}
