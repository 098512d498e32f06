/* The placement and tuning loader checks values and names (issue 34 F10,
 * F11): each damaged copy of the committed GEMM tables is refused with the
 * file, the JSON path, the expected and the actual value: a noise below 0,
 * a time that is 0 or negative, a ratio that contradicts the stored times
 * (or is there when a side is missing), a control character in a device or
 * plan name, an evidence winner that is not the ranking's first plan, a
 * plan ranked twice, the model's plans out of name order.
 * Every committed table still loads. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

#define TABLES GDT_SOURCE_DIR "/tables"

static char tmp[] = "/tmp/gdt_test_tables_values_XXXXXX";
static char *tuning_text, *placement_text;

static cJSON *parse_file(const char *path, char **text)
{
    size_t len = 0;
    gdt_error e = {0};
    CHECK_INT(gdt_file_read(path, text, &len, &e), ==, GDT_STATUS_OK);
    return *text ? cJSON_Parse(*text) : NULL;
}

static void write_json(const char *path, const cJSON *doc)
{
    char *text = cJSON_Print(doc);
    gdt_error e = {0};
    CHECK(text != NULL);
    if (text) CHECK_INT(gdt_file_write_atomic(path, text, strlen(text), &e), ==, GDT_STATUS_OK);
    free(text);
}

typedef void (*edit_fn)(cJSON *tuning, cJSON *placement);

/* The committed pair with edit applied, loaded: the loader's message
 * ("" when it loads). */
static const char *load_edited(edit_fn edit, char *msg, size_t n)
{
    char tp[512], pp[512];
    cJSON *t = cJSON_Parse(tuning_text), *p = cJSON_Parse(placement_text);
    snprintf(tp, sizeof tp, "%s/gemm.tuning.json", tmp);
    snprintf(pp, sizeof pp, "%s/gemm.placement.json", tmp);
    edit(t, p);
    write_json(tp, t);
    write_json(pp, p);
    cJSON_Delete(t);
    cJSON_Delete(p);
    gdt_tables *tables = NULL;
    gdt_error e = {0};
    gdt_status s = gdt_tables_load_files(tp, pp, &tables, &e);
    gdt_tables_destroy(tables);
    snprintf(msg, n, "%s", s == GDT_STATUS_OK ? "" : e.msg);
    if (s != GDT_STATUS_OK) CHECK_INT(s, ==, GDT_STATUS_BAD_INPUT);
    return msg;
}

static cJSON *cell(cJSON *doc, int i) { return cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cells"), i); }
static cJSON *at(cJSON *o, const char *key) { return cJSON_GetObjectItem(o, key); }
static void set_num(cJSON *o, const char *key, double v) { cJSON_SetNumberValue(at(o, key), v); }
static void set_str(cJSON *o, const char *key, const char *v)
{
    cJSON_ReplaceItemInObject(o, key, cJSON_CreateString(v));
}
static double num(cJSON *o, const char *key) { return cJSON_GetNumberValue(at(o, key)); }

/* ------------------------------------------------------------ the edits */

static void nothing(cJSON *t, cJSON *p) { (void)t, (void)p; }
static void ours_noise(cJSON *t, cJSON *p) { (void)t, set_num(at(cell(p, 0), "best_ours"), "noise", -1); }
static void cell_noise(cJSON *t, cJSON *p) { (void)t, set_num(cell(p, 0), "noise", -1); }
static void backend_time_zero(cJSON *t, cJSON *p) { (void)t, set_num(at(cell(p, 0), "best_backend"), "time_us", 0); }
static void library_time_negative(cJSON *t, cJSON *p) { (void)t, set_num(at(cell(p, 1), "best_library"), "time_us", -5); }
static void ratio_wrong(cJSON *t, cJSON *p) { (void)t, set_num(cell(p, 0), "ratio", 0.5); }

/* The ratio moved by `rel` of the stored times' quotient. */
static double rel;
static void ratio_moved(cJSON *t, cJSON *p)
{
    (void)t;
    cJSON *c = cell(p, 0);
    double q = num(at(c, "best_ours"), "time_us") / num(at(c, "best_backend"), "time_us");
    set_num(c, "ratio", q * (1 + rel));
}

static void backend_gone(cJSON *t, cJSON *p)
{
    (void)t;
    cJSON_ReplaceItemInObject(cell(p, 0), "best_backend", cJSON_CreateNull());
}

static void device_esc(cJSON *t, cJSON *p)
{
    set_str(at(t, "provenance"), "device_name", "NVIDIA\x1b[31mH200");
    set_str(at(p, "provenance"), "device_name", "NVIDIA\x1b[31mH200");
}

static void ranked_bel(cJSON *t, cJSON *p)
{
    (void)p;
    cJSON *r = cJSON_GetArrayItem(at(cell(t, 0), "ranking"), 0);
    char name[512];
    snprintf(name, sizeof name, "%s\a", cJSON_GetStringValue(at(r, "plan")));
    set_str(r, "plan", name);
}

static void best_newline(cJSON *t, cJSON *p)
{
    (void)t;
    set_str(at(cell(p, 0), "best_ours"), "plan", "gemm.hand|x\n| injected | row |");
}

static void winner_swapped(cJSON *t, cJSON *p)
{
    (void)p;
    cJSON *ev = at(cell(t, 0), "evidence");
    set_str(ev, "winner", cJSON_GetStringValue(at(ev, "runner_up")));
}

static void key_esc(cJSON *t, cJSON *p)
{
    (void)p;
    cJSON_AddNumberToObject(at(t, "provenance"), "x\x1b[2Jy", 1);
}

static void runner_up_dropped(cJSON *t, cJSON *p)
{
    (void)p;
    cJSON_ReplaceItemInObject(at(cell(t, 0), "evidence"), "runner_up", cJSON_CreateNull());
}

static void ranked_twice(cJSON *t, cJSON *p)
{
    (void)p;
    cJSON *r = at(cell(t, 0), "ranking");
    cJSON_ReplaceItemInArray(r, 1, cJSON_Duplicate(cJSON_GetArrayItem(r, 0), true));
}

static void model_plans_swapped(cJSON *t, cJSON *p)
{
    (void)t;
    cJSON *plans = at(at(p, "model"), "plans");
    cJSON *first = cJSON_Duplicate(cJSON_GetArrayItem(plans, 0), true);
    cJSON_ReplaceItemInArray(plans, 0, cJSON_Duplicate(cJSON_GetArrayItem(plans, 1), true));
    cJSON_ReplaceItemInArray(plans, 1, first);
}

/* ------------------------------------------------------------ the cases */

typedef struct refusal {
    edit_fn edit;
    const char *file; /* "tuning" or "placement" */
    const char *msg;
} refusal;

static const refusal refusals[] = {
    {ours_noise, "placement", "/cells/0/best_ours/noise: expected noise >= 0, got -1"},
    {cell_noise, "placement", "/cells/0/noise: expected noise >= 0, got -1"},
    {backend_time_zero, "placement", "/cells/0/best_backend/time_us: expected a time > 0, got 0"},
    {library_time_negative, "placement", "/cells/1/best_library/time_us: expected a time > 0, got -5"},
    {ratio_wrong, "placement",
     "/cells/0/ratio: expected 1.01698 (best_ours.time_us / best_backend.time_us = 183.473 / 180.409), got 0.5"},
    {backend_gone, "placement",
     "/cells/0/ratio: expected null (best_ours is measured, best_backend is null), got a number"},
    {device_esc, "tuning",
     "/provenance/device_name: expected text without control characters, got \"NVIDIA\\x1b[31mH200\" "
     "(a control character at byte 6)"},
    {ranked_bel, "tuning", "/cells/0/ranking/0/plan: expected text without control characters, got \"cudnn."},
    {best_newline, "placement",
     "/cells/0/best_ours/plan: expected text without control characters, got \"gemm.hand|x\\n| injected | row |\" "
     "(a control character at byte 11)"},
    {winner_swapped, "tuning", "/cells/0/evidence/winner: expected \"cudnn.eng4[KERNEL_CFG=1]\" (ranking/0), got "
                               "\"gemm.cublaslt[ALGO=66, CLUSTER_SHAPE=3, CUSTOM_OPTION=1, STAGES=35, TILE_SIZE=20]\""},
    {key_esc, "tuning", "/provenance/x\\x1b[2Jy: unknown field \"x\\x1b[2Jy\" (expected one of: device_name"},
    {runner_up_dropped, "tuning", "/cells/0/evidence/runner_up: expected \"gemm.cublaslt[ALGO=66, CLUSTER_SHAPE=3, "
                                  "CUSTOM_OPTION=1, STAGES=35, TILE_SIZE=20]\" (ranking/1), got null"},
    {ranked_twice, "tuning", "/cells/0/ranking/1: plan ranked twice (also at /cells/0/ranking/0)"},
    {model_plans_swapped, "placement", "/model/plans/1/plan: expected plans sorted by name, each once: "
                                       "\"cudnn.eng0\" follows \"cudnn.eng0[KERNEL_CFG=0]\""},
};

static void test_refusals(void)
{
    char msg[2048], want[1024];
    CHECK_STR(load_edited(nothing, msg, sizeof msg), "");
    for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++) {
        const refusal *r = &refusals[i];
        load_edited(r->edit, msg, sizeof msg);
        snprintf(want, sizeof want, "%s/gemm.%s.json: %s", tmp, r->file, r->msg);
        CHECK_CONTAINS(msg, want);
        CHECK(gdt_text_control_find(msg) < 0); /* the message itself is safe to print */
    }
}

/* The writer's %.6g: a ratio within the tolerance of the quotient loads,
 * one past it does not. */
static void test_ratio_tolerance(void)
{
    char msg[2048];
    rel = 2e-6;
    CHECK_STR(load_edited(ratio_moved, msg, sizeof msg), "");
    rel = -2e-6;
    CHECK_STR(load_edited(ratio_moved, msg, sizeof msg), "");
    rel = 3e-5;
    CHECK_CONTAINS(load_edited(ratio_moved, msg, sizeof msg), "/cells/0/ratio: expected 1.01698 (best_ours.time_us / best_backend.time_us");
}

static void test_committed_load(void)
{
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) {
        gdt_tables *t = NULL;
        gdt_error e = {0};
        gdt_status s = gdt_tables_load(TABLES, (gdt_family)f, 90, &t, &e);
        if (s) fprintf(stderr, "%s\n", e.msg);
        CHECK_INT(s, ==, GDT_STATUS_OK);
        gdt_tables_destroy(t);
    }
}

int main(void)
{
    CHECK(mkdtemp(tmp) != NULL);
    cJSON *t = parse_file(TABLES "/sm90/gemm.tuning.json", &tuning_text);
    cJSON *p = parse_file(TABLES "/sm90/gemm.placement.json", &placement_text);
    CHECK(t && p);
    /* the cases name the committed first cell's values */
    CHECK_NEAR(num(at(cell(p, 0), "best_ours"), "time_us"), 183.473, 1e-9);
    CHECK_NEAR(num(at(cell(p, 0), "best_backend"), "time_us"), 180.409, 1e-9);
    cJSON_Delete(t);
    cJSON_Delete(p);
    if (tuning_text && placement_text) {
        test_refusals();
        test_ratio_tolerance();
    }
    test_committed_load();
    free(tuning_text);
    free(placement_text);
    if (!gdt_test_failures) CHECK_INT(gdt_test_remove_tree(tmp), ==, 0);
    return gdt_test_result("test_tables_values");
}
