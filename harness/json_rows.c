/* A record's JSON object from its rows (gdt_json_rows.h). */
#include <math.h>

#include "gdt_json_rows.h"

static cJSON *row_value(const char *rec, const gdt_json_row *r)
{
    const void *at = rec + r->at;
    switch (r->kind) {
    case GDT_JSON_ROW_STR: return cJSON_CreateString(*(const char *const *)at);
    case GDT_JSON_ROW_CHARS: return cJSON_CreateString(at);
    case GDT_JSON_ROW_INT: return cJSON_CreateNumber(*(const int *)at);
    case GDT_JSON_ROW_NUM: return cJSON_CreateNumber(*(const double *)at);
    case GDT_JSON_ROW_BOOL: return cJSON_CreateBool(*(const bool *)at);
    case GDT_JSON_ROW_NUM_IF: {
        double v = *(const double *)at;
        return *(const bool *)(rec + r->when) && isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
    }
    case GDT_JSON_ROW_POSITIVE: {
        double v = *(const double *)at;
        return v > 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull();
    }
    case GDT_JSON_ROW_FINITE: {
        double v = *(const double *)at;
        return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
    }
    }
    return NULL;
}

void gdt_json_rows_add(cJSON *o, const void *rec, const gdt_json_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cJSON *v = row_value(rec, &rows[i]);
        if (v && !cJSON_AddItemToObject(o, rows[i].key, v))
            cJSON_Delete(v);
    }
}

cJSON *gdt_json_rows_object(const void *rec, const gdt_json_row *rows, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    if (o)
        gdt_json_rows_add(o, rec, rows, n);
    return o;
}
