/* Column schemas of the structural families, declared once, and their
 * complete-row legality rules.  Private to libgdtune.
 *
 * A schema is data: each column has a name, a kind, a typed domain used by
 * projection, the knob it binds in the plan identity, and (for text) what it
 * binds in the kernel.  A family's `bind` hook applies problem-fixed
 * dimensions and resource rules to one projected row: it may adjust values
 * within the row or reject it with a reason; it never adds rows. */
#ifndef GDT_ROWS_H
#define GDT_ROWS_H

#include "gdtune/candidates.h"

typedef enum gdt_col_kind { GDT_COL_INT, GDT_COL_BOOL, GDT_COL_ENUM } gdt_col_kind;

typedef struct gdt_column {
    const char *name;       /* JSON-facing name, e.g. "BM" */
    gdt_col_kind kind;
    const int64_t *domain;  /* ascending; projection target */
    int ndomain;
    int knob;               /* knob type the bound value is recorded under */
    const char *binds;      /* what it binds in the kernel */
    int problem_axis;       /* which problem extent caps the request (see gdt_row_axis), or -1 */
    /* An optional column: a row may end before it (and every column after
     * it, all optional too), which means `absent`; a bound value equal to
     * `absent` is not recorded in the plan identity, and a plan without
     * the knob reads `absent`.  So a column added to a schema leaves the
     * rows and plan names of before as they were. */
    bool optional;
    int64_t absent;
} gdt_column;

/* Problem extents a column's request may be capped by (to the next power of
 * two at or above the extent), before projection onto the domain. */
enum gdt_row_axis { GDT_AXIS_M = 0, GDT_AXIS_N, GDT_AXIS_K, GDT_AXIS_SQ, GDT_AXIS_SKV };

/* bind: row[] holds the projected values in column order; the hook may adjust
 * them (problem-fixed dims, resource rules) or return false with *why set. */
typedef bool (*gdt_row_bind_fn)(int64_t *row, const gdt_facts *f, const gdt_device_props *limits,
                                char *why, size_t nwhy);

typedef struct gdt_row_family {
    const char *name;      /* "contraction", "attention_fwd", "attention_bwd" */
    const gdt_column *cols;
    int ncols;
    gdt_row_bind_fn bind;
} gdt_row_family;

/* The table of structural families (rows_*.c provide the entries). */
const gdt_row_family *gdt__row_family_find(const char *name);
int gdt__row_family_count(void);
const gdt_row_family *gdt__row_family_at(int i);
/* The columns every row of rf writes: those before its trailing optional ones. */
int gdt__row_family_required(const gdt_row_family *rf);
/* The columns row v of rf writes in its shortest form: up to its last one
 * that is not an optional column at its absent value. */
int gdt__row_written(const gdt_row_family *rf, const int64_t *v);
/* The rows t holds of the family at registry index `family` (nrows *
 * ncols values, row-major), NULL and *nrows 0 when t does not name it. */
const int64_t *gdt__rows_values(const gdt_row_table *t, int family, int *nrows);

extern const gdt_row_family gdt__rows_contraction;   /* engines/rows_contraction.c */
extern const gdt_row_family gdt__rows_attention_fwd; /* engines/rows_attention.c */
extern const gdt_row_family gdt__rows_attention_bwd; /* engines/rows_attention.c */


#endif
