/* The compiled-kernel cache: one file per compile, written to a temporary
 * name, flushed and renamed; compiles of one key serialize on a lock file so
 * that the second finds the first one's entry; every load re-checks the
 * embedded key and checksum; stale environments are pruned past a size cap.
 * Anything doubtful is a miss, never an error.
 *
 * The root may be shared (GDTUNE_CACHE_DIR=~/.cache) and anyone who can write
 * it can plant links and FIFOs, so nothing below the root is reached through
 * a link (openat with O_NOFOLLOW relative to the opened root), an entry that
 * is not a regular file is a miss, and the pruner touches only folders named
 * like an environment that hold the marker gdtune writes when it creates one,
 * and in them only names gdtune writes.
 *
 * Whoever can write the root or an environment folder can also forge an
 * entry (its key, size and SHA-256 are no secret), so the root and the
 * environment must be owned by this user and writable by nobody else; a
 * folder that is not is ignored, with one warning per process, and the
 * compile goes without the cache.  gdtune creates its folders 0700 and its
 * files 0600. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gdt_nvrtc_cache.h"
#include "gdt_util.h"

#define MARKER "gdtune-env"
#define MARKER_TEXT "GDTUNE-CACHE-ENV 1\n"
#define HEX "0123456789abcdef"
#define ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

const char *gdt_nvrtc_cache_root(char *buf, size_t n)
{
    const char *off = getenv("GDTUNE_DISABLE_CACHE"), *dir = getenv("GDTUNE_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w = -1;
    if (off && !strcmp(off, "1"))
        return NULL;
    if (dir && *dir)
        w = snprintf(buf, n, "%s", dir);
    else if (xdg && *xdg)
        w = snprintf(buf, n, "%s/gdtune", xdg);
    else if (home && *home)
        w = snprintf(buf, n, "%s/.cache/gdtune", home);
    return w > 0 && (size_t)w < n ? buf : NULL;
}

/* ------------------------------------------------------------- names */

/* The kinds of entry (gdt_cache_kind order): the name's suffix and the
 * magic the header starts with. */
static const struct {
    const char *suffix, *magic;
} kinds[] = {
    [GDT_CACHE_CUBIN] = {".cubin", "GDTUNE-CUBIN 1\n"},
    [GDT_CACHE_CUDNN_PLAN] = {".plan", "GDTUNE-CUDNN-PLAN 1\n"},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))
_Static_assert(NKINDS == GDT_CACHE_KIND_COUNT, "cache kinds and their table disagree");

static const char *suffix_of(gdt_cache_kind k) { return kinds[k].suffix; }
static const char *magic_of(gdt_cache_kind k) { return kinds[k].magic; }

static bool env_name(const char *s) /* 16 lowercase hex digits */
{
    return strspn(s, HEX) == 16 && s[16] == '\0';
}

/* An entry's name after the key: the kind's suffix, or its temporary
 * (gdt_file_write_atomic's <suffix>.tmp.<letters and digits>). */
static bool own_entry_name(const char *s, const char *suffix)
{
    size_t n = strlen(suffix);
    if (strncmp(s, suffix, n))
        return false;
    if (!s[n])
        return true;
    if (strncmp(s + n, ".tmp.", 5))
        return false;
    s += n + 5;
    return strspn(s, ALNUM) > 0 && s[strspn(s, ALNUM)] == '\0';
}

/* The names gdtune writes in an environment: the marker, <key>.lock, and
 * each kind's entries and their temporaries. */
static bool own_name(const char *s)
{
    if (!strcmp(s, MARKER))
        return true;
    if (strspn(s, HEX) != 64)
        return false;
    s += 64;
    if (!strcmp(s, ".lock"))
        return true;
    for (int i = 0; i < NKINDS; i++)
        if (own_entry_name(s, kinds[i].suffix))
            return true;
    return false;
}

static void close_fd(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* ------------------------------------------------------------- trust */

/* Once per process: the first folder refused, and why. */
static void refuse(const char *dir, const char *env, const char *what, const struct stat *st)
{
    static atomic_flag told = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&told))
        return;
    fprintf(stderr, "gdtune: compiled-kernel cache: ignoring %s%s%s, %s (owner uid %u, mode %04o): "
            "the cache's folders must be owned by you (uid %u) and writable by nobody else, since "
            "whoever can write them can plant kernels that pass every check; compiling without the "
            "cache this run (chmod go-w it, or set GDTUNE_CACHE_DIR to a folder of your own)\n",
            dir, env ? "/" : "", env ? env : "", what, (unsigned)st->st_uid,
            (unsigned)(st->st_mode & 07777), (unsigned)geteuid());
}

/* fd's folder (named dir[/env] in the warning) is this user's alone. */
static bool trusted(int fd, const char *dir, const char *env, bool warn)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        return false;
    bool mine = st.st_uid == geteuid(), shared = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    if ((!mine || shared) && warn)
        refuse(dir, env, !mine ? "a folder owned by another user" : "a folder others can write", &st);
    return mine && !shared;
}

/* A link at the root's name is followed (the user may point the cache
 * anywhere) and its target checked by trusted(); a link owned by another
 * user (one planted in /tmp, say) is refused. */
static bool root_link_ok(const char *root)
{
    struct stat st;
    if (lstat(root, &st) != 0 || !S_ISLNK(st.st_mode) || st.st_uid == geteuid())
        return true;
    refuse(root, NULL, "a symbolic link owned by another user", &st);
    return false;
}

/* The root as the user named it, created (0700) when missing, refused
 * unless it is this user's alone.  Its fd, or -1. */
static int root_open(const char *root, bool create)
{
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create && gdt_mkdirs_mode(root, 0700, NULL) == GDT_STATUS_OK)
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && !(root_link_ok(root) && trusted(fd, root, NULL, true))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* An environment folder under the root, never through a link, and only
 * when it is this user's alone (warn: say so when it is not).  Its fd, or -1. */
static int env_open_as(int rootfd, const char *root, const char *env, bool warn)
{
    int fd = rootfd >= 0 && env_name(env)
                 ? openat(rootfd, env, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                 : -1;
    if (fd >= 0 && !trusted(fd, root, env, warn)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The pruner's walk: an untrusted folder is skipped without a word. */
static int env_open(int rootfd, const char *env)
{
    return env_open_as(rootfd, "", env, false);
}

/* A regular file at name, never through a link and never blocking on a FIFO
 * or a device.  Its fd (st filled), or -1. */
static int open_regular(int dirfd, const char *name, int flags, struct stat *st)
{
    int fd = dirfd < 0 ? -1 : openat(dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd >= 0 && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void marker_write(int envfd)
{
    size_t n = strlen(MARKER_TEXT);
    int m = openat(envfd, MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (m < 0)
        return;
    if (write(m, MARKER_TEXT, n) != (ssize_t)n)
        unlinkat(envfd, MARKER, 0); /* left unmarked: never pruned, nothing worse */
    close(m);
}

/* The current environment.  The marker goes in only when this call made the
 * folder: one that was there before without it is not known to be gdtune's,
 * so it is never pruned. */
static int env_create(int rootfd, const char *root, const char *env)
{
    bool made = rootfd >= 0 && env_name(env) && mkdirat(rootfd, env, 0700) == 0;
    int fd = env_open_as(rootfd, root, env, true);
    if (made && fd >= 0)
        marker_write(fd);
    return fd;
}

/* --------------------------------------------------------- entries */

/* Header: magic, key, payload size, payload SHA-256, blank line. */
static bool entry_parse(const char *data, size_t len, const gdt_nvrtc_key *k, const char *magic,
                        size_t *off, size_t *plen)
{
    char key[65], sum[65];
    unsigned long long size = 0;
    int used = 0;
    size_t m = strlen(magic);
    if (len < m || memcmp(data, magic, m))
        return false;
    if (sscanf(data + m, "key %64s\nsize %llu\nsha256 %64s\n\n%n", key, &size, sum, &used) != 3 ||
        used <= 0 || strcmp(key, k->key))
        return false;
    *off = m + (size_t)used;
    *plen = (size_t)size;
    if (*off > len || len - *off != *plen)
        return false;
    char got[65];
    gdt_digest_hex(data + *off, *plen, got);
    return !strcmp(got, sum);
}

/* The whole entry file, NUL-terminated for entry_parse's sscanf; false for
 * anything but a readable regular file (never through a link, never
 * blocking on a FIFO: gdt_file_read_at). */
static bool entry_read(int envfd, const gdt_nvrtc_key *k, gdt_cache_kind kind, char **data,
                       size_t *len)
{
    char name[80];
    snprintf(name, sizeof name, "%s%s", k->key, suffix_of(kind));
    return envfd >= 0 && gdt_file_read_at(envfd, name, O_NOFOLLOW, data, len, NULL) == GDT_STATUS_OK;
}

static bool cache_get_at(int envfd, const gdt_nvrtc_key *k, gdt_cache_kind kind, void **data,
                         size_t *len)
{
    char *buf = NULL;
    size_t n = 0, off, plen;
    if (!entry_read(envfd, k, kind, &buf, &n))
        return false;
    bool ok = entry_parse(buf, n, k, magic_of(kind), &off, &plen) && (*data = malloc(plen ? plen : 1));
    if (ok) {
        memcpy(*data, buf + off, plen);
        *len = plen;
    }
    free(buf);
    return ok;
}

bool gdt__cache_get(const char *root, const gdt_nvrtc_key *k, gdt_cache_kind kind, void **data,
                    size_t *len)
{
    int rootfd = root ? root_open(root, false) : -1, envfd = env_open_as(rootfd, root, k->env, true);
    bool hit = cache_get_at(envfd, k, kind, data, len);
    close_fd(envfd);
    close_fd(rootfd);
    return hit;
}

/* Through gdt_file_write_at in the environment's fd, whose rename replaces
 * whatever non-folder sits at the entry's name (a link or FIFO there is
 * replaced, never written through). */
static void cache_put(int envfd, const gdt_nvrtc_key *k, gdt_cache_kind kind, const void *data,
                      size_t len)
{
    char name[80], sum[65], head[256];
    gdt_digest_hex(data, len, sum);
    int h = snprintf(head, sizeof head, "%skey %s\nsize %zu\nsha256 %s\n\n", magic_of(kind), k->key,
                     len, sum);
    char *buf = malloc((size_t)h + len);
    if (!buf)
        return;
    snprintf(name, sizeof name, "%s%s", k->key, suffix_of(kind));
    memcpy(buf, head, (size_t)h);
    memcpy(buf + h, data, len);
    gdt_file_write_at(envfd, name, buf, (size_t)h + len, 0600, NULL); /* a failed write is a later miss */
    free(buf);
}

/* ------------------------------------------------------------- pruning */

typedef struct env_dir {
    char name[17];
    int64_t bytes; /* of gdtune's files only */
    time_t mtime;  /* the newest of them */
} env_dir;

/* An environment the pruner may touch: a folder (not a link) named like one
 * and holding gdtune's marker.  Its fd, or -1. */
static int env_open_marked(int rootfd, const char *name)
{
    char text[sizeof MARKER_TEXT];
    struct stat st;
    size_t n = strlen(MARKER_TEXT);
    int fd = env_open(rootfd, name), m = open_regular(fd, MARKER, O_RDONLY, &st);
    bool ok = m >= 0 && st.st_size == (off_t)n && read(m, text, n) == (ssize_t)n &&
              !memcmp(text, MARKER_TEXT, n);
    close_fd(m);
    if (!ok) {
        close_fd(fd);
        fd = -1;
    }
    return fd;
}

typedef void env_file_fn(int envfd, const char *name, const struct stat *st, void *arg);

/* Calls fn for each regular file of gdtune's naming in the environment. */
static void env_each_file(int envfd, env_file_fn *fn, void *arg)
{
    int fd = dup(envfd); /* closedir closes it, envfd stays the caller's */
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *de;
    struct stat st;
    if (!d)
        close_fd(fd);
    while (d && (de = readdir(d)))
        if (own_name(de->d_name) && fstatat(envfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            fn(envfd, de->d_name, &st, arg);
    if (d)
        closedir(d);
}

static void count_file(int envfd, const char *name, const struct stat *st, void *arg)
{
    env_dir *e = arg;
    (void)envfd, (void)name;
    e->bytes += (int64_t)st->st_size;
    if (st->st_mtime > e->mtime)
        e->mtime = st->st_mtime;
}

static void unlink_entry(int envfd, const char *name, const struct stat *st, void *arg)
{
    (void)st, (void)arg;
    if (strcmp(name, MARKER))
        unlinkat(envfd, name, 0);
}

/* gdtune's environments under the root; returns how many (at most max). */
static int env_scan(int rootfd, env_dir *envs, int max)
{
    int fd = dup(rootfd), n = 0;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *de;
    if (!d)
        close_fd(fd);
    while (d && n < max && (de = readdir(d))) {
        int efd = env_name(de->d_name) ? env_open_marked(rootfd, de->d_name) : -1;
        if (efd < 0)
            continue;
        envs[n] = (env_dir){.bytes = 0};
        memcpy(envs[n].name, de->d_name, sizeof envs[n].name);
        env_each_file(efd, count_file, &envs[n++]);
        close(efd);
    }
    if (d)
        closedir(d);
    return n;
}

/* gdtune's files, the marker last (an interrupted prune leaves a marked
 * folder for the next one), then the folder when nothing else is in it. */
static void env_remove(int rootfd, const char *name)
{
    int fd = env_open_marked(rootfd, name);
    if (fd < 0)
        return;
    env_each_file(fd, unlink_entry, NULL);
    unlinkat(fd, MARKER, 0);
    close(fd);
    unlinkat(rootfd, name, AT_REMOVEDIR); /* fails, as it should, on files not ours */
}

static int older_first(const void *a, const void *b)
{
    const env_dir *x = a, *y = b;
    return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* Whole environments other than the current one go, oldest first, while
 * gdtune's files under the root add up to more than the cap. */
static void cache_prune(int rootfd, const char *current)
{
    const char *mb = getenv("GDTUNE_CACHE_MAX_MB");
    int64_t cap = (mb && atoll(mb) > 0 ? atoll(mb) : GDT_NVRTC_CACHE_DEFAULT_MB) << 20, total = 0;
    env_dir envs[256];
    int n = env_scan(rootfd, envs, 256);
    for (int i = 0; i < n; i++)
        total += envs[i].bytes;
    qsort(envs, (size_t)n, sizeof envs[0], older_first);
    for (int i = 0; i < n && total > cap; i++)
        if (strcmp(envs[i].name, current)) {
            env_remove(rootfd, envs[i].name);
            total -= envs[i].bytes;
        }
}

/* ------------------------------------------------------ cached compile */

/* A pause between tries of a held lock. */
static void lock_pause(void)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* -1 when the lock's name holds a link or anything but a regular file, or
 * when another process holds the lock past GDT_NVRTC_CACHE_LOCK_WAIT_S (a
 * compile that hung, a stopped process): then the compile goes uncached. */
static int lock_key(int envfd, const char *root, const gdt_nvrtc_key *k)
{
    char name[80];
    struct stat st;
    snprintf(name, sizeof name, "%s.lock", k->key);
    int fd = open_regular(envfd, name, O_RDWR | O_CREAT, &st);
    double deadline = gdt_now() + GDT_NVRTC_CACHE_LOCK_WAIT_S;
    while (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        bool held = errno == EWOULDBLOCK;
        if (errno == EINTR || (held && gdt_now() < deadline)) {
            lock_pause();
            continue;
        }
        if (held)
            fprintf(stderr, "gdtune: compiled-kernel cache: %s/%s/%s is held by another process "
                    "after %d s; compiling without the cache\n", root, k->env, name,
                    GDT_NVRTC_CACHE_LOCK_WAIT_S);
        close(fd);
        fd = -1;
    }
    return fd;
}

static void unlock_key(int fd)
{
    if (fd >= 0) {
        flock(fd, LOCK_UN);
        close(fd);
    }
}

static gdt_status cache_hit(gdt_build_info *info)
{
    if (info) {
        info->cache_hit = true;
        info->compile_seconds = 0;
    }
    return GDT_STATUS_OK;
}

/* One walk of the cache per process, after its first write. */
static void prune_once(int rootfd, const char *env)
{
    static atomic_flag pruned = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&pruned))
        cache_prune(rootfd, env);
}

void gdt__cache_put(const char *root, const gdt_nvrtc_key *k, gdt_cache_kind kind, const void *data,
                    size_t len)
{
    int rootfd = root ? root_open(root, true) : -1, envfd = env_create(rootfd, root, k->env);
    if (envfd >= 0) {
        cache_put(envfd, k, kind, data, len);
        prune_once(rootfd, k->env);
    }
    close_fd(envfd);
    close_fd(rootfd);
}

gdt_status gdt__nvrtc_compile_cached(const gdt_nvrtc_template *t, const gdt_facts *f,
                                     const gdt_plan_id *p, int arch, const char *root,
                                     void **cubin, size_t *len, gdt_build_info *info,
                                     gdt_error *e)
{
    gdt_nvrtc_options o;
    gdt_nvrtc_key k;
    if (!root)
        return gdt_nvrtc_compile(t, f, p, arch, cubin, len, info, e);
    gdt_status st = gdt__nvrtc_options(t, f, p, arch, &o, e);
    if (st == GDT_STATUS_OK)
        st = gdt__nvrtc_key(t, &o, arch, &k, e);
    if (st != GDT_STATUS_OK)
        return st;
    int rootfd = root_open(root, true), envfd = env_create(rootfd, root, k.env), fd = -1;
    bool hit = cache_get_at(envfd, &k, GDT_CACHE_CUBIN, cubin, len);
    if (!hit && (fd = lock_key(envfd, root, &k)) >= 0)
        hit = cache_get_at(envfd, &k, GDT_CACHE_CUBIN, cubin, len); /* a concurrent writer won */
    if (!hit)
        st = gdt_nvrtc_compile(t, f, p, arch, cubin, len, info, e);
    if (!hit && st == GDT_STATUS_OK && fd >= 0)
        cache_put(envfd, &k, GDT_CACHE_CUBIN, *cubin, *len);
    unlock_key(fd);
    if (!hit && st == GDT_STATUS_OK && fd >= 0)
        prune_once(rootfd, k.env);
    close_fd(envfd);
    close_fd(rootfd);
    return hit ? cache_hit(info) : st;
}
