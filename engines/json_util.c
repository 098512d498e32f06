/* Strict JSON: cJSON parses, this file refuses what gdtune's tables must not
 * contain and gives typed reads with messages that name the place. */
#include "gdt_json.h"
#include "gdt_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *jp(const char *jpath) { return (jpath && *jpath) ? jpath : "/"; }
static const char *fn(const char *file) { return file ? file : "<text>"; }

const char *gdt_json_type_name(const cJSON *n)
{
    if (!n) return "missing";
    switch (n->type & 0xFF) {
    case cJSON_Object: return "object";
    case cJSON_Array: return "array";
    case cJSON_String: return "string";
    case cJSON_Number: return "number";
    case cJSON_True:
    case cJSON_False: return "boolean";
    case cJSON_NULL: return "null";
    default: return "invalid";
    }
}

int gdt_json_describe(const cJSON *n, char *buf, size_t size)
{
    if (cJSON_IsString(n)) {
        char shown[256]; /* control characters escaped: the description is printed */
        gdt_text_escape(n->valuestring, shown, sizeof shown);
        return snprintf(buf, size, "string \"%.40s%s\"", shown, strlen(shown) > 40 ? "..." : "");
    }
    if (cJSON_IsNumber(n)) return snprintf(buf, size, "number %.17g", n->valuedouble);
    if (cJSON_IsBool(n)) return snprintf(buf, size, "boolean %s", cJSON_IsTrue(n) ? "true" : "false");
    if (cJSON_IsArray(n)) return snprintf(buf, size, "array of %d", cJSON_GetArraySize(n));
    return snprintf(buf, size, "%s", gdt_json_type_name(n));
}

/* ------------------------------------------------------------- JSON paths */

/* RFC 6901's ~0 and ~1; a control character as gdt_text_escape writes it
 * (a path is printed). */
static size_t path_append_escaped(char *buf, size_t n, size_t at, const char *key)
{
    for (const char *k = key; *k && at + 3 < n; k++) {
        int c = gdt_text_control_at(k);
        if (c) {
            char one[16], shown[16];
            snprintf(one, sizeof one, "%.*s", c, k);
            gdt_text_escape(one, shown, sizeof shown);
            if (at + strlen(shown) + 1 >= n) break;
            memcpy(buf + at, shown, strlen(shown));
            at += strlen(shown);
            k += c - 1;
        } else if (*k == '~' || *k == '/') {
            buf[at++] = '~';
            buf[at++] = *k == '~' ? '0' : '1';
        } else {
            buf[at++] = *k;
        }
    }
    buf[at] = '\0';
    return at;
}

char *gdt_json_path_key(char *buf, size_t n, const char *parent, const char *key)
{
    if (n == 0) return buf;
    int w = snprintf(buf, n, "%s/", parent ? parent : "");
    size_t at = (w < 0) ? 0 : ((size_t)w >= n ? n - 1 : (size_t)w);
    path_append_escaped(buf, n, at, key ? key : "");
    return buf;
}

char *gdt_json_path_index(char *buf, size_t n, const char *parent, int index)
{
    if (n && snprintf(buf, n, "%s/%d", parent ? parent : "", index) >= (int)n)
        buf[n - 1] = 0; /* truncated paths stay NUL-terminated */
    return buf;
}

/* ----------------------------------------------------------------- parse */

static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

/* What a lexical scan sees before cJSON runs: the deepest nesting (so that
 * 10^5 brackets get a nesting message, not cJSON's generic failure) and
 * whether the input ends inside a string or an unclosed array/object. */
typedef struct scan {
    int depth, max_depth;
    size_t deep_at;      /* offset where nesting first exceeds the limit */
    size_t string_start; /* offset of the last opening quote */
    bool in_string;
} scan;

static void scan_text(const char *t, size_t len, scan *sc)
{
    memset(sc, 0, sizeof *sc);
    bool esc = false;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (sc->in_string) {
            if (esc) esc = false;
            else if (c == '\\') esc = true;
            else if (c == '"') sc->in_string = false;
        } else if (c == '"') {
            sc->in_string = true;
            sc->string_start = i;
        } else if (c == '[' || c == '{') {
            if (++sc->depth > sc->max_depth) sc->max_depth = sc->depth;
            if (sc->depth == GDT_JSON_MAX_DEPTH + 1) sc->deep_at = i;
        } else if ((c == ']' || c == '}') && sc->depth > 0) {
            sc->depth--;
        }
    }
}

static size_t last_token(const char *t, size_t len)
{
    while (len > 0 && (t[len - 1] == ' ' || t[len - 1] == '\t' || t[len - 1] == '\n' ||
                       t[len - 1] == '\r'))
        len--;
    return len ? len - 1 : 0;
}

static gdt_status syntax_error(const char *text, size_t len, size_t off, const char *file,
                               const char *what, gdt_error *e)
{
    int line, col;
    scan sc;
    if (off > len) off = len;
    line_col(text, off, &line, &col);
    scan_text(text, len, &sc);
    bool unclosed = sc.in_string || sc.depth > 0;
    if (off >= len || (sc.in_string && off >= sc.string_start) ||
        (unclosed && off >= last_token(text, len)))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: truncated JSON: input ends inside %s at offset %zu "
                             "(line %d, column %d)", fn(file),
                             sc.in_string ? "a string" : unclosed ? "an unclosed array or object"
                                                                  : "a value",
                             off, line, col);
    /* The text need not end in a NUL (a journal line, a fuzzer's buffer):
     * quote at most what lies within len. */
    int near = len - off < 16 ? (int)(len - off) : 16;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                         "%s: %s at offset %zu (line %d, column %d), near '%.*s'", fn(file),
                         what, off, line, col, near, text + off);
}

static gdt_status too_deep(const char *text, size_t len, const char *file, gdt_error *e)
{
    scan sc;
    scan_text(text, len, &sc);
    if (sc.max_depth <= GDT_JSON_MAX_DEPTH) return GDT_STATUS_OK;
    int line, col;
    line_col(text, sc.deep_at, &line, &col);
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                         "%s: nesting deeper than %d levels at offset %zu (line %d, column %d)",
                         fn(file), GDT_JSON_MAX_DEPTH, sc.deep_at, line, col);
}

static int key_cmp(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    int c = strcasecmp(x->string, y->string);
    /* Tie-break by position so the first-seen key is reported first. */
    return c ? c : (x < y ? -1 : x > y);
}

/* Duplicate or case-equal keys in one object: sort a copy of the member
 * pointers so that 10^5-key objects stay O(n log n). */
static gdt_status check_object_keys(const cJSON *obj, const char *file, const char *jpath,
                                    gdt_error *e)
{
    int n = cJSON_GetArraySize(obj);
    if (n < 2) return GDT_STATUS_OK;
    const cJSON **v = malloc((size_t)n * sizeof *v);
    if (!v) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: %s: out of memory", fn(file), jp(jpath));
    int i = 0;
    for (const cJSON *c = obj->child; c; c = c->next) v[i++] = c;
    qsort(v, (size_t)n, sizeof *v, key_cmp);
    gdt_status st = GDT_STATUS_OK;
    for (i = 1; i < n && st == GDT_STATUS_OK; i++) {
        if (strcasecmp(v[i - 1]->string, v[i]->string) != 0) continue;
        /* Report in document order, with member indices: the two paths of
         * an exact duplicate are otherwise identical. */
        int ia = -1, ib = -1, k = 0;
        for (const cJSON *c = obj->child; c; c = c->next, k++) {
            if (c == v[i - 1]) ia = k;
            if (c == v[i]) ib = k;
        }
        const cJSON *a = ia < ib ? v[i - 1] : v[i], *b = ia < ib ? v[i] : v[i - 1];
        char pa[512], pb[512];
        gdt_json_path_key(pa, sizeof pa, jpath, a->string);
        gdt_json_path_key(pb, sizeof pb, jpath, b->string);
        st = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: %s: %s and %s (members %d and %d)",
                           fn(file), jp(jpath),
                           strcmp(a->string, b->string) ? "two keys equal ignoring case"
                                                        : "duplicate key",
                           pa, pb, ia < ib ? ia : ib, ia < ib ? ib : ia);
    }
    free(v);
    return st;
}

/* Recursion is bounded: it stops one level past GDT_JSON_MAX_DEPTH, and cJSON
 * itself refuses input nested deeper than CJSON_NESTING_LIMIT. */
static gdt_status check_tree(const cJSON *n, int depth, const char *file, const char *jpath,
                             gdt_error *e)
{
    if (depth > GDT_JSON_MAX_DEPTH)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: nesting deeper than %d levels", fn(file), jp(jpath),
                             GDT_JSON_MAX_DEPTH);
    if (cJSON_IsNumber(n) && !isfinite(n->valuedouble))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: expected a finite number, got one that overflows a double (like 1e400)",
                             fn(file), jp(jpath));
    if (cJSON_IsObject(n)) {
        gdt_status st = check_object_keys(n, file, jpath, e);
        if (st) return st;
    }
    if (!cJSON_IsObject(n) && !cJSON_IsArray(n)) return GDT_STATUS_OK;
    int i = 0;
    for (const cJSON *c = n->child; c; c = c->next, i++) {
        char sub[512];
        if (cJSON_IsObject(n)) gdt_json_path_key(sub, sizeof sub, jpath, c->string);
        else gdt_json_path_index(sub, sizeof sub, jpath, i);
        gdt_status st = check_tree(c, depth + 1, file, sub, e);
        if (st) return st;
    }
    return GDT_STATUS_OK;
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

gdt_status gdt_json_parse(const char *text, size_t len, const char *file, cJSON **out,
                          gdt_error *e)
{
    *out = NULL;
    if (!text) return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: no text", fn(file));
    const char *nul = memchr(text, '\0', len);
    if (nul)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: NUL byte at offset %zu", fn(file),
                             (size_t)(nul - text));
    size_t at = 0;
    while (at < len && is_ws(text[at])) at++;
    if (at == len)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: empty input (no JSON value)",
                             fn(file));
    gdt_status st = too_deep(text, len, file, e);
    if (st) return st;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    size_t off = end ? (size_t)(end - text) : 0;
    if (!root) return syntax_error(text, len, off, file, "malformed JSON", e);
    while (off < len && is_ws(text[off])) off++;
    if (off < len) {
        cJSON_Delete(root);
        return syntax_error(text, len, off, file, "unexpected text after the JSON value", e);
    }
    st = check_tree(root, 1, file, "", e);
    if (st) {
        cJSON_Delete(root);
        return st;
    }
    *out = root;
    return GDT_STATUS_OK;
}

/* ---------------------------------------------------------- typed readers */

static gdt_status mismatch(const cJSON *n, const char *file, const char *jpath, const char *what,
                           gdt_error *e)
{
    char got[96];
    gdt_json_describe(n, got, sizeof got);
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected %s, got %s", fn(file),
                         jp(jpath), what, got);
}

gdt_status gdt_json_int(const cJSON *n, const char *file, const char *jpath, int64_t *out,
                        gdt_error *e)
{
    if (!cJSON_IsNumber(n)) return mismatch(n, file, jpath, "an integer", e);
    double v = n->valuedouble;
    if (!isfinite(v) || v != floor(v)) return mismatch(n, file, jpath, "an integer", e);
    if (fabs(v) >= (double)GDT_JSON_INT_LIMIT)
        return mismatch(n, file, jpath, "an integer of magnitude below 2^53", e);
    *out = (int64_t)v;
    return GDT_STATUS_OK;
}

gdt_status gdt_json_number(const cJSON *n, const char *file, const char *jpath, double *out,
                           gdt_error *e)
{
    if (!cJSON_IsNumber(n) || !isfinite(n->valuedouble))
        return mismatch(n, file, jpath, "a finite number", e);
    *out = n->valuedouble;
    return GDT_STATUS_OK;
}

gdt_status gdt_json_string(const cJSON *n, const char *file, const char *jpath,
                           const char **out, gdt_error *e)
{
    if (!cJSON_IsString(n) || !n->valuestring) return mismatch(n, file, jpath, "a string", e);
    *out = n->valuestring;
    return GDT_STATUS_OK;
}

gdt_status gdt_json_bool(const cJSON *n, const char *file, const char *jpath, bool *out,
                         gdt_error *e)
{
    if (!cJSON_IsBool(n)) return mismatch(n, file, jpath, "a boolean", e);
    *out = cJSON_IsTrue(n);
    return GDT_STATUS_OK;
}

/* ---------------------------------------------------------------- members */

gdt_status gdt_json_require_text(const cJSON *root, const char *key, const char *want, const char *file,
                                 gdt_error *e)
{
    char at[256];
    const cJSON *n;
    const char *v;
    gdt_json_path_key(at, sizeof at, "", key);
    gdt_status s = gdt_json_require(root, key, file, "", &n, e);
    if (!s) s = gdt_json_string(n, file, at, &v, e);
    if (!s && strcmp(v, want))
        s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected \"%s\", got \"%.80s\"", file, at, want, v);
    return s;
}

const cJSON *gdt_json_get(const cJSON *obj, const char *key)
{
    if (!cJSON_IsObject(obj) || !key) return NULL;
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

gdt_status gdt_json_require(const cJSON *obj, const char *key, const char *file,
                            const char *jpath, const cJSON **out, gdt_error *e)
{
    *out = NULL;
    if (!cJSON_IsObject(obj)) return mismatch(obj, file, jpath, "an object", e);
    const cJSON *v = gdt_json_get(obj, key);
    if (!v)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: missing required field \"%s\"",
                             fn(file), jp(jpath), key);
    *out = v;
    return GDT_STATUS_OK;
}

static void list_allowed(char *buf, size_t n, const char *const *allowed, int nallowed)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < nallowed && at < n; i++) {
        int w = snprintf(buf + at, n - at, "%s%s", i ? ", " : "", allowed[i]);
        if (w < 0) break;
        at += (size_t)w;
    }
}

gdt_status gdt_json_check_keys(const cJSON *obj, const char *const *allowed, int nallowed,
                               const char *file, const char *jpath, gdt_error *e)
{
    if (!cJSON_IsObject(obj)) return mismatch(obj, file, jpath, "an object", e);
    for (const cJSON *c = obj->child; c; c = c->next) {
        int i = 0;
        while (i < nallowed && strcmp(c->string, allowed[i]) != 0) i++;
        if (i < nallowed) continue;
        char path[512], list[1024];
        gdt_json_path_key(path, sizeof path, jpath, c->string);
        list_allowed(list, sizeof list, allowed, nallowed);
        char shown[256];
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "%s: %s: unknown field \"%s\" (expected one of: %s)", fn(file),
                             path, gdt_text_escape(c->string, shown, sizeof shown), list);
    }
    return GDT_STATUS_OK;
}

double gdt_json_num_or(const cJSON *obj, const char *key, double def)
{
    const cJSON *v = cJSON_GetObjectItem(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

const char *gdt_json_str_or(const cJSON *obj, const char *key, const char *def)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(obj, key));
    return v ? v : def;
}
