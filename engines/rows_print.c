/* A row table written back as a rows file (tables/candidates/README.md):
 * what a sweep with --tuning-config keeps in its journal header and hands
 * its workers, the defaults with the file's families in their place. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_rows.h"
#include "gdt_util.h"

/* Room for one family: its key and brackets, then per row its brackets
 * and at most 20 digits and a separator per column. */
static size_t family_room(const gdt_row_family *rf, int nrows)
{
    return 32 + strlen(rf->name) + (size_t)nrows * (16 + (size_t)rf->ncols * 22);
}

static size_t print_row(char *buf, size_t cap, size_t n, const gdt_row_family *rf, const int64_t *v,
                        bool last)
{
    int w = gdt__row_written(rf, v);
    n += (size_t)snprintf(buf + n, cap - n, "      [");
    for (int c = 0; c < w; c++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, c ? ", " : "", v[c]);
    return n + (size_t)snprintf(buf + n, cap - n, "]%s\n", last ? "" : ",");
}

static size_t print_family(char *buf, size_t cap, size_t n, const gdt_row_family *rf, const int64_t *v,
                           int nrows, bool first)
{
    n += (size_t)snprintf(buf + n, cap - n, "%s    \"%s\": [\n", first ? "" : ",\n", rf->name);
    for (int r = 0; r < nrows; r++)
        n = print_row(buf, cap, n, rf, v + (size_t)r * (size_t)rf->ncols, r + 1 == nrows);
    return n + (size_t)snprintf(buf + n, cap - n, "    ]");
}

gdt_status gdt_rows_print(const gdt_row_table *t, char **text, gdt_error *e)
{
    size_t cap = 64, n = 0;
    int nrows;
    *text = NULL;
    for (int i = 0; i < gdt__row_family_count(); i++)
        if (gdt__rows_values(t, i, &nrows))
            cap += family_room(gdt__row_family_at(i), nrows);
    char *buf = malloc(cap);
    if (!buf)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "candidate rows: out of memory");
    n += (size_t)snprintf(buf, cap, "{\n  \"nvrtc\": {\n");
    bool first = true;
    for (int i = 0; i < gdt__row_family_count(); i++) {
        const int64_t *v = gdt__rows_values(t, i, &nrows);
        if (!v)
            continue;
        n = print_family(buf, cap, n, gdt__row_family_at(i), v, nrows, first);
        first = false;
    }
    snprintf(buf + n, cap - n, "\n  }\n}\n");
    *text = buf;
    return GDT_STATUS_OK;
}
