/* A journaled plan's figures as the tables, `compare`, `tables diff` and
 * summary.md take them (plan_figures.c): the cell's rounds' where it has
 * them, else the plan's series at the cell's clock (gdt_metric_clock.h). */
#ifndef GDT_PLAN_FIGURES_H
#define GDT_PLAN_FIGURES_H

#include <stdbool.h>

#include "gdt_run.h"
#include "gdtune/tables.h"

/* Plan pi's time per call and noise as the tables and `compare` take
 * them: the cell's rounds' figures when the plan is in its measured rounds
 * (measured together, so drift over the sweep reached them alike), their
 * times set at the level of the other plans' (times the geometric mean of
 * the rounds' plans' own figures over that of their rounds' times: the
 * rounds record no clock, and decide the order among their plans, not the
 * level), else its result's, the time at the cell's clock
 * (gdt_metric_clock.h: its series' time scaled by its clock over the
 * cell's).  True for a rounds figure. */
bool gdt_run_plan_figures(const gdt_run_cell *c, int pi, double *time_us, double *noise);

/* Plan pi's time per call as above (its noise left out). */
double gdt_run_plan_time(const gdt_run_cell *c, int pi);

/* The clock (MHz) those figures set plan pi at: its cell's (gdt_run_cell_mhz);
 * 0 when they are the rounds' or the cell's plans keep their own times. */
double gdt_run_plan_clock(const gdt_run_cell *c, int pi);

/* Plan pi as the tables take it (emit, and summary.md's decision): its
 * figures as above, the noise at least the spec's floor; the mode is the
 * emitter's to set. */
gdt_measured_plan gdt_run_plan_measured(const gdt_run_cell *c, int pi, double floor);

#endif
