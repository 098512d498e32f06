/* `gdtune tables diff`: what changed between two sets of tables, and
 * whether the change is beyond the measured noise.  This is the model; the
 * command line (harness/cli_tables_diff.c) finds and loads the tables and
 * prints it as text, JSON (gdtune.tables_diff/1) or markdown.
 *
 * Cells are matched by key.  Every judgement is the tables' own comparison
 * (gdt_measured_beats, gdt_measured_gap), applied to the quantity a choice
 * depends on:
 *   - a decision (LEAD/TRAIL) depends on the placement ratio (best ours /
 *     best backend, with its noise): a flip is beyond noise when the new
 *     ratio beats the old one, or the old the new;
 *   - a winner (the fastest measured plan) or first entry (ranking[0])
 *     that changed from plan y to plan x depends on t_x / t_y, whose noise
 *     is the sum of the two plans' noise: beyond noise when that ratio in
 *     the new tables beats it in the old ones, or the reverse;
 *   - a time (the winner's, a moved plan's) is compared as two measurements
 *     of one thing.
 * A choice whose quantity exists on one side only (a ratio null, a plan the
 * other side did not measure) is beyond noise with no gap.  Gaps are in
 * units of the combined noise (> 1: beyond).  Private to the harness. */
#ifndef GDT_TABLES_DIFF_H
#define GDT_TABLES_DIFF_H

#include <stdbool.h>

#include "gdt_run.h"
#include "gdtune/tables.h"

#define GDT_DIFF_NAME 512
#define GDT_DIFF_KEY 256

/* One choice of a cell: the decision, the winner or the first entry. */
typedef struct gdt_diff_pick {
    char old_name[GDT_DIFF_NAME], new_name[GDT_DIFF_NAME]; /* a plan, LEAD or TRAIL */
    bool changed;
    bool beyond;       /* the change is beyond noise (meaningful only when changed) */
    bool has_gap;
    double gap;        /* |gap| in units of the combined noise */
    bool has_values;
    double old_value, new_value; /* the quantity compared: ratio (decision), t_new/t_old (plans) */
    /* How far each side's choice was ahead of the other side's choice in
     * that side's own tables (gdt_measured_gap; for a decision, the best
     * plan of the side it put first against the other side's best): < 1 the
     * choice was within that table's noise, < 0 it measured behind (kept
     * by the untimed order).  A flip of a choice that was ahead by more
     * than twice its table's noise is what a stable re-run never makes. */
    bool has_ahead;
    double old_ahead, new_ahead;
} gdt_diff_pick;

/* One time measured in both tables. */
typedef struct gdt_diff_time {
    double old_us, new_us, pct; /* pct: (new - old) / old * 100 */
    bool beyond;
    double gap;
} gdt_diff_time;

/* A plan whose ranking position differs; -1: not ranked on that side. */
typedef struct gdt_diff_move {
    char plan[GDT_DIFF_NAME];
    int old_pos, new_pos;
    bool has_time;              /* ranked on both sides */
    gdt_diff_time time;
} gdt_diff_move;

/* --runs: the raw device-time samples of one plan at each journal's
 * largest burst (the burst the tables' time comes from). */
typedef struct gdt_diff_test {
    char plan[GDT_DIFF_NAME];
    int n_old, n_new, burst_old, burst_new;
    double u, p;
    /* The median SM clock of each side's samples (gdt_metric_clock.h), 0
     * where its journal has none: a change between plans or runs measured at
     * clocks far apart may be the power cap's, not the kernels'. */
    double mhz_old, mhz_new;
} gdt_diff_test;

typedef enum gdt_diff_status {
    GDT_DIFF_SAME,    /* nothing differs */
    GDT_DIFF_WITHIN,  /* something differs, no decision, winner or first entry beyond noise */
    GDT_DIFF_BEYOND,  /* a decision, winner or first-entry change beyond noise */
    GDT_DIFF_ADDED,   /* in the new tables only */
    GDT_DIFF_REMOVED, /* in the old tables only */
} gdt_diff_status;

const char *gdt_diff_status_name(gdt_diff_status s); /* same, within_noise, beyond_noise, ... */

typedef struct gdt_diff_cell {
    char key[GDT_DIFF_KEY];
    gdt_family family;
    int arch;
    gdt_diff_status status;
    gdt_diff_pick decision, winner, first;
    char best_ours[2][GDT_DIFF_NAME], best_backend[2][GDT_DIFF_NAME]; /* old, new; "" if none */
    bool winner_time_changed;
    gdt_diff_time winner_time;  /* the winners' times, old and new (maybe two plans) */
    gdt_diff_move *moves;       /* ranked in both at other positions, or on one side only */
    int nmoves;
    gdt_diff_test *tests;       /* --runs only */
    int ntests;
    bool tested;                /* both runs journaled this cell */
} gdt_diff_cell;

/* A provenance field that differs. */
typedef struct gdt_diff_field {
    const char *field;          /* the tables' name: "cudnn_version" */
    char old_v[128], new_v[128];
} gdt_diff_field;

/* One family on one arch, as found in either set. */
typedef struct gdt_diff_set {
    gdt_family family;
    int arch;
    bool in_old, in_new;
    gdt_diff_field fields[16];
    int nfields;
} gdt_diff_set;

typedef struct gdt_tables_diff {
    gdt_diff_set *sets;
    int nsets;
    gdt_diff_cell *cells;       /* cells that differ, added or removed; set by set, by key */
    int ncells;
    int compared, beyond, within, added, removed;
} gdt_tables_diff;

/* Compares one family's tables on one arch; either may be NULL (the family
 * is in one set only: all its cells added or removed). */
gdt_status gdt_tables_diff_add(gdt_tables_diff *d, const gdt_tables *old_t, const gdt_tables *new_t,
                               gdt_error *e);

/* Tests the samples of every plan a changed cell names (winners, first
 * entries, the best of ours and of the backend, moved plans), measured in
 * both runs.  A plan a journal does not hold is left out. */
gdt_status gdt_tables_diff_runs(gdt_tables_diff *d, const gdt_run *old_r, const gdt_run *new_r,
                                gdt_error *e);

/* 3 when a change is beyond noise or a cell was added or removed, else 0. */
int gdt_tables_diff_exit(const gdt_tables_diff *d);

void gdt_tables_diff_free(gdt_tables_diff *d);

/* `gdtune tables diff OLD NEW ...` (harness/cli_tables_diff.c); argv[0] is
 * "diff".  Returns the exit code: 0, 3, 2 or 1. */
int gdt__cli_tables_diff(int argc, char **argv);

#endif
