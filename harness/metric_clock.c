/* The SM clock of a journaled result's metric (gdt_metric_clock.h). */
#include <stdlib.h>

#include "gdt_json.h"
#include "gdt_measure.h"
#include "gdt_metric_clock.h"

const cJSON *gdt_result_largest_burst(const cJSON *result)
{
    const cJSON *best = NULL, *b;
    cJSON_ArrayForEach(b, gdt_json_get(result, "bursts"))
        if (!best || gdt_json_num_or(b, "burst", 0) > gdt_json_num_or(best, "burst", 0))
            best = b;
    return best;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

bool gdt_metric_clock_of(const cJSON *result, gdt_metric_clock *out)
{
    double mhz[GDT_MAX_SAMPLES];
    int n = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, gdt_json_get(gdt_result_largest_burst(result), "clock_mhz"))
        if (cJSON_IsNumber(v) && v->valuedouble > 0 && n < GDT_MAX_SAMPLES)
            mhz[n++] = v->valuedouble;
    if (n == 0)
        return false;
    qsort(mhz, (size_t)n, sizeof *mhz, cmp_double);
    out->samples = n;
    out->median_mhz = n % 2 ? mhz[n / 2] : 0.5 * (mhz[n / 2 - 1] + mhz[n / 2]);
    out->min_mhz = mhz[0], out->max_mhz = mhz[n - 1];
    out->rated_mhz = gdt_json_num_or(gdt_json_get(result, "clocks"), "rated_mhz", 0);
    return true;
}
