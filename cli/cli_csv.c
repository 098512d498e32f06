/* `--format csv`: a verb's JSON document flattened into one table (RFC 4180:
 * a header row, comma-separated fields, a field holding a comma, a quote or
 * a line break quoted with its quotes doubled).  Each verb names its rows
 * as a path of nested arrays in its document and its columns as paths into
 * them (gdt_cli_csv_view), so the CSV says exactly what the JSON says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gdt_cli_csv.h"
#include "gdt_cli_options.h"

/* The item at a dotted path below o ("counts.verified"); NULL when absent. */
static const cJSON *at(const cJSON *o, const char *path)
{
    char key[128];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = cJSON_GetObjectItemCaseSensitive(o, key);
        path += n + (path[n] == '.');
    }
    return o;
}

static void field_text(FILE *out, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out); /* doubled */
        fputc(*s, out);
    }
    fputc('"', out);
}

/* A scalar as JSON writes it (numbers round-trip), strings bare, null and
 * absent empty; an object as k=v;k=v and an array as v;v (each scalar). */
static void value_text(const cJSON *v, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!v || cJSON_IsNull(v))
        return;
    if (cJSON_IsString(v)) {
        snprintf(buf, n, "%s", v->valuestring);
        return;
    }
    if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
        size_t at_ = 0;
        for (const cJSON *c = v->child; c && at_ < n; c = c->next) {
            char one[256];
            value_text(c, one, sizeof one);
            at_ += (size_t)snprintf(buf + at_, n - at_, "%s%s%s%s", c == v->child ? "" : ";",
                                    cJSON_IsObject(v) ? c->string : "", cJSON_IsObject(v) ? "=" : "", one);
        }
        return;
    }
    char *t = cJSON_PrintUnformatted(v);
    snprintf(buf, n, "%s", t ? t : "");
    free(t);
}

static void write_row(FILE *out, const gdt_cli_csv_view *v, const cJSON *const *level)
{
    static char buf[8192];
    for (int c = 0; c < v->ncols; c++) {
        const gdt_cli_csv_col *col = &v->cols[c];
        if (col->level < 0)
            snprintf(buf, sizeof buf, "%s", col->path);
        else
            value_text(at(level[col->level], col->path), buf, sizeof buf);
        if (c)
            fputc(',', out);
        field_text(out, buf);
    }
    fputs("\r\n", out);
}

/* Every row below o at depth d: an array's elements, or an object as one. */
static void walk(FILE *out, const gdt_cli_csv_view *v, const cJSON *o, int d, const cJSON **level)
{
    if (d == v->depth) {
        write_row(out, v, level);
        return;
    }
    const cJSON *x = at(o, v->arrays[d]);
    if (cJSON_IsObject(x)) {
        level[d] = x;
        walk(out, v, x, d + 1, level);
        return;
    }
    for (const cJSON *c = cJSON_IsArray(x) ? x->child : NULL; c; c = c->next) {
        level[d] = c;
        walk(out, v, c, d + 1, level);
    }
}

int gdt_cli_csv_emit(const char *verb, struct cJSON *doc, const gdt_cli_csv_view *views, int nviews)
{
    if (!doc)
        return fprintf(stderr, "%s: out of memory building the document\n", verb), 1;
    for (int c = 0; c < views[0].ncols; c++)
        fprintf(stdout, "%s%s", c ? "," : "", views[0].cols[c].header);
    fputs("\r\n", stdout);
    for (int i = 0; i < nviews; i++) {
        const cJSON *level[GDT_CLI_CSV_DEPTH] = {0};
        walk(stdout, &views[i], doc, 0, level);
    }
    cJSON_Delete(doc);
    return fflush(stdout) ? (fprintf(stderr, "%s: cannot write standard output\n", verb), 1) : 0;
}

int gdt_cli_doc_emit(const char *verb, struct cJSON *doc, int format, const gdt_cli_csv_view *views,
                     int nviews)
{
    return format == GDT_CLI_FORMAT_CSV ? gdt_cli_csv_emit(verb, doc, views, nviews)
                                        : gdt_cli_json_emit(verb, doc);
}
