/* A journaled plan's figures (gdt_plan_figures.h). */
#include <math.h>

#include "gdt_metric_clock.h"
#include "gdt_plan_figures.h"

/* Plan pi's place in its cell's measured rounds; -1 when it has none. */
static int in_rounds(const gdt_run_cell *c, int pi)
{
    const gdt_run_rounds *ro = &c->rounds;
    for (int i = 0; ro->journaled && !ro->error[0] && i < ro->nplans; i++)
        if (ro->plans[i] == pi)
            return i;
    return -1;
}

/* The level of the cell's rounds: the geometric mean of their plans' own
 * figures (each series at the cell's clock) over that of their times in
 * the rounds, so that the rounds' order stands at the level of the cell's
 * other plans.  1 where a plan of the rounds has no figure. */
static double rounds_level(const gdt_run_cell *c)
{
    const gdt_run_rounds *ro = &c->rounds;
    double cell_mhz = gdt_run_cell_mhz(c), sum = 0;
    for (int i = 0; i < ro->nplans; i++) {
        double own = gdt_run_time_at_cell_clock(c, ro->plans[i], cell_mhz);
        if (!(own > 0) || !(ro->time_us[i] > 0))
            return 1;
        sum += log(own / ro->time_us[i]);
    }
    return ro->nplans > 0 ? exp(sum / ro->nplans) : 1;
}

bool gdt_run_plan_figures(const gdt_run_cell *c, int pi, double *time_us, double *noise)
{
    int i = in_rounds(c, pi);
    if (i >= 0) {
        *time_us = c->rounds.time_us[i] * rounds_level(c), *noise = c->rounds.noise[i];
        return true;
    }
    *time_us = gdt_run_time_at_cell_clock(c, pi, gdt_run_cell_mhz(c));
    *noise = c->result[pi].noise;
    return false;
}

double gdt_run_plan_time(const gdt_run_cell *c, int pi)
{
    double t, noise;
    gdt_run_plan_figures(c, pi, &t, &noise);
    return t;
}

double gdt_run_plan_clock(const gdt_run_cell *c, int pi)
{
    return in_rounds(c, pi) >= 0 ? 0 : gdt_run_cell_mhz(c);
}

gdt_measured_plan gdt_run_plan_measured(const gdt_run_cell *c, int pi, double floor)
{
    const gdt_run_plan *pl = &c->plan[pi];
    const gdt_run_result *res = &c->result[pi];
    gdt_measured_plan m = {.id = pl->id, .is_backend = pl->backend, .untimed_position = pl->untimed,
                           .host_us = res->host_us, .samples = res->samples};
    gdt_run_plan_figures(c, pi, &m.time_us, &m.noise);
    if (m.noise < floor)
        m.noise = floor;
    return m;
}
