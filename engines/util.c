/* Small utilities: SHA-256, whole-file read, publish sets and the atomic
 * write, mkdir -p, the monotonic clock, embedded data lookup. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gdt_util.h"

/* ---------------------------------------------------------------- SHA-256 */

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64], s[8];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(s, h, sizeof s);
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = s[7] + (ror(s[4], 6) ^ ror(s[4], 11) ^ ror(s[4], 25)) +
                      ((s[4] & s[5]) ^ (~s[4] & s[6])) + K256[i] + w[i];
        uint32_t t2 = (ror(s[0], 2) ^ ror(s[0], 13) ^ ror(s[0], 22)) +
                      ((s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]));
        memmove(s + 1, s, 7 * sizeof s[0]);
        s[4] += t1;
        s[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++) h[i] += s[i];
}

void gdt_digest_hex(const void *data, size_t n, char out[65])
{
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t left = n;
    for (; left >= 64; left -= 64, p += 64) sha256_block(h, p);
    unsigned char tail[128] = {0};
    if (left) memcpy(tail, p, left);
    tail[left] = 0x80;
    size_t tl = left + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++) tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
    for (size_t off = 0; off < tl; off += 64) sha256_block(h, tail + off);
    for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", h[i]);
}

/* ------------------------------------------------------------------ files */

/* Nothing gdtune reads is near this; a file that keeps growing must not
 * take the machine's memory. */
#define READ_LIMIT ((size_t)1 << 30)

/* Reads fd to its end: 0, or ENOMEM, EFBIG or read's errno. */
static int read_all(int fd, char **data, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) return ENOMEM;
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int err = errno;
            free(buf);
            return err;
        }
        if (r == 0) break;
        if ((n += (size_t)r) < cap) continue;
        if (cap >= READ_LIMIT) return free(buf), EFBIG;
        char *bigger = realloc(buf, 2 * cap + 1);
        if (!bigger) free(buf);
        buf = bigger;
        cap *= 2;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

bool gdt_path_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool gdt_path_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* What st is, for a message that refuses it. */
static const char *file_kind(const struct stat *st)
{
    if (S_ISFIFO(st->st_mode)) return "a FIFO";
    if (S_ISDIR(st->st_mode)) return "a directory";
    if (S_ISCHR(st->st_mode)) return "a character device";
    if (S_ISBLK(st->st_mode)) return "a block device";
    if (S_ISSOCK(st->st_mode)) return "a socket";
    if (S_ISLNK(st->st_mode)) return "a symbolic link";
    return "an unknown kind of file";
}

/* Opened without blocking (a FIFO's open waits for a writer), then
 * refused unless it is a regular file, then made blocking for the read. */
static int open_regular_file(int dirfd, const char *name, int flags, struct stat *st, const char **why)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
    *why = NULL;
    if (fd < 0) return -1;
    bool got = fstat(fd, st) == 0;
    if (!got || !S_ISREG(st->st_mode)) {
        int err = errno;
        *why = got ? file_kind(st) : NULL;
        close(fd);
        errno = err;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl == -1 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

gdt_status gdt_file_read_at(int dirfd, const char *path, int flags, char **data, size_t *len, gdt_error *e)
{
    size_t n = 0;
    struct stat st;
    const char *why = NULL;
    *data = NULL;
    if (len) *len = 0;
    int fd = open_regular_file(dirfd, path, flags, &st, &why);
    if (fd < 0 && why)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot read: %s, not a regular file", path, why);
    if (fd < 0)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot open: %s", path,
                             errno == ELOOP && (flags & O_NOFOLLOW) ? "a symbolic link, not followed here"
                                                                    : strerror(errno));
    int err = read_all(fd, data, &n);
    close(fd);
    if (err == ENOMEM) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory reading", path);
    if (err == EFBIG)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot read: larger than %zu bytes", path,
                             READ_LIMIT);
    if (err) return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot read: %s", path, strerror(err));
    if (len) *len = n;
    return GDT_STATUS_OK;
}

gdt_status gdt_file_read(const char *path, char **data, size_t *len, gdt_error *e)
{
    return gdt_file_read_at(AT_FDCWD, path, 0, data, len, e);
}

static gdt_status write_all(int fd, const char *tmp, const void *data, size_t n, gdt_error *e)
{
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return gdt_error_set(e, GDT_STATUS_IO, "%s: write failed: %s", tmp, strerror(errno));
        p += w, n -= (size_t)w;
    }
    if (fsync(fd)) return gdt_error_set(e, GDT_STATUS_IO, "%s: fsync failed: %s", tmp, strerror(errno));
    return GDT_STATUS_OK;
}

/* ----------------------------------------------------------- publish set */

/* Test-only hook, read only here: GDTUNE_TEST_FAIL_PUBLISH=N makes the N-th
 * file staged in a set fail as a full disk would, after its temporary was
 * created, so tests reach the failure path without filling a filesystem. */
static bool fail_injected(int index)
{
    const char *v = getenv("GDTUNE_TEST_FAIL_PUBLISH");
    return v && atoi(v) == index + 1;
}

/* Test-only hook: GDTUNE_TEST_KILL_RENAME=N kills the process (SIGKILL, as
 * a machine's end would) just before the N-th rename of any publish set
 * this process commits, so tests reach every kill window. */
static void kill_injected(void)
{
    static int renames;
    const char *v = getenv("GDTUNE_TEST_KILL_RENAME");
    if (v && atoi(v) == ++renames)
        raise(SIGKILL);
}

/* Unpredictable, so that nobody can plant a file at the next name. */
static void random_suffix(char out[13])
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static unsigned counter;
    unsigned char r[12];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 40) ^ ++counter;
        for (int i = 0; i < 12; i++, x = x * 6364136223846793005u + 1442695040888963407u)
            r[i] = (unsigned char)(x >> 56);
    }
    for (int i = 0; i < 12; i++) out[i] = digits[r[i] % (sizeof digits - 1)];
    out[12] = '\0';
}

/* <name>.tmp.<random> in dirfd, created here and now with mode: O_EXCL
 * refuses any name that exists (a planted symlink included), O_NOFOLLOW
 * says so twice.  *tmp is malloc'd; on failure errno is open's. */
static int temp_open(int dirfd, const char *name, mode_t mode, char **tmp, int *fd)
{
    size_t len = strlen(name) + 18;
    if (!(*tmp = malloc(len))) return ENOMEM;
    for (int tries = 0; tries < 100; tries++) {
        char suffix[13];
        random_suffix(suffix);
        snprintf(*tmp, len, "%s.tmp.%s", name, suffix);
        *fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (*fd >= 0) return 0;
        if (errno != EEXIST) break;
    }
    return errno;
}

gdt_status gdt_temp_create(const char *path, char **tmp, int *fd, gdt_error *e)
{
    int err = temp_open(AT_FDCWD, path, 0644, tmp, fd);
    if (!err) return GDT_STATUS_OK;
    gdt_status s = err == ENOMEM ? gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", path)
                                 : gdt_error_set(e, GDT_STATUS_IO, "%s: cannot create a temporary %s: %s",
                                                 path, *tmp, strerror(err));
    free(*tmp);
    *tmp = NULL;
    errno = err;
    return s;
}

gdt_status gdt_file_write_at(int dirfd, const char *name, const void *data, size_t n, mode_t mode,
                             gdt_error *e)
{
    char *tmp = NULL;
    int fd = -1, err = temp_open(dirfd, name, mode, &tmp, &fd);
    bool renamed = false;
    gdt_status st = err ? gdt_error_set(e, GDT_STATUS_IO, "%s: cannot create a temporary: %s", name,
                                        strerror(err))
                        : write_all(fd, tmp, data, n, e);
    if (fd >= 0 && close(fd) && !st)
        st = gdt_error_set(e, GDT_STATUS_IO, "%s: close failed: %s", tmp, strerror(errno));
    if (!st && !(renamed = renameat(dirfd, tmp, dirfd, name) == 0))
        st = gdt_error_set(e, GDT_STATUS_IO, "%s: rename from %s failed: %s", name, tmp, strerror(errno));
    if (!st && fsync(dirfd) && errno != EINVAL)
        st = gdt_error_set(e, GDT_STATUS_IO, "%s: fsync of its folder failed: %s", name, strerror(errno));
    if (fd >= 0 && !renamed)
        unlinkat(dirfd, tmp, 0); /* ours: created above with O_EXCL */
    free(tmp);
    return st;
}

/* The temporary at *tmp, created and locked (flock, held until commit or
 * abort): gdt_temps_clean removes only temporaries nobody holds.  Locked
 * after a cleaner removed it (its name gone): made again. */
static gdt_status temp_locked(const char *path, char **tmp, int *fd, gdt_error *e)
{
    for (int tries = 0; tries < 8; tries++) {
        struct stat st;
        gdt_status s = gdt_temp_create(path, tmp, fd, e);
        if (s) return s;
        if (flock(*fd, LOCK_EX) == 0 && fstat(*fd, &st) == 0 && st.st_nlink > 0) return GDT_STATUS_OK;
        close(*fd);
        free(*tmp);
        *tmp = NULL;
    }
    return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot keep a temporary beside it (each removed as it "
                         "was made)", path);
}

gdt_status gdt_publish_stage(gdt_publish *p, const char *path, const void *data, size_t n, gdt_error *e)
{
    if (p->n >= GDT_PUBLISH_MAX)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: a publish set holds at most %d files", path,
                             GDT_PUBLISH_MAX);
    char *tmp = NULL, *dst = strdup(path);
    int fd = -1;
    if (!dst) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", path);
    gdt_status st = temp_locked(path, &tmp, &fd, e);
    if (st) return free(dst), st;
    if (fail_injected(p->n))
        st = gdt_error_set(e, GDT_STATUS_IO, "%s: write failed: %s (GDTUNE_TEST_FAIL_PUBLISH)", tmp,
                           strerror(ENOSPC));
    if (!st) st = write_all(fd, tmp, data, n, e);
    if (st) {
        unlink(tmp); /* ours: created above with O_EXCL */
        close(fd);
        free(tmp);
        free(dst);
        return st;
    }
    p->path[p->n] = dst;
    p->fd[p->n] = fd;
    p->tmp[p->n++] = tmp;
    return GDT_STATUS_OK;
}

/* The folder part of path ("." when it has none). */
static void folder_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, cap, ".");
    else snprintf(dir, cap, "%.*s", (int)(slash == path ? 1 : slash - path), path);
}

/* A rename is durable only once the folder's entry is on disk. */
static gdt_status fsync_folder(const char *dir, gdt_error *e)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot open the folder: %s", dir, strerror(errno));
    int rc = fsync(fd) && errno != EINVAL ? errno : 0; /* EINVAL: a folder that cannot be synced */
    close(fd);
    if (rc) return gdt_error_set(e, GDT_STATUS_IO, "%s: fsync of the folder failed: %s", dir, strerror(rc));
    return GDT_STATUS_OK;
}

gdt_status gdt_publish_commit(gdt_publish *p, gdt_error *e)
{
    gdt_status st = GDT_STATUS_OK;
    int renamed = 0;
    for (; renamed < p->n; renamed++) {
        kill_injected();
        if (rename(p->tmp[renamed], p->path[renamed])) {
            st = gdt_error_set(e, GDT_STATUS_IO, "%s: rename from %s failed: %s", p->path[renamed],
                               p->tmp[renamed], strerror(errno));
            break;
        }
        free(p->tmp[renamed]);
        p->tmp[renamed] = NULL; /* published: abort must not touch it */
        if (close(p->fd[renamed]) && !st)
            st = gdt_error_set(e, GDT_STATUS_IO, "%s: close failed: %s", p->path[renamed], strerror(errno));
        p->fd[renamed] = -1;
        gdt_temps_clean(p->path[renamed]);
    }
    char dir[4096], prev[4096] = "";
    for (int i = 0; i < renamed && !st; i++) {
        folder_of(p->path[i], dir, sizeof dir);
        if (strcmp(dir, prev)) st = fsync_folder(dir, e);
        memcpy(prev, dir, sizeof dir);
    }
    gdt_publish_abort(p);
    return st;
}

bool gdt_temp_name_of(const char *base, const char *name)
{
    size_t n = strlen(base);
    if (strncmp(name, base, n) || strncmp(name + n, ".tmp.", 5) || strlen(name + n + 5) != 12)
        return false;
    for (const char *r = name + n + 5; *r; r++)
        if (!isalnum((unsigned char)*r)) return false;
    return true;
}

/* A stale temporary: a regular file of this user's that no writer holds
 * (a writer holds its lock from creation to rename; the kernel drops it
 * when the writer dies). */
static void remove_if_stale(int dfd, const char *name)
{
    struct stat st;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        flock(fd, LOCK_EX | LOCK_NB) == 0)
        unlinkat(dfd, name, 0);
    close(fd);
}

void gdt_temps_clean(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    folder_of(path, dir, sizeof dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0) close(dfd);
        return;
    }
    for (struct dirent *de; (de = readdir(d));)
        if (gdt_temp_name_of(base, de->d_name)) remove_if_stale(dfd, de->d_name);
    closedir(d);
}

void gdt_publish_abort(gdt_publish *p)
{
    for (int i = 0; i < p->n; i++) {
        if (p->tmp[i]) unlink(p->tmp[i]); /* still the temporary this set created */
        if (p->tmp[i]) close(p->fd[i]);
        free(p->tmp[i]);
        free(p->path[i]);
    }
    memset(p, 0, sizeof *p);
}

gdt_status gdt_file_write_atomic(const char *path, const void *data, size_t n, gdt_error *e)
{
    gdt_publish p = {0};
    gdt_status st = gdt_publish_stage(&p, path, data, n, e);
    if (!st) st = gdt_publish_commit(&p, e);
    gdt_publish_abort(&p);
    return st;
}

gdt_status gdt_mkdirs(const char *path, gdt_error *e)
{
    return gdt_mkdirs_mode(path, 0755, e);
}

gdt_status gdt_mkdirs_mode(const char *path, mode_t mode, gdt_error *e)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return gdt_error_set(e, GDT_STATUS_IO, "mkdir \"%s\": empty or overlong path", path);
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = '\0';
        struct stat sb;
        if (mkdir(buf, mode) && errno != EEXIST)
            return gdt_error_set(e, GDT_STATUS_IO, "mkdir %s: %s", buf, strerror(errno));
        if (stat(buf, &sb) || !S_ISDIR(sb.st_mode))
            return gdt_error_set(e, GDT_STATUS_IO, "mkdir %s: exists and is not a folder", buf);
        if (!c) break;
        *p = c;
    }
    return GDT_STATUS_OK;
}

double gdt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void gdt_sort_doubles(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, dbl_cmp);
}

double gdt_median_inplace(double *v, int n)
{
    gdt_sort_doubles(v, n);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const gdt_embedded *gdt_embedded_find(const char *name)
{
    for (int i = 0; name && i < gdt__embedded_count; i++)
        if (!strcmp(gdt__embedded[i].name, name)) return &gdt__embedded[i];
    return NULL;
}
