/* `gdtune compare RUNDIR...` across its cells, per family
 * (harness/compare_summary.c): handwritten against generated, and each of
 * gdtune's sides and cuBLASLt against cuDNN's best.
 * Private to the harness and the CLI. */
#ifndef GDT_COMPARE_SUMMARY_H
#define GDT_COMPARE_SUMMARY_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "gdt_compare_runs.h"

/* The largest ratio (a handwritten plan's time over cuDNN's) the project
 * accepts in every default cell: 0.9 of cuDNN's throughput (the
 * hand-engines issue's goal). */
#define GDT_COMPARE_GOAL (1 / 0.9)

/* One side against another's best, over the cells where both have a
 * winner: ratio = the side's time / the other's (< 1: the side faster). */
typedef struct gdt_versus {
    int cells;
    int at_goal;           /* ratio <= GDT_COMPARE_GOAL */
    int beyond;            /* the side faster beyond both noises (the tables' rule) */
    double geomean, worst, best; /* of the ratio (worst: the largest); NaN with no cell */
} gdt_versus;

typedef struct gdt_compare_summary {
    gdt_family family;
    int cells;                      /* the family's cells */
    gdt_versus hand_vs_generated;   /* ratio = handwritten time / generated time */
    gdt_versus vs_cudnn[GDT_SIDE_COUNT]; /* [GDT_SIDE_CUDNN] unused */
} gdt_compare_summary;

/* One summary per family present, in gdt_family order; returns how many
 * (out holds GDT_FAMILY_COUNT). */
int gdt_compare_summarize(const gdt_comparison *c, gdt_compare_summary *out);

/* The summaries as a table: markdown (md) or aligned text. */
void gdt_compare_summary_print(FILE *f, const gdt_comparison *c, bool md);
/* The same as a JSON array (the compare document's "summary"). */
cJSON *gdt_compare_summary_json(const gdt_comparison *c);

#endif
