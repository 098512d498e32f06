/* One owner per folder (gdt_lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gdt_lock.h"

/* The holder's record as one line for a message ("gdtune sweep pid 12,
 * host h, since T"). */
static void holder_of(int fd, char *out, size_t n)
{
    char buf[512];
    ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
    size_t k = 0;
    for (ssize_t i = 0; i < got && k + 3 < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\n' && i + 1 < got) out[k++] = ',', out[k++] = ' ';
        else if (c >= 0x20 && c != 0x7f) out[k++] = (char)c;
    }
    out[k] = '\0';
    if (!k) snprintf(out, n, "its pid, host and start not recorded yet");
}

static void record_holder(int fd, const char *who)
{
    char host[256] = "?", when[32], text[512];
    time_t now = time(NULL);
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    int n = snprintf(text, sizeof text, "%s pid %ld\nhost %s\nsince %s\n", who, (long)getpid(), host, when);
    if (ftruncate(fd, 0) == 0 && pwrite(fd, text, (size_t)n, 0) == n)
        return; /* the lock holds without the record; only the refusal's message loses it */
}

gdt_status gdt_dir_lock(const char *dir, const char *who, const char *why, int *fd, gdt_error *e)
{
    char path[PATH_MAX], holder[600];
    struct stat st;
    *fd = -1;
    if (snprintf(path, sizeof path, "%s/%s", dir, GDT_LOCK_NAME) >= (int)sizeof path)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: path too long for its lock file", dir);
    int f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (f < 0)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot open the lock file: %s", path,
                             strerror(errno));
    if (fstat(f, &st) || !S_ISREG(st.st_mode)) {
        close(f);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: expected a regular file (the lock), got "
                             "another kind of file", path);
    }
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        holder_of(f, holder, sizeof holder);
        close(f);
        if (err != EWOULDBLOCK)
            return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot lock: %s", path, strerror(err));
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s is in use: %s (%s); %s: wait for it to "
                             "end", dir, holder, path, why);
    }
    record_holder(f, who);
    *fd = f;
    return GDT_STATUS_OK;
}

void gdt_dir_unlock(int fd)
{
    if (fd >= 0) close(fd);
}
