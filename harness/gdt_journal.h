/* The run journal: run-dir/journal.jsonl, one JSON object per line,
 * appended and made durable (fflush + fsync) record by record, so a sweep
 * killed at any instant loses at most the record being written.  Readers cut
 * a torn last record off before they trust the file.  Private to the
 * harness. */
#ifndef GDT_JOURNAL_H
#define GDT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "gdtune/gdtune.h"

#define GDT_JOURNAL_NAME "journal.jsonl"

typedef struct gdt_journal gdt_journal;

/* Opens <dir>/journal.jsonl for appending (dir is created).  With resume the
 * file must exist and its torn tail, if any, is cut off first (*cut gets the
 * bytes removed, may be NULL); without resume the file must not exist yet
 * (a run directory is never overwritten). */
gdt_status gdt_journal_open(const char *dir, bool resume, gdt_journal **out, size_t *cut,
                            gdt_error *e);
/* Appends one record (a JSON object, no newline inside) and makes it
 * durable before returning. */
gdt_status gdt_journal_append(gdt_journal *j, const char *record, gdt_error *e);
void gdt_journal_close(gdt_journal *j);

/* Truncates a journal file to its last complete record: a last line with no
 * newline, or one that does not parse as a JSON object, is torn.  *cut gets
 * the bytes removed (0 when intact). */
gdt_status gdt_journal_repair(const char *path, size_t *cut, gdt_error *e);

/* The complete records of a journal, in order (a torn tail is ignored, not
 * removed).  A malformed record before the last is BAD_INPUT naming the file
 * and line. */
typedef struct gdt_journal_lines {
    char **line;   /* NUL-terminated JSON objects */
    int n;
    size_t torn_bytes; /* bytes of an ignored torn tail */
} gdt_journal_lines;

gdt_status gdt_journal_read(const char *path, gdt_journal_lines *out, gdt_error *e);
void gdt_journal_lines_free(gdt_journal_lines *l);

#endif
