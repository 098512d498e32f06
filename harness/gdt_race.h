/* Racing's bars: what a sweep's plan is raced against (race.c).
 *
 * The sweep keeps, per cell, the plans measured in full so far: the
 * fastest GDT_RACE_TOP and each side's fastest.  A new plan's first
 * estimate is judged by gdt_measure_raced_out against the lower of two
 * bars:
 *   - the cell's best, with GDT_RACE_MARGIN: the plan cannot win the cell
 *     nor be within its noise;
 *   - once GDT_RACE_TOP plans and one of the plan's side are measured in
 *     full, the slower of the cell's third best and the side's best, with
 *     GDT_RACE_TOP_MARGIN: the plan can be neither in the top three nor its
 *     side's best.
 * The tables rank a cell's plans and compare the sides' bests; what either
 * needs is measured in full, and the near-tied rest (dozens of vendor plans
 * within GDT_RACE_MARGIN of each other in a GEMM cell) stop after their
 * first estimate instead of each spending a contender's cap. */
#ifndef GDT_RACE_H
#define GDT_RACE_H

#include <stdbool.h>

#include "gdt_measure.h"
#include "gdtune/gdtune.h"

typedef struct gdt_race_mark {
    double us, noise; /* device time per call at the largest burst, its relative spread; us 0: none */
} gdt_race_mark;

typedef struct gdt_race_marks {
    gdt_race_mark top[GDT_RACE_TOP];              /* fastest first */
    gdt_race_mark side_best[GDT_PLAN_SIDE_COUNT];
} gdt_race_marks;

/* A plan of this side measured in full (us > 0; anything else is ignored). */
void gdt_race_note(gdt_race_marks *m, gdt_plan_side side, double us, double noise);

/* The bar and margin a plan of this side races against; false when nothing
 * is measured yet (no race). */
bool gdt_race_bar(const gdt_race_marks *m, gdt_plan_side side, gdt_race_mark *bar, double *margin);

#endif
