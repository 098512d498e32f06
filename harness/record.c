/* The journal's field tables and their one check (gdt_record.h), for the
 * writer and the strict reader alike. */
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "gdt_json.h"
#include "gdt_plan_json.h"
#include "gdt_record.h"
#include "gdt_util.h"
#include "gdt_wire.h"
#include "gdt_worker_proto.h"

/* ------------------------------------------------ the records' vocabulary
 * (declared in gdt_run.h): dispositions and record types by name. */

GDT_NAME_TABLE(GDT_DISPOSITIONS, gdt_disposition, GDT_DISP_COUNT, gdt_disposition_name, "?")
GDT_NAME_TABLE(GDT_RECORD_TYPES, gdt_record_type, GDT_REC_COUNT, gdt_record_type_name, "?")

bool gdt_disposition_parse(const char *s, gdt_disposition *out)
{
    for (int i = 0; s && i < GDT_DISP_COUNT; i++)
        if (!strcmp(s, gdt_disposition_name_table[i])) {
            *out = (gdt_disposition)i;
            return true;
        }
    return false;
}



/* ------------------------------------------------------- field rows */

#define BIG GDT_RECORD_BIG
#define US GDT_RECORD_US
#define CALL_S GDT_RECORD_CALL_S
#define REQ(k, t) {k, t, true, 0, BIG, NULL, 0}
#define OPT(k, t) {k, t, false, 0, BIG, NULL, 0}
#define RANGE(k, t, r, lo, hi) {k, t, r, lo, hi, NULL, 0}
#define SUB(k, t, r, sub) {k, t, r, 0, BIG, &sub, 0}
#define TABLE(type, rows, rule) {type, rows, (int)(sizeof rows / sizeof *rows), rule}

/* Keys every record about a cell carries. */
#define CELL_KEYS REQ("type", GDT__STR), RANGE("cell", GDT__INT, true, 0, INT_MAX), \
                  REQ("family", GDT__NAME), REQ("shape", GDT__NAME), REQ("key", GDT__NAME)

typedef gdt_status rule_fn(const char *at, const char *jp, const cJSON *o, gdt_error *e);
static rule_fn options_rule, prior_rule, prior_table_rule, run_rule, plan_rule, result_rule,
    rounds_rule;

#define WIRE(m) (gdt__wire_tables[GDT__WM_##m]) /* a table the worker's replies share */
static const gdt__field option_fields[] = {
    RANGE("bursts", GDT__NUMS, true, 1, GDT_BURST_MAX),
    RANGE("target_rel", GDT__NUM, true, GDT_TARGET_REL_MIN, GDT_TARGET_REL_MAX),
    RANGE("max_plan_seconds", GDT__NUM, true, GDT_PLAN_SECONDS_MIN, GDT_PLAN_SECONDS_MAX),
    RANGE("deadline", GDT__NUM, true, 0, GDT_DEADLINE_MAX),
    RANGE("cudnn_knob_cap", GDT__INT, true, 0, GDT_KNOB_CAP_MAX),
    RANGE("shard_i", GDT__INT, true, 0, GDT_SHARDS_MAX),
    RANGE("shard_n", GDT__INT, true, 0, GDT_SHARDS_MAX),
    OPT("race", GDT__BOOL), /* absent in journals from before racing: every plan in full */
    OPT("shard_source", GDT__STR),
    OPT("cupti", GDT__BOOL),                                 /* written only when on */
    RANGE("rounds", GDT__INT, false, 2, GDT_ROUNDS_MAX),     /* written only when on */
    OPT("planted", GDT__STR), /* a planted slowdown (gdt_plant.h), written only when planted */
};
static const gdt__table options_table = TABLE(NULL, option_fields, options_rule);

static const gdt__field prior_table_fields[] = {
    REQ("family", GDT__STR), REQ("path", GDT__STR), OPT("sha256", GDT__STR), OPT("note", GDT__STR),
};
static const gdt__table prior_table_table = TABLE(NULL, prior_table_fields, prior_table_rule);
static const gdt__field prior_fields[] = {
    REQ("dir", GDT__STR), SUB("tables", GDT__OBJS, true, prior_table_table),
};
static const gdt__table prior_table = TABLE(NULL, prior_fields, prior_rule);

static const gdt__field run_fields[] = {
    REQ("type", GDT__STR), REQ("gdtune_version", GDT__STR), REQ("source_digest", GDT__STR),
    REQ("started", GDT__STR), REQ("family", GDT__STR), REQ("quick", GDT__BOOL),
    REQ("spec_source", GDT__STR), REQ("spec_digest", GDT__STR), REQ("spec", GDT__STR),
    REQ("candidates_digest", GDT__STR), OPT("candidates", GDT__STR),
    RANGE("arch", GDT__INT, true, 10, 9999), SUB("device", GDT__OBJ, true, WIRE(DEVICE_O)),
    REQ("gpus", GDT__STRS), SUB("options", GDT__OBJ, true, options_table),
    /* null: --no-prior; absent in older journals: the untimed order */
    SUB("prior", GDT__OBJ_NULL, false, prior_table),
    /* the gdtune invocation as given ("gdtune", "sweep", ...); absent in
     * journals before 2026-12-06, and never compared on resume or merge */
    OPT("argv", GDT__STRS),
};

static const gdt__field resume_fields[] = {
    REQ("type", GDT__STR), REQ("started", GDT__STR), REQ("source_digest", GDT__STR),
    RANGE("results_before", GDT__INT, true, 0, INT_MAX), REQ("gpus", GDT__STRS),
    OPT("argv", GDT__STRS), /* the resuming invocation, as the header's; absent before it */
};
static const gdt__field cell_fields[] = {CELL_KEYS};
static const gdt__field cell_error_fields[] = {CELL_KEYS, REQ("error", GDT__STR)};

static const gdt__field plan_fields[] = {
    /* the identity (gdt_plan_json.h): "plan" and a knobs object, or in
     * journals before 2026-12-06 "name" and a knobs array; the rule reads it */
    OPT("plan", GDT__NAME), RANGE("engine_id", GDT__INT, true, 0, INT_MAX), REQ("knobs", GDT__ANY),
    OPT("name", GDT__NAME), REQ("backend", GDT__BOOL), REQ("tag", GDT__STR), RANGE("untimed", GDT__INT, true, 0, INT_MAX),
};
static const gdt__table plan_table = TABLE(NULL, plan_fields, plan_rule);
static const gdt__field plans_fields[] = {
    CELL_KEYS, SUB("plans", GDT__OBJS, true, plan_table), OPT("reference", GDT__STR),
    OPT("reference_cpu", GDT__BOOL),
    /* the worker's prebuild of the cell's cuDNN plans; absent before it */
    RANGE("build_threads", GDT__INT, false, 0, GDT_BUILD_THREADS_MAX),
    RANGE("prebuilt", GDT__INT, false, 0, INT_MAX), RANGE("prebuild_s", GDT__NUM, false, 0, CALL_S),
};
static const gdt__field attempt_fields[] = {
    CELL_KEYS, RANGE("plan", GDT__INT, true, 0, INT_MAX), REQ("name", GDT__NAME),
};

/* A re-measure of a clock outlier (gdt_metric_clock.h): the first
 * series' and the cell's clock, the limit, whether this series counts. */
static const gdt__field clock_outlier_fields[] = {
    REQ("first_mhz", GDT__NUM), REQ("cell_mhz", GDT__NUM), RANGE("limit", GDT__NUM, true, 0, 1),
    REQ("counts", GDT__BOOL),
};
static const gdt__table clock_outlier_table = TABLE(NULL, clock_outlier_fields, NULL);

/* The journal's result: its own keys, then the worker's result reply as it
 * came (its body's rows, gdt_wire.h), then what the sweep adds. */
static const gdt__field result_fields[] = {
    REQ("type", GDT__STR), RANGE("cell", GDT__INT, true, 0, INT_MAX),
    RANGE("plan", GDT__INT, true, 0, INT_MAX), REQ("family", GDT__NAME), REQ("name", GDT__NAME),
    RANGE("gpu", GDT__INT, false, 0, GDT_RECORD_GPUS - 1),
    GDT_WIRE_RESULT_BODY(GDT__WIRE_FIELD)
    SUB("clock_outlier", GDT__OBJ, false, clock_outlier_table), /* a re-measure; absent before it */
};
static const gdt__field rounds_fields[] = {
    CELL_KEYS, RANGE("plans", GDT__NUMS, true, 0, INT_MAX),
    RANGE("rounds", GDT__INT, true, 2, GDT_ROUNDS_MAX), REQ("error", GDT__STR),
    GDT_WIRE_ROUNDS_BODY(GDT__WIRE_FIELD, false) /* the worker's reply as it came */
    RANGE("measure_s", GDT__NUM, false, 0, GDT_RECORD_ROUNDS_S),
    RANGE("gpu", GDT__INT, false, 0, GDT_RECORD_GPUS - 1),
};

static const gdt__table record_tables[GDT_REC_COUNT] = {
    [GDT_REC_RUN] = TABLE("run", run_fields, run_rule),
    [GDT_REC_RESUME] = TABLE("resume", resume_fields, NULL),
    [GDT_REC_CELL] = TABLE("cell", cell_fields, NULL),
    [GDT_REC_CELL_ERROR] = TABLE("cell_error", cell_error_fields, NULL),
    [GDT_REC_PLANS] = TABLE("plans", plans_fields, NULL),
    [GDT_REC_ATTEMPT] = TABLE("attempt", attempt_fields, NULL),
    [GDT_REC_RESULT] = TABLE("result", result_fields, result_rule),
    [GDT_REC_ROUNDS] = TABLE("rounds", rounds_fields, rounds_rule),
};

const gdt__table *gdt__record_table(gdt_record_type t)
{
    return (unsigned)t < GDT_REC_COUNT ? &record_tables[t] : NULL;
}

/* ------------------------------------------------------------ check */

gdt_status gdt__record_wrong(const char *at, const char *jp, const char *expected, const cJSON *got,
                             gdt_error *e)
{
    char what[128];
    gdt_json_describe(got, what, sizeof what);
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected %s, got %s", at, jp, expected,
                         got ? what : "nothing (missing)");
}

static const char *kind_name(gdt__kind k)
{
    static const char *const n[GDT__KIND_COUNT] = {
        "a string", "a name without control characters", "an integer", "a number", "a boolean", "an object", "an object or null",
        "an array", "an array", "an array of numbers", "an array of numbers or nulls",
        "an array of strings", "a value"};
    return n[k];
}

static gdt_status in_range(const char *at, const char *jp, const cJSON *v, double lo, double hi,
                           gdt_error *e)
{
    char expected[96];
    if (v->valuedouble >= lo && v->valuedouble <= hi) /* NaN and Inf are not */
        return GDT_STATUS_OK;
    snprintf(expected, sizeof expected, "a value in [%.10g, %.10g]", lo, hi);
    return gdt__record_wrong(at, jp, expected, v, e);
}

static gdt_status check_item(const char *at, const char *ji, const gdt__field *f, const cJSON *it,
                             gdt_error *e)
{
    switch (f->kind) {
    case GDT__STRS:
        return cJSON_IsString(it) ? GDT_STATUS_OK : gdt__record_wrong(at, ji, "a string", it, e);
    case GDT__OBJS:
        return gdt__record_check(f->sub, at, ji, it, e);
    case GDT__NUMS_NULL:
        if (cJSON_IsNull(it))
            return GDT_STATUS_OK;
        /* fall through */
    case GDT__NUMS:
        if (!cJSON_IsNumber(it))
            return gdt__record_wrong(at, ji, "a number", it, e);
        return in_range(at, ji, it, f->lo, f->hi, e);
    default:
        return GDT_STATUS_OK;
    }
}

static gdt_status check_items(const char *at, const char *jp, const gdt__field *f, const cJSON *v,
                              gdt_error *e)
{
    const cJSON *it;
    int i = 0;
    cJSON_ArrayForEach(it, v)
    {
        char ji[512];
        gdt_json_path_index(ji, sizeof ji, jp, i++);
        if (check_item(at, ji, f, it, e) != GDT_STATUS_OK)
            return GDT_STATUS_BAD_INPUT;
    }
    return GDT_STATUS_OK;
}

static gdt_status check_name(const char *at, const char *jp, const char *v, gdt_error *e)
{
    long i = gdt_text_control_find(v);
    char shown[256];
    if (i < 0)
        return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected a name without control "
                         "characters, got \"%s\" (a control character at byte %ld)", at, jp,
                         gdt_text_escape(v, shown, sizeof shown), i);
}

static gdt_status check_value(const char *at, const char *jp, const gdt__field *f, const cJSON *v,
                              gdt_error *e)
{
    int64_t iv;
    bool ok;
    switch (f->kind) {
    case GDT__STR: ok = cJSON_IsString(v); break;
    case GDT__NAME:
        if (!cJSON_IsString(v))
            return gdt__record_wrong(at, jp, kind_name(f->kind), v, e);
        return check_name(at, jp, v->valuestring, e);
    case GDT__BOOL: ok = cJSON_IsBool(v); break;
    case GDT__ANY: return GDT_STATUS_OK;
    case GDT__OBJ:
    case GDT__OBJ_NULL:
        if (f->kind == GDT__OBJ_NULL && cJSON_IsNull(v))
            return GDT_STATUS_OK;
        if (cJSON_IsObject(v) && f->sub)
            return gdt__record_check(f->sub, at, jp, v, e);
        ok = cJSON_IsObject(v);
        break;
    case GDT__INT:
        if (gdt_json_int(v, at, jp, &iv, NULL) != GDT_STATUS_OK)
            return gdt__record_wrong(at, jp, kind_name(f->kind), v, e);
        return in_range(at, jp, v, f->lo, f->hi, e);
    case GDT__NUM:
        if (!cJSON_IsNumber(v))
            return gdt__record_wrong(at, jp, kind_name(f->kind), v, e);
        return in_range(at, jp, v, f->lo, f->hi, e);
    default: /* the arrays */
        if (!cJSON_IsArray(v))
            return gdt__record_wrong(at, jp, kind_name(f->kind), v, e);
        return check_items(at, jp, f, v, e);
    }
    return ok ? GDT_STATUS_OK : gdt__record_wrong(at, jp, kind_name(f->kind), v, e);
}

/* The row of key, NULL for none. */
static const gdt__field *row(const gdt__table *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->f[i].key, key))
            return &t->f[i];
    return NULL;
}

/* Each member known, once, of its kind and range. */
static gdt_status check_members(const gdt__table *t, const char *at, const char *jp, const cJSON *o,
                                gdt_error *e)
{
    for (const cJSON *c = o->child; c; c = c->next) {
        char jk[512];
        const gdt__field *f = c->string ? row(t, c->string) : NULL;
        gdt_json_path_key(jk, sizeof jk, jp, c->string ? c->string : "");
        char shown[80];
        if (!f)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: unknown field \"%s\"", at, jk,
                                 gdt_text_escape(c->string ? c->string : "", shown, sizeof shown));
        for (const cJSON *d = o->child; d != c; d = d->next)
            if (!strcmp(d->string, c->string))
                return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: duplicate field \"%s\"",
                                     at, jk, gdt_text_escape(c->string, shown, sizeof shown));
        if (check_value(at, jk, f, c, e) != GDT_STATUS_OK)
            return GDT_STATUS_BAD_INPUT;
    }
    return GDT_STATUS_OK;
}

gdt_status gdt__record_check(const gdt__table *t, const char *at, const char *jp, const cJSON *o,
                             gdt_error *e)
{
    if (!cJSON_IsObject(o))
        return gdt__record_wrong(at, jp[0] ? jp : "/", "an object", o, e);
    gdt_status s = check_members(t, at, jp, o, e);
    for (int i = 0; s == GDT_STATUS_OK && i < t->n; i++)
        if (t->f[i].required && !gdt_json_get(o, t->f[i].key)) {
            char jk[512];
            gdt_json_path_key(jk, sizeof jk, jp, t->f[i].key);
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected %s, got nothing "
                                 "(missing required field)", at, jk, kind_name(t->f[i].kind));
        }
    const cJSON *type = gdt_json_get(o, "type");
    if (s == GDT_STATUS_OK && t->type && strcmp(type->valuestring, t->type) != 0) {
        char expected[64];
        snprintf(expected, sizeof expected, "\"%s\"", t->type);
        return gdt__record_wrong(at, "/type", expected, type, e);
    }
    return s == GDT_STATUS_OK && t->rule ? t->rule(at, jp, o, e) : s;
}

/* ------------------------------------------------------------ rules */

static const char *str(const cJSON *o, const char *key)
{
    return gdt_json_str_or(o, key, "");
}

static const cJSON *member(const char *jp, const cJSON *o, const char *key, char *jk, size_t n)
{
    gdt_json_path_key(jk, n, jp, key);
    return gdt_json_get(o, key);
}

/* 1 to GDT_MAX_BURSTS increasing integer sizes; a deadline of 0 (none) or
 * at least GDT_DEADLINE_MIN; a shard index below the shard count. */
static gdt_status options_rule(const char *at, const char *jp, const cJSON *o, gdt_error *e)
{
    char jk[512], ji[512], expected[64];
    const cJSON *b = member(jp, o, "bursts", jk, sizeof jk), *x;
    int n = cJSON_GetArraySize(b), i = 0;
    int64_t prev = 0, v = 0;
    snprintf(expected, sizeof expected, "1 to %d burst sizes", GDT_MAX_BURSTS);
    if (n < 1 || n > GDT_MAX_BURSTS)
        return gdt__record_wrong(at, jk, expected, b, e);
    cJSON_ArrayForEach(x, b)
    {
        gdt_json_path_index(ji, sizeof ji, jk, i);
        if (gdt_json_int(x, at, ji, &v, NULL) != GDT_STATUS_OK || (i++ && v <= prev))
            return gdt__record_wrong(at, ji, "an increasing integer burst size", x, e);
        prev = v;
    }
    const cJSON *d = member(jp, o, "deadline", jk, sizeof jk);
    if (d->valuedouble > 0 && d->valuedouble < GDT_DEADLINE_MIN)
        return gdt__record_wrong(at, jk, "0 (none) or at least 1 s", d, e);
    double sn = gdt_json_num_or(o, "shard_n", 0);
    const cJSON *si = member(jp, o, "shard_i", jk, sizeof jk);
    if (si->valuedouble >= (sn > 0 ? sn : 1))
        return gdt__record_wrong(at, jk, "a shard index below shard_n", si, e);
    return GDT_STATUS_OK;
}

static gdt_status prior_rule(const char *at, const char *jp, const cJSON *o, gdt_error *e)
{
    char jk[512];
    const cJSON *t = member(jp, o, "tables", jk, sizeof jk);
    if (cJSON_GetArraySize(t) > GDT_FAMILY_COUNT)
        return gdt__record_wrong(at, jk, "one table per family at most", t, e);
    return GDT_STATUS_OK;
}

/* One table of the header's prior: a family, its path, and either the
 * sha256 of the file used or the note why it was not. */
static gdt_status prior_table_rule(const char *at, const char *jp, const cJSON *o, gdt_error *e)
{
    char jk[512];
    const cJSON *fam = member(jp, o, "family", jk, sizeof jk), *sha = gdt_json_get(o, "sha256");
    if (gdt_family_parse(str(o, "family"), &(gdt_family){0}, NULL) != GDT_STATUS_OK)
        return gdt__record_wrong(at, jk, "gemm, sdpa_fwd or sdpa_bwd", fam, e);
    if (!sha == !gdt_json_get(o, "note"))
        return gdt__record_wrong(at, jp, "either sha256 (the table used) or note (why not)", o, e);
    member(jp, o, "sha256", jk, sizeof jk);
    if (sha && (strlen(sha->valuestring) != 64 || strspn(sha->valuestring, "0123456789abcdef") != 64))
        return gdt__record_wrong(at, jk, "64 lowercase hex digits", sha, e);
    return GDT_STATUS_OK;
}

/* The device is the header's arch; the spec is the one its digest names. */
static gdt_status run_rule(const char *at, const char *jp, const cJSON *o, gdt_error *e)
{
    (void)jp;
    const cJSON *dev = gdt_json_get(o, "device");
    if (gdt_json_num_or(dev, "arch", 0) != gdt_json_num_or(o, "arch", -1))
        return gdt__record_wrong(at, "/device/arch", "the header's arch", gdt_json_get(dev, "arch"), e);
    const char *spec = str(o, "spec");
    char digest[65];
    gdt_digest_hex(spec, strlen(spec), digest);
    if (strcmp(digest, str(o, "spec_digest")) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /spec_digest: expected \"%s\" (the digest "
                             "of /spec), got \"%.80s\"", at, digest, str(o, "spec_digest"));
    return GDT_STATUS_OK;
}

/* A plan's tag is one the planner gives, and its identity (either spelling,
 * gdt_plan_json.h) reads to an engine of its backend-ness (the cell's
 * family is the reader's check). */
static gdt_status plan_rule(const char *at, const char *jp, const cJSON *o, gdt_error *e)
{
    /* LIBRARY is newer than the others: journals written before it tag a
     * library plan OURS, and still load (its side comes from the engine). */
    static const char *const tags[] = {"A", "B", "FALLBACK", "KNOB", "OURS", "LIBRARY"};
    char jk[512];
    size_t i = 0;
    while (i < sizeof tags / sizeof *tags && strcmp(str(o, "tag"), tags[i]) != 0)
        i++;
    const cJSON *tag = member(jp, o, "tag", jk, sizeof jk);
    if (i == sizeof tags / sizeof *tags)
        return gdt__record_wrong(at, jk, "one of A, B, FALLBACK, KNOB, OURS, LIBRARY", tag, e);
    gdt_plan_id id;
    if (gdt_plan_json_read(o, at, jp, true, &id, NULL, e) != GDT_STATUS_OK)
        return GDT_STATUS_BAD_INPUT; /* its engine_id decodes once read */
    bool backend;
    gdt_family f;
    int slot;
    member(jp, o, "engine_id", jk, sizeof jk);
    gdt_engine_id_decode(id.engine_id, &backend, &f, &slot, NULL);
    if (backend != cJSON_IsTrue(gdt_json_get(o, "backend")))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: engine %lld is not a%s engine", at,
                             jk, (long long)id.engine_id, backend ? " gdtune" : " backend");
    return GDT_STATUS_OK;
}

/* The traced main kernel's grid, block and cluster are 3 numbers each, x,
 * y and z, as the tracer writes them (gdt_cupti_kernel). */
static gdt_status kernel_dims(const char *at, const cJSON *o, gdt_error *e)
{
    static const char *const dims[] = {"grid", "block", "cluster"};
    const cJSON *k = gdt_json_get(gdt_json_get(o, "cupti"), "kernel");
    for (size_t i = 0; k && i < sizeof dims / sizeof *dims; i++) {
        char jk[64];
        const cJSON *a = gdt_json_get(k, dims[i]);
        snprintf(jk, sizeof jk, "/cupti/kernel/%s", dims[i]);
        if (cJSON_GetArraySize(a) != 3)
            return gdt__record_wrong(at, jk, "3 numbers (x, y, z)", a, e);
    }
    return GDT_STATUS_OK;
}

/* A known disposition; a verified result carries its measurement: bursts,
 * a time above 0 and its noise; a traced kernel its 3 dimensions. */
static gdt_status result_rule(const char *at, const char *jp, const cJSON *o, gdt_error *e)
{
    (void)jp;
    gdt_disposition d;
    gdt_status s = kernel_dims(at, o, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (!gdt_disposition_parse(str(o, "disposition"), &d))
        return gdt__record_wrong(at, "/disposition", "one of verified, incorrect, failed, declined",
                                 gdt_json_get(o, "disposition"), e);
    if (d != GDT_DISP_VERIFIED)
        return GDT_STATUS_OK;
    const cJSON *t = gdt_json_get(o, "time_us"), *bursts = gdt_json_get(o, "bursts");
    if (!t || !(t->valuedouble > 0))
        return gdt__record_wrong(at, "/time_us", "a time above 0 us (a verified plan's measurement)", t, e);
    if (!gdt_json_get(o, "noise"))
        return gdt__record_wrong(at, "/noise", "the measurement's noise", NULL, e);
    if (cJSON_GetArraySize(bursts) < 1)
        return gdt__record_wrong(at, "/bursts", "the measured bursts (a verified plan's measurement)",
                                 bursts, e);
    return GDT_STATUS_OK;
}

/* 2 to GDT_ROUNDS_PLANS_MAX distinct integer plan indices. */
static gdt_status rounds_plans(const char *at, const cJSON *o, gdt_error *e)
{
    const cJSON *pl = gdt_json_get(o, "plans"), *x;
    char expected[96];
    int64_t seen[GDT_ROUNDS_PLANS_MAX];
    int n = cJSON_GetArraySize(pl), i = 0;
    snprintf(expected, sizeof expected, "2 to %d plan indices", GDT_ROUNDS_PLANS_MAX);
    if (n < 2 || n > GDT_ROUNDS_PLANS_MAX)
        return gdt__record_wrong(at, "/plans", expected, pl, e);
    cJSON_ArrayForEach(x, pl)
    {
        char jp[64];
        gdt_json_path_index(jp, sizeof jp, "/plans", i);
        if (gdt_json_int(x, at, jp, &seen[i], NULL) != GDT_STATUS_OK)
            return gdt__record_wrong(at, jp, "a plan index (an integer)", x, e);
        for (int k = 0; k < i; k++)
            if (seen[k] == seen[i])
                return gdt__record_wrong(at, jp, "a plan not named before in /plans", x, e);
        i++;
    }
    return GDT_STATUS_OK;
}

/* round_us, when there: per plan, one time above 0 per round. */
static gdt_status rounds_round_us(const char *at, const cJSON *o, int nplans, gdt_error *e)
{
    const cJSON *a = gdt_json_get(o, "round_us"), *x;
    int rounds = (int)gdt_json_num_or(o, "rounds", 0), i = 0;
    char expected[96];
    if (!a)
        return GDT_STATUS_OK;
    snprintf(expected, sizeof expected, "an array of %d arrays (one per plan)", nplans);
    if (cJSON_GetArraySize(a) != nplans)
        return gdt__record_wrong(at, "/round_us", expected, a, e);
    snprintf(expected, sizeof expected, "an array of %d times above 0 us (one per round)", rounds);
    cJSON_ArrayForEach(x, a)
    {
        char jp[64];
        const cJSON *t;
        gdt_json_path_index(jp, sizeof jp, "/round_us", i++);
        if (!cJSON_IsArray(x) || cJSON_GetArraySize(x) != rounds)
            return gdt__record_wrong(at, jp, expected, x, e);
        cJSON_ArrayForEach(t, x)
        {
            if (!cJSON_IsNumber(t) || !(t->valuedouble > 0 && t->valuedouble <= GDT_RECORD_US))
                return gdt__record_wrong(at, jp, expected, x, e);
        }
    }
    return GDT_STATUS_OK;
}

/* A measured record (error "") carries one time above 0, one noise and
 * one ratio per plan; a failed one carries none of them. */
static gdt_status rounds_rule(const char *at, const char *jp, const cJSON *o, gdt_error *e)
{
    static const char *const keys[] = {"time_us", "noise", "ratios", "round_us", "measure_s"};
    char expected[96], jk[32];
    bool failed = str(o, "error")[0] != '\0';
    int n = cJSON_GetArraySize(gdt_json_get(o, "plans"));
    gdt_status s = rounds_plans(at, o, e);
    for (int k = 0; s == GDT_STATUS_OK && failed && k < 5; k++)
        if (member(jp, o, keys[k], jk, sizeof jk))
            return gdt__record_wrong(at, jk, "nothing (the rounds failed: /error)", gdt_json_get(o, keys[k]), e);
    if (s != GDT_STATUS_OK || failed)
        return s;
    snprintf(expected, sizeof expected, "an array of %d numbers (one per plan)", n);
    for (int k = 0; k < 3; k++) {
        const cJSON *v = member(jp, o, keys[k], jk, sizeof jk);
        if ((k < 2 && !v) || (v && cJSON_GetArraySize(v) != n))
            return gdt__record_wrong(at, jk, expected, v, e);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *t = cJSON_GetArrayItem(gdt_json_get(o, "time_us"), i);
        gdt_json_path_index(jk, sizeof jk, "/time_us", i);
        if (!(t->valuedouble > 0))
            return gdt__record_wrong(at, jk, "a time above 0 us", t, e);
    }
    return rounds_round_us(at, o, n, e);
}
