/* `gdtune sweep FAMILY --shape ...` (issue 36 item 8): the cells from the
 * command line without a spec file, against a stand-in worker (this
 * executable run as `test_sweep_shape worker`, through GDTUNE_WORKER_EXE):
 * lists and ranges make the product of the keys' values, the rest of the
 * spec is the embedded one's and the journal keeps the spec built; bad
 * input is refused naming the key and value (exit 2); --arch sm100 on the
 * stand-in's sm90 is refused (exit 2) while --compile-only for sm100 needs
 * no GPU. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_test.h"

/* ------------------------------------------------ helpers */

static char out[1 << 16];

/* gdtune sweep with up to 8 arguments (NULL-terminated). */
static int sweep(const char *a0, const char *a1, const char *a2, const char *a3, const char *a4,
                 const char *a5, const char *a6, const char *a7)
{
    char *av[] = {(char *)GDTUNE_EXE, "sweep", (char *)a0, (char *)a1, (char *)a2, (char *)a3,
                  (char *)a4, (char *)a5, (char *)a6, (char *)a7, NULL};
    return gdt_test_spawn(av, NULL, out, sizeof out);
}

static void slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = 0;
    if (f) fclose(f);
}

/* ------------------------------------------------ the tests */

static void test_refused(void)
{
    static const struct { const char *shape, *extra, *msg; } cases[] = {
        {"m=12x", NULL, "--shape m=12x: shape: m=12x: expected a positive integer, got \"12x\""},
        {"m=128,q=3", NULL, "--shape m=128,q=3: shape: unknown key \"q\" for gemm (valid keys: batch, m, n, k, dtype, a, b)"},
        {"m=1:8:x1", NULL, "--shape m=1:8:x1: m=1:8:x1: expected a range LO:HI:xF (F >= 2) or LO:HI:+S"},
        {"m=64:8:+8", NULL, "--shape m=64:8:+8: m=64:8:+8: expected a range"},
        {"m=128,m=256", NULL, "--shape m=128,m=256: key \"m\" given twice"},
        {"dtype=int8", NULL, "--shape dtype=int8: shape: dtype=int8: expected bf16|fp16|fp32, got \"int8\""},
        {"128,m=1", NULL, "--shape 128,m=1: expected key=value first"},
        {"m=128,,n=4", NULL, "--shape m=128,,n=4: an empty value"},
        {"m=1:64:+1,n=1:128:+1", NULL, "--shape: 8192 cells (the product of the keys' values): expected at most 4096"},
        {"m=128", "--quick", "--shape gives the cells: drop --quick"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_INT(sweep("gemm", "--shape", cases[i].shape, cases[i].extra, NULL, NULL, NULL, NULL), ==, 2);
        CHECK_CONTAINS(out, cases[i].msg);
    }
    /* a cell the family refuses as a whole: named with its shape */
    CHECK_INT(sweep("sdpa", "--shape", "h_q=32,h_kv=5", NULL, NULL, NULL, NULL, NULL), ==, 2);
    CHECK_CONTAINS(out, "--shape: /grid/0: cell h_q=32,h_kv=5 (sdpa_fwd): sdpa_fwd: h_q = 32 is not a multiple of h_kv = 5");
    CHECK_INT(sweep("gemm", "--resume", "/tmp", "--shape", "m=128", NULL, NULL, NULL), ==, 2);
    CHECK_CONTAINS(out, "drop --spec, --quick, --shape,");
}

/* Three m by one n and two k: six cells, the embedded spec's settings. */
static void test_cells(const char *dir)
{
    char run[600], tables[600], path[700];
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(tables, sizeof tables, "%s/tables", dir);
    char *av[] = {(char *)GDTUNE_EXE, "sweep", "gemm", "--arch", "sm90", "--shape", "m=128:512:x2,n=512",
                  "--shape", "k=256,512", "--out", run, "--tables-dir", tables, NULL};
    CHECK_INT(gdt_test_spawn(av, NULL, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "gdtune sweep: --shape: 6 cells");
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    slurp(path);
    CHECK_CONTAINS(out, "\"spec_source\":\"--shape\"");
    CHECK_CONTAINS(out, "\"max_plan_seconds\":0.5,"); /* sweeps/gemm.json's cap */
    snprintf(path, sizeof path, "%s/sm90/gemm.tuning.json", tables);
    slurp(path);
    static const char *const keys[] = {"m128,n512,k256", "m256,n512,k256", "m512,n512,k256",
                                       "m128,n512,k512", "m256,n512,k512", "m512,n512,k512"};
    for (int i = 0; i < 6; i++)
        CHECK_CONTAINS(out, keys[i]);
    CHECK(strstr(out, "m1024") == NULL && strstr(out, "n4096") == NULL);
}

/* The README's sm100 workflow on a machine whose device is sm90. */
static void test_sm100(const char *dir)
{
    char run[600], cache[600];
    snprintf(run, sizeof run, "%s/sm100", dir);
    snprintf(cache, sizeof cache, "%s/kcache", dir);
    CHECK_INT(sweep("sdpa", "--arch", "sm100", "--shape", "s=256,d=64", "--out", run, NULL), ==, 2);
    CHECK_CONTAINS(out, "--arch sm100 names sm100, but the device is sm90 (Stand-in GPU): measuring for "
                        "another arch is refused");
    setenv("GDTUNE_CACHE_DIR", cache, 1);
    CHECK_INT(sweep("gemm", "--arch", "sm100", "--compile-only", "--shape", "m=128,n=256,k=64", NULL, NULL), ==, 0);
    CHECK_CONTAINS(out, "gdtune sweep gemm --compile-only: sm100, 1 cells (--shape)");
    CHECK_CONTAINS(out, "0 failed");
    unsetenv("GDTUNE_CACHE_DIR");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "worker"))
        return gdt_test_one_plan_worker(0.001, true);
    char self[PATH_MAX], dir[] = "/tmp/gdt_sweep_shape_XXXXXX";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    setenv("GDTUNE_WORKER_EXE", self, 1);
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(chdir(dir), ==, 0);
    test_refused();
    test_cells(dir);
    test_sm100(dir);
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_sweep_shape");
}
