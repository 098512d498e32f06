/* A cell's fastest verified plans (gdt_cell_top.h). */
#include "gdt_cell_top.h"

const gdt_run_result *gdt_cell_verified(const gdt_run_cell *c, int i)
{
    const gdt_run_result *res = &c->result[i];
    return res->journaled && res->disposition == GDT_DISP_VERIFIED ? res : NULL;
}

static bool raced_out(const gdt_run_cell *c, int i)
{
    return c->result[i].raced_out;
}

int gdt_cell_top3(const gdt_run_cell *c, bool full, int out[3])
{
    int n = 0;
    for (int i = 0; i < c->nplans; i++) {
        if (!gdt_cell_verified(c, i) || (full && raced_out(c, i)))
            continue;
        int k = n < 3 ? n++ : 3;
        while (k > 0 && c->result[i].time_us < c->result[out[k - 1]].time_us) {
            if (k < 3)
                out[k] = out[k - 1];
            k--;
        }
        if (k < 3)
            out[k] = i;
    }
    return n;
}
