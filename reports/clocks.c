/* The SM clock of the metric (gdt_clocks.h): per cell, the median clock of
 * the three fastest plans' largest-burst samples and the spread of those
 * medians.  Under the power cap a plan's clock is part of its result (a
 * kernel that draws more power runs at a lower clock), but a series short
 * enough to end before the cap engages measures the boost clock: in the
 * default SDPA sweep of 2026-12-01T20:17Z `cudnn.eng2[KERNEL_CFG=7]` and
 * `cudnn.eng2` (one kernel, the heuristic's config) measured 492.4 and
 * 552.5 us at b8 h32 s2048 d128 causal, at median clocks of 1979 and 1694
 * MHz, and the other way round in the GQA cell beside it. */
#include <math.h>

#include <cjson/cJSON.h>

#include "gdt_cell_top.h"
#include "gdt_clocks.h"
#include "gdt_markdown.h"

bool gdt_clock_gap(const gdt_run_cell *c, const int *plans, int n, double *gap)
{
    double lo = INFINITY, hi = 0;
    int known = 0;
    for (int t = 0; t < n; t++) {
        gdt_metric_clock mc;
        if (!gdt_run_metric_clock(&c->result[plans[t]], &mc))
            continue;
        known++;
        lo = fmin(lo, mc.median_mhz), hi = fmax(hi, mc.median_mhz);
    }
    *gap = known >= 2 ? hi / lo - 1 : NAN;
    return known >= 2;
}

static void plan_cell(FILE *f, const gdt_run_cell *c, int i)
{
    gdt_metric_clock mc;
    fputc(' ', f);
    gdt_md_code(f, c->plan[i].name);
    fprintf(f, " %.2f us", c->result[i].time_us);
    if (gdt_run_metric_clock(&c->result[i], &mc))
        fprintf(f, " at %.0f MHz (%.0f-%.0f)", mc.median_mhz, mc.min_mhz, mc.max_mhz);
    else
        fprintf(f, ", no clock");
    fprintf(f, " |");
}

/* One row; false when the cell has no plan measured in full. */
static bool cell_row(FILE *f, const gdt_run_cell *c, int ci, bool *wide)
{
    int top[3], n = gdt_cell_top3(c, true, top);
    double gap;
    if (n == 0)
        return false;
    fprintf(f, "| %d | %s | %s |", ci, gdt_family_name(c->spec->family), c->spec->shape);
    for (int t = 0; t < 3; t++)
        if (t < n)
            plan_cell(f, c, top[t]);
        else
            fprintf(f, " — |");
    *wide = gdt_clock_gap(c, top, n, &gap) && gap > GDT_CLOCK_GAP;
    if (isnan(gap))
        fprintf(f, " — |\n");
    else
        fprintf(f, " %s%.1f%%%s |\n", *wide ? "**" : "", 100 * gap, *wide ? "**" : "");
    return true;
}

void gdt_clocks_markdown(FILE *f, const gdt_run *run)
{
    int cells = 0, wide_cells = 0;
    fprintf(f, "\n## SM clock of the metric\n\n"
               "Each cell's three fastest verified plans measured in full (not raced out), each "
               "with the median SM clock the probe "
               "read after its largest burst's kept samples (`clock_mhz` in the journal) and their "
               "range. Under the power cap a plan's clock is part of its result, but a series that "
               "ends before the cap engages measures the boost clock, so one kernel can measure "
               "about 10%% apart (docs/method.md, \"The decision metric and the power cap\"). The gap is "
               "the spread of the three medians, in bold over %.0f%%: there the order may be the "
               "clock's.\n\n"
               "| cell | family | shape | 1st | 2nd | 3rd | clock gap |\n|---|---|---|---|---|---|---|\n",
            100 * GDT_CLOCK_GAP);
    for (int ci = 0; ci < run->ncells; ci++) {
        bool wide = false;
        if (run->cells[ci].journaled && cell_row(f, &run->cells[ci], ci, &wide))
            cells++, wide_cells += wide;
    }
    fprintf(f, "\n%d of %d cells' fastest plans were measured at median clocks more than %.0f%% "
               "apart.\n", wide_cells, cells, 100 * GDT_CLOCK_GAP);
}

static cJSON *plan_json(const gdt_run_cell *c, int i)
{
    gdt_metric_clock mc;
    cJSON *o = cJSON_CreateObject();
    bool has = gdt_run_metric_clock(&c->result[i], &mc);
    cJSON_AddStringToObject(o, "plan", c->plan[i].name);
    cJSON_AddNumberToObject(o, "engine_id", (double)c->plan[i].id.engine_id);
    cJSON_AddNumberToObject(o, "time_us", c->result[i].time_us);
    if (has) {
        cJSON_AddNumberToObject(o, "median_mhz", mc.median_mhz);
        cJSON_AddNumberToObject(o, "min_mhz", mc.min_mhz);
        cJSON_AddNumberToObject(o, "max_mhz", mc.max_mhz);
        cJSON_AddNumberToObject(o, "samples", mc.samples);
    } else {
        cJSON_AddNullToObject(o, "median_mhz");
    }
    return o;
}

cJSON *gdt_clocks_json(const gdt_run_cell *c)
{
    int top[3], n = gdt_cell_top3(c, true, top);
    double gap;
    cJSON *o = cJSON_CreateObject(), *plans = cJSON_AddArrayToObject(o, "plans");
    for (int t = 0; t < n; t++)
        cJSON_AddItemToArray(plans, plan_json(c, top[t]));
    if (gdt_clock_gap(c, top, n, &gap))
        cJSON_AddNumberToObject(o, "gap", gap);
    else
        cJSON_AddNullToObject(o, "gap");
    return o;
}
