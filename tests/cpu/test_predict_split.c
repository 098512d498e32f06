/* The time model's view of a split-K plan: its facts are a batch of
 * SPLIT_K GEMMs over K / SPLIT_K (other families and one split unchanged),
 * and a model fitted on a split-K plan and its unsplit twin that follow
 * that law puts the split one first where the unsplit tiles leave SMs
 * idle, and the unsplit one first where they fill the device. */
#include <stdio.h>
#include <string.h>

#include "facts_support.h"
#include "gdt_predict.h"
#include "gdt_test.h"

static void test_split_facts(void)
{
    gdt_facts f, run;
    test_facts(GDT_FAMILY_GEMM, "m=128,n=4096,k=14336", 90, &f);
    gdt__facts_split_k(&f, 4, &run);
    CHECK_INT(run.problem.u.gemm.k, ==, 3584);
    CHECK_INT(run.problem.u.gemm.batch, ==, 4);
    CHECK_INT(run.problem.u.gemm.m, ==, 128);
    CHECK(run.flops == f.flops);
    gdt__facts_split_k(&f, 3, &run); /* K rounded up: the last slice pads */
    CHECK_INT(run.problem.u.gemm.k, ==, 4779);
    gdt__facts_split_k(&f, 1, &run);
    CHECK(!memcmp(&run, &f, sizeof f));
    test_facts(GDT_FAMILY_SDPA_FWD, "b=1,h=8,s=1024,d=128", 90, &f);
    gdt__facts_split_k(&f, 4, &run);
    CHECK(!memcmp(&run, &f, sizeof f));
}

static gdt_plan_id hand(int64_t split)
{
    gdt_plan_id id = {.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 10)};
    gdt_plan_id_set_knob(&id, GDT_KNOB_TILE_M, 128);
    gdt_plan_id_set_knob(&id, GDT_KNOB_TILE_N, 128);
    if (split > 1) gdt_plan_id_set_knob(&id, GDT_KNOB_SPLIT_K, split);
    return id;
}

/* Whole waves of work units (tiles x splits) over 132 SMs, each a slice of
 * K, the reduction of the partial C tiles, plus a launch floor. */
static double law(int64_t split, int64_t m, int64_t n, int64_t k)
{
    int64_t units = ((m + 127) / 128) * ((n + 127) / 128) * split;
    double reduce = split > 1 ? (double)(m * n * split) / 2e5 : 0;
    return 3.0 + (double)((units + 131) / 132) * (double)((k + split - 1) / split) / 100.0 + reduce;
}

enum { NCELLS = 6 };
static const int64_t shapes[NCELLS][3] = {{128, 4096, 8192}, {256, 4096, 4096}, {512, 8192, 8192},
                                          {2048, 4096, 4096}, {4096, 4096, 8192}, {128, 8192, 16384}};

static void test_split_fit(void)
{
    gdt__train_cell c[NCELLS];
    gdt_measured_plan mp[NCELLS][2];
    char shape[96];
    for (int i = 0; i < NCELLS; i++) {
        snprintf(shape, sizeof shape, "m=%lld,n=%lld,k=%lld", (long long)shapes[i][0], (long long)shapes[i][1],
                 (long long)shapes[i][2]);
        test_facts(GDT_FAMILY_GEMM, shape, 90, &c[i].facts);
        for (int s = 0; s < 2; s++)
            mp[i][s] = (gdt_measured_plan){.id = hand(s ? 4 : 1), .mode = GDT_MODE_A, .untimed_position = s,
                                           .time_us = law(s ? 4 : 1, shapes[i][0], shapes[i][1], shapes[i][2]),
                                           .noise = 0.002, .host_us = 4, .samples = 10};
        c[i].plans = mp[i], c[i].nplans = 2;
    }
    gdt__predictor m;
    gdt_error e;
    CHECK_INT(gdt__predictor_fit(GDT_FAMILY_GEMM, 90, c, NCELLS, NULL, 0, &m, &e), ==, GDT_STATUS_OK);
    static const char *const held[2] = {"m=128,n=4096,k=14336", "m=8192,n=8192,k=4096"};
    for (int h = 0; h < 2; h++) {
        gdt_facts f;
        double t[2];
        gdt_plan_id one = hand(1), four = hand(4);
        test_facts(GDT_FAMILY_GEMM, held[h], 90, &f);
        CHECK(gdt__predict_time(&m, &f, &one, &t[0]) && gdt__predict_time(&m, &f, &four, &t[1]));
        if (h == 0) CHECK(t[1] < 0.5 * t[0]);
        else CHECK(t[0] < t[1]);
    }
    gdt__predictor_clear(&m);
}

int main(void)
{
    test_split_facts();
    test_split_fit();
    return gdt_test_result("test_predict_split");
}
