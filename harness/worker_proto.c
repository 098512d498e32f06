/* The parent side of worker isolation: spawn, pipes, deadlines, respawn. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdt_json.h"
#include "gdt_util.h"
#include "gdt_worker_proto.h"

extern char **environ;

struct gdt_worker {
    char exe[PATH_MAX];
    char **envp;    /* the worker's environment (NULL: ours) */
    pid_t pid;      /* 0 when gone */
    int to_fd;      /* its stdin */
    int from_fd;    /* its stdout */
    char *buf;      /* bytes read past the last reply */
    size_t len, cap;
    int spawns;
};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* In the child, between fork and exec: only async-signal-safe calls (the
 * sweep may run one thread per GPU). */
static void exec_child(const char *exe, char **envp, int in_fd, int out_fd, int parent)
{
    /* The worker must not outlive a parent killed with SIGKILL: it would
     * hold the GPU while the resumed sweep starts another. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    if (in_fd > 1)
        close(in_fd);
    if (out_fd > 1)
        close(out_fd);
    char *argv[] = {(char *)exe, "worker", NULL};
    execve(exe, argv, envp ? envp : environ);
    _exit(127);
}

static gdt_status start(gdt_worker *w, gdt_error *e)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0)
        return gdt_error_set(e, GDT_STATUS_IO, "worker: pipe: %s", strerror(errno));
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return gdt_error_set(e, GDT_STATUS_IO, "worker: pipe: %s", strerror(errno));
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        exec_child(w->exe, w->envp, in[0], out[1], parent);
    close(in[0]);
    close(out[1]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        return gdt_error_set(e, GDT_STATUS_IO, "worker: fork: %s", strerror(errno));
    }
    w->pid = pid;
    w->to_fd = in[1];
    w->from_fd = out[0];
    w->len = 0;
    w->spawns++;
    return GDT_STATUS_OK;
}

/* The i-th entry of a comma-separated list, or NULL. */
static const char *list_entry(const char *list, int i, char *buf, size_t n)
{
    for (; list && i > 0; i--)
        if ((list = strchr(list, ',')))
            list++;
    if (!list || !*list)
        return NULL;
    snprintf(buf, n, "%.*s", (int)strcspn(list, ","), list);
    return buf;
}

/* Our environment with CUDA_VISIBLE_DEVICES naming one device. */
static gdt_status gpu_env(int gpu, char ***out, gdt_error *e)
{
    char dev[64], num[16];
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    snprintf(num, sizeof num, "%d", gpu);
    const char *d = vis ? list_entry(vis, gpu, dev, sizeof dev) : num;
    if (!d)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "worker: GPU %d is not in CUDA_VISIBLE_DEVICES=%s",
                             gpu, vis);
    int n = 0;
    while (environ[n])
        n++;
    char **env = calloc((size_t)n + 2, sizeof *env);
    char *mine = malloc(strlen(d) + 32);
    if (!env || !mine) {
        free(env);
        free(mine);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker: out of memory");
    }
    sprintf(mine, "CUDA_VISIBLE_DEVICES=%s", d);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) != 0)
            env[k++] = environ[i];
    env[k] = mine; /* last: freed with the worker */
    *out = env;
    return GDT_STATUS_OK;
}

static void env_free(char **env)
{
    if (!env)
        return;
    int n = 0;
    while (env[n])
        n++;
    if (n)
        free(env[n - 1]);
    free(env);
}

gdt_status gdt_worker_spawn(const char *exe, gdt_worker **out, gdt_error *e)
{
    return gdt_worker_spawn_gpu(exe, -1, out, e);
}

gdt_status gdt_worker_spawn_gpu(const char *exe, int gpu, gdt_worker **out, gdt_error *e)
{
    *out = NULL;
    /* A write to a dead worker must fail with EPIPE, not kill the sweep. */
    struct sigaction sa = {.sa_handler = SIG_IGN};
    sigaction(SIGPIPE, &sa, NULL);
    gdt_worker *w = calloc(1, sizeof *w);
    if (!w)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker: out of memory");
    w->to_fd = w->from_fd = -1;
    if (!exe) {
        ssize_t n = readlink("/proc/self/exe", w->exe, sizeof w->exe - 1);
        if (n <= 0) {
            free(w);
            return gdt_error_set(e, GDT_STATUS_IO, "worker: readlink /proc/self/exe: %s",
                                 strerror(errno));
        }
        w->exe[n] = 0;
    } else
        snprintf(w->exe, sizeof w->exe, "%s", exe);
    gdt_status s = gpu >= 0 ? gpu_env(gpu, &w->envp, e) : GDT_STATUS_OK;
    if (s == GDT_STATUS_OK)
        s = start(w, e);
    if (s != GDT_STATUS_OK) {
        env_free(w->envp);
        free(w);
        return s;
    }
    *out = w;
    return GDT_STATUS_OK;
}

/* Describes how the worker ended; waits for it (it has closed its stdout). */
static gdt_status reap_dead(gdt_worker *w, gdt_error *e)
{
    int st = 0;
    pid_t r;
    double t0 = gdt_now();
    /* EOF came first; the exit follows within moments.  Bounded: a worker
     * that closed stdout but lives on is killed. */
    while ((r = waitpid(w->pid, &st, WNOHANG)) == 0 && gdt_now() - t0 < 5.0)
        usleep(10000);
    if (r == 0) {
        kill(w->pid, SIGKILL);
        waitpid(w->pid, &st, 0);
    }
    w->pid = 0;
    close_fd(&w->to_fd);
    close_fd(&w->from_fd);
    if (WIFSIGNALED(st))
        return gdt_error_set(e, GDT_STATUS_FAULT, "worker died: signal %d (%s)", WTERMSIG(st),
                             strsignal(WTERMSIG(st)));
    return gdt_error_set(e, GDT_STATUS_FAULT, "worker exited with status %d",
                         WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void kill_now(gdt_worker *w)
{
    if (w->pid > 0) {
        kill(w->pid, SIGKILL);
        waitpid(w->pid, NULL, 0);
    }
    w->pid = 0;
    close_fd(&w->to_fd);
    close_fd(&w->from_fd);
}

static gdt_status send_line(gdt_worker *w, const char *request, gdt_error *e)
{
    size_t n = strlen(request), off = 0;
    char *line = malloc(n + 1);
    if (!line)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker: out of memory");
    memcpy(line, request, n);
    line[n++] = '\n';
    while (off < n) {
        ssize_t k = write(w->to_fd, line + off, n - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            free(line);
            return reap_dead(w, e);
        }
        off += (size_t)k;
    }
    free(line);
    return GDT_STATUS_OK;
}

/* Moves one complete line out of the buffer, if there is one. */
static bool take_line(gdt_worker *w, char **reply)
{
    char *nl = w->len ? memchr(w->buf, '\n', w->len) : NULL;
    if (!nl)
        return false;
    size_t n = (size_t)(nl - w->buf);
    *reply = strndup(w->buf, n);
    memmove(w->buf, nl + 1, w->len - n - 1);
    w->len -= n + 1;
    return *reply != NULL;
}

static gdt_status read_more(gdt_worker *w, gdt_error *e)
{
    if (w->cap - w->len < 65536) {
        char *g = realloc(w->buf, w->cap * 2 + 65536);
        if (!g)
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "worker: out of memory");
        w->buf = g;
        w->cap = w->cap * 2 + 65536;
    }
    ssize_t k = read(w->from_fd, w->buf + w->len, w->cap - w->len);
    if (k < 0 && errno == EINTR)
        return GDT_STATUS_OK;
    if (k <= 0)
        return reap_dead(w, e);
    w->len += (size_t)k;
    return GDT_STATUS_OK;
}

gdt_status gdt_worker_call(gdt_worker *w, const char *request, double deadline_s, char **reply,
                           gdt_error *e)
{
    *reply = NULL;
    if (w->pid <= 0)
        return gdt_error_set(e, GDT_STATUS_FAULT, "worker is not running");
    gdt_status s = send_line(w, request, e);
    double t0 = gdt_now();
    while (s == GDT_STATUS_OK && !take_line(w, reply)) {
        double left = deadline_s - (gdt_now() - t0);
        if (left <= 0) {
            kill_now(w);
            return gdt_error_set(e, GDT_STATUS_TIMEOUT, "deadline exceeded after %.0f s",
                                 ceil(deadline_s));
        }
        struct pollfd p = {.fd = w->from_fd, .events = POLLIN};
        int r = poll(&p, 1, (int)fmin(left * 1000.0 + 1.0, 1000.0));
        if (r < 0 && errno != EINTR)
            return gdt_error_set(e, GDT_STATUS_IO, "worker: poll: %s", strerror(errno));
        if (r > 0)
            s = read_more(w, e);
    }
    return s;
}

bool gdt_worker_alive(const gdt_worker *w) { return w && w->pid > 0; }

int gdt_worker_spawn_count(const gdt_worker *w) { return w ? w->spawns : 0; }

gdt_status gdt_worker_respawn(gdt_worker *w, gdt_error *e)
{
    kill_now(w);
    return start(w, e);
}

void gdt_worker_destroy(gdt_worker *w)
{
    if (!w)
        return;
    if (w->pid > 0) {
        close_fd(&w->to_fd); /* EOF on its stdin: it quits */
        double t0 = gdt_now();
        pid_t r;
        while ((r = waitpid(w->pid, NULL, WNOHANG)) == 0 && gdt_now() - t0 < 3.0)
            usleep(10000);
        if (r == 0)
            kill_now(w);
        w->pid = 0;
    }
    close_fd(&w->to_fd);
    close_fd(&w->from_fd);
    env_free(w->envp);
    free(w->buf);
    free(w);
}
