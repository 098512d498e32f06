/* Emission: the placement and tuning tables of one or more runs, from
 * their journals as the model reads them (gdt_run.h).  Every cell whose
 * plans all have a result enters, with the provenance the first run's
 * header recorded (device, versions, source and candidate digests); a cell
 * a killed sweep cut short is named and left out.  Runs must share the
 * arch, device model and sweep spec (shards of one sweep); a cell measured
 * in two runs is refused.  Tables go to <tables_dir>/sm<arch>/ (NULL:
 * ./tables).  Private to the harness. */
#ifndef GDT_EMIT_H
#define GDT_EMIT_H

#include "gdt_run.h"
#include "gdtune/gdtune.h"
#include "gdtune/tables.h"

gdt_status gdt_emit_runs(gdt_run *const *runs, int nruns, const char *tables_dir, gdt_error *e);
/* The same from run directories (`gdtune tables emit`, `gdtune merge`);
 * verb prefixes what it says on stderr. */
gdt_status gdt_emit_dirs(const char *verb, const char *const *run_dirs, int nruns,
                         const char *tables_dir, gdt_error *e);

/* The header's candidates_digest is the digest of the candidate rows it
 * records (a journal without them: nothing to check); BAD_INPUT naming
 * the journal, both digests. */
gdt_status gdt_emit_check_candidates(const gdt_run *r, gdt_error *e);

/* The complete cells of run directories' journals by family (the
 * validation sweep of `tables check --validation`, `tables emit
 * --validation`), each plan's noise at least its spec's floor. */
typedef struct gdt_run_cells {
    gdt_measured_cell *cells[GDT_FAMILY_COUNT];
    int n[GDT_FAMILY_COUNT];
} gdt_run_cells;
gdt_status gdt_run_cells_load(const char *const *run_dirs, int nruns, gdt_run_cells *out, gdt_error *e);
void gdt_run_cells_free(gdt_run_cells *v);
/* gdt_emit_dirs, the time model also scored on validation's cells (NULL:
 * none): the placement tables' model.validation. */
gdt_status gdt_emit_dirs_validated(const char *verb, const char *const *run_dirs, int nruns,
                                   const char *tables_dir,
                                   const gdt_run_cells *validation, gdt_error *e);

#endif
