/* Racing's bars: what a sweep's plan is raced against (race.c), and from
 * the same marks' rule, the plans a cell's --rounds measure again.
 *
 * The sweep keeps, per cell, the plans measured in full so far: the
 * fastest GDT_RACE_TOP and the fastest of each engine kind (generated,
 * handwritten, cuDNN, cuBLASLt: the sides `gdtune compare` puts beside each
 * other).  A plan is not raced while fewer than GDT_RACE_TOP plans of its
 * cell are measured in full (it may be one of the top three), nor when its
 * kind has nothing measured in full (it may be its kind's best).
 * Otherwise its first estimate is judged by gdt_measure_raced_out against
 * the slower of the cell's third best and its kind's best, with
 * GDT_RACE_TOP_MARGIN: a plan past it can be neither in the top three nor
 * its kind's best.  (Until 2026-12-03 the cell's best with GDT_RACE_MARGIN
 * was a bar too, wherever it was the lower: where the third best was more
 * than 8% slower than the best, a plan between them could be raced out and
 * the cell's third fastest was a first estimate, not converged: 5 of the 48
 * cells of the 02:13Z default SDPA sweep.)
 * The tables rank a cell's plans and compare the kinds' bests; what either
 * needs is measured in full, and the near-tied rest (dozens of vendor plans
 * within GDT_RACE_MARGIN of each other in a GEMM cell) stop after their
 * first estimate instead of each spending a contender's cap. */
#ifndef GDT_RACE_H
#define GDT_RACE_H

#include <stdbool.h>

#include "gdt_measure.h"
#include "gdt_limits.h"
#include "gdtune/gdtune.h"

typedef struct gdt_race_mark {
    double us, noise; /* device time per call at the largest burst, its relative spread; us 0: none */
} gdt_race_mark;

typedef struct gdt_race_marks {
    gdt_race_mark top[GDT_RACE_TOP];              /* fastest first */
    gdt_race_mark kind_best[GDT_ENGINE_KIND_COUNT];
} gdt_race_marks;

/* A plan of this engine kind measured in full (us > 0; anything else is
 * ignored). */
void gdt_race_note(gdt_race_marks *m, gdt_engine_kind kind, double us, double noise);

/* The bar and margin a plan of this kind races against; false when there
 * is no race (nothing measured yet, or nothing of its kind). */
bool gdt_race_bar(const gdt_race_marks *m, gdt_engine_kind kind, gdt_race_mark *bar, double *margin);

/* The plans a cell's --rounds measure together: its GDT_ROUNDS_TOP fastest
 * by full_us (the figure the tables rank a plan by, above 0 where it has
 * one: harness/sweep.c passes each metric series at the cell's clock) and
 * each engine kind's fastest so (what the tables rank first and what
 * `gdtune compare` puts side by side), into pick fastest first (ties by
 * index); how many. */
int gdt_rounds_pick(const double *full_us, const gdt_engine_kind *kind, int n,
                    int pick[GDT_ROUNDS_PLANS_MAX]);

#endif
