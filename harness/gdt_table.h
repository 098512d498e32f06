/* The row tables the journal's records (gdt_record.h) and the worker
 * protocol's messages (gdt_wire.h) are declared as: one row (key, kind,
 * required, range, nested table, default) per field.  Types only, no .c
 * file implements this header.  Private to the harness. */
#ifndef GDT_TABLE_H
#define GDT_TABLE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gdtune/gdtune.h"

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
    GDT__ANY,       /* any value (a rule checks it) */
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

/* The worker protocol's tables (gdt_wire.h, defined in wire.c), indexed by
 * gdt__wire_msg: the journal's tables of the objects a reply nests point
 * at them. */
extern const gdt__table gdt__wire_tables[];

#endif
