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
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_record.h"
#include "gdt_run.h"
#include "gdt_run_write.h"
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
        cJSON_AddStringToObject(p, "plan", name);
        cJSON_AddNumberToObject(p, "engine_id", i);
        cJSON_AddObjectToObject(p, "knobs");
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
        /* argv: none on the header (as before the field), empty on the resume */
        check_ok(gdt_run_write_resume(j, "2026-01-02T04:05:06Z", INT_MAX, h.gpus, 0,
                                      (gdt_run_argv){h.gpus, 0}, &e), &e);
    }
    CHECK(j && device && plans && spec->ncells == 2);
    gdt_journal_close(j);
    cJSON_Delete(device);
    cJSON_Delete(plans);
    cJSON_Delete(null);
}

/* The typed result fields hold what the records hold: every optional
 * field present (plan 0), empty arrays (plan 1), none (plan 9, failed by
 * the sweep: NaN and NULL, never 0). */
static void check_typed_results(const gdt_run_cell *c)
{
    const gdt_run_result *top = &c->result[0], *empty = &c->result[1], *none = &c->result[9];
    CHECK(top->journaled && top->raced_late && !top->converged && empty->converged);
    CHECK_NEAR(top->build_s, HOURS_S, 0);
    CHECK_NEAR(top->measure_s, HOURS_S, 0);
    CHECK_NEAR(top->heat_mhz, 1980, 0);
    CHECK_INT(top->nerr, ==, 3);
    CHECK_NEAR(top->verify_err[0], 1e300, 0);
    CHECK_INT(top->nbursts, ==, 2);
    if (top->nbursts == 2) {
        const gdt_run_burst *b = &top->bursts[0];
        CHECK(b->burst == 1 && b->nhost == 64 && b->ndevice == 64 && b->ntotal == 64 && b->nclock == 64);
        CHECK(b->dropped == INT_MAX && b->device_us[1] == HOUR_US && b->clock_mhz[0] == 1e-3);
        CHECK_NEAR(b->median_device_us, HOUR_US, 0);
        CHECK_NEAR(b->rel_spread, 1e6, 0);
        CHECK(gdt_run_largest_burst(top) == &top->bursts[1] && top->bursts[1].ndevice == 3);
    }
    CHECK(top->cold_us && top->ncold == 1 && empty->cold_us && empty->ncold == 0);
    CHECK(empty->has_verify_err && empty->nerr == 0 && empty->nbursts == 2 && empty->bursts[1].ndevice == 0);
    CHECK(top->clocks.recorded && top->clocks.rated_mhz == 1980 && top->clocks.max_mhz == 3000);
    const gdt_run_traced *t = &top->traced;
    const gdt_cupti_kernel *k = &t->c.main;
    CHECK(t->recorded && t->burst == GDT_BURST_MAX && !strcmp(k->name, "sm90_xmma_gemm"));
    CHECK(k->grid[0] == INT_MAX && k->block[0] == 1024 && k->cluster[0] == 16 && k->registers == 255);
    CHECK(k->smem == INT_MAX && t->c.gap_us == -HOUR_US && t->c.span_us == HOUR_US && k->share == 1);
    CHECK(none->journaled && none->disposition == GDT_DISP_FAILED && isnan(none->build_s));
    CHECK(isnan(none->heat_s) && isnan(none->clocks.min_mhz) && !none->clocks.recorded);
    CHECK(!none->has_verify_err && none->nbursts == 0 && !none->cold_us && !none->traced.recorded);
    CHECK(!gdt_run_largest_burst(none));
}

/* The typed header: no argv (as before the field), a null prior, the
 * device's left-out figures 0, a value by JSON pointer. */
static void check_typed_header(const gdt_run *r)
{
    char *v = NULL, *absent = NULL;
    gdt_error e = {0};
    CHECK(r->argc == 0 && !r->prior.recorded && r->dev.l2_bytes == 0);
    CHECK(!strcmp(r->spec_source, r->spec->source) && !strcmp(r->spec_digest, r->spec->digest));
    check_ok(gdt_run_header_value(r, "/options/bursts", &v, &e), &e);
    check_ok(gdt_run_header_value(r, "/options/planted", &absent, &e), &e);
    CHECK_STR(v ? v : "", "[1,2,4,8,16,64,1024,4096]");
    CHECK(!absent);
    free(v);
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
    CHECK_NEAR(c->result[0].heat_s, HEAT_S, 0);
    CHECK_NEAR(c->result[1].heat_s, 2.018, 0);
    CHECK_NEAR(c->prebuild_s, 900, 0);
    CHECK(c->result[8].has_verify_err && c->result[8].nerr == 2 && isnan(c->result[8].verify_err[0]));
    CHECK_INT(c->rounds.nplans, ==, GDT_ROUNDS_PLANS_MAX);
    CHECK_INT(c->rounds.rounds, ==, GDT_ROUNDS_MAX);
    CHECK(c->rounds.journaled);
    CHECK_NEAR(c->rounds.measure_s, GDT_ROUNDS_PLANS_MAX * HOURS_S, 0);
    check_typed_results(c);
    check_typed_header(r);
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

/* A traced kernel's grid of 2 numbers: the writer refuses it, the reader
 * would (gdt_run_traced holds x, y and z). */
static void check_refused_dims(gdt_journal *j, const char *dir)
{
    cJSON *rep = full_reply(0);
    cJSON *k = cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "cupti"), "kernel");
    cJSON_DeleteItemFromArray(cJSON_GetObjectItem(k, "grid"), 2);
    gdt_run_result_rec res = result_rec(0, GDT_DISP_VERIFIED, rep);
    gdt_error e = {0};
    int before = journal_lines(dir);
    CHECK_INT(gdt_run_write_result(j, &res, &e), ==, GDT_STATUS_INTERNAL);
    CHECK_CONTAINS(e.msg, "/cupti/kernel/grid: expected 3 numbers (x, y, z), got ");
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
        check_refused_dims(j, dir);
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
        CHECK_NEAR(r->cells[0].result[0].heat_s, 2.018, 0);
    gdt_run_destroy(r);
    free(text);
}

/* ------------------------------------------- plan index at the count */

#define FIXTURE GDT_TEST_DATA "/journals/heat_overshoot.journal.jsonl"

/* The fixture with its attempt and result (lines 4 and 5) naming plan pi
 * (with that plan's name when it has one), written to DIR/journal.jsonl. */
static void write_plan_index(const char *dir, int pi)
{
    char *text = NULL, path[PATH_MAX];
    size_t len = 0;
    gdt_journal_lines l = {0};
    CHECK_INT(gdt_file_read(FIXTURE, &text, &len, NULL), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_journal_parse(text ? text : "", len, FIXTURE, &l, NULL), ==, GDT_STATUS_OK);
    CHECK_INT(mkdir(dir, 0755), ==, 0);
    snprintf(path, sizeof path, "%s/%s", dir, GDT_JOURNAL_NAME);
    FILE *f = fopen(path, "w");
    const cJSON *plans = l.n == 5 ? gdt_json_get(l.rec[2], "plans") : NULL;
    const char *name = gdt_json_str_or(cJSON_GetArrayItem(plans, pi), "name", "no such plan");
    for (int i = 0; f && i < l.n; i++) {
        if (i >= 3) {
            cJSON_ReplaceItemInObject(l.rec[i], "plan", cJSON_CreateNumber(pi));
            cJSON_ReplaceItemInObject(l.rec[i], "name", cJSON_CreateString(name));
        }
        char *line = cJSON_PrintUnformatted(l.rec[i]);
        fprintf(f, "%s\n", line);
        free(line);
    }
    CHECK(f && plans);
    if (f)
        fclose(f);
    gdt_journal_lines_free(&l);
    free(text);
}

/* Issue 34 14a: a result naming plan index == the cell's plan count is
 * refused with file:line, JSON path, expected and actual; count - 1 loads,
 * and `gdtune report` reads both without a crash (exit 2, then 0). */
static void test_plan_index_bound(const char *dir)
{
    char at_count[600], below[600], out[8192];
    gdt_run *r = NULL;
    gdt_error e = {0};
    snprintf(at_count, sizeof at_count, "%s/at_count", dir);
    snprintf(below, sizeof below, "%s/below", dir);
    write_plan_index(at_count, 44);
    write_plan_index(below, 43);
    CHECK_INT(gdt_run_load(at_count, &r, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "/journal.jsonl:4: /plan: expected a plan index below 44 (the cell's "
                          "plans), got number 44");
    check_ok(gdt_run_load(below, &r, &e), &e);
    CHECK(r && r->cells[0].result[43].journaled && r->results == 1);
    gdt_run_destroy(r);
    char *report_at[] = {GDTUNE_EXE, "report", at_count, NULL}, *report_below[] = {GDTUNE_EXE, "report", below, NULL};
    CHECK_INT(gdt_test_spawn(report_at, NULL, out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "journal.jsonl:4: /plan: expected a plan index below 44");
    CHECK_INT(gdt_test_spawn(report_below, NULL, out, sizeof out), ==, 0);
}

/* ---------------------------------------- the sweep, a stand-in worker */

/* GDT_CONTRACT_MODE: "extreme" (every plan's reply at the writer's top),
 * "refused" (heat_s -1: the writer refuses it), "family" (the plan list
 * holds an sdpa_fwd engine: the writer takes each record, the journal
 * does not read back), "old" (the plan list in the journals' spelling
 * before 2026-12-06: the wire takes the current one alone). */
static int fake_worker(void)
{
    const char *mode = getenv("GDT_CONTRACT_MODE");
    bool family = mode && !strcmp(mode, "family"), refused = mode && !strcmp(mode, "refused");
    bool old = mode && !strcmp(mode, "old");
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        cJSON *req = cJSON_Parse(line), *rep = NULL;
        const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(req, "op"));
        if (op && !strcmp(op, "hello"))
            rep = cJSON_Parse("{\"op\":\"hello\",\"device\":{\"name\":\"Stand-in GPU\",\"arch\":90,"
                              "\"uuid\":\"GPU-x\",\"device_count\":1}}");
        else if (op && !strcmp(op, "cell")) {
            rep = cJSON_Parse("{\"op\":\"cell\",\"reference\":\"cudnn.eng0\",\"build_threads\":64,"
                              "\"prebuilt\":2,\"prebuild_s\":899}");
            cJSON *plans = plans_json();
            if (family) { /* a named sdpa_fwd engine in a gemm cell */
                cJSON_ReplaceItemInObject(cJSON_GetArrayItem(plans, 1), "engine_id",
                                          cJSON_CreateNumber(GDT_ENGINE_ID_RESERVED_END + GDT_FAMILY_BLOCK));
                cJSON_ReplaceItemInObject(cJSON_GetArrayItem(plans, 1), "plan", cJSON_CreateString("sdpa_fwd.nvrtc"));
            }
            cJSON_ReplaceItemInObject(cJSON_GetArrayItem(plans, 1), "backend", cJSON_CreateBool(!family));
            while (cJSON_GetArraySize(plans) > 2)
                cJSON_DeleteItemFromArray(plans, 2);
            if (old) { /* cudnn.eng1 as {"engine_id":1,"knobs":[],"name":"cudnn.eng1",...} */
                cJSON *p1 = cJSON_GetArrayItem(plans, 1);
                cJSON_AddItemToObject(p1, "name", cJSON_DetachItemFromObject(p1, "plan"));
                cJSON_ReplaceItemInObject(p1, "knobs", cJSON_CreateArray());
            }
            cJSON_AddItemToObject(rep, "plans", plans);
        } else if (op && !strcmp(op, "plan")) {
            rep = full_reply(0);
            if (refused)
                cJSON_ReplaceItemInObject(rep, "heat_s", cJSON_CreateNumber(-1));
        }
        char *txt = rep ? cJSON_PrintUnformatted(rep) : NULL;
        if (txt)
            printf("%s\n", txt);
        fflush(stdout);
        free(txt);
        cJSON_Delete(rep);
        cJSON_Delete(req);
    }
    return 0;
}

static int sweep_with(const char *self, const char *dir, const char *mode, char *out, size_t n)
{
    char spec[600], run[600], tables[600];
    snprintf(spec, sizeof spec, "%s/spec.json", dir);
    snprintf(run, sizeof run, "%s/run-%s", dir, mode);
    snprintf(tables, sizeof tables, "%s/t-%s", dir, mode);
    FILE *f = fopen(spec, "w");
    if (f) {
        fprintf(f, "{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],"
                "\"grid\":[{\"m\":[256],\"n,k\":[[256,256]]}]}");
        fclose(f);
    }
    setenv("GDTUNE_WORKER_EXE", self, 1);
    setenv("GDT_CONTRACT_MODE", mode, 1);
    char *argv[] = {GDTUNE_EXE, "sweep", "gemm", "--spec", spec, "--out", run, "--tables-dir",
                    tables, "--no-prior", "--deadline", "5", NULL};
    int rc = gdt_test_spawn(argv, NULL, out, n);
    unsetenv("GDT_CONTRACT_MODE");
    unsetenv("GDTUNE_WORKER_EXE");
    return rc;
}

static void test_sweep(const char *self, const char *dir)
{
    static char out[65536];
    char run[700];
    gdt_run *r = NULL;
    gdt_error e = {0};
    CHECK_INT(sweep_with(self, dir, "extreme", out, sizeof out), ==, 0);
    snprintf(run, sizeof run, "%s/run-extreme", dir);
    check_ok(gdt_run_load(run, &r, &e), &e);
    CHECK(r && r->counts[GDT_DISP_VERIFIED] == 2);
    gdt_run_destroy(r);
    CHECK_INT(sweep_with(self, dir, "refused", out, sizeof out), ==, 1);
    CHECK_CONTAINS(out, "a result record the reader would refuse, not appended: /heat_s: "
                        "expected a value in [0, 86400], got number -1");
    CHECK_INT(sweep_with(self, dir, "family", out, sizeof out), ==, 1);
    CHECK_CONTAINS(out, "the run's own journal does not read back through the strict reader: ");
    CHECK_CONTAINS(out, "/journal.jsonl:3: /plans/1/engine_id: engine 20100 is not a gdtune engine "
                        "of family gemm");
    CHECK_INT(sweep_with(self, dir, "old", out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "gdtune sweep: worker reply: /plans/1/plan: expected a string, got missing");
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "worker"))
        return fake_worker();
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = 0;
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
    test_plan_index_bound(dir);
    test_sweep(self, dir);
    gdt_sweep_spec_destroy(spec);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_journal_contract");
}
