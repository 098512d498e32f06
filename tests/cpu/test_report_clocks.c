/* The report's "SM clock of the metric" (reports/clocks.c) on cells built
 * by hand: which burst's clocks count (the largest; a 0 is no clock), the
 * median and range, the gap between the top plans measured in full (a
 * raced-out plan's estimate comes from another burst and is left out),
 * the bold mark over GDT_CLOCK_GAP, the count line and the JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_clocks.h"
#include "gdt_test.h"

/* A verified result: time_us, and clock_mhz of bursts 1 and 64. */
static cJSON *result(double time_us, bool raced_out, const char *clocks64)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"disposition\":\"verified\",\"time_us\":%g,\"raced_out\":%s,\"clocks\":{\"rated_mhz\":1980},"
             "\"bursts\":[{\"burst\":1,\"clock_mhz\":[1000]},{\"burst\":64,\"clock_mhz\":[%s]}]}",
             time_us, raced_out ? "true" : "false", clocks64);
    cJSON *r = cJSON_Parse(text);
    CHECK(r != NULL);
    return r;
}

typedef struct cell_fixture {
    gdt_sweep_cell spec;
    gdt_run_plan plan[4];
    gdt_run_result res[4];
    gdt_run_burst bursts[4][2];
    double mhz[4][2][8];
    gdt_run_cell cell;
} cell_fixture;

/* The same as the run reads it (gdt_run.h): bursts 1 and 64 with their
 * clocks, the rated clock. */
static void add(cell_fixture *f, const char *name, double t, bool raced, const char *clocks64)
{
    int i = f->cell.nplans++, n = 0;
    f->plan[i].name = name;
    f->mhz[i][0][0] = 1000;
    for (char *p = (char *)clocks64, *end; n < 8; p = end + (*end == ',')) {
        double v = strtod(p, &end);
        if (end == p)
            break;
        f->mhz[i][1][n++] = v;
    }
    f->bursts[i][0] = (gdt_run_burst){.burst = 1, .clock_mhz = f->mhz[i][0], .nclock = 1};
    f->bursts[i][1] = (gdt_run_burst){.burst = 64, .clock_mhz = f->mhz[i][1], .nclock = n};
    f->res[i] = (gdt_run_result){.journaled = true, .disposition = GDT_DISP_VERIFIED, .time_us = t,
                                 .raced_out = raced, .clocks = {true, 1980, NAN, NAN},
                                 .bursts = f->bursts[i], .nbursts = 2};
}

static void init(cell_fixture *f, const char *shape)
{
    memset(f, 0, sizeof *f);
    snprintf(f->spec.shape, sizeof f->spec.shape, "%s", shape);
    f->spec.family = GDT_FAMILY_GEMM;
    f->cell = (gdt_run_cell){.journaled = true, .spec = &f->spec, .plan = f->plan, .result = f->res};
}

static void release(cell_fixture *f)
{
    (void)f; /* nothing allocated */
}

static void test_metric_clock(void)
{
    gdt_metric_clock mc;
    cJSON *r = result(10, false, "1979, 0, 1694, 1700, 1710");
    CHECK(gdt_metric_clock_of(r, &mc));
    CHECK_INT(mc.samples, ==, 4); /* the 0 left out; burst 1's 1000 not read */
    CHECK_NEAR(mc.median_mhz, 1705, 1e-9);
    CHECK_NEAR(mc.min_mhz, 1694, 1e-9);
    CHECK_NEAR(mc.max_mhz, 1979, 1e-9);
    CHECK_NEAR(mc.rated_mhz, 1980, 1e-9);
    cJSON_Delete(r);
    r = result(10, false, "0, 0");
    CHECK(!gdt_metric_clock_of(r, &mc));
    cJSON_Delete(r);
    r = cJSON_Parse("{\"disposition\":\"verified\"}");
    CHECK(!gdt_metric_clock_of(r, &mc));
    cJSON_Delete(r);
    cell_fixture f; /* the same of the typed result */
    init(&f, "m=1");
    add(&f, "p", 10, false, "1979, 0, 1694, 1700, 1710");
    add(&f, "q", 10, false, "0, 0");
    CHECK(gdt_run_metric_clock(&f.res[0], &mc));
    CHECK_INT(mc.samples, ==, 4);
    CHECK_NEAR(mc.median_mhz, 1705, 1e-9);
    CHECK_NEAR(mc.rated_mhz, 1980, 1e-9);
    CHECK(!gdt_run_metric_clock(&f.res[1], &mc));
    f.res[0].nbursts = 0;
    CHECK(!gdt_run_metric_clock(&f.res[0], &mc));
}

static void test_section(void)
{
    cell_fixture a, b;
    init(&a, "b=8,s=2048");
    add(&a, "fast_raced", 400, true, "1979");    /* raced out: not in the comparison */
    add(&a, "boost", 492.4, false, "1979, 1974"); /* median 1976.5 */
    add(&a, "capped", 552.5, false, "1694, 1695, 1649");
    add(&a, "slow", 600, false, "1800");
    init(&b, "b=2,s=8192");
    add(&b, "one", 100, false, "1979");
    add(&b, "two", 101, false, "1978");
    gdt_run_cell cells[2] = {a.cell, b.cell};
    gdt_run run = {.cells = cells, .ncells = 2};

    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    gdt_clocks_markdown(f, &run);
    fclose(f);
    /* (1976.5 / 1694 - 1) = 16.7% */
    CHECK_CONTAINS(md, "| 0 | gemm | b=8,s=2048 | `boost` 492.40 us at 1976 MHz (1974-1979) | `capped` 552.50 us at "
                       "1694 MHz (1649-1695) | `slow` 600.00 us at 1800 MHz (1800-1800) | **16.7%** |\n");
    CHECK_CONTAINS(md, "| 1 | gemm | b=2,s=8192 | `one` 100.00 us at 1979 MHz (1979-1979) | `two` 101.00 us at 1978 "
                       "MHz (1978-1978) | — | 0.1% |\n");
    CHECK_CONTAINS(md, "\n1 of 2 cells' fastest plans were measured at median clocks more than 5% apart.\n");
    CHECK(!strstr(md, "fast_raced"));
    free(md);

    cJSON *j = gdt_clocks_json(&cells[0]);
    const cJSON *plans = cJSON_GetObjectItem(j, "plans");
    CHECK_INT(cJSON_GetArraySize(plans), ==, 3);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(plans, 0), "plan")->valuestring, "boost");
    CHECK_NEAR(cJSON_GetObjectItem(cJSON_GetArrayItem(plans, 1), "median_mhz")->valuedouble, 1694, 1e-9);
    CHECK_NEAR(cJSON_GetObjectItem(j, "gap")->valuedouble, 1976.5 / 1694 - 1, 1e-12);
    cJSON_Delete(j);
    release(&a);
    release(&b);
}

/* A cell whose plans record no clock (journals older than clock_mhz). */
static void test_no_clock(void)
{
    cell_fixture a;
    init(&a, "m=1");
    add(&a, "p", 1, false, "0");
    add(&a, "q", 2, false, "0");
    double gap = 0;
    int top[2] = {0, 1};
    CHECK(!gdt_clock_gap(&a.cell, top, 2, &gap));
    CHECK(isnan(gap));
    cJSON *j = gdt_clocks_json(&a.cell);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "gap")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "plans"), 0), "median_mhz")));
    cJSON_Delete(j);
    gdt_run run = {.cells = &a.cell, .ncells = 1};
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    gdt_clocks_markdown(f, &run);
    fclose(f);
    CHECK_CONTAINS(md, "| 0 | gemm | m=1 | `p` 1.00 us, no clock | `q` 2.00 us, no clock | — | — |\n");
    CHECK_CONTAINS(md, "\n0 of 1 cells' fastest plans");
    free(md);
    release(&a);
}

int main(void)
{
    test_metric_clock();
    test_section();
    test_no_clock();
    return gdt_test_result("test_report_clocks");
}
