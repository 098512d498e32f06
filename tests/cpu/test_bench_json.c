/* `gdtune bench --format json` without a GPU: the document's parts, built
 * in process from hand-filled records (problem, device, plan id, outputs,
 * gdt_measure_result, clocks), print as valid JSON holding the schema and
 * every field with the value put in; on the command line, without a device,
 * --format json exits 1 with today's stderr message and an empty stdout,
 * and a bad --format value is bad usage. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_bench_json.h"
#include "gdt_cuda.h"
#include "gdt_measure.h"
#include "gdt_verify.h"
#include "gdt_test.h"

#define FLOPS (2.0 * 256 * 192 * 128)

/* Printed and parsed back: what a reader of stdout would get.  Takes o. */
static cJSON *reparse(cJSON *o)
{
    char *text = cJSON_PrintUnformatted(o);
    cJSON *back = text ? cJSON_Parse(text) : NULL;
    if (!back)
        fprintf(stderr, "not valid JSON: %s\n", text ? text : "(null)");
    CHECK(back != NULL);
    free(text);
    cJSON_Delete(o);
    return back;
}

static const cJSON *get(const cJSON *o, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, "."))
        o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k)) : cJSON_GetObjectItemCaseSensitive(o, k);
    if (!o)
        fprintf(stderr, "missing: %s\n", path);
    return o;
}

#define CHECK_JSTR(o, path, want) CHECK_STR(cJSON_GetStringValue(get(o, path)), want)
#define CHECK_JNUM(o, path, want)                                                   \
    do {                                                                            \
        const cJSON *n_ = get(o, path);                                             \
        double w_ = (want);                                                         \
        CHECK(cJSON_IsNumber(n_));                                                  \
        CHECK_NEAR(cJSON_IsNumber(n_) ? n_->valuedouble : NAN, w_, 1e-9 * fabs(w_)); \
    } while (0)

static gdt_problem small_gemm(void)
{
    gdt_problem p;
    gdt_error e = {0};
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "m=256,n=192,k=128,dtype=bf16", &p, &e), ==, GDT_STATUS_OK);
    return p;
}

static void test_doc(void)
{
    gdt_problem p = small_gemm();
    gdt_device_props dev = {.arch = 90, .sm_count = 132, .name = "Test H200"};
    char key[512];
    gdt_problem_key(&p, key, sizeof key);
    cJSON *doc = reparse(gdt__bench_doc(&p, &dev, 12080, 12060, 90800));
    CHECK_JSTR(doc, "schema", "gdtune.bench/2");
    CHECK_JSTR(doc, "gdtune_version", GDT_VERSION_STRING);
    CHECK_JSTR(doc, "problem.family", "gemm");
    CHECK_JSTR(doc, "problem.key", key);
    CHECK_JNUM(doc, "problem.flops", FLOPS);
    CHECK_JSTR(doc, "device.name", "Test H200");
    CHECK_JNUM(doc, "device.arch", 90);
    CHECK_JNUM(doc, "device.sm_count", 132);
    CHECK_JNUM(doc, "device.driver_version", 12080);
    CHECK_JNUM(doc, "device.cuda_version", 12060);
    CHECK_JNUM(doc, "device.cudnn_version", 90800);
    CHECK(cJSON_IsArray(get(doc, "plans")) && cJSON_GetArraySize(get(doc, "plans")) == 0);
    cJSON_Delete(doc);
}

static void test_plan(void)
{
    gdt_plan_id id;
    gdt_error e = {0};
    char name[512];
    CHECK_INT(gdt_plan_id_parse("gemm.nvrtc[KERNEL_CFG=3]", &id, &e), ==, GDT_STATUS_OK);
    gdt_plan_id_format(&id, name, sizeof name);
    cJSON *o = reparse(gdt__bench_plan_json(&id, 7, 40, 12.5, 4096));
    CHECK_JSTR(o, "name", name);
    CHECK_JNUM(o, "engine_id", (double)id.engine_id);
    CHECK_JNUM(o, "index", 7);
    CHECK_JNUM(o, "plans_listed", 40);
    CHECK_JNUM(o, "build_ms", 12.5);
    CHECK_JNUM(o, "workspace_bytes", 4096);
    cJSON_Delete(o);
    o = reparse(gdt__bench_plan_json(&id, -1, 40, 1, 0)); /* replayed by name */
    CHECK(cJSON_IsNull(get(o, "index")));
    cJSON_Delete(o);
}

static void test_verified(void)
{
    gdt_problem p = small_gemm();
    double err[4] = {1.5e-3};
    cJSON *o = reparse(gdt__bench_verified_json(&p, NULL, false, err, 1));
    CHECK_JSTR(o, "against", "cpu_fp64");
    CHECK(!cJSON_HasObjectItem(o, "reference_plan"));
    CHECK_JSTR(o, "metric", "relative_l2");
    CHECK_JNUM(o, "errors.C", 1.5e-3);
    CHECK_JNUM(o, "bound", gdt_dtype_tolerance(GDT_DTYPE_BF16));
    CHECK_JSTR(o, "dtype", "bf16");
    CHECK(!cJSON_HasObjectItem(o, "reference_checked_cpu"));
    cJSON_Delete(o);
    o = reparse(gdt__bench_verified_json(&p, "cudnn.eng0[KERNEL_CFG=3]", true, err, 1));
    CHECK_JSTR(o, "against", "cudnn");
    CHECK_JSTR(o, "reference_plan", "cudnn.eng0[KERNEL_CFG=3]");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "reference_checked_cpu")));
    cJSON_Delete(o);
    /* sdpa_bwd names its three outputs in family order. */
    gdt_problem q;
    gdt_error e;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_BWD, "b=1,h=2,s=64,d=64,dtype=fp16", &q, &e), ==, GDT_STATUS_OK);
    const double bwd[4] = {1e-3, 2e-3, 3e-3};
    o = reparse(gdt__bench_verified_json(&q, NULL, false, bwd, 3));
    CHECK_JNUM(o, "errors.dQ", 1e-3);
    CHECK_JNUM(o, "errors.dK", 2e-3);
    CHECK_JNUM(o, "errors.dV", 3e-3);
    CHECK_JSTR(o, "dtype", "fp16");
    CHECK_JNUM(o, "bound", gdt_dtype_tolerance(GDT_DTYPE_FP16));
    cJSON_Delete(o);
}

static void test_measure(void)
{
    gdt_measure_result *r = calloc(1, sizeof *r);
    gdt_measure_clocks c = {.rated_mhz = 1980, .min_mhz = 1875, .max_mhz = 1980, .probes = 57,
                            .threshold = 0.9};
    r->nbursts = 2;
    r->bursts[0] = (gdt_burst_result){.burst = 1, .n = 3, .total_us = {10, 12, 11}, .median_host_us = 2.5,
                                      .median_device_us = 8, .rel_spread = 0.01, .dropped = 1};
    r->bursts[1] = (gdt_burst_result){.burst = 8, .n = 1, .total_us = {9}, .median_host_us = 1.25,
                                      .median_device_us = 6.5, .rel_spread = INFINITY};
    r->ncold = 2, r->cold_us[0] = 20, r->cold_us[1] = 22, r->median_cold_us = 21;
    r->converged = true, r->seconds = 0.75;
    cJSON *o = reparse(gdt__bench_measure_json(cJSON_CreateObject(), r, &c, FLOPS));
    CHECK_INT(cJSON_GetArraySize(get(o, "bursts")), ==, 2);
    CHECK_JNUM(o, "bursts.0.burst", 1);
    CHECK_JNUM(o, "bursts.0.median_host_us", 2.5);
    CHECK_JNUM(o, "bursts.0.median_device_us", 8);
    CHECK_JNUM(o, "bursts.0.median_total_us", 11);
    CHECK_JNUM(o, "bursts.0.tflops", FLOPS / 8 / 1e6);
    CHECK_JNUM(o, "bursts.0.rel_spread", 0.01);
    CHECK_JNUM(o, "bursts.0.n", 3);
    CHECK_JNUM(o, "bursts.0.dropped", 1);
    CHECK_JNUM(o, "bursts.1.burst", 8);
    CHECK_JNUM(o, "bursts.1.median_device_us", 6.5);
    CHECK(cJSON_IsNull(get(o, "bursts.1.rel_spread"))); /* one sample: no spread, still valid JSON */
    CHECK_JNUM(o, "cold.median_device_us", 21);
    CHECK_JNUM(o, "cold.n", 2);
    CHECK(cJSON_IsTrue(get(o, "converged")));
    CHECK_JNUM(o, "seconds", 0.75);
    CHECK_JNUM(o, "clock.rated_mhz", 1980);
    CHECK_JNUM(o, "clock.min_mhz", 1875);
    CHECK_JNUM(o, "clock.max_mhz", 1980);
    CHECK_JNUM(o, "clock.probes", 57);
    CHECK_JNUM(o, "clock.threshold", 0.9);
    cJSON_Delete(o);
    r->ncold = 0, r->converged = false;
    o = reparse(gdt__bench_measure_json(cJSON_CreateObject(), r, &c, FLOPS));
    CHECK(cJSON_IsNull(get(o, "cold")) && cJSON_IsFalse(get(o, "converged")));
    cJSON_Delete(o);
    free(r);
}

static void test_best_and_ratio(void)
{
    cJSON *o = reparse(gdt__bench_best_json(4, 2, "gemm.nvrtc[KERNEL_CFG=3]", 20000, 5, FLOPS));
    CHECK_JNUM(o, "tried", 4);
    CHECK_JNUM(o, "index", 2);
    CHECK_JSTR(o, "name", "gemm.nvrtc[KERNEL_CFG=3]");
    CHECK_JNUM(o, "engine_id", 20000);
    CHECK_JNUM(o, "time_us", 5);
    CHECK_JNUM(o, "tflops", FLOPS / 5 / 1e6);
    cJSON_Delete(o);
    o = reparse(gdt__bench_ratio_json("mine", 4, "cudnn.eng0", 5, FLOPS));
    CHECK_JSTR(o, "plan", "mine");
    CHECK_JNUM(o, "plan_tflops", FLOPS / 4 / 1e6);
    CHECK_JSTR(o, "cudnn_plan", "cudnn.eng0");
    CHECK_JNUM(o, "cudnn_tflops", FLOPS / 5 / 1e6);
    CHECK_JNUM(o, "ratio", 0.8); /* the plan's time over cuDNN's */
    cJSON_Delete(o);
}

/* Without a device --format json changes nothing the user sees: same exit
 * code, same one stderr line, no document (stdout and stderr are captured
 * together, so equal output means stdout is empty). */
static void test_cli(void)
{
    static char text[4096], json[4096];
    char *t[] = {(char *)gdt_test_exe(), "bench", "gemm", NULL};
    char *j[] = {(char *)gdt_test_exe(), "bench", "gemm", "--format", "json", NULL};
    char *bad[] = {(char *)gdt_test_exe(), "bench", "gemm", "--format", "xml", NULL};
    CHECK_INT(gdt_test_spawn(bad, NULL, json, sizeof json), ==, 2);
    CHECK_CONTAINS(json, "gdtune bench: --format: bad value \"xml\": expected one of text, json");
    if (gdt__device_present()) {
        fprintf(stderr, "test_bench_json: a device is present; the no-device run is tests/gpu's\n");
        return;
    }
    CHECK_INT(gdt_test_spawn(t, NULL, text, sizeof text), ==, 1);
    CHECK_INT(gdt_test_spawn(j, NULL, json, sizeof json), ==, 1);
    CHECK_CONTAINS(json, "gdtune bench: no CUDA device: ");
    CHECK_STR(json, text);
    CHECK(!strchr(json, '{'));
}

/* `test_bench_json doc`: a whole document on stdout, assembled from the
 * builders as cli/cli_bench.c assembles them for `--count --vs-cudnn
 * --floor` (a plan that failed included), for tests/cpu/test_fields.py to
 * hold against docs/fields.md without a GPU. */
static int print_doc(void)
{
    gdt_problem p = small_gemm();
    gdt_device_props dev = {.arch = 90, .sm_count = 132, .name = "Test H200"};
    gdt_measure_clocks c = {.rated_mhz = 1980, .min_mhz = 1875, .max_mhz = 1980, .probes = 57, .threshold = 0.9};
    gdt_measure_result *r = calloc(1, sizeof *r);
    gdt_plan_id id;
    gdt_error e = {0};
    double err[1] = {1e-3};
    if (!r || gdt_plan_id_parse("gemm.nvrtc[KERNEL_CFG=3]", &id, &e) != GDT_STATUS_OK)
        return 1;
    r->nbursts = 1;
    r->bursts[0] = (gdt_burst_result){.burst = 1, .n = 2, .total_us = {10, 12}, .median_host_us = 2.5,
                                      .median_device_us = 8, .rel_spread = 0.01};
    r->ncold = 1, r->cold_us[0] = 20, r->median_cold_us = 20;
    cJSON *doc = gdt__bench_doc(&p, &dev, 12080, 12060, 90800), *plans = cJSON_GetObjectItem(doc, "plans");
    cJSON *plan = gdt__bench_plan_json(&id, 0, 2, 1.5, 0);
    cJSON_AddItemToObject(plan, "verified", gdt__bench_verified_json(&p, "cudnn.eng0", true, err, 1));
    cJSON_AddItemToArray(plans, gdt__bench_measure_json(plan, r, &c, FLOPS));
    cJSON *failed = cJSON_CreateObject(); /* as scan_failed writes a plan that did not build */
    cJSON_AddStringToObject(failed, "name", "gemm.nvrtc[KERNEL_CFG=4]");
    cJSON_AddNumberToObject(failed, "engine_id", (double)id.engine_id);
    cJSON_AddNumberToObject(failed, "index", 1);
    cJSON_AddStringToObject(failed, "error", "did not build");
    cJSON_AddItemToArray(plans, failed);
    cJSON_AddItemToObject(doc, "best", gdt__bench_best_json(2, 0, "gemm.nvrtc[KERNEL_CFG=3]", id.engine_id, 8,
                                                            FLOPS));
    cJSON_AddItemToObject(doc, "ratio", gdt__bench_ratio_json("gemm.nvrtc[KERNEL_CFG=3]", 8, "cudnn.eng0", 10,
                                                              FLOPS));
    gdt__bench_measure_json(cJSON_AddObjectToObject(doc, "floor"), r, &c, 0);
    char *text = cJSON_Print(doc);
    int rc = text && puts(text) >= 0 ? 0 : 1;
    free(text);
    cJSON_Delete(doc);
    free(r);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "doc"))
        return print_doc();
    test_doc();
    test_plan();
    test_verified();
    test_measure();
    test_best_and_ratio();
    test_cli();
    return gdt_test_result("test_bench_json");
}
