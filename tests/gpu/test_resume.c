/* Durability on the GPU: a sweep started as a child process is killed with
 * SIGKILL once its journal holds a few results; `--resume` then finishes
 * it.  Every listed plan ends with exactly one result, and no plan that had
 * a result before the kill is attempted again. */
#include <cjson/cJSON.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_test.h"

#define MAX_CELLS 8
#define MAX_PLANS 512

static char out[1 << 16];

static int num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : -1;
}

typedef struct tally {
    int nplans[MAX_CELLS];
    unsigned char results[MAX_CELLS][MAX_PLANS], attempts_after[MAX_CELLS][MAX_PLANS];
    int nresults;
} tally;

/* Counts results (all lines) and attempts (lines from `from` on). */
static int read_journal(const char *path, int from, tally *t)
{
    gdt_journal_lines l;
    gdt_error e = {0};
    memset(t, 0, sizeof *t);
    if (gdt_journal_read(path, &l, &e) != GDT_STATUS_OK)
        return -1;
    for (int i = 0; i < l.n; i++) {
        cJSON *r = cJSON_Parse(l.line[i]);
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(r, "type"));
        int c = num(r, "cell"), p = num(r, "plan");
        if (type && c >= 0 && c < MAX_CELLS) {
            if (!strcmp(type, "plans"))
                t->nplans[c] = cJSON_GetArraySize(cJSON_GetObjectItem(r, "plans"));
            else if (!strcmp(type, "result") && p >= 0 && p < MAX_PLANS)
                t->results[c][p]++, t->nresults++;
            else if (!strcmp(type, "attempt") && p >= 0 && p < MAX_PLANS && i >= from)
                t->attempts_after[c][p]++;
        }
        cJSON_Delete(r);
    }
    int n = l.n;
    gdt_journal_lines_free(&l);
    return n;
}

static pid_t start_sweep(const char *dir)
{
    char spec[PATH_MAX], run[PATH_MAX], tables[PATH_MAX];
    snprintf(spec, sizeof spec, "%s/sweeps/tiny_gemm.json", GDT_TEST_DATA);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(tables, sizeof tables, "%s/t", dir);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(126);
        execl(gdt_test_exe(), gdt_test_exe(), "sweep", "gemm", "--spec", spec, "--out", run, "--tables-dir", tables,
              (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Waits until the journal holds at least n results (or the child ends). */
static int wait_results(pid_t pid, const char *path, int n, tally *t)
{
    for (int i = 0; i < 3000; i++) {
        int lines = read_journal(path, 0, t);
        if (lines > 0 && t->nresults >= n)
            return lines;
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return -1;
        usleep(100000);
    }
    return -1;
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "test_resume: no CUDA device: skipped\n");
        return GDT_TEST_SKIP;
    }
    char dir[] = "/tmp/gdt_resume_XXXXXX", path[PATH_MAX], cmd[4096];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/run/journal.jsonl", dir);
    pid_t pid = start_sweep(dir);
    tally before, after;
    int lines = wait_results(pid, path, 3, &before);
    CHECK(lines > 0);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    lines = read_journal(path, 0, &before); /* what the kill left */
    fprintf(stderr, "test_resume: killed with %d results in %d records\n", before.nresults, lines);

    snprintf(cmd, sizeof cmd, "%s sweep gemm --resume %s/run --tables-dir %s/t", gdt_test_exe(), dir, dir);
    int rc = gdt_test_run(cmd, out, sizeof out);
    CHECK_INT(rc, ==, 0);
    CHECK(read_journal(path, lines, &after) > lines);
    int plans = 0;
    for (int c = 0; c < MAX_CELLS; c++)
        for (int p = 0; p < after.nplans[c] && p < MAX_PLANS; p++) {
            plans++;
            CHECK_INT(after.results[c][p], ==, 1);
            if (before.results[c][p])
                CHECK_INT(after.attempts_after[c][p], ==, 0);
        }
    CHECK_INT(after.nplans[0] > 0 && after.nplans[1] > 0, ==, 1);
    CHECK_INT(after.nresults, ==, plans);
    snprintf(path, sizeof path, "%s/run/raw.h5", dir);
    CHECK(access(path, F_OK) == 0);
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
        snprintf(path, sizeof path, "%s/t/sm%d%d/gemm.tuning.json", dir, prop.major, prop.minor);
        CHECK(access(path, F_OK) == 0);
    }
    if (gdt_test_failures)
        fprintf(stderr, "--- resumed sweep output (head) ---\n%.6000s\n", out);
    fprintf(stderr, "test_resume: %d plans, each with one result\n", plans);
    return gdt_test_result("test_resume");
}
