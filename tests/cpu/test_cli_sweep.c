/* `gdtune sweep` on a machine without a GPU: usage errors (exit 2), the
 * no-device message (exit 1, nothing written), and --compile-only on tiny
 * specs (exit 0). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_test.h"

static char out[65536];

static int sweep(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s sweep %s", GDTUNE_EXE, args);
    int rc = gdt_test_run(cmd, out, sizeof out);
    return rc;
}

static void test_usage(void)
{
    static const struct { const char *args; int rc; const char *msg; } cases[] = {
        {"--help", 0, "usage: gdtune sweep FAMILY [options]"},
        {"", 2, "missing FAMILY"},
        {"conv", 2, "conv"},
        {"gemm sdpa", 2, "one FAMILY only, got 'gemm' and 'sdpa'"},
        {"gemm --bogus", 2, "unknown option '--bogus'"},
        {"gemm --bursts 4,1", 2, "--bursts: bad value '4,1'"},
        {"gemm --bursts", 2, "--bursts needs a value"},
        {"gemm --shard 3/2", 2, "--shard: bad value '3/2'"},
        {"gemm --target-rel=2", 2, "--target-rel: bad value '2'"},
        {"gemm --compile-only", 2, "--compile-only needs --arch smXY"},
        {"gemm --resume /tmp/x --out /tmp/y", 2, "drop --out /tmp/y"},
        {"gemm --spec /nonexistent/spec.json", 2, "--spec: "},
        {"gemm --spec " GDT_TEST_DATA "/sweeps/bad_tied.json", 2,
         "bad_tied.json: /grid/0/n,k/1: expected an array of 2 values"},
        {"gemm --resume /nonexistent/run", 2, "/nonexistent/run/journal.jsonl: no journal to resume"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = sweep(cases[i].args);
        if (rc != cases[i].rc)
            fprintf(stderr, "gdtune sweep %s:\n%s\n", cases[i].args, out);
        CHECK_INT(rc, ==, cases[i].rc);
        CHECK_CONTAINS(out, cases[i].msg);
    }
}

static bool gpu_present(void)
{
    return system("nvidia-smi -L >/dev/null 2>&1") == 0;
}

static void test_no_device(void)
{
    if (gpu_present()) {
        fprintf(stderr, "test_cli_sweep: a GPU is present: the no-device message is not checked\n");
        return;
    }
    char dir[] = "/tmp/gdt_cli_sweep_XXXXXX", args[1024], run[600];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s --tables-dir %s/t",
             GDT_TEST_DATA, run, dir);
    CHECK_INT(sweep(args), ==, 1);
    CHECK_CONTAINS(out, "gdtune sweep: no CUDA device found: measuring needs an NVIDIA GPU with its "
                        "driver; `--compile-only` checks every candidate row for --arch without one");
    CHECK(access(run, F_OK) != 0); /* nothing written without a device */
    snprintf(args, sizeof args, "sdpa --quick --out %s", run);
    CHECK_INT(sweep(args), ==, 1);
    CHECK_CONTAINS(out, "no CUDA device found");
    snprintf(args, sizeof args, "rm -rf %s", dir);
    CHECK_INT(system(args), ==, 0);
}

static void test_compile_only(void)
{
    CHECK_INT(sweep("gemm --arch sm90 --compile-only --spec " GDT_TEST_DATA "/sweeps/tiny_gemm.json"),
              ==, 0);
    CHECK_CONTAINS(out, "gdtune sweep gemm --compile-only: sm90, 2 cells");
    CHECK_CONTAINS(out, " 0 failed;");
    CHECK_CONTAINS(out, "distinct compiles");
    CHECK_INT(sweep("sdpa --arch sm90 --compile-only --spec " GDT_TEST_DATA "/sweeps/tiny_sdpa.json"),
              ==, 0);
    CHECK_CONTAINS(out, " 0 failed;");
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);
}

int main(void)
{
    if (access(GDTUNE_EXE, X_OK) != 0) {
        fprintf(stderr, "test_cli_sweep: %s is not built\n", GDTUNE_EXE);
        return 1;
    }
    test_usage();
    test_no_device();
    test_compile_only();
    return gdt_test_result("test_cli_sweep");
}
