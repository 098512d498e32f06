/* A GEMM shape planned on sm90's limits with the caller's options: what
 * the predictor and dispatch tests rank.  Only included, never built
 * alone. */
#ifndef PLAN_SUPPORT_H
#define PLAN_SUPPORT_H

#include "gdt_engines.h"
#include "gdt_test.h"

static inline gdt_graph *test_planned_gemm(const char *shape, const gdt_plan_options *o)
{
    gdt_problem p;
    gdt_device_props dev;
    gdt_graph *g = NULL;
    gdt_error e;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shape, &p, &e), ==, GDT_STATUS_OK);
    CHECK(gdt_arch_limits(90, &dev));
    CHECK_INT(gdt_graph_create(&p, &dev, &g, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_graph_plan(g, o, &e), ==, GDT_STATUS_OK);
    return g;
}

#endif
