/* Families, dtypes, --shape parsing and its refusals, strides, validation,
 * canonical keys, flops, operands, arch limits and facts. */
#include <math.h>

#include "gdt_test.h"
#include "gdtune/gdtune.h"
#include "gdtune/plan.h"

static void test_families(void)
{
    gdt_family f;
    unsigned mask;
    gdt_error e;
    for (int i = 0; i < GDT_FAMILY_COUNT; i++) {
        CHECK_INT(gdt_family_parse(gdt_family_name((gdt_family)i), &f, &e), ==, 0);
        CHECK_INT(f, ==, i);
    }
    CHECK_STR(gdt_family_name(GDT_FAMILY_SDPA_BWD), "sdpa_bwd");
    CHECK_INT(gdt_family_parse("sdpa", &f, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "\"sdpa\" names two families (sdpa_fwd and sdpa_bwd)");
    CHECK_INT(gdt_family_parse("conv", &f, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_STR(e.msg, "unknown family \"conv\" (expected gemm, sdpa_fwd or sdpa_bwd)");
    CHECK_INT(gdt_family_parse_set("sdpa", &mask, &e), ==, 0);
    CHECK_INT(mask, ==, (1u << GDT_FAMILY_SDPA_FWD) | (1u << GDT_FAMILY_SDPA_BWD));
    CHECK_INT(gdt_family_parse_set("gemm", &mask, &e), ==, 0);
    CHECK_INT(mask, ==, 1u << GDT_FAMILY_GEMM);
    CHECK_INT(gdt_family_parse_set("GEMM", &mask, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "unknown family \"GEMM\"");
}

static void test_dtypes(void)
{
    CHECK_STR(gdt_dtype_name(GDT_DTYPE_BF16), "bf16");
    CHECK_STR(gdt_dtype_name(GDT_DTYPE_FP32), "fp32");
    CHECK_INT(gdt_dtype_size(GDT_DTYPE_FP16), ==, 2);
    CHECK_INT(gdt_dtype_size(GDT_DTYPE_FP32), ==, 4);
    CHECK(gdt_dtype_tolerance(GDT_DTYPE_BF16) == 2e-2);
    CHECK(gdt_dtype_tolerance(GDT_DTYPE_FP16) == 1e-2);
    CHECK(gdt_dtype_tolerance(GDT_DTYPE_FP32) == 1e-4);
}

static void key_of(gdt_family f, const char *spec, const char *want)
{
    gdt_problem p;
    gdt_error e;
    char key[256];
    gdt_status st = gdt_problem_parse(f, spec, &p, &e);
    CHECK_INT(st, ==, 0);
    if (st) fprintf(stderr, "  %s: %s\n", spec ? spec : "(null)", e.msg);
    gdt_problem_key(&p, key, sizeof key);
    CHECK_STR(key, want);
}

static void test_defaults_and_keys(void)
{
    gdt_problem p;
    char key[256];
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    gdt_problem_key(&p, key, sizeof key);
    CHECK_STR(key, "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row");
    gdt_problem_default(GDT_FAMILY_SDPA_FWD, &p);
    gdt_problem_key(&p, key, sizeof key);
    CHECK_STR(key, "sdpa_fwd:b4,hq32,hkv32,sq4096,skv4096,d128,bf16,causal=top_left,bshd,scale=0.0883883476");
    key_of(GDT_FAMILY_GEMM, NULL, "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row");
    key_of(GDT_FAMILY_GEMM, "", "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row");
    key_of(GDT_FAMILY_GEMM, "m=128,batch=3,k=64,n=256,dtype=fp16,a=col,b=col",
           "gemm:b3,m128,n256,k64,fp16,a=col,b=col");
    key_of(GDT_FAMILY_GEMM, "b=col", "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=col");
    /* h and s set both sides; d moves the default scale with it. */
    key_of(GDT_FAMILY_SDPA_BWD, "h=8,s=1024,d=64,causal=none,layout=bhsd",
           "sdpa_bwd:b4,hq8,hkv8,sq1024,skv1024,d64,bf16,causal=none,bhsd,scale=0.125");
    key_of(GDT_FAMILY_SDPA_FWD, "h_q=32,h_kv=8,s_q=128,s_kv=4096,causal=bottom_right,scale=0.5",
           "sdpa_fwd:b4,hq32,hkv8,sq128,skv4096,d128,bf16,causal=bottom_right,bshd,scale=0.5");
    key_of(GDT_FAMILY_SDPA_FWD, "causal=1", "sdpa_fwd:b4,hq32,hkv32,sq4096,skv4096,d128,bf16,causal=top_left,bshd,scale=0.0883883476");
    key_of(GDT_FAMILY_SDPA_FWD, "causal=0,h=2147483647,b=1,s=1,d=16",
           "sdpa_fwd:b1,hq2147483647,hkv2147483647,sq1,skv1,d16,bf16,causal=none,bshd,scale=0.25");
}

static void refuse(gdt_family f, const char *spec, const char *want)
{
    gdt_problem p, before;
    gdt_error e;
    gdt_problem_default(f, &p);
    before = p;
    gdt_status st = gdt_problem_parse(f, spec, &p, &e);
    CHECK_INT(st, ==, GDT_STATUS_BAD_INPUT);
    CHECK_INT(e.status, ==, GDT_STATUS_BAD_INPUT);
    if (st) CHECK_CONTAINS(e.msg, want);
    CHECK(!memcmp(&p, &before, sizeof p)); /* untouched on refusal */
}

static void test_shape_refusals(void)
{
    refuse(GDT_FAMILY_GEMM, "x=3", "shape: unknown key \"x\" for gemm (valid keys: batch, m, n, k, dtype, a, b)");
    refuse(GDT_FAMILY_SDPA_FWD, "m=3", "shape: unknown key \"m\" for sdpa_fwd (valid keys: b, h, h_q, h_kv, s, s_q, s_kv, d, dtype, causal, layout, scale)");
    refuse(GDT_FAMILY_GEMM, "m=0", "shape: m=0: expected a positive integer, got 0");
    refuse(GDT_FAMILY_GEMM, "k=-4", "shape: k=-4: expected a positive integer, got -4");
    refuse(GDT_FAMILY_GEMM, "n=abc", "shape: n=abc: expected a positive integer, got \"abc\"");
    refuse(GDT_FAMILY_GEMM, "n=12x", "got \"12x\"");
    refuse(GDT_FAMILY_GEMM, "n=", "shape: n=: expected a positive integer, got \"\"");
    refuse(GDT_FAMILY_GEMM, "n=1.5", "got \"1.5\"");
    refuse(GDT_FAMILY_GEMM, "n= 4", "got \" 4\"");
    refuse(GDT_FAMILY_GEMM, "m=2147483648", "shape: m=2147483648: expected a positive integer at most 2147483647 (2^31-1), got 2147483648");
    refuse(GDT_FAMILY_GEMM, "m=99999999999999999999999", "at most 2147483647");
    refuse(GDT_FAMILY_GEMM, "m", "shape: expected key=value, got \"m\"");
    refuse(GDT_FAMILY_GEMM, "=5", "shape: expected key=value, got \"=5\"");
    refuse(GDT_FAMILY_GEMM, "m=5,,n=4", "shape: empty item");
    refuse(GDT_FAMILY_GEMM, "m=5,", "shape: empty item");
    refuse(GDT_FAMILY_GEMM, "m=5,m=6", "shape: key \"m\" given twice");
    refuse(GDT_FAMILY_SDPA_FWD, "h_q=32,h=8", "shape: keys \"h_q\" and \"h\" both set the same dimension; give one of them");
    refuse(GDT_FAMILY_SDPA_FWD, "s=8,s_kv=16", "shape: keys \"s\" and \"s_kv\" both set the same dimension");
    refuse(GDT_FAMILY_GEMM, "dtype=fp8", "shape: dtype=fp8: expected bf16|fp16|fp32, got \"fp8\"");
    refuse(GDT_FAMILY_GEMM, "dtype=fp32", "gemm: dtype = fp32: expected bf16 or fp16");
    refuse(GDT_FAMILY_GEMM, "a=rowmajor", "shape: a=rowmajor: expected row|col, got \"rowmajor\"");
    refuse(GDT_FAMILY_SDPA_FWD, "causal=2", "shape: causal=2: expected none|top_left|bottom_right|0|1, got \"2\"");
    refuse(GDT_FAMILY_SDPA_FWD, "layout=sbhd", "expected bhsd|bshd");
    refuse(GDT_FAMILY_SDPA_FWD, "scale=0", "shape: scale=0: expected a finite number > 0, got \"0\"");
    refuse(GDT_FAMILY_SDPA_FWD, "scale=-1", "expected a finite number > 0");
    refuse(GDT_FAMILY_SDPA_FWD, "scale=inf", "expected a finite number > 0");
    refuse(GDT_FAMILY_SDPA_FWD, "scale=nan", "expected a finite number > 0");
    refuse(GDT_FAMILY_SDPA_FWD, "scale=1e400", "expected a finite number > 0");
    refuse(GDT_FAMILY_SDPA_BWD, "h_q=12,h_kv=8", "sdpa_bwd: h_q = 12 is not a multiple of h_kv = 8");
    refuse(GDT_FAMILY_SDPA_FWD, "causal=bottom_right,s_q=4097",
           "sdpa_fwd: causal = bottom_right needs s_q <= s_kv, got s_q = 4097, s_kv = 4096");
    /* Every dim fits int32, their product does not fit int64. */
    refuse(GDT_FAMILY_GEMM, "batch=2147483647,m=2147483647,k=2147483647",
           "gemm: operand A: its 3 dims times 2 bytes per element overflow int64");
    refuse(GDT_FAMILY_GEMM, "m=1,k=2,batch=2147483647,n=2147483647", "gemm: operand B");
    refuse(GDT_FAMILY_SDPA_FWD, "b=2147483647,h=2147483647,s=2147483647",
           "sdpa_fwd: operand Q: its 4 dims times 2 bytes per element overflow int64");
    refuse(GDT_FAMILY_SDPA_FWD, "b=2147483647,h=1,s_q=1,s_kv=2147483647,d=4",
           "sdpa_fwd: operand K");
}

static void test_validate(void)
{
    gdt_problem p;
    gdt_error e;
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    p.u.gemm.m = 0;
    CHECK_INT(gdt_problem_validate(&p, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "gemm: m = 0: expected 1..2147483647");
    gdt_problem_default(GDT_FAMILY_SDPA_FWD, &p);
    p.u.sdpa.dtype = GDT_DTYPE_FP32;
    CHECK_INT(gdt_problem_validate(&p, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "sdpa_fwd: dtype = fp32: expected bf16 or fp16");
    p.u.sdpa.dtype = GDT_DTYPE_FP16;
    p.u.sdpa.scale = NAN;
    CHECK_INT(gdt_problem_validate(&p, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "scale");
}

static void test_strides(void)
{
    gdt_problem p;
    gdt_error e;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "batch=2,m=3,n=5,k=7,a=col", &p, &e), ==, 0);
    const gdt_gemm_desc *g = &p.u.gemm;
    CHECK_INT(g->a_stride[0], ==, 21); CHECK_INT(g->a_stride[1], ==, 1); CHECK_INT(g->a_stride[2], ==, 3);
    CHECK_INT(g->b_stride[0], ==, 35); CHECK_INT(g->b_stride[1], ==, 5); CHECK_INT(g->b_stride[2], ==, 1);
    CHECK_INT(g->c_stride[0], ==, 15); CHECK_INT(g->c_stride[1], ==, 5); CHECK_INT(g->c_stride[2], ==, 1);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "m=3,n=5,k=7,b=col", &p, &e), ==, 0);
    CHECK_INT(g->a_stride[1], ==, 7); CHECK_INT(g->a_stride[2], ==, 1);
    CHECK_INT(g->b_stride[0], ==, 35); CHECK_INT(g->b_stride[1], ==, 1); CHECK_INT(g->b_stride[2], ==, 7);
    /* set_strides keeps the layout when dims change. */
    p.u.gemm.k = 9;
    gdt_problem_set_strides(&p);
    CHECK_INT(g->b_stride[2], ==, 9); CHECK_INT(g->b_stride[1], ==, 1); CHECK_INT(g->a_stride[1], ==, 9);

    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=2,h_q=6,h_kv=3,s_q=5,s_kv=7,d=16,layout=bhsd",
                                &p, &e), ==, 0);
    const gdt_sdpa_desc *s = &p.u.sdpa;
    int64_t q[4] = {6 * 5 * 16, 5 * 16, 16, 1}, k[4] = {3 * 7 * 16, 7 * 16, 16, 1};
    for (int i = 0; i < 4; i++) {
        CHECK_INT(s->q_stride[i], ==, q[i]); CHECK_INT(s->o_stride[i], ==, q[i]);
        CHECK_INT(s->k_stride[i], ==, k[i]); CHECK_INT(s->v_stride[i], ==, k[i]);
    }
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=2,h_q=6,h_kv=3,s_q=5,s_kv=7,d=16,layout=bshd",
                                &p, &e), ==, 0);
    int64_t q2[4] = {5 * 6 * 16, 16, 6 * 16, 1}, k2[4] = {7 * 3 * 16, 16, 3 * 16, 1};
    for (int i = 0; i < 4; i++) {
        CHECK_INT(s->q_stride[i], ==, q2[i]); CHECK_INT(s->o_stride[i], ==, q2[i]);
        CHECK_INT(s->k_stride[i], ==, k2[i]); CHECK_INT(s->v_stride[i], ==, k2[i]);
    }
}

static void test_flops(void)
{
    gdt_problem p;
    gdt_error e;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "batch=2,m=3,n=5,k=7", &p, &e), ==, 0);
    CHECK(gdt_problem_flops(&p) == 2.0 * 2 * 3 * 5 * 7);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=2,h=3,s_q=5,s_kv=7,d=16,causal=none", &p, &e), ==, 0);
    CHECK(gdt_problem_flops(&p) == 4.0 * 2 * 3 * 5 * 7 * 16);
    /* a mask leaves each query row i the keys below i + offset (top-left:
     * 0, so s_q / (2 s_kv) of the scores; bottom-right: s_kv - s_q more),
     * a half only at s_q = s_kv */
    double full = 4.0 * 2 * 3 * 5 * 7 * 16;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=2,h=3,s_q=5,s_kv=7,d=16", &p, &e), ==, 0);
    CHECK_NEAR(gdt_problem_flops(&p), 2.5 / 7 * full, 1e-12 * full);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_BWD, "b=2,h=3,s_q=5,s_kv=7,d=16", &p, &e), ==, 0);
    CHECK_NEAR(gdt_problem_flops(&p), 2.5 * 2.5 / 7 * full, 1e-12 * full);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=2,h=3,s_q=5,s_kv=7,d=16,causal=bottom_right", &p, &e), ==, 0);
    CHECK_NEAR(gdt_problem_flops(&p), 4.5 / 7 * full, 1e-12 * full);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=2,h=3,s_q=7,s_kv=7,d=16", &p, &e), ==, 0);
    CHECK(gdt_problem_flops(&p) == 0.5 * 4.0 * 2 * 3 * 7 * 7 * 16);
}

static void test_operands(void)
{
    gdt_operand_role r[GDT_OPERAND_COUNT];
    int nout;
    CHECK_INT(gdt_family_operands(GDT_FAMILY_GEMM, r, &nout), ==, 3);
    CHECK_INT(nout, ==, 1);
    CHECK_INT(r[2], ==, GDT_OPERAND_C);
    CHECK_INT(gdt_family_operands(GDT_FAMILY_SDPA_FWD, r, &nout), ==, 5);
    CHECK_INT(nout, ==, 2);
    CHECK_INT(r[3], ==, GDT_OPERAND_O); CHECK_INT(r[4], ==, GDT_OPERAND_STATS);
    CHECK_INT(gdt_family_operands(GDT_FAMILY_SDPA_BWD, r, &nout), ==, 9);
    CHECK_INT(nout, ==, 3);
    CHECK_INT(r[4], ==, GDT_OPERAND_DO); CHECK_INT(r[8], ==, GDT_OPERAND_DV);
    CHECK_STR(gdt_operand_name(GDT_OPERAND_STATS), "Stats");
    CHECK_STR(gdt_operand_name(GDT_OPERAND_DQ), "dQ");

    gdt_problem p;
    gdt_error e;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "batch=2,m=3,n=5,k=7,a=col", &p, &e), ==, 0);
    CHECK_INT(gdt_operand_bytes(&p, GDT_OPERAND_A), ==, 2 * 3 * 7 * 2);
    CHECK_INT(gdt_operand_bytes(&p, GDT_OPERAND_C), ==, 2 * 3 * 5 * 2);
    CHECK_INT(gdt_operand_bytes(&p, GDT_OPERAND_Q), ==, 0); /* not bound by gemm */
    /* A padded leading dimension widens the span, not the element count. */
    p.u.gemm.c_stride[1] = 8;
    p.u.gemm.c_stride[0] = 3 * 8;
    CHECK_INT(gdt_operand_bytes(&p, GDT_OPERAND_C), ==, ((2 - 1) * 24 + (3 - 1) * 8 + (5 - 1) + 1) * 2);

    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_BWD, "b=2,h_q=4,h_kv=2,s_q=3,s_kv=5,d=16", &p, &e), ==, 0);
    CHECK_INT(gdt_operand_bytes(&p, GDT_OPERAND_DQ), ==, 2 * 4 * 3 * 16 * 2);
    CHECK_INT(gdt_operand_bytes(&p, GDT_OPERAND_DV), ==, 2 * 2 * 5 * 16 * 2);
    CHECK_INT(gdt_operand_bytes(&p, GDT_OPERAND_STATS), ==, 2 * 4 * 3 * 4);
    CHECK_INT(gdt_operand_dtype(&p, GDT_OPERAND_STATS), ==, GDT_DTYPE_FP32);
    CHECK_INT(gdt_operand_dtype(&p, GDT_OPERAND_K), ==, GDT_DTYPE_BF16);

    gdt_operands ops;
    memset(&ops, 0, sizeof ops);
    static char buf[4096];
    int n = gdt_family_operands(p.family, r, NULL);
    for (int i = 0; i < n; i++) ops.ptr[r[i]] = buf, ops.bytes[r[i]] = gdt_operand_bytes(&p, r[i]);
    CHECK_INT(gdt_operands_check(&p, &ops, &e), ==, 0);
    ops.bytes[GDT_OPERAND_DK] -= 1;
    CHECK_INT(gdt_operands_check(&p, &ops, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "sdpa_bwd: operand dK: buffer of 639 bytes is smaller than the 640 bytes declared");
    ops.bytes[GDT_OPERAND_DK] += 1;
    ops.ptr[GDT_OPERAND_STATS] = NULL;
    CHECK_INT(gdt_operands_check(&p, &ops, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "sdpa_bwd: operand Stats: missing pointer (declared 96 bytes)");
}

static void test_arch(void)
{
    static const struct {
        const char *text;
        int arch;
    } ok[] = {{"sm90", 90}, {"sm_90", 90}, {"sm90a", 90}, {"sm100", 100}, {"sm_100f", 100}, {"sm80", 80}};
    gdt_error e;
    int a;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CHECK_INT(gdt_arch_parse(ok[i].text, &a, &e), ==, 0);
        CHECK_INT(a, ==, ok[i].arch);
    }
    static const char *const bad[] = {"90", "sm", "sm9", "sm_", "sm90b", "SM90", "sm 90", "sm1000", "compute_90", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(gdt_arch_parse(bad[i], &a, &e), ==, GDT_STATUS_BAD_USAGE);
        char want[64];
        snprintf(want, sizeof want, "arch \"%s\": expected smXY", bad[i]);
        CHECK_CONTAINS(e.msg, want);
    }
    gdt_device_props d;
    CHECK(gdt_arch_limits(80, &d));
    CHECK_INT(d.smem_per_block, ==, 166912);
    CHECK_INT(d.l2_bytes, ==, 40LL << 20);
    CHECK(gdt_arch_limits(90, &d));
    CHECK_INT(d.smem_per_block, ==, 232448);
    CHECK_INT(d.max_threads_per_block, ==, 1024);
    CHECK_INT(d.regs_per_block, ==, 65536);
    CHECK_INT(d.l2_bytes, ==, 50LL << 20);
    CHECK_INT(d.sm_count, ==, 0);
    CHECK(gdt_arch_limits(86, &d) && d.smem_per_block == 101376);
    CHECK(gdt_arch_limits(89, &d) && d.smem_per_block == 101376);
    CHECK(gdt_arch_limits(100, &d) && d.smem_per_block == 232448);
    CHECK(gdt_arch_limits(120, &d) && d.smem_per_block == 101376);
    CHECK(!gdt_arch_limits(75, &d));
    CHECK(gdt_arch_limits(90, NULL));
}

static void test_facts(void)
{
    gdt_problem p;
    gdt_error e;
    gdt_device_props dev;
    gdt_facts f;
    gdt_arch_limits(90, &dev);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "m=128,n=256,k=64,a=col", &p, &e), ==, 0);
    gdt_facts_analyze(&p, &dev, &f);
    CHECK_INT(f.family, ==, GDT_FAMILY_GEMM);
    CHECK_INT(f.device.arch, ==, 90);
    CHECK(!f.a_row_major && f.b_row_major && f.c_row_major && f.aligned16);
    CHECK(f.flops == 2.0 * 128 * 256 * 64);
    CHECK_INT(f.dtype, ==, GDT_DTYPE_BF16);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "m=128,n=250,k=64", &p, &e), ==, 0);
    gdt_facts_analyze(&p, &dev, &f);
    CHECK(!f.aligned16); /* 250 * 2 bytes is not a multiple of 16 */

    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=2,h_q=16,h_kv=4,s_q=300,s_kv=1000,dtype=fp16", &p, &e), ==, 0);
    gdt_facts_analyze(&p, NULL, &f);
    CHECK_INT(f.gqa_ratio, ==, 4);
    CHECK_INT(f.q_tiles128, ==, 2 * 16 * 3);
    CHECK_INT(f.kv_units, ==, 8);
    CHECK_INT(f.kv_tokens, ==, 2000);
    CHECK_INT(f.dtype, ==, GDT_DTYPE_FP16);
    CHECK_INT(f.device.arch, ==, 0);
}

int main(void)
{
    test_families();
    test_dtypes();
    test_defaults_and_keys();
    test_shape_refusals();
    test_validate();
    test_strides();
    test_flops();
    test_operands();
    test_arch();
    test_facts();
    return gdt_test_result("test_problem");
}
