/* The journal's model: records checked against their field tables, then
 * against the run (see gdt_run.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_run.h"
#include "gdt_util.h"
#include "gdt_worker.h"

static const char *const disposition_names[] = {
#define GDT_DISP_NAME(id, name) name,
    GDT_DISPOSITIONS(GDT_DISP_NAME)
#undef GDT_DISP_NAME
};
_Static_assert(sizeof disposition_names / sizeof *disposition_names == GDT_DISP_COUNT,
               "one name per disposition");

static const char *const record_names[] = {
#define GDT_REC_NAME(id, name) name,
    GDT_RECORD_TYPES(GDT_REC_NAME)
#undef GDT_REC_NAME
};
_Static_assert(sizeof record_names / sizeof *record_names == GDT_REC_COUNT,
               "one name per record type");

const char *gdt_disposition_name(gdt_disposition d)
{
    return (unsigned)d < GDT_DISP_COUNT ? disposition_names[d] : "?";
}

bool gdt_disposition_parse(const char *s, gdt_disposition *out)
{
    for (int i = 0; s && i < GDT_DISP_COUNT; i++)
        if (!strcmp(s, disposition_names[i])) {
            *out = (gdt_disposition)i;
            return true;
        }
    return false;
}

const char *gdt_record_type_name(gdt_record_type t)
{
    return (unsigned)t < GDT_REC_COUNT ? record_names[t] : "?";
}

/* ------------------------------------------------------- field tables */

/* K_NAME: a string without control characters (a name that terminals and
 * reports print). */
typedef enum kind { K_STR, K_INT, K_NUM, K_BOOL, K_OBJ, K_ARR, K_NUMS, K_STRS, K_OBJ_NULL, K_NAME } kind;

typedef struct field {
    const char *key;
    kind kind;
    bool required;
    double lo, hi; /* K_INT, K_NUM and each item of K_NUMS */
} field;

#define BIG 9007199254740991.0 /* 2^53 - 1 */
#define REQ(k, t) {k, t, true, 0, BIG}
#define OPT(k, t) {k, t, false, 0, BIG}
#define RANGE(k, t, r, lo, hi) {k, t, r, lo, hi}
#define NFIELDS(t) ((int)(sizeof t / sizeof *t))

/* Keys every record about a cell carries. */
#define CELL_KEYS REQ("type", K_STR), RANGE("cell", K_INT, true, 0, INT_MAX), REQ("family", K_NAME), \
                  REQ("shape", K_NAME), REQ("key", K_NAME)

static const field run_fields[] = {
    REQ("type", K_STR), REQ("gdtune_version", K_STR), REQ("source_digest", K_STR),
    REQ("started", K_STR), REQ("family", K_STR), REQ("quick", K_BOOL), REQ("spec_source", K_STR),
    REQ("spec_digest", K_STR), REQ("spec", K_STR), REQ("candidates_digest", K_STR),
    OPT("candidates", K_STR), RANGE("arch", K_INT, true, 10, 9999), REQ("device", K_OBJ),
    REQ("gpus", K_STRS), REQ("options", K_OBJ),
    OPT("prior", K_OBJ_NULL), /* null: --no-prior; absent in older journals: untimed order */
};
static const field device_fields[] = {
    REQ("name", K_NAME), RANGE("arch", K_INT, true, 10, 9999), OPT("uuid", K_NAME),
    OPT("sm_count", K_INT), OPT("l2_bytes", K_INT), OPT("smem_per_block", K_INT),
    OPT("regs_per_block", K_INT), OPT("max_threads_per_block", K_INT), OPT("sm_clock_khz", K_INT),
    OPT("mem_clock_khz", K_INT), OPT("driver_version", K_INT), OPT("cuda_version", K_INT),
    OPT("cudnn_version", K_INT), OPT("nvrtc_version", K_INT), OPT("device_count", K_INT),
};
static const field option_fields[] = {
    RANGE("bursts", K_NUMS, true, 1, GDT_BURST_MAX),
    RANGE("target_rel", K_NUM, true, GDT_TARGET_REL_MIN, GDT_TARGET_REL_MAX),
    RANGE("max_plan_seconds", K_NUM, true, GDT_PLAN_SECONDS_MIN, GDT_PLAN_SECONDS_MAX),
    RANGE("deadline", K_NUM, true, 0, GDT_DEADLINE_MAX),
    RANGE("cudnn_knob_cap", K_INT, true, 0, GDT_KNOB_CAP_MAX),
    RANGE("shard_i", K_INT, true, 0, GDT_SHARDS_MAX), RANGE("shard_n", K_INT, true, 0, GDT_SHARDS_MAX),
    OPT("race", K_BOOL), /* absent in journals from before racing: those ran every plan in full */
    OPT("shard_source", K_STR),
    OPT("cupti", K_BOOL), /* written only when on */
    RANGE("rounds", K_INT, false, 2, GDT_ROUNDS_MAX), /* written only when on */
};
static const field prior_fields[] = {REQ("dir", K_STR), REQ("tables", K_ARR)};
static const field prior_table_fields[] = {
    REQ("family", K_STR), REQ("path", K_STR), OPT("sha256", K_STR), OPT("note", K_STR),
};
static const field resume_fields[] = {
    REQ("type", K_STR), REQ("started", K_STR), REQ("source_digest", K_STR),
    RANGE("results_before", K_INT, true, 0, INT_MAX), REQ("gpus", K_STRS),
};
static const field cell_fields[] = {CELL_KEYS};
static const field cell_error_fields[] = {CELL_KEYS, REQ("error", K_STR)};
static const field plans_fields[] = {
    CELL_KEYS, REQ("plans", K_ARR), OPT("reference", K_STR), OPT("reference_cpu", K_BOOL),
    /* the worker's prebuild of the cell's cuDNN plans; absent before it */
    RANGE("build_threads", K_INT, false, 0, GDT_BUILD_THREADS_MAX), RANGE("prebuilt", K_INT, false, 0, INT_MAX),
    RANGE("prebuild_s", K_NUM, false, 0, GDT_DEADLINE_MAX),
};
static const field plan_fields[] = {
    RANGE("engine_id", K_INT, true, 0, INT_MAX), REQ("knobs", K_ARR), REQ("name", K_NAME),
    REQ("backend", K_BOOL), REQ("tag", K_STR), RANGE("untimed", K_INT, true, 0, INT_MAX),
};
static const field attempt_fields[] = {CELL_KEYS, RANGE("plan", K_INT, true, 0, INT_MAX), REQ("name", K_NAME)};
static const field result_fields[] = {
    REQ("type", K_STR), RANGE("cell", K_INT, true, 0, INT_MAX), RANGE("plan", K_INT, true, 0, INT_MAX),
    REQ("family", K_NAME), REQ("name", K_NAME), RANGE("gpu", K_INT, false, 0, 1023),
    REQ("disposition", K_STR), REQ("error", K_STR), OPT("build_s", K_NUM), OPT("fatal", K_BOOL),
    OPT("fatal_error", K_STR), OPT("verify_err", K_NUMS), OPT("bursts", K_ARR), OPT("cold_us", K_NUMS),
    OPT("median_cold_us", K_NUM), OPT("converged", K_BOOL), OPT("raced_out", K_BOOL), OPT("measure_s", K_NUM),
    OPT("time_us", K_NUM), OPT("noise", K_NUM), OPT("clocks", K_OBJ),
    /* newer than the first journals: absent there */
    RANGE("race_burst", K_INT, false, 1, GDT_BURST_MAX), OPT("raced_late", K_BOOL), OPT("cupti", K_OBJ),
    OPT("cupti_error", K_STR), RANGE("heat_s", K_NUM, false, 0, GDT_DEADLINE_MAX), OPT("heat_mhz", K_NUM),
};
static const field rounds_fields[] = {
    CELL_KEYS, REQ("plans", K_NUMS), RANGE("rounds", K_INT, true, 2, GDT_ROUNDS_MAX),
    REQ("error", K_STR), OPT("time_us", K_NUMS), OPT("noise", K_NUMS), OPT("ratios", K_NUMS),
    OPT("round_us", K_ARR), OPT("measure_s", K_NUM), RANGE("gpu", K_INT, false, 0, 1023),
};
static const field cupti_fields[] = {
    RANGE("burst", K_INT, true, 1, GDT_BURST_MAX), REQ("kernels", K_NUM), REQ("kernel_us", K_NUM),
    REQ("event_us", K_NUM), RANGE("gap_us", K_NUM, true, -BIG, BIG),
    REQ("span_us", K_NUM), OPT("kernel", K_OBJ), /* absent before 2026-12-02 */
};
/* The burst's main kernel (harness/gdt_cupti.h, gdt_cupti_kernel). */
static const field cupti_kernel_fields[] = {
    REQ("name", K_STR), RANGE("grid", K_NUMS, true, 1, INT_MAX), RANGE("block", K_NUMS, true, 1, 1024),
    RANGE("cluster", K_NUMS, true, 0, 16), RANGE("registers", K_INT, true, 0, 255),
    RANGE("smem", K_INT, true, 0, INT_MAX), RANGE("share", K_NUM, true, 0, 1),
};
static const field burst_fields[] = {
    RANGE("burst", K_INT, true, 1, GDT_BURST_MAX), REQ("host_us", K_NUMS), REQ("device_us", K_NUMS),
    REQ("total_us", K_NUMS), OPT("median_host_us", K_NUM), OPT("median_device_us", K_NUM),
    OPT("rel_spread", K_NUM), OPT("dropped", K_INT), OPT("clock_mhz", K_NUMS), /* absent in older journals */
};
static const field clock_fields[] = {
    OPT("rated_mhz", K_NUM), OPT("min_mhz", K_NUM), OPT("max_mhz", K_NUM), OPT("probes", K_NUM),
    OPT("threshold", K_NUM),
};

/* Where a record is: "<path>:<line>". */
typedef struct where {
    char at[4200];
} where;

static const char *kind_name(kind k)
{
    static const char *const n[] = {"a string", "an integer", "a number", "a boolean", "an object",
                                    "an array", "an array of numbers", "an array of strings",
                                    "an object or null", "a name without control characters"};
    return n[k];
}

static gdt_status wrong(const where *w, const char *jp, const char *expected, const cJSON *got,
                        gdt_error *e)
{
    char what[128];
    gdt_json_describe(got, what, sizeof what);
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected %s, got %s", w->at, jp,
                         expected, got ? what : "nothing (missing)");
}

static gdt_status in_range(const where *w, const char *jp, const cJSON *v, double lo, double hi,
                           gdt_error *e)
{
    char expected[96];
    if (v->valuedouble >= lo && v->valuedouble <= hi)
        return GDT_STATUS_OK;
    snprintf(expected, sizeof expected, "a value in [%.10g, %.10g]", lo, hi);
    return wrong(w, jp, expected, v, e);
}

static gdt_status check_items(const where *w, const char *jp, const field *f, const cJSON *v,
                              gdt_error *e)
{
    const cJSON *it;
    int i = 0;
    cJSON_ArrayForEach(it, v)
    {
        char ji[512];
        gdt_json_path_index(ji, sizeof ji, jp, i++);
        if (f->kind == K_STRS && !cJSON_IsString(it))
            return wrong(w, ji, "a string", it, e);
        if (f->kind == K_NUMS && !cJSON_IsNumber(it))
            return wrong(w, ji, "a number", it, e);
        if (f->kind == K_NUMS && in_range(w, ji, it, f->lo, f->hi, e) != GDT_STATUS_OK)
            return GDT_STATUS_BAD_INPUT;
    }
    return GDT_STATUS_OK;
}

static gdt_status check_name(const where *w, const char *jp, const char *v, gdt_error *e)
{
    long at = gdt_text_control_find(v);
    char shown[256];
    if (at < 0)
        return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected a name without control "
                         "characters, got \"%s\" (a control character at byte %ld)", w->at, jp,
                         gdt_text_escape(v, shown, sizeof shown), at);
}

static gdt_status check_value(const where *w, const char *jp, const field *f, const cJSON *v,
                              gdt_error *e)
{
    int64_t iv;
    switch (f->kind) {
    case K_STR:
        return cJSON_IsString(v) ? GDT_STATUS_OK : wrong(w, jp, kind_name(f->kind), v, e);
    case K_NAME:
        return cJSON_IsString(v) ? check_name(w, jp, v->valuestring, e) : wrong(w, jp, kind_name(f->kind), v, e);
    case K_BOOL:
        return cJSON_IsBool(v) ? GDT_STATUS_OK : wrong(w, jp, kind_name(f->kind), v, e);
    case K_OBJ:
        return cJSON_IsObject(v) ? GDT_STATUS_OK : wrong(w, jp, kind_name(f->kind), v, e);
    case K_OBJ_NULL:
        return cJSON_IsObject(v) || cJSON_IsNull(v) ? GDT_STATUS_OK : wrong(w, jp, kind_name(f->kind), v, e);
    case K_INT:
        if (gdt_json_int(v, w->at, jp, &iv, NULL) != GDT_STATUS_OK)
            return wrong(w, jp, "an integer", v, e);
        return in_range(w, jp, v, f->lo, f->hi, e);
    case K_NUM:
        if (!cJSON_IsNumber(v))
            return wrong(w, jp, kind_name(f->kind), v, e);
        return in_range(w, jp, v, f->lo, f->hi, e);
    case K_ARR:
    case K_NUMS:
    case K_STRS:
        if (!cJSON_IsArray(v))
            return wrong(w, jp, kind_name(f->kind), v, e);
        return check_items(w, jp, f, v, e);
    }
    return GDT_STATUS_INTERNAL;
}

/* obj at jp: an object holding only the table's keys (exact case), each of
 * its kind and range, every required one present. */
static gdt_status check_fields(const where *w, const char *jp, const cJSON *obj, const field *f,
                               int n, gdt_error *e)
{
    if (!cJSON_IsObject(obj))
        return wrong(w, jp, "an object", obj, e);
    for (const cJSON *c = obj->child; c; c = c->next) {
        char jk[512];
        int i = 0;
        while (i < n && strcmp(f[i].key, c->string) != 0)
            i++;
        gdt_json_path_key(jk, sizeof jk, jp, c->string);
        char shown[80];
        if (i == n)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: unknown field \"%s\"", w->at,
                                 jk, gdt_text_escape(c->string, shown, sizeof shown));
        if (check_value(w, jk, &f[i], c, e) != GDT_STATUS_OK)
            return GDT_STATUS_BAD_INPUT;
    }
    for (int i = 0; i < n; i++)
        if (f[i].required && !gdt_json_get(obj, f[i].key)) {
            char jk[512];
            gdt_json_path_key(jk, sizeof jk, jp, f[i].key);
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected %s, got nothing "
                                 "(missing required field)", w->at, jk, kind_name(f[i].kind));
        }
    return GDT_STATUS_OK;
}

/* The members' values, once check_fields passed. */
static const char *str(const cJSON *o, const char *key)
{
    return gdt_json_str_or(o, key, "");
}

static int num_int(const cJSON *o, const char *key, int def)
{
    return (int)gdt_json_num_or(o, key, def);
}

/* ------------------------------------------------------------ header */

static gdt_status check_options(const where *w, const cJSON *op, gdt_run_options *o, gdt_error *e)
{
    gdt_status s = check_fields(w, "/options", op, option_fields, NFIELDS(option_fields), e);
    if (s != GDT_STATUS_OK)
        return s;
    const cJSON *b = gdt_json_get(op, "bursts"), *x;
    int n = cJSON_GetArraySize(b);
    if (n < 1 || n > GDT_MAX_BURSTS)
        return wrong(w, "/options/bursts", "1 to 8 burst sizes", b, e);
    o->nbursts = 0;
    cJSON_ArrayForEach(x, b)
    {
        char ji[64];
        int64_t v = 0;
        gdt_json_path_index(ji, sizeof ji, "/options/bursts", o->nbursts);
        if (gdt_json_int(x, w->at, ji, &v, NULL) != GDT_STATUS_OK ||
            (o->nbursts && v <= o->bursts[o->nbursts - 1]))
            return wrong(w, ji, "an increasing integer burst size", x, e);
        o->bursts[o->nbursts++] = (int)v;
    }
    o->target_rel = gdt_json_num_or(op, "target_rel", 0);
    o->max_plan_seconds = gdt_json_num_or(op, "max_plan_seconds", 0);
    o->deadline = gdt_json_num_or(op, "deadline", 0);
    o->knob_cap = num_int(op, "cudnn_knob_cap", 0);
    o->shard_i = num_int(op, "shard_i", 0);
    o->shard_n = num_int(op, "shard_n", 0);
    o->race = cJSON_IsTrue(gdt_json_get(op, "race"));
    o->cupti = cJSON_IsTrue(gdt_json_get(op, "cupti"));
    o->rounds = num_int(op, "rounds", 0);
    o->shard_source = str(op, "shard_source");
    if (o->deadline > 0 && o->deadline < GDT_DEADLINE_MIN)
        return wrong(w, "/options/deadline", "0 (none) or at least 1 s", gdt_json_get(op, "deadline"), e);
    if (o->shard_i >= (o->shard_n > 0 ? o->shard_n : 1))
        return wrong(w, "/options/shard_i", "a shard index below shard_n", gdt_json_get(op, "shard_i"), e);
    return GDT_STATUS_OK;
}

/* One table of the header's prior: a family, its path, and either the
 * sha256 of the file used or the note why it was not. */
static gdt_status check_prior_table(const where *w, const char *jp, const cJSON *t, gdt_error *e)
{
    gdt_status s = check_fields(w, jp, t, prior_table_fields, NFIELDS(prior_table_fields), e);
    const cJSON *sha = gdt_json_get(t, "sha256");
    char jk[512];
    if (s != GDT_STATUS_OK)
        return s;
    if (gdt_family_parse(str(t, "family"), &(gdt_family){0}, NULL) != GDT_STATUS_OK)
        return wrong(w, gdt_json_path_key(jk, sizeof jk, jp, "family"), "gemm, sdpa_fwd or sdpa_bwd",
                     gdt_json_get(t, "family"), e);
    if (!sha == !gdt_json_get(t, "note"))
        return wrong(w, jp, "either sha256 (the table used) or note (why not)", t, e);
    if (sha && strspn(sha->valuestring, "0123456789abcdef") != 64)
        return wrong(w, gdt_json_path_key(jk, sizeof jk, jp, "sha256"), "64 lowercase hex digits", sha, e);
    return GDT_STATUS_OK;
}

/* The header's prior order (gdt_prior.h): null, or the tables directory
 * and what became of each family's table. */
static gdt_status check_prior(const where *w, const cJSON *p, gdt_error *e)
{
    if (!p || cJSON_IsNull(p))
        return GDT_STATUS_OK;
    gdt_status s = check_fields(w, "/prior", p, prior_fields, NFIELDS(prior_fields), e);
    const cJSON *tables = gdt_json_get(p, "tables"), *t;
    int i = 0;
    if (s == GDT_STATUS_OK && cJSON_GetArraySize(tables) > GDT_FAMILY_COUNT)
        return wrong(w, "/prior/tables", "one table per family at most", tables, e);
    cJSON_ArrayForEach(t, tables)
    {
        char ji[64];
        gdt_json_path_index(ji, sizeof ji, "/prior/tables", i++);
        if (s == GDT_STATUS_OK)
            s = check_prior_table(w, ji, t, e);
    }
    return s;
}

/* The header's spec, checked against its digest, its cells those the run
 * sweeps (its family, its shard). */
static gdt_status header_spec(gdt_run *r, const where *w, gdt_error *e)
{
    const char *spec = str(r->header, "spec");
    char digest[65], sub[GDT_ERROR_MAX];
    gdt_digest_hex(spec, strlen(spec), digest);
    if (strcmp(digest, str(r->header, "spec_digest")) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /spec_digest: expected \"%s\" (the digest "
                             "of /spec), got \"%.80s\"", w->at, digest, str(r->header, "spec_digest"));
    unsigned mask = 0;
    gdt_error pe = {0};
    if (gdt_family_parse_set(r->family, &mask, &pe) != GDT_STATUS_OK)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /family: %s", w->at, pe.msg);
    if (gdt_sweep_spec_parse(spec, strlen(spec), str(r->header, "spec_source"), r->quick, &r->spec,
                             &pe) != GDT_STATUS_OK) {
        snprintf(sub, sizeof sub, "%s", pe.msg);
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /spec: %s", w->at, sub);
    }
    int k = 0;
    for (int i = 0; i < r->spec->ncells; i++)
        if (mask & (1u << r->spec->cells[i].family))
            r->spec->cells[k++] = r->spec->cells[i];
    r->spec->ncells = k;
    r->spec->families &= mask;
    gdt_sweep_spec_shard(r->spec, r->options.shard_i, r->options.shard_n);
    r->ncells = r->spec->ncells;
    if (!(r->cells = calloc((size_t)r->ncells + 1, sizeof *r->cells)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", w->at);
    for (int i = 0; i < r->ncells; i++)
        r->cells[i].spec = &r->spec->cells[i];
    return GDT_STATUS_OK;
}

static gdt_status read_header(gdt_run *r, const cJSON *h, const where *w, gdt_error *e)
{
    if (strcmp(str(h, "type"), "run") != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /type: expected \"run\" (the run header "
                             "comes first), got \"%.40s\"", w->at, str(h, "type"));
    gdt_status s = check_fields(w, "", h, run_fields, NFIELDS(run_fields), e);
    if (s == GDT_STATUS_OK)
        s = check_fields(w, "/device", gdt_json_get(h, "device"), device_fields, NFIELDS(device_fields), e);
    if (s == GDT_STATUS_OK)
        s = check_options(w, gdt_json_get(h, "options"), &r->options, e);
    if (s == GDT_STATUS_OK)
        s = check_prior(w, gdt_json_get(h, "prior"), e);
    if (s != GDT_STATUS_OK)
        return s;
    r->header = h;
    r->prior = gdt_json_get(h, "prior");
    r->prior = cJSON_IsNull(r->prior) ? NULL : r->prior;
    r->device = gdt_json_get(h, "device");
    r->family = str(h, "family");
    r->source_digest = str(h, "source_digest");
    r->candidates_digest = str(h, "candidates_digest");
    r->started = str(h, "started");
    r->gdtune_version = str(h, "gdtune_version");
    r->quick = cJSON_IsTrue(gdt_json_get(h, "quick"));
    r->arch = num_int(h, "arch", 0);
    if (num_int(r->device, "arch", 0) != r->arch)
        return wrong(w, "/device/arch", "the header's arch", gdt_json_get(r->device, "arch"), e);
    return header_spec(r, w, e);
}

/* ------------------------------------------------------------- cells */

/* The cell a record names, which must be the spec's cell of that index. */
static gdt_status record_cell(gdt_run *r, const cJSON *rec, const where *w, gdt_run_cell **out,
                              gdt_error *e)
{
    int ci = num_int(rec, "cell", -1);
    if (ci >= r->ncells) {
        char expected[64];
        snprintf(expected, sizeof expected, "a cell index below %d (the run's cells)", r->ncells);
        return wrong(w, "/cell", expected, gdt_json_get(rec, "cell"), e);
    }
    gdt_run_cell *c = &r->cells[ci];
    const char *family = gdt_family_name(c->spec->family);
    if (strcmp(str(rec, "family"), family) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /family: expected \"%s\" (cell %d), got "
                             "\"%.40s\"", w->at, family, ci, str(rec, "family"));
    if (gdt_json_get(rec, "shape") && strcmp(str(rec, "shape"), c->spec->shape) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /shape: expected \"%s\" (cell %d of the "
                             "spec), got \"%.200s\"", w->at, c->spec->shape, ci, str(rec, "shape"));
    char key[512];
    gdt_problem_key(&c->spec->problem, key, sizeof key);
    if (gdt_json_get(rec, "key") && strcmp(str(rec, "key"), key) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /key: expected \"%s\" (cell %d), got "
                             "\"%.200s\"", w->at, key, ci, str(rec, "key"));
    if (!c->journaled && strcmp(str(rec, "type"), "cell") != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cell: a %s record for cell %d before "
                             "its cell record", w->at, str(rec, "type"), ci);
    *out = c;
    return GDT_STATUS_OK;
}

static gdt_status on_cell(gdt_run *r, const cJSON *rec, const where *w, int line, gdt_error *e)
{
    gdt_run_cell *c = NULL;
    gdt_status s = record_cell(r, rec, w, &c, e);
    if (s == GDT_STATUS_OK && c->journaled)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cell: cell %d has a cell record already "
                             "(line %d)", w->at, num_int(rec, "cell", 0), c->line);
    if (s == GDT_STATUS_OK) {
        c->journaled = true;
        c->line = line;
    }
    return s;
}

static gdt_status on_cell_error(gdt_run *r, const cJSON *rec, const where *w, gdt_error *e)
{
    gdt_run_cell *c = NULL;
    gdt_status s = record_cell(r, rec, w, &c, e);
    if (s == GDT_STATUS_OK)
        c->error = str(rec, "error");
    return s;
}

/* ------------------------------------------------------------- plans */

/* The identity (engine_id, knobs) through the wire format's one reader. */
static gdt_status plan_identity(const where *w, const char *jp, const cJSON *o, gdt_plan_id *id,
                                gdt_error *e)
{
    gdt_error pe = {0};
    if (gdt__plan_id_from_json(o, id, &pe) == GDT_STATUS_OK)
        return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: %s", w->at, jp, pe.msg);
}

static gdt_status plan_tag(const where *w, const char *jp, const cJSON *o, gdt_error *e)
{
    /* LIBRARY is newer than the others: journals written before it tag a
     * library plan OURS, and still load (its side comes from the engine). */
    static const char *const tags[] = {"A", "B", "FALLBACK", "KNOB", "OURS", "LIBRARY"};
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
        if (!strcmp(str(o, "tag"), tags[i]))
            return GDT_STATUS_OK;
    char jt[256];
    gdt_json_path_key(jt, sizeof jt, jp, "tag");
    return wrong(w, jt, "one of A, B, FALLBACK, KNOB, OURS, LIBRARY", gdt_json_get(o, "tag"), e);
}

/* A plan's name is what its engine_id and knobs print as: the name is
 * what reports show and records name the plan by. */
static gdt_status check_plan_name(const where *w, const char *jp, const gdt_run_plan *p, gdt_error *e)
{
    char want[1024], jn[256];
    gdt_plan_id_format(&p->id, want, sizeof want);
    if (!strcmp(want, p->name))
        return GDT_STATUS_OK;
    gdt_json_path_key(jn, sizeof jn, jp, "name");
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: expected \"%s\" (what engine_id and "
                         "knobs print as), got \"%.300s\"", w->at, jn, want, p->name);
}

/* One plan object: its fields, and an identity whose engine decodes to
 * the cell's family and backend-ness. */
static gdt_status read_plan(const where *w, const char *jp, const cJSON *o, gdt_family fam,
                            gdt_run_plan *p, gdt_error *e)
{
    char jk[256];
    gdt_status s = check_fields(w, jp, o, plan_fields, NFIELDS(plan_fields), e);
    if (s == GDT_STATUS_OK)
        s = plan_tag(w, jp, o, e);
    memset(p, 0, sizeof *p);
    if (s == GDT_STATUS_OK)
        s = plan_identity(w, jp, o, &p->id, e);
    if (s != GDT_STATUS_OK)
        return s;
    bool backend;
    gdt_family f;
    int slot;
    gdt_error de = {0};
    gdt_json_path_key(jk, sizeof jk, jp, "engine_id");
    if (gdt_engine_id_decode(p->id.engine_id, &backend, &f, &slot, &de) != GDT_STATUS_OK)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: %s", w->at, jk, de.msg);
    p->json = o;
    p->name = str(o, "name");
    if ((s = check_plan_name(w, jp, p, e)) != GDT_STATUS_OK)
        return s;
    p->tag = str(o, "tag");
    p->backend = cJSON_IsTrue(gdt_json_get(o, "backend"));
    p->untimed = num_int(o, "untimed", 0);
    if (backend != p->backend || (!backend && f != fam))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: engine %lld is not a%s engine of "
                             "family %s", w->at, jk, (long long)p->id.engine_id,
                             p->backend ? " backend" : " gdtune", gdt_family_name(fam));
    return GDT_STATUS_OK;
}

static gdt_status on_plans(gdt_run *r, const cJSON *rec, const where *w, gdt_error *e)
{
    gdt_run_cell *c = NULL;
    gdt_status s = record_cell(r, rec, w, &c, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (c->plans)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /plans: cell %d has its plan list "
                             "already", w->at, num_int(rec, "cell", 0));
    const cJSON *pl = gdt_json_get(rec, "plans"), *o;
    int n = cJSON_GetArraySize(pl), i = 0;
    c->plan = calloc((size_t)n + 1, sizeof *c->plan);
    c->result = calloc((size_t)n + 1, sizeof *c->result);
    if (!c->plan || !c->result)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", w->at);
    cJSON_ArrayForEach(o, pl)
    {
        char jp[64];
        gdt_json_path_index(jp, sizeof jp, "/plans", i);
        if ((s = read_plan(w, jp, o, c->spec->family, &c->plan[i++], e)) != GDT_STATUS_OK)
            return s;
    }
    c->plans = pl;
    c->nplans = n;
    c->reference = str(rec, "reference");
    c->prebuild_s = gdt_json_num_or(rec, "prebuild_s", 0);
    c->prebuilt = num_int(rec, "prebuilt", 0);
    return GDT_STATUS_OK;
}

/* The plan a record names, in its cell's list. */
static gdt_status record_plan(gdt_run *r, const cJSON *rec, const where *w, gdt_run_cell **cell,
                              int *plan, gdt_error *e)
{
    gdt_status s = record_cell(r, rec, w, cell, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt_run_cell *c = *cell;
    int pi = num_int(rec, "plan", -1);
    if (!c->plans)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /plan: a %s record for cell %d before "
                             "its plans record", w->at, str(rec, "type"), num_int(rec, "cell", 0));
    if (pi >= c->nplans) {
        char expected[64];
        snprintf(expected, sizeof expected, "a plan index below %d (the cell's plans)", c->nplans);
        return wrong(w, "/plan", expected, gdt_json_get(rec, "plan"), e);
    }
    if (strcmp(str(rec, "name"), c->plan[pi].name) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /name: expected \"%s\" (plan %d), got "
                             "\"%.200s\"", w->at, c->plan[pi].name, pi, str(rec, "name"));
    *plan = pi;
    return GDT_STATUS_OK;
}

static gdt_status on_attempt(gdt_run *r, const cJSON *rec, const where *w, gdt_error *e)
{
    gdt_run_cell *c = NULL;
    int pi = 0;
    return record_plan(r, rec, w, &c, &pi, e);
}

/* ------------------------------------------------------------ results */

static gdt_status check_bursts(const where *w, const cJSON *bursts, gdt_error *e)
{
    const cJSON *b;
    int i = 0;
    cJSON_ArrayForEach(b, bursts)
    {
        char jp[64];
        gdt_json_path_index(jp, sizeof jp, "/bursts", i++);
        gdt_status s = check_fields(w, jp, b, burst_fields, NFIELDS(burst_fields), e);
        if (s != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

/* A verified result carries its measurement: bursts, a time above 0 and
 * its noise. */
static gdt_status check_measurement(const where *w, const cJSON *rec, gdt_run_result *res,
                                    gdt_error *e)
{
    const cJSON *t = gdt_json_get(rec, "time_us"), *bursts = gdt_json_get(rec, "bursts");
    const cJSON *clocks = gdt_json_get(rec, "clocks"), *cupti = gdt_json_get(rec, "cupti");
    gdt_status s = bursts ? check_bursts(w, bursts, e) : GDT_STATUS_OK;
    if (s == GDT_STATUS_OK && clocks)
        s = check_fields(w, "/clocks", clocks, clock_fields, NFIELDS(clock_fields), e);
    if (s == GDT_STATUS_OK && cupti)
        s = check_fields(w, "/cupti", cupti, cupti_fields, NFIELDS(cupti_fields), e);
    if (s == GDT_STATUS_OK && gdt_json_get(cupti, "kernel"))
        s = check_fields(w, "/cupti/kernel", gdt_json_get(cupti, "kernel"), cupti_kernel_fields,
                         NFIELDS(cupti_kernel_fields), e);
    if (s != GDT_STATUS_OK || res->disposition != GDT_DISP_VERIFIED)
        return s;
    if (!t || !(t->valuedouble > 0))
        return wrong(w, "/time_us", "a time above 0 us (a verified plan's measurement)", t, e);
    if (!gdt_json_get(rec, "noise"))
        return wrong(w, "/noise", "the measurement's noise", NULL, e);
    if (cJSON_GetArraySize(bursts) < 1)
        return wrong(w, "/bursts", "the measured bursts (a verified plan's measurement)", bursts, e);
    const cJSON *last = cJSON_GetArrayItem(bursts, cJSON_GetArraySize(bursts) - 1);
    res->time_us = t->valuedouble;
    res->noise = gdt_json_num_or(rec, "noise", 0);
    res->host_us = gdt_json_num_or(cJSON_GetArrayItem(bursts, 0), "median_host_us", 0);
    res->samples = cJSON_GetArraySize(gdt_json_get(last, "device_us"));
    return GDT_STATUS_OK;
}

static gdt_status on_result(gdt_run *r, const cJSON *rec, const where *w, int line, gdt_error *e)
{
    gdt_run_cell *c = NULL;
    int pi = 0;
    gdt_status s = record_plan(r, rec, w, &c, &pi, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt_run_result *res = &c->result[pi];
    if (res->rec)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /plan: plan %d of cell %d has a result "
                             "already (line %d)", w->at, pi, num_int(rec, "cell", 0), res->line);
    if (!gdt_disposition_parse(str(rec, "disposition"), &res->disposition))
        return wrong(w, "/disposition", "one of verified, incorrect, failed, declined",
                     gdt_json_get(rec, "disposition"), e);
    if ((s = check_measurement(w, rec, res, e)) != GDT_STATUS_OK)
        return s;
    res->rec = rec;
    res->line = line;
    res->error = str(rec, "error");
    c->nresults++;
    r->results++;
    r->counts[res->disposition]++;
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------- rounds */

/* The plans a rounds record names: 2 to GDT_ROUNDS_PLANS_MAX distinct
 * plans of the cell, each measured in full (verified, not raced out). */
static gdt_status rounds_plans(const gdt_run_cell *c, const cJSON *rec, const where *w,
                               gdt_run_rounds *ro, gdt_error *e)
{
    const cJSON *pl = gdt_json_get(rec, "plans"), *x;
    char expected[96];
    int n = cJSON_GetArraySize(pl);
    snprintf(expected, sizeof expected, "2 to %d plan indices", GDT_ROUNDS_PLANS_MAX);
    if (n < 2 || n > GDT_ROUNDS_PLANS_MAX)
        return wrong(w, "/plans", expected, pl, e);
    snprintf(expected, sizeof expected, "a plan index below %d (the cell's plans)", c->nplans);
    ro->nplans = 0;
    cJSON_ArrayForEach(x, pl)
    {
        char jp[64];
        int64_t v = -1;
        gdt_json_path_index(jp, sizeof jp, "/plans", ro->nplans);
        if (gdt_json_int(x, w->at, jp, &v, NULL) != GDT_STATUS_OK || v >= c->nplans)
            return wrong(w, jp, expected, x, e);
        for (int i = 0; i < ro->nplans; i++)
            if (ro->plans[i] == v)
                return wrong(w, jp, "a plan not named before in /plans", x, e);
        const gdt_run_result *res = &c->result[v];
        if (res->disposition != GDT_DISP_VERIFIED || cJSON_IsTrue(gdt_json_get(res->rec, "raced_out")))
            return wrong(w, jp, "a plan measured in full (verified, not raced out)", x, e);
        ro->plans[ro->nplans++] = (int)v;
    }
    return GDT_STATUS_OK;
}

/* round_us, when there: per plan, one time above 0 per round. */
static gdt_status rounds_round_us(const cJSON *rec, const where *w, const gdt_run_rounds *ro,
                                  gdt_error *e)
{
    const cJSON *a = gdt_json_get(rec, "round_us"), *x;
    char expected[96];
    if (!a)
        return GDT_STATUS_OK;
    snprintf(expected, sizeof expected, "an array of %d arrays (one per plan)", ro->nplans);
    if (cJSON_GetArraySize(a) != ro->nplans)
        return wrong(w, "/round_us", expected, a, e);
    snprintf(expected, sizeof expected, "an array of %d times above 0 us (one per round)", ro->rounds);
    int i = 0;
    cJSON_ArrayForEach(x, a)
    {
        char jp[64];
        const cJSON *t;
        gdt_json_path_index(jp, sizeof jp, "/round_us", i++);
        if (!cJSON_IsArray(x) || cJSON_GetArraySize(x) != ro->rounds)
            return wrong(w, jp, expected, x, e);
        cJSON_ArrayForEach(t, x)
        {
            if (!cJSON_IsNumber(t) || !(t->valuedouble > 0))
                return wrong(w, jp, expected, x, e);
        }
    }
    return GDT_STATUS_OK;
}

/* A measured record (error "") carries one time above 0, one noise and
 * one ratio per plan; a failed one carries none of them. */
static gdt_status rounds_measured(const cJSON *rec, const where *w, gdt_run_rounds *ro, gdt_error *e)
{
    static const char *const keys[] = {"time_us", "noise", "ratios", "round_us", "measure_s"};
    char expected[96], jp[32];
    for (int k = 0; ro->error[0] && k < 5; k++) {
        gdt_json_path_key(jp, sizeof jp, "", keys[k]);
        if (gdt_json_get(rec, keys[k]))
            return wrong(w, jp, "nothing (the rounds failed: /error)", gdt_json_get(rec, keys[k]), e);
    }
    if (ro->error[0])
        return GDT_STATUS_OK;
    snprintf(expected, sizeof expected, "an array of %d numbers (one per plan)", ro->nplans);
    for (int k = 0; k < 3; k++) {
        const cJSON *v = gdt_json_get(rec, keys[k]);
        gdt_json_path_key(jp, sizeof jp, "", keys[k]);
        if ((k < 2 && !v) || (v && cJSON_GetArraySize(v) != ro->nplans))
            return wrong(w, jp, expected, v, e);
    }
    for (int i = 0; i < ro->nplans; i++) {
        const cJSON *t = cJSON_GetArrayItem(gdt_json_get(rec, "time_us"), i);
        gdt_json_path_index(jp, sizeof jp, "/time_us", i);
        if (!(t->valuedouble > 0))
            return wrong(w, jp, "a time above 0 us", t, e);
        ro->time_us[i] = t->valuedouble;
        ro->noise[i] = cJSON_GetArrayItem(gdt_json_get(rec, "noise"), i)->valuedouble;
    }
    return rounds_round_us(rec, w, ro, e);
}

static gdt_status on_rounds(gdt_run *r, const cJSON *rec, const where *w, int line, gdt_error *e)
{
    gdt_run_cell *c = NULL;
    gdt_status s = record_cell(r, rec, w, &c, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt_run_rounds *ro = &c->rounds;
    if (ro->rec)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cell: cell %d has a rounds record "
                             "already (line %d)", w->at, num_int(rec, "cell", 0), ro->line);
    if (!gdt_run_cell_complete(c))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cell: a rounds record for cell %d "
                             "before its last result (%d of %d plans have one)", w->at,
                             num_int(rec, "cell", 0), c->nresults, c->nplans);
    ro->rounds = num_int(rec, "rounds", 0);
    ro->error = str(rec, "error");
    if ((s = rounds_plans(c, rec, w, ro, e)) == GDT_STATUS_OK)
        s = rounds_measured(rec, w, ro, e);
    if (s != GDT_STATUS_OK)
        return s;
    ro->rec = rec;
    ro->line = line;
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ records */

static const field *fields_of(gdt_record_type t, int *n)
{
    static const struct { const field *f; int n; } tab[GDT_REC_COUNT] = {
        [GDT_REC_RUN] = {run_fields, NFIELDS(run_fields)},
        [GDT_REC_RESUME] = {resume_fields, NFIELDS(resume_fields)},
        [GDT_REC_CELL] = {cell_fields, NFIELDS(cell_fields)},
        [GDT_REC_CELL_ERROR] = {cell_error_fields, NFIELDS(cell_error_fields)},
        [GDT_REC_PLANS] = {plans_fields, NFIELDS(plans_fields)},
        [GDT_REC_ATTEMPT] = {attempt_fields, NFIELDS(attempt_fields)},
        [GDT_REC_RESULT] = {result_fields, NFIELDS(result_fields)},
        [GDT_REC_ROUNDS] = {rounds_fields, NFIELDS(rounds_fields)},
    };
    *n = tab[t].n;
    return tab[t].f;
}

static gdt_status record_type(const cJSON *rec, const where *w, gdt_record_type *t, gdt_error *e)
{
    const cJSON *v = gdt_json_get(rec, "type");
    for (int i = 0; cJSON_IsString(v) && i < GDT_REC_COUNT; i++)
        if (!strcmp(v->valuestring, record_names[i])) {
            *t = (gdt_record_type)i;
            return GDT_STATUS_OK;
        }
    return wrong(w, "/type", "one of run, resume, cell, cell_error, plans, attempt, result, rounds",
                 v, e);
}

static gdt_status on_record(gdt_run *r, const cJSON *rec, int line, gdt_error *e)
{
    where w;
    snprintf(w.at, sizeof w.at, "%s:%d", r->path, line);
    if (line == 1)
        return read_header(r, rec, &w, e);
    gdt_record_type t = GDT_REC_RUN;
    int n = 0;
    gdt_status s = record_type(rec, &w, &t, e);
    if (s == GDT_STATUS_OK && t == GDT_REC_RUN)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /type: a second run header (the header "
                             "is line 1 only)", w.at);
    const field *f = s == GDT_STATUS_OK ? fields_of(t, &n) : NULL;
    if (s == GDT_STATUS_OK)
        s = check_fields(&w, "", rec, f, n, e);
    if (s != GDT_STATUS_OK)
        return s;
    switch (t) {
    case GDT_REC_CELL:
        return on_cell(r, rec, &w, line, e);
    case GDT_REC_CELL_ERROR:
        return on_cell_error(r, rec, &w, e);
    case GDT_REC_PLANS:
        return on_plans(r, rec, &w, e);
    case GDT_REC_ATTEMPT:
        return on_attempt(r, rec, &w, e);
    case GDT_REC_RESULT:
        return on_result(r, rec, &w, line, e);
    case GDT_REC_ROUNDS:
        return on_rounds(r, rec, &w, line, e);
    default:
        return GDT_STATUS_OK; /* resume: nothing to index */
    }
}

static gdt_status build(gdt_run *r, gdt_journal_lines *l, gdt_error *e)
{
    r->tail = l->tail;
    if (l->n == 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s:1: expected the run header ({\"type\": "
                             "\"run\", ...}), got %s", r->path, l->tail.torn_bytes ? "a torn record" : "an empty journal");
    if (!(r->records = calloc((size_t)l->n, sizeof *r->records)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", r->path);
    for (int i = 0; i < l->n; i++) {
        r->records[r->nrecords++] = l->rec[i];
        l->rec[i] = NULL;
        gdt_status s = on_record(r, r->records[i], i + 1, e);
        if (s != GDT_STATUS_OK)
            return s;
    }
    return GDT_STATUS_OK;
}

static gdt_status load_lines(gdt_run *r, gdt_journal_lines *l, gdt_status s, gdt_run **out,
                             gdt_error *e)
{
    if (s == GDT_STATUS_OK)
        s = build(r, l, e);
    gdt_journal_lines_free(l);
    if (s != GDT_STATUS_OK) {
        gdt_run_destroy(r);
        return s;
    }
    *out = r;
    return GDT_STATUS_OK;
}

gdt_status gdt_run_parse(const char *text, size_t len, const char *name, gdt_run **out,
                         gdt_error *e)
{
    *out = NULL;
    gdt_run *r = calloc(1, sizeof *r);
    if (!r)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", name);
    snprintf(r->path, sizeof r->path, "%s", name);
    gdt_journal_lines l;
    gdt_status s = gdt_journal_parse(text, len, r->path, &l, e);
    return load_lines(r, &l, s, out, e);
}

gdt_status gdt_run_load(const char *dir, gdt_run **out, gdt_error *e)
{
    *out = NULL;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: expected a run directory (written by "
                             "`gdtune sweep --out`), got %s", dir,
                             stat(dir, &st) != 0 ? "no such directory" : "a file that is not a directory");
    gdt_run *r = calloc(1, sizeof *r);
    if (!r)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", dir);
    snprintf(r->path, sizeof r->path, "%s/%s", dir, GDT_JOURNAL_NAME);
    if (lstat(r->path, &st) != 0 || !S_ISREG(st.st_mode)) {
        gdt_status s = gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: expected the run's journal (a "
                                     "regular file), got %s", r->path,
                                     lstat(r->path, &st) != 0 ? "no such file" : "another kind of file");
        gdt_run_destroy(r);
        return s;
    }
    gdt_journal_lines l;
    gdt_status s = gdt_journal_read(r->path, &l, e);
    return load_lines(r, &l, s, out, e);
}

void gdt_run_destroy(gdt_run *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->ncells; i++) {
        free(r->cells[i].plan);
        free(r->cells[i].result);
    }
    free(r->cells);
    gdt_sweep_spec_destroy(r->spec);
    for (int i = 0; i < r->nrecords; i++)
        cJSON_Delete(r->records[i]);
    free(r->records);
    free(r);
}

bool gdt_run_cell_complete(const gdt_run_cell *c)
{
    return c->plans && c->nresults == c->nplans;
}

bool gdt_run_plan_figures(const gdt_run_cell *c, int pi, double *time_us, double *noise)
{
    const gdt_run_rounds *ro = &c->rounds;
    *time_us = c->result[pi].time_us, *noise = c->result[pi].noise;
    for (int i = 0; ro->rec && !ro->error[0] && i < ro->nplans; i++)
        if (ro->plans[i] == pi) {
            *time_us = ro->time_us[i], *noise = ro->noise[i];
            return true;
        }
    return false;
}

gdt_measured_plan gdt_run_plan_measured(const gdt_run_cell *c, int pi, double floor)
{
    const gdt_run_plan *pl = &c->plan[pi];
    const gdt_run_result *res = &c->result[pi];
    gdt_measured_plan m = {.id = pl->id, .is_backend = pl->backend, .untimed_position = pl->untimed,
                           .host_us = res->host_us, .samples = res->samples};
    gdt_run_plan_figures(c, pi, &m.time_us, &m.noise);
    if (m.noise < floor)
        m.noise = floor;
    return m;
}
