/* Where the time went (gdt_budget.h).  The seconds are what the worker
 * journaled per plan, so a reviewer can see what racing saved and what
 * builds cost without a script over the journal; what they leave out is
 * said in the section's note. */
#include <math.h>
#include <string.h>

#include "gdt_budget.h"

/* The table's names of each side, and the JSON's (the report's other keys
 * say backend for cuDNN: best_backend). */
static const struct {
    const char *md, *json;
} sides[] = {
    [GDT_PLAN_SIDE_OURS] = {"ours", "ours"},
    [GDT_PLAN_SIDE_BACKEND] = {"cuDNN", "backend"},
    [GDT_PLAN_SIDE_LIBRARY] = {"cuBLASLt", "library"},
};
_Static_assert(sizeof sides / sizeof sides[0] == GDT_PLAN_SIDE_COUNT, "one name per plan side");

static const struct {
    const char *json, *words;
} kinds[] = {
#define GDT_BUDGET_NAMES(id, json, words) [GDT_BUDGET_##id] = {json, words},
    GDT_BUDGET_KINDS(GDT_BUDGET_NAMES)
#undef GDT_BUDGET_NAMES
};
_Static_assert(sizeof kinds / sizeof kinds[0] == GDT_BUDGET_KIND_COUNT, "one name per kind");

/* A journaled number, 0 where the record left it out (NaN). */
static double seconds(double s)
{
    return isnan(s) ? 0 : s;
}

/* raced_late comes with raced_out (harness/measure.c run_all), so it is
 * asked first. */
static gdt_budget_kind kind_of(const gdt_run_result *res)
{
    switch (res->disposition) {
    case GDT_DISP_DECLINED: return GDT_BUDGET_DECLINED;
    case GDT_DISP_INCORRECT: return GDT_BUDGET_INCORRECT;
    case GDT_DISP_FAILED: return GDT_BUDGET_FAILED;
    default: break;
    }
    if (res->raced_late)
        return GDT_BUDGET_RACED_LATE;
    if (res->raced_out)
        return GDT_BUDGET_RACED_OUT;
    return res->converged ? GDT_BUDGET_CONVERGED : GDT_BUDGET_NOT_CONVERGED;
}

static void add(gdt_budget_row *row, int plans, const gdt_run_result *res)
{
    row->plans += plans;
    row->measure_s += seconds(res->measure_s);
    row->build_s += seconds(res->build_s);
    row->heat_s += seconds(res->heat_s);
}

static void add_cell(gdt_budget *b, const gdt_run_cell *c)
{
    for (int i = 0; i < c->nplans; i++) {
        const gdt_run_result *res = &c->result[i];
        gdt_budget_row *side = b->by[gdt_engine_side(NULL, c->plan[i].id.engine_id)];
        if (res->journaled)
            add(&side[kind_of(res)], 1, res);
        if (c->other[i].journaled) /* re-measured for its clock: the series that does not count, its time */
            add(&side[kind_of(&c->other[i])], 0, &c->other[i]);
    }
    if (c->rounds.journaled) { /* a rounds record journals its measure_s alone */
        b->rounds.plans += c->rounds.nplans;
        b->rounds.measure_s += seconds(c->rounds.measure_s);
        b->rounds_records++;
    }
    if (c->prebuilt > 0 || c->prebuild_s > 0) {
        b->prebuild_cells++;
        b->prebuilt += c->prebuilt;
        b->prebuild_s += c->prebuild_s;
    }
}

void gdt_budget_of(const gdt_run *run, gdt_budget *out)
{
    memset(out, 0, sizeof *out);
    for (int ci = 0; ci < run->ncells; ci++)
        add_cell(out, &run->cells[ci]);
}

static void sum(gdt_budget_row *to, const gdt_budget_row *from)
{
    to->plans += from->plans;
    to->measure_s += from->measure_s;
    to->build_s += from->build_s;
    to->heat_s += from->heat_s;
}

static gdt_budget_row side_total(const gdt_budget *b, int side)
{
    gdt_budget_row t = {0};
    for (int k = 0; k < GDT_BUDGET_KIND_COUNT; k++)
        sum(&t, &b->by[side][k]);
    return t;
}

/* Every plan once: the rounds' seconds count, their plans do not (they
 * are in their own rows already). */
static gdt_budget_row total(const gdt_budget *b)
{
    gdt_budget_row t = {0};
    for (int side = 0; side < GDT_PLAN_SIDE_COUNT; side++) {
        gdt_budget_row s = side_total(b, side);
        sum(&t, &s);
    }
    t.measure_s += b->rounds.measure_s;
    return t;
}

/* ------------------------------------------------------------ summary.md */

/* What the two fields cover, by the code that times them. */
static void note(FILE *f)
{
    fprintf(f, "Per plan, the journal result's `measure_s` and `build_s`, summed per side and by "
               "how the plan ended. `measure_s` (harness/measure.c, `run_all`) is the wall time "
               "from the start of the warm-up to the end of the last series: the warm-up, "
               "racing's first estimate, every burst's series and the cold calls, and the "
               "heat-up before the metric (the spec's `heat_seconds`; its own column, the "
               "results' `heat_s`, is part of `measure_s`); verification "
               "(before it, harness/worker.c `verify_and_measure`), the clock probe's setup and a "
               "`--cupti` traced burst (after it) are outside. `build_s` (harness/trial.c, "
               "`gdt_trial_build`) is the wall time of `gdt_graph_build`: the engine's support "
               "check, an NVRTC compile or kernel-cache load, and for cuDNN the handle, the "
               "operation graph and the plan's finalization (engines/cudnn/cudnn_engine.c "
               "`cudnn_build`); the workspace reservation after it is outside. A cuDNN plan "
               "prebuilt (the spec's `build_threads`: the cell's cuDNN plans finalized on "
               "several threads before its measurements, harness/worker.c `prebuild_cell`) "
               "journals its own build's wall time on its builder thread, so with parallel "
               "prebuild the build column sums thread time, more than the wall time those "
               "builds took: that is the cells' prebuild line below the table (the `plans` "
               "records' `prebuild_s`, which the worker's cell preparation includes). Neither "
               "covers the worker's start, a cell's buffers and reference, verification or the journal's "
               "writes, so the total is less than the sweep's wall time. A field the journal "
               "lacks (a plan whose worker died, older journals) counts 0. The rounds row "
               "(`--rounds`) is the cells' `rounds` records' `measure_s` (harness/worker.c "
               "`run_rounds`): each plan built again, verified again and the rounds measured, "
               "builds included; the total counts those seconds but not their plans again.\n\n");
}

static void row_md(FILE *f, const char *side, const char *words, const gdt_budget_row *r)
{
    fprintf(f, "| %s | %s | %d | %.1f | %.1f | %.1f |\n", side, words, r->plans, r->measure_s, r->heat_s,
            r->build_s);
}

static void per_side(FILE *f, const gdt_budget *b)
{
    const char *sep = "Per side:";
    for (int side = 0; side < GDT_PLAN_SIDE_COUNT; side++) {
        gdt_budget_row s = side_total(b, side);
        if (!s.plans)
            continue;
        fprintf(f, "%s %s %d plans, measure %.1f s, build %.1f s", sep, sides[side].md, s.plans,
                s.measure_s, s.build_s);
        sep = ";";
    }
    fprintf(f, "%s.\n", b->rounds_records ? "; rounds apart" : "");
}

static void prebuild_md(FILE *f, const gdt_budget *b)
{
    if (b->prebuild_cells)
        fprintf(f, "\nPrebuild: %d cuDNN plans built ahead in %d cells, %.1f s of wall time "
                   "(their build times, summed over the threads, are in the build column).\n",
                b->prebuilt, b->prebuild_cells, b->prebuild_s);
}

void gdt_budget_write_md(FILE *f, const gdt_budget *b)
{
    gdt_budget_row t = total(b);
    fprintf(f, "\n## Where the time went\n\n");
    note(f);
    if (!t.plans) {
        fprintf(f, "None (no plan has a result).\n");
        return;
    }
    fprintf(f, "| side | how it ended | plans | measure s | of which heat-up s | build s |\n"
               "|---|---|---:|---:|---:|---:|\n");
    for (int side = 0; side < GDT_PLAN_SIDE_COUNT; side++)
        for (int k = 0; k < GDT_BUDGET_KIND_COUNT; k++)
            if (b->by[side][k].plans)
                row_md(f, sides[side].md, kinds[k].words, &b->by[side][k]);
    if (b->rounds_records)
        fprintf(f, "| — | rounds (--rounds) | %d | %.1f | — | — |\n", b->rounds.plans,
                b->rounds.measure_s);
    fprintf(f, "| **total** | | **%d** | **%.1f** | **%.1f** | **%.1f** |\n\n", t.plans, t.measure_s,
            t.heat_s, t.build_s);
    per_side(f, b);
    prebuild_md(f, b);
}

/* ------------------------------------------------------------ JSON */

static void add_row(cJSON *o, const gdt_budget_row *r)
{
    cJSON_AddNumberToObject(o, "plans", r->plans);
    cJSON_AddNumberToObject(o, "measure_s", r->measure_s);
    cJSON_AddNumberToObject(o, "build_s", r->build_s);
    cJSON_AddNumberToObject(o, "heat_s", r->heat_s);
}

/* side NULL: the rounds row (a cell's fastest plans, of any side). */
static cJSON *row_json(const char *side, const char *kind, const gdt_budget_row *r)
{
    cJSON *o = cJSON_CreateObject();
    if (side)
        cJSON_AddStringToObject(o, "side", side);
    else
        cJSON_AddNullToObject(o, "side");
    cJSON_AddStringToObject(o, "kind", kind);
    add_row(o, r);
    return o;
}

void gdt_budget_add_json(cJSON *doc, const gdt_budget *b)
{
    cJSON *rows = cJSON_AddArrayToObject(doc, "budget");
    gdt_budget_row t = total(b);
    for (int side = 0; side < GDT_PLAN_SIDE_COUNT; side++)
        for (int k = 0; k < GDT_BUDGET_KIND_COUNT; k++)
            if (b->by[side][k].plans)
                cJSON_AddItemToArray(rows, row_json(sides[side].json, kinds[k].json, &b->by[side][k]));
    if (b->rounds_records)
        cJSON_AddItemToArray(rows, row_json(NULL, "rounds", &b->rounds));
    add_row(cJSON_AddObjectToObject(doc, "budget_total"), &t);
    if (b->prebuild_cells) {
        cJSON *p = cJSON_AddObjectToObject(doc, "budget_prebuild");
        cJSON_AddNumberToObject(p, "cells", b->prebuild_cells);
        cJSON_AddNumberToObject(p, "plans", b->prebuilt);
        cJSON_AddNumberToObject(p, "prebuild_s", b->prebuild_s);
    }
}
