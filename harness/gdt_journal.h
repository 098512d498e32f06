/* The run journal: run-dir/journal.jsonl, one JSON object per line,
 * appended and made durable (fflush + fsync) record by record, so a sweep
 * killed at any instant loses at most the record being written.  The
 * model of what the records mean, and their checks, is gdt_run.h.  Private to the
 * harness. */
#ifndef GDT_JOURNAL_H
#define GDT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gdtune/gdtune.h"

#define GDT_JOURNAL_NAME "journal.jsonl"

typedef struct gdt_journal gdt_journal;

/* Opens <dir>/journal.jsonl for appending (dir is created).  With resume the
 * file must exist (repair it first: gdt_journal_repair); without resume it
 * must not (a run directory is never overwritten).  Never through a
 * symbolic link. */
gdt_status gdt_journal_open(const char *dir, bool resume, gdt_journal **out, gdt_error *e);
/* Appends one record (a JSON object, no newline inside) and makes it
 * durable before returning. */
gdt_status gdt_journal_append(gdt_journal *j, const char *record, gdt_error *e);
void gdt_journal_close(gdt_journal *j);
/* <dir>/journal.jsonl, as opened. */
const char *gdt_journal_path(const gdt_journal *j);

/* The records of a journal, in order, each parsed by the strict JSON
 * reader (gdt_json_parse: exact keys, no duplicates, no NUL byte, no text
 * after the object).  Only the last line may be torn, that is not parse as
 * JSON at all: it is left out (torn_bytes), not removed.  Any other bad
 * line is BAD_INPUT "<path>:LINE: ...". */
typedef struct gdt_journal_tail {
    size_t good_bytes; /* the length of the whole records */
    size_t torn_bytes; /* bytes of a torn tail left out */
    bool unterminated; /* the last record is whole but has no newline */
} gdt_journal_tail;

typedef struct gdt_journal_lines {
    char **line;       /* the records' text, NUL-terminated */
    cJSON **rec;       /* the records, parsed (owned; a reader may take one and set NULL) */
    int n, cap;
    gdt_journal_tail tail;
} gdt_journal_lines;

gdt_status gdt_journal_read(const char *path, gdt_journal_lines *out, gdt_error *e);
/* The same from text; name stands for the path in messages. */
gdt_status gdt_journal_parse(const char *text, size_t len, const char *name, gdt_journal_lines *out,
                             gdt_error *e);
void gdt_journal_lines_free(gdt_journal_lines *l);

/* Makes the file at path end after its last whole record, as read into
 * tail: cuts a torn tail (*cut gets the bytes removed) and ends an
 * unterminated record with its newline.  Call it only once a resume has
 * been checked and goes ahead. */
gdt_status gdt_journal_repair(const char *path, const gdt_journal_tail *tail, size_t *cut,
                              gdt_error *e);

#endif
