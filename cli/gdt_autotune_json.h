/* `gdtune autotune --format json` (gdtune.autotune/1, docs/fields.md), built
 * from the report gdt_graph_autotune fills (cli/cli_autotune_json.c).
 * Private to the CLI (cli_autotune.c) and its tests. */
#ifndef GDT_AUTOTUNE_JSON_H
#define GDT_AUTOTUNE_JSON_H

#include <cjson/cJSON.h>

#include "gdtune/autotune.h"

/* "timed", "declined" (NOT_SUPPORTED: the plan declined or failed to
 * build) or "failed" (anything else): a candidate's status as the text and
 * the document name it. */
const char *gdt__autotune_status_word(const gdt_autotune_candidate *c);

/* The whole document: key (the problem key), the device, where the
 * tables came from, the wisdom file (NULL: none), the options and the
 * report (winner >= 0).  NULL when out of memory. */
cJSON *gdt__autotune_doc(const char *key, const gdt_device_props *dev, const char *tables, const char *wisdom,
                         const gdt_autotune_opts *o, const gdt_autotune_report *r);

#endif
