/* --shard auto: I and N from each scheduler's variables (SLURM job arrays
 * whole and resubmitted index by index, a Kubernetes index with --shards or
 * GDTUNE_SHARDS, Open MPI and PMI ranks), every missing or contradictory
 * set refused by name; then `gdtune sweep --shard auto` against a stand-in
 * worker (this executable run as `test_shard_auto worker`): the variables
 * used are printed and the shard and its source land in the journal
 * header, and a resumed shard keeps its header's shard whatever a
 * resubmitted array task's environment says. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_run.h"
#include "gdt_sweep.h"
#include "gdt_test.h"

/* ------------------------------------------------------- the resolver */

/* The environment of one case: "NAME=VALUE" items. */
static const char *const *fake_env;

static const char *lookup(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; fake_env && fake_env[i]; i++)
        if (!strncmp(fake_env[i], name, n) && fake_env[i][n] == '=')
            return fake_env[i] + n + 1;
    return NULL;
}

typedef struct shard_case {
    const char *env[8];
    int shards;     /* --shards */
    int i, n;       /* expected; n = 0: refused */
    const char *msg; /* the source, or the refusal's fragment */
} shard_case;

static const shard_case cases[] = {
    {{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=3",
      "SLURM_ARRAY_TASK_COUNT=4"}, 0, 2, 4,
     "SLURM job array: SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3 "
     "SLURM_ARRAY_TASK_COUNT=4"},
    /* The array index is the shard: --array=1-3 with --shards 4 resubmits shards 1..3. */
    {{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=3"}, 4, 3, 4,
     "SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=3 --shards 4"},
    /* The resubmission of index 3 alone (an array of one) with --shards 4: shard 3/4. */
    {{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=3", "SLURM_ARRAY_TASK_MAX=3",
      "SLURM_ARRAY_TASK_COUNT=1"}, 4, 3, 4,
     "SLURM job array: SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=3 SLURM_ARRAY_TASK_MAX=3 "
     "SLURM_ARRAY_TASK_COUNT=1 --shards 4"},
    {{"SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=0",
      "SLURM_ARRAY_TASK_COUNT=1", "GDTUNE_SHARDS=1"}, 0, 0, 1, "SLURM_ARRAY_TASK_COUNT=1 GDTUNE_SHARDS=1"},
    /* --array=0,2,4 of --shards 6: some of the shards. */
    {{"SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=4",
      "SLURM_ARRAY_TASK_COUNT=3"}, 6, 4, 6, "SLURM_ARRAY_TASK_COUNT=3 --shards 6"},
    /* Issue 36 item 7: a 1-based array, --array=1-4 of --shards 4: index 4 is
     * shard 0, the others their own; index 4 resubmitted alone is shard 0 again. */
    {{"SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=4",
      "SLURM_ARRAY_TASK_COUNT=4"}, 4, 0, 4,
     "SLURM_ARRAY_TASK_COUNT=4 --shards 4 (index 4 of a 1-based array is shard 0)"},
    {{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=4",
      "SLURM_ARRAY_TASK_COUNT=4"}, 4, 3, 4, "SLURM_ARRAY_TASK_COUNT=4 --shards 4"},
    {{"SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_MIN=4", "SLURM_ARRAY_TASK_COUNT=1"}, 4, 0, 4,
     "SLURM_ARRAY_TASK_COUNT=1 --shards 4 (index 4 of a 1-based array is shard 0)"},
    {{"JOB_COMPLETION_INDEX=5", "GDTUNE_SHARDS=8"}, 0, 5, 8,
     "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=5 GDTUNE_SHARDS=8"},
    {{"JOB_COMPLETION_INDEX=0"}, 3, 0, 3, "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=0 --shards 3"},
    {{"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=16"}, 0, 3, 16,
     "Open MPI: OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=16"},
    {{"PMI_RANK=1", "PMI_SIZE=2"}, 0, 1, 2, "MPI (PMI): PMI_RANK=1 PMI_SIZE=2"},
    /* Two launchers that agree are one answer. */
    {{"PMI_RANK=1", "PMI_SIZE=2", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2"}, 0, 1, 2,
     "Open MPI: OMPI_COMM_WORLD_RANK=1"},
    /* Refusals. */
    {{NULL}, 0, 0, 0, "--shard auto: no scheduler's shard variables are set (expected SLURM_ARRAY_TASK_ID"},
    {{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=4"}, 0, 0, 0,
     "SLURM_ARRAY_TASK_ID=2 without SLURM_ARRAY_TASK_MIN"},
    {{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=0"}, 0, 0, 0,
     "SLURM job array: SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=0 without a shard count "
     "(expected SLURM_ARRAY_TASK_COUNT or --shards N)"},
    /* --array=0,2,4: MIN..MAX spans 5 but there are 3 tasks. */
    {{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=4",
      "SLURM_ARRAY_TASK_COUNT=3"}, 0, 0, 0,
     "SLURM_ARRAY_TASK_COUNT=3 but SLURM_ARRAY_TASK_MIN..SLURM_ARRAY_TASK_MAX spans 5 indices"},
    /* The same without a count: refused, not run as shard 0/1 (the whole sweep). */
    {{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=3", "SLURM_ARRAY_TASK_MAX=3",
      "SLURM_ARRAY_TASK_COUNT=1"}, 0, 0, 0,
     "--shard auto: SLURM job array: SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=3 "
     "SLURM_ARRAY_TASK_MAX=3 SLURM_ARRAY_TASK_COUNT=1: an array that does not start at index 0 "
     "(a resubmitted index, or --array=1-N) does not say the sweep's shard count: give --shards N"},
    {{"SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=0",
      "SLURM_ARRAY_TASK_COUNT=1"}, 0, 0, 0,
     "SLURM_ARRAY_TASK_COUNT=1: an array of one task (what a resubmitted index looks like) does "
     "not say the sweep's shard count: give --shards N (1 for a sweep of one shard)"},
    /* --array=1-4 alone: shards 1..4 of what? */
    {{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=4"}, 0, 0, 0,
     "SLURM_ARRAY_TASK_MAX=4: an array that does not start at index 0"},
    /* --array=0-7 with --shards 4: indices past the sweep's. */
    {{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=7",
      "SLURM_ARRAY_TASK_COUNT=8"}, 4, 0, 0,
     "SLURM_ARRAY_TASK_MAX=7 is past the last shard of --shards 4 (the array index is the shard, "
     "N standing for shard 0 in a 1-based array: submit --array=0-3 or --array=1-4"},
    {{"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=5", "SLURM_ARRAY_TASK_COUNT=1"}, 4, 0, 0,
     "expected a shard index 0 <= I < N <= 100000, got 5 of 4"},
    /* Issue 36 item 7: --array=0-4 of 4 shards runs shard 0 twice; 1-5 is past the last. */
    {{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=4",
      "SLURM_ARRAY_TASK_COUNT=5"}, 4, 0, 0,
     "SLURM_ARRAY_TASK_MAX=4 is past the last shard of --shards 4 (the array index is the shard, N "
     "standing for shard 0 in a 1-based array: submit --array=0-3 or --array=1-4, or some of those "
     "indices)"},
    {{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=5",
      "SLURM_ARRAY_TASK_COUNT=5"}, 4, 0, 0, "SLURM_ARRAY_TASK_MAX=5 is past the last shard of --shards 4"},
    {{"JOB_COMPLETION_INDEX=2"}, 0, 0, 0,
     "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=2 without a shard count (expected --shards N or "
     "GDTUNE_SHARDS)"},
    {{"JOB_COMPLETION_INDEX=8", "GDTUNE_SHARDS=8"}, 0, 0, 0, "expected a shard index 0 <= I < N"},
    {{"JOB_COMPLETION_INDEX=1", "GDTUNE_SHARDS=8"}, 4, 0, 0, "--shards 4 but GDTUNE_SHARDS=8"},
    {{"JOB_COMPLETION_INDEX=1", "GDTUNE_SHARDS=0"}, 0, 0, 0, "GDTUNE_SHARDS=0: expected a shard count"},
    {{"OMPI_COMM_WORLD_RANK=1"}, 0, 0, 0, "without a shard count (expected OMPI_COMM_WORLD_SIZE"},
    {{"PMI_RANK=one", "PMI_SIZE=2"}, 0, 0, 0, "PMI_RANK=\"one\": expected a non-negative integer"},
    {{"PMI_RANK=-1", "PMI_SIZE=2"}, 0, 0, 0, "PMI_RANK=\"-1\": expected a non-negative integer"},
    {{"PMI_RANK=1", "PMI_SIZE=2", "JOB_COMPLETION_INDEX=0", "GDTUNE_SHARDS=2"}, 0, 0, 0,
     "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=0 GDTUNE_SHARDS=2 is shard 0/2 but MPI (PMI): "
     "PMI_RANK=1 PMI_SIZE=2 is shard 1/2"},
};

static void test_resolver(void)
{
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const shard_case *c = &cases[k];
        char src[GDT_SHARD_SOURCE_MAX] = "";
        int i = -1, n = -1;
        gdt_error e = {0};
        fake_env = c->env;
        gdt_status s = gdt_sweep_shard_auto(lookup, c->shards, &i, &n, src, sizeof src, &e);
        if ((s == GDT_STATUS_OK) != (c->n > 0))
            fprintf(stderr, "case %zu: status %d: %s\n", k, (int)s, e.msg);
        CHECK_INT(s, ==, c->n > 0 ? GDT_STATUS_OK : GDT_STATUS_BAD_USAGE);
        if (c->n > 0) {
            CHECK_INT(i, ==, c->i);
            CHECK_INT(n, ==, c->n);
            CHECK_CONTAINS(src, c->msg);
        } else
            CHECK_CONTAINS(e.msg, c->msg);
    }
    fake_env = NULL;
}

/* ------------------------------------------------ the stand-in worker */

/* One plan per cell, verified. */
static int fake_worker(void)
{
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"hello\""))
            printf("{\"op\":\"hello\",\"device\":{\"name\":\"Stand-in GPU\",\"arch\":90,"
                   "\"uuid\":\"GPU-stand-in\",\"device_count\":1}}\n");
        else if (strstr(line, "\"op\":\"cell\""))
            printf("{\"op\":\"cell\",\"reference\":\"cudnn.eng0\",\"plans\":[{\"plan\":\"cudnn.eng0\",\"engine_id\":0,"
                   "\"knobs\":{},\"backend\":true,\"tag\":\"A\","
                   "\"untimed\":0}]}\n");
        else
            printf("{\"op\":\"result\",\"disposition\":\"verified\",\"error\":\"\",\"bursts\":"
                   "[{\"burst\":1,\"host_us\":[5],\"device_us\":[10],\"total_us\":[12]}],"
                   "\"time_us\":10,\"noise\":0.01,\"fatal\":false}\n");
        fflush(stdout);
    }
    return 0;
}

/* --------------------------------------------------- gdtune sweep */

static const char *const all_vars[] = {
    "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_COUNT",
    "JOB_COMPLETION_INDEX", "GDTUNE_SHARDS", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK", "PMI_SIZE",
};

static void set_env(const char *const *vars)
{
    for (size_t k = 0; k < sizeof all_vars / sizeof *all_vars; k++)
        unsetenv(all_vars[k]);
    for (int k = 0; vars && vars[k]; k++) {
        char name[64];
        const char *eq = strchr(vars[k], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - vars[k]), vars[k]);
        setenv(name, eq + 1, 1);
    }
}

static char out[65536];

static int sweep(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s sweep %s", GDTUNE_EXE, args);
    return gdt_test_run(cmd, out, sizeof out);
}

static void check_header_shard(const char *run, int i, int n, const char *source)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    CHECK_INT(gdt_run_load(run, &r, &e), ==, GDT_STATUS_OK);
    if (!r)
        return (void)fprintf(stderr, "%s\n", e.msg);
    CHECK_INT(r->options.shard_i, ==, i);
    CHECK_INT(r->options.shard_n, ==, n);
    CHECK_STR(r->options.shard_source, source);
    CHECK_INT(r->ncells, ==, 1);
    CHECK_INT(r->results, ==, 1);
    gdt_run_destroy(r);
}

static void test_sweep(const char *self)
{
    static const char *const task1[] = {"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=0",
                                        "SLURM_ARRAY_TASK_MAX=1", "SLURM_ARRAY_TASK_COUNT=2", NULL};
    static const char *const again[] = {"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1",
                                        "SLURM_ARRAY_TASK_MAX=1", "SLURM_ARRAY_TASK_COUNT=1", NULL};
    static const char *const k8s[] = {"JOB_COMPLETION_INDEX=0", "GDTUNE_SHARDS=2", NULL};
    const char *src = "SLURM job array: SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 "
                      "SLURM_ARRAY_TASK_MAX=1 SLURM_ARRAY_TASK_COUNT=2";
    char dir[] = "/tmp/gdt_shard_auto_XXXXXX", args[1800];
    CHECK(mkdtemp(dir) != NULL);
    setenv("GDTUNE_WORKER_EXE", self, 1);
    set_env(task1);
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s/s1 --tables-dir %s/t "
             "--deadline 5 --shard auto", GDT_TEST_DATA, dir, dir);
    CHECK_INT(sweep(args), ==, 0);
    CHECK_CONTAINS(out, "gdtune sweep: --shard auto: shard 1/2 from SLURM job array: SLURM_ARRAY_TASK_ID=1");
    CHECK_CONTAINS(out, "m=512,n=512,k=256,dtype=bf16: cudnn.eng0: verified");
    snprintf(args, sizeof args, "%s/s1", dir);
    check_header_shard(args, 1, 2, src);

    /* Index 1 resubmitted alone: its environment says 0/1, the header 1/2. */
    set_env(again);
    snprintf(args, sizeof args, "gemm --resume %s/s1 --tables-dir %s/t --shard auto --shards 2", dir, dir);
    CHECK_INT(sweep(args), ==, 0);
    CHECK_CONTAINS(out, "--shard auto: --resume");
    CHECK_CONTAINS(out, "keeps the shard its journal header names");
    CHECK_CONTAINS(out, "resuming shard 1/2 (from SLURM job array: SLURM_ARRAY_TASK_ID=1");
    snprintf(args, sizeof args, "%s/s1", dir);
    check_header_shard(args, 1, 2, src);
    snprintf(args, sizeof args, "gemm --resume %s/s1 --tables-dir %s/t --shards 3", dir, dir);
    CHECK_INT(sweep(args), ==, 2);
    CHECK_CONTAINS(out, "--shards 3, but the run is shard 1/2 (its header)");
    /* ... and a shard that never wrote its journal (a GPU that failed at
     * start-up), resubmitted alone with --shards 2, runs shard 1/2 ... */
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s/s9 --tables-dir %s/t9 "
             "--deadline 5 --shard auto --shards 2", GDT_TEST_DATA, dir, dir);
    CHECK_INT(sweep(args), ==, 0);
    CHECK_CONTAINS(out, "--shard auto: shard 1/2 from SLURM job array: SLURM_ARRAY_TASK_ID=1 "
                        "SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=1 SLURM_ARRAY_TASK_COUNT=1 --shards 2");
    snprintf(args, sizeof args, "%s/s9", dir);
    check_header_shard(args, 1, 2, "SLURM job array: SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=1 "
                                   "SLURM_ARRAY_TASK_MAX=1 SLURM_ARRAY_TASK_COUNT=1 --shards 2");
    /* ... and without --shards is refused, not run as the whole sweep. */
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s/s8 --tables-dir %s/t "
             "--shard auto", GDT_TEST_DATA, dir, dir);
    CHECK_INT(sweep(args), ==, 2);
    CHECK_CONTAINS(out, "an array that does not start at index 0");
    snprintf(args, sizeof args, "%s/s8", dir);
    CHECK(access(args, F_OK) != 0);

    /* A Kubernetes index gives shard 0; the two make the sweep. */
    set_env(k8s);
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s/s0 --tables-dir %s/t "
             "--deadline 5 --shard auto", GDT_TEST_DATA, dir, dir);
    CHECK_INT(sweep(args), ==, 0);
    CHECK_CONTAINS(out, "shard 0/2 from Kubernetes Indexed Job: JOB_COMPLETION_INDEX=0 GDTUNE_SHARDS=2");
    snprintf(args, sizeof args, "%s/s0", dir);
    check_header_shard(args, 0, 2, "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=0 GDTUNE_SHARDS=2");
    snprintf(args, sizeof args, "%s merge %s/s0 %s/s1 --tables-dir %s/tm", GDTUNE_EXE, dir, dir, dir);
    CHECK_INT(gdt_test_run(args, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "gemm.{tuning,placement}.json (2 cells)");

    /* An explicit --shard is recorded as such; nothing set is exit 2. */
    set_env(NULL);
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s/e --tables-dir %s/t "
             "--deadline 5 --shard 0/2", GDT_TEST_DATA, dir, dir);
    CHECK_INT(sweep(args), ==, 0);
    snprintf(args, sizeof args, "%s/e", dir);
    check_header_shard(args, 0, 2, "--shard 0/2");
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s/n --shard auto",
             GDT_TEST_DATA, dir);
    CHECK_INT(sweep(args), ==, 2);
    CHECK_CONTAINS(out, "gdtune sweep: --shard auto: no scheduler's shard variables are set");
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s/n --shards 2",
             GDT_TEST_DATA, dir);
    CHECK_INT(sweep(args), ==, 2);
    CHECK_CONTAINS(out, "--shards 2 goes with --shard auto or --resume");
    unsetenv("GDTUNE_WORKER_EXE");
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "worker"))
        return fake_worker();
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    test_resolver();
    test_sweep(self);
    return gdt_test_result("test_shard_auto");
}
