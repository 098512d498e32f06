/* The attention_fwd rows' PIPE=1 column (sdpa_fwd.hand's kernel,
 * kernels/gdt_attn_fwd_sm90.cuh) on the CPU: the staged row
 * (tests/data/candidates/attn_fwd_tma.json, outside the default table
 * until it runs on the H200) binds to sdpa_fwd.hand's plan and PIPE=1 at
 * each of the hand entries' dtype and head dim, and its NVRTC build through
 * the real template (kernels/attn_fwd.cuh, tmpl_attention.c's defines) is
 * the nvcc-built hand cubin's entry byte for byte (the .text of
 * gdt_attn_fwd against .text.gdt_hand_attn_fwd_*); each row rule rejects
 * its row with its reason and passes the row that keeps it; 5-column rows
 * and their plan names stay as they were; the template binds and launches
 * what sdpa_fwd.hand does. */
#include <stdlib.h>
#include <string.h>

#include "elf_support.h"
#include "gdt_attn_fwd_tma.h"
#include "gdt_engines.h"
#include "gdt_rows.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "hand/gdt_hand.h"
#include "nvrtc/gdt_attention.h"
#include "nvrtc/gdt_nvrtc.h"
#include "rows_support.h"

#define STAGED GDT_TEST_DATA "/candidates/attn_fwd_tma.json"
#define SHAPE "b=4,h=32,s=4096,d=128,causal=top_left"

static const gdt_engine_slot *slot(const char *name)
{
    const gdt_engine_slot *s = gdt_manifest_find_name(gdt_manifest_default(), name);
    CHECK(s != NULL);
    return s;
}

/* The rows of `json` (an attention_fwd family; NULL: the default rows with
 * the staged file's in place of theirs) materialized for f. */
static gdt_candidate *materialize(const char *json, const gdt_facts *f, int *n)
{
    return rows_candidates(json, STAGED, slot("sdpa_fwd.nvrtc"), f, n);
}

static void facts_for(const char *shape, int arch, gdt_facts *f)
{
    gdt_test_facts(GDT_FAMILY_SDPA_FWD, shape, arch, f);
}

/* sdpa_fwd.hand's plan as the NVRTC slot's, with PIPE=1. */
static gdt_plan_id hand_plan_as_row(void)
{
    gdt_plan_id p;
    gdt__hand_attn_plan(gdt_engine_id(GDT_FAMILY_SDPA_FWD, slot("sdpa_fwd.nvrtc")->slot), &p);
    gdt_plan_id_set_knob(&p, GDT_KNOB_PIPE, GDT_ATTN_PIPE_TMA);
    return p;
}

/* sdpa_fwd.hand's entries (kernels/hand/attn_fwd_sm90.cu). */
static const struct {
    const char *dtype, *shape;
} ENTRIES[] = {
    {"bf16", "b=4,h=32,s=4096,d=64"},
    {"bf16", SHAPE},
    {"fp16", "b=2,h_q=32,h_kv=8,s_q=200,s_kv=333,d=64,causal=bottom_right,dtype=fp16"},
    {"fp16", "b=1,h=4,s=1000,d=128,causal=none,dtype=fp16"},
};

/* The staged row at each entry's problem: bound, not rejected, the hand
 * plan with PIPE=1, and its NVRTC build the hand entry's .text. */
static void test_staged_row_is_hand_kernel(void)
{
    const gdt_embedded *hand = gdt_embedded_find(GDT_HAND_ATTN_CUBIN);
    gdt_plan_id want = hand_plan_as_row();
    CHECK(hand != NULL);
    for (size_t i = 0; hand && i < sizeof ENTRIES / sizeof ENTRIES[0]; i++) {
        gdt_facts f;
        gdt_error e = {0};
        char entry[128];
        void *cubin = NULL;
        size_t len = 0;
        int n = 0;
        facts_for(ENTRIES[i].shape, 90, &f);
        gdt_candidate *c = materialize(NULL, &f, &n);
        CHECK_INT(n, ==, 1);
        if (n != 1) {
            free(c);
            continue;
        }
        if (c[0].rejected)
            fprintf(stderr, "%s: staged row rejected: %s\n", ENTRIES[i].shape, c[0].reason);
        CHECK(!c[0].rejected && gdt_plan_id_equal(&c[0].id, &want));
        gdt_status st = gdt_nvrtc_compile(&gdt__tmpl_attn_fwd, &f, &c[0].id, 90, &cubin, &len, NULL,
                                          &e);
        if (st != GDT_STATUS_OK)
            fprintf(stderr, "%s: %s\n", ENTRIES[i].shape, e.msg);
        CHECK_INT(st, ==, GDT_STATUS_OK);
        snprintf(entry, sizeof entry, ".text.gdt_hand_attn_fwd_%s_d%lld", ENTRIES[i].dtype,
                 (long long)f.problem.u.sdpa.d);
        CHECK(elf_same_text(cubin, len, ".text.gdt_attn_fwd", hand, entry, ENTRIES[i].shape));
        free(cubin);
        free(c);
    }
}

static void check_row(const char *row, const gdt_facts *f, const char *reason)
{
    char json[256];
    int n = 0;
    snprintf(json, sizeof json, "{\"nvrtc\": {\"attention_fwd\": [%s]}}", row);
    gdt_candidate *c = materialize(json, f, &n);
    CHECK(n == 1 && (reason ? c[0].rejected : !c[0].rejected));
    if (n == 1 && reason)
        CHECK_CONTAINS(c[0].reason, reason);
    else if (n == 1 && c[0].rejected)
        fprintf(stderr, "kept row %s: %s\n", row, c[0].reason);
    free(c);
}

static void test_rules(void)
{
    static const rule_case cases[] = {
        {"[128, 128, 12, 2, 2, 1]", NULL,
         "PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a, target is sm100", NULL, 100},
        {"[128, 128, 8, 2, 2, 1]", "[128, 128, 12, 2, 2, 1]",
         "PIPE=1 is sdpa_fwd.hand's one configuration: BLOCK_M=128, BLOCK_N=128, WARPS=12", NULL, 90},
        {"[128, 128, 12, 3, 2, 1]", "[128, 128, 12, 2, 2, 1]", "got WARPS=12, STAGES=3, MMA=2",
         NULL, 90},
        {"[128, 128, 12, 2, 1, 1]", "[128, 128, 12, 2, 2, 1]", "got WARPS=12, STAGES=2, MMA=1",
         NULL, 90},
        {"[128, 128, 12, 3, 2]", "[128, 128, 8, 3, 2]",
         "WARPS=12 is PIPE=1's (a producer and two consumer warpgroups); PIPE=0 takes a power of two",
         NULL, 90},
        /* sdpa_fwd.hand's checks (engines/attn_fwd_tma.c). */
        {"[128, 128, 12, 2, 2, 1]", NULL, "PIPE=1: head dim 192: 64 and 128 only",
         "b=1,h=4,s=512,d=192", 90},
        {"[128, 128, 12, 2, 2, 1]", NULL, "PIPE=1: b 65536, h_q 256, s_q 16384",
         "b=65536,h=256,s_q=16384,s_kv=128,d=64", 90},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const rule_case *k = &cases[i];
        gdt_facts f;
        facts_for(k->shape ? k->shape : SHAPE, k->arch, &f);
        check_row(k->broken, &f, k->reason);
        facts_for(SHAPE, 90, &f);
        check_row(k->kept ? k->kept : k->broken, &f, NULL);
    }
    /* fp32 (no shape key: the facts' dtype); what TMA cannot describe: an
     * odd stride of O (4-byte stores) and a K batch stride off 16 bytes. */
    gdt_facts f;
    facts_for(SHAPE, 90, &f);
    f.dtype = GDT_DTYPE_FP32;
    check_row("[128, 128, 12, 2, 2, 1]", &f, "PIPE=1: dtype fp32: bf16 and fp16 only");
    facts_for("b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.o_stride[1] = 200 * 64 + 1;
    check_row("[128, 128, 12, 2, 2, 1]", &f, "PIPE=1: operand O: stride[1] = 12801 is odd");
    facts_for("b=2,h=4,s=200,d=64,layout=bhsd", 90, &f);
    f.problem.u.sdpa.k_stride[0] = 4 * 200 * 64 + 4;
    check_row("[128, 128, 12, 2, 2, 1]", &f, "PIPE=1: operand K: stride of 102408 bytes along b");
}

/* BLOCK_M and BLOCK_N are the kernel's 128 whatever s_q and s_kv project
 * them to; the row still passes and its plan names them. */
static void test_short_problem(void)
{
    gdt_facts f;
    int n = 0;
    facts_for("b=1,h=2,s_q=40,s_kv=24,d=64", 90, &f);
    gdt_candidate *c = materialize("{\"nvrtc\": {\"attention_fwd\": [[128, 128, 12, 2, 2, 1]]}}",
                                   &f, &n);
    CHECK(n == 1 && !c[0].rejected);
    if (n == 1) {
        CHECK_INT(gdt_plan_id_knob(&c[0].id, GDT_KNOB_TILE_M, -1), ==, 128);
        CHECK_INT(gdt_plan_id_knob(&c[0].id, GDT_KNOB_TILE_N, -1), ==, 128);
    }
    free(c);
}

/* A 5-column row reads PIPE=0 and its plan names no PIPE; the 6-column
 * row with PIPE=0 is the same plan. */
static void test_optional_column(void)
{
    static const char *const rows[2] = {"[128, 128, 8, 3, 2]", "[128, 128, 8, 3, 2, 0]"};
    gdt_plan_id id[2];
    gdt_facts f;
    facts_for(SHAPE, 90, &f);
    for (int r = 0; r < 2; r++) {
        char json[128];
        int n = 0;
        snprintf(json, sizeof json, "{\"nvrtc\": {\"attention_fwd\": [%s]}}", rows[r]);
        gdt_candidate *c = materialize(json, &f, &n);
        CHECK_INT(n, ==, 1);
        if (n == 1) {
            CHECK(!c[0].rejected);
            CHECK_INT(c[0].bound[GDT_ATTN_PIPE], ==, GDT_ATTN_PIPE_CTA);
            CHECK_INT(c[0].id.nknobs, ==, 5);
            id[r] = c[0].id;
        }
        free(c);
    }
    CHECK(gdt_plan_id_equal(&id[0], &id[1]));
}

static long long define_of(const gdt_facts *f, const gdt_plan_id *p, const char *name, int *count)
{
    return rows_define_of(&gdt__tmpl_attn_fwd, f, p, name, count);
}

/* PIPE=1 binds PIPE, GDT_FP16 and HEAD_DIM only, launches sdpa_fwd.hand's
 * block and shared memory, leaves the grid (one CTA) to prepare's
 * persistent one, and takes its launch state; PIPE=0 binds no PIPE, launches
 * a CTA per 128 query rows and takes no state. */
static void test_template_binds(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    gdt_error e = {0};
    int n = 0;
    facts_for("b=2,h=8,s=1000,d=64,dtype=fp16", 90, &f);
    gdt_plan_id p = hand_plan_as_row();
    CHECK_INT(define_of(&f, &p, "PIPE", &n), ==, 1);
    CHECK_INT(n, ==, 3);
    CHECK_INT(define_of(&f, &p, "GDT_FP16", &n), ==, 1);
    CHECK_INT(define_of(&f, &p, "HEAD_DIM", &n), ==, 64);
    gdt__tmpl_attn_fwd.launch(&f, &p, 0, &l);
    CHECK_INT(l.grid[0], ==, 1);
    CHECK_INT(l.grid[1], ==, 1);
    CHECK_INT(l.block[0], ==, 384);
    CHECK_INT(l.smem_bytes, ==, 5 * 128 * 64 * 2 + 128 + 1024);
    CHECK_INT(l.smem_bytes, ==, gdt__attn_fwd_tma_smem_bytes(64));
    CHECK_INT(gdt__tmpl_attn_fwd.check(&f, &p, &e), ==, GDT_STATUS_OK);
    gdt_plan_id_set_knob(&p, GDT_KNOB_PIPE, GDT_ATTN_PIPE_CTA);
    CHECK_INT(define_of(&f, &p, "PIPE", &n), ==, -1);
    gdt__tmpl_attn_fwd.launch(&f, &p, 0, &l);
    CHECK_INT(l.grid[0], ==, 16);
    CHECK_INT(l.grid[1], ==, 8);
    CHECK(gdt__tmpl_attn_fwd.prepare != NULL && gdt__tmpl_attn_fwd.release != NULL);
    void *state = &state;
    CHECK_INT(gdt__tmpl_attn_fwd.prepare(&f, &p, 0, NULL, NULL, NULL, &state, &e), ==,
              GDT_STATUS_OK);
    CHECK(state == NULL);
}

int main(void)
{
    test_optional_column();
    test_rules();
    test_short_problem();
    test_template_binds();
    test_staged_row_is_hand_kernel();
    return gdt_test_result("test_attn_fwd_tma_rows");
}
