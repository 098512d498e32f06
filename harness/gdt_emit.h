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

/* What an emission did, as far as it went (on a refusal: the runs read and
 * the conflicts found until then): the --format json summaries of `sweep`,
 * `tables emit` and `merge` say it.  Every string is malloc'd. */
typedef struct gdt_emit_input {
    char *path;          /* its journal */
    char *family;        /* the FAMILY argument it swept */
    int shard_i, shard_n;
    int cells;           /* the cells of its spec and shard */
    int cells_complete;  /* those whose plans all have a result */
    int cells_merged;    /* of them, those that entered the tables (a verified plan) */
    int results;         /* its result records */
} gdt_emit_input;

/* A complete cell a killed sweep cut short: left out of the tables. */
typedef struct gdt_emit_left_out {
    char *key, *path;    /* the cell's problem key, its journal */
    int results, plans;
} gdt_emit_left_out;

/* Two runs that measured one cell, or one shard: what a merge refuses. */
typedef struct gdt_emit_conflict {
    char *what;          /* the cell's key, or "shard I/N of FAMILY" */
    char *first, *second; /* the journals */
} gdt_emit_conflict;

/* One family's tables: written (tuning, placement: their paths), or not
 * (both NULL: no cell has a verified plan). */
typedef struct gdt_emit_table {
    gdt_family family;
    int cells;
    char *tuning, *placement;
} gdt_emit_table;

typedef struct gdt_emit_report {
    gdt_emit_input *inputs;
    gdt_emit_left_out *left_out;
    gdt_emit_conflict *conflicts;
    gdt_emit_table tables[GDT_FAMILY_COUNT];
    int ninputs, nleft_out, nconflicts, ntables;
} gdt_emit_report;

void gdt_emit_report_free(gdt_emit_report *r);

/* report (NULL: none wanted) receives what was read, refused and written. */
gdt_status gdt_emit_runs(gdt_run *const *runs, int nruns, const char *tables_dir,
                         gdt_emit_report *report, gdt_error *e);
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
                                   const char *tables_dir, const gdt_run_cells *validation,
                                   gdt_emit_report *report, gdt_error *e);

#endif
