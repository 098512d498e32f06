/* Which candidate rows earn their place, from sweep journals
 * (`gdtune candidates FAMILY --journal RUN...`; harness/row_wins.c).
 *
 * A row of a structural family is matched to a journaled NVRTC plan by the
 * knob values it binds: the row is materialized for the cell's problem and
 * the journal's arch (projection, bind, deduplication, as the sweep did),
 * and the plan with that identity in the cell's list is the row's.  Per
 * row, over every cell of every journal whose family the row's slot
 * serves: the cells where its plan was listed and where it has a verified
 * time, the cells where it is the best generated (NVRTC) plan, those where
 * its time is within `within` (a fraction) of the best generated plan and
 * of the cell's best plan of any engine, its best ratio to the best
 * generated plan, and its plans' wall seconds (build, heat, measure).  A
 * cell named by two journals counts twice: each journal's cell is its own
 * measurement.  Private to the harness and the CLI. */
#ifndef GDT_ROW_WINS_H
#define GDT_ROW_WINS_H

#include <stdbool.h>

#include "gdt_run.h"
#include "gdtune/candidates.h"
#include "gdtune/gdtune.h"

typedef enum gdt_row_verdict {
    GDT_ROW_UNMEASURED, /* no verified time in any cell */
    GDT_ROW_DOMINATED,  /* measured, never within `within` of the best generated plan */
    GDT_ROW_WITHIN,     /* within `within` of the best generated plan in some cell */
    GDT_ROW_BEST,       /* the best generated plan in some cell */
} gdt_row_verdict;

const char *gdt_row_verdict_name(gdt_row_verdict v);

typedef struct gdt_row_win {
    int row;               /* its index in the family's rows */
    int listed;            /* cells whose plan list holds its plan */
    int measured;          /* cells where its plan has a verified time */
    int best;              /* cells where it is the best generated plan (ties count) */
    int within_generated;  /* cells within `within` of the best generated plan */
    int within_cell;       /* cells within `within` of the cell's best plan */
    double best_ratio;     /* least time / best generated time; NaN: never measured */
    double seconds;        /* wall seconds of its results that record them */
    int timed;             /* results with wall seconds */
} gdt_row_win;

typedef struct gdt_row_wins {
    const char *row_family; /* "contraction", "attention_fwd", "attention_bwd" */
    double within;          /* a fraction: 0.02 for 2% */
    /* true: "the best generated plan" of a cell is the best of the plans
     * these rows bind there (how the rows fare among themselves: a
     * template form's rows alone, as an arch without the others gets
     * them); false: of every NVRTC plan the cell measured. */
    bool among_rows;
    gdt_row_win *rows;      /* one per row of the family, in row order */
    int nrows;
    int cells;              /* journal cells of the slot's family read */
    int plans;              /* the slot's plans listed in those cells */
    double seconds;         /* their wall seconds, where recorded */
} gdt_row_wins;

/* Sets up w for row_family's rows in t (w->rows calloc'd).  NO_MEMORY, or
 * BAD_INPUT when t has no such family. */
gdt_status gdt_row_wins_init(gdt_row_wins *w, const gdt_row_table *t, const char *row_family,
                             double within, bool among_rows, gdt_error *e);
/* Adds the cells of run r whose family an NVRTC slot of w's row family
 * serves. */
gdt_status gdt_row_wins_add(gdt_row_wins *w, const gdt_row_table *t, const gdt_run *r, gdt_error *e);
gdt_row_verdict gdt_row_wins_verdict(const gdt_row_win *row);
void gdt_row_wins_free(gdt_row_wins *w);

#endif
