/* Worker isolation on the GPU: a tiny gemm sweep with the opt-in test
 * engines.  The plan that writes through an illegal address and the plan
 * that never ends are recorded failed with their errors, the worker is
 * respawned after each, and the other plans are still verified. */
#include <cjson/cJSON.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_test.h"

static char out[1 << 16];

static const char *field(const cJSON *o, const char *k)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
    return v ? v : "";
}

typedef struct seen {
    int results, verified_ours, verified_backend, other_failures;
    char fault_error[2048], hang_error[2048], fault_disp[32], hang_disp[32];
} seen;

static void check_journal(const char *run, seen *s)
{
    char path[PATH_MAX + 32];
    gdt_journal_lines l;
    gdt_error e = {0};
    memset(s, 0, sizeof *s);
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < l.n; i++) {
        cJSON *r = cJSON_Parse(l.line[i]);
        if (strcmp(field(r, "type"), "result") != 0) {
            cJSON_Delete(r);
            continue;
        }
        const char *name = field(r, "name"), *d = field(r, "disposition"), *err = field(r, "error");
        s->results++;
        if (!strcmp(name, "gemm.test_fault")) {
            snprintf(s->fault_error, sizeof s->fault_error, "%s", err);
            snprintf(s->fault_disp, sizeof s->fault_disp, "%s", d);
        } else if (!strcmp(name, "gemm.test_hang")) {
            snprintf(s->hang_error, sizeof s->hang_error, "%s", err);
            snprintf(s->hang_disp, sizeof s->hang_disp, "%s", d);
        } else if (!strcmp(d, "verified"))
            *(strncmp(name, "cudnn", 5) ? &s->verified_ours : &s->verified_backend) += 1;
        else if (strstr(err, "worker died") || strstr(err, "deadline exceeded")) {
            fprintf(stderr, "test_isolation: %s: %s\n", name, err);
            s->other_failures++;
        }
        cJSON_Delete(r);
    }
    gdt_journal_lines_free(&l);
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "test_isolation: no CUDA device: skipped\n");
        return GDT_TEST_SKIP;
    }
    char dir[] = "/tmp/gdt_isolation_XXXXXX", cmd[4096];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "GDTUNE_ENABLE_OPT_IN=1 %s sweep gemm --spec %s/sweeps/one_gemm.json "
             "--out %s/run --tables-dir %s/t --deadline 20", gdt_test_exe(), GDT_TEST_DATA, dir, dir);
    double t0 = (double)time(NULL);
    int rc = gdt_test_run(cmd, out, sizeof out);
    fprintf(stderr, "test_isolation: sweep took %.0f s, exit %d\n", (double)time(NULL) - t0, rc);
    CHECK_INT(rc, ==, 0);
    char run[PATH_MAX];
    snprintf(run, sizeof run, "%s/run", dir);
    seen s;
    check_journal(run, &s);
    CHECK_STR(s.fault_disp, "failed");
    CHECK(strstr(s.fault_error, "ILLEGAL_ADDRESS") || strstr(s.fault_error, "IllegalAddress"));
    CHECK_STR(s.hang_disp, "failed");
    CHECK_STR(s.hang_error, "deadline exceeded after 20 s");
    CHECK(s.verified_ours >= 1);
    CHECK(s.verified_backend >= 1);
    CHECK_INT(s.other_failures, ==, 0);
    const char *started = strstr(out, "worker started ");
    CHECK(started && atoi(started + 15) >= 3); /* first, after the fault, after the hang */
    if (gdt_test_failures)
        fprintf(stderr, "fault: %s\nhang: %s\n--- sweep output (head) ---\n%.6000s\n", s.fault_error,
                s.hang_error, out);
    fprintf(stderr, "test_isolation: %d results, verified ours %d, backend %d\n", s.results,
            s.verified_ours, s.verified_backend);
    return gdt_test_result("test_isolation");
}
