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
#include "gdt_json.h"
#include "gdt_util.h"

struct gdt_journal {
    FILE *f;
    char path[PATH_MAX];
};

const char *gdt_journal_path(const gdt_journal *j)
{
    return j->path;
}

/* A torn record is a write cut short: text that does not parse as JSON at
 * all.  A line that parses but breaks the strict rules (a duplicate key, a
 * NUL byte, text after the object) was damaged, not torn. */
static bool is_torn(const char *s, size_t n)
{
    cJSON *j = cJSON_ParseWithLength(s, n);
    cJSON_Delete(j);
    return j == NULL;
}

static gdt_status parse_record(const char *path, int line, const char *s, size_t n, cJSON **out,
                               gdt_error *e)
{
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s:%d", path, line);
    gdt_status st = gdt_json_parse(s, n, where, out, e);
    if (st == GDT_STATUS_OK && !cJSON_IsObject(*out)) {
        char got[96];
        gdt_json_describe(*out, got, sizeof got);
        cJSON_Delete(*out);
        *out = NULL;
        st = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /: expected a JSON object (one record "
                           "per line), got %s", where, got);
    }
    return st;
}

static gdt_status add_line(gdt_journal_lines *l, const char *s, size_t n, cJSON *rec, gdt_error *e)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **g = realloc(l->line, sizeof *g * (size_t)cap);
        cJSON **h = g ? realloc(l->rec, sizeof *h * (size_t)cap) : NULL;
        if (g)
            l->line = g;
        if (!h) {
            cJSON_Delete(rec);
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "journal: out of memory");
        }
        l->rec = h;
        l->cap = cap;
    }
    if (!(l->line[l->n] = strndup(s, n))) {
        cJSON_Delete(rec);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "journal: out of memory");
    }
    l->rec[l->n++] = rec;
    return GDT_STATUS_OK;
}

/* Splits data into records, each parsed strictly.  The last line may be
 * torn (left out, torn_bytes) or whole without its newline
 * (unterminated); any other bad line is damage. */
static gdt_status split_records(const char *path, const char *data, size_t len,
                                gdt_journal_lines *l, gdt_error *e)
{
    size_t pos = 0;
    for (int line = 1; pos < len; line++) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos, next = pos + n + (nl != NULL);
        cJSON *rec = NULL;
        if (next == len && is_torn(data + pos, n)) {
            l->tail.torn_bytes = len - pos;
            break;
        }
        gdt_status s = parse_record(path, line, data + pos, n, &rec, e);
        if (s == GDT_STATUS_OK)
            s = add_line(l, data + pos, n, rec, e);
        if (s != GDT_STATUS_OK)
            return s;
        l->tail.unterminated = nl == NULL;
        pos = next;
    }
    l->tail.good_bytes = pos;
    return GDT_STATUS_OK;
}

gdt_status gdt_journal_read(const char *path, gdt_journal_lines *out, gdt_error *e)
{
    memset(out, 0, sizeof *out);
    char *data = NULL;
    size_t len = 0;
    gdt_status s = gdt_file_read(path, &data, &len, e);
    if (s == GDT_STATUS_OK)
        s = split_records(path, data, len, out, e);
    free(data);
    if (s != GDT_STATUS_OK)
        gdt_journal_lines_free(out);
    return s;
}

gdt_status gdt_journal_parse(const char *text, size_t len, const char *name, gdt_journal_lines *out,
                             gdt_error *e)
{
    memset(out, 0, sizeof *out);
    gdt_status s = split_records(name, text, len, out, e);
    if (s != GDT_STATUS_OK)
        gdt_journal_lines_free(out);
    return s;
}

/* Cuts the torn tail, or ends an unterminated last record with its
 * newline: the next append starts a line of its own.  A record that parses
 * is never cut. */
gdt_status gdt_journal_repair(const char *path, const gdt_journal_tail *l, size_t *cut,
                              gdt_error *e)
{
    *cut = 0;
    if (l->torn_bytes && truncate(path, (off_t)l->good_bytes) != 0)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot cut the torn last record at byte %zu: %s",
                             path, l->good_bytes, strerror(errno));
    *cut = l->torn_bytes;
    if (!l->unterminated)
        return GDT_STATUS_OK;
    int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    bool ok = fd >= 0 && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
    int err = errno;
    if (fd >= 0)
        close(fd);
    if (!ok)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot end the last record with a newline: %s",
                             path, strerror(err));
    return GDT_STATUS_OK;
}

gdt_status gdt_journal_open(const char *dir, bool resume, gdt_journal **out, gdt_error *e)
{
    *out = NULL;
    gdt_status s = gdt_mkdirs(dir, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt_journal *j = calloc(1, sizeof *j);
    if (!j)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "journal: out of memory");
    snprintf(j->path, sizeof j->path, "%s/%s", dir, GDT_JOURNAL_NAME);
    struct stat st;
    bool exists = lstat(j->path, &st) == 0;
    if (resume && !exists)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: no journal to resume (expected a run "
                          "directory written by `gdtune sweep --out`)", j->path);
    else if (!resume && exists)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: a journal already exists: resume it with "
                          "--resume %s or choose another --out", j->path, dir);
    else if (exists && !S_ISREG(st.st_mode))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: expected a regular file, got %s", j->path,
                          S_ISLNK(st.st_mode) ? "a symbolic link" : "another kind of file");
    int fd = -1;
    if (s == GDT_STATUS_OK) {
        int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | (resume ? 0 : O_CREAT | O_EXCL);
        fd = open(j->path, flags, 0644);
    }
    if (s == GDT_STATUS_OK && (fd < 0 || !(j->f = fdopen(fd, "a"))))
        s = gdt_error_set(e, GDT_STATUS_IO, "%s: cannot open for appending: %s", j->path,
                          strerror(errno));
    if (s != GDT_STATUS_OK) {
        if (fd >= 0 && !j->f)
            close(fd);
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

void gdt_journal_lines_free(gdt_journal_lines *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n; i++) {
        free(l->line[i]);
        cJSON_Delete(l->rec[i]);
    }
    free(l->line);
    free(l->rec);
    memset(l, 0, sizeof *l);
}
