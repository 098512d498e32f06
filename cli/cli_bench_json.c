/* `gdtune bench --format json` (schema gdtune.bench/2, docs/commands.md: JSON
 * output): the document's parts, built from the records a run fills. */
#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gdt_bench_json.h"
#include "gdt_worker.h"

double gdt__bench_tflops(double flops, double us) { return us > 0 ? flops / us / 1e6 : 0; }

cJSON *gdt__bench_doc(const gdt_problem *p, const gdt_device_props *dev, int driver_version,
                      int cuda_version, int cudnn_version)
{
    cJSON *doc = cJSON_CreateObject();
    char key[512];
    gdt_problem_key(p, key, sizeof key);
    cJSON_AddStringToObject(doc, "schema", "gdtune.bench/2");
    cJSON_AddStringToObject(doc, "gdtune_version", GDT_VERSION_STRING);
    cJSON *o = cJSON_AddObjectToObject(doc, "problem");
    cJSON_AddStringToObject(o, "family", gdt_family_name(p->family));
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddNumberToObject(o, "flops", gdt_problem_flops(p));
    o = cJSON_AddObjectToObject(doc, "device");
    cJSON_AddStringToObject(o, "name", dev->name);
    cJSON_AddNumberToObject(o, "arch", dev->arch);
    cJSON_AddNumberToObject(o, "sm_count", dev->sm_count);
    cJSON_AddNumberToObject(o, "driver_version", driver_version);
    cJSON_AddNumberToObject(o, "cuda_version", cuda_version);
    cJSON_AddNumberToObject(o, "cudnn_version", cudnn_version);
    cJSON_AddArrayToObject(doc, "plans");
    return doc;
}

/* index -1: replayed by name (not picked from the list). */
cJSON *gdt__bench_plan_json(const gdt_plan_id *id, int index, int nplans, double build_ms,
                            size_t workspace)
{
    cJSON *o = cJSON_CreateObject();
    char name[512];
    gdt_plan_id_format(id, name, sizeof name);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "engine_id", (double)id->engine_id);
    if (index >= 0)
        cJSON_AddNumberToObject(o, "index", index);
    else
        cJSON_AddNullToObject(o, "index");
    cJSON_AddNumberToObject(o, "plans_listed", nplans);
    cJSON_AddNumberToObject(o, "build_ms", build_ms);
    cJSON_AddNumberToObject(o, "workspace_bytes", (double)workspace);
    return o;
}

/* ref_plan: the backend plan verified against (cpu_checked: it agreed with
 * the fp64 CPU reference first); NULL: the fp64 CPU reference itself.
 * err: each output's error, in the family's operand order. */
cJSON *gdt__bench_verified_json(const gdt_problem *p, const char *ref_plan, bool cpu_checked,
                                const double *err, int nerr)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = gdt_family_outputs(p->family, roles);
    gdt_dtype dt = gdt_problem_dtype(p);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "against", ref_plan ? "cudnn" : "cpu_fp64");
    if (ref_plan) {
        cJSON_AddStringToObject(o, "reference_plan", ref_plan);
        cJSON_AddBoolToObject(o, "reference_checked_cpu", cpu_checked);
    }
    cJSON_AddStringToObject(o, "metric", "relative_l2");
    cJSON *errs = cJSON_AddObjectToObject(o, "errors");
    for (int i = 0; i < nerr && i < nout; i++)
        cJSON_AddNumberToObject(errs, gdt_operand_name(roles[i]), err[i]);
    cJSON_AddNumberToObject(o, "bound", gdt_dtype_tolerance(dt));
    cJSON_AddStringToObject(o, "dtype", gdt_dtype_name(dt));
    return o;
}

static cJSON *burst_json(const gdt_burst_result *x, double flops)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "burst", x->burst);
    cJSON_AddNumberToObject(o, "median_host_us", x->median_host_us);
    cJSON_AddNumberToObject(o, "median_device_us", x->median_device_us);
    cJSON_AddNumberToObject(o, "median_total_us", gdt_stats_median(x->total_us, x->n));
    cJSON_AddNumberToObject(o, "tflops", gdt__bench_tflops(flops, x->median_device_us));
    cJSON_AddNumberToObject(o, "rel_spread", x->rel_spread);
    cJSON_AddNumberToObject(o, "n", x->n);
    cJSON_AddNumberToObject(o, "dropped", x->dropped);
    return o;
}

/* Adds what print_result prints to o; returns o.  A spread that is not a
 * number (under 2 samples) comes out null, as cJSON writes it. */
cJSON *gdt__bench_measure_json(cJSON *o, const gdt_measure_result *r, const gdt_measure_clocks *c,
                               double flops)
{
    cJSON *bursts = cJSON_AddArrayToObject(o, "bursts");
    for (int i = 0; i < r->nbursts; i++)
        cJSON_AddItemToArray(bursts, burst_json(&r->bursts[i], flops));
    if (r->ncold) {
        cJSON *k = cJSON_AddObjectToObject(o, "cold");
        cJSON_AddNumberToObject(k, "median_device_us", r->median_cold_us);
        cJSON_AddNumberToObject(k, "tflops", gdt__bench_tflops(flops, r->median_cold_us));
        cJSON_AddNumberToObject(k, "rel_spread", gdt_stats_rel_spread(r->cold_us, r->ncold));
        cJSON_AddNumberToObject(k, "n", r->ncold);
    } else {
        cJSON_AddNullToObject(o, "cold");
    }
    cJSON_AddBoolToObject(o, "converged", r->converged);
    cJSON_AddNumberToObject(o, "seconds", r->seconds);
    cJSON_AddItemToObject(o, "clock", gdt__clocks_json(c));
    return o;
}

/* --count: the best of the plans tried (device time at the largest burst). */
cJSON *gdt__bench_best_json(int tried, int index, const char *name, int64_t engine_id, double us,
                            double flops)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "tried", tried);
    cJSON_AddNumberToObject(o, "index", index);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "engine_id", (double)engine_id);
    cJSON_AddNumberToObject(o, "time_us", us);
    cJSON_AddNumberToObject(o, "tflops", gdt__bench_tflops(flops, us));
    return o;
}

/* --vs-cudnn: the ratio, the plan's time over the best cuDNN time (< 1:
 * the plan is faster). */
cJSON *gdt__bench_ratio_json(const char *mine, double mine_us, const char *best, double best_us,
                             double flops)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "plan", mine);
    cJSON_AddNumberToObject(o, "plan_tflops", gdt__bench_tflops(flops, mine_us));
    cJSON_AddStringToObject(o, "cudnn_plan", best);
    cJSON_AddNumberToObject(o, "cudnn_tflops", gdt__bench_tflops(flops, best_us));
    cJSON_AddNumberToObject(o, "ratio", mine_us / best_us);
    return o;
}
