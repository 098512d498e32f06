/* Placement and tuning tables: the noise-aware ranking rule, the
 * deterministic writer, the strict all-or-nothing loader and the lookup the
 * planner reads.  The schemas are documented in tables/README.md; this file
 * and that page change together. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "gdt_family.h"
#include "gdt_json.h"
#include "gdt_predict.h"
#include "gdt_tables_pair.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

#define KEY_MAX 256
#define NAME_MAX_LEN 512

/* ================================================================ shared */

typedef enum table_kind { KIND_TUNING, KIND_PLACEMENT } table_kind;

/* What a table of another version of one of our schemas needs, as the
 * end of the refusal's message; "" for anything else. */
static const char *other_version(const char *schema)
{
    static const char *const ours[] = {GDT_TABLE_SCHEMA_TUNING, GDT_TABLE_SCHEMA_PLACEMENT};
    for (size_t i = 0; i < sizeof ours / sizeof *ours; i++) {
        size_t stem = (size_t)(strchr(ours[i], '/') - ours[i]) + 1;
        if (!strncmp(schema, ours[i], stem))
            return ": another version of gdtune wrote it (the layout differs); emit the tables again "
                   "from the journal they come from (gdtune tables emit RUNDIR)";
    }
    return "";
}

static const char *kind_schema(table_kind k)
{
    return k == KIND_TUNING ? GDT_TABLE_SCHEMA_TUNING : GDT_TABLE_SCHEMA_PLACEMENT;
}

/* Backend entries from knob enumeration carry GDT_MODE_COUNT. */
static const char *mode_text(gdt_mode m)
{
    return m == GDT_MODE_COUNT ? "enumerated" : gdt_mode_name(m);
}

/* The region a placement shard describes: cells that share these derived
 * facts (the family's group fields, in order; unused values 0) are ordered
 * along the family's metric, as a hand-written placement does. */
typedef struct shard_group {
    int64_t v[GDT__GROUP_MAX];
} shard_group;

static void group_of(const gdt_facts *f, shard_group *g)
{
    memset(g, 0, sizeof *g);
    gdt__family_desc(f->family)->group(f, g->v);
}

static int group_cmp(const shard_group *a, const shard_group *b)
{
    for (int i = 0; i < GDT__GROUP_MAX; i++)
        if (a->v[i] != b->v[i]) return a->v[i] < b->v[i] ? -1 : 1;
    return 0;
}

static bool group_equal(const shard_group *a, const shard_group *b) { return group_cmp(a, b) == 0; }

static double metric_of(const gdt_facts *f) { return gdt__family_desc(f->family)->metric(f); }

/* INT, DTYPE, NAME and BOOL fields as one integer: how a shard group holds
 * them, and how the writer and the reader treat the four alike. */
static int64_t scalar_load(const gdt__field *fd, const void *base)
{
    const char *at = (const char *)base + fd->off;
    switch (fd->kind) {
    case GDT__FIELD_INT: return *(const int64_t *)at;
    case GDT__FIELD_DTYPE: return *(const gdt_dtype *)at;
    case GDT__FIELD_NAME: return *(const int *)at;
    case GDT__FIELD_BOOL: return *(const bool *)at;
    default: return 0; /* INTS and EXACT are not scalars */
    }
}

static void scalar_store(const gdt__field *fd, void *base, int64_t v)
{
    char *at = (char *)base + fd->off;
    switch (fd->kind) {
    case GDT__FIELD_INT: *(int64_t *)at = v; break;
    case GDT__FIELD_DTYPE: *(gdt_dtype *)at = (gdt_dtype)v; break;
    case GDT__FIELD_NAME: *(int *)at = (int)v; break;
    case GDT__FIELD_BOOL: *(bool *)at = v != 0; break;
    default: break;
    }
}

static void facts_for(const gdt_problem *p, int arch, gdt_facts *f)
{
    gdt_device_props dev;
    if (!gdt_arch_limits(arch, &dev)) {
        memset(&dev, 0, sizeof dev);
        dev.arch = arch;
    }
    gdt_facts_analyze(p, &dev, f);
}

/* ========================================================= ranking rule */

/* The combined measured noise of two estimates (absolute: relative noise
 * times time, summed). */
static double noise_margin(const gdt_measured_plan *a, const gdt_measured_plan *b)
{
    return a->noise * a->time_us + b->noise * b->time_us;
}

/* a moves ahead of b only when faster by more than the combined measured
 * noise of the two. */
static bool beats(const gdt_measured_plan *a, const gdt_measured_plan *b)
{
    double margin = noise_margin(a, b);
    return a->time_us < b->time_us && b->time_us - a->time_us > margin;
}

bool gdt_measured_beats(const gdt_measured_plan *a, const gdt_measured_plan *b) { return beats(a, b); }

double gdt_measured_gap(const gdt_measured_plan *a, const gdt_measured_plan *b)
{
    return (b->time_us - a->time_us) / noise_margin(a, b);
}

/* Earlier in the ranking: faster, ties by untimed position. */
static bool faster(const gdt_measured_plan *a, const gdt_measured_plan *b)
{
    return a->time_us < b->time_us || (a->time_us == b->time_us && a->untimed_position < b->untimed_position);
}

/* Position by position: the fastest plan left sets the bar, and of the
 * plans it does not beat (within noise of it) the earliest in the untimed
 * order takes the position. The first plan is thus always within noise of
 * the measured winner, and plans within noise of the fastest keep their
 * untimed order. (Sorting by the noise comparison is not enough: it is not
 * transitive, and a chain of plans each within noise of the next could
 * keep a plan first that the winner beats.) */
static void rank_cell(const gdt_measured_cell *c, int *order)
{
    int n = c->nplans;
    for (int i = 0; i < n; i++) order[i] = i;
    for (int k = 0; k < n; k++) {
        int fast = k, pick = k;
        for (int i = k + 1; i < n; i++)
            if (faster(&c->plans[order[i]], &c->plans[order[fast]])) fast = i;
        const gdt_measured_plan *w = &c->plans[order[fast]];
        for (int i = k; i < n; i++) {
            const gdt_measured_plan *p = &c->plans[order[i]], *q = &c->plans[order[pick]];
            bool q_out = beats(w, q), p_in = !beats(w, p);
            if (p_in && (q_out || p->untimed_position < q->untimed_position)) pick = i;
        }
        int t = order[k];
        order[k] = order[pick];
        order[pick] = t;
    }
}

/* The backend's block follows its best measured plan, so that the measured
 * winner stays first even when it is the backend's. */
static int backend_pos_of(const gdt_measured_cell *c, const int *order)
{
    for (int i = 0; i < c->nplans; i++)
        if (c->plans[order[i]].is_backend) return i + 1;
    return c->nplans;
}

gdt_plan_side gdt_measured_side(const gdt_measured_plan *p)
{
    return p->is_backend ? GDT_PLAN_SIDE_BACKEND : gdt_engine_side(NULL, p->id.engine_id);
}

static int64_t tile_area(const gdt_plan_id *id)
{
    int64_t m = gdt_plan_id_knob(id, GDT_KNOB_TILE_M, -1), n = gdt_plan_id_knob(id, GDT_KNOB_TILE_N, -1);
    return (m > 0 && n > 0) ? m * n : INT64_MAX;
}

/* The backend's FALLBACK plan when one was measured; else our most
 * conservative plan (smallest tile area, ties by untimed position). */
static int fallback_of(const gdt_measured_cell *c)
{
    int best = -1;
    for (int i = 0; i < c->nplans; i++) {
        const gdt_measured_plan *p = &c->plans[i];
        if (p->is_backend && p->mode == GDT_MODE_FALLBACK &&
            (best < 0 || p->untimed_position < c->plans[best].untimed_position))
            best = i;
    }
    if (best >= 0) return best;
    for (int i = 0; i < c->nplans; i++) {
        const gdt_measured_plan *p = &c->plans[i];
        if (gdt_measured_side(p) != GDT_PLAN_SIDE_OURS) continue;
        if (best < 0) { best = i; continue; }
        int64_t a = tile_area(&p->id), b = tile_area(&c->plans[best].id);
        if (a < b || (a == b && p->untimed_position < c->plans[best].untimed_position)) best = i;
    }
    return best;
}

/* Placement of one cell: our fastest against the backend's fastest; the
 * library's fastest is recorded beside them and decides nothing. */
typedef struct placement {
    int best_ours, best_backend, best_library; /* plan indices or -1 */
    bool lead;
    bool has_ratio;
    double ratio, noise;
} placement;

static void place_cell(const gdt_measured_cell *c, placement *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->best_ours = pl->best_backend = pl->best_library = -1;
    for (int i = 0; i < c->nplans; i++) {
        gdt_plan_side side = gdt_measured_side(&c->plans[i]);
        int *slot = side == GDT_PLAN_SIDE_BACKEND   ? &pl->best_backend
                    : side == GDT_PLAN_SIDE_LIBRARY ? &pl->best_library
                                                    : &pl->best_ours;
        if (*slot < 0 || c->plans[i].time_us < c->plans[*slot].time_us) *slot = i;
    }
    if (pl->best_ours < 0) return; /* nothing of ours ran: TRAIL */
    if (pl->best_backend < 0) {
        pl->lead = true; /* the backend ran nothing here */
        return;
    }
    const gdt_measured_plan *o = &c->plans[pl->best_ours], *b = &c->plans[pl->best_backend];
    pl->lead = beats(o, b);
    pl->has_ratio = true;
    pl->ratio = o->time_us / b->time_us;
    pl->noise = o->noise + b->noise; /* first-order relative noise of a ratio */
}

/* ================================================================ writer */

typedef struct sb {
    char *p;
    size_t n, cap;
    bool oom;
} sb;

__attribute__((format(printf, 2, 3))) static void sb_printf(sb *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (w < 0) { b->oom = true; return; }
        if (b->p && b->n + (size_t)w < b->cap) { b->n += (size_t)w; return; }
        size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)w;
        char *q = realloc(b->p, cap);
        if (!q) { b->oom = true; return; }
        b->p = q;
        b->cap = cap;
    }
}

static void sb_str(sb *b, const char *s)
{
    sb_printf(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') sb_printf(b, "\\%c", *c);
        else if (*c < 0x20) sb_printf(b, "\\u%04x", *c);
        else sb_printf(b, "%c", *c);
    }
    sb_printf(b, "\"");
}

/* Fixed formatting: %.6g for measured quantities, never "-0". */
static void sb_num(sb *b, double v) { sb_printf(b, "%.6g", v == 0 ? 0.0 : v); }
static void sb_exact(sb *b, double v) { sb_printf(b, "%.17g", v == 0 ? 0.0 : v); }

static void sb_ints(sb *b, const int64_t *v, int n)
{
    sb_printf(b, "[");
    for (int i = 0; i < n; i++) sb_printf(b, "%s%" PRId64, i ? ", " : "", v[i]);
    sb_printf(b, "]");
}

static void emit_scalar(sb *b, const gdt__field *fd, int64_t v)
{
    switch (fd->kind) {
    case GDT__FIELD_DTYPE: sb_printf(b, "\"%s\"", gdt_dtype_name((gdt_dtype)v)); break;
    case GDT__FIELD_NAME: sb_printf(b, "\"%s\"", fd->names[v]); break;
    case GDT__FIELD_BOOL: sb_printf(b, "%s", v ? "true" : "false"); break;
    default: sb_printf(b, "%" PRId64, v); break;
    }
}

/* {"name": value, ...} in field order, from the record base the offsets
 * point into. */
static void emit_fields(sb *b, const gdt__field *fields, int n, const void *base)
{
    sb_printf(b, "{");
    for (int i = 0; i < n; i++) {
        const gdt__field *fd = &fields[i];
        const char *at = (const char *)base + fd->off;
        sb_printf(b, "%s\"%s\": ", i ? ", " : "", fd->name);
        if (fd->kind == GDT__FIELD_INTS) sb_ints(b, (const int64_t *)at, fd->n);
        else if (fd->kind == GDT__FIELD_EXACT) sb_exact(b, *(const double *)at);
        else emit_scalar(b, fd, scalar_load(fd, base));
    }
    sb_printf(b, "}");
}

static void emit_problem(sb *b, const gdt_problem *p)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    emit_fields(b, d->problem_fields, d->nproblem_fields, p);
}

static void emit_facts(sb *b, const gdt_facts *f)
{
    const gdt_family_desc *d = gdt__family_desc(f->family);
    emit_fields(b, d->facts_fields, d->nfacts_fields, f);
}

/* "plan", "engine_id", "knobs", "is_backend", "mode": the identity part of
 * a ranked entry and of the FALLBACK entry. */
static void emit_plan_id(sb *b, const gdt_plan_id *id, bool is_backend)
{
    char name[NAME_MAX_LEN];
    gdt_plan_id_format(id, name, sizeof name);
    sb_printf(b, "\"plan\": ");
    sb_str(b, name);
    sb_printf(b, ", \"engine_id\": %" PRId64 ", \"knobs\": {", id->engine_id);
    for (int k = 0; k < id->nknobs; k++)
        sb_printf(b, "%s\"%s\": %" PRId64, k ? ", " : "", gdt_knob_name(id->knobs[k].type),
                  id->knobs[k].value);
    sb_printf(b, "}, \"is_backend\": %s", is_backend ? "true" : "false");
}

static void emit_identity(sb *b, const gdt_measured_plan *p)
{
    emit_plan_id(b, &p->id, p->is_backend);
    sb_printf(b, ", \"mode\": \"%s\"", mode_text(p->mode));
}

static void emit_measured(sb *b, const gdt_measured_plan *p)
{
    sb_printf(b, "{");
    emit_identity(b, p);
    sb_printf(b, ", \"time_us\": ");
    sb_num(b, p->time_us);
    sb_printf(b, ", \"noise\": ");
    sb_num(b, p->noise);
    sb_printf(b, ", \"host_us\": ");
    sb_num(b, p->host_us);
    sb_printf(b, ", \"samples\": %d, \"untimed_position\": %d}", p->samples, p->untimed_position);
}

static void emit_provenance(sb *b, const gdt_provenance *v)
{
    sb_printf(b, "  \"provenance\": {\n    \"device_name\": ");
    sb_str(b, v->device_name);
    sb_printf(b, ",\n    \"arch\": %d,\n    \"driver_version\": %d,\n    \"cuda_version\": %d,\n"
                 "    \"cudnn_version\": %d,\n    \"nvrtc_version\": %d,\n    \"gdtune_version\": ",
              v->arch, v->driver_version, v->cuda_version, v->cudnn_version, v->nvrtc_version);
    sb_str(b, v->gdtune_version);
    sb_printf(b, ",\n    \"source_digest\": ");
    sb_str(b, v->source_digest);
    sb_printf(b, ",\n    \"sweep_digest\": ");
    sb_str(b, v->sweep_digest);
    sb_printf(b, ",\n    \"candidates_digest\": ");
    sb_str(b, v->candidates_digest);
    sb_printf(b, "\n  },\n");
}

static void emit_header(sb *b, table_kind k, gdt_family f, const gdt_provenance *prov)
{
    sb_printf(b, "{\n  \"schema\": \"%s\",\n  \"family\": \"%s\",\n  \"arch\": \"sm%d\",\n",
              kind_schema(k), gdt_family_name(f), prov->arch);
    emit_provenance(b, prov);
}

/* Everything the writer derives for one cell. */
typedef struct cell_work {
    const gdt_measured_cell *c;
    char key[KEY_MAX];
    gdt_facts facts;
    int *order;
    int backend_pos, fallback;
    placement pl;
    shard_group group;
    double metric;
} cell_work;

static void emit_evidence(sb *b, const cell_work *w)
{
    const gdt_measured_cell *c = w->c;
    sb_printf(b, "      \"evidence\": {\"measured\": %d, \"winner\": ", c->nplans);
    if (c->nplans == 0) {
        sb_printf(b, "null, \"runner_up\": null, \"margin\": null, \"beyond_noise\": false}\n");
        return;
    }
    char name[NAME_MAX_LEN];
    const gdt_measured_plan *win = &c->plans[w->order[0]];
    gdt_plan_id_format(&win->id, name, sizeof name);
    sb_str(b, name);
    sb_printf(b, ", \"runner_up\": ");
    if (c->nplans < 2) {
        sb_printf(b, "null, \"margin\": null, \"beyond_noise\": false}\n");
        return;
    }
    const gdt_measured_plan *run = &c->plans[w->order[1]];
    gdt_plan_id_format(&run->id, name, sizeof name);
    sb_str(b, name);
    sb_printf(b, ", \"margin\": ");
    sb_num(b, (run->time_us - win->time_us) / win->time_us);
    sb_printf(b, ", \"beyond_noise\": %s}\n", beats(win, run) ? "true" : "false");
}

static void emit_tuning_cell(sb *b, const cell_work *w, bool last)
{
    const gdt_measured_cell *c = w->c;
    sb_printf(b, "    {\n      \"key\": ");
    sb_str(b, w->key);
    sb_printf(b, ",\n      \"problem\": ");
    emit_problem(b, &c->problem);
    sb_printf(b, ",\n      \"facts\": ");
    emit_facts(b, &w->facts);
    sb_printf(b, ",\n      \"ranking\": [");
    for (int i = 0; i < c->nplans; i++) {
        sb_printf(b, "%s\n        ", i ? "," : "");
        emit_measured(b, &c->plans[w->order[i]]);
    }
    sb_printf(b, "%s],\n      \"backend_pos\": %d,\n      \"fallback\": ", c->nplans ? "\n      " : "",
              w->backend_pos);
    if (w->fallback < 0) {
        sb_printf(b, "null");
    } else {
        sb_printf(b, "{");
        emit_identity(b, &c->plans[w->fallback]);
        sb_printf(b, "}");
    }
    sb_printf(b, ",\n");
    emit_evidence(b, w);
    sb_printf(b, "    }%s\n", last ? "" : ",");
}

static void emit_best(sb *b, const gdt_measured_cell *c, int i)
{
    if (i < 0) {
        sb_printf(b, "null");
        return;
    }
    char name[NAME_MAX_LEN];
    gdt_plan_id_format(&c->plans[i].id, name, sizeof name);
    sb_printf(b, "{\"plan\": ");
    sb_str(b, name);
    sb_printf(b, ", \"time_us\": ");
    sb_num(b, c->plans[i].time_us);
    sb_printf(b, ", \"noise\": ");
    sb_num(b, c->plans[i].noise);
    sb_printf(b, "}");
}

static void emit_ratio(sb *b, bool has, double ratio, double noise)
{
    sb_printf(b, "\"ratio\": ");
    if (has) sb_num(b, ratio);
    else sb_printf(b, "null");
    sb_printf(b, ", \"noise\": ");
    if (has) sb_num(b, noise);
    else sb_printf(b, "null");
}

static void emit_placement_cell(sb *b, const cell_work *w, bool last)
{
    sb_printf(b, "    {\n      \"key\": ");
    sb_str(b, w->key);
    sb_printf(b, ",\n      \"problem\": ");
    emit_problem(b, &w->c->problem);
    sb_printf(b, ",\n      \"facts\": ");
    emit_facts(b, &w->facts);
    sb_printf(b, ",\n      \"decision\": \"%s\", ", w->pl.lead ? "LEAD" : "TRAIL");
    emit_ratio(b, w->pl.has_ratio, w->pl.ratio, w->pl.noise);
    sb_printf(b, ",\n      \"best_ours\": ");
    emit_best(b, w->c, w->pl.best_ours);
    sb_printf(b, ",\n      \"best_backend\": ");
    emit_best(b, w->c, w->pl.best_backend);
    sb_printf(b, ",\n      \"best_library\": ");
    emit_best(b, w->c, w->pl.best_library);
    sb_printf(b, "\n    }%s\n", last ? "" : ",");
}

static void emit_group(sb *b, gdt_family f, const shard_group *g)
{
    const gdt_family_desc *d = gdt__family_desc(f);
    sb_printf(b, "{");
    for (int i = 0; i < d->ngroup_fields; i++) {
        sb_printf(b, "%s\"%s\": ", i ? ", " : "", d->group_fields[i].name);
        emit_scalar(b, &d->group_fields[i], g->v[i]);
    }
    sb_printf(b, "}");
}

static int work_key_cmp(const void *a, const void *b)
{
    return strcmp(((const cell_work *)a)->key, ((const cell_work *)b)->key);
}

static int work_shard_cmp(const void *pa, const void *pb)
{
    const cell_work *a = *(const cell_work *const *)pa, *b = *(const cell_work *const *)pb;
    int c = group_cmp(&a->group, &b->group);
    if (c) return c;
    if (a->metric != b->metric) return a->metric < b->metric ? -1 : 1;
    return strcmp(a->key, b->key);
}

/* One shard: the run of cells [i, j) of one group with one decision.
 * Boundaries sit at the geometric midpoint between neighbouring cells; the
 * first and last run of a group are open-ended. */
static void emit_shard(sb *b, gdt_family f, cell_work **v, int i, int j, int n, bool first)
{
    bool open_lo = i == 0 || !group_equal(&v[i - 1]->group, &v[i]->group);
    bool open_hi = j == n || !group_equal(&v[j]->group, &v[i]->group);
    double logsum = 0, noise = 0;
    int nratio = 0;
    for (int k = i; k < j; k++)
        if (v[k]->pl.has_ratio) {
            logsum += log(v[k]->pl.ratio);
            noise = fmax(noise, v[k]->pl.noise);
            nratio++;
        }
    sb_printf(b, "%s    {\"group\": ", first ? "" : ",\n");
    emit_group(b, f, &v[i]->group);
    sb_printf(b, ", \"metric\": \"%s\", \"lo\": ", gdt__family_desc(f)->metric_name);
    if (open_lo) sb_printf(b, "null");
    else sb_exact(b, sqrt(v[i - 1]->metric * v[i]->metric));
    sb_printf(b, ", \"hi\": ");
    if (open_hi) sb_printf(b, "null");
    else sb_exact(b, sqrt(v[j - 1]->metric * v[j]->metric));
    sb_printf(b, ",\n     \"decision\": \"%s\", ", v[i]->pl.lead ? "LEAD" : "TRAIL");
    emit_ratio(b, nratio > 0, nratio ? exp(logsum / nratio) : 0, noise);
    sb_printf(b, ", \"cells\": [");
    for (int k = i; k < j; k++) {
        sb_printf(b, "%s", k > i ? ", " : "");
        sb_str(b, v[k]->key);
    }
    sb_printf(b, "]}");
}

static gdt_status emit_shards(sb *b, gdt_family f, cell_work *w, int n, gdt_error *e)
{
    cell_work **v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    for (int i = 0; i < n; i++) v[i] = &w[i];
    qsort(v, (size_t)n, sizeof *v, work_shard_cmp);
    sb_printf(b, "  \"shards\": [\n");
    for (int i = 0, first = 1; i < n; first = 0) {
        int j = i + 1;
        while (j < n && group_equal(&v[j]->group, &v[i]->group) && v[j]->pl.lead == v[i]->pl.lead)
            j++;
        emit_shard(b, f, v, i, j, n, first);
        i = j;
    }
    sb_printf(b, "%s  ],\n", n ? "\n" : "");
    free(v);
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ time model */

static void emit_nums(sb *b, const double *v, int n)
{
    sb_printf(b, "[");
    for (int i = 0; i < n; i++) {
        sb_printf(b, "%s", i ? ", " : "");
        sb_exact(b, v[i]);
    }
    sb_printf(b, "]");
}

/* Figures of the model's picks under key: leave-one-cell-out ("cv") or a
 * validation sweep's ("validation", null when none was given). */
static void emit_figures(sb *b, const char *key, const gdt__pred_cv *cv)
{
    static const char *const modes[2] = {"A", "OPENSOURCE"};
    if (!cv) {
        sb_printf(b, "    \"%s\": null,\n", key);
        return;
    }
    sb_printf(b, "    \"%s\": {\"cells\": %d, \"median_abs_error\": ", key, cv->ncells);
    sb_num(b, cv->err);
    for (int m = 0; m < 2; m++) {
        sb_printf(b, ", \"%s\": {\"geomean\": ", modes[m]);
        sb_num(b, cv->geomean[m]);
        sb_printf(b, ", \"worst\": ");
        sb_num(b, cv->worst[m]);
        sb_printf(b, "}");
    }
    sb_printf(b, ", \"slower_than_heuristic\": %d},\n", cv->slower);
}

static const char *const lead_kinds[GDT__LEAD_KINDS] = {"ours", "block"};

/* The lead's interval (gdt_predict.h): W(D) = scale * (1 + D / distance)
 * for our lead and a backend config's move. */
static void emit_interval(sb *b, const gdt__pred_interval *iv)
{
    sb_printf(b, "    \"interval\": {\"quantile\": ");
    sb_exact(b, iv->quantile);
    sb_printf(b, ", \"distance\": ");
    sb_exact(b, iv->dref);
    for (int k = 0; k < GDT__LEAD_KINDS; k++) {
        sb_printf(b, ", \"%s\": {\"residuals\": %d, \"scale\": ", lead_kinds[k], iv->n[k]);
        sb_exact(b, iv->scale[k]);
        sb_printf(b, "}");
    }
    sb_printf(b, "},\n");
}

/* The placement ratio: its linear part, its quadratic part and the range
 * its features are clamped to there, or null. */
static void emit_ratio_model(sb *b, gdt_family f, const gdt__predictor *m)
{
    const gdt_family_desc *d = gdt__family_desc(f);
    int nf = m->nratio > 0 ? m->nratio : m->nfeatures;
    if (!m->has_ratio) {
        sb_printf(b, "null");
        return;
    }
    sb_printf(b, "{\"lambda\": ");
    sb_exact(b, m->ratio_lambda);
    sb_printf(b, ", ");
    if (m->nratio > 0) {
        sb_printf(b, "\"features\": [");
        for (int j = 0; j < m->nratio; j++) sb_printf(b, "%s\"%s\"", j ? ", " : "", d->ratio_feature_names[j]);
        sb_printf(b, "], \"center\": ");
        emit_nums(b, m->ratio_center, m->nratio);
        sb_printf(b, ",\n      ");
    }
    sb_printf(b, "\"linear\": ");
    emit_nums(b, m->ratio, 1 + nf);
    sb_printf(b, ", \"quadratic\": ");
    emit_nums(b, m->ratio + 1 + nf, GDT__RATIO_QUADRATIC(nf));
    sb_printf(b, ",\n      \"lo\": ");
    emit_nums(b, m->ratio_lo, nf);
    sb_printf(b, ", \"hi\": ");
    emit_nums(b, m->ratio_hi, nf);
    sb_printf(b, "}");
}

static void emit_model(sb *b, gdt_family f, const gdt__predictor *m, const gdt__pred_cv *validation)
{
    if (!m) {
        sb_printf(b, "  \"model\": null\n}\n");
        return;
    }
    sb_printf(b, "  \"model\": {\n    \"form\": \"log_linear\", \"features\": [");
    for (int j = 0; j < m->nfeatures; j++) sb_printf(b, "%s\"%s\"", j ? ", " : "", gdt__predict_feature_name(f, j));
    sb_printf(b, "], \"sm_count\": %d, \"lambda\": ", m->sm_count);
    sb_exact(b, m->lambda);
    sb_printf(b, ", \"noise\": ");
    sb_exact(b, m->noise);
    sb_printf(b, ", \"lead\": \"%s\",\n    \"center\": ", gdt__lead_rule_name(m->lead));
    emit_nums(b, m->center, m->nfeatures);
    sb_printf(b, ", \"shared\": ");
    emit_nums(b, m->shared, m->nfeatures);
    sb_printf(b, ",\n    \"ratio\": ");
    emit_ratio_model(b, f, m);
    sb_printf(b, ",\n");
    emit_interval(b, &m->interval);
    emit_figures(b, "cv", &m->cv);
    emit_figures(b, "validation", validation);
    sb_printf(b, "    \"plans\": [");
    for (int i = 0; i < m->nplans; i++) {
        const gdt__pred_plan *p = &m->plans[i];
        sb_printf(b, "%s\n      {", i ? "," : "");
        emit_plan_id(b, &p->id, p->is_backend);
        sb_printf(b, ", \"cells\": %d, \"intercept\": ", p->ncells);
        sb_exact(b, p->intercept);
        sb_printf(b, ", \"slope\": ");
        emit_nums(b, p->slope, m->nfeatures);
        sb_printf(b, "}");
    }
    sb_printf(b, "%s]\n  }\n}\n", m->nplans ? "\n    " : "");
}

/* Measured cells of f as the model reads them (ours and the backend's
 * plans, as fit_model takes them): c[0..k), src[i] the caller's cell of
 * c[i], at[] mapping a train cell's plans back to the caller's. */
typedef struct model_cells {
    gdt__train_cell *c;
    gdt_measured_plan *kept;
    int *at, *src;
    int k;
} model_cells;

static void model_cells_free(model_cells *mc)
{
    free(mc->c), free(mc->kept), free(mc->at), free(mc->src);
    memset(mc, 0, sizeof *mc);
}

static gdt_status model_cells_of(gdt_family f, int arch, const gdt_measured_cell *cells, int n, model_cells *mc,
                                 gdt_error *e)
{
    int total = 1, used = 0;
    for (int i = 0; i < n; i++) total += cells[i].nplans;
    *mc = (model_cells){calloc((size_t)(n ? n : 1), sizeof *mc->c), calloc((size_t)total, sizeof *mc->kept),
                        calloc((size_t)total, sizeof *mc->at), calloc((size_t)(n ? n : 1), sizeof *mc->src), 0};
    if (!mc->c || !mc->kept || !mc->at || !mc->src) {
        model_cells_free(mc);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables: out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (cells[i].problem.family != f) continue;
        gdt_facts facts;
        facts_for(&cells[i].problem, arch, &facts);
        gdt__train_cell *tc = &mc->c[mc->k];
        *tc = (gdt__train_cell){facts, mc->kept + used, 0};
        for (int j = 0; j < cells[i].nplans; j++)
            if (gdt_measured_side(&cells[i].plans[j]) != GDT_PLAN_SIDE_LIBRARY)
                mc->at[used] = j, mc->kept[used++] = cells[i].plans[j], tc->nplans++;
        mc->src[mc->k++] = i;
    }
    return GDT_STATUS_OK;
}

/* The model of the swept cells (in key order), its choices weighing the
 * validation cells of f too (val: NULL, none), or none when too few cells
 * to cross-validate (*fitted false). */
static gdt_status fit_model(gdt_family f, int arch, const cell_work *w, int n, const model_cells *val,
                            gdt__predictor *m, bool *fitted, gdt_error *e)
{
    *fitted = false;
    if (n < GDT__PREDICT_MIN_CELLS) return GDT_STATUS_OK;
    int total = 0;
    for (int i = 0; i < n; i++) total += w[i].c->nplans;
    gdt__train_cell *c = calloc((size_t)n, sizeof *c);
    gdt_measured_plan *kept = calloc((size_t)(total ? total : 1), sizeof *kept), *at = kept;
    if (!c || !kept) {
        free(c), free(kept);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    }
    /* The model predicts ours and the backend (what placement weighs); a
     * library's plans would count as ours in its ratio. */
    for (int i = 0; i < n; i++) {
        c[i] = (gdt__train_cell){w[i].facts, at, 0};
        for (int k = 0; k < w[i].c->nplans; k++)
            if (gdt_measured_side(&w[i].c->plans[k]) != GDT_PLAN_SIDE_LIBRARY) at[c[i].nplans++] = w[i].c->plans[k];
        at += c[i].nplans;
    }
    gdt_status s = gdt__predictor_fit(f, arch, c, n, val ? val->c : NULL, val ? val->k : 0, m, e);
    free(c);
    free(kept);
    *fitted = s == GDT_STATUS_OK;
    return s;
}

static gdt_status check_measured(const gdt_measured_cell *c, const char *key, gdt_error *e)
{
    for (int i = 0; i < c->nplans; i++) {
        const gdt_measured_plan *p = &c->plans[i];
        char name[NAME_MAX_LEN];
        gdt_plan_id_format(&p->id, name, sizeof name);
        if (!isfinite(p->time_us) || p->time_us <= 0 || !isfinite(p->noise) || p->noise < 0 ||
            !isfinite(p->host_us) || p->host_us < 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "tables writer: cell %s: plan %s: expected time_us > 0, noise >= 0 "
                                 "and host_us >= 0 (finite), got %g, %g, %g",
                                 key, name, p->time_us, p->noise, p->host_us);
        bool backend;
        gdt_family ef;
        int slot;
        gdt_error de;
        if (gdt_engine_id_decode(p->id.engine_id, &backend, &ef, &slot, &de))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: cell %s: plan %s: engine_id: %s",
                                 key, name, de.msg);
        for (int k = 0; k < p->id.nknobs; k++)
            if (!gdt_knob_name(p->id.knobs[k].type))
                return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                     "tables writer: cell %s: plan %s: knob type %d has no name",
                                     key, name, (int)p->id.knobs[k].type);
        for (int j = 0; j < i; j++)
            if (gdt_plan_id_equal(&c->plans[j].id, &p->id))
                return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                     "tables writer: cell %s: plan %s measured twice (plans %d and %d)",
                                     key, name, j, i);
    }
    return GDT_STATUS_OK;
}

/* A NAME field is printed as names[value]: a value outside them (validate
 * does not judge enums) is refused here. */
static gdt_status check_names(const gdt_problem *p, gdt_error *e)
{
    const gdt_family_desc *d = gdt__family_desc(p->family);
    for (int i = 0; i < d->nproblem_fields; i++) {
        const gdt__field *fd = &d->problem_fields[i];
        int64_t v = scalar_load(fd, p);
        if (fd->kind == GDT__FIELD_NAME && (v < 0 || v >= fd->n))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: %s cell: %s %" PRId64
                                 " outside the enum (expected 0 to %d)", d->name, fd->name, v, fd->n - 1);
    }
    return GDT_STATUS_OK;
}

static gdt_status prepare_cell(cell_work *w, const gdt_measured_cell *c, gdt_family f, int arch,
                               gdt_error *e)
{
    w->c = c;
    if (c->problem.family != f)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "tables writer: cell of family %s given to the %s writer",
                             gdt_family_name(c->problem.family), gdt_family_name(f));
    gdt_status s = gdt_problem_validate(&c->problem, e);
    if (!s) s = check_names(&c->problem, e);
    if (s) return s;
    gdt_problem_key(&c->problem, w->key, sizeof w->key);
    if (c->nplans < 0 || (c->nplans > 0 && !c->plans))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: cell %s: no plans array",
                             w->key);
    if ((s = check_measured(c, w->key, e))) return s;
    facts_for(&c->problem, arch, &w->facts);
    w->order = malloc((size_t)(c->nplans ? c->nplans : 1) * sizeof *w->order);
    if (!w->order) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    rank_cell(c, w->order);
    w->backend_pos = backend_pos_of(c, w->order);
    w->fallback = fallback_of(c);
    place_cell(c, &w->pl);
    group_of(&w->facts, &w->group);
    w->metric = metric_of(&w->facts);
    return GDT_STATUS_OK;
}

static void free_work(cell_work *w, int n)
{
    for (int i = 0; w && i < n; i++) free(w[i].order);
    free(w);
}

static void table_path(char *path, size_t cap, const char *dir, gdt_family f, table_kind k)
{
    snprintf(path, cap, "%s/%s.%s.json", dir, gdt_family_name(f), k == KIND_TUNING ? "tuning" : "placement");
}

static gdt_status check_written(const char *tp, const sb *t, const char *pp, const sb *p, gdt_error *e);

/* Both files or neither, as one step (gdt_tables_pair.h): a failure or a
 * kill anywhere leaves the pair that was there or the new one. */
static gdt_status publish_pair(const char *dir, gdt_family f, const sb *t, const sb *p, gdt_error *e)
{
    if (t->oom || p->oom) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    char tp[4096], pp[4096];
    table_path(tp, sizeof tp, dir, f, KIND_TUNING);
    table_path(pp, sizeof pp, dir, f, KIND_PLACEMENT);
    gdt_status s = check_written(tp, t, pp, p, e);
    if (!s) s = gdt__pair_publish(dir, f, t->p, t->n, p->p, p->n, e);
    return s;
}

/* The arch names the folder the loader reads (sm<arch>, two or three
 * digits, as gdt_arch_parse reads it). */
static gdt_status check_provenance(const gdt_provenance *prov, gdt_error *e)
{
    if (prov->arch < 10 || prov->arch > 999)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: provenance: arch: expected an arch "
                             "in [10, 999] (smXY), got %d", prov->arch);
    return GDT_STATUS_OK;
}

static gdt_status prepare_all(gdt_family f, const gdt_provenance *prov, const gdt_measured_cell *cells,
                              int ncells, cell_work **out, gdt_error *e)
{
    cell_work *w = calloc((size_t)(ncells > 0 ? ncells : 1), sizeof *w);
    if (!w) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    *out = w;
    for (int i = 0; i < ncells; i++) {
        gdt_status s = prepare_cell(&w[i], &cells[i], f, prov->arch, e);
        if (s) return s;
    }
    qsort(w, (size_t)ncells, sizeof *w, work_key_cmp);
    for (int i = 1; i < ncells; i++)
        if (!strcmp(w[i - 1].key, w[i].key))
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "tables writer: cell %s given twice",
                                 w[i].key);
    return GDT_STATUS_OK;
}

/* A pick's plan in the caller's cells: k indexes the train cell's plans,
 * at[] maps them back. */
static const gdt_measured_plan *source_plan(const gdt_measured_cell *mc, const int *at, int k)
{
    return k < 0 ? NULL : &mc->plans[at[k]];
}

static void source_pick(const gdt_measured_cell *mc, const int *at, const gdt__pred_pick *pk, gdt_model_pick *out)
{
    *out = (gdt_model_pick){NULL, pk->lead, pk->ratio, source_plan(mc, at, pk->mode_a), source_plan(mc, at, pk->ours),
                            source_plan(mc, at, pk->backend), source_plan(mc, at, pk->best),
                            source_plan(mc, at, pk->best_ours), source_plan(mc, at, pk->heuristic),
                            pk->first.ours_margin, pk->first.width, pk->first.distance};
}

/* The model's figures on measured cells of f, each planned as a shape no
 * cell covers; picks (may be NULL) receive, per cell of f in order, the
 * picks pointing into cells. */
static gdt_status score_cells(const gdt__predictor *m, gdt_family f, int arch, const gdt_measured_cell *cells,
                              int n, gdt__pred_cv *cv, gdt_model_pick *picks, gdt_error *e)
{
    model_cells mc;
    gdt_status s = model_cells_of(f, arch, cells, n, &mc, e);
    gdt__pred_pick *pk = s ? NULL : calloc((size_t)(mc.k ? mc.k : 1), sizeof *pk);
    if (!s && !pk) s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables: out of memory");
    if (!s) s = gdt__predictor_score(m, mc.c, mc.k, pk, cv, e);
    for (int i = 0; !s && picks && i < mc.k; i++)
        source_pick(&cells[mc.src[i]], mc.at + (mc.c[i].plans - mc.kept), &pk[i], &picks[i]);
    free(pk);
    model_cells_free(&mc);
    return s;
}

gdt_status gdt_tables_write(const char *dir, gdt_family f, const gdt_provenance *prov,
                            const gdt_measured_cell *cells, int ncells, gdt_error *e)
{
    return gdt_tables_write_validated(dir, f, prov, cells, ncells, NULL, 0, e);
}

gdt_status gdt_tables_write_validated(const char *dir, gdt_family f, const gdt_provenance *prov,
                                      const gdt_measured_cell *cells, int ncells,
                                      const gdt_measured_cell *validation, int nvalidation, gdt_error *e)
{
    if (!dir || !prov || (ncells > 0 && !cells) || ncells < 0 || (unsigned)f >= GDT_FAMILY_COUNT ||
        nvalidation < 0 || (nvalidation > 0 && !validation))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_tables_write: missing argument");
    cell_work *w = NULL;
    sb t = {0}, p = {0};
    gdt_status s = check_provenance(prov, e);
    if (!s) s = prepare_all(f, prov, cells, ncells, &w, e);
    if (!s) {
        emit_header(&t, KIND_TUNING, f, prov);
        sb_printf(&t, "  \"cells\": [\n");
        for (int i = 0; i < ncells; i++) emit_tuning_cell(&t, &w[i], i == ncells - 1);
        sb_printf(&t, "  ]\n}\n");
        emit_header(&p, KIND_PLACEMENT, f, prov);
        sb_printf(&p, "  \"cells\": [\n");
        for (int i = 0; i < ncells; i++) emit_placement_cell(&p, &w[i], i == ncells - 1);
        sb_printf(&p, "  ],\n");
        s = emit_shards(&p, f, w, ncells, e);
    }
    gdt__predictor model = {0};
    bool fitted = false;
    gdt__pred_cv vcv;
    model_cells val = {0};
    if (!s && validation) s = model_cells_of(f, prov->arch, validation, nvalidation, &val, e);
    if (!s) s = fit_model(f, prov->arch, w, ncells, validation ? &val : NULL, &model, &fitted, e);
    model_cells_free(&val);
    if (!s && fitted && validation)
        s = score_cells(&model, f, prov->arch, validation, nvalidation, &vcv, NULL, e);
    if (!s) emit_model(&p, f, fitted ? &model : NULL, fitted && validation ? &vcv : NULL);
    gdt__predictor_clear(&model);
    if (!s) s = publish_pair(dir, f, &t, &p, e);
    free(t.p);
    free(p.p);
    free_work(w, ncells);
    return s;
}

/* ================================================================ loader */

typedef struct tcell {
    char key[KEY_MAX];
    int nranked;
    gdt_plan_id *ranked;
    bool *is_backend;
    gdt_measured_plan *measured; /* the ranking's entries whole, for gdt_tables_cell */
    int backend_pos;
    bool has_fallback;
    gdt_plan_id fallback;
} tcell;

typedef struct pcell {
    char key[KEY_MAX];
    gdt_facts facts;
    bool lead, has_ratio;
    double ratio, noise;
} pcell;

/* A cell of either table by its key, its first member: qsort, bsearch. */
_Static_assert(offsetof(tcell, key) == 0 && offsetof(pcell, key) == 0, "a cell starts with its key");
static int key_cmp(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

typedef struct shard {
    shard_group g;
    bool has_lo, has_hi, lead, has_ratio;
    double lo, hi, ratio, noise;
} shard;

struct gdt_tables {
    gdt_family family;
    int arch;
    bool have_prov;
    gdt_provenance prov;
    tcell *t;
    int nt;
    pcell *p;
    int np;
    shard *s;
    int ns;
    bool have_model, has_validation;
    gdt__predictor model;
    gdt__pred_cv validation; /* the model's figures on a validation sweep, when emitted with one */
};

void gdt_tables_destroy(gdt_tables *t)
{
    if (!t) return;
    for (int i = 0; i < t->nt; i++) {
        free(t->t[i].ranked);
        free(t->t[i].is_backend);
        free(t->t[i].measured);
    }
    gdt__predictor_clear(&t->model);
    free(t->t);
    free(t->p);
    free(t->s);
    free(t);
}

/* What every reader needs: the file for messages and what the table must
 * describe. */
typedef struct ld {
    const char *file;
    gdt_family family;
    int arch;
    gdt_error *e;
} ld;

typedef char jpath[320];

static const char *sub(char *buf, const char *parent, const char *key)
{
    return gdt_json_path_key(buf, sizeof(jpath), parent, key);
}

static const char *at(char *buf, const char *parent, int i)
{
    return gdt_json_path_index(buf, sizeof(jpath), parent, i);
}

static gdt_status bad(const ld *l, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static gdt_status bad(const ld *l, const char *path, const char *fmt, ...)
{
    char what[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gdt_error_set(l->e, GDT_STATUS_BAD_INPUT, "%s: %s: %s", l->file, *path ? path : "/", what);
}

static gdt_status get_node(const ld *l, const cJSON *o, const char *key, const char *jp,
                           const cJSON **n)
{
    return gdt_json_require(o, key, l->file, jp, n, l->e);
}

static gdt_status get_int(const ld *l, const cJSON *o, const char *key, const char *jp, int64_t *out)
{
    const cJSON *n;
    jpath p;
    gdt_status s = get_node(l, o, key, jp, &n);
    return s ? s : gdt_json_int(n, l->file, sub(p, jp, key), out, l->e);
}

static gdt_status get_int32(const ld *l, const cJSON *o, const char *key, const char *jp, int lo,
                            int *out)
{
    int64_t v;
    jpath p;
    gdt_status s = get_int(l, o, key, jp, &v);
    if (s) return s;
    if (v < lo || v > INT32_MAX)
        return bad(l, sub(p, jp, key), "expected an integer in [%d, %d], got %" PRId64, lo,
                   INT32_MAX, v);
    *out = (int)v;
    return GDT_STATUS_OK;
}

static gdt_status get_num(const ld *l, const cJSON *o, const char *key, const char *jp, double *out)
{
    const cJSON *n;
    jpath p;
    gdt_status s = get_node(l, o, key, jp, &n);
    return s ? s : gdt_json_number(n, l->file, sub(p, jp, key), out, l->e);
}

/* Every string of a table is a name, a key or a digest: a control
 * character in one (an escape sequence, a bell, a line break) would reach
 * the terminals and reports that print it, so it is refused here. */
static gdt_status check_text(const ld *l, const char *path, const char *v)
{
    long at = gdt_text_control_find(v);
    char shown[256];
    if (at < 0) return GDT_STATUS_OK;
    return bad(l, path, "expected text without control characters, got \"%s\" (a control character "
               "at byte %ld)", gdt_text_escape(v, shown, sizeof shown), at);
}

static gdt_status get_str(const ld *l, const cJSON *o, const char *key, const char *jp,
                          const char **out)
{
    const cJSON *n;
    jpath p;
    gdt_status s = get_node(l, o, key, jp, &n);
    if (!s) s = gdt_json_string(n, l->file, sub(p, jp, key), out, l->e);
    return s ? s : check_text(l, p, *out);
}

static gdt_status get_bool(const ld *l, const cJSON *o, const char *key, const char *jp, bool *out)
{
    const cJSON *n;
    jpath p;
    gdt_status s = get_node(l, o, key, jp, &n);
    return s ? s : gdt_json_bool(n, l->file, sub(p, jp, key), out, l->e);
}

/* A number or null: *has says which. */
static gdt_status get_opt_num(const ld *l, const cJSON *o, const char *key, const char *jp,
                              bool *has, double *out)
{
    const cJSON *n;
    jpath p;
    gdt_status s = get_node(l, o, key, jp, &n);
    if (s) return s;
    *has = !cJSON_IsNull(n);
    *out = 0;
    if (!*has) return GDT_STATUS_OK;
    if (!cJSON_IsNumber(n)) return bad(l, sub(p, jp, key), "expected a number or null, got %s",
                                       gdt_json_type_name(n));
    return gdt_json_number(n, l->file, p, out, l->e);
}

static gdt_status get_array(const ld *l, const cJSON *o, const char *key, const char *jp,
                            const cJSON **out, int *n)
{
    jpath p;
    gdt_status s = get_node(l, o, key, jp, out);
    if (s) return s;
    if (!cJSON_IsArray(*out))
        return bad(l, sub(p, jp, key), "expected an array, got %s", gdt_json_type_name(*out));
    *n = cJSON_GetArraySize(*out);
    return GDT_STATUS_OK;
}

static gdt_status get_names(const ld *l, const cJSON *o, const char *key, const char *jp,
                            const char *const *names, int nnames, int *out)
{
    const char *v;
    jpath p;
    gdt_status s = get_str(l, o, key, jp, &v);
    if (s) return s;
    for (int i = 0; i < nnames; i++)
        if (names[i] && !strcmp(v, names[i])) {
            *out = i;
            return GDT_STATUS_OK;
        }
    char list[256] = "";
    for (int i = 0, w = 0; i < nnames && w < (int)sizeof list; i++)
        if (names[i]) w += snprintf(list + w, sizeof list - (size_t)w, "%s%s", w ? ", " : "", names[i]);
    return bad(l, sub(p, jp, key), "expected one of %s, got \"%s\"", list, v);
}

static gdt_status get_text(const ld *l, const cJSON *o, const char *key, const char *jp, char *dst,
                           size_t cap)
{
    const char *v;
    jpath p;
    gdt_status s = get_str(l, o, key, jp, &v);
    if (s) return s;
    if (strlen(v) >= cap)
        return bad(l, sub(p, jp, key), "expected at most %zu characters, got %zu", cap - 1, strlen(v));
    memcpy(dst, v, strlen(v) + 1);
    return GDT_STATUS_OK;
}

static gdt_status check_keys(const ld *l, const cJSON *o, const char *const *keys, int n,
                             const char *jp)
{
    return gdt_json_check_keys(o, keys, n, l->file, jp, l->e);
}
#define CHECK_KEYS(l, o, keys, jp) check_keys(l, o, keys, (int)(sizeof keys / sizeof keys[0]), jp)

/* ------------------------------------------------------------- provenance */

static gdt_status read_provenance(const ld *l, const cJSON *o, const char *jp, gdt_provenance *v)
{
    static const char *const keys[] = {"device_name", "arch", "driver_version", "cuda_version",
                                       "cudnn_version", "nvrtc_version", "gdtune_version",
                                       "source_digest", "sweep_digest", "candidates_digest"};
    gdt_status s = CHECK_KEYS(l, o, keys, jp);
    memset(v, 0, sizeof *v);
    if (!s) s = get_text(l, o, "device_name", jp, v->device_name, sizeof v->device_name);
    if (!s) s = get_int32(l, o, "arch", jp, 0, &v->arch);
    if (!s) s = get_int32(l, o, "driver_version", jp, 0, &v->driver_version);
    if (!s) s = get_int32(l, o, "cuda_version", jp, 0, &v->cuda_version);
    if (!s) s = get_int32(l, o, "cudnn_version", jp, 0, &v->cudnn_version);
    if (!s) s = get_int32(l, o, "nvrtc_version", jp, 0, &v->nvrtc_version);
    if (!s) s = get_text(l, o, "gdtune_version", jp, v->gdtune_version, sizeof v->gdtune_version);
    if (!s) s = get_text(l, o, "source_digest", jp, v->source_digest, sizeof v->source_digest);
    if (!s) s = get_text(l, o, "sweep_digest", jp, v->sweep_digest, sizeof v->sweep_digest);
    if (!s) s = get_text(l, o, "candidates_digest", jp, v->candidates_digest, sizeof v->candidates_digest);
    jpath p;
    if (!s && v->arch != l->arch)
        return bad(l, sub(p, jp, "arch"), "expected %d (the table's arch), got %d", l->arch, v->arch);
    return s;
}

/* ---------------------------------------------------------------- problem */

static gdt_status get_ints(const ld *l, const cJSON *o, const char *key, const char *jp,
                           int64_t *dst, int n)
{
    const cJSON *a;
    int len = 0;
    jpath p, q;
    gdt_status s = get_array(l, o, key, jp, &a, &len);
    if (s) return s;
    sub(p, jp, key);
    if (len != n) return bad(l, p, "expected %d integers, got %d", n, len);
    for (int i = 0; i < n && !s; i++)
        s = gdt_json_int(cJSON_GetArrayItem(a, i), l->file, at(q, p, i), &dst[i], l->e);
    return s;
}

static gdt_status check_fields(const ld *l, const cJSON *o, const gdt__field *fields, int n,
                               const char *jp)
{
    const char *keys[GDT__FIELDS_MAX];
    if (n > GDT__FIELDS_MAX) n = GDT__FIELDS_MAX;
    for (int i = 0; i < n; i++) keys[i] = fields[i].name;
    return check_keys(l, o, keys, n, jp);
}

/* One INT, DTYPE, NAME or BOOL field, as an integer. */
static gdt_status read_scalar(const ld *l, const cJSON *o, const gdt__field *fd, const char *jp,
                              int64_t *v)
{
    const char *dtypes[GDT_DTYPE_COUNT];
    int i = 0;
    bool flag = false;
    gdt_status s;
    switch (fd->kind) {
    case GDT__FIELD_DTYPE:
        for (int j = 0; j < GDT_DTYPE_COUNT; j++) dtypes[j] = gdt_dtype_name((gdt_dtype)j);
        s = get_names(l, o, fd->name, jp, dtypes, GDT_DTYPE_COUNT, &i);
        *v = i;
        return s;
    case GDT__FIELD_NAME:
        s = get_names(l, o, fd->name, jp, fd->names, fd->n, &i);
        *v = i;
        return s;
    case GDT__FIELD_BOOL:
        s = get_bool(l, o, fd->name, jp, &flag);
        *v = flag;
        return s;
    default: return get_int(l, o, fd->name, jp, v);
    }
}

/* The object's fields, exactly these, into the record base. */
static gdt_status read_fields(const ld *l, const cJSON *o, const char *jp, const gdt__field *fields,
                              int n, void *base)
{
    gdt_status s = check_fields(l, o, fields, n, jp);
    for (int i = 0; i < n && !s; i++) {
        const gdt__field *fd = &fields[i];
        char *at = (char *)base + fd->off;
        int64_t v = 0;
        if (fd->kind == GDT__FIELD_INTS) s = get_ints(l, o, fd->name, jp, (int64_t *)at, fd->n);
        else if (fd->kind == GDT__FIELD_EXACT) s = get_num(l, o, fd->name, jp, (double *)at);
        else if (!(s = read_scalar(l, o, fd, jp, &v))) scalar_store(fd, base, v);
    }
    return s;
}

/* The problem as written, validated, and its key as this release computes
 * it: a key that does not follow from the fields is refused. */
static gdt_status read_problem(const ld *l, const cJSON *cell, const char *jp, gdt_problem *p,
                               char key[KEY_MAX])
{
    const cJSON *o;
    const char *written;
    jpath pp;
    gdt_status s = get_str(l, cell, "key", jp, &written);
    if (!s) s = get_node(l, cell, "problem", jp, &o);
    if (s) return s;
    memset(p, 0, sizeof *p);
    p->family = l->family;
    sub(pp, jp, "problem");
    const gdt_family_desc *d = gdt__family_desc(l->family);
    s = read_fields(l, o, pp, d->problem_fields, d->nproblem_fields, p);
    if (s) return s;
    gdt_error pe;
    gdt_error_clear(&pe);
    if (gdt_problem_validate(p, &pe)) return bad(l, pp, "%s", pe.msg);
    gdt_problem_key(p, key, KEY_MAX);
    if (strcmp(key, written))
        return bad(l, sub(pp, jp, "key"), "expected \"%s\" (the key of the problem's fields), got \"%s\"",
                   key, written);
    return GDT_STATUS_OK;
}

/* A fact as written must be the fact derived (flops within 1e-9 relative). */
static gdt_status check_fact(const ld *l, const cJSON *o, const gdt__field *fd, const char *jp,
                             const gdt_facts *f)
{
    jpath p;
    gdt_status s;
    if (fd->kind == GDT__FIELD_EXACT) {
        double v, want = *(const double *)((const char *)f + fd->off);
        if ((s = get_num(l, o, fd->name, jp, &v))) return s;
        if (fabs(v - want) > 1e-9 * fabs(want))
            return bad(l, sub(p, jp, fd->name), "expected %.17g (derived from the problem), got %.17g",
                       want, v);
        return GDT_STATUS_OK;
    }
    int64_t v = 0, want = scalar_load(fd, f);
    if ((s = read_scalar(l, o, fd, jp, &v)) || v == want) return s;
    if (fd->kind == GDT__FIELD_BOOL)
        return bad(l, sub(p, jp, fd->name), "expected %s (derived from the problem), got %s",
                   want ? "true" : "false", v ? "true" : "false");
    return bad(l, sub(p, jp, fd->name), "expected %" PRId64 " (derived from the problem), got %" PRId64,
               want, v);
}

/* Facts are written for people and for the shards; they must be the facts
 * this release derives from the problem. */
static gdt_status read_facts(const ld *l, const cJSON *cell, const char *jp, const gdt_problem *p,
                             gdt_facts *f)
{
    const gdt_family_desc *d = gdt__family_desc(l->family);
    const cJSON *o;
    jpath fp;
    gdt_status s = get_node(l, cell, "facts", jp, &o);
    if (s) return s;
    sub(fp, jp, "facts");
    s = check_fields(l, o, d->facts_fields, d->nfacts_fields, fp);
    facts_for(p, l->arch, f);
    for (int i = 0; i < d->nfacts_fields && !s; i++) s = check_fact(l, o, &d->facts_fields[i], fp, f);
    return s;
}

/* ------------------------------------------------------------ plan entries */

static gdt_status read_knobs(const ld *l, const cJSON *o, const char *jp, gdt_plan_id *id)
{
    const cJSON *k;
    jpath kp, p;
    gdt_status s = get_node(l, o, "knobs", jp, &k);
    if (s) return s;
    sub(kp, jp, "knobs");
    if (!cJSON_IsObject(k)) return bad(l, kp, "expected an object, got %s", gdt_json_type_name(k));
    for (const cJSON *c = k->child; c; c = c->next) {
        int type;
        int64_t v;
        gdt_error ke;
        gdt_error_clear(&ke);
        sub(p, kp, c->string);
        if (gdt_knob_parse(c->string, &type, &ke)) return bad(l, p, "%s", ke.msg);
        if ((s = gdt_json_int(c, l->file, p, &v, l->e))) return s;
        if (id->nknobs >= GDT_MAX_KNOBS || !gdt_plan_id_set_knob(id, type, v))
            return bad(l, kp, "expected at most %d knobs", GDT_MAX_KNOBS);
    }
    return GDT_STATUS_OK;
}

static gdt_status check_engine(const ld *l, const char *jp, const gdt_plan_id *id, bool is_backend)
{
    bool backend = false;
    gdt_family f = l->family;
    int slot = 0;
    gdt_error de;
    jpath p;
    gdt_error_clear(&de);
    sub(p, jp, "engine_id");
    if (gdt_engine_id_decode(id->engine_id, &backend, &f, &slot, &de)) return bad(l, p, "%s", de.msg);
    if (backend != is_backend)
        return bad(l, sub(p, jp, "is_backend"), "expected %s (engine %" PRId64 " is %s), got %s",
                   backend ? "true" : "false", id->engine_id,
                   backend ? "a backend engine" : "a gdtune engine", is_backend ? "true" : "false");
    if (!backend && f != l->family)
        return bad(l, p, "expected an engine of family %s, got %" PRId64 " (family %s)",
                   gdt_family_name(l->family), id->engine_id, gdt_family_name(f));
    return GDT_STATUS_OK;
}

/* plan, engine_id, knobs, is_backend, mode: the name must be what
 * engine_id and knobs print as. */
static gdt_status read_plan_id(const ld *l, const cJSON *o, const char *jp, gdt_plan_id *id,
                               bool *is_backend)
{
    const char *name;
    char want[NAME_MAX_LEN];
    jpath p;
    memset(id, 0, sizeof *id);
    gdt_status s = get_str(l, o, "plan", jp, &name);
    if (!s) s = get_int(l, o, "engine_id", jp, &id->engine_id);
    if (!s) s = read_knobs(l, o, jp, id);
    if (!s) s = get_bool(l, o, "is_backend", jp, is_backend);
    if (!s) s = check_engine(l, jp, id, *is_backend);
    if (s) return s;
    gdt_plan_id_normalize(id);
    gdt_plan_id_format(id, want, sizeof want);
    if (strcmp(want, name))
        return bad(l, sub(p, jp, "plan"), "expected \"%s\" (engine_id and knobs), got \"%s\"", want, name);
    return GDT_STATUS_OK;
}

static gdt_status read_identity(const ld *l, const cJSON *o, const char *jp, gdt_plan_id *id,
                                bool *is_backend, gdt_mode *mode_out)
{
    static const char *const modes[] = {"A", "B", "FALLBACK", "OPENSOURCE", "enumerated"};
    int mode = 0;
    gdt_status s = read_plan_id(l, o, jp, id, is_backend);
    if (!s) s = get_names(l, o, "mode", jp, modes, 5, &mode);
    if (!s) *mode_out = (gdt_mode)mode; /* modes[] is in gdt_mode order, "enumerated" last */
    return s;
}

static gdt_status read_ranked(const ld *l, const cJSON *o, const char *jp, gdt_plan_id *id,
                              bool *is_backend, gdt_measured_plan *m)
{
    static const char *const keys[] = {"plan", "engine_id", "knobs", "is_backend", "mode", "time_us",
                                       "noise", "host_us", "samples", "untimed_position"};
    double t = 0, noise = 0, host;
    int samples, pos;
    jpath p;
    gdt_status s = CHECK_KEYS(l, o, keys, jp);
    if (!s) s = read_identity(l, o, jp, id, is_backend, &m->mode);
    if (!s) s = get_num(l, o, "time_us", jp, &t);
    if (!s) s = get_num(l, o, "noise", jp, &noise);
    if (!s) s = get_num(l, o, "host_us", jp, &host);
    if (!s) s = get_int32(l, o, "samples", jp, 0, &samples);
    if (!s) s = get_int32(l, o, "untimed_position", jp, 0, &pos);
    if (!s && !(t > 0)) return bad(l, sub(p, jp, "time_us"), "expected a time > 0, got %g", t);
    if (!s && noise < 0) return bad(l, sub(p, jp, "noise"), "expected noise >= 0, got %g", noise);
    if (!s && host < 0) return bad(l, sub(p, jp, "host_us"), "expected a time >= 0, got %g", host);
    if (!s) {
        m->id = *id;
        m->is_backend = *is_backend;
        m->untimed_position = pos;
        m->time_us = t;
        m->noise = noise;
        m->host_us = host;
        m->samples = samples;
    }
    return s;
}

/* ------------------------------------------------------------ tuning cell */

/* winner and runner_up: the names of the ranking's first two entries
 * (each checked against its engine and knobs), null past its end. */
static gdt_status check_named(const ld *l, const cJSON *n, const char *jp, const tcell *c, int i)
{
    char want[NAME_MAX_LEN];
    const char *got;
    if (i >= c->nranked)
        return cJSON_IsNull(n) ? GDT_STATUS_OK
                               : bad(l, jp, "expected null (%d entries in the ranking), got %s", c->nranked,
                                     gdt_json_type_name(n));
    gdt_plan_id_format(&c->ranked[i], want, sizeof want);
    if (!cJSON_IsString(n))
        return bad(l, jp, "expected \"%s\" (ranking/%d), got %s", want, i, gdt_json_type_name(n));
    gdt_status s = gdt_json_string(n, l->file, jp, &got, l->e);
    if (!s) s = check_text(l, jp, got);
    if (!s && strcmp(got, want)) return bad(l, jp, "expected \"%s\" (ranking/%d), got \"%s\"", want, i, got);
    return s;
}

static gdt_status read_evidence(const ld *l, const cJSON *cell, const char *jp, const tcell *c)
{
    static const char *const keys[] = {"measured", "winner", "runner_up", "margin", "beyond_noise"};
    const cJSON *o, *n;
    jpath ep, p;
    int measured;
    bool has, beyond;
    double margin;
    gdt_status s = get_node(l, cell, "evidence", jp, &o);
    if (s) return s;
    sub(ep, jp, "evidence");
    if ((s = CHECK_KEYS(l, o, keys, ep))) return s;
    if ((s = get_int32(l, o, "measured", ep, 0, &measured))) return s;
    if (measured != c->nranked)
        return bad(l, sub(p, ep, "measured"), "expected %d (entries in the ranking), got %d", c->nranked,
                   measured);
    for (int i = 1; i <= 2; i++) {
        const char *key = keys[i];
        if ((s = get_node(l, o, key, ep, &n))) return s;
        if ((s = check_named(l, n, sub(p, ep, key), c, i - 1))) return s;
    }
    if ((s = get_opt_num(l, o, "margin", ep, &has, &margin))) return s;
    return get_bool(l, o, "beyond_noise", ep, &beyond);
}

static gdt_status read_ranking(const ld *l, const cJSON *cell, const char *jp, tcell *c)
{
    const cJSON *a;
    int n = 0;
    jpath rp, p;
    gdt_status s = get_array(l, cell, "ranking", jp, &a, &n);
    if (s) return s;
    sub(rp, jp, "ranking");
    c->ranked = calloc((size_t)(n ? n : 1), sizeof *c->ranked);
    c->is_backend = calloc((size_t)(n ? n : 1), sizeof *c->is_backend);
    c->measured = calloc((size_t)(n ? n : 1), sizeof *c->measured);
    if (!c->ranked || !c->is_backend || !c->measured)
        return gdt_error_set(l->e, GDT_STATUS_NO_MEMORY, "%s: out of memory", l->file);
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        if ((s = read_ranked(l, x, at(p, rp, i), &c->ranked[i], &c->is_backend[i], &c->measured[i])))
            return s;
        c->nranked = i + 1;
        for (int j = 0; j < i; j++)
            if (gdt_plan_id_equal(&c->ranked[j], &c->ranked[i]))
                return bad(l, p, "plan ranked twice (also at %s/%d)", rp, j);
    }
    return GDT_STATUS_OK;
}

static gdt_status read_tuning_cell(const ld *l, const cJSON *o, const char *jp, tcell *c)
{
    static const char *const keys[] = {"key", "problem", "facts", "ranking", "backend_pos",
                                       "fallback", "evidence"};
    static const char *const fb_keys[] = {"plan", "engine_id", "knobs", "is_backend", "mode"};
    gdt_problem prob;
    gdt_facts facts;
    const cJSON *fb;
    jpath p;
    gdt_status s = CHECK_KEYS(l, o, keys, jp);
    if (!s) s = read_problem(l, o, jp, &prob, c->key);
    if (!s) s = read_facts(l, o, jp, &prob, &facts);
    if (!s) s = read_ranking(l, o, jp, c);
    if (!s) s = get_int32(l, o, "backend_pos", jp, 0, &c->backend_pos);
    if (!s && c->backend_pos > c->nranked)
        return bad(l, sub(p, jp, "backend_pos"), "expected a position in [0, %d], got %d", c->nranked,
                   c->backend_pos);
    if (!s) s = get_node(l, o, "fallback", jp, &fb);
    if (!s && !cJSON_IsNull(fb)) {
        bool is_backend;
        gdt_mode mode;
        sub(p, jp, "fallback");
        c->has_fallback = true;
        s = CHECK_KEYS(l, fb, fb_keys, p);
        if (!s) s = read_identity(l, fb, p, &c->fallback, &is_backend, &mode);
    }
    if (!s) s = read_evidence(l, o, jp, c);
    return s;
}

/* --------------------------------------------------------- placement cell */

static const char *const decisions[] = {"TRAIL", "LEAD"};

/* A best_* entry: null, or a plan measured in time_us > 0 with noise >= 0. */
typedef struct best {
    bool has;
    double t, noise;
} best;

static gdt_status read_best(const ld *l, const cJSON *cell, const char *key, const char *jp, best *b)
{
    static const char *const keys[] = {"plan", "time_us", "noise"};
    const cJSON *o;
    const char *name;
    jpath p, q;
    gdt_status s = get_node(l, cell, key, jp, &o);
    *b = (best){0};
    if (s || cJSON_IsNull(o)) return s;
    sub(p, jp, key);
    s = CHECK_KEYS(l, o, keys, p);
    if (!s) s = get_str(l, o, "plan", p, &name);
    if (!s) s = get_num(l, o, "time_us", p, &b->t);
    if (!s) s = get_num(l, o, "noise", p, &b->noise);
    if (!s && !(b->t > 0)) return bad(l, sub(q, p, "time_us"), "expected a time > 0, got %g", b->t);
    if (!s && !(b->noise >= 0)) return bad(l, sub(q, p, "noise"), "expected noise >= 0, got %g", b->noise);
    b->has = !s;
    return s;
}

static gdt_status read_decision(const ld *l, const cJSON *o, const char *jp, bool *lead,
                                bool *has_ratio, double *ratio, double *noise)
{
    int d = 0;
    bool has_noise;
    jpath p;
    gdt_status s = get_names(l, o, "decision", jp, decisions, 2, &d);
    *lead = d == 1;
    if (!s) s = get_opt_num(l, o, "ratio", jp, has_ratio, ratio);
    if (!s) s = get_opt_num(l, o, "noise", jp, &has_noise, noise);
    if (!s && has_noise != *has_ratio)
        return bad(l, sub(p, jp, "noise"), "expected %s (ratio is %s)", *has_ratio ? "a number" : "null",
                   *has_ratio ? "a number" : "null");
    if (!s && *has_ratio && !(*ratio > 0))
        return bad(l, sub(p, jp, "ratio"), "expected a ratio > 0, got %g", *ratio);
    if (!s && has_noise && !(*noise >= 0))
        return bad(l, sub(p, jp, "noise"), "expected noise >= 0, got %g", *noise);
    return s;
}

/* The writer's %.6g leaves a stored ratio and the quotient of the stored
 * times apart by at most about 1.5e-6 of their value. */
#define RATIO_REL_TOL 1e-5

/* The ratio is best_ours' time over best_backend's, and there is one
 * exactly when both were measured. */
static gdt_status check_ratio(const ld *l, const char *jp, const pcell *c, const best *ours,
                              const best *back)
{
    jpath p;
    sub(p, jp, "ratio");
    if (c->has_ratio != (ours->has && back->has))
        return bad(l, p, "expected %s (best_ours is %s, best_backend is %s), got %s",
                   c->has_ratio ? "null" : "a number", ours->has ? "measured" : "null",
                   back->has ? "measured" : "null", c->has_ratio ? "a number" : "null");
    if (!c->has_ratio) return GDT_STATUS_OK;
    double q = ours->t / back->t;
    if (fabs(c->ratio - q) > RATIO_REL_TOL * q)
        return bad(l, p, "expected %.6g (best_ours.time_us / best_backend.time_us = %.6g / %.6g), got %.6g",
                   q, ours->t, back->t, c->ratio);
    return GDT_STATUS_OK;
}

static gdt_status read_placement_cell(const ld *l, const cJSON *o, const char *jp, pcell *c)
{
    static const char *const keys[] = {"key", "problem", "facts", "decision", "ratio", "noise",
                                       "best_ours", "best_backend", "best_library"};
    gdt_problem prob;
    best ours, back, lib;
    gdt_status s = CHECK_KEYS(l, o, keys, jp);
    if (!s) s = read_problem(l, o, jp, &prob, c->key);
    if (!s) s = read_facts(l, o, jp, &prob, &c->facts);
    if (!s) s = read_decision(l, o, jp, &c->lead, &c->has_ratio, &c->ratio, &c->noise);
    if (!s) s = read_best(l, o, "best_ours", jp, &ours);
    if (!s) s = read_best(l, o, "best_backend", jp, &back);
    if (!s) s = read_best(l, o, "best_library", jp, &lib);
    if (!s) s = check_ratio(l, jp, c, &ours, &back);
    return s;
}

/* ------------------------------------------------------------------ shards */

static gdt_status read_group(const ld *l, const cJSON *sh, const char *jp, shard_group *g)
{
    const gdt_family_desc *d = gdt__family_desc(l->family);
    const cJSON *o;
    jpath gp;
    gdt_status s = get_node(l, sh, "group", jp, &o);
    if (s) return s;
    sub(gp, jp, "group");
    memset(g, 0, sizeof *g);
    s = check_fields(l, o, d->group_fields, d->ngroup_fields, gp);
    for (int i = 0; i < d->ngroup_fields && !s; i++)
        s = read_scalar(l, o, &d->group_fields[i], gp, &g->v[i]);
    return s;
}


static gdt_status read_shard_cells(const ld *l, const cJSON *o, const char *jp, const gdt_tables *t)
{
    const cJSON *a;
    int n = 0;
    jpath cp, p;
    gdt_status s = get_array(l, o, "cells", jp, &a, &n);
    if (s) return s;
    sub(cp, jp, "cells");
    if (n == 0) return bad(l, cp, "expected at least one cell key, got an empty array");
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        const char *k;
        if ((s = gdt_json_string(x, l->file, at(p, cp, i), &k, l->e))) return s;
        pcell probe;
        snprintf(probe.key, sizeof probe.key, "%s", k);
        if (!bsearch(&probe, t->p, (size_t)t->np, sizeof *t->p, key_cmp))
            return bad(l, p, "expected the key of a cell in /cells, got \"%s\"", k);
    }
    return GDT_STATUS_OK;
}

static gdt_status read_shard(const ld *l, const cJSON *o, const char *jp, const gdt_tables *t, shard *sh)
{
    static const char *const keys[] = {"group", "metric", "lo", "hi", "decision", "ratio", "noise", "cells"};
    const char *metrics[] = {gdt__family_desc(l->family)->metric_name};
    int metric;
    jpath p;
    gdt_status s = CHECK_KEYS(l, o, keys, jp);
    if (!s) s = read_group(l, o, jp, &sh->g);
    if (!s) s = get_names(l, o, "metric", jp, metrics, 1, &metric);
    if (!s) s = get_opt_num(l, o, "lo", jp, &sh->has_lo, &sh->lo);
    if (!s) s = get_opt_num(l, o, "hi", jp, &sh->has_hi, &sh->hi);
    if (!s && sh->has_lo && sh->has_hi && sh->lo > sh->hi)
        return bad(l, sub(p, jp, "hi"), "expected hi >= lo (%.17g), got %.17g", sh->lo, sh->hi);
    if (!s) s = read_decision(l, o, jp, &sh->lead, &sh->has_ratio, &sh->ratio, &sh->noise);
    if (!s) s = read_shard_cells(l, o, jp, t);
    return s;
}

/* -------------------------------------------------------------- the model */

/* An array of exactly n numbers, each what `per` says ("one per feature"). */
static gdt_status get_nums_per(const ld *l, const cJSON *o, const char *key, const char *jp, double *dst, int n,
                               const char *per)
{
    const cJSON *a;
    int len = 0;
    jpath p, q;
    gdt_status s = get_array(l, o, key, jp, &a, &len);
    if (s) return s;
    sub(p, jp, key);
    if (len != n) return bad(l, p, "expected %d numbers (%s), got %d", n, per, len);
    for (int i = 0; i < n && !s; i++)
        s = gdt_json_number(cJSON_GetArrayItem(a, i), l->file, at(q, p, i), &dst[i], l->e);
    return s;
}

static gdt_status get_nums(const ld *l, const cJSON *o, const char *key, const char *jp, double *dst, int n)
{
    return get_nums_per(l, o, key, jp, dst, n, "one per feature");
}

/* A figure of the cross-validation: a ratio to the best is at least 1. */
static gdt_status get_ratio(const ld *l, const cJSON *o, const char *key, const char *jp, double *v)
{
    jpath p;
    gdt_status s = get_num(l, o, key, jp, v);
    if (!s && !(*v >= 1)) return bad(l, sub(p, jp, key), "expected a ratio >= 1, got %g", *v);
    return s;
}

/* Figures of the model's picks under key (emit_figures); null only where
 * nullable (*present false then). */
static gdt_status read_figures(const ld *l, const cJSON *model, const char *key, const char *jp, bool nullable,
                               gdt__pred_cv *cv, bool *present)
{
    static const char *const keys[] = {"cells", "median_abs_error", "A", "OPENSOURCE", "slower_than_heuristic"};
    static const char *const fig_keys[] = {"geomean", "worst"};
    const cJSON *o, *m;
    jpath cp, mp, p;
    gdt_status s = get_node(l, model, key, jp, &o);
    *present = false;
    memset(cv, 0, sizeof *cv);
    if (s || (nullable && cJSON_IsNull(o))) return s;
    sub(cp, jp, key);
    if (!cJSON_IsObject(o))
        return bad(l, cp, "expected an object%s, got %s", nullable ? " or null" : "", gdt_json_type_name(o));
    s = CHECK_KEYS(l, o, keys, cp);
    if (!s) s = get_int32(l, o, "cells", cp, 0, &cv->ncells);
    if (!s) s = get_num(l, o, "median_abs_error", cp, &cv->err);
    if (!s && !(cv->err >= 0))
        return bad(l, sub(p, cp, "median_abs_error"), "expected an error >= 0, got %g", cv->err);
    for (int i = 0; i < 2 && !s; i++) {
        s = get_node(l, o, keys[2 + i], cp, &m);
        sub(mp, cp, keys[2 + i]);
        if (!s) s = CHECK_KEYS(l, m, fig_keys, mp);
        if (!s) s = get_ratio(l, m, "geomean", mp, &cv->geomean[i]);
        if (!s) s = get_ratio(l, m, "worst", mp, &cv->worst[i]);
    }
    if (!s) s = get_int32(l, o, "slower_than_heuristic", cp, 0, &cv->slower);
    if (!s && cv->slower > cv->ncells)
        return bad(l, sub(p, cp, "slower_than_heuristic"), "expected at most the %d cells, got %d", cv->ncells,
                   cv->slower);
    *present = !s;
    return s;
}

/* One kind of lead's residuals and scale >= 0. */
static gdt_status read_interval_kind(const ld *l, const cJSON *iv, int kind, const char *jp, gdt__pred_interval *out)
{
    static const char *const keys[] = {"residuals", "scale"};
    const cJSON *o;
    jpath kp, p;
    gdt_status s = get_node(l, iv, lead_kinds[kind], jp, &o);
    if (s) return s;
    sub(kp, jp, lead_kinds[kind]);
    s = CHECK_KEYS(l, o, keys, kp);
    if (!s) s = get_int32(l, o, "residuals", kp, 0, &out->n[kind]);
    if (!s) s = get_num(l, o, "scale", kp, &out->scale[kind]);
    if (!s && !(out->scale[kind] >= 0))
        return bad(l, sub(p, kp, "scale"), "expected a scale >= 0, got %g", out->scale[kind]);
    return s;
}

/* The lead's interval: one of this release's quantiles, a distance >= 0,
 * a scale per kind of lead. */
static gdt_status read_interval(const ld *l, const cJSON *model, const char *jp, gdt__pred_interval *iv)
{
    static const char *const keys[] = {"quantile", "distance", "ours", "block"};
    const cJSON *o;
    char known[128] = "";
    jpath ip, p;
    gdt_status s = get_node(l, model, "interval", jp, &o);
    if (s) return s;
    sub(ip, jp, "interval");
    s = CHECK_KEYS(l, o, keys, ip);
    if (!s) s = get_num(l, o, "quantile", ip, &iv->quantile);
    if (!s && !gdt__lead_quantile_known(iv->quantile)) {
        for (int i = 0; i < GDT__LEAD_NQUANTILES; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%g", i ? ", " : "",
                     gdt__lead_quantiles[i]);
        return bad(l, sub(p, ip, "quantile"), "expected one of %s (this release's quantiles), got %g", known,
                   iv->quantile);
    }
    if (!s) s = get_num(l, o, "distance", ip, &iv->dref);
    if (!s && !(iv->dref >= 0))
        return bad(l, sub(p, ip, "distance"), "expected a distance >= 0, got %g", iv->dref);
    for (int k = 0; !s && k < GDT__LEAD_KINDS; k++) s = read_interval_kind(l, o, k, ip, iv);
    return s;
}

/* o[key]: exactly the n names name(l->family, i), in order. */
static gdt_status read_feature_names(const ld *l, const cJSON *o, const char *key, const char *jp, int want,
                                     const char *(*name_of)(gdt_family, int))
{
    const cJSON *a;
    int n = 0;
    jpath fp, p;
    gdt_status s = get_array(l, o, key, jp, &a, &n);
    if (s) return s;
    sub(fp, jp, key);
    if (n != want) return bad(l, fp, "expected %d features, got %d", want, n);
    for (int i = 0; i < n; i++) {
        const char *v, *name = name_of(l->family, i);
        if ((s = gdt_json_string(cJSON_GetArrayItem(a, i), l->file, at(p, fp, i), &v, l->e))) return s;
        if (strcmp(v, name))
            return bad(l, p, "expected \"%s\" (this release's feature %d), got \"%s\"", name, i, v);
    }
    return GDT_STATUS_OK;
}

static gdt_status read_features(const ld *l, const cJSON *o, const char *jp)
{
    return read_feature_names(l, o, "features", jp, gdt__predict_nfeatures(l->family), gdt__predict_feature_name);
}

static const char *ratio_feature_name(gdt_family f, int j) { return gdt__family_desc(f)->ratio_feature_names[j]; }

static gdt_status read_model_plan(const ld *l, const cJSON *o, const char *jp, int nf, gdt__pred_plan *pp)
{
    static const char *const keys[] = {"plan", "engine_id", "knobs", "is_backend", "cells", "intercept", "slope"};
    gdt_status s = CHECK_KEYS(l, o, keys, jp);
    if (!s) s = read_plan_id(l, o, jp, &pp->id, &pp->is_backend);
    if (!s) s = get_int32(l, o, "cells", jp, 1, &pp->ncells);
    if (!s) s = get_num(l, o, "intercept", jp, &pp->intercept);
    if (!s) s = get_nums(l, o, "slope", jp, pp->slope, nf);
    return s;
}

/* Plans sorted by name, each once: the lookup bisects them. */
static gdt_status read_model_plans(const ld *l, const cJSON *o, const char *jp, gdt__predictor *m)
{
    const cJSON *a;
    int n = 0;
    jpath pp, p;
    gdt_status s = get_array(l, o, "plans", jp, &a, &n);
    if (s) return s;
    sub(pp, jp, "plans");
    if (!(m->plans = calloc((size_t)(n ? n : 1), sizeof *m->plans)))
        return gdt_error_set(l->e, GDT_STATUS_NO_MEMORY, "%s: out of memory", l->file);
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        if ((s = read_model_plan(l, x, at(p, pp, i), m->nfeatures, &m->plans[i]))) return s;
        m->nplans = i + 1;
        char prev[NAME_MAX_LEN] = "", cur[NAME_MAX_LEN];
        gdt_plan_id_format(&m->plans[i].id, cur, sizeof cur);
        if (i > 0) gdt_plan_id_format(&m->plans[i - 1].id, prev, sizeof prev);
        if (i > 0 && strcmp(prev, cur) >= 0)
            return bad(l, sub(p, at(p, pp, i), "plan"), "expected plans sorted by name, each once: \"%s\" "
                       "follows \"%s\"", cur, prev);
    }
    return GDT_STATUS_OK;
}

/* The placement ratio (null: none): its parts and a range lo <= hi per
 * feature. */
static gdt_status read_ratio(const ld *l, const cJSON *model, const char *jp, gdt__predictor *m)
{
    static const char *const keys[] = {"lambda", "linear", "quadratic", "lo", "hi"};
    static const char *const keys_own[] = {"lambda", "features", "center", "linear", "quadratic", "lo", "hi"};
    const cJSON *o;
    m->nratio = gdt__family_desc(l->family)->nratio_features;
    int nf = m->nratio > 0 ? m->nratio : m->nfeatures;
    jpath rp, p, q;
    gdt_status s = get_node(l, model, "ratio", jp, &o);
    m->has_ratio = !s && !cJSON_IsNull(o);
    if (s || !m->has_ratio) return s;
    sub(rp, jp, "ratio");
    if (!cJSON_IsObject(o)) return bad(l, rp, "expected an object or null, got %s", gdt_json_type_name(o));
    s = m->nratio ? CHECK_KEYS(l, o, keys_own, rp) : CHECK_KEYS(l, o, keys, rp);
    if (!s) s = get_num(l, o, "lambda", rp, &m->ratio_lambda);
    if (!s && !(m->ratio_lambda >= 0))
        return bad(l, sub(p, rp, "lambda"), "expected lambda >= 0, got %g", m->ratio_lambda);
    if (!s && m->nratio) s = read_feature_names(l, o, "features", rp, m->nratio, ratio_feature_name);
    if (!s && m->nratio) s = get_nums(l, o, "center", rp, m->ratio_center, m->nratio);
    if (!s) s = get_nums_per(l, o, "linear", rp, m->ratio, 1 + nf, "the intercept, then one per feature");
    if (!s) s = get_nums_per(l, o, "quadratic", rp, m->ratio + 1 + nf, GDT__RATIO_QUADRATIC(nf),
                             "one per pair of features");
    if (!s) s = get_nums(l, o, "lo", rp, m->ratio_lo, nf);
    if (!s) s = get_nums(l, o, "hi", rp, m->ratio_hi, nf);
    for (int j = 0; !s && j < nf; j++)
        if (!(m->ratio_lo[j] <= m->ratio_hi[j]))
            return bad(l, at(q, sub(p, rp, "hi"), j), "expected hi >= lo (%g), got %g", m->ratio_lo[j],
                       m->ratio_hi[j]);
    return s;
}

static gdt_status read_model(const ld *l, const cJSON *root, gdt_tables *t)
{
    static const char *const keys[] = {"form", "features", "sm_count", "lambda", "noise", "lead", "center",
                                       "shared", "ratio", "interval", "cv", "validation", "plans"};
    static const char *const forms[] = {"log_linear"};
    const char *leads[GDT__LEAD_RULES];
    const cJSON *o;
    gdt__predictor *m = &t->model;
    int form, lead;
    for (int r = 0; r < GDT__LEAD_RULES; r++) leads[r] = gdt__lead_rule_name((gdt__lead_rule)r);
    jpath p;
    gdt_status s = get_node(l, root, "model", "", &o);
    if (s || cJSON_IsNull(o)) return s;
    if (!cJSON_IsObject(o)) return bad(l, "/model", "expected an object or null, got %s", gdt_json_type_name(o));
    m->nfeatures = gdt__predict_nfeatures(l->family);
    s = CHECK_KEYS(l, o, keys, "/model");
    if (!s) s = get_names(l, o, "form", "/model", forms, 1, &form);
    if (!s) s = read_features(l, o, "/model");
    if (!s) s = get_int32(l, o, "sm_count", "/model", 1, &m->sm_count);
    if (!s) s = get_num(l, o, "lambda", "/model", &m->lambda);
    if (!s && !(m->lambda >= 0)) return bad(l, sub(p, "/model", "lambda"), "expected lambda >= 0, got %g", m->lambda);
    if (!s) s = get_num(l, o, "noise", "/model", &m->noise);
    if (!s && !(m->noise >= 0)) return bad(l, sub(p, "/model", "noise"), "expected noise >= 0, got %g", m->noise);
    if (!s) s = get_names(l, o, "lead", "/model", leads, GDT__LEAD_RULES, &lead);
    m->lead = s ? GDT__LEAD_RATIO : (gdt__lead_rule)lead;
    if (!s) s = get_nums(l, o, "center", "/model", m->center, m->nfeatures);
    if (!s) s = get_nums(l, o, "shared", "/model", m->shared, m->nfeatures);
    if (!s) s = read_ratio(l, o, "/model", m);
    bool cv_present;
    if (!s) s = read_interval(l, o, "/model", &m->interval);
    if (!s) s = read_figures(l, o, "cv", "/model", false, &m->cv, &cv_present);
    if (!s) s = read_figures(l, o, "validation", "/model", true, &t->validation, &t->has_validation);
    if (!s) s = read_model_plans(l, o, "/model", m);
    for (int i = 0; !s && i < t->np; i++) /* distances are measured to the swept cells */
        if (!gdt__predictor_anchor(m, &t->p[i].facts))
            s = gdt_error_set(l->e, GDT_STATUS_NO_MEMORY, "%s: out of memory", l->file);
    t->have_model = !s;
    return s;
}

/* ------------------------------------------------------------ whole files */

static gdt_status read_header(const ld *l, const cJSON *root, table_kind k, gdt_provenance *prov)
{
    static const char *const tuning_keys[] = {"schema", "family", "arch", "provenance", "cells"};
    static const char *const placement_keys[] = {"schema", "family", "arch", "provenance", "cells",
                                                 "shards", "model"};
    const char *schema, *fam, *arch;
    const cJSON *pv;
    gdt_status s = get_str(l, root, "schema", "", &schema);
    if (s) return s;
    if (strcmp(schema, kind_schema(k)))
        return bad(l, "/schema", "expected \"%s\", got \"%s\"%s", kind_schema(k), schema, other_version(schema));
    if ((s = get_str(l, root, "family", "", &fam))) return s;
    if (strcmp(fam, gdt_family_name(l->family)))
        return bad(l, "/family", "expected \"%s\", got \"%s\"", gdt_family_name(l->family), fam);
    if ((s = get_str(l, root, "arch", "", &arch))) return s;
    char want[16];
    snprintf(want, sizeof want, "sm%d", l->arch);
    if (strcmp(arch, want)) return bad(l, "/arch", "expected \"%s\", got \"%s\"", want, arch);
    s = k == KIND_TUNING ? CHECK_KEYS(l, root, tuning_keys, "")
                         : CHECK_KEYS(l, root, placement_keys, "");
    if (!s) s = get_node(l, root, "provenance", "", &pv);
    if (!s) s = read_provenance(l, pv, "/provenance", prov);
    return s;
}


/* A table's "cells": each read by one into an array of size-byte cells
 * (*out, set before the first is read so that a failure frees what was
 * read; *count the cells begun), sorted by key, a key twice refused. */
typedef gdt_status (*cell_reader)(const ld *l, const cJSON *o, const char *jp, void *cell);

static gdt_status read_cells(const ld *l, const cJSON *root, size_t size, cell_reader one, void **out,
                             int *count)
{
    const cJSON *a;
    int n = 0;
    jpath p;
    gdt_status s = get_array(l, root, "cells", "", &a, &n);
    if (s) return s;
    char *cells = calloc((size_t)(n ? n : 1), size);
    if (!(*out = cells))
        return gdt_error_set(l->e, GDT_STATUS_NO_MEMORY, "%s: out of memory", l->file);
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        *count = i + 1;
        if ((s = one(l, x, at(p, "/cells", i), cells + (size_t)i * size))) return s;
    }
    qsort(cells, (size_t)*count, size, key_cmp);
    for (i = 1; i < *count; i++)
        if (!strcmp(cells + (size_t)(i - 1) * size, cells + (size_t)i * size))
            return bad(l, "/cells", "cell \"%s\" appears twice", cells + (size_t)i * size);
    return GDT_STATUS_OK;
}

static gdt_status tuning_cell(const ld *l, const cJSON *o, const char *jp, void *c)
{
    return read_tuning_cell(l, o, jp, c);
}

static gdt_status placement_cell(const ld *l, const cJSON *o, const char *jp, void *c)
{
    return read_placement_cell(l, o, jp, c);
}

static gdt_status read_tuning(const ld *l, const cJSON *root, gdt_tables *t)
{
    void *cells = NULL;
    gdt_status s = read_cells(l, root, sizeof *t->t, tuning_cell, &cells, &t->nt);
    t->t = cells;
    return s;
}

static gdt_status read_placement(const ld *l, const cJSON *root, gdt_tables *t)
{
    const cJSON *a;
    int n = 0;
    jpath p;
    void *cells = NULL;
    gdt_status s = read_cells(l, root, sizeof *t->p, placement_cell, &cells, &t->np);
    t->p = cells;
    if (s) return s;
    if ((s = get_array(l, root, "shards", "", &a, &n))) return s;
    if (!(t->s = calloc((size_t)(n ? n : 1), sizeof *t->s)))
        return gdt_error_set(l->e, GDT_STATUS_NO_MEMORY, "%s: out of memory", l->file);
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++, t->ns = i)
        if ((s = read_shard(l, x, at(p, "/shards", i), t, &t->s[i]))) return s;
    return read_model(l, root, t);
}

/* `tables check`: the file says what it is; each claim is then checked
 * as strictly as a load checks it. */
static gdt_status self_describe(ld *l, const cJSON *root, table_kind *kind)
{
    const char *schema, *fam, *arch;
    gdt_error pe;
    gdt_error_clear(&pe);
    gdt_status s = get_str(l, root, "schema", "", &schema);
    if (s) return s;
    if (!strcmp(schema, GDT_TABLE_SCHEMA_TUNING)) *kind = KIND_TUNING;
    else if (!strcmp(schema, GDT_TABLE_SCHEMA_PLACEMENT)) *kind = KIND_PLACEMENT;
    else return bad(l, "/schema", "expected \"%s\" or \"%s\", got \"%s\"%s", GDT_TABLE_SCHEMA_TUNING,
                    GDT_TABLE_SCHEMA_PLACEMENT, schema, other_version(schema));
    if ((s = get_str(l, root, "family", "", &fam))) return s;
    if (gdt_family_parse(fam, &l->family, &pe)) return bad(l, "/family", "%s", pe.msg);
    if ((s = get_str(l, root, "arch", "", &arch))) return s;
    if (gdt_arch_parse(arch, &l->arch, &pe)) return bad(l, "/arch", "%s", pe.msg);
    return GDT_STATUS_OK;
}

/* Reads one file's text into t.  family < 0: the file says (tables check). */
static gdt_status load_text(const char *path, const char *text, size_t len, int family, int arch,
                            table_kind *kind, gdt_tables *t, gdt_error *e)
{
    cJSON *root = NULL;
    gdt_provenance prov;
    ld l = {path, (gdt_family)(family < 0 ? 0 : family), arch, e};
    gdt_status s = gdt_json_parse(text, len, path, &root, e);
    if (!s && family < 0) s = self_describe(&l, root, kind);
    if (!s) s = read_header(&l, root, *kind, &prov);
    if (!s && t->have_prov && memcmp(&prov, &t->prov, sizeof prov))
        s = bad(&l, "/provenance", "expected the provenance of its pair (one sweep writes both "
                                   "files), got a different one");
    if (!s) {
        t->prov = prov;
        t->have_prov = true;
        t->family = l.family;
        t->arch = l.arch;
        s = *kind == KIND_TUNING ? read_tuning(&l, root, t) : read_placement(&l, root, t);
    }
    cJSON_Delete(root);
    return s;
}

static gdt_status load_one(const char *path, int family, int arch, table_kind *kind, gdt_tables *t,
                           gdt_error *e)
{
    char *text = NULL;
    size_t len = 0;
    gdt_status s = gdt_file_read(path, &text, &len, e);
    if (!s) s = load_text(path, text, len, family, arch, kind, t, e);
    free(text);
    return s;
}

/* Both files describe the same cells. */
static gdt_status check_pair(const gdt_tables *t, const char *tuning, const char *placement,
                             gdt_error *e)
{
    for (int i = 0, j = 0; i < t->nt || j < t->np; i++, j++) {
        int c = i >= t->nt ? 1 : j >= t->np ? -1 : strcmp(t->t[i].key, t->p[j].key);
        if (c < 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cells: cell \"%s\" is in %s but not here",
                                 placement, t->t[i].key, tuning);
        if (c > 0)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cells: cell \"%s\" is in %s but not here",
                                 tuning, t->p[j].key, placement);
    }
    return GDT_STATUS_OK;
}

/* Both files of a pair into one gdt_tables.  family < 0: the tuning file
 * says which family and arch (as `tables check` reads it), and the
 * placement file must say the same. */
static gdt_status load_pair(const char *tp, const char *pp, int family, int arch, gdt_tables **out,
                            gdt_error *e)
{
    gdt_tables *t = calloc(1, sizeof *t);
    if (!t) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_tables_load: out of memory");
    table_kind kt = KIND_TUNING, kp = KIND_PLACEMENT;
    gdt_status s = load_one(tp, family, arch, &kt, t, e);
    if (!s && kt != KIND_TUNING)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /schema: expected \"%s\", got \"%s\"", tp,
                          GDT_TABLE_SCHEMA_TUNING, GDT_TABLE_SCHEMA_PLACEMENT);
    if (!s) s = load_one(pp, (int)t->family, t->arch, &kp, t, e);
    if (!s) s = check_pair(t, tp, pp, e);
    if (s) {
        gdt_tables_destroy(t);
        return s;
    }
    *out = t;
    return GDT_STATUS_OK;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static bool has_tables(const char *dir, gdt_family f, int arch)
{
    char path[4096];
    struct stat st;
    int k = snprintf(path, sizeof path, "%s/sm%d/%s.placement.json", dir, arch, gdt_family_name(f));
    return dir[0] && k > 0 && (size_t)k < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

typedef struct search_state {
    gdt_family f;
    int arch;
    const gdt_tables_search *how;
    char *dir;
    size_t n;
} search_state;

/* One place of the search: its tables when they load; a place whose
 * tables are refused is passed over with a warning, so that a broken
 * ./tables does not hide the installed ones.  dir gets the place's
 * absolute path (what a report shows must name it wherever it is read). */
static bool try_place(void *ctx, const char *place, const char *origin)
{
    search_state *st = ctx;
    char abs[PATH_MAX];
    gdt_tables *t = NULL;
    gdt_error e;
    (void)origin;
    gdt_error_clear(&e);
    if (!has_tables(place, st->f, st->arch)) return false;
    if (gdt_tables_load(place, st->f, st->arch, &t, &e) != GDT_STATUS_OK) {
        if (st->how && st->how->warn) st->how->warn(st->how->ctx, e.msg);
        return false;
    }
    const char *name = realpath(place, abs) ? abs : place;
    if (strlen(name) >= st->n) {
        gdt_tables_destroy(t);
        return false;
    }
    if (st->how && st->how->out) *st->how->out = t;
    else gdt_tables_destroy(t);
    memcpy(st->dir, name, strlen(name) + 1);
    return true;
}

bool gdt_tables_search_path(gdt_family f, int arch, const gdt_tables_search *how, char *dir, size_t n)
{
    if (how && how->out) *how->out = NULL;
    search_state st = {.f = f, .arch = arch, .how = how, .dir = dir, .n = n};
    return gdt_tables_search_places(try_place, &st);
}

bool gdt_tables_find(gdt_family f, int arch, char *dir, size_t n)
{
    return gdt_tables_search_path(f, arch, NULL, dir, n);
}

gdt_status gdt_tables_load(const char *dir, gdt_family f, int arch, gdt_tables **out, gdt_error *e)
{
    *out = NULL;
    if (!dir || (unsigned)f >= GDT_FAMILY_COUNT)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_tables_load: missing argument");
    char folder[4096], tp[4200], pp[4200];
    snprintf(folder, sizeof folder, "%s/sm%d", dir, arch);
    gdt_status s = gdt__pair_resolve(folder, f, tp, pp, sizeof tp, e);
    if (s) return s;
    bool ht = exists(tp), hp = exists(pp);
    if (!ht && !hp)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "no tables for %s on sm%d: %s and %s are absent",
                             gdt_family_name(f), arch, tp, pp);
    if (!ht || !hp)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: missing (its pair %s exists; one sweep "
                             "writes both)", ht ? pp : tp, ht ? tp : pp);
    return load_pair(tp, pp, (int)f, arch, out, e);
}

gdt_status gdt_tables_load_files(const char *tuning, const char *placement, gdt_tables **out,
                                 gdt_error *e)
{
    *out = NULL;
    if (!tuning || !placement)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_tables_load_files: missing argument");
    return load_pair(tuning, placement, -1, 0, out, e);
}

/* The writer's last word: what it is about to publish is checked by the
 * code `tables check` runs on each file, then paired as a load pairs them,
 * so that nothing written is refused when read. */
static gdt_status check_written(const char *tp, const sb *t, const char *pp, const sb *p, gdt_error *e)
{
    gdt_tables *tb = calloc(1, sizeof *tb);
    if (!tb) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables writer: out of memory");
    table_kind kt = KIND_TUNING, kp = KIND_PLACEMENT;
    gdt_error le;
    gdt_error_clear(&le);
    gdt_status s = load_text(tp, t->p, t->n, -1, 0, &kt, tb, &le);
    if (!s) s = load_text(pp, p->p, p->n, -1, 0, &kp, tb, &le);
    if (!s) s = check_pair(tb, tp, pp, &le);
    gdt_tables_destroy(tb);
    if (s) return gdt_error_set(e, s, "tables writer: nothing written, the loader would refuse it: %s", le.msg);
    return GDT_STATUS_OK;
}

gdt_status gdt_table_check_file(const char *path, gdt_error *e)
{
    if (!path) return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_table_check_file: no path");
    gdt_tables *t = calloc(1, sizeof *t);
    if (!t) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_table_check_file: out of memory");
    table_kind k = KIND_TUNING;
    gdt_status s = load_one(path, -1, 0, &k, t, e);
    gdt_tables_destroy(t);
    return s;
}

/* ================================================================ lookup */

static bool in_shard(const shard *s, double metric)
{
    return (!s->has_lo || metric >= s->lo) && (!s->has_hi || metric < s->hi);
}

bool gdt_tables_lookup(const gdt_tables *t, const gdt_facts *f, gdt_cell_decision *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->noise = NAN;
    /* Measurements of one arch say nothing about another. */
    if (!t || !f || f->family != t->family || f->device.arch != t->arch) return false;
    tcell probe;
    gdt_problem_key(&f->problem, probe.key, sizeof probe.key);
    const tcell *c = bsearch(&probe, t->t, (size_t)t->nt, sizeof *t->t, key_cmp);
    const pcell *p = c ? bsearch(probe.key, t->p, (size_t)t->np, sizeof *t->p, key_cmp) : NULL;
    if (c && p) {
        out->measured = true;
        out->lead = p->lead;
        if (p->has_ratio) out->ratio = p->ratio, out->noise = p->noise;
        out->nranked = c->nranked;
        out->ranked = c->ranked;
        out->ranked_is_backend = c->is_backend;
        out->backend_pos = c->backend_pos;
        out->fallback = c->has_fallback ? &c->fallback : NULL;
        return true;
    }
    shard_group g;
    group_of(f, &g);
    double metric = metric_of(f);
    for (int i = 0; i < t->ns; i++) {
        const shard *s = &t->s[i];
        if (!group_equal(&s->g, &g) || !in_shard(s, metric)) continue;
        out->lead = s->lead;
        if (s->has_ratio) out->ratio = s->ratio, out->noise = s->noise;
        return true;
    }
    return false;
}

const gdt_provenance *gdt_tables_provenance(const gdt_tables *t)
{
    return t && t->have_prov ? &t->prov : NULL;
}

gdt_family gdt_tables_family(const gdt_tables *t) { return t->family; }

int gdt_tables_arch(const gdt_tables *t) { return t->arch; }

int gdt_tables_ncells(const gdt_tables *t) { return t ? t->nt : 0; }

/* A load pairs the files cell by cell (check_pair), both sorted by key:
 * index i is one cell in both. */
bool gdt_tables_cell(const gdt_tables *t, int i, gdt_table_cell *out)
{
    memset(out, 0, sizeof *out);
    if (!t || i < 0 || i >= t->nt || i >= t->np) return false;
    const tcell *c = &t->t[i];
    const pcell *p = &t->p[i];
    out->key = c->key;
    out->lead = p->lead;
    out->has_ratio = p->has_ratio;
    out->ratio = p->has_ratio ? p->ratio : NAN;
    out->noise = p->has_ratio ? p->noise : NAN;
    out->nranked = c->nranked;
    out->ranked = c->measured;
    out->backend_pos = c->backend_pos;
    return true;
}

/* ========================================================== time model */

/* The swept cell nearest f in the model's features of the backend's
 * default tiles (every cell has them). */
static void nearest_cell(const gdt_tables *t, const gdt_facts *f, char *out, size_t n)
{
    static const gdt_plan_id none = {.engine_id = -1};
    const gdt_family_desc *d = gdt__family_desc(t->family);
    double x[GDT__FEATURES_MAX], y[GDT__FEATURES_MAX], best = INFINITY;
    d->features(f, &none, t->model.sm_count, x);
    out[0] = 0;
    for (int i = 0; i < t->np; i++) {
        double dist = 0;
        d->features(&t->p[i].facts, &none, t->model.sm_count, y);
        for (int j = 0; j < d->nfeatures; j++) dist += (x[j] - y[j]) * (x[j] - y[j]);
        if (dist < best) best = dist, snprintf(out, n, "%s", t->p[i].key);
    }
}

bool gdt_tables_group_swept(const gdt_tables *t, const gdt_facts *f)
{
    shard_group want, g;
    if (!t || !f || f->family != t->family) return false;
    group_of(f, &want);
    for (int i = 0; i < t->np; i++) {
        group_of(&t->p[i].facts, &g);
        if (group_equal(&g, &want)) return true;
    }
    return false;
}

const char *gdt_tables_group_field(gdt_family f, int i)
{
    const gdt_family_desc *d = (unsigned)f < GDT_FAMILY_COUNT ? gdt__family_desc(f) : NULL;
    return d && i >= 0 && i < d->ngroup_fields ? d->group_fields[i].name : NULL;
}

static bool model_for(const gdt_tables *t, const gdt_facts *f)
{
    return t && f && t->have_model && f->family == t->family && f->device.arch == t->arch;
}

static const tcell *swept_cell(const gdt_tables *t, const gdt_facts *f)
{
    tcell probe;
    gdt_problem_key(&f->problem, probe.key, sizeof probe.key);
    return bsearch(&probe, t->t, (size_t)t->nt, sizeof *t->t, key_cmp);
}

void gdt_tables_plan_time(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *id, gdt_plan_time *out)
{
    memset(out, 0, sizeof *out);
    out->time_us = out->error = NAN;
    if (!t || !f || !id || f->family != t->family || f->device.arch != t->arch) return;
    gdt_plan_id norm = *id;
    gdt_plan_id_normalize(&norm);
    const tcell *c = swept_cell(t, f);
    for (int i = 0; c && i < c->nranked; i++)
        if (gdt_plan_id_equal(&c->ranked[i], &norm)) {
            out->source = GDT_TIME_MEASURED;
            out->time_us = c->measured[i].time_us;
            out->error = c->measured[i].noise;
            return;
        }
    const gdt__pred_plan *pp = model_for(t, f) ? gdt__predictor_find(&t->model, &norm) : NULL;
    if (!pp || !gdt__predict_time(&t->model, f, &norm, &out->time_us)) {
        out->time_us = NAN;
        return;
    }
    out->source = GDT_TIME_PREDICTED;
    out->error = t->model.cv.err;
    out->ncells = pp->ncells;
    nearest_cell(t, f, out->nearest, sizeof out->nearest);
}

bool gdt_tables_predict_order(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *ids, int n,
                              int *order, bool *lead)
{
    if (!model_for(t, f) || n <= 0) return false;
    double *v = malloc((size_t)n * sizeof *v);
    int *known = malloc((size_t)n * sizeof *known), *rank = malloc((size_t)n * sizeof *rank), nk = 0, k = 0;
    bool ok = v && known && rank;
    for (int i = 0; ok && i < n; i++)
        if (gdt__predict_time(&t->model, f, &ids[i], &v[nk])) known[nk++] = i;
    ok = ok && nk > 0;
    if (ok) {
        gdt__predict_rank(v, nk, gdt__predict_rel(&t->model), rank);
        for (int i = 0; i < nk; i++) order[k++] = known[rank[i]];
        for (int i = 0, j = 0; i < n; i++) {
            if (j < nk && known[j] == i) { j++; continue; }
            order[k++] = i;
        }
        if (lead) *lead = gdt__tables_lead(t, f, &ids[order[0]], NULL);
    }
    free(v), free(known), free(rank);
    return ok;
}

/* The model's predicted time of id on f; NaN when id is NULL or unknown. */
static double predicted_us(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *id)
{
    double us;
    return id && gdt__predict_time(&t->model, f, id, &us) ? us : NAN;
}

bool gdt__tables_first(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *ours_first,
                       const gdt_plan_id *heur_first, const gdt_plan_id *block_first, gdt__first *out)
{
    memset(out, 0, sizeof *out);
    out->ranked = true, out->ratio = out->ours_margin = out->block_margin = NAN;
    if (!model_for(t, f)) return false;
    bool moved = heur_first && block_first && !gdt_plan_id_equal(heur_first, block_first);
    gdt__predict_first(&t->model, f, predicted_us(t, f, ours_first), predicted_us(t, f, heur_first),
                       predicted_us(t, f, block_first), moved, gdt__predict_rel(&t->model), out);
    return true;
}

bool gdt__tables_lead(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *ours_first,
                      const gdt_plan_id *block_first)
{
    gdt__first first;
    double us;
    if (!model_for(t, f) || !ours_first || !gdt__predict_time(&t->model, f, ours_first, &us)) return false;
    return gdt__tables_first(t, f, ours_first, block_first, block_first, &first) && first.lead;
}

bool gdt__tables_backend_block(const gdt_tables *t, const gdt_facts *f, const gdt_plan_id *heur, int nh,
                               gdt_plan_id **out, int *n)
{
    *out = NULL, *n = 0;
    if (!model_for(t, f) || nh < 0) return false;
    gdt_plan_id *v = malloc((size_t)(nh + t->model.nplans + 1) * sizeof *v);
    int k = v ? gdt__predict_block(&t->model, f, gdt__predict_rel(&t->model), heur, nh, v) : -1;
    if (k < 0) {
        free(v);
        return false;
    }
    *out = v, *n = k;
    return true;
}

bool gdt_tables_model_cv(const gdt_tables *t, gdt_model_cv *out)
{
    memset(out, 0, sizeof *out);
    if (!t || !t->have_model) return false;
    out->ncells = t->model.cv.ncells;
    out->lambda = t->model.lambda;
    out->noise = t->model.noise;
    out->median_abs_error = t->model.cv.err;
    for (int m = 0; m < 2; m++) out->geomean[m] = t->model.cv.geomean[m], out->worst[m] = t->model.cv.worst[m];
    return true;
}

/* The model's training cells from the loaded tuning cells: ours and the
 * backend's plans (as fit_model takes them), at[] their ranking indices. */
static void train_cells(const gdt_tables *t, gdt__train_cell *c, gdt_measured_plan *kept, int *at)
{
    int used = 0;
    for (int i = 0; i < t->nt; i++) {
        c[i] = (gdt__train_cell){t->p[i].facts, kept + used, 0};
        for (int k = 0; k < t->t[i].nranked; k++)
            if (gdt_measured_side(&t->t[i].measured[k]) != GDT_PLAN_SIDE_LIBRARY) {
                at[used] = k;
                kept[used++] = t->t[i].measured[k];
                c[i].nplans++;
            }
    }
}

static const gdt_measured_plan *ranked_at(const tcell *c, const int *at, int k)
{
    return k < 0 ? NULL : &c->measured[at[k]];
}

gdt_status gdt_tables_model_picks(const gdt_tables *t, gdt_model_pick *out, double *err, gdt_error *e)
{
    if (!t || !t->have_model)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "tables: no time model (fewer than %d cells)",
                             GDT__PREDICT_MIN_CELLS);
    size_t total = 1, nc = t->nt > 0 ? (size_t)t->nt : 1;
    for (int i = 0; i < t->nt; i++) total += (size_t)t->t[i].nranked;
    gdt__train_cell *c = calloc(nc, sizeof *c);
    gdt_measured_plan *kept = calloc(total, sizeof *kept);
    int *at = calloc(total, sizeof *at);
    gdt__pred_pick *pk = calloc(nc, sizeof *pk);
    gdt_status s = c && kept && at && pk ? GDT_STATUS_OK
                                         : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables: out of memory");
    if (!s) train_cells(t, c, kept, at);
    if (!s)
        s = gdt__predictor_picks(t->family, t->arch, c, t->nt, t->model.lambda, t->model.noise, t->model.lead,
                                 t->model.interval.quantile, pk, err, e);
    for (int i = 0; !s && i < t->nt; i++) {
        const int *a = at + (c[i].plans - kept);
        out[i] = (gdt_model_pick){t->t[i].key, pk[i].lead, pk[i].ratio, ranked_at(&t->t[i], a, pk[i].mode_a),
                                  ranked_at(&t->t[i], a, pk[i].ours), ranked_at(&t->t[i], a, pk[i].backend),
                                  ranked_at(&t->t[i], a, pk[i].best), ranked_at(&t->t[i], a, pk[i].best_ours),
                                  ranked_at(&t->t[i], a, pk[i].heuristic), pk[i].first.ours_margin,
                                  pk[i].first.width, pk[i].first.distance};
    }
    free(c), free(kept), free(at), free(pk);
    return s;
}

/* ============================================================ validation */

static void validation_of(const gdt__pred_cv *cv, gdt_model_validation *out)
{
    memset(out, 0, sizeof *out);
    out->ncells = cv->ncells, out->median_abs_error = cv->err, out->slower = cv->slower;
    for (int m = 0; m < 2; m++) out->geomean[m] = cv->geomean[m], out->worst[m] = cv->worst[m];
}

bool gdt_tables_model_validation(const gdt_tables *t, gdt_model_validation *out)
{
    memset(out, 0, sizeof *out);
    if (!t || !t->have_model || !t->has_validation) return false;
    validation_of(&t->validation, out);
    return true;
}

/* The cells of the table's family that it swept. */
static int swept_count(const gdt_tables *t, const gdt_measured_cell *cells, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        pcell probe;
        if (cells[i].problem.family != t->family) continue;
        gdt_problem_key(&cells[i].problem, probe.key, sizeof probe.key);
        k += bsearch(&probe, t->p, (size_t)t->np, sizeof *t->p, key_cmp) != NULL;
    }
    return k;
}

gdt_status gdt_tables_validate_file(const char *placement, const gdt_measured_cell *cells, int n,
                                    gdt_model_validation *out, gdt_model_pick *picks, gdt_error *e)
{
    memset(out, 0, sizeof *out);
    if (!placement || n < 0 || (n > 0 && !cells))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_tables_validate_file: missing argument");
    gdt_tables *t = calloc(1, sizeof *t);
    if (!t) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_tables_validate_file: out of memory");
    table_kind k = KIND_TUNING;
    gdt__pred_cv cv;
    gdt_status s = load_one(placement, -1, 0, &k, t, e);
    if (!s && k != KIND_PLACEMENT)
        s = gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: --validation: expected a placement table (its time "
                          "model), got a tuning table", placement);
    if (!s && !t->have_model)
        s = gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: no time model (fewer than %d cells)", placement,
                          GDT__PREDICT_MIN_CELLS);
    if (!s) s = score_cells(&t->model, t->family, t->arch, cells, n, &cv, picks, e);
    if (!s) validation_of(&cv, out), out->swept = swept_count(t, cells, n);
    gdt_tables_destroy(t);
    return s;
}
