/* --format csv and the one emitter of a verb's JSON document by --format
 * (cli/cli_csv.c).  Its own header, so the option table (gdt_cli_options.h)
 * and the emitter do not reach each other. */
#ifndef GDT_CLI_CSV_H
#define GDT_CLI_CSV_H

struct cJSON;

/* --format csv (cli/cli_csv.c): the rows of a verb's JSON document are
 * the elements found along a path of nested arrays (an object there counts
 * as one element); a column is a dotted path into the element at one level
 * of that path (level -1: path is the column's constant text).  Several
 * views (same columns) write one table in turn. */
#define GDT_CLI_CSV_DEPTH 4
typedef struct gdt_cli_csv_col {
    const char *header;
    int level;
    const char *path;
} gdt_cli_csv_col;
typedef struct gdt_cli_csv_view {
    const char *arrays[GDT_CLI_CSV_DEPTH]; /* keys, outermost first */
    int depth;
    const gdt_cli_csv_col *cols;
    int ncols;
} gdt_cli_csv_view;
/* Writes doc as CSV (header from views[0]) and deletes it; the exit code. */
int gdt_cli_csv_emit(const char *verb, struct cJSON *doc, const gdt_cli_csv_view *views, int nviews);
/* JSON or CSV by format. */
int gdt_cli_doc_emit(const char *verb, struct cJSON *doc, int format, const gdt_cli_csv_view *views,
                     int nviews);

#endif
