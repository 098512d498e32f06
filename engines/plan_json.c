/* A plan's identity in JSON (gdt_plan_json.h): the one writer and the one
 * reader of {"plan": NAME, "engine_id": ID, "knobs": {KNOB: value}}. */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_json.h"
#include "gdt_plan_json.h"
#include "gdt_util.h"

/* gdt_plan_id_format's own buffer: every name it prints fits. */
#define NAME_MAX_LEN 1024

/* ------------------------------------------------------------- writing */

typedef struct {
    char *buf;
    size_t n;
    int len; /* what the whole text needs, as snprintf counts */
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    size_t at = (size_t)o->len < o->n ? (size_t)o->len : o->n;
    va_start(ap, fmt);
    int k = vsnprintf(o->buf ? o->buf + at : NULL, o->buf ? o->n - at : 0, fmt, ap);
    va_end(ap);
    if (k > 0) o->len += k;
}

/* A JSON string as cJSON quotes it (names and knob names are plain
 * identifiers: nothing to escape but in theory). */
static void put_str(out *o, const char *s)
{
    cJSON *j = cJSON_CreateString(s);
    char *t = j ? cJSON_PrintUnformatted(j) : NULL;
    put(o, "%s", t ? t : "\"\"");
    free(t);
    cJSON_Delete(j);
}

int gdt_plan_json_print(const gdt_plan_id *id, char *buf, size_t n)
{
    gdt_plan_id q = *id;
    char name[NAME_MAX_LEN];
    out o = {buf, n, 0};
    if (buf && n) buf[0] = '\0';
    gdt_plan_id_normalize(&q);
    gdt_plan_id_format(&q, name, sizeof name);
    put(&o, "\"plan\": ");
    put_str(&o, name);
    put(&o, ", \"engine_id\": %" PRId64 ", \"knobs\": {", q.engine_id);
    for (int k = 0; k < q.nknobs; k++) {
        const char *kn = gdt_knob_name(q.knobs[k].type);
        put(&o, "%s", k ? ", " : "");
        put_str(&o, kn ? kn : "?"); /* as the name prints it; the reader refuses it */
        put(&o, ": %" PRId64, q.knobs[k].value);
    }
    put(&o, "}");
    return o.len;
}

cJSON *gdt_plan_json(const gdt_plan_id *id)
{
    char text[2 * NAME_MAX_LEN];
    int len = gdt_plan_json_print(id, text + 1, sizeof text - 2);
    if (len < 0 || (size_t)len + 2 >= sizeof text) return NULL; /* 16 knobs need far less */
    text[0] = '{';
    memcpy(text + 1 + len, "}", 2);
    return cJSON_Parse(text);
}

/* ------------------------------------------------------------- reading */

static gdt_status bad(gdt_error *e, const char *at, const char *jp, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static gdt_status bad(gdt_error *e, const char *at, const char *jp, const char *key, const char *fmt, ...)
{
    char p[512], what[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (key) gdt_json_path_key(p, sizeof p, jp, key);
    else snprintf(p, sizeof p, "%s", jp);
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: %s", at, *p ? p : "/", what);
}

/* One knob more, jp naming where it was read. */
static gdt_status add_knob(gdt_plan_id *id, int type, int64_t v, const char *at, const char *jp, gdt_error *e)
{
    for (int i = 0; i < id->nknobs; i++)
        if (id->knobs[i].type == type)
            return bad(e, at, jp, NULL, "expected each knob once, got %s twice",
                       gdt_knob_name(type) ? gdt_knob_name(type) : "a knob");
    if (id->nknobs >= GDT_MAX_KNOBS)
        return bad(e, at, jp, NULL, "expected at most %d knobs", GDT_MAX_KNOBS);
    id->knobs[id->nknobs].type = type;
    id->knobs[id->nknobs++].value = v;
    return GDT_STATUS_OK;
}

/* {"TILE_M": 128, ...}: names from the knob table. */
static gdt_status knobs_by_name(const cJSON *k, const char *at, const char *kp, gdt_plan_id *id, gdt_error *e)
{
    for (const cJSON *c = k->child; c; c = c->next) {
        char p[512];
        int type;
        int64_t v;
        gdt_error ke;
        gdt_error_clear(&ke);
        gdt_json_path_key(p, sizeof p, kp, c->string ? c->string : "");
        if (gdt_knob_parse(c->string, &type, &ke))
            return bad(e, at, p, NULL, "%s", ke.msg);
        gdt_status s = gdt_json_int(c, at, p, &v, e);
        if (!s) s = add_knob(id, type, v, at, p, e);
        if (s) return s;
    }
    return GDT_STATUS_OK;
}

/* [[type, value], ...]: the journals' spelling before 2026-12-06. */
static gdt_status knobs_by_type(const cJSON *k, const char *at, const char *kp, gdt_plan_id *id, gdt_error *e)
{
    int i = 0;
    for (const cJSON *kv = k->child; kv; kv = kv->next, i++) {
        char p[512];
        int64_t t = -1, v = 0;
        gdt_json_path_index(p, sizeof p, kp, i);
        if (cJSON_GetArraySize(kv) != 2 || !cJSON_IsArray(kv) ||
            gdt_json_int(cJSON_GetArrayItem(kv, 0), at, p, &t, NULL) != GDT_STATUS_OK ||
            gdt_json_int(cJSON_GetArrayItem(kv, 1), at, p, &v, NULL) != GDT_STATUS_OK || t < 0 || t > INT_MAX) {
            char got[96];
            gdt_json_describe(kv, got, sizeof got);
            return bad(e, at, p, NULL, "expected [type, value] integers, got %s", got);
        }
        gdt_status s = add_knob(id, (int)t, v, at, p, e);
        if (s) return s;
    }
    return GDT_STATUS_OK;
}

static gdt_status read_knobs(const cJSON *o, const char *at, const char *jp, bool old_ok, gdt_plan_id *id,
                             gdt_error *e)
{
    char kp[512], got[96];
    const cJSON *k = gdt_json_get(o, "knobs");
    gdt_json_path_key(kp, sizeof kp, jp, "knobs");
    if (cJSON_IsObject(k)) return knobs_by_name(k, at, kp, id, e);
    if (old_ok && cJSON_IsArray(k)) return knobs_by_type(k, at, kp, id, e);
    gdt_json_describe(k, got, sizeof got);
    return bad(e, at, kp, NULL, "expected an object of knob names to integers%s, got %s",
               old_ok ? " (or the older [[type, value], ...])" : "", k ? got : "missing");
}

/* "plan", or where old_ok the older "name"; never both. */
static gdt_status read_name(const cJSON *o, const char *at, const char *jp, bool old_ok, const char **name,
                            const char **key, gdt_error *e)
{
    const cJSON *n = gdt_json_get(o, "plan"), *old = old_ok ? gdt_json_get(o, "name") : NULL;
    char p[512];
    if (n && old) return bad(e, at, jp, NULL, "expected one of \"plan\" and the older \"name\", got both");
    *key = n || !old ? "plan" : "name";
    gdt_json_path_key(p, sizeof p, jp, *key);
    gdt_status s = gdt_json_string(n ? n : old, at, p, name, e);
    long ctl = s ? -1 : gdt_text_control_find(*name);
    char shown[256];
    if (ctl >= 0)
        return bad(e, at, p, NULL, "expected text without control characters, got \"%s\" (a control character "
                   "at byte %ld)", gdt_text_escape(*name, shown, sizeof shown), ctl);
    return s;
}

/* An engine id gdt_engine_id_decode takes (the caller checks its side and
 * family). */
static gdt_status engine_known(int64_t engine_id, const char *at, const char *jp, gdt_error *e)
{
    bool backend;
    gdt_family f;
    int slot;
    gdt_error de;
    gdt_error_clear(&de);
    if (gdt_engine_id_decode(engine_id, &backend, &f, &slot, &de) == GDT_STATUS_OK) return GDT_STATUS_OK;
    return bad(e, at, jp, "engine_id", "%s", de.msg);
}

gdt_status gdt_plan_json_read(const cJSON *o, const char *at, const char *jp, bool old_ok,
                              gdt_plan_id *id, const char **name, gdt_error *e)
{
    char p[512], want[NAME_MAX_LEN], shown[NAME_MAX_LEN];
    const char *got = NULL, *key = "plan";
    memset(id, 0, sizeof *id);
    if (!cJSON_IsObject(o)) {
        gdt_json_describe(o, shown, sizeof shown);
        return bad(e, at, jp, NULL, "expected a plan object {\"plan\", \"engine_id\", \"knobs\"}, got %s",
                   o ? shown : "missing");
    }
    gdt_status s = read_name(o, at, jp, old_ok, &got, &key, e);
    if (!s) s = gdt_json_int(gdt_json_get(o, "engine_id"), at, gdt_json_path_key(p, sizeof p, jp, "engine_id"),
                             &id->engine_id, e);
    if (!s) s = engine_known(id->engine_id, at, jp, e);
    if (!s) s = read_knobs(o, at, jp, old_ok, id, e);
    if (s) return s;
    gdt_plan_id_normalize(id);
    gdt_plan_id_format(id, want, sizeof want);
    if (strcmp(want, got))
        return bad(e, at, jp, key, "expected \"%s\" (what engine_id and knobs print as), got \"%s\"", want,
                   gdt_text_escape(got, shown, sizeof shown));
    if (name) *name = got;
    return GDT_STATUS_OK;
}
