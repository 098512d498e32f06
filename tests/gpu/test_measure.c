/* Measurement of a known workload on the device: a 64 MiB cudaMemsetAsync
 * per execute (device time set by memory bandwidth).  Every burst has every
 * field filled, the device rate is plausible, cold samples are taken, the
 * restore runs before every sample, the clock probe ran.  77 without a
 * device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cuda_runtime.h>

#include "gdt_measure.h"
#include "gdt_test.h"

#define BYTES ((size_t)64 << 20)

typedef struct work {
    void *buf;
    int executes, restores;
} work;

static gdt_status fill(void *ctx, void *stream, gdt_error *e)
{
    work *w = ctx;
    w->executes++;
    cudaError_t r = cudaMemsetAsync(w->buf, w->executes & 0xFF, BYTES, (cudaStream_t)stream);
    return r == cudaSuccess ? GDT_STATUS_OK
                            : gdt_error_set(e, GDT_STATUS_CUDA, "memset: %s", cudaGetErrorName(r));
}

static gdt_status restore(void *ctx, void *stream, gdt_error *e)
{
    (void)stream, (void)e;
    ((work *)ctx)->restores++;
    return GDT_STATUS_OK;
}

static gdt_status failing(void *ctx, void *stream, gdt_error *e)
{
    (void)ctx, (void)stream;
    return gdt_error_set(e, GDT_STATUS_CUDA, "test: execute refused on purpose");
}

static void check_burst(const gdt_burst_result *b, int want_burst, int min_samples)
{
    CHECK_INT(b->burst, ==, want_burst);
    CHECK_INT(b->n, >=, min_samples);
    for (int i = 0; i < b->n; i++) {
        CHECK(b->host_us[i] > 0 && b->device_us[i] > 0);
        CHECK(b->total_us[i] >= b->host_us[i]);
    }
    CHECK(b->median_device_us > 0 && b->median_host_us > 0);
    CHECK(isfinite(b->rel_spread) && b->rel_spread >= 0);
    /* 64 MiB written at 1..10 TB/s: 7..70 us per call */
    if (want_burst >= 4)
        CHECK(b->median_device_us > 5 && b->median_device_us < 200);
    fprintf(stderr, "burst %2d: n %3d host %.2f us device %.2f us spread %.4f dropped %d\n", b->burst,
            b->n, b->median_host_us, b->median_device_us, b->rel_spread, b->dropped);
}

/* --format json (stderr dropped): stdout is one document with the schema,
 * the plan verified against the sweep's reference (a small shape: the first
 * mode-A cuDNN plan, itself checked against the fp64 CPU reference) and one
 * entry per burst. */
static void test_bench_json(void)
{
    static char out[1 << 16];
    const char *end = NULL;
    /* braces: gdt_test_run's own 2>&1 would otherwise undo the 2>/dev/null */
    int rc = gdt_test_run("{ " GDTUNE_EXE " bench gemm --shape m=256,n=192,k=128 --max-seconds 0.5"
                          " --bursts 1,8 --format json 2>/dev/null; }", out, sizeof out);
    CHECK_INT(rc, ==, 0);
    cJSON *doc = cJSON_ParseWithOpts(out, &end, false);
    while (end && *end == '\n')
        end++;
    if (!doc || !end || *end)
        fprintf(stderr, "bench --format json: stdout is not one JSON document:\n%s\n", out);
    CHECK(doc && end && !*end);
    const cJSON *plan = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "plans"), 0);
    const cJSON *bursts = cJSON_GetObjectItem(plan, "bursts"), *b8 = cJSON_GetArrayItem(bursts, 1);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "schema")), "gdtune.bench/2");
    CHECK(cJSON_GetStringValue(cJSON_GetObjectItem(plan, "name")) != NULL);
    const cJSON *ver = cJSON_GetObjectItem(plan, "verified");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(ver, "against")), "cudnn");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(ver, "reference_checked_cpu")));
    CHECK_INT(cJSON_GetArraySize(bursts), ==, 2);
    CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(b8, "burst")), ==, 8);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(b8, "median_device_us")) > 0);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(b8, "tflops")) > 0);
    cJSON_Delete(doc);
}

/* The bench verb: bad usage exits 2 with or without a device; without one
 * it says so and exits 1; with one a small GEMM is verified against a cuDNN
 * plan checked against the fp64 reference, and measured, every burst
 * printed. */
static void test_bench_cli(bool device)
{
    static char out[1 << 16];
    CHECK_INT(gdt_test_run(GDTUNE_EXE " bench gemm --shape m=0", out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "--shape: shape: m=0");
    CHECK_INT(gdt_test_run(GDTUNE_EXE " bench gemm --bursts 1,,4", out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "--bursts: bad value \"1,,4\": item 2 is empty");
    CHECK_INT(gdt_test_run(GDTUNE_EXE " bench gemm --plan gemm.nvrtc --index 2", out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "--plan names one plan");
    CHECK_INT(gdt_test_run(GDTUNE_EXE " bench --help", out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "usage: gdtune bench FAMILY");
    if (!device) {
        CHECK_INT(gdt_test_run(GDTUNE_EXE " bench gemm", out, sizeof out), ==, 1);
        CHECK_CONTAINS(out, "gdtune bench: no CUDA device");
        CHECK_INT(gdt_test_run("{ " GDTUNE_EXE " bench gemm --format json 2>/dev/null; }", out, sizeof out), ==, 1);
        CHECK_STR(out, "");
        return;
    }
    int rc = gdt_test_run(GDTUNE_EXE " bench gemm --shape m=256,n=192,k=128 --max-seconds 0.5 --bursts 1,8",
                          out, sizeof out);
    fprintf(stderr, "%s", out);
    CHECK_INT(rc, ==, 0);
    CHECK_CONTAINS(out, "verified:  against cudnn.");
    CHECK_CONTAINS(out, " (itself checked against the fp64 CPU reference): C ");
    CHECK_CONTAINS(out, "\n     8 ");
    test_bench_json();
}

/* A against B in interleaved rounds (gdtune compare): the ratio printed. */
/* A/B's median ratio of the rounds; *spread: their relative spread. */
static double ab_ratio(const char *shape, double *spread)
{
    static char out[1 << 16];
    char cmd[512];
    snprintf(cmd, sizeof cmd, GDTUNE_EXE " compare gemm --shape %s --plan cudnn.eng0 "
             "--plan 'cudnn.eng0[KERNEL_CFG=0]' --rounds 10 --bursts 1,16 --max-seconds 0.2", shape);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    fprintf(stderr, "%s", out);
    const char *r = strstr(out, "\nratio:");
    const char *sp = r ? strstr(r, "spread ") : NULL;
    *spread = sp ? atof(sp + 7) : 0;
    return r ? atof(r + 7) : 0;
}

/* A planted slowdown (gdt_plant.h) as the worker and the A/B time it: 10%
 * on A moves A's time over B's by 1.10 within 3%, on a GEMM of about 60 us
 * and one of 0.35 ms (H100), whatever the burst (whole extra calls gave
 * none at the rounds' burst 4 at 10%).  Not at 13 us: the spin's launch
 * alone adds about 2 us there, more than 10%.  The band widens to the two
 * A/Bs' mean round spread where that is more (an H100 at its power cap
 * spread 8% at 0.35 ms and gave x1.069 once), at most to 8%: a plant that
 * did nothing (x1.0) fails whatever the noise.  x is a ratio of two medians,
 * so their errors add in quadrature: the band is the two spreads' root sum
 * of squares (their mean, used before, failed an H100 whose plain A/B of
 * one plan against itself drifted to 0.946 in rounds spread 4.6%: x1.155
 * against a band of 0.051, 0.072 in quadrature). */
static void test_plant_ab(void)
{
    const char *shapes[] = {"m=1024,n=4096,k=4096", "m=2048,n=8192,k=8192"};
    for (int i = 0; i < 2; i++) {
        double sp_plain = 0, sp_planted = 0;
        double plain = ab_ratio(shapes[i], &sp_plain);
        setenv("GDTUNE_ENABLE_PLANT", "1", 1);
        setenv("GDTUNE_PLANT_SLOWDOWN", "cudnn.eng0=0.1", 1);
        double planted = ab_ratio(shapes[i], &sp_planted);
        unsetenv("GDTUNE_PLANT_SLOWDOWN");
        unsetenv("GDTUNE_ENABLE_PLANT");
        double x = plain > 0 ? planted / plain : 0;
        double band = fmin(0.08, fmax(0.03, hypot(sp_plain, sp_planted)));
        fprintf(stderr, "test_measure: 10%% planted on cudnn.eng0 at %s: A/B %.4f -> %.4f (x%.4f, band %.3f)\n",
                shapes[i], plain, planted, x, band);
        CHECK(fabs(x - 1.10) < band);
    }
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        test_bench_cli(false);
        if (gdt_test_failures)
            return gdt_test_result("test_measure");
        fprintf(stderr, "test_measure: no CUDA device, skipped\n");
        return GDT_TEST_SKIP;
    }
    work w = {0};
    cudaStream_t s;
    CHECK_INT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), ==, cudaSuccess);
    CHECK_INT(cudaMalloc(&w.buf, BYTES), ==, cudaSuccess);
    gdt_measure_opts o;
    gdt_measure_opts_default(&o);
    o.cold = true;
    o.max_seconds = 3.0;
    gdt_measure_result *r = calloc(1, sizeof *r);
    gdt_measure_clocks clk;
    gdt_error e = {0};
    gdt_exec_fn fn = {fill, &w}, rs = {restore, &w};
    gdt_status st = gdt_measure_trials(&fn, &rs, s, &o, r, &clk, &e);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    if (st != GDT_STATUS_OK)
        fprintf(stderr, "%s\n", e.msg);
    CHECK_INT(r->nbursts, ==, 4);
    for (int i = 0; i < r->nbursts; i++)
        check_burst(&r->bursts[i], o.bursts[i], o.min_samples);
    CHECK_INT(r->ncold, >=, o.min_samples);
    CHECK(r->median_cold_us > 5);
    CHECK(r->seconds > 0 && r->seconds < 3 * o.max_seconds);
    int samples = r->ncold, dropped = 0;
    for (int i = 0; i < r->nbursts; i++)
        samples += r->bursts[i].n, dropped += r->bursts[i].dropped;
    CHECK_INT(w.restores, >=, samples + dropped); /* once before every sample */
    double noise = -1, best = gdt_measure_best_us(r, &noise);
    CHECK(best == r->bursts[3].median_device_us && noise == r->bursts[3].rel_spread);
    CHECK(clk.probes > samples && clk.rated_mhz > 0 && clk.min_mhz > 0 && clk.max_mhz >= clk.min_mhz);
    fprintf(stderr, "cold %.2f us (n %d), converged %d, %.2f s; clock %.0f..%.0f MHz of %.0f rated, "
                    "%d probes; %.1f GB/s at burst 64\n",
            r->median_cold_us, r->ncold, r->converged, r->seconds, clk.min_mhz, clk.max_mhz,
            clk.rated_mhz, clk.probes, BYTES / r->bursts[3].median_device_us / 1e3);

    /* a heat-up runs the largest burst before its series and reads the clock
     * after it; that series then keeps every sample, even with a threshold
     * (the rated clock itself) that drops nearly every other one */
    o.heat_seconds = 0.05;
    CHECK_INT(setenv("GDTUNE_CLOCK_THRESHOLD", "1", 1), ==, 0);
    CHECK_INT(gdt_measure_trials(&fn, &rs, s, &o, r, &clk, &e), ==, GDT_STATUS_OK);
    CHECK_INT(unsetenv("GDTUNE_CLOCK_THRESHOLD"), ==, 0);
    CHECK(r->heat_s >= 0.05 && r->heat_s < 1.0 && r->heat_mhz > 0);
    CHECK_INT(r->nbursts, ==, 4);
    CHECK_INT(r->bursts[3].n, >=, 2);
    CHECK_INT(r->bursts[3].dropped, ==, 0);
    fprintf(stderr, "heat-up %.3f s, then %.0f MHz; burst 64 %.2f us, %d samples, none dropped; "
                    "bursts 1, 4, 16 dropped %d, %d, %d\n",
            r->heat_s, r->heat_mhz, r->bursts[3].median_device_us, r->bursts[3].n, r->bursts[0].dropped,
            r->bursts[1].dropped, r->bursts[2].dropped);
    o.heat_seconds = 0;

    /* an execute that fails stops the measurement with its own message */
    gdt_exec_fn bad = {failing, NULL};
    CHECK_INT(gdt_measure(&bad, s, &o, r, &e), ==, GDT_STATUS_CUDA);
    CHECK_STR(e.msg, "test: execute refused on purpose");
    free(r);
    test_bench_cli(true);
    test_plant_ab();
    cudaFree(w.buf);
    cudaStreamDestroy(s);
    return gdt_test_result("test_measure");
}
