/* The --format json summaries of `sweep` (gdtune.sweep_summary/1),
 * `tables emit` and `merge` (gdtune.tables_emit/1, gdtune.merge/1) and
 * `tables check` (gdtune.tables_check/1): one document on stdout each,
 * its fields in docs/formats.md.  Each builder returns NULL when out of
 * memory (gdt_cli_json_emit says so). */
#ifndef GDT_CLI_SUMMARY_H
#define GDT_CLI_SUMMARY_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gdt_cli_options.h"
#include "gdt_emit.h"
#include "gdt_run.h"
#include "gdt_sweep.h"

#define GDT_CLI_SCHEMA_SWEEP "gdtune.sweep_summary/1" /* gdtune.sweep/1 is the spec's */
#define GDT_CLI_SCHEMA_EMIT "gdtune.tables_emit/1"
#define GDT_CLI_SCHEMA_MERGE "gdtune.merge/1"
#define GDT_CLI_SCHEMA_CHECK "gdtune.tables_check/1"

/* ------------------------------------------------ emission (cli_summary_emit.c) */

/* Adds what rep wrote and left out to doc: "tables" (each written family:
 * family, cells, tuning, placement, model), "not_written" (families with
 * no verified cell), "left_out" (cells cut short: key, journal, results,
 * plans). */
bool gdt__cli_emit_tables_json(cJSON *doc, const gdt_emit_report *rep);

/* `tables emit` and `merge`: schema, ok, exit_code, error (NULL: none),
 * inputs (each run read), the tables as above, cells, results, conflicts. */
cJSON *gdt__cli_emit_json(const char *schema, const char *tables_dir, const gdt_emit_report *rep,
                          int exit_code, const char *error);

/* The time model a placement table records, as its JSON holds it: form,
 * lambda, lead, cv, validation (each null where absent); JSON null for a
 * file without one (a tuning table) or that does not read. */
cJSON *gdt__cli_table_model_json(const char *path);

/* ------------------------------------------------------ sweep (cli_sweep_json.c) */

typedef struct gdt_cli_sweep_outcome {
    const gdt_sweep_opts *o;
    const char *run_dir;             /* "" when the sweep stopped before it had one */
    const gdt_run *journal;          /* the finished journal; NULL: read from run_dir */
    const gdt_emit_report *emitted;  /* what the end's emission wrote */
    const char *error;               /* NULL: finished */
    int exit_code;
    double wall_s;
    bool raw_h5;                     /* RUNDIR/raw.h5 written */
} gdt_cli_sweep_outcome;

cJSON *gdt__cli_sweep_json(const gdt_cli_sweep_outcome *out);

/* ------------------------------------------------ tables check (cli_tables_json.c) */

/* One file's verdict: file, ok, kind, arch, family, cells, model (from
 * the file: valid only), error (NULL when valid: the loader's message,
 * split into file, json_path, expected and actual where it has them). */
cJSON *gdt__cli_check_file_json(const char *path, const char *error);

/* The parts of a message "FILE: /json/path: expected E, got A": each
 * NULL where the message has no such part.  Copied into the caller's
 * buffers. */
typedef struct gdt_cli_error_parts {
    char file[4096], json_path[1024], expected[2048], actual[2048];
    bool has_file, has_path, has_expected, has_actual;
} gdt_cli_error_parts;
void gdt__cli_error_split(const char *msg, const char *file, gdt_cli_error_parts *p);

#endif
