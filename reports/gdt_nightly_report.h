/* The reviewer's report of one `gdtune nightly`: nightly.md with, per
 * cell, the committed and the new winner with their noise and the diff's
 * verdict, and two gnuplot figures (old against new winner time per cell
 * with noise bars; history.tsv's winner time per cell per night).  Written
 * like the other reports (gdt_gnuplot.h): numbers in data files, every
 * string quoted, only relative file names in the script.  Private to
 * reports/ and the nightly verb. */
#ifndef GDT_NIGHTLY_REPORT_H
#define GDT_NIGHTLY_REPORT_H

#include <stdbool.h>

#include "gdtune/gdtune.h"

typedef struct gdt_nightly_in {
    const char *old_tables; /* the committed tables directory (DIR/sm<arch>/...) */
    const char *new_tables; /* the staged one; its arch folders are the ones reported */
    unsigned families;      /* 1u << gdt_family of each family of the night */
    const char *diff_json;  /* `tables diff --format json` of the two; NULL: nothing committed yet */
    const char *history;    /* history.tsv's text; NULL: none */
    const char *date;       /* YYYYMMDD */
    /* The confirmation's JSON (gdtune.confirm/1, gdt_confirm.h): which
     * changes held in interleaved rounds and which dissolved; NULL: none
     * ran (nothing beyond noise, or --confirm-rounds 0). */
    const char *confirm_json;
} gdt_nightly_in;

#define GDT_NIGHTLY_MD "nightly.md"
#define GDT_NIGHTLY_WINNERS "nightly_winners.svg"
#define GDT_NIGHTLY_HISTORY "nightly_history.svg"

/* Writes nightly.md, nightly.gp and its data files into dir, then runs
 * gnuplot there.  Without gnuplot in PATH the markdown says how to draw
 * the figures later; *drawn says whether they were drawn.  A table that
 * does not load is BAD_INPUT with the loader's message. */
gdt_status gdt_nightly_report_write(const gdt_nightly_in *in, const char *dir, bool *drawn, gdt_error *e);

#endif
