/* gdt_graph_autotune without a device: its refusals (an unplanned graph,
 * options out of range, operands smaller than the problem) come before any
 * CUDA call; and the candidate list it reports when the device then fails:
 * the list's first, the first `backend` entries of the backend side, the
 * first `library` of the library side and the first `ours` of ours, in
 * list order, the marker never, each "not measured".  The list comes from
 * a stand-in backend of five entries and a stand-in cuBLASLt (the default
 * manifest with the gemm.cublaslt slot listing five entries without a
 * device); the candidate part is skipped on a machine with a GPU (it would
 * run there: tests/gpu/test_autotune.c covers it). */
#include <math.h>

#include "gdt_cuda.h"
#include "gdtune/autotune.h"
#include "autotune_support.h"

static const gdt_engine_ops no_ops = {0};
static const gdt_backend backend = {.list = standin_list, .ops = &no_ops};

#define NLIBRARY 5

/* The library's heuristic on a device, five gemm.cublaslt algos. */
static gdt_status standin_library(const gdt_engine_slot *s, const gdt_facts *f, gdt_plan_entry **out, int *n,
                                  gdt_error *e)
{
    (void)s, (void)f;
    *out = calloc(NLIBRARY, sizeof **out);
    for (int i = 0; i < NLIBRARY; i++) {
        char name[64];
        snprintf(name, sizeof name, "gemm.cublaslt[ALGO=%d, TILE_SIZE=20]", i + 1);
        (*out)[i] = (gdt_plan_entry){.why = "library heuristic", .untimed = -1};
        CHECK_INT(gdt_plan_id_parse(name, &(*out)[i].id, e), ==, GDT_STATUS_OK);
    }
    *n = NLIBRARY;
    return GDT_STATUS_OK;
}

static const gdt__library_engine library = {.list = standin_library};

/* The default manifest, its gemm.cublaslt slot listing the stand-in's. */
static gdt_engine_slot slots[64];
static gdt_manifest with_library;

static const gdt_manifest *standin_manifest(void)
{
    int n = gdt_manifest_count(NULL), lib = 0;
    CHECK(n <= (int)(sizeof slots / sizeof *slots));
    for (int i = 0; i < n && i < (int)(sizeof slots / sizeof *slots); i++) {
        slots[i] = *gdt_manifest_slot(NULL, i);
        if (gdt__library_of(&slots[i]) && slots[i].family == GDT_FAMILY_GEMM) slots[i].ops = &library.ops, lib++;
    }
    CHECK_INT(lib, ==, 1);
    with_library = (gdt_manifest){slots, n, false};
    return &with_library;
}

#define SHAPE "m=192,n=4096,k=1024"

static void test_refusals(void)
{
    gdt_plan_options po = {.backend = &backend};
    gdt_graph *g = test_planned_gemm(SHAPE, &po), *bare = NULL;
    gdt_build_opts bo = {.device = gdt_graph_facts(g)->device};
    gdt_operands ops = fake_operands(g);
    gdt_autotune_opts o;
    gdt_error e;
    gdt_autotune_report r;
    CHECK_INT(gdt_graph_create(&gdt_graph_facts(g)->problem, &bo.device, &bare, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_autotune(bare, &bo, &ops, NULL, 0, NULL, NULL, &r, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "plan it first");
    CHECK_INT(r.n, ==, 0);
    CHECK_INT(r.winner, ==, -1);
    CHECK_INT(gdt_graph_autotune(g, NULL, &ops, NULL, 0, NULL, NULL, &r, &e), ==, GDT_STATUS_BAD_USAGE);
    static const struct { int field; int value; const char *msg; } bad[] = {
        {0, 17, "backend: expected 0..16, got 17"}, {1, -1, "ours: expected 0..16, got -1"},
        {2, 101, "warmup: expected 0..100, got 101"}, {3, 0, "reps: expected 1..1000, got 0"},
        {4, 17, "library: expected 0..16, got 17"}, {4, -1, "library: expected 0..16, got -1"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gdt_autotune_opts_default(&o);
        int *f[] = {&o.backend, &o.ours, &o.warmup, &o.reps, &o.library};
        *f[bad[i].field] = bad[i].value;
        CHECK_INT(gdt_graph_autotune(g, &bo, &ops, NULL, 0, NULL, &o, &r, &e), ==, GDT_STATUS_BAD_USAGE);
        CHECK_CONTAINS(e.msg, bad[i].msg);
    }
    gdt_autotune_opts_default(&o);
    o.margin = NAN;
    CHECK_INT(gdt_graph_autotune(g, &bo, &ops, NULL, 0, NULL, &o, &r, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "margin: expected 0..1, got nan");
    ops.bytes[GDT_OPERAND_B] -= 2;
    CHECK_INT(gdt_graph_autotune(g, &bo, &ops, NULL, 0, NULL, NULL, &r, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "operand B: buffer of");
    gdt_graph_destroy(bare);
    gdt_graph_destroy(g);
}

/* The candidates of a list [backend 0..4, library 0..4, ours...] for these
 * quotas. */
static gdt_autotune_report candidates_of(const gdt_backend *be, int nbackend, int nlibrary, int nours)
{
    gdt_plan_options po = {.backend = be, .manifest = standin_manifest()};
    gdt_graph *g = test_planned_gemm(SHAPE, &po);
    gdt_build_opts bo = {.device = gdt_graph_facts(g)->device};
    gdt_operands ops = fake_operands(g);
    gdt_autotune_opts o;
    gdt_autotune_opts_default(&o);
    o.backend = nbackend, o.library = nlibrary, o.ours = nours;
    gdt_autotune_report r;
    gdt_error e;
    CHECK_INT(gdt_graph_autotune(g, &bo, &ops, NULL, 0, NULL, &o, &r, &e), !=, GDT_STATUS_OK); /* no device */
    for (int i = 0; i < r.n; i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, r.c[i].index);
        CHECK(x && !x->is_marker && gdt_plan_id_equal(&x->id, &r.c[i].id));
        gdt_plan_side want = x && x->is_backend ? GDT_PLAN_SIDE_BACKEND
                             : x && x->id.engine_id == 20011 ? GDT_PLAN_SIDE_LIBRARY /* gemm.cublaslt */
                                                             : GDT_PLAN_SIDE_OURS;
        CHECK_INT(r.c[i].side, ==, want);
        CHECK_INT(r.c[i].status, !=, GDT_STATUS_OK);
        CHECK_CONTAINS(r.c[i].why, "not measured");
        if (i) CHECK_INT(r.c[i].index, >, r.c[i - 1].index);
    }
    gdt_graph_destroy(g);
    return r;
}

static gdt_autotune_report candidates(int nbackend, int nlibrary, int nours)
{
    return candidates_of(&backend, nbackend, nlibrary, nours);
}

static int count_side(const gdt_autotune_report *r, gdt_plan_side side)
{
    int n = 0;
    for (int i = 0; i < r->n; i++) n += r->c[i].side == side;
    return n;
}

static void test_candidates(void)
{
    gdt_autotune_report r = candidates(3, 0, 3);
    CHECK_INT(r.n, ==, 6);
    CHECK_INT(r.c[0].index, ==, 0); /* the list's first: cuDNN's heuristic first, untimed order */
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_BACKEND), ==, 3);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_OURS), ==, 3);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_LIBRARY), ==, 0);
    CHECK_INT(r.c[2].id.engine_id, ==, 2);
    r = candidates(NBACKEND + 2, 0, 1);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_BACKEND), ==, NBACKEND);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_OURS), ==, 1);
    /* The list's first is measured whatever the quotas. */
    r = candidates(0, 0, 0);
    CHECK_INT(r.n, ==, 1);
    CHECK_INT(r.c[0].index, ==, 0);
    r = candidates(0, 0, 2);
    CHECK_INT(r.n, ==, 3);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_OURS), ==, 2);
    /* No backend: the BACKEND marker stays in the list, and is passed over. */
    r = candidates_of(NULL, 3, 0, 2);
    CHECK_INT(r.n, ==, 3); /* the list's first (the library's first) and 2 ours */
    CHECK_INT(r.c[0].side, ==, GDT_PLAN_SIDE_LIBRARY);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_OURS), ==, 2);
}

/* The library side's quota: its first entries in list order, after the
 * backend's block, as many as asked and as it has. */
static void test_library_quota(void)
{
    gdt_autotune_report r = candidates(3, 3, 3);
    CHECK_INT(r.n, ==, 9);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_BACKEND), ==, 3);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_LIBRARY), ==, 3);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_OURS), ==, 3);
    for (int i = 0; i < 3; i++) { /* the library's block starts after the backend's five */
        CHECK_INT(r.c[3 + i].side, ==, GDT_PLAN_SIDE_LIBRARY);
        CHECK_INT(r.c[3 + i].index, ==, NBACKEND + i);
    }
    r = candidates(0, NLIBRARY + 2, 0);
    CHECK_INT(r.n, ==, 1 + NLIBRARY);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_LIBRARY), ==, NLIBRARY);
    r = candidates(1, 1, 0);
    CHECK_INT(r.n, ==, 2);
    CHECK_INT(r.c[1].index, ==, NBACKEND);
    /* The list's first counts in its side's quota. */
    r = candidates_of(NULL, 0, 2, 0);
    CHECK_INT(r.n, ==, 2);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_LIBRARY), ==, 2);
    /* The defaults take 3 of each side. */
    gdt_autotune_opts o;
    gdt_autotune_opts_default(&o);
    r = candidates(o.backend, o.library, o.ours);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_LIBRARY), ==, 3);
}

int main(void)
{
    test_refusals();
    if (gdt__device_present())
        printf("test_autotune_pick: a device is present: the candidate part runs in test_autotune\n");
    else
        test_candidates(), test_library_quota();
    return gdt_test_result("test_autotune_pick");
}
