/* raw.h5's per-cell table of plans: /<family>/cell_NNN/plans, one row per
 * plan of the cell's list (a compound dataset: pandas.DataFrame(ds[:]) is
 * the whole cell in one read; docs/formats.md lists its columns).  Private
 * to reports/ (rawh5.c), like the string type both write. */
#ifndef GDT_RAWH5_PLANS_H
#define GDT_RAWH5_PLANS_H

#include <hdf5.h>
#include <stdbool.h>

#include "gdt_run.h"

/* raw.h5's string type, variable-length UTF-8 (docs/formats.md: raw.h5),
 * for the attributes and the plans' text columns alike; -1 when HDF5
 * fails, else the caller closes it. */
static inline hid_t gdt__rawh5_utf8_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* Writes the cell's `plans` dataset into the open group g; false when an
 * HDF5 call fails (the caller names the place). */
bool gdt_rawh5_plans_write(hid_t g, const gdt_run_cell *c);

#endif
