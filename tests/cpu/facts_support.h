/* Facts for a shape on an arch's limits, as the planner derives them: what
 * the model, split-K and hand-slot tests start from.  Only included, never
 * built alone. */
#ifndef FACTS_SUPPORT_H
#define FACTS_SUPPORT_H

#include "gdt_engines.h"
#include "gdt_test.h"

static inline void test_facts(gdt_family fam, const char *shape, int arch, gdt_facts *f)
{
    gdt_problem p;
    gdt_device_props dev;
    gdt_error e = {0};
    CHECK(gdt_arch_limits(arch, &dev));
    CHECK_INT(gdt_problem_parse(fam, shape, &p, &e), ==, GDT_STATUS_OK);
    gdt_facts_analyze(&p, &dev, f);
}

#endif
