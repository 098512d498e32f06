/* The knob vocabulary (the backend's cudnnBackendKnobType_t names, frozen,
 * and gdtune's band from 1000) and plan identity: normalize, compare, print
 * and parse "ENGINE[K=V, K=V]". */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_engine_impl.h"

/* The names of gdtune.h's knob lists, index = value. */
static const char *const backend_knobs[] = {
#define NAME(name, value) [value] = #name,
    GDT_KNOB_BACKEND_MAP(NAME)
#undef NAME
};
#define ONE(name, value) +1
_Static_assert(sizeof backend_knobs / sizeof backend_knobs[0] == GDT_KNOB_BACKEND_COUNT &&
                   0 GDT_KNOB_BACKEND_MAP(ONE) == GDT_KNOB_BACKEND_COUNT,
               "GDT_KNOB_BACKEND_MAP must name each of 0..GDT_KNOB_BACKEND_COUNT-1 once");
#undef ONE

static const struct {
    int type;
    const char *name;
} gdt_band[] = {
#define BAND(name, offset) {GDT_KNOB_##name, #name},
    GDT_KNOB_BAND_MAP(BAND)
#undef BAND
};
#define NBAND ((int)(sizeof gdt_band / sizeof gdt_band[0]))
/* ", WARPS_M, WARPS_N, ...": the band's names for gdt_knob_parse's message. */
#define BAND_TEXT(name, offset) ", " #name
static const char band_names[] = "" GDT_KNOB_BAND_MAP(BAND_TEXT);
#undef BAND_TEXT

const char *gdt_knob_name(int type)
{
    if (type >= 0 && type < GDT_KNOB_BACKEND_COUNT) return backend_knobs[type];
    for (int i = 0; i < NBAND; i++)
        if (gdt_band[i].type == type) return gdt_band[i].name;
    return NULL;
}

gdt_status gdt_knob_parse(const char *name, int *type, gdt_error *e)
{
    for (int i = 0; name && i < GDT_KNOB_BACKEND_COUNT; i++)
        if (!strcmp(name, backend_knobs[i])) return *type = i, GDT_STATUS_OK;
    for (int i = 0; name && i < NBAND; i++)
        if (!strcmp(name, gdt_band[i].name)) return *type = gdt_band[i].type, GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                         "unknown knob \"%s\" (expected a cuDNN knob name like TILE_M or "
                         "KERNEL_CFG, or one of gdtune's: %s)", name ? name : "(null)",
                         band_names + 2);
}

/* ---------------------------------------------------------- plan identity */

/* Every knob in a plan has a name: planners only record named types. */
static const char *knob_label(int type)
{
    const char *n = gdt_knob_name(type);
    return n ? n : "?";
}

static int knob_cmp(const void *a, const void *b)
{
    const gdt_knob *x = a, *y = b;
    int c = strcmp(knob_label(x->type), knob_label(y->type));
    return c ? c : (x->type > y->type) - (x->type < y->type);
}

void gdt_plan_id_normalize(gdt_plan_id *p)
{
    if (p->nknobs < 0) p->nknobs = 0;
    if (p->nknobs > GDT_MAX_KNOBS) p->nknobs = GDT_MAX_KNOBS;
    qsort(p->knobs, (size_t)p->nknobs, sizeof p->knobs[0], knob_cmp);
}

bool gdt_plan_id_equal(const gdt_plan_id *a, const gdt_plan_id *b)
{
    if (a->engine_id != b->engine_id || a->nknobs != b->nknobs) return false;
    gdt_plan_id x = *a, y = *b;
    gdt_plan_id_normalize(&x);
    gdt_plan_id_normalize(&y);
    for (int i = 0; i < x.nknobs; i++)
        if (x.knobs[i].type != y.knobs[i].type || x.knobs[i].value != y.knobs[i].value) return false;
    return true;
}

bool gdt_plan_id_set_knob(gdt_plan_id *p, int type, int64_t value)
{
    for (int i = 0; i < p->nknobs; i++)
        if (p->knobs[i].type == type) {
            p->knobs[i].value = value;
            return true;
        }
    if (p->nknobs >= GDT_MAX_KNOBS) return false;
    p->knobs[p->nknobs].type = type;
    p->knobs[p->nknobs].value = value;
    p->nknobs++;
    gdt_plan_id_normalize(p);
    return true;
}

int64_t gdt_plan_id_knob(const gdt_plan_id *p, int type, int64_t def)
{
    for (int i = 0; i < p->nknobs; i++)
        if (p->knobs[i].type == type) return p->knobs[i].value;
    return def;
}

/* ----------------------------------------------------------- print, parse */

static int engine_label(int64_t id, char *buf, size_t n)
{
    if (id >= 0 && id < GDT_ENGINE_ID_BACKEND_END) return snprintf(buf, n, "cudnn.eng%" PRId64, id);
    const gdt_engine_slot *s = gdt_manifest_find(gdt_manifest_default(), id);
    if (s) return snprintf(buf, n, "%s", s->name);
    return snprintf(buf, n, "engine%" PRId64, id);
}

int gdt_plan_id_format(const gdt_plan_id *p, char *buf, size_t n)
{
    gdt_plan_id q = *p;
    gdt_plan_id_normalize(&q);
    char tmp[1024];
    int at = engine_label(q.engine_id, tmp, sizeof tmp);
    /* 16 knobs of at most 44 characters each fit; the guard keeps it so. */
    for (int i = 0; i < q.nknobs && at < (int)sizeof tmp - 64; i++)
        at += snprintf(tmp + at, sizeof tmp - (size_t)at, "%s%s=%" PRId64, i ? ", " : "[",
                       knob_label(q.knobs[i].type), q.knobs[i].value);
    if (q.nknobs && at < (int)sizeof tmp - 1) snprintf(tmp + at, sizeof tmp - (size_t)at, "]");
    return snprintf(buf, n, "%s", tmp);
}

static gdt_status parse_i64(const char *s, const char *end, int64_t *out)
{
    char num[32];
    size_t len = (size_t)(end - s);
    if (len == 0 || len >= sizeof num) return GDT_STATUS_BAD_INPUT;
    memcpy(num, s, len);
    num[len] = '\0';
    char *stop;
    errno = 0;
    long long v = strtoll(num, &stop, 10);
    if (*stop || errno == ERANGE || !(num[0] == '-' || (num[0] >= '0' && num[0] <= '9')))
        return GDT_STATUS_BAD_INPUT;
    *out = v;
    return GDT_STATUS_OK;
}

static gdt_status parse_engine(const char *s, size_t len, int64_t *id, gdt_error *e)
{
    char name[128];
    if (len == 0 || len >= sizeof name)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "plan name \"%s\": missing or overlong engine name", s);
    memcpy(name, s, len);
    name[len] = '\0';
    const gdt_engine_slot *slot = gdt_manifest_find_name(gdt_manifest_default(), name);
    if (slot) return *id = gdt_engine_id(slot->family, slot->slot), GDT_STATUS_OK;
    if (!strncmp(name, "cudnn.eng", 9) && !parse_i64(name + 9, name + len, id) && *id >= 0 &&
        *id < GDT_ENGINE_ID_BACKEND_END)
        return GDT_STATUS_OK;
    if (!strncmp(name, "engine", 6) && !parse_i64(name + 6, name + len, id)) return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                         "plan name \"%s\": unknown engine \"%s\" (expected a manifest slot name "
                         "like gemm.nvrtc, cudnn.eng<N> with N < %d, or engine<ID>)",
                         s, name, GDT_ENGINE_ID_BACKEND_END);
}

static gdt_status parse_knob(const char *whole, const char *s, const char *end, gdt_plan_id *p,
                             gdt_error *e)
{
    const char *eq = memchr(s, '=', (size_t)(end - s));
    char name[64];
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof name)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "plan name \"%s\": expected K=V at \"%.*s\"",
                             whole, (int)(end - s), s);
    memcpy(name, s, (size_t)(eq - s));
    name[eq - s] = '\0';
    int type;
    int64_t v;
    gdt_status st = gdt_knob_parse(name, &type, e);
    if (st) return gdt_error_set(e, st, "plan name \"%s\": unknown knob \"%s\"", whole, name);
    if (parse_i64(eq + 1, end, &v))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                             "plan name \"%s\": knob %s: expected an integer value, got \"%.*s\"",
                             whole, name, (int)(end - eq - 1), eq + 1);
    for (int i = 0; i < p->nknobs; i++)
        if (p->knobs[i].type == type)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "plan name \"%s\": knob %s given twice",
                                 whole, name);
    if (p->nknobs >= GDT_MAX_KNOBS)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "plan name \"%s\": more than %d knobs",
                             whole, GDT_MAX_KNOBS);
    p->knobs[p->nknobs].type = type;
    p->knobs[p->nknobs++].value = v;
    return GDT_STATUS_OK;
}

gdt_status gdt_plan_id_parse(const char *s, gdt_plan_id *out, gdt_error *e)
{
    gdt_plan_id p;
    memset(&p, 0, sizeof p);
    if (!s) return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "plan name: missing");
    const char *br = strchr(s, '[');
    size_t len = br ? (size_t)(br - s) : strlen(s);
    gdt_status st = parse_engine(s, len, &p.engine_id, e);
    if (st) return st;
    if (br) {
        const char *close = strchr(br, ']');
        if (!close || close[1])
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT,
                                 "plan name \"%s\": expected one closing ']' at the end", s);
        /* "name[]" is "name" (no knobs); a trailing comma parses an empty K=V
         * and is refused there. */
        for (const char *at = br + 1; close > br + 1;) {
            const char *comma = memchr(at, ',', (size_t)(close - at));
            if ((st = parse_knob(s, at, comma ? comma : close, &p, e))) return st;
            if (!comma) break;
            at = comma + 1 + (comma[1] == ' ');
        }
    }
    gdt_plan_id_normalize(&p);
    *out = p;
    return GDT_STATUS_OK;
}
