/* The journal's contract (harness/gdt_record.h): whatever the writer can
 * produce, the strict reader takes.  Records at the writer's extremes (a
 * heat-up past heat_seconds by a burst of several seconds, hours of build
 * and measurement, a call of an hour, counts at their limits, empty
 * optional arrays, every optional field present and absent, a non-finite
 * verification error) go through the real writer and are read back whole;
 * a record the reader would refuse is refused by the writer and not
 * appended.  The committed journal line with heat_s 2.018 (a finished
 * large-shape sweep whose journal emit, compare, report and --resume all
 * refused) loads.  A plan index at its cell's plan count is refused and at
 * count - 1 taken (issue 34 14a).  Last, `gdtune sweep` against a stand-in
 * worker (this executable, `worker` mode): extreme replies end in success
 * with a journal that loads; a reply the writer refuses, or a journal that
 * does not read back, ends in exit 1 naming the JSON path. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_record.h"
#include "gdt_run.h"
#include "gdt_util.h"
#include "gdt_test.h"

/* What the writer can produce, stated apart from the field table: a
 * heat-up of heat_seconds plus one burst of GDT_BURST_MAX calls of 1.5 ms;
 * a contender measured for 3 x (1 + GDT_CONTENDER_FACTOR) x
 * GDT_PLAN_SECONDS_MAX (9 hours) under --deadline GDT_DEADLINE_MAX; one
 * call of an hour; rounds of 8 plans, each up to its plan deadline. */
#define HEAT_S (GDT_HEAT_SECONDS_MAX + GDT_BURST_MAX * 1.5e-3)
#define HOURS_S (3 * (1 + GDT_CONTENDER_FACTOR) * GDT_PLAN_SECONDS_MAX)
#define HOUR_US (GDT_PLAN_SECONDS_MAX * 1e6)
#define NPLANS 10 /* 8 measured in full (the rounds), one declined, one failed */

static void check_ok(gdt_status s, const gdt_error *e)
{
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "  status %d: %s\n", (int)s, e->msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
}

static cJSON *plans_json(void)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < NPLANS; i++) {
        char name[32];
        snprintf(name, sizeof name, "cudnn.eng%d", i);
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "engine_id", i);
        cJSON_AddArrayToObject(p, "knobs");
        cJSON_AddStringToObject(p, "name", name);
        cJSON_AddBoolToObject(p, "backend", true);
        cJSON_AddStringToObject(p, "tag", i ? "B" : "A");
        cJSON_AddNumberToObject(p, "untimed", INT_MAX - i); /* a position past the list: legal */
        cJSON_AddItemToArray(a, p);
    }
    return a;
}

/* A burst at its extremes: GDT_BURST_MAX calls, samples of an hour, or
 * none at all (empty series), every count at its limit. */
static cJSON *burst(int calls, int nsamples)
{
    double v[64];
    for (int i = 0; i < nsamples && i < 64; i++)
        v[i] = i % 2 ? HOUR_US : 1e-3;
    cJSON *b = cJSON_CreateObject();
    cJSON_AddNumberToObject(b, "burst", calls);
    cJSON_AddItemToObject(b, "host_us", cJSON_CreateDoubleArray(v, nsamples));
    cJSON_AddItemToObject(b, "device_us", cJSON_CreateDoubleArray(v, nsamples));
    cJSON_AddItemToObject(b, "total_us", cJSON_CreateDoubleArray(v, nsamples));
    cJSON_AddItemToObject(b, "clock_mhz", cJSON_CreateDoubleArray(v, nsamples));
    cJSON_AddNumberToObject(b, "median_host_us", HOUR_US);
    cJSON_AddNumberToObject(b, "median_device_us", HOUR_US);
    cJSON_AddNumberToObject(b, "rel_spread", 1e6);
    cJSON_AddNumberToObject(b, "dropped", INT_MAX);
    return b;
}

static cJSON *cupti_json(void)
{
    cJSON *c = cJSON_CreateObject(), *k = cJSON_CreateObject();
    static const int grid[] = {INT_MAX, 65535, 65535}, block[] = {1024, 1, 1}, cl[] = {16, 1, 1};
    cJSON_AddNumberToObject(c, "burst", GDT_BURST_MAX);
    cJSON_AddNumberToObject(c, "kernels", 1e6);
    cJSON_AddNumberToObject(c, "kernel_us", HOUR_US);
    cJSON_AddNumberToObject(c, "event_us", HOUR_US);
    cJSON_AddNumberToObject(c, "gap_us", -HOUR_US); /* kernels longer than the events */
    cJSON_AddNumberToObject(c, "span_us", HOUR_US);
    cJSON_AddStringToObject(k, "name", "sm90_xmma_gemm");
    cJSON_AddItemToObject(k, "grid", cJSON_CreateIntArray(grid, 3));
    cJSON_AddItemToObject(k, "block", cJSON_CreateIntArray(block, 3));
    cJSON_AddItemToObject(k, "cluster", cJSON_CreateIntArray(cl, 3));
    cJSON_AddNumberToObject(k, "registers", 255);
    cJSON_AddNumberToObject(k, "smem", INT_MAX);
    cJSON_AddNumberToObject(k, "share", 1);
    cJSON_AddItemToObject(c, "kernel", k);
    return c;
}

/* A verified reply with every optional field the worker writes; variant
 * picks the extremes (0: all at their top, 1: empty optional arrays, the
 * smallest legal values). */
static cJSON *full_reply(int variant)
{
    cJSON *r = cJSON_CreateObject(), *bs = cJSON_CreateArray(), *clk = cJSON_CreateObject();
    double err[] = {1e300, 0, 1e-17};
    cJSON_AddStringToObject(r, "op", "result");
    cJSON_AddItemToObject(r, "verify_err", variant ? cJSON_CreateArray() : cJSON_CreateDoubleArray(err, 3));
    cJSON_AddItemToArray(bs, burst(1, variant ? 1 : 64));
    cJSON_AddItemToArray(bs, burst(GDT_BURST_MAX, variant ? 0 : 3));
    cJSON_AddItemToObject(r, "bursts", bs);
    cJSON_AddItemToObject(r, "cold_us", variant ? cJSON_CreateArray() : cJSON_CreateDoubleArray(&(double){HOUR_US}, 1));
    cJSON_AddNumberToObject(r, "median_cold_us", variant ? 0 : HOUR_US);
    cJSON_AddBoolToObject(r, "converged", variant);
    cJSON_AddBoolToObject(r, "raced_out", false);
    cJSON_AddTrueToObject(r, "raced_late");
    cJSON_AddNumberToObject(r, "race_burst", variant ? 1 : GDT_BURST_MAX);
    cJSON_AddNumberToObject(r, "heat_s", variant ? 2.018 : HEAT_S);
    cJSON_AddNumberToObject(r, "heat_mhz", 1980);
    cJSON_AddNumberToObject(r, "measure_s", variant ? 0 : HOURS_S);
    cJSON_AddNumberToObject(r, "time_us", variant ? 1e-9 : HOUR_US);
    cJSON_AddNumberToObject(r, "noise", variant ? 0 : 1e6);
    cJSON_AddNumberToObject(clk, "rated_mhz", 1980);
    cJSON_AddNumberToObject(clk, "min_mhz", 0);
    cJSON_AddNumberToObject(clk, "max_mhz", 3000);
    cJSON_AddNumberToObject(clk, "probes", 1e6);
    cJSON_AddNumberToObject(clk, "threshold", 1);
    cJSON_AddItemToObject(r, "clocks", clk);
    cJSON_AddItemToObject(r, "cupti", cupti_json());
    cJSON_AddStringToObject(r, "cupti_error", "");
    cJSON_AddStringToObject(r, "disposition", "verified");
    cJSON_AddStringToObject(r, "error", "");
    cJSON_AddNumberToObject(r, "build_s", variant ? 0 : HOURS_S);
    cJSON_AddBoolToObject(r, "fatal", false);
    return r;
}

static gdt_run_result_rec result_rec(int plan, gdt_disposition d, const cJSON *measured)
{
    static char names[NPLANS][32];
    snprintf(names[plan], sizeof names[plan], "cudnn.eng%d", plan);
    return (gdt_run_result_rec){.cell = 1, .plan = plan, .gpu = 15, .family = GDT_FAMILY_GEMM,
                                .name = names[plan], .disposition = d, .error = d ? "why" : "",
                                .measured = measured};
}

/* The results: 8 verified at the extremes, an incorrect one whose output
 * held NaN (verify_err null, as the worker writes it), one failed by the
 * sweep itself (no reply). */
static void write_results(gdt_journal *j, const gdt_sweep_cell *c, gdt_error *e)
{
    for (int pi = 0; pi < NPLANS; pi++) {
        check_ok(gdt_run_write_attempt(j, 1, c, pi, result_rec(pi, 0, NULL).name, e), e);
        cJSON *rep = pi < 8 ? full_reply(pi % 2) : NULL;
        if (pi == 8) {
            rep = cJSON_Parse("{\"op\":\"result\",\"verify_err\":[null,0.5],\"disposition\":"
                              "\"incorrect\",\"error\":\"C: NaN\",\"build_s\":0,\"fatal\":true,"
                              "\"fatal_error\":\"cudaErrorIllegalAddress\"}");
        }
        gdt_disposition d = pi < 8 ? GDT_DISP_VERIFIED : pi == 8 ? GDT_DISP_INCORRECT : GDT_DISP_FAILED;
        gdt_run_result_rec res = result_rec(pi, d, rep);
        check_ok(gdt_run_write_result(j, &res, e), e);
        cJSON_Delete(rep);
    }
}

static void write_rounds(gdt_journal *j, const gdt_sweep_cell *c, gdt_error *e)
{
    static double us[GDT_ROUNDS_MAX];
    for (int i = 0; i < GDT_ROUNDS_MAX; i++)
        us[i] = i % 2 ? HOUR_US : 1e-3;
    gdt_run_rounds_rec r = {.cell = 1, .gpu = 15, .spec = c, .nplans = GDT_ROUNDS_PLANS_MAX,
                            .rounds = GDT_ROUNDS_MAX, .error = "",
                            .seconds = GDT_ROUNDS_PLANS_MAX * HOURS_S};
    for (int i = 0; i < GDT_ROUNDS_PLANS_MAX; i++) {
        r.plans[i] = GDT_ROUNDS_PLANS_MAX - 1 - i;
        r.time_us[i] = i ? HOUR_US : 1e-3;
        r.noise[i] = 0;
        r.ratios[i] = i ? HOUR_US / 1e-3 : 1;
        r.round_us[i] = us;
    }
    check_ok(gdt_run_write_rounds(j, &r, e), e);
}

static gdt_run_header_rec header(const gdt_sweep_spec *spec, const cJSON *device)
{
    static const char *const gpus[] = {"GPU-a", "GPU-b"};
    gdt_run_header_rec h = {
        .started = "2026-01-02T03:04:05Z", .family = "gemm", .spec = spec,
        .candidates_digest = "x", .arch = 90, .device = device, .gpus = gpus, .ngpus = 2,
        .prior = NULL,
        .options = {.bursts = {1, 2, 4, 8, 16, 64, 1024, GDT_BURST_MAX}, .nbursts = GDT_MAX_BURSTS,
                    .target_rel = GDT_TARGET_REL_MIN, .max_plan_seconds = GDT_PLAN_SECONDS_MAX,
                    .deadline = GDT_DEADLINE_MAX, .knob_cap = GDT_KNOB_CAP_MAX, .race = true,
                    .cupti = true, .rounds = GDT_ROUNDS_MAX},
    };
    return h;
}

/* Every record at the writer's extremes, in a sweep's order. */
static void write_extremes(const char *dir, const gdt_sweep_spec *spec)
{
    gdt_journal *j = NULL;
    gdt_error e = {0};
    cJSON *device = cJSON_Parse("{\"name\":\"GPU\",\"arch\":90,\"device_count\":1}");
    cJSON *plans = plans_json(), *null = cJSON_CreateNull();
    check_ok(gdt_journal_open(dir, false, &j, &e), &e);
    if (j && device && plans && null && spec->ncells == 2) {
        gdt_run_header_rec h = header(spec, device);
        h.prior = null;
        bool cpu = false;
        gdt_run_prebuild pb = {GDT_BUILD_THREADS_MAX, INT_MAX, 900.0};
        check_ok(gdt_run_write_header(j, &h, &e), &e);
        check_ok(gdt_run_write_cell(j, 0, &spec->cells[0], &e), &e);
        check_ok(gdt_run_write_cell_error(j, 0, &spec->cells[0], "", &e), &e);
        check_ok(gdt_run_write_cell(j, 1, &spec->cells[1], &e), &e);
        check_ok(gdt_run_write_plans(j, 1, &spec->cells[1], plans, "cudnn.eng0", &cpu, &pb, &e), &e);
        write_results(j, &spec->cells[1], &e);
        write_rounds(j, &spec->cells[1], &e);
        check_ok(gdt_run_write_resume(j, "2026-01-02T04:05:06Z", INT_MAX, h.gpus, 0, &e), &e);
    }
    CHECK(j && device && plans && spec->ncells == 2);
    gdt_journal_close(j);
    cJSON_Delete(device);
    cJSON_Delete(plans);
    cJSON_Delete(null);
}

static void check_extremes(const char *dir)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    check_ok(gdt_run_load(dir, &r, &e), &e);
    if (!r)
        return;
    const gdt_run_cell *c = &r->cells[1];
    CHECK_INT(r->options.nbursts, ==, GDT_MAX_BURSTS);
    CHECK_INT(r->options.rounds, ==, GDT_ROUNDS_MAX);
    CHECK_INT(c->nplans, ==, NPLANS);
    CHECK_INT(r->results, ==, NPLANS);
    CHECK_INT(r->counts[GDT_DISP_VERIFIED], ==, 8);
    CHECK_NEAR(c->result[0].time_us, HOUR_US, 0);
    CHECK_NEAR(gdt_json_num_or(c->result[0].rec, "heat_s", 0), HEAT_S, 0);
    CHECK_NEAR(gdt_json_num_or(c->result[1].rec, "heat_s", 0), 2.018, 0);
    CHECK_NEAR(c->prebuild_s, 900, 0);
    CHECK(cJSON_IsNull(cJSON_GetArrayItem(gdt_json_get(c->result[8].rec, "verify_err"), 0)));
    CHECK_INT(c->rounds.nplans, ==, GDT_ROUNDS_PLANS_MAX);
    CHECK_INT(c->rounds.rounds, ==, GDT_ROUNDS_MAX);
    gdt_run_destroy(r);
}

static int journal_lines(const char *dir)
{
    char path[PATH_MAX];
    gdt_journal_lines l;
    gdt_error e = {0};
    snprintf(path, sizeof path, "%s/%s", dir, GDT_JOURNAL_NAME);
    if (gdt_journal_read(path, &l, &e) != GDT_STATUS_OK)
        return -1;
    int n = l.n;
    gdt_journal_lines_free(&l);
    return n;
}

/* A reply the reader would refuse: the writer says INTERNAL, names the
 * field, and appends nothing. */
static void check_refused(gdt_journal *j, const char *dir, const char *key, double v, const char *want)
{
    cJSON *rep = full_reply(0);
    cJSON_ReplaceItemInObject(rep, key, cJSON_CreateNumber(v));
    gdt_run_result_rec res = result_rec(0, GDT_DISP_VERIFIED, rep);
    gdt_error e = {0};
    int before = journal_lines(dir);
    CHECK_INT(gdt_run_write_result(j, &res, &e), ==, GDT_STATUS_INTERNAL);
    CHECK_CONTAINS(e.msg, "a result record the reader would refuse, not appended");
    CHECK_CONTAINS(e.msg, want);
    CHECK_INT(journal_lines(dir), ==, before);
    cJSON_Delete(rep);
}

static void test_writer_refuses(const char *dir, const gdt_sweep_spec *spec)
{
    gdt_journal *j = NULL;
    gdt_error e = {0};
    cJSON *device = cJSON_Parse("{\"name\":\"GPU\",\"arch\":90}");
    check_ok(gdt_journal_open(dir, false, &j, &e), &e);
    if (j && device) {
        gdt_run_header_rec h = header(spec, device);
        h.options.bursts[1] = 1; /* not increasing */
        CHECK_INT(gdt_run_write_header(j, &h, &e), ==, GDT_STATUS_INTERNAL);
        CHECK_CONTAINS(e.msg, "/options/bursts/1: expected an increasing integer burst size");
        CHECK_INT(journal_lines(dir), ==, 0);
        check_refused(j, dir, "heat_s", -1, "/heat_s: expected a value in [0, 86400], got number -1");
        check_refused(j, dir, "time_us", NAN, "/time_us: expected a value in");
        check_refused(j, dir, "time_us", 0, "/time_us: expected a time above 0 us");
        check_refused(j, dir, "race_burst", GDT_BURST_MAX + 1, "/race_burst: expected a value in [1, 4096]");
        check_refused(j, dir, "measure_s", INFINITY, "/measure_s: expected a value in [0, 86400]");
    }
    gdt_journal_close(j);
    cJSON_Delete(device);
}

/* The committed line of 2026-12-04's large-shape sweep (its plan's own
 * numbers; heat_s 2.018 over heat_seconds 2). */
static void test_committed_overshoot(void)
{
    char *text = NULL;
    size_t len = 0;
    gdt_error e = {0};
    gdt_run *r = NULL;
    check_ok(gdt_file_read(GDT_TEST_DATA "/journals/heat_overshoot.journal.jsonl", &text, &len, &e), &e);
    if (text)
        check_ok(gdt_run_parse(text, len, "heat_overshoot.journal.jsonl", &r, &e), &e);
    CHECK(r && r->results == 1);
    if (r && r->ncells)
        CHECK_NEAR(gdt_json_num_or(r->cells[0].result[0].rec, "heat_s", 0), 2.018, 0);
    gdt_run_destroy(r);
    free(text);
}

int main(int argc, char **argv);

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    char dir[] = "/tmp/gdt_journal_contract_XXXXXX", one[600], two[600];
    gdt_sweep_spec *spec = NULL;
    gdt_error e = {0};
    CHECK(mkdtemp(dir) != NULL);
    check_ok(gdt_sweep_spec_load("gemm", GDT_TEST_DATA "/sweeps/tiny_gemm.json", false, &spec, &e), &e);
    if (spec) {
        snprintf(one, sizeof one, "%s/extremes", dir);
        write_extremes(one, spec);
        check_extremes(one);
        snprintf(two, sizeof two, "%s/refused", dir);
        test_writer_refuses(two, spec);
    }
    test_committed_overshoot();
    gdt_sweep_spec_destroy(spec);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_journal_contract");
}
