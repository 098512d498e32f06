/* `gdtune tables check --format json`: one file's verdict, its error split
 * into the parts every loader message names (gdt_cli_summary.h). */
#include <stdio.h>
#include <string.h>

#include "gdt_cli_summary.h"
#include "gdt_json.h"
#include "gdtune/tables.h"

static void part(char *to, size_t n, const char *from, size_t len, bool *has)
{
    snprintf(to, n, "%.*s", (int)len, from);
    *has = true;
}

/* "expected E, got A", or "expected E" alone.  The first ", got " ends
 * E: gdtune words E, while A quotes what the file held, which may be any
 * text. */
static void split_expected(const char *m, gdt_cli_error_parts *p)
{
    if (strncmp(m, "expected ", 9))
        return;
    m += 9;
    const char *got = strstr(m, ", got ");
    part(p->expected, sizeof p->expected, m, got ? (size_t)(got - m) : strlen(m), &p->has_expected);
    if (got)
        part(p->actual, sizeof p->actual, got + 6, strlen(got + 6), &p->has_actual);
}

void gdt__cli_error_split(const char *msg, const char *file, gdt_cli_error_parts *p)
{
    memset(p, 0, sizeof *p);
    size_t nf = strlen(file);
    const char *m = msg;
    if (!strncmp(m, file, nf) && !strncmp(m + nf, ": ", 2)) {
        part(p->file, sizeof p->file, file, nf, &p->has_file);
        m += nf + 2;
    }
    const char *colon = *m == '/' ? strstr(m, ": ") : NULL;
    if (colon) {
        part(p->json_path, sizeof p->json_path, m, (size_t)(colon - m), &p->has_path);
        m = colon + 2;
    }
    split_expected(m, p);
}

static void add_part(cJSON *o, const char *key, const char *v, bool has)
{
    gdt_cli_json_add_text(o, key, has ? v : NULL);
}

static cJSON *error_json(const char *path, const char *msg)
{
    gdt_cli_error_parts p;
    gdt__cli_error_split(msg, path, &p);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "message", msg);
    add_part(o, "file", p.file, p.has_file);
    add_part(o, "json_path", p.json_path, p.has_path);
    add_part(o, "expected", p.expected, p.has_expected);
    add_part(o, "actual", p.actual, p.has_actual);
    return o;
}

/* What a valid table says of itself: kind, arch, family, cells. */
static void add_identity(cJSON *o, const char *path)
{
    cJSON *doc = gdt_cli_json_read(path);
    const char *schema = gdt_json_str_or(doc, "schema", NULL), *arch = gdt_json_str_or(doc, "arch", NULL);
    const char *family = gdt_json_str_or(doc, "family", NULL);
    add_part(o, "kind", schema && !strcmp(schema, GDT_TABLE_SCHEMA_TUNING) ? "tuning" : "placement", doc != NULL);
    add_part(o, "arch", arch, arch != NULL);
    add_part(o, "family", family, family != NULL);
    cJSON_AddNumberToObject(o, "cells", cJSON_GetArraySize(gdt_json_get(doc, "cells")));
    cJSON_Delete(doc);
}

cJSON *gdt__cli_check_file_json(const char *path, const char *error)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", path);
    cJSON_AddBoolToObject(o, "ok", error == NULL);
    if (error) {
        static const char *const none[] = {"kind", "arch", "family", "cells", "model"};
        for (size_t i = 0; i < sizeof none / sizeof *none; i++)
            cJSON_AddNullToObject(o, none[i]);
        cJSON_AddItemToObject(o, "error", error_json(path, error));
        return o;
    }
    add_identity(o, path);
    cJSON_AddItemToObject(o, "model", gdt__cli_table_model_json(path));
    cJSON_AddNullToObject(o, "error");
    return o;
}
