/* Autotune wisdom (gdtune/autotune.h): the winners of earlier autotunes,
 * kept in a gdtune.wisdom/1 file (docs/formats.md) across processes. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gdt_engines.h"
#include "gdt_json.h"
#include "gdt_plan_json.h"
#include "gdt_util.h"
#include "gdtune/autotune.h"

struct gdt_wisdom {
    int n, cap;
    gdt_wisdom_entry *v;
};

int gdt_wisdom_count(const gdt_wisdom *w) { return w ? w->n : 0; }

void gdt_wisdom_destroy(gdt_wisdom *w)
{
    if (w) free(w->v);
    free(w);
}

/* ------------------------------------------------------------ find, put */

static bool same_device(const gdt_wisdom_entry *a, const gdt_wisdom_entry *b)
{
    return !strcmp(a->key, b->key) && !strcmp(a->device, b->device);
}

const gdt_wisdom_entry *gdt_wisdom_find(const gdt_wisdom *w, const gdt_wisdom_entry *p)
{
    for (int i = 0; w && i < w->n; i++) {
        const gdt_wisdom_entry *x = &w->v[i];
        if (same_device(x, p) && x->arch == p->arch && x->sm_count == p->sm_count &&
            x->cudnn_version == p->cudnn_version && !strcmp(x->gdtune_version, p->gdtune_version))
            return x;
    }
    return NULL;
}

gdt_status gdt_wisdom_put(gdt_wisdom *w, const gdt_wisdom_entry *x, gdt_error *e)
{
    for (int i = 0; i < w->n; i++)
        if (same_device(&w->v[i], x)) return w->v[i] = *x, GDT_STATUS_OK;
    if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 8;
        gdt_wisdom_entry *v = realloc(w->v, (size_t)cap * sizeof *v);
        if (!v) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "gdt_wisdom_put: out of memory");
        w->v = v, w->cap = cap;
    }
    w->v[w->n++] = *x;
    return GDT_STATUS_OK;
}

void gdt_wisdom_probe(const gdt_graph *g, gdt_wisdom_entry *out)
{
    const gdt_facts *f = gdt_graph_facts(g);
    memset(out, 0, sizeof *out);
    gdt_problem_key(&f->problem, out->key, sizeof out->key);
    snprintf(out->device, sizeof out->device, "%s", f->device.name);
    out->arch = f->device.arch, out->sm_count = f->device.sm_count;
    out->cudnn_version = gdt_cudnn_runtime_version();
    snprintf(out->gdtune_version, sizeof out->gdtune_version, "%s", GDT_VERSION_STRING);
}

/* ----------------------------------------------------------------- load */

static const char *const entry_keys[] = {"key",      "device",    "arch",     "sm_count",
                                         "cudnn_version", "gdtune_version", "plan", "engine_id",
                                         "knobs",    "median_us", "first_median_us", "measured_utc"};
#define N_ENTRY_KEYS ((int)(sizeof entry_keys / sizeof *entry_keys))

/* A string member into buf (cap bytes, NUL included). */
static gdt_status read_text(const cJSON *o, const char *key, const char *file, const char *jp, char *buf,
                            size_t cap, gdt_error *e)
{
    char at[256];
    const cJSON *n;
    const char *v;
    gdt_json_path_key(at, sizeof at, jp, key);
    gdt_status s = gdt_json_require(o, key, file, jp, &n, e);
    if (!s) s = gdt_json_string(n, file, at, &v, e);
    if (!s && strlen(v) >= cap)
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected a string of at most %zu bytes, got %zu",
                          file, at, cap - 1, strlen(v));
    if (!s) snprintf(buf, cap, "%s", v);
    return s;
}

/* An integer member, lo..hi. */
static gdt_status read_int(const cJSON *o, const char *key, const char *file, const char *jp, int lo, int *out,
                           gdt_error *e)
{
    char at[256];
    const cJSON *n;
    int64_t v = 0;
    gdt_json_path_key(at, sizeof at, jp, key);
    gdt_status s = gdt_json_require(o, key, file, jp, &n, e);
    if (!s) s = gdt_json_int(n, file, at, &v, e);
    if (!s && (v < lo || v > 1000000000))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected an integer %d..1000000000, got %lld", file,
                          at, lo, (long long)v);
    if (!s) *out = (int)v;
    return s;
}

/* A time member: a finite number above 0. */
static gdt_status read_us(const cJSON *o, const char *key, const char *file, const char *jp, double *out,
                          gdt_error *e)
{
    char at[256];
    const cJSON *n;
    gdt_json_path_key(at, sizeof at, jp, key);
    gdt_status s = gdt_json_require(o, key, file, jp, &n, e);
    if (!s) s = gdt_json_number(n, file, at, out, e);
    if (!s && !(*out > 0))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected microseconds above 0, got %g", file, at,
                          *out);
    return s;
}

static gdt_status read_entry(const cJSON *o, const char *file, const char *jp, gdt_wisdom_entry *x,
                             gdt_error *e)
{
    memset(x, 0, sizeof *x);
    gdt_status s = gdt_json_check_keys(o, entry_keys, N_ENTRY_KEYS, file, jp, e);
    if (!s) s = read_text(o, "key", file, jp, x->key, sizeof x->key, e);
    if (!s) s = read_text(o, "device", file, jp, x->device, sizeof x->device, e);
    if (!s) s = read_int(o, "arch", file, jp, 1, &x->arch, e);
    if (!s) s = read_int(o, "sm_count", file, jp, 0, &x->sm_count, e);
    if (!s) s = read_int(o, "cudnn_version", file, jp, 0, &x->cudnn_version, e);
    if (!s) s = read_text(o, "gdtune_version", file, jp, x->gdtune_version, sizeof x->gdtune_version, e);
    if (!s) s = gdt_plan_json_read(o, file, jp, false, &x->id, NULL, e);
    if (!s) s = read_us(o, "median_us", file, jp, &x->median_us, e);
    if (!s) s = read_us(o, "first_median_us", file, jp, &x->first_us, e);
    if (!s) s = read_text(o, "measured_utc", file, jp, x->measured, sizeof x->measured, e);
    return s;
}

static gdt_status read_doc(const cJSON *root, const char *file, gdt_wisdom *w, gdt_error *e)
{
    static const char *const keys[] = {"schema", "entries"};
    const cJSON *list;
    gdt_status s = gdt_json_check_keys(root, keys, 2, file, "", e);
    if (!s) s = gdt_json_require_text(root, "schema", GDT_WISDOM_SCHEMA, file, e);
    if (!s) s = gdt_json_require(root, "entries", file, "", &list, e);
    if (!s && !cJSON_IsArray(list))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /entries: expected array, got %s", file,
                          gdt_json_type_name(list));
    int i = 0;
    for (const cJSON *o = s ? NULL : list->child; o && !s; o = o->next, i++) {
        char jp[64];
        gdt_wisdom_entry x;
        gdt_json_path_index(jp, sizeof jp, "/entries", i);
        s = read_entry(o, file, jp, &x, e);
        if (!s) s = gdt_wisdom_put(w, &x, e);
    }
    return s;
}

gdt_status gdt_wisdom_load(const char *path, gdt_wisdom **out, gdt_error *e)
{
    char *text = NULL;
    size_t len = 0;
    cJSON *root = NULL;
    struct stat st;
    *out = NULL;
    gdt_wisdom *w = calloc(1, sizeof *w);
    if (!w) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", path);
    if (lstat(path, &st) != 0 && errno == ENOENT) return *out = w, GDT_STATUS_OK;
    gdt_status s = gdt_file_read_at(AT_FDCWD, path, O_NOFOLLOW, &text, &len, e);
    if (!s) s = gdt_json_parse(text, len, path, &root, e);
    if (!s) s = read_doc(root, path, w, e);
    cJSON_Delete(root);
    free(text);
    return GDT_CREATED(s, w, gdt_wisdom_destroy, out);
}

/* ----------------------------------------------------------------- save */

static cJSON *entry_json(const gdt_wisdom_entry *x)
{
    cJSON *o = gdt_plan_json(&x->id);
    if (!o) return NULL;
    bool ok = cJSON_AddStringToObject(o, "key", x->key) && cJSON_AddStringToObject(o, "device", x->device) &&
              cJSON_AddNumberToObject(o, "arch", x->arch) && cJSON_AddNumberToObject(o, "sm_count", x->sm_count) &&
              cJSON_AddNumberToObject(o, "cudnn_version", x->cudnn_version) &&
              cJSON_AddStringToObject(o, "gdtune_version", x->gdtune_version) &&
              cJSON_AddNumberToObject(o, "median_us", x->median_us) &&
              cJSON_AddNumberToObject(o, "first_median_us", x->first_us) &&
              cJSON_AddStringToObject(o, "measured_utc", x->measured);
    if (!ok) cJSON_Delete(o);
    return ok ? o : NULL;
}

/* The document as text (malloc'd), NULL: out of memory. */
static char *doc_text(const gdt_wisdom *w)
{
    cJSON *doc = cJSON_CreateObject(), *list = NULL, *o;
    bool ok = doc && cJSON_AddStringToObject(doc, "schema", GDT_WISDOM_SCHEMA) &&
              (list = cJSON_AddArrayToObject(doc, "entries"));
    for (int i = 0; ok && i < w->n; i++) ok = (o = entry_json(&w->v[i])) && cJSON_AddItemToArray(list, o);
    char *text = ok ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    return text;
}

gdt_status gdt_wisdom_save(const gdt_wisdom *w, const char *path, gdt_error *e)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
        return gdt_error_set(e, GDT_STATUS_IO, "%s: not saved: a symbolic link (wisdom is never written "
                             "through one; name the file itself)", path);
    for (int i = 0; i < w->n; i++)
        if (!isfinite(w->v[i].median_us) || !isfinite(w->v[i].first_us))
            return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "%s: not saved: entry %d (%s) has no finite median",
                                 path, i, w->v[i].key);
    char *text = doc_text(w);
    if (!text) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", path);
    gdt_status s = gdt_file_write_atomic(path, text, strlen(text), e);
    free(text);
    return s;
}
