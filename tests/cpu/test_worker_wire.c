/* The worker protocol's rows (harness/gdt_wire.h): a request encoded
 * through them is the line the worker has always been sent (the wire
 * format pinned here, so a key renamed in the rows fails), reads back
 * through them, and a key they do not know is refused by name; a result
 * reply's top level holds only keys the journal's result record takes,
 * since the sweep journals the reply as it came; a rounds reply's figures
 * are the journal's rounds record's, key, kind and range. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_measure.h"
#include "gdt_record.h"
#include "gdt_test.h"
#include "gdt_wire.h"
#include "gdt_worker.h"

#define AT "worker request"

/* The request a sweep sends for a raced plan, as the wire carries it. */
static const char plan_line[] =
    "{\"op\":\"plan\",\"plan\":{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":{\"TILE_M\":128}},\"target_rel\":0.005,"
    "\"max_seconds\":2,\"bursts\":[1,4,16,64],\"metric_sample_s\":0.5,\"race_us\":12.5,"
    "\"race_noise\":0.01,\"race_margin\":0.02,\"contender_seconds\":6,\"cupti\":true,"
    "\"heat_s\":0.25}";

static cJSON *plan_request(void)
{
    static const int bursts[] = {1, 4, 16, 64};
    cJSON *req = gdt__wire_new(GDT__WM_PLAN);
    gdt__wire_add(req, GDT__W_PLAN_PLAN,
                  cJSON_Parse("{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":{\"TILE_M\":128}}"));
    gdt__wire_add_num(req, GDT__W_PLAN_TARGET_REL, 0.005);
    gdt__wire_add_num(req, GDT__W_PLAN_MAX_SECONDS, 2.0);
    gdt__wire_add(req, GDT__W_PLAN_BURSTS, cJSON_CreateIntArray(bursts, 4));
    gdt__wire_add_num(req, GDT__W_PLAN_METRIC_SAMPLE_S, 0.5);
    gdt__wire_add_num(req, GDT__W_PLAN_RACE_US, 12.5);
    gdt__wire_add_num(req, GDT__W_PLAN_RACE_NOISE, 0.01);
    gdt__wire_add_num(req, GDT__W_PLAN_RACE_MARGIN, 0.02);
    gdt__wire_add_num(req, GDT__W_PLAN_CONTENDER_SECONDS, 6.0);
    gdt__wire_add_bool(req, GDT__W_PLAN_CUPTI, true);
    gdt__wire_add_num(req, GDT__W_PLAN_HEAT_S, 0.25);
    return req;
}

static void test_plan_round_trip(void)
{
    cJSON *req = plan_request();
    char *txt = cJSON_PrintUnformatted(req);
    CHECK_STR(txt, plan_line);
    cJSON *back = cJSON_Parse(txt);
    gdt_error e = {0};
    CHECK_INT(gdt__wire_known(GDT__WM_PLAN, AT, back, &e), ==, GDT_STATUS_OK);
    CHECK(gdt__wire_is(back, GDT__WM_PLAN));
    CHECK(!gdt__wire_is(back, GDT__WM_CELL));
    const gdt__wire_field f[] = {GDT__W_PLAN_TARGET_REL, GDT__W_PLAN_MAX_SECONDS,
                                 GDT__W_PLAN_RACE_US, GDT__W_PLAN_HEAT_S};
    const double want[] = {0.005, 2.0, 12.5, 0.25};
    for (int i = 0; i < 4; i++) {
        double v = -1;
        CHECK_INT(gdt__wire_number(back, f[i], AT, &v, &e), ==, GDT_STATUS_OK);
        CHECK_NEAR(v, want[i], 0);
    }
    CHECK(gdt__wire_true(back, GDT__W_PLAN_CUPTI));
    free(txt);
    cJSON_Delete(back);
    cJSON_Delete(req);
}

/* A key the rows do not know, a duplicate, a value out of its row's range. */
static void test_refusals(void)
{
    gdt_error e = {0};
    cJSON *req = cJSON_Parse("{\"op\":\"plan\",\"plan\":{},\"target_rell\":0.005}");
    CHECK_INT(gdt__wire_known(GDT__WM_PLAN, AT, req, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "worker request: /target_rell: unknown field \"target_rell\"");
    cJSON_Delete(req);
    req = cJSON_Parse("{\"op\":\"cell\",\"family\":\"gemm\",\"problem\":\"m=64\",\"seed\":1,\"seed\":2}");
    CHECK_INT(gdt__wire_known(GDT__WM_CELL, AT, req, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "worker request: /seed: duplicate field \"seed\"");
    cJSON_Delete(req);
    /* a key of another message is unknown here */
    req = cJSON_Parse("{\"op\":\"hello\",\"rounds\":3}");
    CHECK_INT(gdt__wire_known(GDT__WM_HELLO, AT, req, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "worker request: /rounds: unknown field \"rounds\"");
    cJSON_Delete(req);
    req = cJSON_Parse("{\"op\":\"cell\",\"knob_cap\":1e12}");
    int64_t cap = (int64_t)gdt__wire_def(GDT__W_CELL_KNOB_CAP);
    CHECK_INT(cap, ==, 8);
    CHECK_INT(gdt__wire_int(req, GDT__W_CELL_KNOB_CAP, AT, &cap, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "worker request: /knob_cap: expected an integer in [0, 1000], got 1000000000000");
    CHECK_INT(cap, ==, 8);
    cJSON_Delete(req);
}

/* Every message's rows: "op" first; every table's keys once each. */
static void test_tables(void)
{
    for (int m = 0; m < GDT__WM_COUNT; m++) {
        const gdt__table *t = gdt__wire_table(m);
        CHECK(t->n >= 1);
        if (m < GDT__WM_MESSAGES)
            CHECK_STR(t->f[0].key, "op");
        else
            CHECK(gdt__wire_op(m) == NULL);
        for (int i = 0; i < t->n; i++)
            for (int j = 0; j < i; j++)
                if (!strcmp(t->f[i].key, t->f[j].key)) {
                    fprintf(stderr, "table %d: key \"%s\" twice\n", m, t->f[i].key);
                    gdt_test_failures++;
                }
    }
}

/* The sweep journals a result reply as it came, "op" aside: every other
 * key the reply's rows allow must be a field of the journal's result. */
static void test_result_reply_journals(void)
{
    const gdt__table *rep = gdt__wire_table(GDT__WM_RESULT_R);
    cJSON *o = cJSON_CreateObject();
    for (int i = 1; i < rep->n; i++)
        cJSON_AddNullToObject(o, rep->f[i].key);
    gdt_error e = {0};
    CHECK_INT(gdt__wire_keys(gdt__record_table(GDT_REC_RESULT), "reply", o, &e), ==, GDT_STATUS_OK);
    if (e.msg[0])
        fprintf(stderr, "%s\n", e.msg);
    cJSON_Delete(o);
}

static const gdt__field *field_of(const gdt__table *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->f[i].key, key))
            return &t->f[i];
    return NULL;
}

/* The sweep journals a rounds reply's figures as they came (the call's
 * "seconds" as measure_s): each must be a field of the journal's rounds
 * record of the same kind and range, or a reply the worker may send is one
 * the journal's reader refuses (or the reader takes what no worker sends). */
static void test_rounds_reply_journals(void)
{
    const gdt__table *rep = gdt__wire_table(GDT__WM_ROUNDS_R), *rec = gdt__record_table(GDT_REC_ROUNDS);
    for (int i = 1; i < rep->n; i++) {
        const char *key = strcmp(rep->f[i].key, "seconds") ? rep->f[i].key : "measure_s";
        const gdt__field *r = field_of(rec, key);
        CHECK(r != NULL);
        if (!r)
            continue;
        if (r->kind != rep->f[i].kind || r->lo != rep->f[i].lo || r->hi != rep->f[i].hi) {
            fprintf(stderr, "rounds: \"%s\" is kind %d [%g, %g] in the reply, %d [%g, %g] in the record\n",
                    rep->f[i].key, rep->f[i].kind, rep->f[i].lo, rep->f[i].hi, r->kind, r->lo, r->hi);
            gdt_test_failures++;
        }
        CHECK(!r->required); /* absent from a record whose rounds failed */
    }
}

/* The worker's clocks object, as it writes it, is one the journal takes. */
static void test_clocks_object(void)
{
    gdt_measure_clocks c = {.rated_mhz = 1980, .min_mhz = 1755, .max_mhz = 1980, .probes = 3,
                            .threshold = 0.9};
    cJSON *o = gdt__clocks_json(&c);
    char *txt = cJSON_PrintUnformatted(o);
    CHECK_STR(txt, "{\"rated_mhz\":1980,\"min_mhz\":1755,\"max_mhz\":1980,\"probes\":3,"
                   "\"threshold\":0.9}");
    gdt_error e = {0};
    CHECK_INT(gdt__record_check(gdt__wire_table(GDT__WM_CLOCKS_O), "reply", "/clocks", o, &e), ==,
              GDT_STATUS_OK);
    free(txt);
    cJSON_Delete(o);
}

int main(void)
{
    test_plan_round_trip();
    test_refusals();
    test_tables();
    test_result_reply_journals();
    test_rounds_reply_journals();
    test_clocks_object();
    return gdt_test_result("test_worker_wire");
}
