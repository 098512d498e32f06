/* Ranks one GEMM shape for sm90 from the installed tables, as `gdtune
 * plans` does, and prints the first entry of each mode block: "MODE NAME"
 * (BACKEND for the unexpanded marker). */
#include <stdio.h>
#include <string.h>

#include <gdtune/plan.h>

static int first(const gdt_problem *p, const gdt_tables *t, gdt_mode mode)
{
    gdt_device_props dev;
    gdt_graph *g = NULL;
    gdt_error e = {0};
    gdt_plan_options o = {.tables = t, .modes = {mode}, .nmodes = 1};
    if (!gdt_arch_limits(90, &dev) || gdt_graph_create(p, &dev, &g, &e) != GDT_STATUS_OK ||
        gdt_graph_plan(g, &o, &e) != GDT_STATUS_OK || gdt_graph_plan_count(g) < 1) {
        fprintf(stderr, "rank: %s\n", e.msg);
        gdt_graph_destroy(g);
        return 1;
    }
    const gdt_plan_entry *x = gdt_graph_plan_at(g, 0);
    char name[1024] = "BACKEND";
    if (!x->is_marker)
        gdt_plan_id_format(&x->id, name, sizeof name);
    printf("%s %s\n", gdt_mode_name(mode), name);
    gdt_graph_destroy(g);
    return 0;
}

int main(int argc, char **argv)
{
    const char *shape = argc > 1 ? argv[1] : "m=128,n=4096,k=4096";
    gdt_problem p;
    gdt_tables *t = NULL;
    gdt_error e = {0};
    if (gdt_problem_parse(GDT_FAMILY_GEMM, shape, &p, &e) != GDT_STATUS_OK ||
        gdt_tables_load(TABLES_DIR, GDT_FAMILY_GEMM, 90, &t, &e) != GDT_STATUS_OK) {
        fprintf(stderr, "rank: %s\n", e.msg);
        return 1;
    }
    int rc = first(&p, t, GDT_MODE_A) || first(&p, t, GDT_MODE_OPENSOURCE);
    gdt_tables_destroy(t);
    return rc;
}
