/* `gdtune candidates`: exit codes 0 and 2, --help, output naming plans,
 * bound and requested values, rejections, override. */
#include "gdt_test.h"

#define DATA GDT_TEST_DATA "/candidates/"

static char out[1 << 17];

static int run(const char *args)
{
    char cmd[4096];
    const char *exe = getenv("GDTUNE_EXE");
    snprintf(cmd, sizeof cmd, "'%s' candidates %s", exe ? exe : GDTUNE_EXE, args);
    return gdt_test_run(cmd, out, sizeof out);
}

static void expect(const char *args, int code, const char *fragment)
{
    int rc = run(args);
    CHECK_INT(rc, ==, code);
    if (rc != code) fprintf(stderr, "  gdtune candidates %s:\n%s\n", args, out);
    if (fragment) CHECK_CONTAINS(out, fragment);
}

static void test_help_and_usage(void)
{
    expect("--help", 0, "usage: gdtune candidates FAMILY [--tuning-config FILE] [--shape k=v,...] [--arch smXY]");
    expect("gemm --help", 0, "--tuning-config FILE");
    expect("-h", 0, "exit codes: 0 success");
    expect("", 2, "gdtune candidates: missing FAMILY");
    expect("conv", 2, "unknown family \"conv\"");
    expect("gemm --bogus", 2, "gdtune candidates: unknown option '--bogus' (see gdtune candidates --help)");
    expect("gemm sdpa", 2, "unexpected argument 'sdpa'");
    expect("gemm --shape", 2, "--shape needs a value (expected k=v,...)");
    expect("gemm --arch sm9", 2, "arch \"sm9\": expected smXY");
    expect("gemm --arch sm75", 2, "sm75: no per-arch limits");
}

static void test_bad_input(void)
{
    expect("gemm --shape q=1", 2, "shape: unknown key \"q\" for gemm (valid keys: batch, m, n, k, dtype, a, b)");
    expect("gemm --shape m=0", 2, "shape: m=0: expected a positive integer, got 0");
    expect("sdpa --shape m=64", 2, "unknown key \"m\" for sdpa_fwd");
    expect("gemm --shape batch=2147483647,m=2147483647,k=2147483647", 2, "overflow int64");
    expect("gemm --tuning-config " DATA "nope.json", 2,
           "gdtune candidates: " DATA "nope.json: cannot open: No such file or directory");
    expect("gemm --tuning-config " DATA "columns.json", 2,
           DATA "columns.json: /nvrtc/contraction/3: expected 8 to 16 columns (from PIPE on optional), got 7");
    expect("gemm --tuning-config=" DATA "unknown_family.json", 2, "unknown structural family");
}

static void test_output(void)
{
    expect("gemm", 0, "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row on sm90");
    CHECK_CONTAINS(out, "gemm.nvrtc: row family contraction");
    CHECK_CONTAINS(out, "  row 0   plan       gemm.nvrtc[GROUP_M=");
    CHECK_CONTAINS(out, "bound BM=");
    CHECK_CONTAINS(out, "gemm.nvrtc: ");
    CHECK_CONTAINS(out, " rows: ");
    CHECK(strstr(out, "test_fault") == NULL); /* only NVRTC slots */

    /* Projection shows what was requested; wgmma rows are refused off sm90. */
    expect("gemm --shape m=48,n=64,k=32 --arch sm100", 0, "(requested 128)");
    CHECK_CONTAINS(out, "rejected   MMA=1 (wgmma) needs sm_90a, target is sm100");
    CHECK_CONTAINS(out, "requested BM=");
    CHECK_CONTAINS(out, "duplicate  of row ");

    expect("sdpa --arch sm_90a --shape h=8,d=64", 0, "sdpa_fwd.nvrtc: row family attention_fwd");
    CHECK_CONTAINS(out, "sdpa_bwd.nvrtc: row family attention_bwd");
    CHECK_CONTAINS(out, "sdpa_fwd:b4,hq8,hkv8,sq4096,skv4096,d64,bf16,causal=top_left,bshd,scale=0.125 on sm90");
    expect("sdpa_fwd --shape d=8", 0, "sdpa_fwd.nvrtc: not offered: sdpa_fwd.nvrtc: head dim 8 outside 16..256");
}

static void test_override(void)
{
    expect("sdpa --tuning-config " DATA "override_attention.json", 0,
           "sdpa_fwd.nvrtc: row family attention_fwd, 2 rows from " DATA "override_attention.json\n");
    CHECK_CONTAINS(out, "sdpa_bwd.nvrtc: row family attention_bwd, ");
    CHECK_CONTAINS(out, " rows from tables/candidates/nvrtc.json\n");
    CHECK_CONTAINS(out, "sdpa_fwd.nvrtc[MMA=0, STAGES=1, TILE_M=64, TILE_N=32, WARPS=4]");
    /* An override that does not name gemm's family leaves gemm's defaults. */
    expect("gemm", 0, "rows from tables/candidates/nvrtc.json\n");
    char line[128] = "";
    const char *at = strstr(out, "gemm.nvrtc: row family contraction, ");
    if (at) snprintf(line, sizeof line, "%.*s", (int)strcspn(at, "\n"), at);
    expect("gemm --tuning-config " DATA "override_attention.json", 0, line);
}

int main(void)
{
    test_help_and_usage();
    test_bad_input();
    test_output();
    test_override();
    return gdt_test_result("test_cli_candidates");
}
