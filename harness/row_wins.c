/* Which candidate rows earn their place, from sweep journals (see
 * gdt_row_wins.h): each row materialized per journaled cell, matched to
 * the cell's plan by identity, and scored against the cell's best
 * generated plan and its best plan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_compare_runs.h"
#include "gdt_plan_figures.h"
#include "gdt_row_wins.h"

const char *gdt_row_verdict_name(gdt_row_verdict v)
{
    static const char *const names[] = {"unmeasured", "dominated", "within", "best"};
    return (unsigned)v < sizeof names / sizeof *names ? names[v] : "?";
}

gdt_status gdt_row_wins_init(gdt_row_wins *w, const gdt_row_table *t, const char *row_family,
                             double within, bool among_rows, gdt_error *e)
{
    *w = (gdt_row_wins){.row_family = row_family, .within = within, .among_rows = among_rows};
    int n = gdt_rows_count(t, row_family);
    if (n <= 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "candidate rows: no rows of structural family %s "
                             "(expected at least one)", row_family);
    if (!(w->rows = calloc((size_t)n, sizeof *w->rows)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "candidate rows: out of memory");
    w->nrows = n;
    for (int i = 0; i < n; i++)
        w->rows[i] = (gdt_row_win){.row = i, .best_ratio = NAN};
    return GDT_STATUS_OK;
}

void gdt_row_wins_free(gdt_row_wins *w)
{
    free(w->rows);
    w->rows = NULL;
    w->nrows = 0;
}

gdt_row_verdict gdt_row_wins_verdict(const gdt_row_win *row)
{
    if (!row->measured)
        return GDT_ROW_UNMEASURED;
    return row->best ? GDT_ROW_BEST : row->within_generated ? GDT_ROW_WITHIN : GDT_ROW_DOMINATED;
}

/* ------------------------------------------------------------- a cell */

/* A plan's time when it was verified (NaN otherwise), as the tables take it. */
static double verified_time(const gdt_run_cell *c, int pi)
{
    if (!c->result[pi].journaled || c->result[pi].disposition != GDT_DISP_VERIFIED)
        return NAN;
    return gdt_run_plan_time(c, pi);
}

/* The wall seconds one result recorded (NaN: none): its build and its
 * measurement (the heat-up, heat_s, is part of measure_s: reports/budget.c). */
static double wall_seconds(const gdt_run_result *r)
{
    const double part[] = {r->build_s, r->measure_s};
    double s = NAN;
    for (int i = 0; i < 2; i++)
        if (!isnan(part[i]))
            s = (isnan(s) ? 0 : s) + part[i];
    return s;
}

static double plan_seconds(const gdt_run_cell *c, int pi)
{
    double s = c->result[pi].journaled ? wall_seconds(&c->result[pi]) : NAN;
    double o = c->other && c->other[pi].journaled ? wall_seconds(&c->other[pi]) : NAN;
    return isnan(o) ? s : isnan(s) ? o : s + o;
}

/* The cell's best generated time and its best time of any engine. */
static void cell_bests(const gdt_run_cell *c, double *gen, double *all)
{
    *gen = *all = INFINITY;
    for (int pi = 0; pi < c->nplans; pi++) {
        double t = verified_time(c, pi);
        if (isnan(t))
            continue;
        *all = fmin(*all, t);
        if (gdt_side_of(NULL, &c->plan[pi]) == GDT_SIDE_GENERATED)
            *gen = fmin(*gen, t);
    }
}

static int find_plan(const gdt_run_cell *c, const gdt_plan_id *id)
{
    for (int pi = 0; pi < c->nplans; pi++)
        if (!c->plan[pi].backend && gdt_plan_id_equal(&c->plan[pi].id, id))
            return pi;
    return -1;
}

/* The best time of the plans the materialized rows bind in the cell. */
static double rows_best(const gdt_run_cell *c, const gdt_candidate *cand, int n)
{
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        int pi = cand[i].rejected ? -1 : find_plan(c, &cand[i].id);
        double t = pi >= 0 ? verified_time(c, pi) : NAN;
        if (!isnan(t))
            best = fmin(best, t);
    }
    return best;
}

/* One row's plan pi in a cell with those bests. */
static void score(gdt_row_wins *w, gdt_row_win *row, const gdt_run_cell *c, int pi, double gen, double all)
{
    double s = plan_seconds(c, pi), t = verified_time(c, pi);
    row->listed++;
    if (!isnan(s)) {
        row->seconds += s;
        row->timed++;
    }
    if (isnan(t))
        return;
    double ratio = t / gen;
    row->measured++;
    row->best += t <= gen;
    row->within_generated += t <= gen * (1 + w->within);
    row->within_cell += t <= all * (1 + w->within);
    if (isnan(row->best_ratio) || ratio < row->best_ratio)
        row->best_ratio = ratio;
}

static gdt_status add_cell(gdt_row_wins *w, const gdt_row_table *t, const gdt_engine_slot *slot,
                           const gdt_run *r, const gdt_run_cell *c, gdt_error *e)
{
    gdt_device_props dev;
    gdt_facts f;
    gdt_candidate *cand = NULL;
    int n = 0;
    if (!gdt_arch_limits(r->arch, &dev))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: arch sm%d: no per-arch limits (expected a "
                             "known arch)", r->path, r->arch);
    gdt_facts_analyze(&c->spec->problem, &dev, &f);
    gdt_status s = gdt_candidates_materialize(t, slot, &f, &cand, &n, e);
    if (s != GDT_STATUS_OK)
        return s;
    double gen, all;
    cell_bests(c, &gen, &all);
    if (w->among_rows)
        gen = rows_best(c, cand, n);
    w->cells++;
    for (int pi = 0; pi < c->nplans; pi++) {
        if (c->plan[pi].backend || c->plan[pi].id.engine_id != gdt_engine_slot_id(slot))
            continue;
        double sec = plan_seconds(c, pi);
        w->plans++;
        w->seconds += isnan(sec) ? 0 : sec;
    }
    for (int i = 0; i < n && i < w->nrows; i++) {
        int pi = cand[i].rejected ? -1 : find_plan(c, &cand[i].id);
        if (pi >= 0)
            score(w, &w->rows[i], c, pi, gen, all);
    }
    free(cand);
    return GDT_STATUS_OK;
}

gdt_status gdt_row_wins_add(gdt_row_wins *w, const gdt_row_table *t, const gdt_run *r, gdt_error *e)
{
    const gdt_manifest *m = gdt_manifest_default();
    for (int i = 0; i < gdt_manifest_count(m); i++) {
        const gdt_engine_slot *slot = gdt_manifest_slot(m, i);
        const char *rf = gdt_engine_slot_row_family(slot);
        if (gdt_engine_slot_kind(slot) != GDT_ENGINE_NVRTC || !rf || strcmp(rf, w->row_family))
            continue;
        for (int ci = 0; ci < r->ncells; ci++) {
            const gdt_run_cell *c = &r->cells[ci];
            if (!c->listed || c->spec->family != gdt_engine_slot_family(slot))
                continue;
            gdt_status s = add_cell(w, t, slot, r, c, e);
            if (s != GDT_STATUS_OK)
                return s;
        }
    }
    return GDT_STATUS_OK;
}
