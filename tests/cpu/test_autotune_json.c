/* `gdtune autotune --format json` (cli/cli_autotune_json.c) from a planted
 * report: each candidate's position, name, side, status word, median (null
 * when not timed) and reason (null when timed); the winner, the first and
 * the heuristic by position (null: no backend plan ran); the winner's
 * median over the first's and the heuristic's; the options' three
 * quotas.  `test_autotune_json doc` prints the document
 * (tests/cpu/test_fields.py holds it against docs/fields.md). */
#include <math.h>

#include "gdt_autotune_json.h"
#include "gdt_test.h"

static gdt_autotune_report planted(void)
{
    gdt_autotune_report r = {.n = 3, .winner = 2, .first = 1, .heuristic = 2};
    r.c[0] = (gdt_autotune_candidate){.index = 0, .id = {.engine_id = 3}, .side = GDT_PLAN_SIDE_BACKEND,
                                      .status = GDT_STATUS_NOT_SUPPORTED, .median_us = NAN};
    snprintf(r.c[0].why, sizeof r.c[0].why, "cudnn.eng3: declined: not for this shape");
    r.c[1] = (gdt_autotune_candidate){.index = 2, .id = {.engine_id = 20000}, .side = GDT_PLAN_SIDE_OURS,
                                      .status = GDT_STATUS_OK, .median_us = 12.0};
    r.c[2] = (gdt_autotune_candidate){.index = 5, .id = {.engine_id = 0}, .side = GDT_PLAN_SIDE_BACKEND,
                                      .status = GDT_STATUS_OK, .median_us = 10.0};
    gdt_plan_id_set_knob(&r.c[2].id, GDT_KNOB_KERNEL_CFG, 1);
    return r;
}

static cJSON *doc_of(const gdt_autotune_report *r, const char *wisdom)
{
    gdt_device_props dev = {.arch = 90};
    gdt_autotune_opts o;
    gdt_autotune_opts_default(&o);
    o.backend = 1, o.library = 2, o.ours = 4; /* each its own */
    snprintf(dev.name, sizeof dev.name, "NVIDIA H200");
    return gdt__autotune_doc("gemm:b1,m192,n4096,k11008,bf16,a=row,b=row", &dev, "tables/sm90", wisdom, &o, r);
}

static const cJSON *at(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

static void test_doc(void)
{
    gdt_autotune_report r = planted();
    cJSON *doc = doc_of(&r, NULL);
    const cJSON *c = at(doc, "candidates");
    CHECK_STR(cJSON_GetStringValue(at(doc, "schema")), "gdtune.autotune/1");
    CHECK_INT(cJSON_GetNumberValue(at(at(doc, "options"), "backend")), ==, 1);
    CHECK_INT(cJSON_GetNumberValue(at(at(doc, "options"), "library")), ==, 2);
    CHECK_INT(cJSON_GetNumberValue(at(at(doc, "options"), "ours")), ==, 4);
    CHECK_INT(cJSON_GetArraySize(c), ==, 3);
    CHECK_STR(cJSON_GetStringValue(at(cJSON_GetArrayItem(c, 0), "status")), "declined");
    CHECK(cJSON_IsNull(at(cJSON_GetArrayItem(c, 0), "median_us")));
    CHECK_CONTAINS(cJSON_GetStringValue(at(cJSON_GetArrayItem(c, 0), "why")), "declined: not for this shape");
    CHECK(cJSON_IsNull(at(cJSON_GetArrayItem(c, 1), "why")));
    CHECK_STR(cJSON_GetStringValue(at(cJSON_GetArrayItem(c, 1), "side")), "ours");
    CHECK_STR(cJSON_GetStringValue(at(cJSON_GetArrayItem(c, 2), "plan")), "cudnn.eng0[KERNEL_CFG=1]");
    CHECK_INT(cJSON_GetNumberValue(at(cJSON_GetArrayItem(c, 2), "index")), ==, 5);
    CHECK_INT(cJSON_GetNumberValue(at(doc, "winner")), ==, 2);
    CHECK_INT(cJSON_GetNumberValue(at(doc, "first")), ==, 1);
    CHECK_NEAR(cJSON_GetNumberValue(at(doc, "winner_over_first")), 10.0 / 12.0, 1e-12);
    CHECK_NEAR(cJSON_GetNumberValue(at(doc, "winner_over_heuristic")), 1.0, 0);
    cJSON_Delete(doc);
    r.heuristic = -1;
    r.c[2].side = GDT_PLAN_SIDE_OURS;
    r.c[1].status = GDT_STATUS_CUDA;
    doc = doc_of(&r, NULL);
    CHECK(cJSON_IsNull(at(doc, "heuristic")));
    CHECK(cJSON_IsNull(at(doc, "winner_over_heuristic")));
    CHECK_STR(cJSON_GetStringValue(at(cJSON_GetArrayItem(at(doc, "candidates"), 1), "status")), "failed");
    CHECK(cJSON_IsNull(at(doc, "wisdom")));
    CHECK(cJSON_IsFalse(at(doc, "from_wisdom")));
    CHECK(cJSON_IsNull(at(doc, "wisdom_measured_utc")));
    cJSON_Delete(doc);
}

/* A winner from the wisdom: said, with its recorded times; no first ran. */
static void test_from_wisdom(void)
{
    gdt_autotune_report r = {.n = 1, .winner = 0, .first = -1, .heuristic = -1, .from_wisdom = true,
                             .wisdom_first_us = 12.0, .wisdom_measured = "2026-12-06T20:40:00Z"};
    r.c[0] = (gdt_autotune_candidate){.index = -1, .id = {.engine_id = 20000}, .side = GDT_PLAN_SIDE_OURS,
                                      .status = GDT_STATUS_OK, .median_us = 9.0};
    cJSON *doc = doc_of(&r, "w.json");
    CHECK_STR(cJSON_GetStringValue(at(doc, "wisdom")), "w.json");
    CHECK(cJSON_IsTrue(at(doc, "from_wisdom")));
    CHECK_STR(cJSON_GetStringValue(at(doc, "wisdom_measured_utc")), "2026-12-06T20:40:00Z");
    CHECK_NEAR(cJSON_GetNumberValue(at(doc, "wisdom_first_median_us")), 12.0, 0);
    CHECK(cJSON_IsNull(at(doc, "first")));
    CHECK_NEAR(cJSON_GetNumberValue(at(doc, "winner_over_first")), 9.0 / 12.0, 1e-12);
    CHECK_INT(cJSON_GetNumberValue(at(cJSON_GetArrayItem(at(doc, "candidates"), 0), "index")), ==, -1);
    cJSON_Delete(doc);
}

static int print_doc(void)
{
    gdt_autotune_report r = planted();
    cJSON *doc = doc_of(&r, "wisdom.json");
    char *text = cJSON_Print(doc);
    if (text) puts(text);
    free(text);
    cJSON_Delete(doc);
    return text ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "doc")) return print_doc();
    test_doc();
    test_from_wisdom();
    return gdt_test_result("test_autotune_json");
}
