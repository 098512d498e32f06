/* The contraction rows' PIPE=1 column (the TMA GEMM, kernels/gdt_gemm_sm90.cuh)
 * on the CPU: every staged PIPE=1 row (tests/data/candidates/gemm_tma.json,
 * nine of them default rows) compiles for sm_90a;
 * each of gemm.hand's fixed configurations is one of them, and its NVRTC
 * build is the nvcc build's kernel byte for byte (the .text of gdt_gemm
 * against the hand cubin's entry); each row rule rejects its row with its
 * reason and passes the row that keeps it; the optional columns leave
 * 8-column rows and their plan names as they were; the template binds what
 * the columns name. */
#include <stdlib.h>
#include <string.h>

#include "elf_support.h"
#include "gdt_engines.h"
#include "gdt_rows.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "hand/gdt_hand.h"
#include "nvrtc/gdt_gemm.h"
#include "nvrtc/gdt_nvrtc.h"
#include "rows_support.h"

#define STAGED GDT_TEST_DATA "/candidates/gemm_tma.json"

static const gdt_engine_slot *slot(const char *name)
{
    const gdt_engine_slot *s = gdt_manifest_find_name(gdt_manifest_default(), name);
    CHECK(s != NULL);
    return s;
}

static void facts_for(const char *shape, int arch, gdt_facts *f)
{
    gdt_test_facts(GDT_FAMILY_GEMM, shape, arch, f);
}

/* The rows of `json` (a contraction family; NULL: the default rows with
 * the staged file's in place of theirs) materialized for shape on arch. */
static gdt_candidate *materialize(const char *json, const char *shape, int arch, int *n)
{
    gdt_facts f;
    facts_for(shape, arch, &f);
    return rows_candidates(json, STAGED, slot("gemm.nvrtc"), &f, n);
}

/* The NVRTC plan of hand configuration i: its knobs, and the TMA row's. */
static gdt_plan_id nvrtc_plan_of(int i)
{
    return rows_hand_twin(i, gdt_engine_id(GDT_FAMILY_GEMM, slot("gemm.nvrtc")->slot));
}

static bool in_defaults(const gdt_candidate *c, int n, const gdt_plan_id *p)
{
    for (int i = 0; i < n; i++)
        if (!c[i].rejected && gdt_plan_id_equal(&c[i].id, p))
            return true;
    return false;
}

/* Each hand configuration is a staged row (the twins of the ping-pong
 * configurations 21 and 22 among them; the rows no fixed configuration
 * is: 128 x 192 unsplit, 128 x 128 with 6 stages in clusters along N, two
 * swap-AB rows and the ping-pong 128 x 64 with 8 stages), and at bf16 with A
 * K-major and B MN-major (row-major A and B: the entries' _km) the NVRTC
 * cubin's kernel is the hand cubin's entry, byte for byte; every staged
 * row binds and compiles, with no stack frame (nothing in local memory:
 * no spill, no array indexed at run time). */
static void test_hand_configs_are_rows(void)
{
    const gdt_embedded *hand = gdt_embedded_find(GDT_HAND_GEMM_CUBIN);
    gdt_facts f;
    gdt_error e = {0};
    int n = 0;
    gdt_candidate *c = materialize(NULL, "m=4096,n=4096,k=4096", 90, &n);
    CHECK(hand != NULL);
    facts_for("m=4096,n=4096,k=4096", 90, &f);
    for (int i = 0; hand && i < GDT_HAND_GEMM_CONFIGS; i++) {
        gdt_plan_id p = nvrtc_plan_of(i);
        char name[512], entry[128];
        void *cubin = NULL;
        size_t len = 0;
        gdt_plan_id_format(&p, name, sizeof name);
        if (!in_defaults(c, n, &p))
            fprintf(stderr, "hand configuration %d: %s is not a staged row\n", i, name);
        CHECK(in_defaults(c, n, &p));
        gdt_status st = gdt_nvrtc_compile(&gdt__tmpl_gemm, &f, &p, 90, &cubin, &len, NULL, &e);
        if (st != GDT_STATUS_OK)
            fprintf(stderr, "%s: %s\n", name, e.msg);
        CHECK_INT(st, ==, GDT_STATUS_OK);
        snprintf(entry, sizeof entry, ".text.%s_bf16_km", gdt__hand_gemm_config_entry(i));
        CHECK(elf_same_text(cubin, len, ".text.gdt_gemm", hand, entry, name));
        free(cubin);
    }
    CHECK_INT(n, ==, 44);
    for (int i = 0; i < n; i++) {
        void *cubin = NULL;
        size_t len = 0;
        CHECK(!c[i].rejected && c[i].requested[GDT_GEMM_PIPE] == GDT_GEMM_PIPE_TMA);
        if (c[i].rejected)
            fprintf(stderr, "staged row %d rejected: %s\n", i, c[i].reason);
        gdt_status st = gdt_nvrtc_compile(&gdt__tmpl_gemm, &f, &c[i].id, 90, &cubin, &len, NULL, &e);
        if (st != GDT_STATUS_OK)
            fprintf(stderr, "staged row %d: %s\n", i, e.msg);
        CHECK_INT(st, ==, GDT_STATUS_OK);
        long frame = st == GDT_STATUS_OK ? elf_frame_size(cubin, len) : 0;
        if (frame != 0)
            fprintf(stderr, "staged row %d: .nv.info EIATTR_FRAME_SIZE: expected 0 (nothing in "
                    "local memory), got %ld\n", i, frame);
        CHECK_INT(frame, ==, 0);
        free(cubin);
    }
    free(c);
}

static void test_rules(void)
{
    static const rule_case cases[] = {
        {"[128, 128, 64, 8, 1, 4, 8, 1, 1]", "[128, 128, 64, 8, 1, 4, 8, 1, 1]",
         "PIPE=1 (TMA, mbarriers, setmaxnreg, wgmma) needs sm_90a, target is sm100", NULL, 100},
        {"[128, 128, 64, 2, 1, 4, 8, 1, 1]", "[128, 128, 64, 4, 1, 4, 8, 1, 1]",
         "PIPE=1 takes MMA=1, WARPS_M 4 or 8 and WARPS_N=1", NULL, 90},
        /* one consumer warpgroup (WARPS_M=4): no cluster, no DSMEM pair, no
         * ping-pong */
        {"[64, 256, 64, 4, 1, 4, 8, 1, 1, 1, 5]", "[64, 256, 64, 4, 1, 4, 8, 1, 1, 1, 2]",
         "PIPE=1 WARPS_M=4 (one consumer warpgroup, 64-row tiles) has no cluster, no pair of splits in "
         "a cluster and no ping-pong: CLUSTER_SHAPE=2, REDUCTION_MODE 0 or 2, PINGPONG=0, got 5, 0, 0",
         NULL, 90},
        {"[64, 64, 64, 4, 1, 8, 8, 1, 1, 2, 2, 1]", "[64, 64, 64, 4, 1, 8, 8, 1, 1, 2, 2, 0]",
         "no pair of splits in a cluster and no ping-pong: CLUSTER_SHAPE=2, REDUCTION_MODE 0 or 2, "
         "PINGPONG=0, got 2, 1, 0", NULL, 90},
        {"[64, 128, 64, 4, 1, 4, 8, 1, 1, 1, 2, 0, 0, 1]", "[64, 128, 64, 4, 1, 4, 8, 1, 1, 1, 2, 0, 0, 0]",
         "PINGPONG=0, got 2, 0, 1", NULL, 90},
        {"[128, 128, 64, 8, 1, 4, 8, 0, 1]", "[128, 128, 64, 8, 1, 4, 8, 1, 1]",
         "got MMA=0, WARPS 8x1", NULL, 90},
        {"[128, 32, 64, 8, 1, 4, 8, 1, 1]", "[128, 64, 64, 8, 1, 4, 8, 1, 1]",
         "PIPE=1 takes BN 64, 128, 192 or 256", NULL, 90},
        {"[128, 128, 64, 8, 1, 1, 8, 1, 1]", "[128, 128, 64, 8, 1, 2, 8, 1, 1]",
         "PIPE=1: STAGES=1, the ring frees a stage one K tile late", NULL, 90},
        {"[128, 128, 64, 8, 1, 7, 8, 1, 1]", "[128, 128, 64, 8, 1, 6, 8, 1, 1]",
         "shared memory 263296 bytes exceeds 232448 on sm90", NULL, 90},
        {"[128, 64, 64, 8, 1, 8, 8, 1, 1, 4, 2, 1]", "[128, 64, 64, 8, 1, 8, 8, 1, 1, 2, 2, 1]",
         "REDUCTION_MODE=1 (the two splits of a tile a cluster", NULL, 90},
        {"[128, 128, 64, 8, 1, 4, 8, 1, 1, 2, 2, 1]", "[128, 64, 64, 8, 1, 4, 8, 1, 1, 2, 2, 1]",
         "takes SPLIT_K=2, BN=64", NULL, 90},
        {"[128, 128, 64, 8, 1, 4, 8, 1, 1, 2, 5]", "[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 5]",
         "CLUSTER_SHAPE=5 (two CTAs along N) with SPLIT_K=2", NULL, 90},
        {"[128, 256, 64, 8, 1, 4, 8, 1, 1, 2]", "[128, 192, 64, 8, 1, 4, 8, 1, 1, 2]",
         "SPLIT_K=2 with BN=256: the split-K epilogue", NULL, 90},
        /* REDUCTION_MODE=2 (stream-K): no SPLIT_K of its own, no 128 x 256
         * tile (a cut tile's epilogue is split-K's), no cluster */
        {"[128, 128, 64, 8, 1, 4, 8, 1, 1, 2, 2, 2]", "[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 2]",
         "PIPE=1: REDUCTION_MODE=2 (stream-K, the schedule cuts K itself) takes SPLIT_K=1, BN 64, "
         "128 or 192 (a cut tile's epilogue is split-K's, which spills at 256) and CLUSTER_SHAPE=2, "
         "got SPLIT_K=2, BN=128, CLUSTER_SHAPE=2", NULL, 90},
        {"[128, 256, 64, 8, 1, 4, 8, 1, 1, 1, 2, 2]", "[128, 192, 64, 8, 1, 4, 8, 1, 1, 1, 2, 2]",
         "got SPLIT_K=1, BN=256, CLUSTER_SHAPE=2", NULL, 90},
        {"[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 5, 2]", "[128, 64, 64, 8, 1, 4, 8, 1, 1, 1, 2, 2]",
         "got SPLIT_K=1, BN=128, CLUSTER_SHAPE=5", NULL, 90},
        {"[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 2, 1]", "[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1]",
         "PIPE=1 SWAP_AB=1 has no cluster: CLUSTER_SHAPE=2 and REDUCTION_MODE=0, got 2, 2", NULL, 90},
        {"[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 2]", "[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0]",
         "PIPE=0 has no split-K or cluster", NULL, 90},
        {"[128, 128, 64, 4, 1, 4, 8, 1, 0, 2]", "[128, 128, 64, 4, 1, 4, 8, 1, 0, 1]",
         "PIPE=0 has no split-K or cluster", NULL, 90},
        /* SWAP_AB=1: the consumers' warps along N, 64 rows of N each, the
         * wgmma N of 16, 32 or 64 rows of M, no cluster; none under PIPE=0
         * (every ring of the STAGES domain fits: 8 of 128 + 64 rows is
         * 230544 bytes) */
        {"[64, 64, 64, 8, 1, 8, 8, 1, 1, 1, 2, 0, 1]", "[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1]",
         "PIPE=1 SWAP_AB=1 takes MMA=1, WARPS_M=1 and WARPS_N 4 or 8", NULL, 90},
        {"[64, 128, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1]", "[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1]",
         "PIPE=1 SWAP_AB=1: BN=128, expected 64 rows of N a consumer warpgroup (BN = 16 x WARPS_N "
         "= 64)", NULL, 90},
        {"[128, 128, 64, 1, 8, 6, 8, 1, 1, 1, 2, 0, 1]", "[64, 128, 64, 1, 8, 6, 8, 1, 1, 1, 2, 0, 1]",
         "PIPE=1 SWAP_AB=1 takes BM 16, 32 or 64 (the wgmma N, one output block), got BM=128", NULL,
         90},
        {"[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 5, 0, 1]", "[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1]",
         "PIPE=1 SWAP_AB=1 has no cluster: CLUSTER_SHAPE=2 and REDUCTION_MODE=0, got 5, 0", NULL, 90},
        {"[64, 64, 64, 1, 4, 8, 8, 1, 1, 2, 2, 1, 1]", "[64, 64, 64, 1, 4, 8, 8, 1, 1, 2, 2, 0, 1]",
         "PIPE=1 SWAP_AB=1 has no cluster: CLUSTER_SHAPE=2 and REDUCTION_MODE=0, got 2, 1", NULL, 90},
        {"[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0, 1]", "[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0, 0]",
         "PIPE=0 has no swap-AB: SWAP_AB is PIPE=1's (PIPE=0 takes 0), got 1", NULL, 90},
        /* PINGPONG=1: a consumer's whole 128 x BN accumulator (BN 64 or
         * 128), unsplit, no stream-K, no cluster, no swap-AB; none under
         * PIPE=0 */
        {"[128, 256, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 1]", "[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 1]",
         "PIPE=1 PINGPONG=1 takes BN 64 or 128 (a consumer's 128 x BN accumulator, BN fp32 registers "
         "a thread, within 232), got BN=256", NULL, 90},
        {"[128, 192, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 1]", "[128, 64, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 1]",
         "PIPE=1 PINGPONG=1 takes BN 64 or 128", NULL, 90},
        {"[128, 128, 64, 8, 1, 4, 8, 1, 1, 2, 2, 0, 0, 1]", "[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 1]",
         "PIPE=1 PINGPONG=1 has no split-K, stream-K or cluster: SPLIT_K=1, CLUSTER_SHAPE=2 and "
         "REDUCTION_MODE=0, got 2, 2, 0", NULL, 90},
        {"[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 5, 0, 0, 1]", "[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 1]",
         "PIPE=1 PINGPONG=1 has no split-K, stream-K or cluster: SPLIT_K=1, CLUSTER_SHAPE=2 and "
         "REDUCTION_MODE=0, got 1, 5, 0", NULL, 90},
        {"[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 2, 0, 1]", "[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 1]",
         "PIPE=1 PINGPONG=1 has no split-K, stream-K or cluster: SPLIT_K=1, CLUSTER_SHAPE=2 and "
         "REDUCTION_MODE=0, got 1, 2, 2", NULL, 90},
        {"[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1, 1]", "[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1, 0]",
         "PIPE=1 PINGPONG=1 has no swap-AB (each consumer owns whole 128-row tiles of M): SWAP_AB=0, "
         "got 1", NULL, 90},
        {"[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0, 0, 1]", "[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0, 0, 0]",
         "PIPE=0 has no consumer warpgroups to ping-pong: PINGPONG is PIPE=1's (PIPE=0 takes 0), got 1",
         NULL, 90},
        {"[128, 128, 64, 8, 1, 7, 8, 1, 1, 1, 2, 0, 0, 1]", "[128, 128, 64, 8, 1, 6, 8, 1, 1, 1, 2, 0, 0, 1]",
         "shared memory 263296 bytes exceeds 232448 on sm90", NULL, 90},
        /* RASTER=1 is PIPE=1's persistent walk; PIPE=0 launches a CTA a tile */
        {"[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0, 0, 0, 1]", "[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0, 0, 0, 0]",
         "PIPE=0 launches a CTA a tile in bands of tile rows: RASTER is PIPE=1's persistent walk (PIPE=0 "
         "takes 0), got 1", NULL, 90},
        /* seven stages of 128 x 128 fit only without the output blocks
         * (EPILOGUE=1: 230528 bytes) */
        {"[128, 128, 64, 8, 1, 7, 8, 1, 1, 1, 2, 0, 0, 0, 0, 0]", "[128, 128, 64, 8, 1, 7, 8, 1, 1, 1, 2, 0, 0, 0, 0, 1]",
         "shared memory 263296 bytes exceeds 232448 on sm90", NULL, 90},
        /* EPILOGUE=1 (registers to global) is PIPE=1's; swap-AB transposes
         * its tile through shared memory */
        {"[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0, 0, 0, 0, 1]", "[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0, 0, 0, 0, 0]",
         "PIPE=0 stores C from registers already: EPILOGUE is PIPE=1's (PIPE=0 takes 0), got 1", NULL, 90},
        {"[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1, 0, 0, 1]", "[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1, 0, 0, 0]",
         "PIPE=1 SWAP_AB=1 stores C^T's tile transposed through shared memory: EPILOGUE=0, got 1", NULL, 90},
        /* An MN-major A is swap-AB's wgmma B side in 64-column boxes: a
         * tile of 16 rows of M cannot take it (m = 8 caps BM to 16; A's
         * K stride is 16 bytes, one TMA takes). */
        {"[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1]", "[64, 64, 64, 1, 4, 8, 8, 1, 1, 1, 2, 0, 1]",
         "PIPE=1: operand A: MN-major (unit stride along M) under swap-AB takes a tile of 64 rows of "
         "M (its boxes are 64 columns wide), got 16", "m=8,n=256,k=256,a=col", 90},
        /* Problem rules: C column-major... is not a shape key; a leading
         * stride TMA cannot take is (A row-major, K = 100: 200 bytes). */
        {"[128, 128, 64, 8, 1, 4, 8, 1, 1]", "[128, 128, 64, 8, 1, 4, 8, 1, 1]",
         "PIPE=1: operand A: leading stride of 200 bytes is not a multiple of 16", "m=256,n=256,k=100",
         90},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const rule_case *k = &cases[i];
        const char *shape = k->shape ? k->shape : "m=4096,n=4096,k=4096";
        char json[256];
        int n = 0;
        snprintf(json, sizeof json, "{\"nvrtc\": {\"contraction\": [%s]}}", k->broken);
        gdt_candidate *c = materialize(json, shape, k->arch, &n);
        CHECK(n == 1 && c[0].rejected);
        if (n == 1)
            CHECK_CONTAINS(c[0].reason, k->reason);
        free(c);
        if (!strcmp(k->broken, k->kept)) /* a rule of the target or the problem */
            continue;
        snprintf(json, sizeof json, "{\"nvrtc\": {\"contraction\": [%s]}}", k->kept);
        c = materialize(json, shape, k->arch, &n);
        CHECK(n == 1 && !c[0].rejected);
        if (n == 1 && c[0].rejected)
            fprintf(stderr, "kept row %s: %s\n", k->kept, c[0].reason);
        free(c);
    }
}

/* BM and BK are the kernel's 128 and 64 whatever M and K project them to;
 * the row still passes and its plan names them. */
static void test_small_problem(void)
{
    int n = 0;
    gdt_candidate *c = materialize("{\"nvrtc\": {\"contraction\": [[128, 128, 64, 8, 1, 4, 8, 1, 1]]}}",
                                   "m=48,n=4096,k=40", 90, &n);
    CHECK(n == 1 && !c[0].rejected);
    if (n == 1) {
        CHECK_INT(gdt_plan_id_knob(&c[0].id, GDT_KNOB_TILE_M, -1), ==, 128);
        CHECK_INT(gdt_plan_id_knob(&c[0].id, GDT_KNOB_TILEK, -1), ==, 64);
    }
    free(c);
}

/* An 8-column row reads the optional columns' absent values and its plan
 * names none of them; a 12-column row with those values is the same plan,
 * so the two in one table are a duplicate; a 7-column row is short. */
static void test_optional_columns(void)
{
    static const char *const rows[2] = {"[128, 128, 64, 4, 1, 4, 8, 1]",
                                        "[128, 128, 64, 4, 1, 4, 8, 1, 0, 1, 2, 0]"};
    gdt_plan_id id[2];
    char json[256];
    for (int r = 0; r < 2; r++) {
        int n = 0;
        snprintf(json, sizeof json, "{\"nvrtc\": {\"contraction\": [%s]}}", rows[r]);
        gdt_candidate *c = materialize(json, "m=4096,n=4096,k=4096", 90, &n);
        CHECK_INT(n, ==, 1);
        if (n == 1) {
            CHECK_INT(c[0].bound[GDT_GEMM_PIPE], ==, 0);
            CHECK_INT(c[0].bound[GDT_GEMM_SPLIT_K], ==, 1);
            CHECK_INT(c[0].bound[GDT_GEMM_CLUSTER_SHAPE], ==, 2);
            CHECK_INT(c[0].bound[GDT_GEMM_REDUCTION_MODE], ==, 0);
            CHECK_INT(c[0].id.nknobs, ==, 8);
            id[r] = c[0].id;
        }
        free(c);
    }
    CHECK(gdt_plan_id_equal(&id[0], &id[1]));
    gdt_row_table *t = NULL;
    gdt_error e = {0};
    snprintf(json, sizeof json, "{\"nvrtc\": {\"contraction\": [%s, %s]}}", rows[0], rows[1]);
    CHECK_INT(gdt_rows_load_text(json, strlen(json), "rows.json", &t, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "rows.json: /nvrtc/contraction/1: duplicate row (same as /nvrtc/contraction/0)");
    /* The digest journals record: a row's shortest form, as before the
     * optional columns (so the committed journals still resume and emit). */
    char got[65], want[65];
    const char *form = "contraction:128,128,64,4,1,4,8,1;\n";
    snprintf(json, sizeof json, "{\"nvrtc\": {\"contraction\": [%s]}}", rows[1]);
    CHECK_INT(gdt_rows_load_text(json, strlen(json), "rows.json", &t, &e), ==, GDT_STATUS_OK);
    gdt_rows_digest(t, got);
    gdt_rows_destroy(t);
    gdt_digest_hex(form, strlen(form), want);
    CHECK_STR(got, want);
    const char *short_row = "{\"nvrtc\": {\"contraction\": [[128, 128, 64, 4, 1, 4, 8]]}}";
    CHECK_INT(gdt_rows_load_text(short_row, strlen(short_row), "rows.json", &t, &e), ==,
              GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "expected 8 to 16 columns (from PIPE on optional), got 7");
}

/* What the template binds for a PIPE=1 plan: its defines, the launch of
 * 384 threads and the ring's shared memory, the workspace of its splits. */
static long long define_of(const gdt_facts *f, const gdt_plan_id *p, const char *name)
{
    return rows_define_of(&gdt__tmpl_gemm, f, p, name, NULL);
}

static void test_template_binds(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    facts_for("m=128,n=4096,k=4096", 90, &f);
    gdt_plan_id p = nvrtc_plan_of(11); /* 128 x 64, two splits in a DSMEM pair, 8 stages */
    CHECK_INT(define_of(&f, &p, "PIPE"), ==, 1);
    CHECK_INT(define_of(&f, &p, "BN"), ==, 64);
    CHECK_INT(define_of(&f, &p, "STAGES"), ==, 8);
    CHECK_INT(define_of(&f, &p, "SPLIT_K"), ==, 2);
    CHECK_INT(define_of(&f, &p, "REDUCTION_MODE"), ==, 1);
    CHECK_INT(define_of(&f, &p, "CLUSTER_SHAPE"), ==, 2);
    CHECK_INT(define_of(&f, &p, "A_KMAJOR"), ==, 1);
    CHECK_INT(define_of(&f, &p, "B_KMAJOR"), ==, 0);
    gdt__tmpl_gemm.launch(&f, &p, 0, &l);
    CHECK_INT(l.block[0], ==, 384);
    CHECK_INT(l.smem_bytes, ==, 8 * (128 + 64) * 64 * 2 + 4 * 64 * 64 * 2 + 16 * 8 + 16 + 1024);
    CHECK_INT(gdt__tmpl_gemm.workspace(&f, &p), ==, 0); /* the pair sums in shared memory */
    p = nvrtc_plan_of(3);                                  /* 128 x 128, four splits */
    CHECK_INT((long long)gdt__tmpl_gemm.workspace(&f, &p), ==, 4LL * 128 * 4096 * 4);
    p = nvrtc_plan_of(10); /* clusters along N */
    CHECK_INT(define_of(&f, &p, "CLUSTER_SHAPE"), ==, 5);
    CHECK_INT(define_of(&f, &p, "SWAP_AB"), ==, 0);
    CHECK_INT(define_of(&f, &p, "PINGPONG"), ==, 0);
}

/* Ping-pong: the cooperative form's tile, launch and ring (384 threads,
 * the 128 x BN stages and two output blocks a consumer), no workspace;
 * the template binds PINGPONG=1, and the row names it in its plan. */
static void test_pingpong_binds(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    int n = 0;
    facts_for("m=2048,n=4096,k=4096", 90, &f);
    static const struct { const char *name; long long value; } binds[] = {
        {"PINGPONG", 1}, {"BN", 128}, {"STAGES", 6}, {"SPLIT_K", 1}, {"SWAP_AB", 0}};
    gdt_plan_id p = nvrtc_plan_of(22); /* 128 x 128, 6 stages */
    for (size_t i = 0; i < sizeof binds / sizeof binds[0]; i++)
        CHECK_INT(define_of(&f, &p, binds[i].name), ==, binds[i].value);
    gdt__tmpl_gemm.launch(&f, &p, 0, &l);
    CHECK_INT(l.block[0], ==, 384);
    CHECK_INT(l.smem_bytes, ==, 6 * (128 + 128) * 64 * 2 + 4 * 64 * 64 * 2 + 16 * 6 + 16 + 1024);
    CHECK_INT(gdt__tmpl_gemm.workspace(&f, &p), ==, 0);
    gdt_candidate *c = materialize("{\"nvrtc\": {\"contraction\": [[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 1]]}}",
                                   "m=2048,n=4096,k=4096", 90, &n);
    CHECK(n == 1 && !c[0].rejected);
    if (n == 1) {
        gdt_plan_id twin = nvrtc_plan_of(21);
        char name[512];
        gdt_plan_id_format(&c[0].id, name, sizeof name);
        CHECK_CONTAINS(name, "PINGPONG=1");
        CHECK_INT(c[0].bound[GDT_GEMM_PINGPONG], ==, 1);
        CHECK(gdt_plan_id_equal(&c[0].id, &twin));
    }
    free(c);
}

/* Swap-AB: BM rows of M on the wgmma's N side, one consumer warpgroup a
 * 64 rows of N (BN): 256 threads for one, 384 for two; the ring of BN + BM
 * rows a stage and two output blocks a consumer; the partials of C^T,
 * [split][n][BM-wide tiles of M].  BM follows M down: the hand row of 64
 * rows of M binds 16 at m = 16, and is then the 16-row configuration's
 * row. */
static void test_swab_binds(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    int n = 0;
    facts_for("m=16,n=4096,k=4096", 90, &f);
    gdt_plan_id p = nvrtc_plan_of(17); /* 16 rows of M, one consumer, two splits, 8 stages */
    CHECK_INT(define_of(&f, &p, "SWAP_AB"), ==, 1);
    CHECK_INT(define_of(&f, &p, "BM"), ==, 16);
    CHECK_INT(define_of(&f, &p, "BN"), ==, 64);
    CHECK_INT(define_of(&f, &p, "WARPS_N"), ==, 4);
    CHECK_INT(define_of(&f, &p, "A_KMAJOR"), ==, 1);
    CHECK_INT(define_of(&f, &p, "B_KMAJOR"), ==, 0);
    gdt__tmpl_gemm.launch(&f, &p, 0, &l);
    CHECK_INT(l.block[0], ==, 256);
    CHECK_INT(l.smem_bytes, ==, 8 * (64 + 16) * 64 * 2 + 2 * 64 * 64 * 2 + 16 * 8 + 16 + 1024);
    CHECK_INT((long long)gdt__tmpl_gemm.workspace(&f, &p), ==, 2LL * 4096 * 16 * 4);
    p = nvrtc_plan_of(18); /* 64 rows of M, two consumers (128 of N), four splits */
    gdt__tmpl_gemm.launch(&f, &p, 0, &l);
    CHECK_INT(l.block[0], ==, 384);
    CHECK_INT(l.smem_bytes, ==, 6 * (128 + 64) * 64 * 2 + 4 * 64 * 64 * 2 + 16 * 6 + 16 + 1024);
    CHECK_INT((long long)gdt__tmpl_gemm.workspace(&f, &p), ==, 4LL * 4096 * 64 * 4);
    gdt_candidate *c = materialize("{\"nvrtc\": {\"contraction\": [[64, 64, 64, 1, 4, 8, 8, 1, 1, 2, 2, 0, 1]]}}",
                                   "m=16,n=4096,k=4096", 90, &n);
    CHECK(n == 1 && !c[0].rejected);
    if (n == 1) {
        gdt_plan_id twin = nvrtc_plan_of(17);
        CHECK_INT(c[0].bound[GDT_GEMM_BM], ==, 16);
        CHECK(gdt_plan_id_equal(&c[0].id, &twin));
    }
    free(c);
}

/* One consumer warpgroup without swap-AB (WARPS_M=4): BM bound to 64
 * whatever the row asks, 256 threads, a ring of 64 + BN rows a stage and
 * one consumer's two output blocks; the template binds WARPS_M=4 (the
 * kernel's one consumer) and the row's BN and stages. */
static void test_one_consumer_binds(void)
{
    gdt_facts f;
    gdt_nvrtc_launch l;
    int n = 0;
    facts_for("m=256,n=4096,k=4096", 90, &f);
    gdt_candidate *c = materialize("{\"nvrtc\": {\"contraction\": [[128, 128, 64, 4, 1, 8, 8, 1, 1]]}}",
                                   "m=256,n=4096,k=4096", 90, &n);
    CHECK(n == 1 && !c[0].rejected);
    if (n == 1) {
        CHECK_INT(c[0].bound[GDT_GEMM_BM], ==, 64);
        CHECK_INT(define_of(&f, &c[0].id, "WARPS_M"), ==, 4);
        CHECK_INT(define_of(&f, &c[0].id, "BN"), ==, 128);
        gdt__tmpl_gemm.launch(&f, &c[0].id, 0, &l);
        CHECK_INT(l.block[0], ==, 256);
        CHECK_INT(l.smem_bytes, ==, 8 * (64 + 128) * 64 * 2 + 2 * 64 * 64 * 2 + 16 * 8 + 16 + 1024);
        CHECK_INT(gdt__tmpl_gemm.workspace(&f, &c[0].id), ==, 0);
    }
    free(c);
}

/* RASTER: absent, the template binds RASTER=0 (the hand's walk, whose
 * builds test_hand_configs_are_rows compares byte for byte); a RASTER=1
 * row binds RASTER=1 beside the same tile, split and cluster, and names it
 * in its plan; with a cluster along N too. */
static void test_raster_binds(void)
{
    gdt_facts f;
    int n = 0;
    facts_for("m=4096,n=4096,k=4096", 90, &f);
    gdt_plan_id p = nvrtc_plan_of(0);
    CHECK_INT(define_of(&f, &p, "RASTER"), ==, 0);
    gdt_candidate *c = materialize("{\"nvrtc\": {\"contraction\": [[128, 256, 64, 8, 1, 4, 8, 1, 1, 1, 5, 0, 0, 0, 1]]}}",
                                   "m=4096,n=4096,k=4096", 90, &n);
    CHECK(n == 1 && !c[0].rejected);
    if (n == 1) {
        char name[512];
        gdt_plan_id_format(&c[0].id, name, sizeof name);
        CHECK_CONTAINS(name, "RASTER=1");
        CHECK_INT(c[0].bound[GDT_GEMM_RASTER], ==, 1);
        CHECK_INT(define_of(&f, &c[0].id, "RASTER"), ==, 1);
        CHECK_INT(define_of(&f, &c[0].id, "CLUSTER_SHAPE"), ==, 5);
        CHECK_INT(define_of(&f, &c[0].id, "BN"), ==, 256);
    }
    free(c);
}

/* EPILOGUE: absent, the template binds EPILOGUE=0 (the hand's TMA store,
 * compared byte for byte in test_hand_configs_are_rows); an EPILOGUE=1 row
 * binds EPILOGUE=1 beside the same tile and names it in its plan, and its
 * kernel is another program than its EPILOGUE=0 twin's (the column binds
 * code, not only a name). */
static void test_epilogue_binds(void)
{
    static const char *const rows[2] = {"[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 0, 0, 0]",
                                        "[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 0, 0, 1]"};
    const unsigned char *text[2] = {NULL, NULL};
    void *cubin[2] = {NULL, NULL};
    size_t len[2] = {0, 0}, size[2] = {0, 0};
    gdt_facts f;
    gdt_error e = {0};
    facts_for("m=1000,n=1000,k=4096", 90, &f);
    gdt_plan_id p = nvrtc_plan_of(0);
    CHECK_INT(define_of(&f, &p, "EPILOGUE"), ==, 0);
    for (int r = 0; r < 2; r++) {
        char json[256], name[512];
        int n = 0;
        snprintf(json, sizeof json, "{\"nvrtc\": {\"contraction\": [%s]}}", rows[r]);
        gdt_candidate *c = materialize(json, "m=1000,n=1000,k=4096", 90, &n);
        CHECK(n == 1 && !c[0].rejected);
        if (n != 1) {
            free(c);
            continue;
        }
        gdt_plan_id_format(&c[0].id, name, sizeof name);
        CHECK(r == (strstr(name, "EPILOGUE=1") != NULL));
        CHECK_INT(c[0].bound[GDT_GEMM_EPILOGUE], ==, r);
        CHECK_INT(define_of(&f, &c[0].id, "EPILOGUE"), ==, r);
        CHECK_INT(define_of(&f, &c[0].id, "BN"), ==, 128);
        CHECK_INT(gdt_nvrtc_compile(&gdt__tmpl_gemm, &f, &c[0].id, 90, &cubin[r], &len[r], NULL, &e), ==,
                  GDT_STATUS_OK);
        text[r] = cubin[r] ? elf_section(cubin[r], len[r], ".text.gdt_gemm", &size[r]) : NULL;
        CHECK(text[r] != NULL);
        free(c);
    }
    CHECK(text[0] && text[1] && (size[0] != size[1] || memcmp(text[0], text[1], size[0])));
    free(cubin[0]), free(cubin[1]);
    /* Shared memory: the register epilogue keeps no output blocks (4 of
     * 8 KB), except in a DSMEM pair, whose partials travel through them. */
    static const char *const more[3] = {"[128, 128, 64, 8, 1, 4, 8, 1, 1, 1, 2, 0, 0, 0, 0, 1]",
                                        "[128, 64, 64, 8, 1, 8, 8, 1, 1, 2, 2, 1, 0, 0, 0, 0]",
                                        "[128, 64, 64, 8, 1, 8, 8, 1, 1, 2, 2, 1, 0, 0, 0, 1]"};
    static const long long smem[3] = {4 * (128 + 128) * 64 * 2 + 16 * 4 + 16 + 1024,
                                      8 * (128 + 64) * 64 * 2 + 4 * 64 * 64 * 2 + 16 * 8 + 16 + 1024,
                                      8 * (128 + 64) * 64 * 2 + 4 * 64 * 64 * 2 + 16 * 8 + 16 + 1024};
    for (int r = 0; r < 3; r++) {
        char json[256];
        int n = 0;
        gdt_nvrtc_launch l;
        snprintf(json, sizeof json, "{\"nvrtc\": {\"contraction\": [%s]}}", more[r]);
        gdt_candidate *c = materialize(json, "m=1000,n=1000,k=4096", 90, &n);
        CHECK(n == 1 && !c[0].rejected);
        if (n == 1) {
            gdt__tmpl_gemm.launch(&f, &c[0].id, 0, &l);
            CHECK_INT(l.smem_bytes, ==, smem[r]);
        }
        free(c);
    }
}

int main(void)
{
    test_optional_columns();
    test_rules();
    test_small_problem();
    test_template_binds();
    test_swab_binds();
    test_pingpong_binds();
    test_raster_binds();
    test_epilogue_binds();
    test_one_consumer_binds();
    test_hand_configs_are_rows();
    return gdt_test_result("test_gemm_tma_rows");
}
