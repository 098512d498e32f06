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

#include "gdt_run.h"
#include "gdtune/gdtune.h"

/* The longest worker call a journal can hold the figures of: --deadline
 * is at most GDT_DEADLINE_MAX, and without it a plan's deadline (build,
 * verification, 3 x (1 + GDT_CONTENDER_FACTOR) x GDT_PLAN_SECONDS_MAX of
 * measurement, the heat-up, margins: about 9 hours) stays below it.  A
 * heat-up runs whole bursts, so heat_s passes heat_seconds by up to one
 * burst, and one burst of GDT_BURST_MAX calls may take any part of it. */
#define GDT_RECORD_CALL_S GDT_DEADLINE_MAX
/* A rounds call: one plan deadline per plan. */
#define GDT_RECORD_ROUNDS_S (GDT_ROUNDS_PLANS_MAX * GDT_RECORD_CALL_S)
/* A time per call in microseconds: at most the whole call. */
#define GDT_RECORD_US (GDT_RECORD_CALL_S * 1e6)
/* The lanes a sweep runs (one worker per GPU). */
#define GDT_RECORD_GPUS 1024
/* The largest count and number a field takes when nothing bounds it
 * closer (2^53 - 1: JSON's exact integers). */
#define GDT_RECORD_BIG 9007199254740991.0

typedef enum gdt__kind {
    GDT__STR,
    GDT__NAME,      /* a string without control characters (names terminals and reports print) */
    GDT__INT,
    GDT__NUM,
    GDT__BOOL,
    GDT__OBJ,       /* an object: sub's fields when sub is set */
    GDT__OBJ_NULL,  /* the same, or null */
    GDT__ARR,       /* an array of anything (a rule checks it) */
    GDT__OBJS,      /* an array of objects, each of sub's fields */
    GDT__NUMS,      /* an array of numbers, each in [lo, hi] */
    GDT__NUMS_NULL, /* the same, null allowed (a figure that is not finite) */
    GDT__STRS,      /* an array of strings */
    GDT__KIND_COUNT
} gdt__kind;

typedef struct gdt__table gdt__table;

typedef struct gdt__field {
    const char *key;
    gdt__kind kind;
    bool required;
    double lo, hi;         /* INT, NUM and each item of NUMS */
    const gdt__table *sub; /* OBJ, OBJ_NULL, OBJS: the nested object's table */
    double def;            /* INT, NUM: what an absent optional field stands for */
} gdt__field;

/* A rule: what one object must hold beyond its fields' kinds and ranges
 * (at: "<file>:<line>", jp: the object's JSON path), run once they pass. */
typedef gdt_status (*gdt__rule)(const char *at, const char *jp, const cJSON *o, gdt_error *e);

struct gdt__table {
    const char *type; /* a record's "type" value; NULL for a nested object */
    const gdt__field *f;
    int n;
    gdt__rule rule;   /* NULL: none */
};

/* The worker protocol's tables (gdt_wire.h), indexed by gdt__wire_msg: the
 * journal's tables of the objects a reply nests point at them. */
extern const gdt__table gdt__wire_tables[];

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
