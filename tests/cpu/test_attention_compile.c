/* The flash-attention templates without a GPU: every default attention_fwd
 * and attention_bwd row that survives the row rules for sm80, sm90 and sm100
 * at d = 64 and 128 compiles through gdt_nvrtc_compile; the row rules and
 * the templates' own checks reject what the kernels cannot serve, with the
 * reason named; launch geometry, shared memory and workspace follow the
 * bound row. */
#include <stdlib.h>
#include <string.h>

#include "gdt_engine_impl.h"
#include "gdt_rows.h"
#include "gdt_test.h"
#include "nvrtc/gdt_attention.h"
#include "nvrtc/gdt_nvrtc.h"

static const gdt_engine_slot *slot_for(gdt_family fam)
{
    const char *name = fam == GDT_FAMILY_SDPA_FWD ? "sdpa_fwd.nvrtc" : "sdpa_bwd.nvrtc";
    const gdt_engine_slot *s = gdt_manifest_find_name(gdt_manifest_default(), name);
    CHECK(s != NULL);
    return s;
}

static const gdt_nvrtc_template *tmpl_for(gdt_family fam)
{
    return fam == GDT_FAMILY_SDPA_FWD ? &gdt__tmpl_attn_fwd : &gdt__tmpl_attn_bwd;
}

static bool facts_for(gdt_family fam, const char *shape, int arch, gdt_facts *f)
{
    gdt_problem p;
    gdt_device_props d;
    gdt_error e = {0};
    gdt_status st = gdt_problem_parse(fam, shape, &p, &e);
    if (st != GDT_STATUS_OK)
        fprintf(stderr, "%s: %s\n", shape, e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    CHECK(gdt_arch_limits(arch, &d));
    gdt_facts_analyze(&p, &d, f);
    return st == GDT_STATUS_OK;
}

static gdt_plan_id attn_plan(gdt_family fam, int64_t bm, int64_t bn, int64_t w, int64_t st)
{
    const gdt_row_family *rf = fam == GDT_FAMILY_SDPA_FWD ? &gdt__rows_attention_fwd
                                                          : &gdt__rows_attention_bwd;
    int64_t row[GDT_ATTN_NCOLS] = {bm, bn, w, st};
    gdt_plan_id id = {.engine_id = gdt_engine_id(fam, slot_for(fam)->slot)};
    for (int i = 0; i < rf->ncols; i++)
        gdt_plan_id_set_knob(&id, rf->cols[i].knob, row[i]);
    return id;
}

/* Compiles every surviving default row of one family for one arch and
 * shape; returns how many compiled. */
static int compile_rows(gdt_family fam, const char *shape, int arch)
{
    gdt_row_table *t = NULL;
    gdt_candidate *c = NULL;
    gdt_error e = {0};
    gdt_facts f;
    int n = 0, compiled = 0;
    if (!facts_for(fam, shape, arch, &f))
        return 0;
    CHECK_INT(gdt_rows_load_default(&t, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_candidates_materialize(t, slot_for(fam), &f, &c, &n, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < n; i++) {
        char name[512];
        gdt_plan_id_format(&c[i].id, name, sizeof name);
        if (c[i].rejected || c[i].duplicate_of_earlier) {
            printf("sm%d %s %s row %d: not compiled: %s\n", arch, gdt_family_name(fam), shape, i,
                   c[i].rejected ? c[i].reason : "duplicate");
            continue;
        }
        void *cubin = NULL;
        size_t len = 0;
        gdt_build_info info = {0};
        gdt_status st = slot_for(fam)->ops->check_support(slot_for(fam), &f, &c[i].id, &e);
        if (st == GDT_STATUS_OK)
            st = gdt_nvrtc_compile(tmpl_for(fam), &f, &c[i].id, arch, &cubin, &len, &info, &e);
        if (st != GDT_STATUS_OK)
            fprintf(stderr, "sm%d %s %s %s: %s\n", arch, gdt_family_name(fam), shape, name, e.msg);
        CHECK_INT(st, ==, GDT_STATUS_OK);
        CHECK(st != GDT_STATUS_OK || (cubin != NULL && len > 1000));
        compiled += st == GDT_STATUS_OK;
        printf("sm%d %s %s %s: compiled, %zu bytes, %.2f s\n", arch, gdt_family_name(fam), shape,
               name, len, info.compile_seconds);
        free(cubin);
    }
    free(c);
    gdt_rows_destroy(t);
    return compiled;
}

/* Each (arch, d) pair in both directions, with the dtypes, masks and
 * layouts spread over the pairs so that every define value compiles. */
static void test_default_rows(void)
{
    static const struct {
        int arch;
        const char *shape;
    } cases[] = {
        {80, "b=2,h_q=8,h_kv=2,s=1024,d=64,causal=top_left"},
        {80, "b=2,h_q=8,h_kv=8,s=1024,d=128,dtype=fp16"},
        {90, "b=4,h_q=32,h_kv=8,s=4096,d=64,dtype=fp16,layout=bshd"},
        {90, "b=4,h_q=32,h_kv=32,s=4096,d=128,causal=top_left"},
        {100, "b=1,h_q=4,h_kv=4,s_q=512,s_kv=1024,d=64,causal=bottom_right"},
        {100, "b=1,h_q=4,h_kv=2,s=2048,d=128,dtype=fp16,causal=top_left,layout=bshd"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (gdt_family fam = GDT_FAMILY_SDPA_FWD; fam <= GDT_FAMILY_SDPA_BWD; fam++) {
            int n = compile_rows(fam, cases[i].shape, cases[i].arch);
            printf("sm%d %s %s: %d rows compiled\n", cases[i].arch, gdt_family_name(fam),
                   cases[i].shape, n);
            CHECK(n >= 2);
        }
}

/* bind() on one row: returns whether it binds; the bound row in r. */
static bool bind_row(const gdt_row_family *rf, gdt_family fam, const char *shape, int arch,
                     int64_t *r, char *why)
{
    gdt_facts f;
    facts_for(fam, shape, arch, &f);
    why[0] = 0;
    return rf->bind(r, &f, &f.device, why, 256);
}

static void test_row_rules(void)
{
    char why[256];
    const char *s128 = "b=1,h=4,s=4096,d=128", *s64 = "b=1,h=4,s=4096,d=64";
    int64_t r1[GDT_ATTN_NCOLS] = {64, 64, 8, 2, 0}; /* 8 warps cannot split 64 query rows: 4 do */
    CHECK(bind_row(&gdt__rows_attention_fwd, GDT_FAMILY_SDPA_FWD, s128, 90, r1, why));
    CHECK_INT(r1[GDT_ATTN_WARPS], ==, 4);
    int64_t r2[GDT_ATTN_NCOLS] = {256, 64, 4, 2, 0}; /* 4 m16 tiles per warp: O and S overflow the registers */
    CHECK(!bind_row(&gdt__rows_attention_fwd, GDT_FAMILY_SDPA_FWD, s128, 90, r2, why));
    CHECK_CONTAINS(why, "live fp32 values per thread");
    int64_t r3[GDT_ATTN_NCOLS] = {128, 256, 8, 4, 0}; /* (128 + 2*4*256) * 136 * 2 bytes */
    CHECK(!bind_row(&gdt__rows_attention_fwd, GDT_FAMILY_SDPA_FWD, s128, 80, r3, why));
    CHECK_CONTAINS(why, "shared memory 591872 bytes exceeds");
    CHECK_CONTAINS(why, "on sm80");
    int64_t r4[GDT_ATTN_NCOLS] = {64, 256, 16, 2, 0}; /* dQ columns: d/8 = 8 over 16 warps */
    CHECK(!bind_row(&gdt__rows_attention_bwd, GDT_FAMILY_SDPA_BWD, s64, 90, r4, why));
    CHECK_CONTAINS(why, "d/8 = 8 columns of dQ do not split over 16 warps");
    int64_t r5[GDT_ATTN_NCOLS] = {64, 128, 8, 2, 0};
    CHECK(bind_row(&gdt__rows_attention_bwd, GDT_FAMILY_SDPA_BWD, s128, 90, r5, why));
    CHECK_INT(gdt__attn_bwd_smem(r5, 128), ==, (2 * 128 * 136 + 2 * 2 * 64 * 136 + 128 * 72) * 2 + 8 * 2 * 64);
    int64_t r6[GDT_ATTN_NCOLS] = {64, 64, 4, 2, 0};
    CHECK(!bind_row(&gdt__rows_attention_fwd, GDT_FAMILY_SDPA_FWD, "b=1,h=4,s=256,d=72", 90, r6, why));
    CHECK_CONTAINS(why, "head dim 72: the templates need a multiple of 16 up to 256");
}

/* A row, the head dim and arch it is bound for, and the reason the rules
 * give (NULL: the row binds). */
typedef struct rule_case {
    int64_t row[GDT_ATTN_NCOLS];
    int d, arch;
    const char *why;
} rule_case;

static void check_rules(gdt_family fam, const rule_case *cases, size_t n)
{
    const gdt_row_family *rf = fam == GDT_FAMILY_SDPA_FWD ? &gdt__rows_attention_fwd : &gdt__rows_attention_bwd;
    for (size_t i = 0; i < n; i++) {
        char why[256] = "", shape[64];
        int64_t r[GDT_ATTN_NCOLS];
        memcpy(r, cases[i].row, sizeof r);
        snprintf(shape, sizeof shape, "b=1,h=4,s=4096,d=%d", cases[i].d);
        bool ok = bind_row(rf, fam, shape, cases[i].arch, r, why);
        CHECK_INT(ok, ==, cases[i].why == NULL);
        if (cases[i].why)
            CHECK_STR(why, cases[i].why);
    }
}

/* MMA=1 and 2 (wgmma forward): sm_90a only, warpgroups of 64 query rows,
 * 64-column blocks, stages, the live-value caps, the swizzled shared memory. */
static void test_wgmma_row_rules(void)
{
    static const rule_case cases[] = {
        {{128, 128, 8, 2, 1}, 128, 90, NULL},
        {{128, 128, 8, 3, 2}, 128, 90, NULL},
        {{128, 128, 8, 2, 1}, 128, 80, "MMA=1 (wgmma) needs sm_90a, target is sm80"},
        {{128, 128, 8, 2, 1}, 256, 90, "MMA=1: 224 live values per thread (O, S, P) exceed 176"},
        {{128, 64, 8, 2, 1}, 96, 90, "MMA=1 takes head dim and BLOCK_N multiples of 64 (128-byte "
                                     "swizzle rows), got d 96, BLOCK_N 64"},
        {{256, 64, 8, 2, 1}, 128, 90, "MMA=1 takes one or two warpgroups of 64 query rows (WARPS 4 "
                                      "or 8, BLOCK_M = 16*WARPS), got BLOCK_M 256, WARPS 8"},
        {{128, 64, 8, 1, 1}, 128, 90, "MMA=1: STAGES=1, the K/V ring needs at least 2"},
        {{128, 128, 8, 2, 2}, 128, 90, "MMA=2: STAGES=2, the K/V ring needs at least 3"},
        {{128, 64, 8, 3, 2}, 256, 90, "MMA=2: 176 live values per thread (O, S, P) exceed 160"},
    };
    check_rules(GDT_FAMILY_SDPA_FWD, cases, sizeof cases / sizeof cases[0]);
    int64_t r1[GDT_ATTN_NCOLS] = {128, 128, 8, 2, 1};
    CHECK_INT(gdt__attn_fwd_smem(r1, 128), ==, (128 + 2 * 2 * 128) * 128 * 2 + 1024);
}

static void test_template_checks(void)
{
    gdt_facts f;
    gdt_error e = {0};
    gdt_plan_id fwd = attn_plan(GDT_FAMILY_SDPA_FWD, 128, 64, 8, 2);
    facts_for(GDT_FAMILY_SDPA_FWD, "b=2,h=4,s=256,d=128", 90, &f);
    CHECK_INT(gdt__tmpl_attn_fwd.check(&f, &fwd, &e), ==, GDT_STATUS_OK);
    f.problem.u.sdpa.k_stride[2] = 132; /* rows 264 bytes apart: cp.async chunks misalign */
    CHECK_INT(gdt__tmpl_attn_fwd.check(&f, &fwd, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "K stride[2] = 132 is not a multiple of 8 elements");
    facts_for(GDT_FAMILY_SDPA_FWD, "b=2,h=4,s=256,d=128", 90, &f);
    f.problem.u.sdpa.scale = -0.5;
    CHECK_INT(gdt__tmpl_attn_fwd.check(&f, &fwd, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "scale -0.5, expected a positive finite value");
    facts_for(GDT_FAMILY_SDPA_FWD, "b=2,h=4,s=256,d=128", 90, &f);
    f.dtype = GDT_DTYPE_FP32;
    CHECK_INT(gdt__tmpl_attn_fwd.check(&f, &fwd, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "io dtype fp32, expected bf16 or fp16");
}

static void test_geometry(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    gdt_nvrtc_args a;
    gdt_error e = {0};
    gdt_operands ops = {0};
    static _Alignas(16) char fake[64];
    gdt_plan_id fwd = attn_plan(GDT_FAMILY_SDPA_FWD, 128, 64, 8, 2);
    facts_for(GDT_FAMILY_SDPA_FWD, "b=2,h_q=8,h_kv=2,s=300,d=64", 90, &f);
    gdt__tmpl_attn_fwd.launch(&f, &fwd, 0, &l);
    CHECK_INT(l.grid[0], ==, 16);
    CHECK_INT(l.grid[1], ==, 3);
    CHECK_INT(l.block[0], ==, 256);
    CHECK_INT(l.smem_bytes, ==, (128 + 2 * 2 * 64) * 72 * 2);

    gdt_plan_id bwd = attn_plan(GDT_FAMILY_SDPA_BWD, 64, 128, 8, 2);
    facts_for(GDT_FAMILY_SDPA_BWD, "b=2,h_q=8,h_kv=2,s=300,d=64", 90, &f);
    CHECK_INT(gdt__tmpl_attn_bwd.nkernels, ==, 3);
    gdt__tmpl_attn_bwd.launch(&f, &bwd, 0, &l);
    CHECK_INT(l.grid[0], ==, (2 * 8 * 300 + 7) / 8);
    CHECK_INT(l.block[0], ==, 256);
    gdt__tmpl_attn_bwd.launch(&f, &bwd, 1, &l);
    CHECK_INT(l.grid[0], ==, 4);
    CHECK_INT(l.grid[1], ==, 3);
    CHECK_INT(l.block[0], ==, 256);
    CHECK_INT(gdt__tmpl_attn_bwd.workspace(&f, &bwd), ==, 19200 + 2 * 8 * 300 * 64 * 4);
    /* A second dS^T tile where it fits and keeps the CTAs per SM: sm90 at
     * d=128, not sm80 (166912-byte limit). */
    int64_t r128[GDT_ATTN_NCOLS] = {64, 128, 8, 2, 0};
    facts_for(GDT_FAMILY_SDPA_BWD, "b=2,h=8,s=4096,d=128", 90, &f);
    gdt__tmpl_attn_bwd.launch(&f, &bwd, 1, &l);
    CHECK_INT(l.smem_bytes, ==, gdt__attn_bwd_smem(r128, 128) + 128 * 72 * 2);
    CHECK_INT(l.smem_bytes, ==, 177152);
    facts_for(GDT_FAMILY_SDPA_BWD, "b=2,h=8,s=4096,d=128", 80, &f);
    gdt__tmpl_attn_bwd.launch(&f, &bwd, 1, &l);
    CHECK_INT(l.smem_bytes, ==, 158720);

    for (int r = 0; r < GDT_OPERAND_COUNT; r++)
        ops.ptr[r] = fake;
    CHECK_INT(gdt__tmpl_attn_bwd.args(&f, &bwd, 1, &ops, NULL, NULL, &a, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "sdpa_bwd needs a workspace of");
    CHECK_INT(gdt__tmpl_attn_bwd.args(&f, &bwd, 1, &ops, fake, NULL, &a, &e), ==, GDT_STATUS_OK);
    CHECK_INT(a.nargs, ==, 1);
    ops.ptr[GDT_OPERAND_DK] = fake + 2;
    CHECK_INT(gdt__tmpl_attn_bwd.args(&f, &bwd, 1, &ops, fake, NULL, &a, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "operand dK at");
    CHECK_CONTAINS(e.msg, "is not 16-byte aligned");
}

/* The wgmma backward rows (test_default_rows compiles them for sm_90a at
 * d 64 and 128): the row rules refuse what the kernel cannot take. */
static void test_wgmma_bwd_rows(void)
{
    static const rule_case cases[] = {
        {{64, 128, 8, 2, 1}, 128, 90, NULL},
        {{64, 128, 8, 2, 1}, 128, 100, "MMA=1 (wgmma) needs sm_90a, target is sm100"},
        {{64, 128, 8, 2, 1}, 256, 90, "MMA=1: 320 live fp32 values per thread (dK, dV, S^T, dP^T) exceed 192"},
        {{64, 128, 8, 2, 1}, 96, 90, "MMA=1 takes a head dim multiple of 64 (128-byte swizzle rows), got 96"},
        {{128, 128, 8, 2, 1}, 128, 90, "MMA=1 takes one or two warpgroups of 64 K/V rows (WARPS 4 or 8, "
                                       "BLOCK_N = 16*WARPS) and BLOCK_M 64, got BLOCK_M 128, BLOCK_N 128, WARPS 8"},
        {{64, 128, 8, 1, 1}, 128, 90, "MMA=1: STAGES=1, the Q/dO ring needs at least 2"},
    };
    check_rules(GDT_FAMILY_SDPA_BWD, cases, sizeof cases / sizeof cases[0]);
    int64_t r1[GDT_ATTN_NCOLS] = {64, 128, 8, 2, 1};
    CHECK_INT(gdt__attn_bwd_smem(r1, 128), ==, (2 * 128 * 128 + 2 * 2 * 64 * 128 + 128 * 64) * 2 + 8 * 2 * 64 + 1024);
}

int main(void)
{
    test_row_rules();
    test_wgmma_row_rules();
    test_template_checks();
    test_geometry();
    test_default_rows();
    test_wgmma_bwd_rows();
    return gdt_test_result("test_attention_compile");
}
