/* engines/gdt_plan_json.h — a plan's identity in JSON, one spelling for the
 * journal, the worker protocol and the tables.  Private.
 *
 *   "plan": NAME, "engine_id": ID, "knobs": {KNOB_NAME: value, ...}
 *
 * NAME is what gdt_plan_id_format prints for (engine_id, knobs); knob names
 * are the knob table's (gdt_knob_name, gdt_knob_parse); knobs in the name's
 * order.  Journals before 2026-12-06 spelled a plan
 * {"engine_id": ID, "knobs": [[type, value], ...], "name": NAME}: the reader
 * takes that spelling where the caller allows it (GDT_PLAN_JSON_OLD_OK),
 * the writer never writes it. */
#ifndef GDT_PLAN_JSON_H
#define GDT_PLAN_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gdtune/gdtune.h"

/* The identity's members as text, the tables' layout:
 * `"plan": "gemm.nvrtc[TILE_M=128]", "engine_id": 20000, "knobs": {"TILE_M": 128}`
 * (no braces: the caller's object holds more).  Returns the length it
 * needed, as snprintf; buf is cut (NUL-terminated) when n is too small. */
int gdt_plan_json_print(const gdt_plan_id *id, char *buf, size_t n);

/* The same members as a new cJSON object (the journal's and the worker's
 * plan objects, which add their own members after them); NULL: out of
 * memory. */
cJSON *gdt_plan_json(const gdt_plan_id *id);

/* Reads the members of o written above into *id (normalized) and, when name
 * is not NULL, points *name at the plan's name inside o.  old_ok: the
 * spelling of journals before 2026-12-06 is taken as well.  BAD_INPUT
 * "<at>: <jp>/<member>: expected ..., got ..." for a missing or mistyped
 * member, an unknown knob name, a knob given twice, more than
 * GDT_MAX_KNOBS knobs, or a name other than what engine_id and knobs print
 * as.  Other members of o are the caller's. */
gdt_status gdt_plan_json_read(const cJSON *o, const char *at, const char *jp, bool old_ok,
                              gdt_plan_id *id, const char **name, gdt_error *e);

#endif
