/* The model of `gdtune tables diff` (gdt_tables_diff.h): two loaded sets of
 * tables compared cell by cell, in cost (regret, slowdown) against the
 * noise floor and the measured noise, the plan moves by the tables' own
 * noise rule. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_metric_clock.h"
#include "gdt_plan_figures.h"
#include "gdt_rank_test.h"
#include "gdt_tables_diff.h"

const char *gdt_diff_status_name(gdt_diff_status s)
{
    static const char *const names[] = {"same", "within_noise", "beyond_noise", "added", "removed", "faster"};
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

/* ------------------------------------------------------------ costs */

const char *gdt_diff_choice_name(gdt_diff_choice c)
{
    static const char *const names[] = {"winner", "first_entry", "decision"};
    return (unsigned)c < GDT_DIFF_CHOICES ? names[c] : "?";
}

void gdt_diff_cost_judge(gdt_diff_cost *c, double floor)
{
    c->floor = floor;
    c->value = c->excess = c->noise = NAN;
    c->beyond = c->faster = false;
    if (!c->applies) return;
    if (!c->has) {
        c->beyond = true; /* the committed choice's cost is unknown */
        return;
    }
    c->value = c->us / c->base_us - 1;
    c->excess = (1 + c->value) / (1 + fmax(c->accepted, 0)) - 1;
    c->noise = (c->us_noise * c->us + c->base_noise * c->base_us) / c->base_us;
    c->beyond = c->excess > floor && c->excess > c->noise;
    c->faster = -c->value > floor && -c->value > c->noise;
}

bool gdt_diff_cost_worse(const gdt_diff_cost *a, const gdt_diff_cost *b)
{
    if (!a->applies || (b->applies && !b->has)) return false;
    return !b->applies || !a->has || a->excess > b->excess;
}

int gdt_diff_worst_regret(const gdt_diff_cost *regret)
{
    int w = 0;
    for (int i = 1; i < GDT_DIFF_CHOICES; i++)
        if (gdt_diff_cost_worse(&regret[i], &regret[w])) w = i;
    return w;
}

/* The cost of p (NULL: not measured; name is its name) over base. */
static void cost_of(gdt_diff_cost *c, const char *name, const gdt_measured_plan *p,
                    const gdt_measured_plan *base)
{
    memset(c, 0, sizeof *c);
    snprintf(c->plan, sizeof c->plan, "%s", name);
    plan_name(base, c->base, sizeof c->base);
    c->applies = base != NULL;
    c->has = p && base;
    if (p) c->us = p->time_us, c->us_noise = p->noise;
    if (base) c->base_us = base->time_us, c->base_noise = base->noise;
}

/* The committed plan y as NEW's cell nc measured it, over NEW's winner x. */
static void regret_plan(gdt_diff_cost *c, const gdt_measured_plan *y, const gdt_table_cell *nc,
                        const gdt_measured_plan *x)
{
    char name[GDT_DIFF_NAME];
    plan_name(y, name, sizeof name);
    int j = y ? find_plan(nc, &y->id) : -1;
    cost_of(c, name, j < 0 ? NULL : &nc->ranked[j], x);
}

/* The committed decision's side (oc's), by its fastest plan in nc, over the
 * faster of nc's best of ours and best of the backend. */
static void regret_decision(gdt_diff_cost *c, const gdt_table_cell *oc, const gdt_table_cell *nc)
{
    int side = oc->lead ? GDT_PLAN_SIDE_OURS : GDT_PLAN_SIDE_BACKEND;
    int other = oc->lead ? GDT_PLAN_SIDE_BACKEND : GDT_PLAN_SIDE_OURS;
    const gdt_measured_plan *s = fastest(nc, side), *o = fastest(nc, other);
    const gdt_measured_plan *base = s && o && o->time_us < s->time_us ? o : s ? s : o;
    char name[GDT_DIFF_NAME];
    if (s) plan_name(s, name, sizeof name);
    else snprintf(name, sizeof name, "%s", oc->lead ? "(none of ours)" : "(no backend plan)");
    cost_of(c, name, s, base);
}

/* The regret OLD itself held for choosing p over its winner w: 0 when
 * either is missing or p is the winner. */
static double accepted(const gdt_measured_plan *p, const gdt_measured_plan *w)
{
    return p && w && p->time_us > w->time_us ? p->time_us / w->time_us - 1 : 0;
}

/* The regret OLD held for its own decision, within OLD. */
static double accepted_decision(const gdt_table_cell *oc)
{
    gdt_diff_cost c;
    regret_decision(&c, oc, oc);
    return c.has && c.us > c.base_us ? c.us / c.base_us - 1 : 0;
}

/* The regrets and the slowdown of a cell found in both, judged at floor. */
static void cell_costs(gdt_diff_cell *d, const gdt_table_cell *oc, const gdt_table_cell *nc, double floor)
{
    const gdt_measured_plan *ow = fastest(oc, ANY_SIDE), *nw = fastest(nc, ANY_SIDE);
    char name[GDT_DIFF_NAME];
    const gdt_measured_plan *of = oc->nranked ? &oc->ranked[0] : NULL;
    regret_plan(&d->regret[GDT_DIFF_WINNER], ow, nc, nw);
    regret_plan(&d->regret[GDT_DIFF_FIRST], of, nc, nw);
    regret_decision(&d->regret[GDT_DIFF_DECISION], oc, nc);
    d->regret[GDT_DIFF_FIRST].accepted = accepted(of, ow);
    d->regret[GDT_DIFF_DECISION].accepted = accepted_decision(oc);
    plan_name(nw, name, sizeof name);
    cost_of(&d->slowdown, name, nw, ow);
    for (int i = 0; i < GDT_DIFF_CHOICES; i++) gdt_diff_cost_judge(&d->regret[i], floor);
    gdt_diff_cost_judge(&d->slowdown, floor);
}

/* The floor the tables show: their smallest plan noise (the writer raises
 * each plan's noise to the spec's floor, and a sweep's tightest plans sit
 * on it); 0 for no tables. */
static double tables_floor(const gdt_tables *t)
{
    double f = INFINITY;
    gdt_table_cell c;
    for (int i = 0; t && gdt_tables_cell(t, i, &c); i++)
        for (int k = 0; k < c.nranked; k++) f = fmin(f, c.ranked[k].noise);
    return isfinite(f) ? f : 0;
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

/* Beyond noise by its costs alone; the plan moves only make it differ. */
static void classify(gdt_diff_cell *d)
{
    const gdt_diff_pick *k[] = {&d->decision, &d->winner, &d->first};
    bool beyond = d->slowdown.beyond, any = d->winner_time_changed || d->nmoves > 0;
    for (int i = 0; i < GDT_DIFF_CHOICES; i++) beyond = beyond || d->regret[i].beyond;
    for (int i = 0; i < 3; i++) any = any || k[i]->changed;
    d->status = beyond              ? GDT_DIFF_BEYOND
                : d->slowdown.faster ? GDT_DIFF_FASTER
                : any               ? GDT_DIFF_WITHIN
                                    : GDT_DIFF_SAME;
}

static gdt_status diff_cell(gdt_diff_cell *d, const gdt_table_cell *oc, const gdt_table_cell *nc,
                            double floor, gdt_error *e)
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
    cell_costs(d, oc, nc, floor);
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

bool gdt_diff_cell_compared(const gdt_diff_cell *c)
{
    return c->status != GDT_DIFF_ADDED && c->status != GDT_DIFF_REMOVED;
}

/* The count a cell's status goes to. */
static int *tally(gdt_tables_diff *d, gdt_diff_status st)
{
    switch (st) {
    case GDT_DIFF_BEYOND: return &d->beyond;
    case GDT_DIFF_FASTER: return &d->faster;
    case GDT_DIFF_ADDED: return &d->added;
    case GDT_DIFF_REMOVED: return &d->removed;
    default: return &d->within;
    }
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
    *tally(d, st) += 1;
    return GDT_STATUS_OK;
}

static gdt_status both_sides(gdt_tables_diff *d, const gdt_table_cell *oc, const gdt_table_cell *nc,
                             const gdt_tables *t, double floor, gdt_error *e)
{
    gdt_diff_cell *x = new_cell(d, oc->key, t, e);
    if (!x) return GDT_STATUS_NO_MEMORY;
    gdt_status s = diff_cell(x, oc, nc, floor, e);
    d->compared++;
    if (s || x->status == GDT_DIFF_SAME) {
        free(x->moves);
        return s;
    }
    d->ncells++;
    *tally(d, x->status) += 1;
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
    s->floor = d->floor_set ? d->floor : fmax(tables_floor(o), tables_floor(n));
    return GDT_STATUS_OK;
}

gdt_status gdt_tables_diff_add(gdt_tables_diff *d, const gdt_tables *old_t, const gdt_tables *new_t,
                               gdt_error *e)
{
    if (!old_t && !new_t) return GDT_STATUS_OK;
    gdt_status s = add_set(d, old_t, new_t, e);
    double floor = s ? 0 : d->sets[d->nsets - 1].floor;
    int no = gdt_tables_ncells(old_t), nn = gdt_tables_ncells(new_t);
    for (int i = 0, j = 0; !s && (i < no || j < nn);) {
        gdt_table_cell oc, nc;
        bool ho = gdt_tables_cell(old_t, i, &oc), hn = gdt_tables_cell(new_t, j, &nc);
        int c = !ho ? 1 : !hn ? -1 : strcmp(oc.key, nc.key);
        if (c < 0) s = one_side(d, old_t, i++, GDT_DIFF_REMOVED, e);
        else if (c > 0) s = one_side(d, new_t, j++, GDT_DIFF_ADDED, e);
        else s = both_sides(d, &oc, &nc, new_t, floor, e), i++, j++;
    }
    return s;
}

bool gdt_tables_diff_worst(const gdt_tables_diff *d, int *regret_cell, int *slowdown_cell)
{
    *regret_cell = *slowdown_cell = -1;
    for (int i = 0; i < d->ncells; i++) {
        const gdt_diff_cell *c = &d->cells[i];
        if (!gdt_diff_cell_compared(c)) continue;
        const gdt_diff_cell *r = *regret_cell < 0 ? NULL : &d->cells[*regret_cell];
        if (!r || gdt_diff_cost_worse(&c->regret[gdt_diff_worst_regret(c->regret)],
                                      &r->regret[gdt_diff_worst_regret(r->regret)]))
            *regret_cell = i;
        if (*slowdown_cell < 0 || gdt_diff_cost_worse(&c->slowdown, &d->cells[*slowdown_cell].slowdown))
            *slowdown_cell = i;
    }
    return *regret_cell >= 0;
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

/* The named plan's index in the journal's cell when it has a verified
 * result there, else -1. */
static int verified_plan(const gdt_run_cell *c, const char *plan)
{
    for (int i = 0; c && i < c->nplans; i++) {
        char name[GDT_DIFF_NAME];
        gdt_plan_id id = c->plan[i].id;
        gdt_plan_id_normalize(&id);
        gdt_plan_id_format(&id, name, sizeof name);
        if (!strcmp(name, plan) && c->result[i].journaled && c->result[i].disposition == GDT_DISP_VERIFIED)
            return i;
    }
    return -1;
}

/* The device-time samples of the named plan at the journal's largest
 * burst and their median clock (0: none); false when it has no verified
 * result there. */
static bool samples_of(const gdt_run_cell *c, const char *plan, const double **vals, int *n, int *burst,
                       double *mhz)
{
    int i = verified_plan(c, plan);
    if (i < 0) return false;
    const gdt_run_burst *last = gdt_run_largest_burst(&c->result[i]);
    gdt_metric_clock mc;
    *vals = last ? last->device_us : NULL;
    *n = last ? last->ndevice : 0;
    *burst = last ? last->burst : 0;
    *mhz = gdt_run_metric_clock(&c->result[i], &mc) ? mc.median_mhz : 0;
    return *n > 0;
}

static gdt_status test_plan(gdt_diff_cell *d, const char *plan, const gdt_run_cell *oc,
                            const gdt_run_cell *nc, gdt_error *e)
{
    const double *a, *b;
    gdt_diff_test t = {.u = 0};
    for (int i = 0; i < d->ntests; i++)
        if (!strcmp(d->tests[i].plan, plan)) return GDT_STATUS_OK;
    if (!samples_of(oc, plan, &a, &t.n_old, &t.burst_old, &t.median_mhz_old) ||
        !samples_of(nc, plan, &b, &t.n_new, &t.burst_new, &t.median_mhz_new))
        return GDT_STATUS_OK;
    gdt_rank_test r;
    gdt_status s = gdt_rank_test_mann_whitney(a, t.n_old, b, t.n_new, &r, e);
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

/* The plan's measured spread as its journal has it (the figures the
 * tables' time comes from, before the floor); unchanged when the journal
 * has no verified result for it. */
static void journal_noise(const gdt_run_cell *c, const char *plan, double *noise)
{
    int i = verified_plan(c, plan);
    if (i >= 0) *noise = gdt_run_plan_measured(c, i, 0).noise;
}

/* The costs judged again with the journals' noise and floor. */
static void rejudge(gdt_diff_cell *c, const gdt_run_cell *oc, const gdt_run_cell *nc, double floor)
{
    for (int i = 0; i < GDT_DIFF_CHOICES; i++) {
        journal_noise(nc, c->regret[i].plan, &c->regret[i].us_noise);
        journal_noise(nc, c->regret[i].base, &c->regret[i].base_noise);
        gdt_diff_cost_judge(&c->regret[i], floor);
    }
    journal_noise(nc, c->slowdown.plan, &c->slowdown.us_noise);
    journal_noise(oc, c->slowdown.base, &c->slowdown.base_noise);
    gdt_diff_cost_judge(&c->slowdown, floor);
    c->runs_noise = true;
    classify(c);
}

gdt_status gdt_tables_diff_runs(gdt_tables_diff *d, const gdt_run *old_r, const gdt_run *new_r,
                                gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    double floor = d->floor_set ? d->floor : fmax(old_r->spec->noise_floor, new_r->spec->noise_floor);
    for (int i = 0; i < d->ncells && !s; i++) {
        gdt_diff_cell *c = &d->cells[i];
        if (!gdt_diff_cell_compared(c)) continue;
        const gdt_run_cell *oc = run_cell(old_r, c), *nc = run_cell(new_r, c);
        c->tested = oc && nc;
        if (!c->tested) continue;
        s = test_cell(c, oc, nc, e);
        *tally(d, c->status) -= 1;
        rejudge(c, oc, nc, floor);
        *tally(d, c->status) += 1;
    }
    return s;
}
