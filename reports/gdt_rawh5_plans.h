/* raw.h5's per-cell table of plans: /<family>/cell_NNN/plans, one row per
 * plan of the cell's list (a compound dataset: pandas.DataFrame(ds[:]) is
 * the whole cell in one read; docs/formats.md lists its columns).  Private
 * to reports/ (rawh5.c). */
#ifndef GDT_RAWH5_PLANS_H
#define GDT_RAWH5_PLANS_H

#include <hdf5.h>
#include <stdbool.h>

#include "gdt_run.h"

/* Writes the cell's `plans` dataset into the open group g; false when an
 * HDF5 call fails (the caller names the place). */
bool gdt_rawh5_plans_write(hid_t g, const gdt_run_cell *c);

#endif
