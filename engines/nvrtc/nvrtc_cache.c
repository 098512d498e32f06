/* The compiled-kernel cache: one file per compile, written to a temporary
 * name, flushed and renamed; compiles of one key serialize on a lock file so
 * that the second finds the first one's entry; every load re-checks the
 * embedded key and checksum; stale environments are pruned past a size cap.
 * Anything doubtful is a miss, never an error. */
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
#include <unistd.h>

#include "gdt_nvrtc_cache.h"
#include "gdt_util.h"

#define MAGIC "GDTUNE-CUBIN 1\n"

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

static bool entry_path(char *buf, size_t n, const char *root, const gdt_nvrtc_key *k,
                       const char *suffix)
{
    int w = snprintf(buf, n, "%s/%s/%s%s", root, k->env, k->key, suffix);
    return w > 0 && (size_t)w < n;
}

/* Header: magic, key, payload size, payload SHA-256, blank line. */
static bool entry_parse(const char *data, size_t len, const gdt_nvrtc_key *k, size_t *off,
                        size_t *plen)
{
    char key[65], sum[65];
    unsigned long long size = 0;
    int used = 0;
    size_t m = strlen(MAGIC);
    if (len < m || memcmp(data, MAGIC, m))
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

bool gdt__nvrtc_cache_get(const char *root, const gdt_nvrtc_key *k, void **data, size_t *len)
{
    char path[4096], *buf = NULL;
    size_t n = 0, off, plen;
    if (!root || !entry_path(path, sizeof path, root, k, ".cubin") ||
        gdt_file_read(path, &buf, &n, NULL) != GDT_STATUS_OK)
        return false;
    bool ok = entry_parse(buf, n, k, &off, &plen) && (*data = malloc(plen ? plen : 1));
    if (ok) {
        memcpy(*data, buf + off, plen);
        *len = plen;
    }
    free(buf);
    return ok;
}

static void cache_put(const char *root, const gdt_nvrtc_key *k, const void *data, size_t len)
{
    char path[4096], sum[65], head[256];
    gdt_digest_hex(data, len, sum);
    int h = snprintf(head, sizeof head, MAGIC "key %s\nsize %zu\nsha256 %s\n\n", k->key, len, sum);
    char *buf = malloc((size_t)h + len);
    if (!buf || !entry_path(path, sizeof path, root, k, ".cubin")) {
        free(buf);
        return;
    }
    memcpy(buf, head, (size_t)h);
    memcpy(buf + h, data, len);
    gdt_file_write_atomic(path, buf, (size_t)h + len, NULL); /* a failed write is a later miss */
    free(buf);
}

/* ------------------------------------------------------------- pruning */

typedef struct env_dir {
    char name[256];
    int64_t bytes;
    time_t mtime;
} env_dir;

static int64_t dir_bytes(const char *path, time_t *newest)
{
    DIR *d = opendir(path);
    struct dirent *de;
    int64_t sum = 0;
    char p[4096];
    *newest = 0;
    while (d && (de = readdir(d))) {
        struct stat st;
        if (de->d_name[0] == '.' || snprintf(p, sizeof p, "%s/%s", path, de->d_name) >= (int)sizeof p ||
            stat(p, &st) != 0)
            continue;
        sum += (int64_t)st.st_size;
        if (st.st_mtime > *newest)
            *newest = st.st_mtime;
    }
    if (d)
        closedir(d);
    return sum;
}

static void remove_dir(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;
    char p[4096];
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            snprintf(p, sizeof p, "%s/%s", path, de->d_name) < (int)sizeof p)
            unlink(p);
    if (d)
        closedir(d);
    rmdir(path);
}

static int older_first(const void *a, const void *b)
{
    const env_dir *x = a, *y = b;
    return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* Whole environments other than the current one go, oldest first, while the
 * cache holds more than the cap. */
static void cache_prune(const char *root, const char *current)
{
    const char *mb = getenv("GDTUNE_CACHE_MAX_MB");
    int64_t cap = (mb && atoll(mb) > 0 ? atoll(mb) : GDT_NVRTC_CACHE_DEFAULT_MB) << 20, total = 0;
    env_dir envs[256];
    int n = 0;
    DIR *d = opendir(root);
    struct dirent *de;
    while (d && (de = readdir(d)) && n < 256) {
        if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof envs[0].name)
            continue;
        char p[4096];
        if (snprintf(p, sizeof p, "%s/%s", root, de->d_name) >= (int)sizeof p)
            continue;
        snprintf(envs[n].name, sizeof envs[n].name, "%s", de->d_name);
        envs[n].bytes = dir_bytes(p, &envs[n].mtime);
        total += envs[n++].bytes;
    }
    if (d)
        closedir(d);
    qsort(envs, (size_t)n, sizeof envs[0], older_first);
    for (int i = 0; i < n && total > cap; i++) {
        char p[4096];
        if (!strcmp(envs[i].name, current) ||
            snprintf(p, sizeof p, "%s/%s", root, envs[i].name) >= (int)sizeof p)
            continue;
        remove_dir(p);
        total -= envs[i].bytes;
    }
}

/* ------------------------------------------------------ cached compile */

static int lock_key(const char *root, const gdt_nvrtc_key *k)
{
    char path[4096];
    if (!entry_path(path, sizeof path, root, k, ".lock"))
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
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

gdt_status gdt__nvrtc_compile_cached(const gdt_nvrtc_template *t, const gdt_facts *f,
                                     const gdt_plan_id *p, int arch, const char *root,
                                     void **cubin, size_t *len, gdt_build_info *info,
                                     gdt_error *e)
{
    static atomic_flag pruned = ATOMIC_FLAG_INIT; /* one walk of the cache per process */
    gdt_nvrtc_options o;
    gdt_nvrtc_key k;
    char dir[4096];
    if (!root)
        return gdt_nvrtc_compile(t, f, p, arch, cubin, len, info, e);
    gdt_status st = gdt__nvrtc_options(t, f, p, arch, &o, e);
    if (st == GDT_STATUS_OK)
        st = gdt__nvrtc_key(t, &o, arch, &k, e);
    if (st != GDT_STATUS_OK)
        return st;
    if (gdt__nvrtc_cache_get(root, &k, cubin, len))
        return cache_hit(info);
    int fd = -1;
    if (snprintf(dir, sizeof dir, "%s/%s", root, k.env) < (int)sizeof dir &&
        gdt_mkdirs(dir, NULL) == GDT_STATUS_OK)
        fd = lock_key(root, &k);
    if (fd >= 0 && gdt__nvrtc_cache_get(root, &k, cubin, len)) { /* a concurrent writer won */
        unlock_key(fd);
        return cache_hit(info);
    }
    st = gdt_nvrtc_compile(t, f, p, arch, cubin, len, info, e);
    if (st == GDT_STATUS_OK && fd >= 0)
        cache_put(root, &k, *cubin, *len);
    unlock_key(fd);
    if (st == GDT_STATUS_OK && fd >= 0 && !atomic_flag_test_and_set(&pruned))
        cache_prune(root, k.env);
    return st;
}
