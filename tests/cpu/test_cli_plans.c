/* `gdtune plans` and `gdtune tables check`: exit codes, messages, the
 * marker line without a GPU, tables from --tables and from ./tables, and a
 * refused table falling back to the untimed order with a warning. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_cuda.h"
#include "gdt_test.h"
#include "gdt_util.h"

static char out[1 << 16];
static char root[256];
static bool gpu;

static int run(const char *fmt, const char *arg)
{
    char args[4096], cmd[8192];
    snprintf(args, sizeof args, fmt, arg);
    snprintf(cmd, sizeof cmd, "%s %s", GDTUNE_EXE, args);
    return gdt_test_run(cmd, out, sizeof out);
}

/* argv run from the folder dir, output into out; the test's own working
 * folder is back as it was afterwards. */
static int spawn_in(const char *dir, char *const argv[])
{
    char here[4096];
    if (!getcwd(here, sizeof here) || chdir(dir) != 0)
        return -1;
    int rc = gdt_test_spawn(argv, NULL, out, sizeof out);
    if (chdir(here) != 0)
        return -1;
    return rc;
}

#define EXPECT_RUN(code, fmt, arg, needle)                                                        \
    do {                                                                                          \
        int rc_ = run(fmt, arg);                                                                  \
        if (rc_ != (code)) fprintf(stderr, "gdtune " fmt ":\n%s\n", arg, out);                    \
        CHECK_INT(rc_, ==, code);                                                                 \
        CHECK_CONTAINS(out, needle);                                                              \
    } while (0)

static void test_plans_usage(void)
{
    EXPECT_RUN(0, "plans --help%s", "", "usage: gdtune plans FAMILY");
    EXPECT_RUN(2, "plans%s", "", "missing FAMILY");
    EXPECT_RUN(2, "plans %s", "gemmm", "gemmm");
    EXPECT_RUN(2, "plans gemm gemm%s", "", "unexpected argument 'gemm'");
    EXPECT_RUN(2, "plans gemm %s", "--frobnicate", "unknown option '--frobnicate'");
    EXPECT_RUN(2, "plans gemm %s", "--shape", "--shape needs a value");
    EXPECT_RUN(2, "plans gemm --shape %s", "m=0", "m=0: expected a positive integer, got 0");
    EXPECT_RUN(2, "plans gemm --shape %s", "zz=3", "unknown key \"zz\" for gemm");
    EXPECT_RUN(2, "plans gemm --shape %s", "m=99999999999999999999", "m=99999999999999999999");
    EXPECT_RUN(2, "plans gemm --mode %s", "C", "mode \"C\": expected one of A, B, FALLBACK, OPENSOURCE");
    EXPECT_RUN(2, "plans gemm --mode A --mode B --mode A --mode B --mode %s", "A", "at most 4 mode blocks");
    EXPECT_RUN(2, "plans gemm --arch %s", "sm9x", "sm9x");
    EXPECT_RUN(2, "plans gemm --tuning-config %s", "/nonexistent/rows.json", "/nonexistent/rows.json");
}

static void test_plans_untimed(void)
{
    EXPECT_RUN(0, "plans gemm --tables %s/none", root, "tables: none under");
    CHECK_CONTAINS(out, "/none: not a directory");
    CHECK_CONTAINS(out, "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row on sm90, modes A");
    if (!gpu) CHECK_CONTAINS(out, "   0  BACKEND(A) \xe2\x80\x94 unexpanded: no GPU\n");
    if (!gpu) CHECK_CONTAINS(out, "   1  gemm.nvrtc[");
    CHECK_CONTAINS(out, "A, untimed default");
    /* FALLBACK: the smallest tile first, then the backend's block; the
     * OPENSOURCE block after it repeats nothing. */
    EXPECT_RUN(0, "plans gemm --tables %s/none --mode FALLBACK --mode OPENSOURCE", root, "   0  gemm.nvrtc[");
    const char *first = strstr(out, "   0  "), *nl = first ? strchr(first, '\n') : NULL;
    CHECK(nl && nl - first > 30 && !strncmp(nl - 27, "FALLBACK, fallback; untimed", 27));
    CHECK(!strstr(out, "BACKEND(A)"));
    if (!gpu) CHECK_CONTAINS(out, "   1  BACKEND(FALLBACK) \xe2\x80\x94 unexpanded: no GPU\n");
    /* At decode-sized M gemm.hand lists its swap-AB configurations, whose
     * 16 x 64 tile is the smallest, but the FALLBACK pick is never one:
     * no GPU has measured them (engines/plan_names.c). */
    EXPECT_RUN(0, "plans gemm --shape m=16,n=4096,k=4096 --tables %s/none --mode FALLBACK --mode OPENSOURCE",
               root, "SWAP_AB=1");
    first = strstr(out, "   0  "), nl = first ? strchr(first, '\n') : NULL;
    CHECK(nl && !strncmp(nl - 27, "FALLBACK, fallback; untimed", 27));
    CHECK(first && nl && !memmem(first, (size_t)(nl - first), "SWAP_AB", 7));
    CHECK_CONTAINS(out, "OPENSOURCE, untimed default");
    /* --tuning-config replaces the contraction rows as a group. */
    char rows[512];
    snprintf(rows, sizeof rows, "%s/rows.json", root);
    const char *one = "{\"nvrtc\": {\"contraction\": [[64, 64, 32, 2, 2, 3, 8, 0]]}}";
    gdt_error e;
    CHECK_INT(gdt_file_write_atomic(rows, one, strlen(one), &e), ==, GDT_STATUS_OK);
    char args[1024];
    snprintf(args, sizeof args, "%s --mode OPENSOURCE --tables %s/none", rows, root);
    EXPECT_RUN(0, "plans gemm --tuning-config %s", args, "   0  gemm.nvrtc[");
    CHECK_CONTAINS(out, "TILE_M=64, TILE_N=64");
    /* the slot without rows: its eighteen listed fixed configurations by name,
     * the 128 x 256 tile first for a 4096^3 problem (it fills the SMs
     * unsplit), the 6-stage 128 x 128 right after its 4-stage twin, the
     * 128 x 256 cluster after the tie, the two row twins (3-stage
     * 128 x 256, unsplit 8-stage 128 x 64) after those, then the splits
     * summed in a cluster; the two stream-K and the two ping-pong ones
     * last (no faster than the others where an H100 timed them), in
     * makespan order: stream-K 128 x 128, ping-pong's 4 and 6 stages (the
     * 128 x 128 tiles' makespan, ties in table order), then stream-K
     * 128 x 192 */
    CHECK_CONTAINS(out, "   1  gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256] ");
    CHECK_CONTAINS(out, "   3  gemm.hand[GROUP_M=8, STAGES=6, TILEK=64, TILE_M=128, TILE_N=128] ");
    CHECK_CONTAINS(out, "   4  gemm.hand[CLUSTER_SHAPE=5, GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256] ");
    CHECK_CONTAINS(out, "   5  gemm.hand[GROUP_M=8, STAGES=3, TILEK=64, TILE_M=128, TILE_N=256] ");
    CHECK_CONTAINS(out, "   6  gemm.hand[GROUP_M=8, STAGES=8, TILEK=64, TILE_M=128, TILE_N=64] ");
    CHECK_CONTAINS(out, "   7  gemm.hand[GROUP_M=8, REDUCTION_MODE=1, SPLIT_K=2, STAGES=8, ");
    CHECK_CONTAINS(out, "  14  gemm.hand[GROUP_M=8, SPLIT_K=8, ");
    CHECK_CONTAINS(out, "  15  gemm.hand[GROUP_M=8, REDUCTION_MODE=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128] ");
    CHECK_CONTAINS(out, "  16  gemm.hand[GROUP_M=8, PINGPONG=1, STAGES=4, TILEK=64, TILE_M=128, TILE_N=128] ");
    CHECK_CONTAINS(out, "  17  gemm.hand[GROUP_M=8, PINGPONG=1, STAGES=6, TILEK=64, TILE_M=128, TILE_N=128] ");
    CHECK_CONTAINS(out, "  18  gemm.hand[GROUP_M=8, REDUCTION_MODE=2, STAGES=4, TILEK=64, TILE_M=128, TILE_N=192] ");
    CHECK(!strstr(out, "  19  "));
    /* sdpa names both families. */
    EXPECT_RUN(0, "plans sdpa --tables %s/none --shape s_q=512,s_kv=512", root, "sdpa_fwd:b4");
    CHECK_CONTAINS(out, "sdpa_bwd:b4");
    CHECK_CONTAINS(out, "sdpa_fwd.nvrtc[");
}

static void test_plans_tables(void)
{
    EXPECT_RUN(0, "plans gemm --tables %s --shape m=4096", GDT_TEST_DATA "/tables", "tables: " GDT_TEST_DATA);
    CHECK_CONTAINS(out, "   0  gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256]");
    CHECK_CONTAINS(out, "A, measured rank; measured 100 us\n");
    CHECK_CONTAINS(out, "   1  cudnn.eng7[KERNEL_CFG=1]");
    if (!gpu) CHECK_CONTAINS(out, "   2  BACKEND(A)");
    /* A shape the fixture did not measure, whose time model knows none of
     * the default rows' plans: its shard (TRAIL below m=2048). */
    EXPECT_RUN(0, "plans gemm --tables %s --shape m=256", GDT_TEST_DATA "/tables", "placement shard; untimed");
    if (!gpu) CHECK_CONTAINS(out, "   0  BACKEND(A)");
    /* The committed tables on a shape no sweep measured: ours by predicted
     * time, a handwritten configuration first (every large measured cell's
     * best plan of ours is one), the backend placed by the predicted ratio. */
    EXPECT_RUN(0, "plans gemm --tables %s --shape m=2048,n=8192", GDT_SOURCE_DIR "/tables", "A, predicted time; ");
    if (!gpu) CHECK_CONTAINS(out, "  BACKEND(A)");
    CHECK(strstr(out, "  gemm.hand[") != NULL);
    /* the committed GEMM tables' 25 cells: every default plan listed was measured in all of them */
    CHECK_CONTAINS(out, " us predicted from cells (25 measured it, nearest gemm:b1,m");
    CHECK_CONTAINS(out, "; noise "); /* the JSON's noise: the model's error, in the one word */
    CHECK(!strstr(out, "extrapolate")); /* bf16 row-major: the swept cells' own */
    /* fp16, and a column-major A: no swept cell has them, and the output says so */
    EXPECT_RUN(0, "plans gemm --tables %s --shape m=2048,n=8192,dtype=fp16", GDT_SOURCE_DIR "/tables",
               "\n  (no swept cell has this shape's combination of dtype, a_row_major, b_row_major, c_row_major: "
               "its predicted times extrapolate from the swept ones)\n");
    EXPECT_RUN(0, "plans sdpa_fwd --tables %s --shape b=2,h=8,s=1000,d=128,causal=bottom_right --format json",
               GDT_SOURCE_DIR "/tables", "combination of dtype, causal, d, gqa: its predicted times extrapolate");
    EXPECT_RUN(0, "plans gemm --tables %s --shape m=2048,n=8192 --format json", GDT_SOURCE_DIR "/tables",
               "\"time_source\":\t\"predicted\"");
    CHECK_CONTAINS(out, "\"time_cells\":\t25");
    CHECK_CONTAINS(out, "\"engine_id\":\t20010,"); /* gemm.hand's, beside its name */
    EXPECT_RUN(0, "plans gemm --tables %s --shape m=2048,n=8192 --format csv", GDT_SOURCE_DIR "/tables",
               "time_us,time_source,noise,time_cells,time_nearest");
    CHECK_CONTAINS(out, ",predicted,");
    CHECK_CONTAINS(out, "index,mode,marker,name,engine_id,why,");
    /* ./tables is the default. */
    char cwd[512], tuning[600], log[1024];
    snprintf(cwd, sizeof cwd, "%s/cwd", root);
    char *mk[] = {"mkdir", "-p", cwd, NULL};
    char *cp[] = {"cp", "-r", GDT_TEST_DATA "/tables", cwd, NULL};
    CHECK_INT(gdt_test_spawn(mk, NULL, log, sizeof log) == 0 ? gdt_test_spawn(cp, NULL, log, sizeof log) : -1,
              ==, 0);
    char *plans[] = {GDTUNE_EXE, "plans", "gemm", NULL};
    CHECK_INT(spawn_in(cwd, plans), ==, 0);
    /* the place as an absolute path, wherever the output is read */
    char shown[700];
    snprintf(shown, sizeof shown, "tables: %s/tables/sm90/gemm.{placement,tuning}.json", cwd);
    CHECK_CONTAINS(out, shown);
    CHECK_CONTAINS(out, "measured rank");
    /* A table that fails to load: a warning naming the error, untimed order. */
    snprintf(tuning, sizeof tuning, "%s/tables/sm90/gemm.tuning.json", cwd);
    char *sed[] = {"sed", "-i", "s/gdtune.tuning\\/1/gdtune.tuning\\/9/", tuning, NULL};
    CHECK_INT(gdt_test_spawn(sed, NULL, log, sizeof log), ==, 0);
    CHECK_INT(spawn_in(cwd, plans), ==, 0);
    CHECK_CONTAINS(out, "gdtune plans: warning: tables passed over (the search goes on): "
                        "tables/sm90/gemm.tuning.json: /schema: expected \"gdtune.tuning/1\", got "
                        "\"gdtune.tuning/9\"");
    CHECK_CONTAINS(out, "A, untimed default");
    CHECK(!strstr(out, "measured rank"));
}

static void test_tables_check(void)
{
    EXPECT_RUN(0, "tables --help%s", "", "usage: gdtune tables check FILE...");
    EXPECT_RUN(0, "tables check --help%s", "", "usage: gdtune tables check FILE...");
    EXPECT_RUN(2, "tables%s", "", "missing sub-command");
    EXPECT_RUN(2, "tables %s", "frob", "unknown sub-command 'frob'");
    EXPECT_RUN(2, "tables check%s", "", "no FILE given");
    EXPECT_RUN(0, "tables check %s/tables/sm90/gemm.tuning.json", GDT_TEST_DATA,
               "gemm.tuning.json: ok (tuning, sm90, gemm, 4 cells)");
    EXPECT_RUN(0, "tables check %s/tables/sm90/gemm.placement.json", GDT_TEST_DATA,
               "gemm.placement.json: ok (placement, sm90, gemm, 4 cells)");
    char bad[512];
    snprintf(bad, sizeof bad, "%s/bad.json", root);
    gdt_error e;
    const char *text = "{\"schema\": \"gdtune.tuning/1\", \"family\": \"gemm\", \"arch\": \"sm90\", \"cells\": []}";
    CHECK_INT(gdt_file_write_atomic(bad, text, strlen(text), &e), ==, GDT_STATUS_OK);
    EXPECT_RUN(2, "tables check %s", bad, "bad.json: /: missing required field \"provenance\"");
    char both[2048];
    snprintf(both, sizeof both, "%s/tables/sm90/gemm.tuning.json %s", GDT_TEST_DATA, bad);
    EXPECT_RUN(2, "tables check %s", both, "ok (tuning, sm90, gemm, 4 cells)");
    CHECK_CONTAINS(out, "1 of 2 files invalid");
    EXPECT_RUN(2, "tables check %s/missing.json", root, "missing.json");
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/gdt_test_cli_plans.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    gpu = gdt__device_present();
    test_plans_usage();
    test_plans_untimed();
    test_plans_tables();
    test_tables_check();
    if (gdt_test_remove_tree(root) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_cli_plans");
}
