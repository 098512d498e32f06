/* What an emission read and wrote (gdt_emit_report) as the JSON of the
 * `tables emit`, `merge` and `sweep` summaries (gdt_cli_summary.h). */
#include <stdio.h>
#include <stdlib.h>

#include "gdt_cli_summary.h"
#include "gdt_json.h"
#include "gdt_json_rows.h"
#include "gdt_util.h"

/* o's key copied into to (JSON null where o has none). */
static void copy_key(cJSON *to, const cJSON *o, const char *key)
{
    const cJSON *v = gdt_json_get(o, key);
    cJSON_AddItemToObject(to, key, v ? cJSON_Duplicate(v, true) : cJSON_CreateNull());
}

cJSON *gdt__cli_table_model_json(const char *path)
{
    static const char *const keys[] = {"form", "lambda", "lead", "cv", "interval", "validation"};
    cJSON *doc = path ? gdt_cli_json_read(path) : NULL;
    const cJSON *model = gdt_json_get(doc, "model");
    cJSON *o = cJSON_IsObject(model) ? cJSON_CreateObject() : cJSON_CreateNull();
    for (size_t i = 0; cJSON_IsObject(model) && i < sizeof keys / sizeof *keys; i++)
        copy_key(o, model, keys[i]);
    cJSON_Delete(doc);
    return o;
}

static const gdt_json_row table_rows[] = {
    GDT_JSON_FIELD(gdt_emit_table, cells),
    GDT_JSON_FIELD(gdt_emit_table, tuning),
    GDT_JSON_FIELD(gdt_emit_table, placement),
};

static cJSON *table_json(const gdt_emit_table *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "family", gdt_family_name(t->family));
    gdt_json_rows_add(o, t, table_rows, GDT_JSON_ROWS_N(table_rows));
    cJSON_AddItemToObject(o, "model", gdt__cli_table_model_json(t->placement));
    return o;
}

static const gdt_json_row left_out_rows[] = {
    GDT_JSON_FIELD(gdt_emit_left_out, key),
    GDT_JSON_ROW(gdt_emit_left_out, "journal", path),
    GDT_JSON_FIELD(gdt_emit_left_out, results),
    GDT_JSON_FIELD(gdt_emit_left_out, plans),
};

bool gdt__cli_emit_tables_json(cJSON *doc, const gdt_emit_report *rep)
{
    cJSON *tables = cJSON_AddArrayToObject(doc, "tables"), *none = cJSON_AddArrayToObject(doc, "not_written");
    cJSON *left = cJSON_AddArrayToObject(doc, "left_out");
    for (int i = 0; rep && i < rep->ntables; i++) {
        const gdt_emit_table *t = &rep->tables[i];
        cJSON_AddItemToArray(t->tuning ? tables : none,
                             t->tuning ? table_json(t) : cJSON_CreateString(gdt_family_name(t->family)));
    }
    for (int i = 0; rep && i < rep->nleft_out; i++)
        cJSON_AddItemToArray(left, gdt_json_rows_object(&rep->left_out[i], left_out_rows,
                                                        GDT_JSON_ROWS_N(left_out_rows)));
    return tables && none && left;
}

static const gdt_json_row input_rows[] = {
    GDT_JSON_ROW(gdt_emit_input, "journal", path),
    GDT_JSON_FIELD(gdt_emit_input, family),
    GDT_JSON_FIELD(gdt_emit_input, shard_i),
    GDT_JSON_FIELD(gdt_emit_input, shard_n),
    GDT_JSON_FIELD(gdt_emit_input, cells),
    GDT_JSON_FIELD(gdt_emit_input, cells_complete),
    GDT_JSON_FIELD(gdt_emit_input, cells_merged),
    GDT_JSON_FIELD(gdt_emit_input, results),
};

static cJSON *conflict_json(const gdt_emit_conflict *c)
{
    cJSON *o = cJSON_CreateObject(), *runs = cJSON_AddArrayToObject(o, "journals");
    cJSON_AddStringToObject(o, "what", c->what);
    cJSON_AddItemToArray(runs, cJSON_CreateString(c->first));
    cJSON_AddItemToArray(runs, cJSON_CreateString(c->second));
    return o;
}

cJSON *gdt__cli_emit_json(const char *schema, const char *tables_dir, const gdt_emit_report *rep,
                          int exit_code, const char *error)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", schema);
    cJSON_AddBoolToObject(doc, "ok", exit_code == 0);
    cJSON_AddNumberToObject(doc, "exit_code", exit_code);
    gdt_cli_json_add_text(doc, "error", error);
    cJSON_AddStringToObject(doc, "tables_dir", tables_dir ? tables_dir : "tables");
    cJSON *inputs = cJSON_AddArrayToObject(doc, "inputs"), *conflicts;
    int cells = 0, results = 0;
    for (int i = 0; i < rep->ninputs; i++) {
        cJSON_AddItemToArray(inputs, gdt_json_rows_object(&rep->inputs[i], input_rows, GDT_JSON_ROWS_N(input_rows)));
        cells += rep->inputs[i].cells_merged;
        results += rep->inputs[i].results;
    }
    cJSON_AddNumberToObject(doc, "cells", cells);
    cJSON_AddNumberToObject(doc, "results", results);
    bool ok = gdt__cli_emit_tables_json(doc, rep) && (conflicts = cJSON_AddArrayToObject(doc, "conflicts"));
    for (int i = 0; ok && i < rep->nconflicts; i++)
        cJSON_AddItemToArray(conflicts, conflict_json(&rep->conflicts[i]));
    if (ok && inputs)
        return doc;
    cJSON_Delete(doc);
    return NULL;
}
