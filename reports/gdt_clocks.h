/* The SM clock a plan's metric was measured at, for the report's "SM clock
 * of the metric" section (clocks.c).  Private to reports/.  docs/method.md, "The
 * decision metric and the power cap", says why a reviewer needs it. */
#ifndef GDT_CLOCKS_H
#define GDT_CLOCKS_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "gdt_metric_clock.h"
#include "gdt_run.h"

/* Over this spread of the top plans' median clocks the report marks a cell:
 * its order may be the clock's, not the kernels'. */
#define GDT_CLOCK_GAP 0.05

/* The spread of the medians of the cell's n plans (max / min - 1); false
 * when fewer than two of them have a clock. */
bool gdt_clock_gap(const gdt_run_cell *c, const int *plans, int n, double *gap);

/* The summary's section, over each cell's three fastest verified plans
 * measured in full. */
void gdt_clocks_markdown(FILE *f, const gdt_run *run);

/* The same for one cell of --format json: {"plans":[...], "gap":x|null}. */
cJSON *gdt_clocks_json(const gdt_run_cell *c);

#endif
