/* `gdtune candidates` with --journal (cli/cli_candidates_wins.c): which
 * rows earn their place, from sweep journals.  Shared between the verb's
 * two files. */
#ifndef GDT_CLI_CANDIDATES_H
#define GDT_CLI_CANDIDATES_H

#include "gdtune/candidates.h"

#define GDT_CLI_CANDIDATES_VERB "gdtune candidates"
#define GDT_CLI_CANDIDATES_MAX_JOURNALS 16

typedef struct gdt_cli_wins_args {
    const gdt_row_table *rows;
    const char *tuning_config;  /* NULL: the default rows only */
    unsigned families;          /* the FAMILY argument's mask */
    const char *const *journals;/* run directories */
    int njournals;
    double within_pct;          /* < 0: the first journal's noise floor */
    bool among_rows;            /* --among-rows: the best generated plan of the rows given */
    int format;                 /* GDT_CLI_FORMAT_* */
} gdt_cli_wins_args;

/* Where a row family's rows come from: tuning_config when it names the
 * family, else the default table's path (cli/cli_rows_source.c). */
const char *gdt__cli_rows_source(const char *tuning_config, const char *row_family);
/* The per-row tallies of every NVRTC row family the families serve; the
 * exit code. */
int gdt__cli_candidates_wins(const gdt_cli_wins_args *a);

#endif
