/* The run journal: append-only JSON lines, durable record by record. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_util.h"

struct gdt_journal {
    FILE *f;
    char path[PATH_MAX];
};

static bool is_object_line(const char *s, size_t n)
{
    cJSON *j = cJSON_ParseWithLength(s, n);
    bool ok = j && cJSON_IsObject(j);
    cJSON_Delete(j);
    return ok;
}

/* Length of the longest prefix made of complete, parseable records.  Only the last record may be bad (torn); an
 * earlier bad record is reported through *bad_line (1-based, else 0). */
static size_t complete_prefix(const char *data, size_t len, int *bad_line)
{
    size_t pos = 0, good = 0;
    int line = 0;
    *bad_line = 0;
    while (pos < len) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        if (!nl)
            break; /* no newline: torn */
        size_t n = (size_t)(nl - (data + pos));
        line++;
        if (!is_object_line(data + pos, n)) {
            if ((size_t)(nl - data) + 1 < len)
                *bad_line = line;
            break;
        }
        pos += n + 1;
        good = pos;
    }
    return good;
}

/* Reads PATH whole; *good: the length of its complete records.  A bad
 * record before the last is damage, not a torn write: refused. */
static gdt_status read_complete(const char *path, char **data, size_t *len, size_t *good, gdt_error *e)
{
    *data = NULL;
    *len = 0;
    gdt_status s = gdt_file_read(path, data, len, e);
    if (s != GDT_STATUS_OK)
        return s;
    int bad = 0;
    *good = complete_prefix(*data, *len, &bad);
    if (!bad)
        return GDT_STATUS_OK;
    free(*data);
    *data = NULL;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                         "%s:%d: journal record is not a JSON object and is not the last "
                         "record: the journal is damaged, not torn",
                         path, bad);
}

gdt_status gdt_journal_repair(const char *path, size_t *cut, gdt_error *e)
{
    char *data;
    size_t len, good;
    *cut = 0;
    gdt_status s = read_complete(path, &data, &len, &good, e);
    if (s != GDT_STATUS_OK)
        return s;
    free(data);
    if (good == len)
        return GDT_STATUS_OK;
    if (truncate(path, (off_t)good) != 0)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot cut the torn last record at byte %zu: %s",
                             path, good, strerror(errno));
    *cut = len - good;
    return GDT_STATUS_OK;
}

gdt_status gdt_journal_open(const char *dir, bool resume, gdt_journal **out, size_t *cut,
                            gdt_error *e)
{
    *out = NULL;
    if (cut)
        *cut = 0;
    gdt_status s = gdt_mkdirs(dir, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt_journal *j = calloc(1, sizeof *j);
    if (!j)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "journal: out of memory");
    snprintf(j->path, sizeof j->path, "%s/%s", dir, GDT_JOURNAL_NAME);
    struct stat st;
    bool exists = stat(j->path, &st) == 0;
    if (resume && !exists)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: no journal to resume (expected a run "
                          "directory written by `gdtune sweep --out`)", j->path);
    else if (!resume && exists)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: a journal already exists: resume it with "
                          "--resume %s or choose another --out", j->path, dir);
    else if (resume) {
        size_t c = 0;
        s = gdt_journal_repair(j->path, &c, e);
        if (cut)
            *cut = c;
    }
    if (s == GDT_STATUS_OK && !(j->f = fopen(j->path, "a")))
        s = gdt_error_set(e, GDT_STATUS_IO, "%s: cannot open for appending: %s", j->path,
                          strerror(errno));
    if (s != GDT_STATUS_OK) {
        free(j);
        return s;
    }
    *out = j;
    return GDT_STATUS_OK;
}

gdt_status gdt_journal_append(gdt_journal *j, const char *record, gdt_error *e)
{
    if (strchr(record, '\n'))
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "%s: a record may not hold a newline", j->path);
    if (fputs(record, j->f) < 0 || fputc('\n', j->f) == EOF || fflush(j->f) != 0 ||
        fsync(fileno(j->f)) != 0)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot append a record: %s", j->path,
                             strerror(errno));
    return GDT_STATUS_OK;
}

void gdt_journal_close(gdt_journal *j)
{
    if (!j)
        return;
    if (j->f)
        fclose(j->f);
    free(j);
}

static gdt_status split_lines(const char *path, const char *data, size_t good,
                              gdt_journal_lines *out, gdt_error *e)
{
    int cap = 64;
    out->line = malloc(sizeof *out->line * (size_t)cap);
    size_t pos = 0;
    while (out->line && pos < good) {
        const char *nl = memchr(data + pos, '\n', good - pos);
        size_t n = (size_t)(nl - (data + pos));
        if (out->n == cap) {
            char **g = realloc(out->line, sizeof *g * (size_t)(cap *= 2));
            if (!g)
                break;
            out->line = g;
        }
        if (!(out->line[out->n] = strndup(data + pos, n)))
            break;
        out->n++;
        pos += n + 1;
    }
    if (pos < good || !out->line) {
        gdt_journal_lines_free(out);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory reading the journal", path);
    }
    return GDT_STATUS_OK;
}

gdt_status gdt_journal_read(const char *path, gdt_journal_lines *out, gdt_error *e)
{
    memset(out, 0, sizeof *out);
    char *data;
    size_t len, good;
    gdt_status s = read_complete(path, &data, &len, &good, e);
    if (s != GDT_STATUS_OK)
        return s;
    s = split_lines(path, data, good, out, e);
    out->torn_bytes = len - good;
    free(data);
    return s;
}

void gdt_journal_lines_free(gdt_journal_lines *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n; i++)
        free(l->line[i]);
    free(l->line);
    memset(l, 0, sizeof *l);
}
