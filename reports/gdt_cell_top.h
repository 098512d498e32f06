/* A cell's fastest verified plans, for the report's sections (cell_top.c).
 * Private to reports/. */
#ifndef GDT_CELL_TOP_H
#define GDT_CELL_TOP_H

#include "gdt_run.h"

/* The result of plan i when it is verified, else NULL. */
const gdt_run_result *gdt_cell_verified(const gdt_run_cell *c, int i);

/* The fastest three verified plans of the cell (fewer when fewer are
 * verified), fastest first; returns how many.  With full, only those
 * measured in full (not raced out: a raced-out estimate comes from a
 * shorter burst, at another clock). */
int gdt_cell_top3(const gdt_run_cell *c, bool full, int out[3]);

#endif
