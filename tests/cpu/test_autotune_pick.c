/* gdt_graph_autotune without a device: its refusals (an unplanned graph,
 * options out of range, operands smaller than the problem) come before any
 * CUDA call; and the candidate list it reports when the device then fails:
 * the list's first, the first `backend` entries of the backend side and the
 * first `ours` of ours, in list order, the marker never, each "not
 * measured".  The list comes from a stand-in backend of five entries; the
 * candidate part is skipped on a machine with a GPU (it would run there:
 * tests/gpu/test_autotune.c covers it). */
#include <math.h>

#include "gdt_cuda.h"
#include "gdtune/autotune.h"
#include "plan_support.h"

#define NBACKEND 5

static gdt_status standin_list(void *ctx, const gdt_facts *f, gdt_mode mode, gdt_plan_entry **out, int *n,
                               gdt_error *e)
{
    (void)ctx, (void)f, (void)e;
    *out = calloc(NBACKEND, sizeof **out);
    for (int i = 0; i < NBACKEND; i++)
        (*out)[i] = (gdt_plan_entry){.id = {.engine_id = i}, .is_backend = true, .mode = mode,
                                     .why = "backend heuristic"};
    *n = NBACKEND;
    return GDT_STATUS_OK;
}

static const gdt_engine_ops no_ops = {0};
static const gdt_backend backend = {.list = standin_list, .ops = &no_ops};

#define SHAPE "m=192,n=4096,k=1024"

/* Operands of the right size at addresses nothing dereferences here. */
static gdt_operands fake_operands(const gdt_graph *g)
{
    gdt_operands ops = {0};
    for (int r = 0; r < GDT_OPERAND_COUNT; r++) {
        ops.bytes[r] = gdt_operand_bytes(&gdt_graph_facts(g)->problem, (gdt_operand_role)r);
        if (ops.bytes[r]) ops.ptr[r] = (void *)(uintptr_t)(0x100000u * (unsigned)(r + 1));
    }
    return ops;
}

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
        {2, 101, "warmup: expected 0..100, got 101"}, {3, 0, "reps: expected 1..1000, got 0"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gdt_autotune_opts_default(&o);
        int *f[] = {&o.backend, &o.ours, &o.warmup, &o.reps};
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

/* The candidates of a list [backend 0..4, ours...] for these quotas. */
static gdt_autotune_report candidates_of(const gdt_backend *be, int nbackend, int nours)
{
    gdt_plan_options po = {.backend = be};
    gdt_graph *g = test_planned_gemm(SHAPE, &po);
    gdt_build_opts bo = {.device = gdt_graph_facts(g)->device};
    gdt_operands ops = fake_operands(g);
    gdt_autotune_opts o;
    gdt_autotune_opts_default(&o);
    o.backend = nbackend, o.ours = nours;
    gdt_autotune_report r;
    gdt_error e;
    CHECK_INT(gdt_graph_autotune(g, &bo, &ops, NULL, 0, NULL, &o, &r, &e), !=, GDT_STATUS_OK); /* no device */
    for (int i = 0; i < r.n; i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, r.c[i].index);
        CHECK(x && !x->is_marker && gdt_plan_id_equal(&x->id, &r.c[i].id));
        CHECK_INT(r.c[i].side, ==, x && x->is_backend ? GDT_PLAN_SIDE_BACKEND : GDT_PLAN_SIDE_OURS);
        CHECK_INT(r.c[i].status, !=, GDT_STATUS_OK);
        CHECK_CONTAINS(r.c[i].why, "not measured");
        if (i) CHECK_INT(r.c[i].index, >, r.c[i - 1].index);
    }
    gdt_graph_destroy(g);
    return r;
}

static gdt_autotune_report candidates(int nbackend, int nours) { return candidates_of(&backend, nbackend, nours); }

static int count_side(const gdt_autotune_report *r, gdt_plan_side side)
{
    int n = 0;
    for (int i = 0; i < r->n; i++) n += r->c[i].side == side;
    return n;
}

static void test_candidates(void)
{
    gdt_autotune_report r = candidates(3, 3);
    CHECK_INT(r.n, ==, 6);
    CHECK_INT(r.c[0].index, ==, 0); /* the list's first: cuDNN's heuristic first, untimed order */
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_BACKEND), ==, 3);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_OURS), ==, 3);
    CHECK_INT(r.c[2].id.engine_id, ==, 2);
    r = candidates(NBACKEND + 2, 1);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_BACKEND), ==, NBACKEND);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_OURS), ==, 1);
    /* The list's first is measured whatever the quotas. */
    r = candidates(0, 0);
    CHECK_INT(r.n, ==, 1);
    CHECK_INT(r.c[0].index, ==, 0);
    r = candidates(0, 2);
    CHECK_INT(r.n, ==, 3);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_OURS), ==, 2);
    /* No backend: the BACKEND marker stays in the list, and is passed over. */
    r = candidates_of(NULL, 3, 2);
    CHECK_INT(r.n, ==, 2);
    CHECK_INT(count_side(&r, GDT_PLAN_SIDE_OURS), ==, 2);
}

int main(void)
{
    test_refusals();
    if (gdt__device_present())
        printf("test_autotune_pick: a device is present: the candidate part runs in test_autotune\n");
    else
        test_candidates();
    return gdt_test_result("test_autotune_pick");
}
