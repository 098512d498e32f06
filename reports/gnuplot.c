/* gnuplot for `gdtune report`: quoting strings into a script, finding
 * gnuplot in $PATH and running it with an argument vector, never a shell. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdt_gnuplot.h"

extern char **environ;

/* Bytes of the character at s: a UTF-8 lead byte takes its continuation
 * bytes along, so that a cut never splits a character. */
static size_t char_len(const unsigned char *s)
{
    size_t k = 1;
    while (*s >= 0xC0 && k < 4 && (s[k] & 0xC0) == 0x80)
        k++;
    return k;
}

bool gdt_gnuplot_quote(char *buf, size_t n, const char *text)
{
    if (n < 3) {
        if (n)
            buf[0] = '\0';
        return false;
    }
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    size_t o = 0;
    buf[o++] = '\'';
    while (*s) {
        size_t k = char_len(s), w = *s == '\'' ? 2 : k;
        if (o + w + 2 > n) /* keep room for the closing quote and the NUL */
            break;
        if (*s == '\'')
            buf[o++] = '\'', buf[o++] = '\'';
        else if (*s < 0x20 || *s == 0x7F) /* a newline would end the command */
            buf[o++] = '?';
        else
            memcpy(buf + o, s, k), o += k;
        s += k;
    }
    buf[o++] = '\'';
    buf[o] = '\0';
    return *s == '\0';
}

/* dir/gnuplot when it is an executable regular file, made absolute (the
 * child changes its working directory before it starts). */
static bool try_dir(const char *dir, size_t len, char *out, size_t n)
{
    char cand[PATH_MAX], abs[PATH_MAX];
    struct stat st;
    if (len == 0 || len + sizeof "/gnuplot" > sizeof cand)
        return false;
    snprintf(cand, sizeof cand, "%.*s/gnuplot", (int)len, dir);
    if (stat(cand, &st) != 0 || !S_ISREG(st.st_mode) || access(cand, X_OK) != 0 || !realpath(cand, abs) ||
        strlen(abs) >= n)
        return false;
    memcpy(out, abs, strlen(abs) + 1);
    return true;
}

bool gdt_gnuplot_find(char *out, size_t n)
{
    const char *p = getenv("PATH");
    if (!p)
        p = "/usr/bin:/bin";
    for (;;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (try_dir(p, len, out, n))
            return true;
        if (!end)
            return false;
        p = end + 1;
    }
}

static gdt_status wait_gnuplot(pid_t pid, const char *script, const char *exe, gdt_error *e)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return gdt_error_set(e, GDT_STATUS_IO, "%s: waiting for gnuplot (%s): %s", script, exe, strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return GDT_STATUS_OK;
    if (WIFEXITED(st))
        return gdt_error_set(e, GDT_STATUS_IO, "%s: gnuplot (%s) exited with status %d (its messages are above)",
                             script, exe, WEXITSTATUS(st));
    return gdt_error_set(e, GDT_STATUS_IO, "%s: gnuplot (%s) killed by signal %d (%s)", script, exe,
                         WTERMSIG(st), strsignal(WTERMSIG(st)));
}

gdt_status gdt_gnuplot_run(const char *dir, const char *script_name, gdt_error *e)
{
    char exe[PATH_MAX], script[PATH_MAX + 256];
    snprintf(script, sizeof script, "%s/%s", dir, script_name);
    /* A name gnuplot could read as an option or a path outside dir. */
    if (!*script_name || *script_name == '-' || strchr(script_name, '/'))
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "%s: expected a plain file name in %s", script_name, dir);
    if (!gdt_gnuplot_find(exe, sizeof exe))
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "%s: gnuplot not found in PATH", script);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, 2, 1); /* stdout is gdtune's list of files written */
    char *argv[] = {"gnuplot", (char *)script_name, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot start gnuplot (%s) in %s: %s", script, exe, dir, strerror(rc));
    return wait_gnuplot(pid, script, exe, e);
}
