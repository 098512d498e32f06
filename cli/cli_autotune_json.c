/* `gdtune autotune --format json`: gdtune.autotune/1 from the autotune's
 * report (cli/gdt_autotune_json.h). */
#include <math.h>

#include "gdt_autotune_json.h"
#include "gdt_json_rows.h"

const char *gdt__autotune_status_word(const gdt_autotune_candidate *c)
{
    return c->status == GDT_STATUS_OK ? "timed" : c->status == GDT_STATUS_NOT_SUPPORTED ? "declined" : "failed";
}

static cJSON *number_or_null(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static cJSON *candidate_json(const gdt_autotune_candidate *c)
{
    cJSON *o = cJSON_CreateObject();
    char name[512];
    gdt_plan_id_format(&c->id, name, sizeof name);
    cJSON_AddNumberToObject(o, "index", c->index);
    cJSON_AddStringToObject(o, "plan", name);
    cJSON_AddNumberToObject(o, "engine_id", (double)c->id.engine_id);
    cJSON_AddStringToObject(o, "side", gdt_plan_side_label(c->side));
    cJSON_AddStringToObject(o, "status", gdt__autotune_status_word(c));
    cJSON_AddItemToObject(o, "median_us", number_or_null(c->median_us));
    cJSON_AddItemToObject(o, "why", c->why[0] ? cJSON_CreateString(c->why) : cJSON_CreateNull());
    return o;
}

/* The winner's median over candidate i's; null when there is none. */
static cJSON *ratio_json(const gdt_autotune_report *r, int i)
{
    return i < 0 ? cJSON_CreateNull() : number_or_null(r->c[r->winner].median_us / r->c[i].median_us);
}

static cJSON *index_or_null(int i) { return i < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(i); }

/* Whether the winner came from the wisdom file, and what it recorded. */
static void add_wisdom(cJSON *doc, const char *wisdom, const gdt_autotune_report *r)
{
    cJSON_AddItemToObject(doc, "wisdom", wisdom ? cJSON_CreateString(wisdom) : cJSON_CreateNull());
    cJSON_AddBoolToObject(doc, "from_wisdom", r->from_wisdom);
    cJSON_AddItemToObject(doc, "wisdom_measured_utc",
                          r->from_wisdom ? cJSON_CreateString(r->wisdom_measured) : cJSON_CreateNull());
    cJSON_AddItemToObject(doc, "wisdom_first_median_us",
                          r->from_wisdom ? number_or_null(r->wisdom_first_us) : cJSON_CreateNull());
}

/* The options the candidates were measured under (docs/fields.md). */
static const gdt_json_row option_rows[] = {
    GDT_JSON_FIELD(gdt_autotune_opts, backend), GDT_JSON_FIELD(gdt_autotune_opts, ours),
    GDT_JSON_FIELD(gdt_autotune_opts, library), GDT_JSON_FIELD(gdt_autotune_opts, margin),
    GDT_JSON_FIELD(gdt_autotune_opts, warmup),  GDT_JSON_FIELD(gdt_autotune_opts, reps),
};

static void add_options(cJSON *doc, const gdt_autotune_opts *o)
{
    gdt_json_rows_add(cJSON_AddObjectToObject(doc, "options"), o, option_rows, GDT_JSON_ROWS_N(option_rows));
}

cJSON *gdt__autotune_doc(const char *key, const gdt_device_props *dev, const char *tables, const char *wisdom,
                         const gdt_autotune_opts *o, const gdt_autotune_report *r)
{
    cJSON *doc = cJSON_CreateObject(), *x;
    cJSON_AddStringToObject(doc, "schema", "gdtune.autotune/1");
    cJSON_AddStringToObject(doc, "key", key);
    x = cJSON_AddObjectToObject(doc, "device");
    cJSON_AddStringToObject(x, "name", dev->name);
    cJSON_AddNumberToObject(x, "arch", dev->arch);
    cJSON_AddStringToObject(doc, "tables", tables);
    add_options(doc, o);
    x = cJSON_AddArrayToObject(doc, "candidates");
    for (int i = 0; i < r->n; i++) cJSON_AddItemToArray(x, candidate_json(&r->c[i]));
    cJSON_AddNumberToObject(doc, "winner", r->winner);
    cJSON_AddItemToObject(doc, "first", index_or_null(r->first));
    cJSON_AddItemToObject(doc, "heuristic", index_or_null(r->heuristic));
    cJSON_AddItemToObject(doc, "winner_over_first",
                          r->from_wisdom ? number_or_null(r->c[r->winner].median_us / r->wisdom_first_us)
                                         : ratio_json(r, r->first));
    cJSON_AddItemToObject(doc, "winner_over_heuristic", ratio_json(r, r->heuristic));
    add_wisdom(doc, wisdom, r);
    return doc;
}
