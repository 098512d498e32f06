/* A sweep's prior order ("wisdom", as FFTW's): the tuning tables of an
 * earlier sweep say in which order a cell's plans ranked, and the sweep
 * measures them in that order first (prior.c).  Racing's bar is only as
 * tight as the plans measured first, so a cell whose likely winners come
 * first races the rest out sooner.  Measured numbers never depend on the
 * order; only which plans race out can (docs/racing.md).
 *
 * A table that is missing is no prior for its family; one the loader
 * refuses is left out with a warning naming the file (a stale prior never
 * stops a nightly); the run header records which tables were used, by path
 * and sha256, and which not, and why.  Private to the harness. */
#ifndef GDT_PRIOR_H
#define GDT_PRIOR_H

#include <cjson/cJSON.h>

#include "gdtune/gdtune.h"

typedef struct gdt_prior gdt_prior;

/* The tuning tables dir/sm<arch>/<family>.tuning.json (with their
 * placement pair: gdt_tables_load) of each family in families (1u <<
 * gdt_family).  NO_MEMORY only: a table that cannot be used is noted. */
gdt_status gdt_prior_load(const char *dir, unsigned families, int arch, gdt_prior **out,
                          gdt_error *e);

/* The prior a run header recorded (gdt_prior_json), as the journal's
 * reader typed it (gdt_run.h), for --resume: each table it used is loaded
 * again and must still have the recorded sha256; one missing or changed is
 * left out with a warning.  None recorded (JSON null, or absent) is no
 * prior: *out NULL.  NO_MEMORY only. */
struct gdt_run_prior;
gdt_status gdt_prior_reload(const struct gdt_run_prior *recorded, int arch, gdt_prior **out,
                            gdt_error *e);

void gdt_prior_destroy(gdt_prior *p);

/* What the run header records: {"dir": ..., "tables": [{"family", "path",
 * "sha256"} for a table used, {"family", "path", "note"} for one not]};
 * JSON null for a NULL prior.  NULL only out of memory. */
cJSON *gdt_prior_json(const gdt_prior *p);

/* One line for the sweep's stderr: which tables order the cells. */
void gdt_prior_describe(const gdt_prior *p, char *buf, size_t n);

/* Reorders order[0..n) (indices into plans, a cell's plan list as
 * journaled, in untimed order): the plans the prior ranks for the cell of
 * family f and key come first, in the ranking's order (matched by the
 * plans' "name"), the rest after them in the order they had.  Returns how
 * many the prior placed (0: the prior has no such cell; p may be NULL). */
int gdt_prior_order(const gdt_prior *p, gdt_family f, const char *key, const cJSON *plans,
                    int *order, int n);

#endif
