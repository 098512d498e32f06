/* How emit.c fills a gdt_emit_report (emit_report.c).  Each is a no-op
 * for rep NULL (no summary wanted); NO_MEMORY when an item cannot be
 * kept.  Private to emission. */
#ifndef GDT_EMIT_REPORT_H
#define GDT_EMIT_REPORT_H

#include "gdt_emit.h"

/* Run r read: its journal, shard, cells and results. */
gdt_status gdt__emit_report_input(gdt_emit_report *rep, const gdt_run *r, gdt_error *e);
/* One more cell of the last run read entered the tables. */
void gdt__emit_report_taken(gdt_emit_report *rep);
gdt_status gdt__emit_report_left_out(gdt_emit_report *rep, const char *key, const char *path, int results,
                                     int plans, gdt_error *e);
gdt_status gdt__emit_report_conflict(gdt_emit_report *rep, const char *what, const char *first,
                                     const char *second, gdt_error *e);
/* Family f's tables written into dir with cells cells; dir NULL: none
 * written (no cell has a verified plan). */
gdt_status gdt__emit_report_table(gdt_emit_report *rep, gdt_family f, int cells, const char *dir, gdt_error *e);

#endif
