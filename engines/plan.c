/* The one ranked plan list per problem (gdtune/plan.h): per mode block our
 * proposals and the backend's block around the BACKEND marker, the measured
 * order where a table covers the problem, deduplicated by (engine_id,
 * knobs), first position wins; then building walks the list. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_engines.h"
#include "gdt_predict.h"
#include "gdt_prebuild.h"
#include "gdt_tables_lookup.h"
#include "gdt_util.h"
#include "gdtune/plan.h"

static const char WHY_MEASURED[] = "measured rank";
static const char WHY_UNTIMED[] = "untimed default";
static const char WHY_BACKEND[] = "backend heuristic";
static const char WHY_FALLBACK[] = "fallback";
static const char WHY_SHARD[] = "placement shard";
static const char WHY_PREDICTED[] = "predicted time";
static const char WHY_CANDIDATE[] = "candidate row";
static const char WHY_KNOB[] = "backend knob enumeration";

struct gdt_graph {
    gdt_facts facts;
    size_t need[GDT_OPERAND_COUNT]; /* bytes each operand spans (0: not bound), for execute */
    bool planned;
    const gdt_manifest *manifest;
    bool has_backend;
    gdt_backend backend;
    gdt_plan_entry *list;
    int n, cap;
    int selected;
    bool pinned;
    bool replay;
    gdt_plan_id replay_id;
    /* the built plan */
    const gdt_engine_ops *ops;
    gdt_compiled *compiled;
    gdt_build_report last;   /* the last build attempt's */
    /* gdt_graph_prebuild's outcomes not taken yet, and the options they
     * were built with (a build with others builds again) */
    gdt__prebuilt pre;
    gdt_build_opts pre_opts;
    char *pre_cache_dir;
    bool has_first;
    gdt_first_reason first; /* why mode A's first entry is first */
};

gdt_status gdt_graph_create(const gdt_problem *p, const gdt_device_props *dev, gdt_graph **out,
                            gdt_error *e)
{
    *out = NULL;
    if (!p || !dev)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_create: %s is NULL",
                             p ? "device" : "problem");
    gdt_status s = gdt_problem_validate(p, e);
    if (s) return s;
    gdt_graph *g = calloc(1, sizeof *g);
    if (!g) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_graph_create: out of memory");
    gdt_facts_analyze(p, dev, &g->facts);
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    for (int i = 0, n = gdt_family_operands(p->family, roles, NULL); i < n; i++)
        g->need[roles[i]] = gdt_operand_bytes(p, roles[i]);
    g->manifest = gdt_manifest_default();
    *out = g;
    return GDT_STATUS_OK;
}

static void release_built(gdt_graph *g)
{
    if (g->compiled && g->ops && g->ops->destroy) g->ops->destroy(g->compiled);
    g->compiled = NULL;
    g->ops = NULL;
}

void gdt_graph_destroy(gdt_graph *g)
{
    if (!g) return;
    release_built(g);
    gdt__prebuilt_free(&g->pre);
    free(g->pre_cache_dir);
    free(g->list);
    free(g);
}

const gdt_facts *gdt_graph_facts(const gdt_graph *g) { return g ? &g->facts : NULL; }
int gdt_graph_plan_count(const gdt_graph *g) { return g ? g->n : 0; }

const gdt_plan_entry *gdt_graph_plan_at(const gdt_graph *g, int i)
{
    return (g && i >= 0 && i < g->n) ? &g->list[i] : NULL;
}

/* ------------------------------------------------------------ list growth */

/* A growable list of entries; used for the proposals and the result. */
typedef struct elist {
    gdt_plan_entry *v;
    int n, cap;
    bool oom;
} elist;

static void push(elist *l, const gdt_plan_entry *x)
{
    if (l->oom) return;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        gdt_plan_entry *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            l->oom = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *x;
}

static void push_ours(elist *l, const gdt_plan_id *id, gdt_mode m, const char *why)
{
    gdt_plan_entry x = {.id = *id, .mode = m, .why = why};
    push(l, &x);
}

static bool same_entry(const gdt_plan_entry *a, const gdt_plan_entry *b)
{
    if (a->is_marker || b->is_marker) return a->is_marker && b->is_marker && a->mode == b->mode;
    return gdt_plan_id_equal(&a->id, &b->id);
}

/* ------------------------------------------------------------ proposals */

/* What planning needs beyond the graph: options resolved to defaults, the
 * rows (owned when we loaded the default), our proposals in row order. */
typedef struct planning {
    const gdt_plan_options *opts;
    const gdt_row_table *rows;
    gdt_row_table *owned_rows;
    elist ours;
    int conservative; /* index into ours, -1 when none */
    bool marker_done[GDT_MODE_COUNT]; /* a second block of a mode repeats only duplicates */
    /* The backend's block per mode, asked once (planning and enumeration
     * both need mode A); answered[m] false when it could not be listed. */
    elist backend[GDT_MODE_COUNT];
    bool asked[GDT_MODE_COUNT], answered[GDT_MODE_COUNT];
    elist library;                     /* library slots' heuristic entries, slot after slot */
    const gdt_cell_decision *measured; /* the table's decision while it is being pushed */
    bool has_first;                    /* mode A's first block was pushed: first says why */
    gdt_first_reason first;
} planning;

/* "what: why" to the caller's warn hook, when it has one. */
static void warn(const planning *pl, const char *what, const char *why)
{
    char msg[GDT_ERROR_MAX + 64];
    if (!pl->opts->warn) return;
    snprintf(msg, sizeof msg, "%s: %s", what, why);
    pl->opts->warn(pl->opts->warn_ctx, msg);
}

static gdt_status slot_rows(planning *pl, const gdt_engine_slot *s, const gdt_facts *f,
                            gdt_error *e)
{
    if (!pl->rows) {
        gdt_status st = gdt_rows_load_default(&pl->owned_rows, e);
        if (st) return st;
        pl->rows = pl->owned_rows;
    }
    gdt_candidate *c = NULL;
    int n = 0;
    gdt_status st = gdt_candidates_materialize(pl->rows, s, f, &c, &n, e);
    if (st) return st;
    for (int i = 0; i < n; i++) {
        if (c[i].rejected || c[i].duplicate_of_earlier) continue;
        gdt_plan_id id = c[i].id;
        id.engine_id = gdt_engine_id(s->family, s->slot);
        push_ours(&pl->ours, &id, GDT_MODE_A, WHY_UNTIMED);
    }
    free(c);
    return GDT_STATUS_OK;
}

/* The surviving candidate asking least of the device: smallest tile area
 * (gdt__plan_tile_area), ties by row order (a plan without tile knobs asks
 * an unknown amount). */
static int most_conservative(const elist *ours)
{
    int best = -1;
    for (int i = 0; i < ours->n; i++)
        if (best < 0 || gdt__plan_tile_area(&ours->v[i].id) < gdt__plan_tile_area(&ours->v[best].id))
            best = i;
    return best;
}

/* ------------------------------------------------------ library slots */

/* A library slot (gdt__library_of: cuBLASLt) proposes what its library's
 * heuristic lists on the device.  Its block follows the backend's in each
 * mode, taking this many entries per slot (-1: all): A and B all of them,
 * FALLBACK the heuristic's first, OPENSOURCE none (our own kernels only).
 * A measured cell ranks the entries it measured where it measured them. */
static const int library_take[GDT_MODE_COUNT] = {-1, -1, 1, 0};

static void library_list(planning *pl, const gdt_engine_slot *s, const gdt_graph *g)
{
    gdt_plan_entry *v = NULL;
    int n = 0;
    gdt_error e;
    gdt_error_clear(&e);
    if (gdt__library_of(s)->list(s, &g->facts, &v, &n, &e) == GDT_STATUS_OK)
        for (int i = 0; i < n; i++) push(&pl->library, &v[i]);
    else
        warn(pl, s->name, e.msg);
    free(v);
}

static bool measured_here(const gdt_cell_decision *d, const gdt_plan_id *id)
{
    for (int i = 0; d && i < d->nranked; i++)
        if (!d->ranked_is_backend[i] && gdt_plan_id_equal(&d->ranked[i], id)) return true;
    return false;
}

static void push_library(elist *out, const planning *pl, gdt_mode m)
{
    int taken = 0;
    for (int i = 0; i < pl->library.n; i++) {
        gdt_plan_entry x = pl->library.v[i];
        if (i && x.id.engine_id != pl->library.v[i - 1].id.engine_id) taken = 0;
        if ((library_take[m] >= 0 && taken >= library_take[m]) || measured_here(pl->measured, &x.id))
            continue;
        taken++;
        x.mode = m;
        push(out, &x);
    }
}

/* Sweeps: each library slot's enumerated configs, knob_cap per algorithm. */
static void push_library_configs(elist *out, const gdt_graph *g, planning *pl)
{
    const gdt_manifest *m = g->manifest;
    for (int i = 0; pl->opts->knob_cap > 0 && i < m->nslots; i++) {
        const gdt_engine_slot *s = &m->slots[i];
        gdt_plan_entry *v = NULL;
        int n = 0;
        gdt_error e;
        gdt_error_clear(&e);
        if (!gdt__library_of(s) || !gdt__library_of(s)->enumerate || s->family != g->facts.family ||
            !gdt_slot_offered(m, s, &g->facts, NULL, 0))
            continue;
        if (gdt__library_of(s)->enumerate(s, &g->facts, pl->opts->knob_cap, &v, &n, &e) == GDT_STATUS_OK)
            for (int k = 0; k < n; k++) push(out, &v[k]);
        else
            warn(pl, s->name, e.msg);
        free(v);
    }
}

static gdt_status gather_ours(planning *pl, const gdt_graph *g, gdt_error *e)
{
    const gdt_manifest *m = g->manifest;
    for (int i = 0; i < m->nslots; i++) {
        const gdt_engine_slot *s = &m->slots[i];
        if (s->family != g->facts.family || !gdt_slot_offered(m, s, &g->facts, NULL, 0)) continue;
        if (gdt__library_of(s)) {
            library_list(pl, s, g);
        } else if (gdt__slot_rows(s)) {
            gdt_status st = slot_rows(pl, s, &g->facts, e);
            if (st) return st;
        } else if (s->ops && s->ops->fixed_plans) {
            gdt_plan_id ids[GDT_FIXED_PLANS_MAX];
            int n = s->ops->fixed_plans(s, &g->facts, ids, GDT_FIXED_PLANS_MAX);
            for (int k = 0; k < n; k++)
                push_ours(&pl->ours, &ids[k], GDT_MODE_A, WHY_UNTIMED);
        } else {
            gdt_plan_id id = {.engine_id = gdt_engine_id(s->family, s->slot)};
            push_ours(&pl->ours, &id, GDT_MODE_A, WHY_UNTIMED);
        }
    }
    if (pl->ours.oom || pl->library.oom)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_graph_plan: out of memory");
    pl->conservative = most_conservative(&pl->ours);
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ mode blocks */

/* The backend's entries for mode m (NULL when there is no backend or it
 * could not list them: the caller keeps the marker). */
static const elist *backend_block(const gdt_graph *g, planning *pl, gdt_mode m)
{
    if (!pl->asked[m] && g->has_backend && g->backend.list) {
        gdt_plan_entry *v = NULL;
        int n = 0;
        gdt_error e;
        gdt_error_clear(&e);
        if (g->backend.list(g->backend.ctx, &g->facts, m, &v, &n, &e) == GDT_STATUS_OK) {
            for (int i = 0; i < n; i++) {
                v[i].is_backend = true;
                v[i].is_marker = false;
                v[i].mode = m;
                v[i].why = WHY_BACKEND;
                push(&pl->backend[m], &v[i]);
            }
            pl->answered[m] = true;
        } else {
            char what[32];
            snprintf(what, sizeof what, "backend mode %s", gdt_mode_name(m));
            warn(pl, what, e.msg);
        }
        free(v);
    }
    pl->asked[m] = true;
    return pl->answered[m] ? &pl->backend[m] : NULL;
}

static void push_list(elist *out, const elist *x)
{
    for (int i = 0; i < x->n; i++) push(out, &x->v[i]);
}

/* The marker stands for the backend's block of one mode; it expands to the
 * backend's entries when there is a backend that answers.  The library
 * slots' block follows it, expanded or not. */
static void push_marker(elist *out, const gdt_graph *g, planning *pl, gdt_mode m)
{
    if (pl->marker_done[m]) return;
    pl->marker_done[m] = true;
    const elist *b = backend_block(g, pl, m);
    if (b) {
        push_list(out, b);
    } else {
        gdt_plan_entry x = {.id = {.engine_id = -1}, .is_marker = true, .mode = m, .why = WHY_BACKEND};
        push(out, &x);
    }
    push_library(out, pl, m);
}

static void push_all_ours(elist *out, const planning *pl, gdt_mode m, const char *why)
{
    for (int i = 0; i < pl->ours.n; i++) push_ours(out, &pl->ours.v[i].id, m, why);
}

/* A plan the table measured is kept only while its slot is still offered
 * for this problem (the tables may be older than the manifest). */
static bool still_offered(const gdt_graph *g, const gdt_plan_id *id)
{
    const gdt_engine_slot *s = gdt_manifest_find(g->manifest, id->engine_id);
    return s && s->family == g->facts.family && gdt_slot_offered(g->manifest, s, &g->facts, NULL, 0);
}

static void push_measured(elist *out, const gdt_graph *g, planning *pl,
                          const gdt_cell_decision *d)
{
    pl->measured = d;
    for (int i = 0; i <= d->nranked; i++) {
        if (i == d->backend_pos) push_marker(out, g, pl, GDT_MODE_A);
        if (i == d->nranked) break;
        if (!d->ranked_is_backend[i] && !still_offered(g, &d->ranked[i])) continue;
        gdt_plan_entry x = {.id = d->ranked[i], .is_backend = d->ranked_is_backend[i],
                            .mode = GDT_MODE_A, .why = WHY_MEASURED};
        push(out, &x);
    }
    push_all_ours(out, pl, GDT_MODE_A, WHY_UNTIMED); /* those not measured; dedupe drops the rest */
    pl->measured = NULL;
}

/* Ours in the time model's order (then those it does not know, in row
 * order).  false when the tables hold no model that knows any of ours. */
static bool push_predicted(elist *out, const planning *pl, const gdt_graph *g, gdt_mode m)
{
    int n = pl->ours.n, *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    gdt_plan_id *ids = malloc((size_t)(n ? n : 1) * sizeof *ids);
    bool ok = order && ids;
    for (int i = 0; ok && i < n; i++) ids[i] = pl->ours.v[i].id;
    ok = ok && gdt_tables_predict_order(pl->opts->tables, &g->facts, ids, n, order, NULL);
    for (int i = 0; ok && i < n; i++) push_ours(out, &ids[order[i]], m, WHY_PREDICTED);
    free(order);
    free(ids);
    return ok;
}

/* The entry of the backend's block for id: the heuristic's own where it
 * listed it, else a config the model knows. */
static gdt_plan_entry block_entry(const elist *b, const gdt_plan_id *id)
{
    for (int i = 0; i < b->n; i++)
        if (gdt_plan_id_equal(&b->v[i].id, id)) return b->v[i];
    return (gdt_plan_entry){.id = *id, .is_backend = true, .mode = GDT_MODE_A, .why = WHY_PREDICTED};
}

/* Puts the backend's mode-A block in the model's order, in place, so that
 * the marker expands to it; *heur receives the heuristic's own order
 * (empty when nothing was ranked). */
static void rank_backend(const gdt_graph *g, planning *pl, elist *heur_order)
{
    elist *b = &pl->backend[GDT_MODE_A], ranked = {0};
    gdt_plan_id *heur = NULL, *ids = NULL;
    int n = 0;
    *heur_order = (elist){0};
    if (!backend_block(g, pl, GDT_MODE_A)) return;
    heur = malloc((size_t)(b->n ? b->n : 1) * sizeof *heur);
    for (int i = 0; heur && i < b->n; i++) heur[i] = b->v[i].id;
    if (heur && gdt__tables_backend_block(pl->opts->tables, &g->facts, heur, b->n, &ids, &n)) {
        for (int i = 0; i < n; i++) {
            gdt_plan_entry x = block_entry(b, &ids[i]);
            push(&ranked, &x);
        }
        *heur_order = *b;
        *b = ranked;
    }
    if (!heur) b->oom = true;
    free(heur);
    free(ids);
}

/* The reason the model gives for the first place (gdt_first_reason). */
static void note_first(planning *pl, const gdt__first *d, bool heuristic_stands)
{
    if (pl->has_first) return;
    double m = d->lead ? d->ours_margin : !heuristic_stands ? d->block_margin
               : isnan(d->block_margin) || d->ours_margin > d->block_margin ? d->ours_margin : d->block_margin;
    pl->has_first = true;
    pl->first = (gdt_first_reason){.source = heuristic_stands ? GDT_FIRST_HEURISTIC : GDT_FIRST_PREDICTED,
                                   .ours = d->lead, .lead = isnan(m) ? NAN : expm1(m),
                                   .width = expm1(d->width), .distance = d->distance};
}

/* Mode A's first block says why its first entry is first (once). */
static void set_first(planning *pl, gdt_first_source source)
{
    if (pl->has_first) return;
    pl->has_first = true;
    pl->first = (gdt_first_reason){.source = source, .lead = NAN, .width = INFINITY, .distance = NAN};
}

/* Mode A for a shape no cell covers, by the time model: the backend's
 * block in the model's order, first unless the model's lead rule puts our
 * first plan ahead of it; either goes ahead of the backend heuristic's own
 * first plan only when predicted faster beyond the model's interval at
 * the shape's distance from the swept cells (gdt__predict_first), else the
 * heuristic's order stands. */
static bool push_model(elist *out, const gdt_graph *g, planning *pl)
{
    elist ours = {0}, heur = {0};
    if (!push_predicted(&ours, pl, g, GDT_MODE_A)) {
        free(ours.v);
        return false;
    }
    rank_backend(g, pl, &heur);
    elist *b = backend_block(g, pl, GDT_MODE_A) ? &pl->backend[GDT_MODE_A] : NULL;
    const elist *h = heur.n > 0 ? &heur : b;
    gdt__first d;
    gdt__tables_first(pl->opts->tables, &g->facts, ours.n > 0 ? &ours.v[0].id : NULL,
                      h && h->n > 0 ? &h->v[0].id : NULL, b && b->n > 0 ? &b->v[0].id : NULL, &d);
    if (!d.ranked && heur.n > 0) { /* the heuristic's order stands */
        free(b->v);
        *b = heur, heur = (elist){0};
    }
    note_first(pl, &d, !d.lead && (!d.ranked || !b || b->n == 0 || gdt_plan_id_equal(&b->v[0].id, &h->v[0].id)));
    if (!d.lead) push_marker(out, g, pl, GDT_MODE_A);
    push_list(out, &ours);
    if (d.lead) push_marker(out, g, pl, GDT_MODE_A);
    if (ours.oom) out->oom = true;
    free(ours.v);
    free(heur.v);
    return true;
}

/* Mode A with a table: the measured order for a swept cell; elsewhere the
 * time model's order and placement, or, without a model, the shard's
 * decision places the backend's block. */
static bool push_tabled(elist *out, const gdt_graph *g, planning *pl)
{
    gdt_cell_decision d;
    if (!pl->opts->tables) return false;
    bool covered = gdt_tables_lookup(pl->opts->tables, &g->facts, &d);
    if (covered && d.measured) {
        set_first(pl, GDT_FIRST_MEASURED);
        push_measured(out, g, pl, &d);
        return true;
    }
    if (push_model(out, g, pl)) return true;
    if (!covered) return false;
    set_first(pl, GDT_FIRST_SHARD);
    if (!d.lead) push_marker(out, g, pl, GDT_MODE_A);
    push_all_ours(out, pl, GDT_MODE_A, WHY_SHARD);
    if (d.lead) push_marker(out, g, pl, GDT_MODE_A);
    return true;
}

/* The backend is the historical implementation: a cell nobody timed keeps
 * it first. */
static void push_untimed(elist *out, const gdt_graph *g, planning *pl, gdt_mode m)
{
    push_marker(out, g, pl, m);
    push_all_ours(out, pl, m, WHY_UNTIMED);
}

/* Ours alone: the measured order of ours in a swept cell, the time
 * model's order elsewhere, else the untimed order.  A library's measured
 * plans are not ours. */
static void push_opensource(elist *out, const gdt_graph *g, planning *pl)
{
    gdt_cell_decision d;
    if (pl->opts->tables && gdt_tables_lookup(pl->opts->tables, &g->facts, &d) && d.measured) {
        for (int i = 0; i < d.nranked; i++)
            if (!d.ranked_is_backend[i] && still_offered(g, &d.ranked[i]) &&
                gdt_engine_side(g->manifest, d.ranked[i].engine_id) == GDT_PLAN_SIDE_OURS)
                push_ours(out, &d.ranked[i], GDT_MODE_OPENSOURCE, WHY_MEASURED);
    } else if (pl->opts->tables && push_predicted(out, pl, g, GDT_MODE_OPENSOURCE)) {
        return;
    }
    push_all_ours(out, pl, GDT_MODE_OPENSOURCE, WHY_UNTIMED); /* dedupe drops those listed */
}

static void push_block(elist *out, const gdt_graph *g, planning *pl, gdt_mode m)
{
    switch (m) {
    case GDT_MODE_A:
        if (push_tabled(out, g, pl)) return;
        set_first(pl, GDT_FIRST_UNTIMED);
        push_untimed(out, g, pl, m);
        return;
    case GDT_MODE_B:
        push_untimed(out, g, pl, m);
        return;
    case GDT_MODE_FALLBACK:
        if (pl->conservative >= 0)
            push_ours(out, &pl->ours.v[pl->conservative].id, m, WHY_FALLBACK);
        push_marker(out, g, pl, m);
        return;
    case GDT_MODE_OPENSOURCE:
    default:
        push_opensource(out, g, pl);
        return;
    }
}

/* First position wins. */
static void dedupe(elist *l)
{
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        int j = 0;
        while (j < k && !same_entry(&l->v[j], &l->v[i])) j++;
        if (j == k) l->v[k++] = l->v[i];
    }
    l->n = k;
}

static gdt_status check_modes(const gdt_plan_options *o, gdt_error *e)
{
    if (o->nmodes < 0 || o->nmodes > GDT_MODE_COUNT)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_plan: nmodes: expected 0..%d, got %d",
                             GDT_MODE_COUNT, o->nmodes);
    for (int i = 0; i < o->nmodes; i++)
        if ((unsigned)o->modes[i] >= GDT_MODE_COUNT)
            return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_plan: modes[%d]: unknown mode %d",
                                 i, (int)o->modes[i]);
    return GDT_STATUS_OK;
}

/* What gdt_graph_plan and gdt_graph_enumerate share before assembling: the
 * one-shot check, the options, our proposals. */
static gdt_status begin(gdt_graph *g, const gdt_plan_options *opts, const char *fn, planning *pl,
                        gdt_error *e)
{
    if (!g) return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: graph is NULL", fn);
    if (g->planned)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                             "%s: this graph is already planned (planning is one-shot)", fn);
    g->planned = true;
    if (opts->manifest) g->manifest = opts->manifest;
    if (opts->backend) g->backend = *opts->backend, g->has_backend = true;
    *pl = (planning){.opts = opts, .rows = opts->rows, .conservative = -1};
    return gather_ours(pl, g, e);
}

/* Hands out to the graph (or frees it on failure) and releases planning. */
static gdt_status finish(gdt_graph *g, planning *pl, elist *out, gdt_status s, gdt_error *e)
{
    if (!s && (out->oom || pl->ours.oom))
        s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_graph_plan: out of memory");
    for (int m = 0; m < GDT_MODE_COUNT; m++) {
        if (!s && pl->backend[m].oom)
            s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_graph_plan: out of memory");
        free(pl->backend[m].v);
    }
    free(pl->ours.v);
    free(pl->library.v);
    gdt_rows_destroy(pl->owned_rows);
    if (s) {
        free(out->v);
        return s;
    }
    g->list = out->v;
    g->n = out->n;
    g->cap = out->cap;
    g->has_first = pl->has_first;
    g->first = pl->first;
    return GDT_STATUS_OK;
}

bool gdt_graph_first_reason(const gdt_graph *g, gdt_first_reason *out)
{
    if (!g || !g->has_first) return false;
    *out = g->first;
    return true;
}

gdt_status gdt_graph_plan(gdt_graph *g, const gdt_plan_options *opts, gdt_error *e)
{
    static const gdt_plan_options none = {0};
    if (!opts) opts = &none;
    gdt_status s = check_modes(opts, e);
    if (s) return s;
    planning pl = {.opts = opts};
    elist out = {0};
    s = begin(g, opts, "gdt_graph_plan", &pl, e);
    gdt_mode only_a = GDT_MODE_A;
    const gdt_mode *modes = opts->nmodes ? opts->modes : &only_a;
    for (int i = 0; !s && i < (opts->nmodes ? opts->nmodes : 1); i++) push_block(&out, g, &pl, modes[i]);
    dedupe(&out);
    for (int i = 0; i < out.n; i++) out.v[i].untimed = -1;
    return finish(g, &pl, &out, s, e);
}

/* ---------------------------------------------------------- enumeration */

static void push_knobs(elist *out, const gdt_graph *g, planning *pl)
{
    gdt_plan_entry *v = NULL;
    int n = 0;
    gdt_error e;
    gdt_error_clear(&e);
    if (pl->opts->knob_cap <= 0 || !g->has_backend || !g->backend.enumerate) return;
    if (g->backend.enumerate(g->backend.ctx, &g->facts, pl->opts->knob_cap, &v, &n, &e) == GDT_STATUS_OK) {
        for (int i = 0; i < n; i++) {
            v[i].is_backend = true;
            v[i].is_marker = false;
            v[i].mode = GDT_MODE_COUNT;
            v[i].why = WHY_KNOB;
            push(out, &v[i]);
        }
    } else {
        warn(pl, "backend knob enumeration", e.msg);
    }
    free(v);
}

/* Each entry's position in the untimed order; plans it does not hold
 * follow it in list order. */
static void set_untimed(elist *out, const elist *untimed)
{
    for (int k = 0; k < out->n; k++) {
        int i = 0;
        while (i < untimed->n && !same_entry(&untimed->v[i], &out->v[k])) i++;
        out->v[k].untimed = i < untimed->n ? i : untimed->n + k;
    }
}

gdt_status gdt_graph_enumerate(gdt_graph *g, const gdt_plan_options *opts, gdt_error *e)
{
    static const gdt_plan_options none = {0};
    static const gdt_mode modes[] = {GDT_MODE_A, GDT_MODE_B, GDT_MODE_FALLBACK};
    if (!opts) opts = &none;
    if (opts->knob_cap < 0)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                             "gdt_graph_enumerate: knob_cap: expected 0 or more, got %d", opts->knob_cap);
    planning pl = {.opts = opts};
    elist out = {0}, untimed = {0};
    gdt_status s = begin(g, opts, "gdt_graph_enumerate", &pl, e);
    if (!s) {
        push_untimed(&untimed, g, &pl, GDT_MODE_A);
        dedupe(&untimed);
        push_all_ours(&out, &pl, GDT_MODE_A, WHY_CANDIDATE);
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            const elist *b = backend_block(g, &pl, modes[i]);
            if (b) push_list(&out, b);
        }
        push_library(&out, &pl, GDT_MODE_A);
        push_knobs(&out, g, &pl);
        push_library_configs(&out, g, &pl);
        dedupe(&out);
        set_untimed(&out, &untimed);
        if (untimed.oom) out.oom = true;
    }
    free(untimed.v);
    return finish(g, &pl, &out, s, e);
}

/* ------------------------------------------------------------- building */

gdt_status gdt_graph_select(gdt_graph *g, int i, gdt_error *e)
{
    if (!g || !g->planned)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_select: plan the graph first");
    if (i < 0 || i >= g->n)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                             "gdt_graph_select: plan index %d out of range (the list holds %d)", i, g->n);
    g->selected = i;
    g->pinned = true;
    g->replay = false;
    return GDT_STATUS_OK;
}

/* The ops and slot that build a plan: the backend's for backend ids, the
 * manifest slot's otherwise.  Backend plans have no manifest slot (NULL). */
static gdt_status resolve(const gdt_graph *g, const gdt_plan_id *id, const gdt_engine_slot **slot,
                          const gdt_engine_ops **ops, gdt_error *e)
{
    bool backend = false;
    gdt_family f;
    int sl;
    *slot = NULL;
    *ops = NULL;
    gdt_status s = gdt_engine_id_decode(id->engine_id, &backend, &f, &sl, e);
    if (s) return s;
    if (backend) {
        *ops = g->has_backend ? g->backend.ops : NULL;
        if (!*ops)
            return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                                 "engine %" PRId64 " is a backend engine and no backend is attached",
                                 id->engine_id);
        return GDT_STATUS_OK;
    }
    *slot = gdt_manifest_find(g->manifest, id->engine_id);
    if (!*slot || (*slot)->family != g->facts.family)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "engine %" PRId64 ": no %s slot in the manifest",
                             id->engine_id, gdt_family_name(g->facts.family));
    *ops = (*slot)->ops;
    if (!*ops || !(*ops)->check_support || !(*ops)->build)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "engine %s (%" PRId64 ") has no build path",
                             (*slot)->name, id->engine_id);
    return GDT_STATUS_OK;
}

gdt_status gdt_graph_replay(gdt_graph *g, const gdt_plan_id *id, gdt_error *e)
{
    if (!g || !id) return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_replay: NULL argument");
    bool backend = false;
    gdt_family f = g->facts.family;
    int sl;
    gdt_status s = gdt_engine_id_decode(id->engine_id, &backend, &f, &sl, e);
    if (s) return s;
    if (!backend && f != g->facts.family)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "gdt_graph_replay: engine %" PRId64 " belongs to family %s, the graph is %s",
                             id->engine_id, gdt_family_name(f), gdt_family_name(g->facts.family));
    g->replay = true;
    g->replay_id = *id;
    gdt_plan_id_normalize(&g->replay_id);
    g->pinned = false;
    return GDT_STATUS_OK;
}

/* check_support then build one plan into b, the graph untouched: the
 * serial build and a builder thread's (gdt_graph_prebuild) run the same
 * code, so both give the same plan, status and message.  The error names
 * the plan. */
static gdt_status attempt_build(const gdt_graph *g, const gdt_plan_id *id,
                                const gdt_build_opts *opts, gdt__built *b)
{
    const gdt_engine_slot *slot;
    char name[512];
    gdt_error why;
    gdt_error_clear(&why);
    gdt_plan_id_format(id, name, sizeof name);
    gdt_status s = resolve(g, id, &slot, &b->ops, &why);
    if (!s && b->ops->check_support) s = b->ops->check_support(slot, &g->facts, id, &why);
    if (s) return gdt_error_set(&b->err, s, "%s: declined: %s", name, why.msg);
    if (!b->ops->build)
        return gdt_error_set(&b->err, GDT_STATUS_NOT_SUPPORTED, "%s: engine has no build", name);
    s = b->ops->build(slot, &g->facts, id, opts, &b->compiled, &b->info, &why);
    if (s) return gdt_error_set(&b->err, s, "%s: build failed: %s", name, why.msg);
    return GDT_STATUS_OK;
}

static void attempt(const gdt_graph *g, const gdt_plan_id *id, const gdt_build_opts *opts,
                    gdt__built *b)
{
    double t0 = gdt_now();
    b->compiled = NULL;
    memset(&b->info, 0, sizeof b->info);
    gdt_error_clear(&b->err);
    b->status = attempt_build(g, id, opts, b);
    if (b->status) b->compiled = NULL; /* an engine that failed owns nothing it made */
    b->seconds = gdt_now() - t0;
}

/* Whether a build with opts may take what the prebuild built with the
 * graph's prebuild options. */
static bool same_opts(const gdt_graph *g, const gdt_build_opts *opts)
{
    const char *a = g->pre_cache_dir, *b = opts->cache_dir;
    return opts->compile_only == g->pre_opts.compile_only &&
           !memcmp(&opts->device, &g->pre_opts.device, sizeof opts->device) &&
           (a && b ? !strcmp(a, b) : a == b);
}

/* b into the graph as build_one's outcome: a plan replaces the built one;
 * a failure leaves it (as it always did) and reports b's message. */
static gdt_status install(gdt_graph *g, const gdt__built *b, bool prebuilt, gdt_error *e)
{
    g->last.info = b->info;
    g->last.seconds = b->seconds;
    g->last.prebuilt = prebuilt;
    if (b->status) return gdt_error_set(e, b->status, "%s", b->err.msg);
    release_built(g);
    g->ops = b->ops;
    g->compiled = b->compiled;
    return GDT_STATUS_OK;
}

/* One plan: what the prebuild kept for it, else built now. */
static gdt_status build_one(gdt_graph *g, const gdt_plan_id *id, const gdt_build_opts *opts,
                            gdt_error *e)
{
    gdt__built b;
    bool prebuilt = g->pre.n && same_opts(g, opts) && gdt__prebuilt_take(&g->pre, id, &b);
    if (!prebuilt) attempt(g, id, opts, &b);
    return install(g, &b, prebuilt, e);
}

static gdt_status build_walk(gdt_graph *g, const gdt_build_opts *opts, int *built, gdt_error *e)
{
    gdt_error last;
    gdt_error_clear(&last);
    int tried = 0;
    for (int i = g->selected; i < g->n; i++) {
        if (g->list[i].is_marker) continue;
        tried++;
        if (build_one(g, &g->list[i].id, opts, &last) == GDT_STATUS_OK) {
            *built = i;
            return GDT_STATUS_OK;
        }
    }
    return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                         "no plan built: %d of %d entries tried from index %d%s%s", tried, g->n,
                         g->selected, tried ? "; last: " : "", last.msg);
}

gdt_status gdt_graph_build(gdt_graph *g, const gdt_build_opts *opts, int *built_index, gdt_error *e)
{
    int dummy;
    if (!built_index) built_index = &dummy;
    *built_index = -1;
    if (!g || !opts) return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_build: NULL argument");
    if (g->replay) return build_one(g, &g->replay_id, opts, e);
    if (!g->planned)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_build: plan the graph first");
    if (!g->pinned) return build_walk(g, opts, built_index, e);
    const gdt_plan_entry *x = &g->list[g->selected];
    if (x->is_marker)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "pinned plan %d is the unexpanded BACKEND(%s) marker: no backend to build it",
                             g->selected, gdt_mode_name(x->mode));
    gdt_error why;
    gdt_error_clear(&why);
    gdt_status s = build_one(g, &x->id, opts, &why);
    if (s) return gdt_error_set(e, s, "pinned plan %d: %s", g->selected, why.msg);
    *built_index = g->selected;
    return GDT_STATUS_OK;
}

void gdt_graph_last_build(const gdt_graph *g, gdt_build_report *out)
{
    memset(out, 0, sizeof *out);
    if (g) *out = g->last;
}

/* ------------------------------------------------------------ prebuild */

/* Whether a plan goes to the builder threads: its engine says its build is
 * thread-safe, it is not kept already and not listed twice.  A plan that
 * does not resolve builds (and fails) when requested, as without prebuild. */
static bool prebuildable(const gdt_graph *g, const gdt_plan_id *id, const gdt__built *jobs, int n)
{
    const gdt_engine_slot *slot;
    const gdt_engine_ops *ops;
    gdt_error why;
    if (resolve(g, id, &slot, &ops, &why) || !ops->build_thread_safe) return false;
    if (gdt__prebuilt_has(&g->pre, id)) return false;
    for (int i = 0; i < n; i++)
        if (gdt_plan_id_equal(&jobs[i].id, id)) return false;
    return true;
}

/* The jobs of ids[0 .. n-1] (NULL: the graph's listed plans), malloc'd. */
static gdt_status collect(const gdt_graph *g, const gdt_plan_id *ids, int n, gdt__built **out,
                          int *njobs, gdt_error *e)
{
    int count = ids ? n : g->n, k = 0;
    gdt__built *jobs = calloc((size_t)count + 1, sizeof *jobs);
    if (!jobs) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_graph_prebuild: out of memory");
    for (int i = 0; i < count; i++) {
        if (!ids && g->list[i].is_marker) continue;
        gdt_plan_id id = ids ? ids[i] : g->list[i].id;
        gdt_plan_id_normalize(&id);
        if (prebuildable(g, &id, jobs, k)) jobs[k++].id = id;
    }
    *out = jobs;
    *njobs = k;
    return GDT_STATUS_OK;
}

/* The options every kept plan was built with: the first prebuild's. */
static gdt_status keep_opts(gdt_graph *g, const gdt_build_opts *opts, gdt_error *e)
{
    if (g->pre.n)
        return same_opts(g, opts) ? GDT_STATUS_OK
                                  : gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                                                  "gdt_graph_prebuild: build options differ from "
                                                  "those of the plans already prebuilt");
    free(g->pre_cache_dir);
    g->pre_cache_dir = opts->cache_dir ? strdup(opts->cache_dir) : NULL;
    if (opts->cache_dir && !g->pre_cache_dir)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_graph_prebuild: out of memory");
    g->pre_opts = *opts;
    g->pre_opts.cache_dir = g->pre_cache_dir;
    return GDT_STATUS_OK;
}

typedef struct build_ctx {
    const gdt_graph *g;
    const gdt_build_opts *opts;
} build_ctx;

static void build_job(void *ctx, gdt__built *b)
{
    const build_ctx *x = ctx;
    attempt(x->g, &b->id, x->opts, b);
}

/* Every job a builder ran into the graph's store (the rest build when
 * requested); *kept counts them. */
static gdt_status keep(gdt_graph *g, gdt__built *jobs, int n, int *kept, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < n; i++) {
        if (!jobs[i].done) continue;
        if (s == GDT_STATUS_OK && gdt__prebuilt_put(&g->pre, &jobs[i])) {
            (*kept)++;
            continue;
        }
        if (s == GDT_STATUS_OK) s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_graph_prebuild: out of memory");
        else gdt__built_destroy(&jobs[i]);
    }
    return s;
}

gdt_status gdt_graph_prebuild(gdt_graph *g, const gdt_plan_id *ids, int n, int threads,
                              const gdt_build_opts *opts, int *prebuilt, gdt_error *e)
{
    int dummy, used = 0, njobs = 0, device = -1;
    if (!prebuilt) prebuilt = &dummy;
    *prebuilt = 0;
    if (!g || !opts || n < 0 || (n > 0 && !ids))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_prebuild: NULL argument or n %d < 0", n);
    if (!ids && !g->planned)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_prebuild: plan the graph first");
    if (threads <= 1) return GDT_STATUS_OK; /* serial: each plan builds when requested */
    gdt__built *jobs = NULL;
    gdt_status s = collect(g, ids, n, &jobs, &njobs, e);
    if (!s && njobs) s = keep_opts(g, opts, e);
    if (!s && njobs) s = gdt__prebuild_device(&device, e);
    build_ctx x = {g, &g->pre_opts};
    gdt_error run_err;
    gdt_error_clear(&run_err);
    gdt_status rs = !s && njobs ? gdt__prebuild_run(jobs, njobs, threads, device, build_job, &x, &used, &run_err)
                                : GDT_STATUS_OK;
    if (!s) s = keep(g, jobs, njobs, prebuilt, e);
    free(jobs);
    if (!s && rs) s = gdt_error_set(e, rs, "%s", run_err.msg);
    return s;
}

size_t gdt_graph_workspace_size(const gdt_graph *g)
{
    if (!g || !g->compiled || !g->ops || !g->ops->workspace_size) return 0;
    return g->ops->workspace_size(g->compiled);
}

gdt_status gdt_graph_execute(gdt_graph *g, const gdt_operands *ops, void *workspace,
                             size_t workspace_bytes, void *stream, gdt_error *e)
{
    if (!g || !ops) return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "gdt_graph_execute: NULL argument");
    if (!g->ops || !g->compiled || !g->ops->execute)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE,
                             "gdt_graph_execute: no plan built (build without compile_only first)");
    /* The spans were computed once, at create: this is the per-call cost;
     * the full check runs only to name what is wrong. */
    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        if (g->need[r] && (!ops->ptr[r] || ops->bytes[r] < g->need[r]))
            return gdt_operands_check(&g->facts.problem, ops, e);
    size_t need = gdt_graph_workspace_size(g);
    if (workspace_bytes < need || (need && !workspace))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "gdt_graph_execute: workspace: expected %zu bytes, got %zu", need,
                             workspace ? workspace_bytes : 0);
    return g->ops->execute(g->compiled, ops, workspace, workspace_bytes, stream, e);
}
