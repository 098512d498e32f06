/* gdt_graph_autotune with wisdom, without a device: a matching entry's
 * plan is built (a stand-in backend whose plans build without CUDA) and
 * nothing is measured, the report says from_wisdom; the list's plan of
 * that identity is pinned, an identity the list does not hold is
 * replayed; an entry for another cuDNN version, or one whose plan does
 * not build, is passed over and the autotune measures (which needs the
 * device: here it fails, and reports no wisdom). */
#include <math.h>

#include "gdt_cuda.h"
#include "gdt_engine_impl.h"
#include "gdtune/autotune.h"
#include "autotune_support.h"

/* Builds any plan but engine 4 with no device; remembers the last built. */
static int64_t built_engine = -1;
static char compiled_token;

static gdt_status check_support(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p, gdt_error *e)
{
    (void)s, (void)f;
    return p->engine_id == 4 ? gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "engine 4 declines") : GDT_STATUS_OK;
}

static gdt_status build(const gdt_engine_slot *s, const gdt_facts *f, const gdt_plan_id *p,
                        const gdt_build_opts *o, gdt_compiled **out, gdt_build_info *info, gdt_error *e)
{
    (void)s, (void)f, (void)o, (void)info, (void)e;
    built_engine = p->engine_id;
    *out = (gdt_compiled *)&compiled_token;
    return GDT_STATUS_OK;
}

static size_t workspace_size(const gdt_compiled *c) { return (void)c, 0; }
static gdt_status execute(gdt_compiled *c, const gdt_operands *ops, void *ws, size_t n, void *st, gdt_error *e)
{
    (void)c, (void)ops, (void)ws, (void)n, (void)st, (void)e;
    return GDT_STATUS_OK;
}
static void destroy(gdt_compiled *c) { (void)c; }

static const gdt_engine_ops ops = {GDT_ENGINE_OPS_NAMED};
static const gdt_backend backend = {.list = standin_list, .ops = &ops};

/* One autotune of a fresh graph with a wisdom holding engine_id's plan,
 * recorded with cudnn_delta added to this process's cuDNN version. */
static gdt_status tune(int64_t engine_id, int cudnn_delta, gdt_autotune_report *r)
{
    gdt_plan_options po = {.backend = &backend};
    gdt_graph *g = test_planned_gemm("m=192,n=4096,k=1024", &po);
    gdt_build_opts bo = {.device = gdt_graph_facts(g)->device};
    gdt_operands o = fake_operands(g);
    gdt_wisdom *w = NULL;
    gdt_error e;
    CHECK_INT(gdt_wisdom_load("/nonexistent-gdt-wisdom/w.json", &w, &e), ==, GDT_STATUS_OK);
    gdt_wisdom_entry x;
    gdt_wisdom_probe(g, &x);
    x.id = (gdt_plan_id){.engine_id = engine_id};
    x.cudnn_version += cudnn_delta;
    x.median_us = 7.5, x.first_us = 9.0;
    snprintf(x.measured, sizeof x.measured, "2026-12-06T20:40:00Z");
    CHECK_INT(gdt_wisdom_put(w, &x, &e), ==, GDT_STATUS_OK);
    gdt_autotune_opts opts;
    gdt_autotune_opts_default(&opts);
    opts.wisdom = w;
    built_engine = -1;
    gdt_status s = gdt_graph_autotune(g, &bo, &o, NULL, 0, NULL, &opts, r, &e);
    CHECK_INT(gdt_wisdom_count(w), ==, 1); /* nothing measured: nothing put */
    gdt_wisdom_destroy(w);
    gdt_graph_destroy(g);
    return s;
}

static void test_from_wisdom(void)
{
    gdt_autotune_report r;
    /* the list's plan: pinned and built, nothing measured */
    CHECK_INT(tune(2, 0, &r), ==, GDT_STATUS_OK);
    CHECK(r.from_wisdom);
    CHECK_INT(r.n, ==, 1);
    CHECK_INT(r.winner, ==, 0);
    CHECK_INT(r.first, ==, -1);
    CHECK_INT(r.c[0].index, ==, 2);
    CHECK_INT(r.c[0].id.engine_id, ==, 2);
    CHECK_INT(r.c[0].side, ==, GDT_PLAN_SIDE_BACKEND);
    CHECK_NEAR(r.c[0].median_us, 7.5, 1e-12);
    CHECK_NEAR(r.wisdom_first_us, 9.0, 1e-12);
    CHECK_STR(r.wisdom_measured, "2026-12-06T20:40:00Z");
    CHECK_INT(built_engine, ==, 2);
    /* an identity the list does not hold: replayed */
    CHECK_INT(tune(NBACKEND + 2, 0, &r), ==, GDT_STATUS_OK);
    CHECK(r.from_wisdom);
    CHECK_INT(r.c[0].index, ==, -1);
    CHECK_INT(built_engine, ==, NBACKEND + 2);
}

static void test_passed_over(void)
{
    gdt_autotune_report r;
    /* another cuDNN: measured (no device here, so it fails) */
    CHECK_INT(tune(2, 1, &r), !=, GDT_STATUS_OK);
    CHECK(!r.from_wisdom);
    CHECK_INT(r.n, >, 1);
    /* a plan that declines: measured */
    CHECK_INT(tune(4, 0, &r), !=, GDT_STATUS_OK);
    CHECK(!r.from_wisdom);
    CHECK_INT(r.n, >, 1);
}

int main(void)
{
    test_from_wisdom();
    if (gdt__device_present()) {
        fprintf(stderr, "test_autotune_wisdom: a device: the measuring half would run (tests/gpu covers it)\n");
        return gdt_test_result("test_autotune_wisdom");
    }
    test_passed_over();
    return gdt_test_result("test_autotune_wisdom");
}
