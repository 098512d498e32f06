/* The fuzz targets' shared checks and scratch files (gdt_fuzz.h). */
#include "gdt_fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gdt_fuzz_accepted;
char gdt_fuzz_refusal[256];

void gdt_fuzz_outcome(gdt_status s, const gdt_error *e, const char *name)
{
    if (s == GDT_STATUS_OK) {
        gdt_fuzz_accepted++;
        return;
    }
    if (!e->msg[0]) {
        fprintf(stderr, "gdt_fuzz: status %s without a message\n", gdt_status_name(s));
        abort();
    }
    if (name && s == GDT_STATUS_BAD_INPUT && !strstr(e->msg, name)) {
        fprintf(stderr, "gdt_fuzz: BAD_INPUT message does not name %s: %s\n", name, e->msg);
        abort();
    }
    if (!gdt_fuzz_refusal[0]) snprintf(gdt_fuzz_refusal, sizeof gdt_fuzz_refusal, "%.200s", e->msg);
}

char *gdt_fuzz_text(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t) abort();
    memcpy(t, data, size);
    t[size] = '\0';
    return t;
}

static char scratch[256];
/* What was made here, in order, so that exit removes exactly that. */
static char made[16][128];
static int nmade;

static void scratch_remove(void)
{
    char path[512];
    for (int i = nmade - 1; i >= 0; i--) {
        snprintf(path, sizeof path, "%s/%s", scratch, made[i]);
        if (unlink(path) != 0 && errno == EISDIR) rmdir(path);
    }
    rmdir(scratch);
}

const char *gdt_fuzz_dir(void)
{
    if (scratch[0]) return scratch;
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/gdt_fuzz.XXXXXX", tmp && *tmp ? tmp : "/dev/shm");
    if (!mkdtemp(scratch)) {
        snprintf(scratch, sizeof scratch, "/tmp/gdt_fuzz.XXXXXX");
        if (!mkdtemp(scratch)) perror("gdt_fuzz: mkdtemp"), abort();
    }
    atexit(scratch_remove);
    return scratch;
}

static void remember(const char *rel, size_t n)
{
    for (int i = 0; i < nmade; i++)
        if (strlen(made[i]) == n && !strncmp(made[i], rel, n)) return;
    if (nmade == 16 || n >= sizeof made[0]) abort();
    snprintf(made[nmade++], sizeof made[0], "%.*s", (int)n, rel);
}

const char *gdt_fuzz_file(const char *leaf, const void *data, size_t size)
{
    static char path[512];
    if (!leaf) abort(); /* also tells gcc's -Wformat-truncation, which doubts it under -fsanitize */
    gdt_fuzz_dir();
    for (const char *slash = strchr(leaf, '/'); slash; slash = strchr(slash + 1, '/')) {
        snprintf(path, sizeof path, "%s/%.*s", scratch, (int)(slash - leaf), leaf);
        if (mkdir(path, 0700) != 0 && errno != EEXIST) perror(path), abort();
        remember(leaf, (size_t)(slash - leaf));
    }
    snprintf(path, sizeof path, "%s/%s", scratch, leaf);
    remember(leaf, strlen(leaf));
    /* A fresh file each time: never written through a link left behind. */
    if (unlink(path) != 0 && errno != ENOENT) perror(path), abort();
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) perror(path), abort();
    const char *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w <= 0) perror(path), abort();
        p += w, size -= (size_t)w;
    }
    close(fd);
    return path;
}
