/* Where a sweep's time went: its plans' journaled measure_s and build_s
 * summed per side and per how each plan ended, for `gdtune report`'s
 * "Where the time went" (summary.md) and its JSON "budget".  Read from the
 * journal's model alone (gdt_run.h).  Private to reports/. */
#ifndef GDT_BUDGET_H
#define GDT_BUDGET_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "gdt_run.h"
#include "gdtune/gdtune.h"

/* How a plan ended, in the table's order: id, JSON name, the table's
 * words.  A verified plan is measured in full (converged or not) or raced
 * out (at the first estimate, or late: during the largest burst's series);
 * the others are their disposition. */
#define GDT_BUDGET_KINDS(X)                                                       \
    X(CONVERGED, "converged", "measured in full, converged")                      \
    X(NOT_CONVERGED, "not_converged", "measured in full, not converged (time cap)") \
    X(RACED_OUT, "raced_out", "raced out at the first estimate")                  \
    X(RACED_LATE, "raced_late", "raced out late (largest burst)")                 \
    X(DECLINED, "declined", "declined")                                           \
    X(INCORRECT, "incorrect", "incorrect")                                        \
    X(FAILED, "failed", "failed")

typedef enum gdt_budget_kind {
#define GDT_BUDGET_ENUM(id, json, words) GDT_BUDGET_##id,
    GDT_BUDGET_KINDS(GDT_BUDGET_ENUM)
#undef GDT_BUDGET_ENUM
    GDT_BUDGET_KIND_COUNT
} gdt_budget_kind;

/* Plans and the sum of their seconds (a field the journal lacks counts 0). */
typedef struct gdt_budget_row {
    int plans;
    double measure_s, build_s;
    double heat_s; /* of measure_s: the heat-ups before the metric (the results' heat_s) */
} gdt_budget_row;

typedef struct gdt_budget {
    gdt_budget_row by[GDT_PLAN_SIDE_COUNT][GDT_BUDGET_KIND_COUNT];
    /* The cells' rounds records (--rounds): the plans they measured again
     * and their measure_s (builds inside it; build_s stays 0). */
    gdt_budget_row rounds;
    int rounds_records;
    /* The cells' prebuilds (the plans records' prebuilt and prebuild_s):
     * cuDNN plans built ahead on builder threads, and the wall time that
     * took; their own build times are in the rows' build_s. */
    int prebuild_cells, prebuilt;
    double prebuild_s;
} gdt_budget;

/* Every result and rounds record of the run. */
void gdt_budget_of(const gdt_run *run, gdt_budget *out);

/* The "## Where the time went" section of summary.md. */
void gdt_budget_write_md(FILE *f, const gdt_budget *b);

/* Adds "budget" (one object per row of the table, in its order),
 * "budget_total" and, when a cell was prebuilt, "budget_prebuild" (cells,
 * plans, prebuild_s) to the report's JSON document. */
void gdt_budget_add_json(cJSON *doc, const gdt_budget *b);

#endif
