/* The confirmation's rounds on the GPU (harness/confirm_run.c): the worker
 * measures the plans of each change gdt_confirm.h's model names, and the
 * model decides them.  Its own header, so the model (confirm.c) does not
 * reach the worker's side.  Private to the harness; `gdtune nightly` is
 * its caller. */
#ifndef GDT_CONFIRM_RUN_H
#define GDT_CONFIRM_RUN_H

#include "gdt_confirm.h"

/* Where each family's night ran: run_dir[f] (NULL: not swept tonight)
 * holds its journal (the cells' shapes, seeds, knob cap, largest burst,
 * noise floor) and receives confirm/journal.jsonl. */
typedef struct gdt_confirm_runs {
    const char *run_dir[GDT_FAMILY_COUNT];
    const char *worker_exe;        /* NULL: /proc/self/exe */
} gdt_confirm_runs;

/* Measures (or finds journaled) the rounds of every cell c names and
 * decides its changes.  A cell whose rounds fail leaves its changes
 * unconfirmed with the reason; only a journal that cannot be read or
 * written fails the call. */
gdt_status gdt_confirm_run(gdt_confirm *c, const gdt_confirm_runs *runs, gdt_error *e);

#endif
