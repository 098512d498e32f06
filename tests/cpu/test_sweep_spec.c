/* Sweep specs: the embedded defaults, the quick subsets, tied axes, shards,
 * and every diagnostic naming the file and JSON path. */
#include <string.h>
#include <unistd.h>

#include "gdt_sweep.h"
#include "gdt_test.h"

static gdt_sweep_spec *parse(const char *text, bool quick, gdt_status want, const char *msg)
{
    gdt_sweep_spec *sp = NULL;
    gdt_error e = {0};
    gdt_status s = gdt_sweep_spec_parse(text, strlen(text), "t.json", quick, &sp, &e);
    CHECK_INT(s, ==, want);
    if (msg)
        CHECK_CONTAINS(e.msg, msg);
    if (s != GDT_STATUS_OK)
        CHECK(sp == NULL);
    return sp;
}

static int count_family(const gdt_sweep_spec *sp, gdt_family f)
{
    int n = 0;
    for (int i = 0; i < sp->ncells; i++)
        n += sp->cells[i].family == f;
    return n;
}

static void test_defaults(void)
{
    gdt_sweep_spec *sp = NULL;
    gdt_error e = {0};
    CHECK_INT(gdt_sweep_spec_load("gemm", NULL, false, &sp, &e), ==, GDT_STATUS_OK);
    if (sp) {
        CHECK_INT(sp->ncells, ==, 25);
        CHECK_STR(sp->source, "sweeps/gemm.json");
        CHECK_STR(sp->cells[0].shape, "m=128,n=4096,k=4096,dtype=bf16");
        CHECK_STR(sp->cells[1].shape, "m=128,n=14336,k=4096,dtype=bf16");
        CHECK_STR(sp->cells[3].shape, "m=256,n=4096,k=4096,dtype=bf16");
        CHECK_INT(sp->cells[20].problem.u.gemm.m, ==, 16384);
        CHECK_INT(sp->cells[20].problem.u.gemm.k, ==, 14336);
        CHECK_STR(sp->cells[24].shape, "m=2048,n=8192,k=8192,dtype=bf16"); /* the second grid */
        CHECK_INT(sp->nbursts, ==, 4);
        CHECK_INT(sp->bursts[3], ==, 64);
        CHECK_INT(sp->knob_cap, ==, 2);
        CHECK(sp->max_plan_seconds == 0.5);
        CHECK(sp->noise_floor == 0.02);
        CHECK_INT(strlen(sp->digest), ==, 64);
    }
    gdt_sweep_spec_destroy(sp);
    CHECK_INT(gdt_sweep_spec_load("gemm", NULL, true, &sp, &e), ==, GDT_STATUS_OK);
    if (sp) {
        CHECK_INT(sp->ncells, ==, 2);
        CHECK(sp->max_plan_seconds == 0.3);
        CHECK_INT(sp->knob_cap, ==, 1);
    }
    gdt_sweep_spec_destroy(sp);
    CHECK_INT(gdt_sweep_spec_load("sdpa", NULL, false, &sp, &e), ==, GDT_STATUS_OK);
    if (sp) {
        CHECK_INT(count_family(sp, GDT_FAMILY_SDPA_FWD), ==, 24);
        CHECK_INT(count_family(sp, GDT_FAMILY_SDPA_BWD), ==, 24);
        for (int i = 0; i < sp->ncells; i++) /* about 16K tokens per batch */
            CHECK_INT(sp->cells[i].problem.u.sdpa.b * sp->cells[i].problem.u.sdpa.s_q, ==, 16384);
    }
    gdt_sweep_spec_destroy(sp);
    CHECK_INT(gdt_sweep_spec_load("sdpa_bwd", NULL, true, &sp, &e), ==, GDT_STATUS_OK);
    if (sp) {
        CHECK_INT(sp->ncells, ==, 2);
        CHECK_INT(count_family(sp, GDT_FAMILY_SDPA_BWD), ==, 2);
    }
    gdt_sweep_spec_destroy(sp);
}

static const char base[] =
    "{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],"
    "\"grid\":[{\"m\":[128,256,512],\"n,k\":[[64,32],[128,64]]}]}";

static void test_grid_and_shard(void)
{
    gdt_sweep_spec *sp = parse(base, false, GDT_STATUS_OK, NULL);
    if (!sp)
        return;
    CHECK_INT(sp->ncells, ==, 6); /* tied axes: 3 x 2, not 3 x 2 x 2 */
    CHECK_STR(sp->cells[1].shape, "m=128,n=128,k=64");
    CHECK_INT(sp->nbursts, ==, 0); /* unset: the runner's defaults */
    CHECK_INT(sp->knob_cap, ==, -1);
    CHECK_INT(sp->build_threads, ==, -1); /* unset: gdt_sweep_build_threads' default */
    CHECK(sp->heat_seconds == 0); /* unset: no heat-up */
    CHECK(sp->metric_sample_s == 0); /* unset: every burst */
    gdt_sweep_spec_shard(sp, 1, 4);
    CHECK_INT(sp->ncells, ==, 2); /* indices 1 and 5 */
    CHECK_STR(sp->cells[0].shape, "m=128,n=128,k=64");
    CHECK_STR(sp->cells[1].shape, "m=512,n=128,k=64");
    gdt_sweep_spec_destroy(sp);

    /* Overlapping grids: a cell is measured once. */
    sp = parse("{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],"
               "\"grid\":[{\"m\":[128,256]},{\"m\":[256,512]}]}", false, GDT_STATUS_OK, NULL);
    if (sp)
        CHECK_INT(sp->ncells, ==, 3);
    gdt_sweep_spec_destroy(sp);

    /* The heat-up and the metric's sample, set at the top and again by the
     * quick subset. */
    static const char heat[] = "{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],"
                               "\"grid\":[{\"m\":[128]}],\"heat_seconds\":0.2,\"metric_sample_s\":0.025,"
                               "\"quick\":{\"grid\":[{\"m\":[64]}],\"heat_seconds\":0.05,"
                               "\"metric_sample_s\":0.01}}";
    sp = parse(heat, false, GDT_STATUS_OK, NULL);
    if (sp)
        CHECK(sp->heat_seconds == 0.2 && sp->metric_sample_s == 0.025);
    gdt_sweep_spec_destroy(sp);
    sp = parse(heat, true, GDT_STATUS_OK, NULL);
    if (sp)
        CHECK(sp->heat_seconds == 0.05 && sp->metric_sample_s == 0.01);
    gdt_sweep_spec_destroy(sp);
}

/* build_threads: at the top and in the quick subset; unset, the default
 * keeps one online CPU free and never exceeds GDT_BUILD_THREADS_DEFAULT
 * (16). */
static void test_build_threads(void)
{
    static const char text[] = "{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],"
                               "\"grid\":[{\"m\":[128]}],\"build_threads\":12,"
                               "\"quick\":{\"grid\":[{\"m\":[64]}],\"build_threads\":0}}";
    gdt_sweep_spec *sp = parse(text, false, GDT_STATUS_OK, NULL);
    if (sp) {
        CHECK_INT(sp->build_threads, ==, 12);
        CHECK_INT(gdt_sweep_build_threads(sp), ==, 12);
    }
    gdt_sweep_spec_destroy(sp);
    sp = parse(text, true, GDT_STATUS_OK, NULL);
    if (sp)
        CHECK_INT(gdt_sweep_build_threads(sp), ==, 0);
    gdt_sweep_spec_destroy(sp);
    sp = parse("{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}]}", false, GDT_STATUS_OK, NULL);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long want = cpus - 1 < 16 ? cpus - 1 : 16;
    if (sp)
        CHECK_INT(gdt_sweep_build_threads(sp), ==, want < 0 ? 0 : want);
    gdt_sweep_spec_destroy(sp);
}

static void test_errors(void)
{
    static const struct { const char *text; const char *msg; bool quick; } bad[] = {
        {"[1]", "t.json: expected a JSON object at the top, got array", false},
        {"{\"schema\":\"gdtune.sweep/2\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}]}",
         "t.json: /schema: expected \"gdtune.sweep/1\", got \"gdtune.sweep/2\"", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],\"grids\":1}",
         "grids", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"conv\"],\"grid\":[{\"m\":[1]}]}",
         "t.json: /families/0:", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[],\"grid\":[{\"m\":[1]}]}",
         "t.json: /families: expected a non-empty array", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"]}", "grid", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[]}]}",
         "t.json: /grid/0/m: expected a non-empty array of values, got an empty array", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[128,0]}]}",
         "t.json: /grid/0: cell m=0 (gemm): ", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"mm\":[128]}]}",
         "t.json: /grid/0: cell mm=128 (gemm): ", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"n,k\":[[1,2],3]}]}",
         "t.json: /grid/0/n,k/1: expected an array of 2 values (one per tied key), got number 3",
         false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1.5e3,true]}]}",
         "t.json: /grid/0/m/1: expected a number or a short lowercase word for \"m\", got boolean true",
         false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[\"128\"]}]}",
         "t.json: /grid/0/m/0: expected a number or a short lowercase word for \"m\", got string \"128\"",
         false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"M K\":[1]}]}",
         "t.json: /grid/0/M K: expected an axis name", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"bursts\":[4,1]}", "t.json: /bursts/1: expected increasing burst sizes in 1..4096, got 1",
         false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"target_rel\":2}", "t.json: /target_rel: expected a number in [1e-05, 0.5], got 2", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"noise_floor\":-0.01}", "t.json: /noise_floor: expected a number in [0, 0.5], got -0.01", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"heat_seconds\":3}", "t.json: /heat_seconds: expected a number in [0, 2], got 3", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"quick\":{\"grid\":[{\"m\":[1]}],\"metric_sample_s\":-0.1}}",
         "t.json: /quick/metric_sample_s: expected a number in [0, 10], got -0.1", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"quick\":{\"grid\":[{\"m\":[1]}],\"noise_floor\":\"1%\"}}",
         "t.json: /quick/noise_floor: expected a finite number, got string", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"quick\":{\"grid\":[{\"m\":[1]}],\"cudnn_knob_cap\":-1}}",
         "t.json: /quick/cudnn_knob_cap: expected an integer in [0, 1000], got -1", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}]}",
         "t.json: --quick asks for the \"quick\" subset, but the spec has no /quick", true},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"quick\":{\"grid\":[{\"m\":[1]}],\"cells\":1}}", "cells", true},
        /* the grid that does not run is checked too */
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[0]}],"
         "\"quick\":{\"grid\":[{\"m\":[1]}]}}", "t.json: /grid/0: cell m=0", true},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"quick\":{\"grid\":[{\"m\":[0]}]}}", "t.json: /quick/grid/0: cell m=0", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"schema\":\"x\",\"families\":[\"gemm\"],\"grid\":[]}",
         "schema", false},
        /* build_threads, at the top and in the quick subset */
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"build_threads\":65}", "t.json: /build_threads: expected an integer in [0, 64], got 65", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"build_threads\":-1}", "t.json: /build_threads: expected an integer in [0, 64], got -1", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"build_threads\":2.5}", "t.json: /build_threads: expected an integer, got number 2.5", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"build_threads\":\"4\"}", "t.json: /build_threads: expected an integer, got string", false},
        {"{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{\"m\":[1]}],"
         "\"quick\":{\"grid\":[{\"m\":[1]}],\"build_threads\":100}}",
         "t.json: /quick/build_threads: expected an integer in [0, 64], got 100", false},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gdt_sweep_spec *sp = parse(bad[i].text, bad[i].quick, GDT_STATUS_BAD_INPUT, bad[i].msg);
        gdt_sweep_spec_destroy(sp);
    }
}

static void test_files(void)
{
    gdt_sweep_spec *sp = NULL;
    gdt_error e = {0};
    CHECK_INT(gdt_sweep_spec_load("gemm", GDT_TEST_DATA "/sweeps/bad_tied.json", false, &sp, &e),
              ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "bad_tied.json: /grid/0/n,k/1: expected an array of 2 values");
    CHECK_INT(gdt_sweep_spec_load("gemm", GDT_TEST_DATA "/sweeps/none.json", false, &sp, &e), ==,
              GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "--spec: ");
    CHECK_CONTAINS(e.msg, "none.json");
    /* A spec of gemm cells asked for sdpa has no cell to measure. */
    CHECK_INT(gdt_sweep_spec_load("sdpa", GDT_TEST_DATA "/sweeps/tiny_gemm.json", false, &sp, &e),
              ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "tiny_gemm.json: no cell of family \"sdpa\"");
    CHECK_INT(gdt_sweep_spec_load("gemm", GDT_TEST_DATA "/sweeps/tiny_gemm.json", false, &sp, &e),
              ==, GDT_STATUS_OK);
    if (sp) {
        CHECK_INT(sp->ncells, ==, 2);
        CHECK_INT(sp->nbursts, ==, 2);
    }
    gdt_sweep_spec_destroy(sp);
}

int main(void)
{
    test_defaults();
    test_grid_and_shard();
    test_build_threads();
    test_errors();
    test_files();
    return gdt_test_result("test_sweep_spec");
}
