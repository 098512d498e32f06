/* The model of `gdtune tables diff` (gdt_tables_diff.h): two loaded sets of
 * tables compared cell by cell with the tables' own noise rule. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_json.h"
#include "gdt_metric_clock.h"
#include "gdt_rank_test.h"
#include "gdt_tables_diff.h"

const char *gdt_diff_status_name(gdt_diff_status s)
{
    static const char *const names[] = {"same", "within_noise", "beyond_noise", "added", "removed"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

/* ------------------------------------------------------------ provenance */

/* The provenance fields, in the tables' order and with their names. */
typedef struct prov_field {
    const char *name;
    size_t off;
    bool is_int;
} prov_field;

#define PF_STR(f) {#f, offsetof(gdt_provenance, f), false}
#define PF_INT(f) {#f, offsetof(gdt_provenance, f), true}
static const prov_field prov_fields[] = {
    PF_STR(device_name),   PF_INT(arch),          PF_INT(driver_version), PF_INT(cuda_version),
    PF_INT(cudnn_version), PF_INT(nvrtc_version), PF_STR(gdtune_version), PF_STR(source_digest),
    PF_STR(sweep_digest),  PF_STR(candidates_digest),
};

static void prov_text(const prov_field *f, const gdt_provenance *p, char *buf, size_t n)
{
    const char *at = (const char *)p + f->off;
    if (f->is_int)
        snprintf(buf, n, "%d", *(const int *)at);
    else
        snprintf(buf, n, "%s", at);
}

static void diff_provenance(gdt_diff_set *s, const gdt_provenance *a, const gdt_provenance *b)
{
    s->nfields = 0;
    for (size_t i = 0; a && b && i < sizeof prov_fields / sizeof *prov_fields; i++) {
        gdt_diff_field *f = &s->fields[s->nfields];
        prov_text(&prov_fields[i], a, f->old_v, sizeof f->old_v);
        prov_text(&prov_fields[i], b, f->new_v, sizeof f->new_v);
        if (strcmp(f->old_v, f->new_v)) {
            f->field = prov_fields[i].name;
            s->nfields++;
        }
    }
}

/* ------------------------------------------------------------ plans */

static void plan_name(const gdt_measured_plan *p, char *buf, size_t n)
{
    if (p) gdt_plan_id_format(&p->id, buf, n);
    else snprintf(buf, n, "(none)");
}

static int find_plan(const gdt_table_cell *c, const gdt_plan_id *id)
{
    for (int i = 0; i < c->nranked; i++)
        if (gdt_plan_id_equal(&c->ranked[i].id, id)) return i;
    return -1;
}

#define ANY_SIDE (-1)

/* The measured winner: the fastest plan, ties by untimed position (the
 * ranking's order of measurement, before the noise rule keeps the untimed
 * order), of one side (a gdt_plan_side, as the placement takes it) or
 * ANY_SIDE. */
static const gdt_measured_plan *fastest(const gdt_table_cell *c, int side)
{
    const gdt_measured_plan *w = NULL;
    for (int i = 0; i < c->nranked; i++) {
        const gdt_measured_plan *p = &c->ranked[i];
        if (side != ANY_SIDE && gdt_measured_side(p) != (gdt_plan_side)side) continue;
        if (!w || p->time_us < w->time_us ||
            (p->time_us == w->time_us && p->untimed_position < w->untimed_position))
            w = p;
    }
    return w;
}

/* Two values with relative noise, compared as the tables compare times. */
static void judge(double old_v, double old_n, double new_v, double new_n, bool *beyond, double *gap)
{
    gdt_measured_plan o = {.time_us = old_v, .noise = old_n}, n = {.time_us = new_v, .noise = new_n};
    *beyond = gdt_measured_beats(&n, &o) || gdt_measured_beats(&o, &n);
    *gap = fabs(gdt_measured_gap(&n, &o));
}

static void judge_time(const gdt_measured_plan *o, const gdt_measured_plan *n, gdt_diff_time *t)
{
    t->old_us = o->time_us;
    t->new_us = n->time_us;
    t->pct = (n->time_us - o->time_us) / o->time_us * 100;
    judge(o->time_us, o->noise, n->time_us, n->noise, &t->beyond, &t->gap);
}

/* The choice moved from plan y (old) to plan x (new): compared through
 * t_x / t_y, measured on each side. */
static void pick_plans(gdt_diff_pick *k, const gdt_table_cell *oc, const gdt_measured_plan *y,
                       const gdt_table_cell *nc, const gdt_measured_plan *x)
{
    memset(k, 0, sizeof *k);
    plan_name(y, k->old_name, sizeof k->old_name);
    plan_name(x, k->new_name, sizeof k->new_name);
    k->changed = !x != !y || (x && y && !gdt_plan_id_equal(&x->id, &y->id));
    int xo = x ? find_plan(oc, &x->id) : -1, yn = y ? find_plan(nc, &y->id) : -1;
    k->beyond = k->changed;
    if (!k->changed || xo < 0 || yn < 0) return;
    const gdt_measured_plan *xold = &oc->ranked[xo], *ynew = &nc->ranked[yn];
    k->has_values = k->has_gap = k->has_ahead = true;
    k->old_ahead = gdt_measured_gap(y, xold);
    k->new_ahead = gdt_measured_gap(x, ynew);
    k->old_value = xold->time_us / y->time_us;
    k->new_value = x->time_us / ynew->time_us;
    judge(k->old_value, xold->noise + y->noise, k->new_value, x->noise + ynew->noise, &k->beyond,
          &k->gap);
}

/* How far the side a placement put first was ahead of the other side, by
 * their fastest plans in that table; false when a side has none. */
static bool decision_ahead(const gdt_table_cell *c, double *ahead)
{
    const gdt_measured_plan *o = fastest(c, GDT_PLAN_SIDE_OURS), *b = fastest(c, GDT_PLAN_SIDE_BACKEND);
    if (!o || !b) return false;
    *ahead = c->lead ? gdt_measured_gap(o, b) : gdt_measured_gap(b, o);
    return true;
}

static void pick_decision(gdt_diff_pick *k, const gdt_table_cell *oc, const gdt_table_cell *nc)
{
    memset(k, 0, sizeof *k);
    snprintf(k->old_name, sizeof k->old_name, "%s", oc->lead ? "LEAD" : "TRAIL");
    snprintf(k->new_name, sizeof k->new_name, "%s", nc->lead ? "LEAD" : "TRAIL");
    k->changed = oc->lead != nc->lead;
    k->beyond = k->changed;
    if (!oc->has_ratio || !nc->has_ratio) return;
    k->has_values = true;
    k->old_value = oc->ratio;
    k->new_value = nc->ratio;
    if (!k->changed) return;
    k->has_gap = true;
    judge(oc->ratio, oc->noise, nc->ratio, nc->noise, &k->beyond, &k->gap);
    k->has_ahead = decision_ahead(oc, &k->old_ahead) && decision_ahead(nc, &k->new_ahead);
}

/* ------------------------------------------------------------ ranking moves */

static gdt_status add_move(gdt_diff_cell *d, const gdt_measured_plan *o, int op,
                           const gdt_measured_plan *n, int np, gdt_error *e)
{
    gdt_diff_move *m = realloc(d->moves, (size_t)(d->nmoves + 1) * sizeof *m);
    if (!m) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables diff: out of memory");
    d->moves = m;
    m = &d->moves[d->nmoves++];
    memset(m, 0, sizeof *m);
    plan_name(o ? o : n, m->plan, sizeof m->plan);
    m->old_pos = op;
    m->new_pos = np;
    m->has_time = o && n;
    if (m->has_time) judge_time(o, n, &m->time);
    return GDT_STATUS_OK;
}

static gdt_status diff_moves(gdt_diff_cell *d, const gdt_table_cell *oc, const gdt_table_cell *nc,
                             gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < nc->nranked && !s; i++) {
        int j = find_plan(oc, &nc->ranked[i].id);
        if (j != i) s = add_move(d, j < 0 ? NULL : &oc->ranked[j], j, &nc->ranked[i], i, e);
    }
    for (int j = 0; j < oc->nranked && !s; j++)
        if (find_plan(nc, &oc->ranked[j].id) < 0) s = add_move(d, &oc->ranked[j], j, NULL, -1, e);
    return s;
}

/* ------------------------------------------------------------ cells */

static void best_names(gdt_diff_cell *d, int side, const gdt_table_cell *c)
{
    const gdt_measured_plan *o = fastest(c, GDT_PLAN_SIDE_OURS), *b = fastest(c, GDT_PLAN_SIDE_BACKEND);
    d->best_ours[side][0] = d->best_backend[side][0] = '\0';
    if (o) plan_name(o, d->best_ours[side], GDT_DIFF_NAME);
    if (b) plan_name(b, d->best_backend[side], GDT_DIFF_NAME);
}

static void classify(gdt_diff_cell *d)
{
    const gdt_diff_pick *k[] = {&d->decision, &d->winner, &d->first};
    bool beyond = false, any = d->winner_time_changed || d->nmoves > 0;
    for (int i = 0; i < 3; i++) {
        beyond = beyond || (k[i]->changed && k[i]->beyond);
        any = any || k[i]->changed;
    }
    d->status = beyond ? GDT_DIFF_BEYOND : any ? GDT_DIFF_WITHIN : GDT_DIFF_SAME;
}

static gdt_status diff_cell(gdt_diff_cell *d, const gdt_table_cell *oc, const gdt_table_cell *nc,
                            gdt_error *e)
{
    const gdt_measured_plan *ow = fastest(oc, ANY_SIDE), *nw = fastest(nc, ANY_SIDE);
    pick_decision(&d->decision, oc, nc);
    pick_plans(&d->winner, oc, ow, nc, nw);
    pick_plans(&d->first, oc, oc->nranked ? &oc->ranked[0] : NULL, nc,
               nc->nranked ? &nc->ranked[0] : NULL);
    d->winner_time_changed = ow && nw && ow->time_us != nw->time_us;
    if (ow && nw) judge_time(ow, nw, &d->winner_time);
    best_names(d, 0, oc);
    best_names(d, 1, nc);
    gdt_status s = diff_moves(d, oc, nc, e);
    classify(d);
    return s;
}

static gdt_diff_cell *new_cell(gdt_tables_diff *d, const char *key, const gdt_tables *t, gdt_error *e)
{
    gdt_diff_cell *c = realloc(d->cells, (size_t)(d->ncells + 1) * sizeof *c);
    if (!c) {
        gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables diff: out of memory");
        return NULL;
    }
    d->cells = c;
    c = &d->cells[d->ncells];
    memset(c, 0, sizeof *c);
    snprintf(c->key, sizeof c->key, "%s", key);
    c->family = gdt_tables_family(t);
    c->arch = gdt_tables_arch(t);
    return c;
}

/* One cell in one set only. */
static gdt_status one_side(gdt_tables_diff *d, const gdt_tables *t, int i, gdt_diff_status st,
                           gdt_error *e)
{
    gdt_table_cell c;
    gdt_tables_cell(t, i, &c);
    gdt_diff_cell *x = new_cell(d, c.key, t, e);
    if (!x) return GDT_STATUS_NO_MEMORY;
    x->status = st;
    best_names(x, st == GDT_DIFF_ADDED, &c);
    d->ncells++;
    *(st == GDT_DIFF_ADDED ? &d->added : &d->removed) += 1;
    return GDT_STATUS_OK;
}

static gdt_status both_sides(gdt_tables_diff *d, const gdt_table_cell *oc, const gdt_table_cell *nc,
                             const gdt_tables *t, gdt_error *e)
{
    gdt_diff_cell *x = new_cell(d, oc->key, t, e);
    if (!x) return GDT_STATUS_NO_MEMORY;
    gdt_status s = diff_cell(x, oc, nc, e);
    d->compared++;
    if (s || x->status == GDT_DIFF_SAME) {
        free(x->moves);
        return s;
    }
    d->ncells++;
    *(x->status == GDT_DIFF_BEYOND ? &d->beyond : &d->within) += 1;
    return GDT_STATUS_OK;
}

static gdt_status add_set(gdt_tables_diff *d, const gdt_tables *o, const gdt_tables *n, gdt_error *e)
{
    gdt_diff_set *s = realloc(d->sets, (size_t)(d->nsets + 1) * sizeof *s);
    if (!s) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables diff: out of memory");
    d->sets = s;
    s = &d->sets[d->nsets++];
    memset(s, 0, sizeof *s);
    s->family = gdt_tables_family(o ? o : n);
    s->arch = gdt_tables_arch(o ? o : n);
    s->in_old = o != NULL;
    s->in_new = n != NULL;
    diff_provenance(s, o ? gdt_tables_provenance(o) : NULL, n ? gdt_tables_provenance(n) : NULL);
    return GDT_STATUS_OK;
}

gdt_status gdt_tables_diff_add(gdt_tables_diff *d, const gdt_tables *old_t, const gdt_tables *new_t,
                               gdt_error *e)
{
    if (!old_t && !new_t) return GDT_STATUS_OK;
    gdt_status s = add_set(d, old_t, new_t, e);
    int no = gdt_tables_ncells(old_t), nn = gdt_tables_ncells(new_t);
    for (int i = 0, j = 0; !s && (i < no || j < nn);) {
        gdt_table_cell oc, nc;
        bool ho = gdt_tables_cell(old_t, i, &oc), hn = gdt_tables_cell(new_t, j, &nc);
        int c = !ho ? 1 : !hn ? -1 : strcmp(oc.key, nc.key);
        if (c < 0) s = one_side(d, old_t, i++, GDT_DIFF_REMOVED, e);
        else if (c > 0) s = one_side(d, new_t, j++, GDT_DIFF_ADDED, e);
        else s = both_sides(d, &oc, &nc, new_t, e), i++, j++;
    }
    return s;
}

int gdt_tables_diff_exit(const gdt_tables_diff *d)
{
    return d->beyond || d->added || d->removed ? 3 : 0;
}

void gdt_tables_diff_free(gdt_tables_diff *d)
{
    if (!d) return;
    for (int i = 0; i < d->ncells; i++) {
        free(d->cells[i].moves);
        free(d->cells[i].tests);
    }
    free(d->cells);
    free(d->sets);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------ --runs */

static const gdt_run_cell *run_cell(const gdt_run *r, const gdt_diff_cell *c)
{
    for (int i = 0; i < r->ncells; i++) {
        char key[GDT_DIFF_KEY];
        if (r->cells[i].spec->family != c->family) continue;
        gdt_problem_key(&r->cells[i].spec->problem, key, sizeof key);
        if (!strcmp(key, c->key)) return &r->cells[i];
    }
    return NULL;
}

/* The device-time samples of the named plan at the journal's largest
 * burst and their median clock (0: none); false when it has no verified
 * result there. */
static bool samples_of(const gdt_run_cell *c, const char *plan, const cJSON **vals, int *burst, double *mhz)
{
    for (int i = 0; c && i < c->nplans; i++) {
        char name[GDT_DIFF_NAME];
        gdt_plan_id id = c->plan[i].id;
        gdt_plan_id_normalize(&id);
        gdt_plan_id_format(&id, name, sizeof name);
        if (strcmp(name, plan) || !c->result[i].rec || c->result[i].disposition != GDT_DISP_VERIFIED)
            continue;
        const cJSON *last = gdt_result_largest_burst(c->result[i].rec);
        gdt_metric_clock mc;
        *vals = gdt_json_get(last, "device_us");
        *burst = (int)gdt_json_num_or(last, "burst", 0);
        *mhz = gdt_metric_clock_of(c->result[i].rec, &mc) ? mc.median_mhz : 0;
        return cJSON_IsArray(*vals) && cJSON_GetArraySize(*vals) > 0;
    }
    return false;
}

static double *numbers(const cJSON *a, int *n)
{
    *n = cJSON_GetArraySize(a);
    double *v = malloc((size_t)*n * sizeof *v);
    int i = 0;
    for (const cJSON *x = a->child; v && x; x = x->next) v[i++] = x->valuedouble;
    return v;
}

static gdt_status test_plan(gdt_diff_cell *d, const char *plan, const gdt_run_cell *oc,
                            const gdt_run_cell *nc, gdt_error *e)
{
    const cJSON *ov, *nv;
    gdt_diff_test t = {.u = 0};
    for (int i = 0; i < d->ntests; i++)
        if (!strcmp(d->tests[i].plan, plan)) return GDT_STATUS_OK;
    if (!samples_of(oc, plan, &ov, &t.burst_old, &t.mhz_old) ||
        !samples_of(nc, plan, &nv, &t.burst_new, &t.mhz_new))
        return GDT_STATUS_OK;
    double *a = numbers(ov, &t.n_old), *b = numbers(nv, &t.n_new);
    gdt_rank_test r;
    gdt_status s = a && b ? gdt_rank_test_mann_whitney(a, t.n_old, b, t.n_new, &r, e)
                          : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables diff: out of memory");
    free(a);
    free(b);
    gdt_diff_test *v = s ? NULL : realloc(d->tests, (size_t)(d->ntests + 1) * sizeof *v);
    if (s || !v) return s ? s : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "tables diff: out of memory");
    snprintf(t.plan, sizeof t.plan, "%s", plan);
    t.u = r.u;
    t.p = r.p;
    d->tests = v;
    d->tests[d->ntests++] = t;
    return GDT_STATUS_OK;
}

/* Every plan the cell's report names with a time on both sides. */
static gdt_status test_cell(gdt_diff_cell *d, const gdt_run_cell *oc, const gdt_run_cell *nc,
                            gdt_error *e)
{
    const char *named[] = {d->winner.old_name, d->winner.new_name, d->first.old_name,
                           d->first.new_name, d->best_ours[0], d->best_ours[1],
                           d->best_backend[0], d->best_backend[1]};
    gdt_status s = GDT_STATUS_OK;
    for (size_t i = 0; i < sizeof named / sizeof *named && !s; i++)
        if (named[i][0]) s = test_plan(d, named[i], oc, nc, e);
    for (int i = 0; i < d->nmoves && !s; i++)
        if (d->moves[i].has_time) s = test_plan(d, d->moves[i].plan, oc, nc, e);
    return s;
}

gdt_status gdt_tables_diff_runs(gdt_tables_diff *d, const gdt_run *old_r, const gdt_run *new_r,
                                gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < d->ncells && !s; i++) {
        gdt_diff_cell *c = &d->cells[i];
        if (c->status != GDT_DIFF_WITHIN && c->status != GDT_DIFF_BEYOND) continue;
        const gdt_run_cell *oc = run_cell(old_r, c), *nc = run_cell(new_r, c);
        c->tested = oc && nc;
        if (c->tested) s = test_cell(c, oc, nc, e);
    }
    return s;
}
