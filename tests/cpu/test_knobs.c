/* The knob vocabulary and plan identity: names as cudnn_graph_v9.h spells
 * them, gdtune's band, normalize/equal/set, and the printed name's exact
 * round trip. */
#include <cudnn_graph.h>

#include "gdt_test.h"
#include "gdtune/gdtune.h"

/* Our names against the enumerators of the cuDNN header this build sees:
 * the name is the enumerator without its prefix, the value its value. */
#define BACKEND_KNOBS(X)                                                                      \
    X(SPLIT_K) X(SWIZZLE) X(TILE_SIZE) X(USE_TEX) X(EDGE) X(KBLOCK) X(LDGA) X(LDGB) X(CHUNK_K) \
    X(SPLIT_H) X(WINO_TILE) X(MULTIPLY) X(SPLIT_K_BUF) X(TILEK) X(STAGES) X(REDUCTION_MODE)    \
    X(CTA_SPLIT_K_MODE) X(SPLIT_K_SLC) X(IDX_MODE) X(SLICED) X(SPLIT_RS) X(SINGLEBUFFER)       \
    X(LDGC) X(SPECFILT) X(KERNEL_CFG) X(WORKSPACE) X(TILE_CGA) X(TILE_CGA_M) X(TILE_CGA_N)     \
    X(BLOCK_SIZE) X(OCCUPANCY) X(ARRAY_SIZE_PER_THREAD) X(NUM_C_PER_BLOCK) X(SPLIT_COLS)       \
    X(TILE_ROWS) X(TILE_COLS) X(LOAD_SIZE) X(CTA_COUNT) X(STREAM_K) X(SPLIT_P_SLC) X(TILE_M)    \
    X(TILE_N) X(WARP_SPEC_CFG) X(SWAP_AB)

static void test_against_cudnn_header(void)
{
    /* Older headers hold a prefix of the frozen list. */
    CHECK_INT(CUDNN_KNOB_TYPE_COUNTS, <=, GDT_KNOB_BACKEND_COUNT);
#if CUDNN_VERSION >= 91900
    int n = 0;
#define CHECK_KNOB(name)                                                   \
    CHECK_STR(gdt_knob_name(CUDNN_KNOB_TYPE_##name), #name);               \
    n++;
    BACKEND_KNOBS(CHECK_KNOB)
#undef CHECK_KNOB
    CHECK_INT(n, ==, GDT_KNOB_BACKEND_COUNT);
    CHECK_INT(CUDNN_KNOB_TYPE_COUNTS, ==, GDT_KNOB_BACKEND_COUNT);
#endif
}

static void test_names(void)
{
    static const struct {
        int type;
        const char *name;
    } known[] = {
        {0, "SPLIT_K"},      {1, "SWIZZLE"},        {2, "TILE_SIZE"},   {13, "TILEK"},
        {14, "STAGES"},      {24, "KERNEL_CFG"},    {27, "TILE_CGA_M"}, {31, "ARRAY_SIZE_PER_THREAD"},
        {38, "STREAM_K"},    {40, "TILE_M"},        {41, "TILE_N"},     {42, "WARP_SPEC_CFG"},
        {43, "SWAP_AB"},     {GDT_KNOB_WARPS_M, "WARPS_M"}, {GDT_KNOB_WARPS_N, "WARPS_N"},
        {GDT_KNOB_GROUP_M, "GROUP_M"}, {GDT_KNOB_MMA, "MMA"}, {GDT_KNOB_WARPS, "WARPS"},
        {GDT_KNOB_TILE_KV, "TILE_KV"}, {GDT_KNOB_SPLIT, "SPLIT"}, {GDT_KNOB_GRAPH, "GRAPH"},
        {GDT_KNOB_TEST, "TEST"},      {GDT_KNOB_PINGPONG, "PINGPONG"}, {GDT_KNOB_BAND + 13, "PINGPONG"},
        {GDT_KNOB_DETERMINISTIC, "DETERMINISTIC"}, {GDT_KNOB_BAND + 14, "DETERMINISTIC"},
        {GDT_KNOB_RASTER, "RASTER"}, {GDT_KNOB_BAND + 15, "RASTER"},
        {GDT_KNOB_EPILOGUE, "EPILOGUE"}, {GDT_KNOB_BAND + 16, "EPILOGUE"},
    };
    gdt_error e;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        CHECK_STR(gdt_knob_name(known[i].type), known[i].name);
        int t = -1;
        CHECK_INT(gdt_knob_parse(known[i].name, &t, &e), ==, 0);
        CHECK_INT(t, ==, known[i].type);
    }
    CHECK_INT(GDT_KNOB_TILEK, ==, 13);
    CHECK_INT(GDT_KNOB_TILE_M, ==, 40);
    /* Every backend value has a distinct name that parses back to it. */
    for (int i = 0; i < GDT_KNOB_BACKEND_COUNT; i++) {
        const char *n = gdt_knob_name(i);
        int t = -1;
        CHECK(n != NULL);
        CHECK_INT(gdt_knob_parse(n, &t, &e), ==, 0);
        CHECK_INT(t, ==, i);
    }
    CHECK(gdt_knob_name(GDT_KNOB_BACKEND_COUNT) == NULL);
    CHECK(gdt_knob_name(-1) == NULL);
    CHECK(gdt_knob_name(GDT_KNOB_BAND + 50) == NULL);
    int t;
    CHECK_INT(gdt_knob_parse("tile_m", &t, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "unknown knob \"tile_m\"");
    CHECK_INT(gdt_knob_parse("CUDNN_KNOB_TYPE_TILE_M", &t, &e), ==, GDT_STATUS_BAD_INPUT);
}

static gdt_plan_id gemm_plan(void)
{
    gdt_plan_id p;
    memset(&p, 0, sizeof p);
    p.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 0);
    CHECK(gdt_plan_id_set_knob(&p, GDT_KNOB_TILE_N, 256));
    CHECK(gdt_plan_id_set_knob(&p, GDT_KNOB_TILE_M, 128));
    CHECK(gdt_plan_id_set_knob(&p, GDT_KNOB_STAGES, 3));
    CHECK(gdt_plan_id_set_knob(&p, GDT_KNOB_GROUP_M, 8));
    return p;
}

static void test_identity(void)
{
    gdt_plan_id p = gemm_plan(), q;
    CHECK_INT(p.nknobs, ==, 4);
    /* Sorted by knob name. */
    CHECK_INT(p.knobs[0].type, ==, GDT_KNOB_GROUP_M);
    CHECK_INT(p.knobs[1].type, ==, GDT_KNOB_STAGES);
    CHECK_INT(p.knobs[3].type, ==, GDT_KNOB_TILE_N);
    CHECK_INT(gdt_plan_id_knob(&p, GDT_KNOB_STAGES, -1), ==, 3);
    CHECK_INT(gdt_plan_id_knob(&p, GDT_KNOB_MMA, -7), ==, -7);
    CHECK(gdt_plan_id_set_knob(&p, GDT_KNOB_STAGES, 4)); /* replace, not add */
    CHECK_INT(p.nknobs, ==, 4);
    CHECK_INT(gdt_plan_id_knob(&p, GDT_KNOB_STAGES, -1), ==, 4);

    /* Equal regardless of the order knobs were set in. */
    memset(&q, 0, sizeof q);
    q.engine_id = p.engine_id;
    q.nknobs = 4;
    q.knobs[0] = (gdt_knob){GDT_KNOB_TILE_N, 256};
    q.knobs[1] = (gdt_knob){GDT_KNOB_STAGES, 4};
    q.knobs[2] = (gdt_knob){GDT_KNOB_GROUP_M, 8};
    q.knobs[3] = (gdt_knob){GDT_KNOB_TILE_M, 128};
    CHECK(gdt_plan_id_equal(&p, &q));
    q.knobs[3].value = 64;
    CHECK(!gdt_plan_id_equal(&p, &q));
    q.knobs[3].value = 128;
    q.engine_id = 0;
    CHECK(!gdt_plan_id_equal(&p, &q));

    gdt_plan_id full;
    memset(&full, 0, sizeof full);
    for (int i = 0; i < GDT_MAX_KNOBS; i++) CHECK(gdt_plan_id_set_knob(&full, i, i));
    CHECK(!gdt_plan_id_set_knob(&full, 30, 1)); /* full */
    CHECK(gdt_plan_id_set_knob(&full, 3, 9));   /* replacing still works */
}

static void round_trip(const gdt_plan_id *p, const char *want)
{
    char name[1024], again[1024];
    gdt_plan_id q;
    gdt_error e;
    int n = gdt_plan_id_format(p, name, sizeof name);
    CHECK_INT(n, ==, (int)strlen(want));
    CHECK_STR(name, want);
    CHECK_INT(gdt_plan_id_parse(name, &q, &e), ==, 0);
    CHECK(gdt_plan_id_equal(p, &q));
    gdt_plan_id_format(&q, again, sizeof again);
    CHECK_STR(again, name);
}

static void test_format_parse(void)
{
    gdt_plan_id p = gemm_plan();
    round_trip(&p, "gemm.nvrtc[GROUP_M=8, STAGES=3, TILE_M=128, TILE_N=256]");
    memset(&p, 0, sizeof p);
    p.engine_id = 7;
    gdt_plan_id_set_knob(&p, GDT_KNOB_KERNEL_CFG, 3);
    gdt_plan_id_set_knob(&p, 0, -1); /* SPLIT_K, a negative value */
    round_trip(&p, "cudnn.eng7[KERNEL_CFG=3, SPLIT_K=-1]");
    memset(&p, 0, sizeof p);
    p.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 90);
    round_trip(&p, "gemm.test_fault");
    p.engine_id = gdt_engine_id(GDT_FAMILY_SDPA_BWD, 0);
    gdt_plan_id_set_knob(&p, GDT_KNOB_WARPS, 8);
    round_trip(&p, "sdpa_bwd.nvrtc[WARPS=8]");
    memset(&p, 0, sizeof p);
    p.engine_id = gdt_engine_id(GDT_FAMILY_SDPA_FWD, 42); /* a slot no manifest lists */
    gdt_plan_id_set_knob(&p, GDT_KNOB_TILE_M, 64);
    round_trip(&p, "engine20142[TILE_M=64]");
    memset(&p, 0, sizeof p);
    p.engine_id = 0;
    round_trip(&p, "cudnn.eng0");

    /* "name[]" parses as "name". */
    gdt_plan_id q;
    gdt_error e;
    CHECK_INT(gdt_plan_id_parse("gemm.test_hang[]", &q, &e), ==, 0);
    CHECK_INT(q.engine_id, ==, gdt_engine_id(GDT_FAMILY_GEMM, 91));
    CHECK_INT(q.nknobs, ==, 0);
    /* Without the space after the comma, too. */
    CHECK_INT(gdt_plan_id_parse("gemm.nvrtc[TILE_M=128,GROUP_M=8]", &q, &e), ==, 0);
    CHECK_INT(q.knobs[0].type, ==, GDT_KNOB_GROUP_M);
    CHECK_INT(gdt_plan_id_knob(&q, GDT_KNOB_TILE_M, 0), ==, 128);
    char small[8];
    CHECK_INT(gdt_plan_id_format(&q, small, sizeof small), ==, (int)strlen("gemm.nvrtc[GROUP_M=8, TILE_M=128]"));
    CHECK_STR(small, "gemm.nv");
}

static void test_parse_refusals(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"gemm.cuda[TILE_M=1]", "plan name \"gemm.cuda[TILE_M=1]\": unknown engine \"gemm.cuda\""},
        {"cudnn.eng10000", "unknown engine \"cudnn.eng10000\""},
        {"cudnn.engx", "unknown engine"},
        {"", "missing or overlong engine name"},
        {"[TILE_M=1]", "missing or overlong engine name"},
        {"gemm.nvrtc[, ]", "expected K=V at \"\""},
        {"gemm.nvrtc[TILE_M=1,]", "expected K=V at \"\""},
        {"gemm.nvrtc[TILE_M=1", "expected one closing ']' at the end"},
        {"gemm.nvrtc[TILE_M=1]x", "expected one closing ']' at the end"},
        {"gemm.nvrtc[TILE_Q=1]", "unknown knob \"TILE_Q\""},
        {"gemm.nvrtc[TILE_M]", "expected K=V at \"TILE_M\""},
        {"gemm.nvrtc[TILE_M=]", "knob TILE_M: expected an integer value, got \"\""},
        {"gemm.nvrtc[TILE_M=1.5]", "knob TILE_M: expected an integer value, got \"1.5\""},
        {"gemm.nvrtc[TILE_M=99999999999999999999]", "expected an integer value"},
        {"gemm.nvrtc[TILE_M=1, TILE_M=2]", "knob TILE_M given twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gdt_plan_id q;
        gdt_error e;
        CHECK_INT(gdt_plan_id_parse(bad[i].text, &q, &e), ==, GDT_STATUS_BAD_INPUT);
        CHECK_CONTAINS(e.msg, bad[i].want);
    }
    char many[2048] = "gemm.nvrtc[";
    for (int i = 0; i <= GDT_MAX_KNOBS; i++) {
        char kv[64];
        snprintf(kv, sizeof kv, "%s%s=1", i ? ", " : "", gdt_knob_name(i));
        strcat(many, kv);
    }
    strcat(many, "]");
    gdt_plan_id q;
    gdt_error e;
    CHECK_INT(gdt_plan_id_parse(many, &q, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "more than 16 knobs");
}

int main(void)
{
    test_names();
    test_against_cudnn_header();
    test_identity();
    test_format_parse();
    test_parse_refusals();
    return gdt_test_result("test_knobs");
}
