/* The journal's contract: every field of every record type declared once,
 * as rows of a table (key, kind, required, range, the table of a nested
 * object), with the record-local rules beside it (record.c).  The writer
 * (run_write.c) checks each record against its table before appending it
 * and the strict reader (run.c) checks each record it reads against the
 * same table, so a writer cannot append a record the reader refuses.  What
 * ties records together (a plan index below its cell's plan count, one
 * result per plan, ...) is the reader's alone: it needs the run.
 *
 * The ranges are what the writer can produce, not what a run usually
 * shows: every time a worker reply measures falls inside one worker call,
 * which the sweep kills at its deadline (docs/journal.md).  Private to the
 * harness. */
#ifndef GDT_RECORD_H
#define GDT_RECORD_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gdt_limits.h"
#include "gdt_run.h"
#include "gdt_table.h"
#include "gdtune/gdtune.h"

/* Record type t's table. */
const gdt__table *gdt__record_table(gdt_record_type t);

/* o at JSON path jp (a record: "") holds only t's keys (exact case, each
 * once), each of its kind and range, every required one present, nested
 * objects by their tables, and passes t's rule; a record's "type" is t's.
 * Else BAD_INPUT "AT: /json/path: expected ..., got ...". */
gdt_status gdt__record_check(const gdt__table *t, const char *at, const char *jp, const cJSON *o,
                             gdt_error *e);

/* The one message of the contract: BAD_INPUT "AT: JP: expected EXPECTED,
 * got <got described>" (got NULL: "nothing (missing)"). */
gdt_status gdt__record_wrong(const char *at, const char *jp, const char *expected, const cJSON *got,
                             gdt_error *e);

#endif
