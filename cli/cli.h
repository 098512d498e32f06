/* The gdtune verbs.  Each returns the process exit code: 0 success, 1
 * failure while running, 2 bad usage or bad input.  Every verb answers
 * --help. */
#ifndef GDT_CLI_H
#define GDT_CLI_H

#include "gdtune/gdtune.h"

int gdt_cli_candidates(int argc, char **argv); /* cli/cli_candidates.c */
int gdt_cli_plans(int argc, char **argv);      /* cli/cli_plans.c */
int gdt_cli_tables(int argc, char **argv);     /* cli/cli_tables.c */
int gdt_cli_merge(int argc, char **argv);      /* cli/cli_tables.c */
int gdt_cli_sweep(int argc, char **argv);      /* cli/cli_sweep.c */
int gdt_cli_worker(int argc, char **argv);     /* cli/cli_worker.c (internal) */
int gdt_cli_bench(int argc, char **argv);      /* cli/cli_bench.c */
int gdt_cli_autotune(int argc, char **argv);   /* cli/cli_autotune.c */
int gdt_cli_report(int argc, char **argv);     /* cli/cli_report.c */
int gdt_cli_compare(int argc, char **argv);    /* cli/cli_compare.c */
int gdt_cli_nightly(int argc, char **argv);    /* cli/cli_nightly.c */
int gdt_cli_list(int argc, char **argv);       /* cli/cli_list.c */

/* `gdtune tables diff OLD NEW ...` (cli/cli_tables_diff.c); argv[0] is
 * "diff".  Returns the exit code: 0, 3, 2 or 1. */
int gdt__cli_tables_diff(int argc, char **argv);

/* The tables directory of `sweep`, `tables emit` and `merge` (NULL: the
 * default, tables), checked before any work so that an unusable one is bad
 * usage, not a failure at the end: created when missing, then proved
 * writable by creating and removing a uniquely named file in it (O_EXCL,
 * O_NOFOLLOW; nothing else there is touched).  BAD_USAGE naming the
 * directory and the errno text.  cli/cli_tables.c */
gdt_status gdt__cli_tables_dir_check(const char *dir, gdt_error *e);

#endif
