/* Candidate rows (tables/candidates/README.md): complete rows of integers per provider
 * namespace and structural family, projected onto typed domains, filtered
 * by complete-row legality, deduplicated.  No Cartesian products. */
#ifndef GDTUNE_CANDIDATES_H
#define GDTUNE_CANDIDATES_H

#include "gdtune/gdtune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loaded rows of one provider namespace ("nvrtc"), every structural family. */
typedef struct gdt_row_table gdt_row_table;

/* The default table's path in the source tree: embedded from it at build
 * time, and what diagnostics and provenance name. */
#define GDT_ROWS_DEFAULT_PATH "tables/candidates/nvrtc.json"

/* The default table embedded at build time from GDT_ROWS_DEFAULT_PATH. */
gdt_status gdt_rows_load_default(gdt_row_table **out, gdt_error *e);
/* A table from a file: every structural family it names must be complete. */
gdt_status gdt_rows_load_file(const char *path, gdt_row_table **out, gdt_error *e);
gdt_status gdt_rows_load_text(const char *text, size_t len, const char *path_for_messages,
                              gdt_row_table **out, gdt_error *e);
/* --tuning-config: each family the file names replaces that family's rows as
 * a group; omitted families keep theirs.  All-or-nothing: on error *t is
 * unchanged. */
gdt_status gdt_rows_override(gdt_row_table *t, const char *path, gdt_error *e);
void gdt_rows_destroy(gdt_row_table *t);

/* Number of rows a structural family holds (0 when absent). */
int gdt_rows_count(const gdt_row_table *t, const char *row_family);

/* One row materialized for one problem: the plan it binds, or the reason it
 * was rejected.  requested/bound hold the row as written and as bound, in
 * schema column order. */
#define GDT_MAX_COLUMNS 16
typedef struct gdt_candidate {
    int row_index;
    gdt_plan_id id;
    bool rejected;
    bool duplicate_of_earlier; /* deduplicated: identical bound plan at dup_of */
    int dup_of;
    char reason[256];
    int ncols;
    int64_t requested[GDT_MAX_COLUMNS];
    int64_t bound[GDT_MAX_COLUMNS];
} gdt_candidate;

/* Materializes every row of the slot's structural family for the facts:
 * projection, problem-fixed dimensions, legality by complete row from the
 * arch's limits and the family's rules, deduplication.  *out is malloc'd
 * (free()); *n counts all rows, rejected and duplicates included. */
gdt_status gdt_candidates_materialize(const gdt_row_table *t, const gdt_engine_slot *slot,
                                      const gdt_facts *f, gdt_candidate **out, int *n,
                                      gdt_error *e);

/* The table as a rows file: the format gdt_rows_load_text reads, each
 * family it holds in registry order, one row a line in its shortest form
 * (trailing optional columns at their absent value left out), so that it
 * loads back to the same rows and digest.  *text is malloc'd (free()),
 * NUL-terminated. */
gdt_status gdt_rows_print(const gdt_row_table *t, char **text, gdt_error *e);

/* Digest (hex sha256-like, 16 hex chars is enough for provenance) of the
 * table's canonical content. */
void gdt_rows_digest(const gdt_row_table *t, char out[65]);

#ifdef __cplusplus
}
#endif
#endif
