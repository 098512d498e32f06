/* Two plans of one cell measured in interleaved rounds (gdt_ab.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_ab.h"
#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_trial.h"
#include "gdtune/plan.h"

void gdt_ab_schedule(int rounds, int *order)
{
    for (int i = 0; i < 2 * rounds; i++)
        order[i] = i % 2;
}

void gdt_ab_stats_compute(const double *a_us, const double *b_us, int rounds, gdt_ab_stats *out)
{
    double r[GDT_AB_ROUNDS_MAX];
    int n = rounds < GDT_AB_ROUNDS_MAX ? rounds : GDT_AB_ROUNDS_MAX;
    memset(out, 0, sizeof *out);
    out->rounds = n;
    out->lo = INFINITY;
    out->hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        r[i] = b_us[i] / a_us[i];
        out->lo = fmin(out->lo, r[i]);
        out->hi = fmax(out->hi, r[i]);
    }
    out->a_us = gdt_stats_median(a_us, n);
    out->b_us = gdt_stats_median(b_us, n);
    out->ratio = gdt_stats_median(r, n);
    out->spread = gdt_stats_rel_spread(r, n);
}

/* ------------------------------------------------------------ the run */

typedef struct ab {
    const gdt_ab_opts *o;
    gdt_device_props dev;
    gdt_trial *t;
    gdt_graph *ref, *g[2];
    gdt_measure_result *m;
} ab;

static gdt_status planned(ab *x, gdt_graph **g, gdt_error *e)
{
    gdt_plan_options po = {.backend = gdt_cudnn_backend(), .modes = {GDT_MODE_A}, .nmodes = 1};
    gdt_status s = gdt_graph_create(&x->o->problem, &x->dev, g, e);
    return s == GDT_STATUS_OK ? gdt_graph_plan(*g, &po, e) : s;
}

/* Plan i replayed by name, built, and verified against the reference. */
static gdt_status prepare(ab *x, int i, gdt_ab_result *out, gdt_error *e)
{
    gdt_plan_id id;
    gdt_error pe = {0};
    int nerr = 0;
    gdt_status s = gdt_plan_id_parse(x->o->plan[i], &id, e);
    if (s == GDT_STATUS_OK)
        s = planned(x, &x->g[i], e);
    if (s == GDT_STATUS_OK)
        s = gdt_graph_replay(x->g[i], &id, e);
    if (s == GDT_STATUS_OK)
        s = gdt_trial_build(x->t, x->g[i], NULL, NULL, e);
    if (s == GDT_STATUS_OK && (s = gdt_trial_verify(x->t, x->g[i], out->verify_err[i], &nerr, &pe)))
        return gdt_error_set(e, s, "plan %c %s: %s", 'A' + i, x->o->plan[i], pe.msg);
    out->nerr = nerr;
    return s;
}

static gdt_status rounds(ab *x, gdt_ab_result *out, gdt_error *e)
{
    int order[2 * GDT_AB_ROUNDS_MAX], seen[2] = {0, 0};
    int n = x->o->rounds < GDT_AB_ROUNDS_MAX ? x->o->rounds : GDT_AB_ROUNDS_MAX;
    gdt_ab_schedule(n, order);
    for (int k = 0; k < 2 * n; k++) {
        int i = order[k];
        gdt_status s = gdt_trial_measure(x->t, x->g[i], &x->o->mo, x->m, NULL, e);
        if (s != GDT_STATUS_OK)
            return s;
        (i ? out->b_us : out->a_us)[seen[i]++] = gdt_measure_best_us(x->m, NULL);
    }
    gdt_ab_stats_compute(out->a_us, out->b_us, n, &out->stats);
    return GDT_STATUS_OK;
}

static gdt_status run(ab *x, gdt_ab_result *out, gdt_error *e)
{
    gdt_status s = gdt__device_props(0, &x->dev, e);
    if (s == GDT_STATUS_OK)
        s = gdt_trial_create(&x->o->problem, &x->dev, x->o->seed, "gdtune compare", &x->t, e);
    if (s == GDT_STATUS_OK)
        s = planned(x, &x->ref, e);
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
    ab x = {.o = o, .m = calloc(1, sizeof *x.m)};
    memset(out, 0, sizeof *out);
    gdt_status s = x.m ? run(&x, out, e) : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "compare: out of memory");
    for (int i = 0; i < 2; i++)
        gdt_graph_destroy(x.g[i]);
    gdt_graph_destroy(x.ref);
    gdt_trial_destroy(x.t);
    free(x.m);
    return s;
}
