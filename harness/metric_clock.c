/* The SM clock of a journaled result's metric, and clock outliers
 * (gdt_metric_clock.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_json.h"
#include "gdt_measure.h"
#include "gdt_metric_clock.h"
#include "gdt_run.h"
#include "gdt_util.h"
#include "gdt_wire.h"

/* The reply's burst of the largest size (the metric's), NULL when none. */
static const cJSON *largest_burst(const cJSON *result)
{
    const cJSON *best = NULL, *b;
    cJSON_ArrayForEach(b, gdt__wire_get(result, GDT__W_RESULT_R_BURSTS))
        if (!best || gdt__wire_num_or(b, GDT__W_BURST_BURST, 0) > gdt__wire_num_or(best, GDT__W_BURST_BURST, 0))
            best = b;
    return best;
}

/* The figures of the n clocks read (above 0) and the rated clock; false
 * when none was read. */
static bool clock_of(double *mhz, int n, double rated_mhz, gdt_metric_clock *out)
{
    if (n == 0)
        return false;
    out->samples = n;
    out->median_mhz = gdt_median_inplace(mhz, n); /* mhz sorted */
    out->min_mhz = mhz[0], out->max_mhz = mhz[n - 1];
    out->rated_mhz = rated_mhz;
    return true;
}

bool gdt_metric_clock_of(const cJSON *result, gdt_metric_clock *out)
{
    double mhz[GDT_MAX_SAMPLES];
    int n = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, gdt__wire_get(largest_burst(result), GDT__W_BURST_CLOCK_MHZ))
        if (cJSON_IsNumber(v) && v->valuedouble > 0 && n < GDT_MAX_SAMPLES)
            mhz[n++] = v->valuedouble;
    return clock_of(mhz, n, gdt__wire_num_or(gdt__wire_get(result, GDT__W_RESULT_R_CLOCKS), GDT__W_CLOCKS_RATED_MHZ, 0),
                    out);
}

bool gdt_run_metric_clock(const gdt_run_result *res, gdt_metric_clock *out)
{
    const gdt_run_burst *b = gdt_run_largest_burst(res);
    double mhz[GDT_MAX_SAMPLES];
    int n = 0;
    for (int i = 0; b && b->clock_mhz && i < b->nclock; i++)
        if (b->clock_mhz[i] > 0 && n < GDT_MAX_SAMPLES)
            mhz[n++] = b->clock_mhz[i];
    return clock_of(mhz, n, isnan(res->clocks.rated_mhz) ? 0 : res->clocks.rated_mhz, out);
}

/* ------------------------------------------------------ clock outliers */

static bool verified(const cJSON *result)
{
    return !strcmp(gdt_json_str_or(result, gdt__wire_key(GDT__W_RESULT_R_DISPOSITION), ""), "verified");
}

gdt_series_clock gdt_series_clock_of(const cJSON *result)
{
    bool estimate = gdt__wire_true(result, GDT__W_RESULT_R_RACED_OUT) &&
                    !gdt__wire_true(result, GDT__W_RESULT_R_RACED_LATE);
    gdt_series_clock s = {estimate ? GDT_SERIES_ESTIMATE : GDT_SERIES_METRIC, 0};
    gdt_metric_clock mc;
    if (verified(result) && gdt_metric_clock_of(result, &mc))
        s.mhz = mc.median_mhz;
    return s;
}

gdt_series_clock gdt_run_series_clock(const struct gdt_run_result *res)
{
    gdt_series_clock s = {res->raced_out && !res->raced_late ? GDT_SERIES_ESTIMATE : GDT_SERIES_METRIC, 0};
    gdt_metric_clock mc;
    if (res->journaled && res->disposition == GDT_DISP_VERIFIED && gdt_run_metric_clock(res, &mc))
        s.mhz = mc.median_mhz;
    return s;
}

void gdt_cell_clocks(const gdt_series_clock *s, int n, double cell_mhz[GDT_SERIES_KINDS])
{
    double *mhz = malloc(sizeof *mhz * (size_t)(n > 0 ? n : 1));
    for (int k = 0; k < GDT_SERIES_KINDS; k++) {
        int m = 0;
        for (int i = 0; mhz && i < n; i++)
            if (s[i].kind == (gdt_series_kind)k && s[i].mhz > 0)
                mhz[m++] = s[i].mhz;
        cell_mhz[k] = m ? gdt_median_inplace(mhz, m) : 0; /* out of memory: no clock, no outlier */
    }
    free(mhz);
}

bool gdt_clock_outlier(gdt_series_clock s, const double cell_mhz[GDT_SERIES_KINDS])
{
    double cell = (unsigned)s.kind < GDT_SERIES_KINDS ? cell_mhz[s.kind] : 0;
    return s.mhz > 0 && cell > 0 && s.mhz < GDT_CLOCK_OUTLIER * cell;
}

bool gdt_clock_again_counts(double first_us, const cJSON *again, const double cell_mhz[GDT_SERIES_KINDS])
{
    if (!strcmp(gdt_json_str_or(again, gdt__wire_key(GDT__W_RESULT_R_DISPOSITION), ""), "incorrect"))
        return true;
    if (!verified(again))
        return false;
    if (!gdt_clock_outlier(gdt_series_clock_of(again), cell_mhz))
        return true;
    return gdt__wire_num_or(again, GDT__W_RESULT_R_TIME_US, 0) < first_us;
}

/* ------------------------------------------------------ time at the cell's clock */

/* FLOPs per byte the problem must move at least. */
static double intensity(const gdt_problem *p)
{
    double bytes = gdt_problem_bytes(p);
    return bytes > 0 ? gdt_problem_flops(p) / bytes : 0;
}

bool gdt_problem_clock_bound(const gdt_problem *p)
{
    return intensity(p) >= GDT_CLOCK_BOUND_INTENSITY;
}

double gdt_time_at_clock(double us, double mhz, double cell_mhz)
{
    return cell_mhz > 0 && mhz > 0 ? us * mhz / cell_mhz : us;
}

double gdt_run_cell_mhz(const gdt_run_cell *c)
{
    if (!gdt_problem_clock_bound(&c->spec->problem))
        return 0;
    gdt_series_clock *sc = malloc(sizeof *sc * (size_t)(c->nplans + 1));
    double cell_mhz[GDT_SERIES_KINDS] = {0};
    for (int pi = 0; sc && pi < c->nplans; pi++)
        sc[pi] = gdt_run_series_clock(&c->result[pi]);
    gdt_cell_clocks(sc, sc ? c->nplans : 0, cell_mhz); /* out of memory: no clock */
    free(sc);
    return cell_mhz[GDT_SERIES_METRIC];
}

double gdt_run_time_at_cell_clock(const gdt_run_cell *c, int pi, double cell_mhz)
{
    const gdt_run_result *res = &c->result[pi];
    return gdt_time_at_clock(res->time_us, gdt_run_series_clock(res).mhz, cell_mhz);
}
