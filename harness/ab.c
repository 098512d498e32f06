/* Plans of one cell measured in interleaved rounds (gdt_ab.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_ab.h"
#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_plant.h"
#include "gdt_trial.h"
#include "gdtune/plan.h"

void gdt_rounds_schedule(int k, int rounds, int *order)
{
    for (int i = 0; i < k * rounds; i++)
        order[i] = i % k;
}

void gdt_ab_schedule(int rounds, int *order)
{
    gdt_rounds_schedule(2, rounds, order);
}

/* Plan i's per-round ratios to plan 0 and its times over each round's
 * geometric mean, into r and q. */
static void per_round(const double *const *us, int k, int n, int i, double *r, double *q)
{
    for (int j = 0; j < n; j++) {
        double logsum = 0;
        for (int p = 0; p < k; p++)
            logsum += log(us[p][j]);
        r[j] = us[i][j] / us[0][j];
        q[j] = us[i][j] / exp(logsum / k);
    }
}

void gdt_rounds_stats_compute(const double *const *us, int k, int rounds, gdt_rounds_stats *out)
{
    double r[GDT_ROUNDS_MAX], q[GDT_ROUNDS_MAX];
    int n = rounds < GDT_ROUNDS_MAX ? rounds : GDT_ROUNDS_MAX;
    memset(out, 0, sizeof *out);
    out->k = k;
    out->rounds = n;
    for (int i = 0; i < k; i++) {
        per_round(us, k, n, i, r, q);
        out->lo[i] = INFINITY;
        out->hi[i] = -INFINITY;
        for (int j = 0; j < n; j++) {
            out->lo[i] = fmin(out->lo[i], r[j]);
            out->hi[i] = fmax(out->hi[i], r[j]);
        }
        out->time_us[i] = gdt_stats_median(us[i], n);
        out->ratio[i] = gdt_stats_median(r, n);
        out->ratio_spread[i] = gdt_stats_rel_spread(r, n);
        out->noise[i] = gdt_stats_rel_spread(q, n);
    }
}

void gdt_ab_stats_compute(const double *a_us, const double *b_us, int rounds, gdt_ab_stats *out)
{
    /* B first: the ratio of plan 1 to plan 0 is then A's time over B's */
    const double *us[2] = {b_us, a_us};
    gdt_rounds_stats st;
    gdt_rounds_stats_compute(us, 2, rounds, &st);
    *out = (gdt_ab_stats){.rounds = st.rounds, .a_us = st.time_us[1], .b_us = st.time_us[0],
                          .ratio = st.ratio[1], .spread = st.ratio_spread[1], .lo = st.lo[1],
                          .hi = st.hi[1]};
}

/* ------------------------------------------------------------ k plans */

static gdt_status planned(gdt_trial *t, gdt_graph **g, gdt_error *e)
{
    gdt_plan_options po = {.backend = gdt_cudnn_backend(), .modes = {GDT_MODE_A}, .nmodes = 1};
    gdt_status s = gdt_graph_create(&t->problem, &t->dev, g, e);
    return s == GDT_STATUS_OK ? gdt_graph_plan(*g, &po, e) : s;
}

gdt_status gdt_rounds_plan_build(gdt_trial *t, const gdt_plan_id *id, gdt_graph **g, gdt_error *e)
{
    gdt_status s = planned(t, g, e);
    if (s == GDT_STATUS_OK)
        s = gdt_graph_replay(*g, id, e);
    return s == GDT_STATUS_OK ? gdt_trial_build(t, *g, NULL, NULL, e) : s;
}

gdt_status gdt_rounds_measure(gdt_trial *t, gdt_graph *const *g, int k, int rounds,
                              const gdt_measure_opts *mo, double *const *us, gdt_error *e)
{
    int order[GDT_ROUNDS_PLANS_MAX * GDT_ROUNDS_MAX], seen[GDT_ROUNDS_PLANS_MAX] = {0};
    int n = rounds < GDT_ROUNDS_MAX ? rounds : GDT_ROUNDS_MAX;
    gdt_measure_result *m = calloc(1, sizeof *m);
    gdt_status s = m ? GDT_STATUS_OK : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "rounds: out of memory");
    gdt_rounds_schedule(k, n, order);
    for (int j = 0; j < k * n && s == GDT_STATUS_OK; j++) {
        int i = order[j];
        s = gdt_trial_measure(t, g[i], mo, m, NULL, e);
        if (s == GDT_STATUS_OK)
            us[i][seen[i]++] = gdt_measure_best_us(m, NULL);
    }
    free(m);
    return s;
}

/* ------------------------------------------------------------ the run */

typedef struct ab {
    const gdt_ab_opts *o;
    gdt_device_props dev;
    gdt_trial *t;
    gdt_graph *ref, *g[2];
    gdt_plant plant; /* GDTUNE_PLANT_SLOWDOWN, opt-in (gdt_plant.h): timed as the worker times it */
} ab;

/* Plan i replayed by name, built, and verified against the reference. */
static gdt_status prepare(ab *x, int i, gdt_ab_result *out, gdt_error *e)
{
    gdt_plan_id id;
    gdt_error pe = {0};
    int nerr = 0;
    gdt_status s = gdt_plan_id_parse(x->o->plan[i], &id, e);
    if (s == GDT_STATUS_OK)
        s = gdt_rounds_plan_build(x->t, &id, &x->g[i], e);
    if (s == GDT_STATUS_OK && (s = gdt_trial_verify(x->t, x->g[i], out->verify_err[i], &nerr, &pe)))
        return gdt_error_set(e, s, "plan %c %s: %s", 'A' + i, x->o->plan[i], pe.msg);
    out->nerr = nerr;
    return s == GDT_STATUS_OK ? gdt_trial_slow(x->t, x->g[i], gdt_plant_fraction(&x->plant, &id), e) : s;
}

static gdt_status rounds(ab *x, gdt_ab_result *out, gdt_error *e)
{
    double *us[2] = {out->a_us, out->b_us};
    int n = x->o->rounds < GDT_AB_ROUNDS_MAX ? x->o->rounds : GDT_AB_ROUNDS_MAX;
    gdt_status s = gdt_rounds_measure(x->t, x->g, 2, n, &x->o->mo, us, e);
    if (s == GDT_STATUS_OK)
        gdt_ab_stats_compute(out->a_us, out->b_us, n, &out->stats);
    return s;
}

static gdt_status run(ab *x, gdt_ab_result *out, gdt_error *e)
{
    char planted[GDT_PLANT_TEXT];
    gdt_status s = gdt_plant_announce("gdtune compare", "", &x->plant, planted, sizeof planted, e);
    if (s == GDT_STATUS_OK)
        s = gdt__device_props(0, &x->dev, e);
    if (s == GDT_STATUS_OK)
        s = gdt_trial_create(&x->o->problem, &x->dev, x->o->seed, "gdtune compare", &x->t, e);
    if (s == GDT_STATUS_OK)
        s = planned(x->t, &x->ref, e);
    if (s == GDT_STATUS_OK)
        s = gdt_trial_reference(x->t, x->ref, e);
    if (s != GDT_STATUS_OK)
        return s;
    snprintf(out->reference, sizeof out->reference, "%s", x->t->ref_name);
    snprintf(out->device, sizeof out->device, "%s", x->dev.name);
    for (int i = 0; i < 2 && s == GDT_STATUS_OK; i++)
        s = prepare(x, i, out, e);
    return s == GDT_STATUS_OK ? rounds(x, out, e) : s;
}

gdt_status gdt_ab_run(const gdt_ab_opts *o, gdt_ab_result *out, gdt_error *e)
{
    ab x = {.o = o};
    memset(out, 0, sizeof *out);
    gdt_status s = run(&x, out, e);
    for (int i = 0; i < 2; i++)
        gdt_graph_destroy(x.g[i]);
    gdt_graph_destroy(x.ref);
    gdt_trial_destroy(x.t);
    return s;
}
