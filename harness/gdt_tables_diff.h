/* `gdtune tables diff`: what changed between two sets of tables, and what
 * it costs.  This is the model; the command line (cli/cli_tables_diff.c)
 * finds and loads the tables and prints it as text, JSON
 * (gdtune.tables_diff/1) or markdown.
 *
 * Cells are matched by key.  The verdicts are two costs per cell
 * (gdt_diff_cost):
 *   - the regret of each committed choice, its time in NEW over NEW's best
 *     (the winner and the first entry over NEW's winner; the decision's
 *     side, its best plan, over the better of NEW's best of ours and best
 *     of the backend, the two the decision chooses between);
 *   - the slowdown, NEW's winner's time over OLD's winner's (same plan or
 *     not).
 * Each is beyond noise only when it is larger than both the noise floor
 * and the two times' combined noise; either beyond makes the cell
 * beyond_noise and the exit status 3.  A slowdown below minus both is an
 * improvement: reported (faster), never an alarm.
 *
 * The plan moves are detail, each judged by the tables' own comparison
 * (gdt_measured_beats, gdt_measured_gap) on the quantity it depends on:
 *   - a decision (LEAD/TRAIL) on the placement ratio (best ours / best
 *     backend, with its noise);
 *   - a winner (the fastest measured plan) or first entry (ranking[0])
 *     that changed from plan y to plan x on t_x / t_y, whose noise is the
 *     sum of the two plans' noise;
 *   - a time (the winner's, a moved plan's) as two measurements of one
 *     thing.
 * A quantity on one side only (a ratio null, a plan the other side did not
 * measure) is beyond noise with no gap.  Gaps are in units of the combined
 * noise (> 1: beyond).  Private to the harness. */
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

/* A cost: one time over another, less one (0.008: 0.8% slower).  Regret:
 * plan is the committed choice measured in NEW, base NEW's best; slowdown:
 * plan is NEW's winner, base OLD's winner. */
typedef struct gdt_diff_cost {
    char plan[GDT_DIFF_NAME], base[GDT_DIFF_NAME];
    bool applies;      /* false: no such choice (a decision with neither side measured in NEW) */
    bool has;          /* both measured; false: NEW did not measure the committed choice */
    double us, base_us;
    double us_noise, base_noise; /* relative, as the tables (or, --runs, the journals) have them */
    double value;      /* us / base_us - 1 */
    /* A regret the committed tables already held: the committed choice's
     * time over the committed base's, less one, both in OLD (0 for the
     * winner; a first entry or decision the ranking kept within noise of
     * the winner is behind it by up to the noise).  What NEW adds to it is
     * what is judged: a choice that costs tonight what it cost when it was
     * committed changed nothing.  0 for a slowdown. */
    double accepted;
    double excess;     /* (1 + value) / (1 + accepted) - 1: the part judged */
    double noise;      /* the combined noise, (us_noise*us + base_noise*base_us) / base_us */
    double floor;      /* the noise floor it was compared to */
    bool beyond;       /* excess > floor and excess > noise; or !has (an unknown cost) */
    bool faster;       /* -value > floor and -value > noise: an improvement (slowdowns) */
} gdt_diff_cost;

/* The committed choices a regret is computed for. */
typedef enum gdt_diff_choice {
    GDT_DIFF_WINNER,
    GDT_DIFF_FIRST,
    GDT_DIFF_DECISION,
    GDT_DIFF_CHOICES
} gdt_diff_choice;

const char *gdt_diff_choice_name(gdt_diff_choice c); /* winner, first_entry, decision */

/* Whether cost a is worse than b: an unknown one first, then the larger
 * value; a cost that does not apply is never worse. */
bool gdt_diff_cost_worse(const gdt_diff_cost *a, const gdt_diff_cost *b);
/* The worst regret of a cell (an index of regret[]). */
int gdt_diff_worst_regret(const gdt_diff_cost *regret);

/* Judges c against floor: sets value, excess, noise, floor, beyond and
 * faster from its times, noises and accepted regret. */
void gdt_diff_cost_judge(gdt_diff_cost *c, double floor);

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
    double median_mhz_old, median_mhz_new;
} gdt_diff_test;

typedef enum gdt_diff_status {
    GDT_DIFF_SAME,    /* nothing differs */
    GDT_DIFF_WITHIN,  /* something differs, no regret or slowdown beyond noise */
    GDT_DIFF_BEYOND,  /* a regret or a slowdown beyond noise */
    GDT_DIFF_ADDED,   /* in the new tables only */
    GDT_DIFF_REMOVED, /* in the old tables only */
    GDT_DIFF_FASTER,  /* no cost beyond noise, the winner faster beyond it: not an alarm */
} gdt_diff_status;

const char *gdt_diff_status_name(gdt_diff_status s); /* same, within_noise, beyond_noise, ..., faster */

typedef struct gdt_diff_cell {
    char key[GDT_DIFF_KEY];
    gdt_family family;
    int arch;
    gdt_diff_status status;
    gdt_diff_cost regret[GDT_DIFF_CHOICES]; /* the verdicts */
    gdt_diff_cost slowdown;
    gdt_diff_pick decision, winner, first;  /* the detail */
    char best_ours[2][GDT_DIFF_NAME], best_backend[2][GDT_DIFF_NAME]; /* old, new; "" if none */
    bool winner_time_changed;
    gdt_diff_time winner_time;  /* the winners' times, old and new (maybe two plans) */
    gdt_diff_move *moves;       /* ranked in both at other positions, or on one side only */
    int nmoves;
    gdt_diff_test *tests;       /* --runs only */
    bool runs_noise;            /* the costs were judged with the journals' noise */
    int ntests;
    bool tested;                /* both runs journaled this cell */
} gdt_diff_cell;

/* Found in both sets (not added or removed): it has costs. */
bool gdt_diff_cell_compared(const gdt_diff_cell *c);

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
    double floor;               /* the noise floor its cells are judged with */
} gdt_diff_set;

typedef struct gdt_tables_diff {
    gdt_diff_set *sets;
    int nsets;
    gdt_diff_cell *cells;       /* cells that differ, added or removed; set by set, by key */
    int ncells;
    int compared, beyond, within, added, removed;
    int faster;                 /* cells with no cost beyond noise whose winner got faster beyond it */
    /* The noise floor: floor_set (--noise-floor) is used as given; else
     * each set's is the larger of its two tables' smallest plan noise (the
     * tables record each plan's noise as at least the spec's floor), and
     * --runs replaces it by the larger of the two runs' spec noise_floor. */
    bool floor_set;
    double floor;
} gdt_tables_diff;

/* Compares one family's tables on one arch; either may be NULL (the family
 * is in one set only: all its cells added or removed). */
gdt_status gdt_tables_diff_add(gdt_tables_diff *d, const gdt_tables *old_t, const gdt_tables *new_t,
                               gdt_error *e);

/* Tests the samples of every plan a changed cell names (winners, first
 * entries, the best of ours and of the backend, moved plans), measured in
 * both runs, and judges the costs again with the journals' noise: each
 * plan's measured spread as journaled (the tables raise it to the floor)
 * and the larger of the runs' spec noise_floor (unless floor_set).  A plan a journal does not hold is
 * left out (its tables' noise stays). */
gdt_status gdt_tables_diff_runs(gdt_tables_diff *d, const gdt_run *old_r, const gdt_run *new_r,
                                gdt_error *e);

/* The compared cells (not added or removed) of the worst regret and of the
 * worst slowdown, indices of d->cells; false when there is none. */
bool gdt_tables_diff_worst(const gdt_tables_diff *d, int *regret_cell, int *slowdown_cell);

/* 3 when a regret or a slowdown is beyond noise or a cell was added or
 * removed, else 0. */
int gdt_tables_diff_exit(const gdt_tables_diff *d);

void gdt_tables_diff_free(gdt_tables_diff *d);

#endif
