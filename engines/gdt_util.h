/* Small private utilities shared by libgdtune and the harness. */
#ifndef GDT_UTIL_H
#define GDT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gdtune/gdtune.h"

/* The names of an enum whose X-macro map holds X(id, "name") rows: a table
 * indexed by the enum, checked at compile time to hold one name per value,
 * and `const char *fn(type v)`, v's name or unknown out of range:
 *     GDT_NAME_TABLE(GDT_FAMILY_MAP, gdt_family, GDT_FAMILY_COUNT, gdt_family_name, "unknown_family")
 * The table is fn##_table, for a parser that walks it. */
#define GDT__NAME_ROW(id, name) name,
#define GDT_NAME_TABLE(map, type, count, fn, unknown)                                              \
    static const char *const fn##_table[] = {map(GDT__NAME_ROW)};                                  \
    _Static_assert(sizeof fn##_table / sizeof *fn##_table == (count), #fn ": one name a value");   \
    const char *fn(type v) { return (unsigned)v < (unsigned)(count) ? fn##_table[v] : (unknown); }

/* A create's last step, after its init: hands obj to *out when st is
 * GDT_STATUS_OK, else destroys it; returns st (read twice: pass a variable).
 *     st = init(t, e);
 *     return GDT_CREATED(st, t, gdt_trial_destroy, out); */
#define GDT_CREATED(st, obj, destroy, out)                                                         \
    ((st) == GDT_STATUS_OK ? (*(out) = (obj), (st)) : ((destroy)(obj), (st)))

/* Prefixes e's message and sets its status (the message cannot be
 * formatted into itself). */
gdt_status gdt_error_prefix(gdt_error *e, gdt_status s, const char *prefix);

/* SHA-256 of a buffer as 64 lowercase hex characters + NUL. */
void gdt_digest_hex(const void *data, size_t n, char out[65]);

/* Reads a whole file (NUL-terminated, *len excludes the NUL); IO error names
 * the path and errno text.  Free with free().  Every reader of a path a user
 * names goes through here: the file is opened without blocking (a FIFO's
 * open would wait for a writer forever), and anything but a regular file (a
 * FIFO, a directory, a device, a socket) is refused with a message naming
 * the path and what it is, before a byte is read. */
gdt_status gdt_file_read(const char *path, char **data, size_t *len, gdt_error *e);
/* The same relative to dirfd (AT_FDCWD: the working folder), with extra
 * open flags (O_NOFOLLOW: a link at path is refused, not followed). */
gdt_status gdt_file_read_at(int dirfd, const char *path, int flags, char **data, size_t *len,
                            gdt_error *e);
/* Publish set: files that appear together or not at all.  stage writes
 * and fsyncs each file as a unique temporary <path>.tmp.<random> beside it
 * (O_EXCL|O_NOFOLLOW: never through a planted name); nothing visible
 * changes until commit renames them all, in staging order, and fsyncs
 * their folders.  A failed stage leaves the earlier stages staged; abort
 * unlinks the temporaries the set created and nothing else.  commit and
 * abort leave the set empty, so abort after commit is a no-op:
 *     gdt_publish p = {0};
 *     s = gdt_publish_stage(&p, a, ...); if (!s) s = gdt_publish_stage(&p, b, ...);
 *     if (!s) s = gdt_publish_commit(&p, e);
 *     gdt_publish_abort(&p);
 * Only a rename failing inside commit (not a full disk: rename needs no
 * space) can leave the files before it published.  Test-only: the
 * environment variable GDTUNE_TEST_FAIL_PUBLISH=N makes the N-th stage of
 * every set fail as a full disk would; GDTUNE_TEST_KILL_RENAME=N kills the
 * process before the N-th rename it commits.  commit also removes each
 * published file's stale temporaries (gdt_temps_clean). */
#define GDT_PUBLISH_MAX 8
typedef struct gdt_publish {
    int n;
    char *path[GDT_PUBLISH_MAX];
    char *tmp[GDT_PUBLISH_MAX]; /* NULL once renamed */
    int fd[GDT_PUBLISH_MAX];    /* the temporary, open and flock'ed until renamed */
} gdt_publish;
gdt_status gdt_publish_stage(gdt_publish *p, const char *path, const void *data, size_t n, gdt_error *e);
gdt_status gdt_publish_commit(gdt_publish *p, gdt_error *e);
void gdt_publish_abort(gdt_publish *p);

/* The one-file publish set: unique temporary, fsync, rename, fsync of the
 * folder.  IO error names the path. */
gdt_status gdt_file_write_atomic(const char *path, const void *data, size_t n, gdt_error *e);
/* Creates <path>.tmp.<random> beside path with O_EXCL|O_NOFOLLOW (a name
 * that exists, a planted symlink included, is never opened); *tmp is
 * malloc'd.  On failure errno is open's. */
gdt_status gdt_temp_create(const char *path, char **tmp, int *fd, gdt_error *e);
/* The one-file write relative to a folder's fd, never by a path someone
 * could swap: <name>.tmp.<random> created in dirfd with mode (O_EXCL|
 * O_NOFOLLOW), written, fsynced, renamed onto name (replacing whatever
 * non-folder sits there, never writing through it), and dirfd fsynced.  A
 * failure removes the temporary. */
gdt_status gdt_file_write_at(int dirfd, const char *name, const void *data, size_t n, mode_t mode,
                             gdt_error *e);
/* Whether name is one gdt_temp_create makes for a file named base
 * (<base>.tmp.<12 letters or digits>). */
bool gdt_temp_name_of(const char *base, const char *name);
/* Removes the temporaries of path that an earlier gdtune left behind (one
 * killed between staging and renaming): in path's folder (not through a
 * link to it), the regular files of this user named as gdt_temp_create
 * names path's that no writer holds (a publish set holds each temporary's
 * flock from creation to rename); never a link, another user's file or
 * any other name.
 * gdt_publish_commit calls it for each file it publishes. */
void gdt_temps_clean(const char *path);
/* Whether path names a folder, or a regular file (stat: through a link). */
bool gdt_path_is_dir(const char *path);
bool gdt_path_is_file(const char *path);
/* mkdir -p (folders it creates get 0755, or mode, less the umask) */
gdt_status gdt_mkdirs(const char *path, gdt_error *e);
gdt_status gdt_mkdirs_mode(const char *path, mode_t mode, gdt_error *e);

/* Control characters in text (text.c): a byte below 0x20, DEL (0x7f), and
 * the UTF-8 form of a C1 control (U+0080..U+009F).  control_at: the bytes
 * of the one s starts with (1 or 2), 0 when none; control_find: the offset
 * of the first, -1 when none. */
int gdt_text_control_at(const char *s);
long gdt_text_control_find(const char *s);
/* s for a terminal or a log: each control character written as \n, \r, \t,
 * \xHH or \u00HH (C1), the rest as is; cut to fit n bytes, ending in "..."
 * when cut.  Returns buf (n > 0). */
const char *gdt_text_escape(const char *s, char *buf, size_t n);

/* Monotonic seconds. */
double gdt_now(void);

/* v[0 .. n-1] sorted ascending, in place. */
void gdt_sort_doubles(double *v, int n);
/* The median of v[0 .. n-1] (n >= 1), v sorted in place. */
double gdt_median_inplace(double *v, int n);

/* Embedded build-time data (generated by cmake/embed.cmake). */
typedef struct gdt_embedded {
    const char *name; /* path relative to the source root, e.g. "kernels/gemm.cuh" */
    const char *data;
    size_t len;
} gdt_embedded;
const gdt_embedded *gdt_embedded_find(const char *name);
extern const gdt_embedded gdt__embedded[];
extern const int gdt__embedded_count;
/* Digest of every project source file, computed at build time. */
extern const char gdt__source_digest[];
/* Digest of the files that lower a problem to a cuDNN graph (engines/cudnn/,
 * the public headers): a cached cuDNN plan's key (cudnn_plan_cache.c). */
extern const char gdt__cudnn_digest[];

#endif
