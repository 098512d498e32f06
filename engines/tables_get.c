/* The loader's getters: one JSON value each, of one type and range, or a
 * refusal naming the file, the JSON path, what was expected and what the
 * file holds; a plan's identity is one such value (its name must be what
 * its engine and knobs print as). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_plan_json.h"
#include "gdt_tables_impl.h"
#include "gdt_util.h"

const char *gdt__jp_key(char *buf, const char *parent, const char *key)
{
    return gdt_json_path_key(buf, sizeof(gdt__jpath), parent, key);
}

const char *gdt__jp_at(char *buf, const char *parent, int i)
{
    return gdt_json_path_index(buf, sizeof(gdt__jpath), parent, i);
}

gdt_status gdt__ld_bad(const gdt__ld *l, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
gdt_status gdt__ld_bad(const gdt__ld *l, const char *path, const char *fmt, ...)
{
    char what[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gdt_error_set(l->e, GDT_STATUS_BAD_INPUT, "%s: %s: %s", l->file, *path ? path : "/", what);
}

gdt_status gdt__ld_node(const gdt__ld *l, const cJSON *o, const char *key, const char *jp,
                        const cJSON **n)
{
    return gdt_json_require(o, key, l->file, jp, n, l->e);
}

gdt_status gdt__ld_int(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, int64_t *out)
{
    const cJSON *n;
    gdt__jpath p;
    gdt_status s = gdt__ld_node(l, o, key, jp, &n);
    return s ? s : gdt_json_int(n, l->file, gdt__jp_key(p, jp, key), out, l->e);
}

gdt_status gdt__ld_int32(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, int lo,
                         int *out)
{
    int64_t v;
    gdt__jpath p;
    gdt_status s = gdt__ld_int(l, o, key, jp, &v);
    if (s) return s;
    if (v < lo || v > INT32_MAX)
        return gdt__ld_bad(l, gdt__jp_key(p, jp, key), "expected an integer in [%d, %d], got %" PRId64, lo,
                           INT32_MAX, v);
    *out = (int)v;
    return GDT_STATUS_OK;
}

gdt_status gdt__ld_num(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, double *out)
{
    const cJSON *n;
    gdt__jpath p;
    gdt_status s = gdt__ld_node(l, o, key, jp, &n);
    return s ? s : gdt_json_number(n, l->file, gdt__jp_key(p, jp, key), out, l->e);
}

/* Every string of a table is a name, a key or a digest: a control
 * character in one (an escape sequence, a bell, a line break) would reach
 * the terminals and reports that print it, so it is refused here. */
gdt_status gdt__ld_check_text(const gdt__ld *l, const char *path, const char *v)
{
    long at = gdt_text_control_find(v);
    char shown[256];
    if (at < 0) return GDT_STATUS_OK;
    return gdt__ld_bad(l, path, "expected text without control characters, got \"%s\" (a control character "
                       "at byte %ld)", gdt_text_escape(v, shown, sizeof shown), at);
}

gdt_status gdt__ld_str(const gdt__ld *l, const cJSON *o, const char *key, const char *jp,
                       const char **out)
{
    const cJSON *n;
    gdt__jpath p;
    gdt_status s = gdt__ld_node(l, o, key, jp, &n);
    if (!s) s = gdt_json_string(n, l->file, gdt__jp_key(p, jp, key), out, l->e);
    return s ? s : gdt__ld_check_text(l, p, *out);
}

gdt_status gdt__ld_bool(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, bool *out)
{
    const cJSON *n;
    gdt__jpath p;
    gdt_status s = gdt__ld_node(l, o, key, jp, &n);
    return s ? s : gdt_json_bool(n, l->file, gdt__jp_key(p, jp, key), out, l->e);
}

/* A number or null: *has says which. */
gdt_status gdt__ld_opt_num(const gdt__ld *l, const cJSON *o, const char *key, const char *jp,
                           bool *has, double *out)
{
    const cJSON *n;
    gdt__jpath p;
    gdt_status s = gdt__ld_node(l, o, key, jp, &n);
    if (s) return s;
    *has = !cJSON_IsNull(n);
    *out = 0;
    if (!*has) return GDT_STATUS_OK;
    if (!cJSON_IsNumber(n)) return gdt__ld_bad(l, gdt__jp_key(p, jp, key), "expected a number or null, got %s",
                                               gdt_json_type_name(n));
    return gdt_json_number(n, l->file, p, out, l->e);
}

gdt_status gdt__ld_sub(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, const cJSON **n,
                       char *sp)
{
    gdt__jp_key(sp, jp, key);
    return gdt__ld_node(l, o, key, jp, n);
}

gdt_status gdt__ld_array(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, char *ap,
                         const cJSON **out, int *n)
{
    gdt_status s = gdt__ld_sub(l, o, key, jp, out, ap);
    if (s) return s;
    if (!cJSON_IsArray(*out)) return gdt__ld_bad(l, ap, "expected an array, got %s", gdt_json_type_name(*out));
    *n = cJSON_GetArraySize(*out);
    return GDT_STATUS_OK;
}

gdt_status gdt__ld_items(const gdt__ld *l, const cJSON *a, const char *ap, gdt__ld_item one, void *recs, void *ctx,
                         int *count)
{
    gdt__jpath p;
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++) {
        if (count) *count = i + 1;
        gdt_status s = one(l, x, gdt__jp_at(p, ap, i), recs, i, ctx);
        if (s) return s;
    }
    return GDT_STATUS_OK;
}

gdt_status gdt__ld_records(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, char *ap, size_t size,
                           gdt__ld_item one, void *ctx, void **out, int *count)
{
    const cJSON *a;
    int n = 0;
    gdt_status s = gdt__ld_array(l, o, key, jp, ap, &a, &n);
    if (s) return s;
    if (!(*out = calloc((size_t)(n ? n : 1), size))) return gdt__ld_oom(l);
    return gdt__ld_items(l, a, ap, one, *out, ctx, count);
}

gdt_status gdt__ld_fixed(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, int n, const char *what,
                         gdt__ld_item one, void *recs, void *ctx)
{
    const cJSON *a;
    int len = 0;
    gdt__jpath p;
    gdt_status s = gdt__ld_array(l, o, key, jp, p, &a, &len);
    if (s) return s;
    if (len != n) return gdt__ld_bad(l, p, "expected %d %s, got %d", n, what, len);
    return gdt__ld_items(l, a, p, one, recs, ctx, NULL);
}

gdt_status gdt__ld_oom(const gdt__ld *l)
{
    return gdt_error_set(l->e, GDT_STATUS_NO_MEMORY, "%s: out of memory", l->file);
}

gdt_status gdt__ld_names(const gdt__ld *l, const cJSON *o, const char *key, const char *jp,
                         const char *const *names, int nnames, int *out)
{
    const char *v;
    gdt__jpath p;
    gdt_status s = gdt__ld_str(l, o, key, jp, &v);
    if (s) return s;
    for (int i = 0; i < nnames; i++)
        if (names[i] && !strcmp(v, names[i])) {
            *out = i;
            return GDT_STATUS_OK;
        }
    char list[256] = "";
    for (int i = 0, w = 0; i < nnames && w < (int)sizeof list; i++)
        if (names[i]) w += snprintf(list + w, sizeof list - (size_t)w, "%s%s", w ? ", " : "", names[i]);
    return gdt__ld_bad(l, gdt__jp_key(p, jp, key), "expected one of %s, got \"%s\"", list, v);
}

gdt_status gdt__ld_text(const gdt__ld *l, const cJSON *o, const char *key, const char *jp, char *dst,
                        size_t cap)
{
    const char *v;
    gdt__jpath p;
    gdt_status s = gdt__ld_str(l, o, key, jp, &v);
    if (s) return s;
    if (strlen(v) >= cap)
        return gdt__ld_bad(l, gdt__jp_key(p, jp, key), "expected at most %zu characters, got %zu", cap - 1, strlen(v));
    memcpy(dst, v, strlen(v) + 1);
    return GDT_STATUS_OK;
}

gdt_status gdt__ld_keys(const gdt__ld *l, const cJSON *o, const char *const *keys, int n,
                        const char *jp)
{
    return gdt_json_check_keys(o, keys, n, l->file, jp, l->e);
}
#define GDT__CHECK_KEYS(l, o, keys, jp) gdt__ld_keys(l, o, keys, (int)(sizeof keys / sizeof keys[0]), jp)

/* ------------------------------------------------------------ plan entries */

static gdt_status check_engine(const gdt__ld *l, const char *jp, const gdt_plan_id *id, bool is_backend)
{
    bool backend = false;
    gdt_family f = l->family;
    int slot = 0;
    gdt_error de;
    gdt__jpath p;
    gdt_error_clear(&de);
    gdt__jp_key(p, jp, "engine_id");
    if (gdt_engine_id_decode(id->engine_id, &backend, &f, &slot, &de)) return gdt__ld_bad(l, p, "%s", de.msg);
    if (backend != is_backend)
        return gdt__ld_bad(l, gdt__jp_key(p, jp, "is_backend"), "expected %s (engine %" PRId64 " is %s), got %s",
                           backend ? "true" : "false", id->engine_id,
                           backend ? "a backend engine" : "a gdtune engine", is_backend ? "true" : "false");
    if (!backend && f != l->family)
        return gdt__ld_bad(l, p, "expected an engine of family %s, got %" PRId64 " (family %s)",
                           gdt_family_name(l->family), id->engine_id, gdt_family_name(f));
    return GDT_STATUS_OK;
}

/* plan, engine_id, knobs (the one spelling, gdt_plan_json.h), is_backend. */
gdt_status gdt__ld_plan_id(const gdt__ld *l, const cJSON *o, const char *jp, gdt_plan_id *id,
                           bool *is_backend)
{
    gdt_status s = gdt_plan_json_read(o, l->file, jp, false, id, NULL, l->e);
    if (!s) s = gdt__ld_bool(l, o, "is_backend", jp, is_backend);
    return s ? s : check_engine(l, jp, id, *is_backend);
}
