/* A record's JSON object from its rows (gdt_json_rows.h): each kind's
 * value, members in the rows' order, a NULL string left out, a number
 * behind a false flag or not finite null, a clock of 0 (unknown) null; the
 * FIELD rows keyed by their member's name. */
#include <math.h>
#include <stdlib.h>

#include "gdt_json_rows.h"
#include "gdt_test.h"

typedef struct rec {
    const char *what;
    char name[8];
    int n;
    double x, y, mhz, ratio;
    bool has, on;
} rec;

/* Keyed rows and rows keyed by the member's name (GDT_JSON_FIELD...). */
static const gdt_json_row rows[] = {
    GDT_JSON_FIELD(rec, what),         GDT_JSON_FIELD_TEXT(rec, name),
    GDT_JSON_ROW(rec, "n", n),         GDT_JSON_ROW(rec, "x", x),
    GDT_JSON_ROW(rec, "on", on),       GDT_JSON_FIELD_IF(rec, y, has),
    GDT_JSON_FIELD_POSITIVE(rec, mhz), GDT_JSON_FINITE(rec, "best", ratio),
};

/* rec's object as compact JSON text. */
static void check_text(const rec *r, const char *want)
{
    cJSON *o = gdt_json_rows_object(r, rows, GDT_JSON_ROWS_N(rows));
    char *got = cJSON_PrintUnformatted(o);
    CHECK_STR(got, want);
    free(got);
    cJSON_Delete(o);
}

int main(void)
{
    rec r = {.what = "winner", .name = "ours.a", .n = 3, .x = 1.5, .y = 2.25, .mhz = 1980, .ratio = 1.25,
             .has = true, .on = true};
    check_text(&r, "{\"what\":\"winner\",\"name\":\"ours.a\",\"n\":3,\"x\":1.5,\"on\":true,\"y\":2.25,\"mhz\":1980,"
                   "\"best\":1.25}");
    r = (rec){.name = "", .y = 2.25, .has = false, .ratio = NAN};
    check_text(&r, "{\"name\":\"\",\"n\":0,\"x\":0,\"on\":false,\"y\":null,\"mhz\":null,\"best\":null}");
    r = (rec){.what = "w", .y = INFINITY, .has = true, .mhz = -1, .ratio = -INFINITY};
    check_text(&r, "{\"what\":\"w\",\"name\":\"\",\"n\":0,\"x\":0,\"on\":false,\"y\":null,\"mhz\":null,\"best\":null}");
    cJSON *t = gdt_json_rows_object(&r, rows, GDT_JSON_ROWS_N(rows));
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(t, "y"))); /* a null, not an inf printed as null */
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(t, "best")));
    cJSON_Delete(t);

    /* rows added after members already there */
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "first", "a");
    r = (rec){.n = 7, .y = 4, .has = true, .mhz = 0.5};
    gdt_json_rows_add(o, &r, rows + 2, 4);
    char *got = cJSON_PrintUnformatted(o);
    CHECK_STR(got, "{\"first\":\"a\",\"n\":7,\"x\":0,\"on\":false,\"y\":4}");
    free(got);
    cJSON_Delete(o);
    return gdt_test_result("test_json_rows");
}
