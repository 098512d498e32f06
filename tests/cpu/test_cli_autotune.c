/* `gdtune autotune`'s arguments, each as a spawned gdtune (no shell): a bad
 * one exits 2 with a message naming the flag and the value, before any
 * device is asked; --help lists every flag and quotes libgdtune's defaults; without a GPU a well-formed
 * call exits 1 saying there is no CUDA device (on a GPU machine that case
 * is not asserted: the verb runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_test.h"
#include "gdtune/autotune.h"

static char out[65536];

static int autotune(const char *const *args)
{
    char *argv[16] = {(char *)gdt_test_exe(), "autotune"};
    for (int i = 0; args[i] && i < 13; i++) argv[i + 2] = (char *)args[i];
    return gdt_test_spawn(argv, NULL, out, sizeof out);
}

typedef struct expect {
    const char *args[8];
    const char *msg;
} expect;

static const expect bad[] = {
    {{NULL}, "missing FAMILY"},
    {{"gem", NULL}, "gem"},
    {{"gemm", "sdpa_fwd", NULL}, "sdpa_fwd"},
    {{"gemm", "--backend", "17", NULL}, "--backend: bad value \"17\": expected an integer in 0..16"},
    {{"gemm", "--ours", "-1", NULL}, "--ours: bad value \"-1\""},
    {{"gemm", "--library", "17", NULL}, "--library: bad value \"17\": expected an integer in 0..16"},
    {{"gemm", "--library", "-1", NULL}, "--library: bad value \"-1\""},
    {{"gemm", "--margin", "1.5", NULL}, "--margin: bad value \"1.5\": expected a number in [0, 1]"},
    {{"gemm", "--margin", "x", NULL}, "--margin: bad value \"x\""},
    {{"gemm", "--reps", "0", NULL}, "--reps: bad value \"0\""},
    {{"gemm", "--shape", "m=0", NULL}, "--shape:"},
    {{"gemm", "--shape", "q=1", NULL}, "unknown key \"q\""},
    {{"gemm", "--tables", "/nonexistent/tables", NULL}, "--tables /nonexistent/tables: not a directory"},
    {{"gemm", "--format", "csv", NULL}, "--format: bad value \"csv\""},
    {{"gemm", "--margins", "0.1", NULL}, "--margins"},
};

static void test_bad_usage(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = autotune(bad[i].args);
        if (rc != 2 || !strstr(out, bad[i].msg)) fprintf(stderr, "case %zu:\n%s\n", i, out);
        CHECK_INT(rc, ==, 2);
        CHECK_CONTAINS(out, bad[i].msg);
        CHECK(strstr(out, "no CUDA device") == NULL); /* judged before any device */
    }
}

/* A --wisdom file that is not gdtune.wisdom/1: exit 2 naming the file and
 * the place, before any device is asked. */
static void test_bad_wisdom(void)
{
    char dir[] = "/tmp/gdt_cli_wisdom_XXXXXX", path[128];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/w.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) fputs("{\"schema\": \"gdtune.wisdom/1\", \"entries\": 3}", f), fclose(f);
    const char *args[] = {"gemm", "--wisdom", path, NULL};
    CHECK_INT(autotune(args), ==, 2);
    CHECK_CONTAINS(out, path);
    CHECK_CONTAINS(out, "/entries: expected array, got number");
    CHECK(strstr(out, "no CUDA device") == NULL);
    unlink(path);
    rmdir(dir);
}

static void test_help(void)
{
    static const char *const flags[] = {"--shape", "--backend", "--library", "--ours", "--margin", "--reps",
                                        "--tables", "--wisdom", "--format"};
    const char *args[] = {"--help", NULL};
    CHECK_INT(autotune(args), ==, 0);
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) CHECK_CONTAINS(out, flags[i]);
    CHECK_CONTAINS(out, "exit codes: 0 success, 1 failure while running (no GPU");
    /* The defaults it quotes are libgdtune's (the verb sets none of its own). */
    gdt_autotune_opts o;
    char want[5][96];
    gdt_autotune_opts_default(&o);
    snprintf(want[0], sizeof want[0], "backend (cuDNN) plans measured: the first N of the list (default %d)",
             o.backend);
    snprintf(want[1], sizeof want[1], "our plans measured: the first N of the list (default %d)", o.ours);
    snprintf(want[2], sizeof want[2], "library (cuBLASLt) plans measured: the first N of the list (default %d)",
             o.library);
    snprintf(want[3], sizeof want[3], "(relative; default %g)", o.margin);
    snprintf(want[4], sizeof want[4], "after %d warm-up launches (default %d)", o.warmup, o.reps);
    for (int i = 0; i < 5; i++) CHECK_CONTAINS(out, want[i]);
}

static void test_no_device(void)
{
    const char *args[] = {"gemm", "--shape", "m=192,n=4096,k=11008", "--backend", "0", NULL};
    int rc = autotune(args);
    if (!strstr(out, "no CUDA device")) return; /* a GPU is here: the verb ran */
    CHECK_INT(rc, ==, 1);
    CHECK_CONTAINS(out, "gdtune autotune: no CUDA device");
}

int main(void)
{
    test_bad_usage();
    test_bad_wisdom();
    test_help();
    test_no_device();
    return gdt_test_result("test_cli_autotune");
}
