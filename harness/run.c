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
#include "gdt_plan_json.h"
#include "gdt_record.h"
#include "gdt_run.h"
#include "gdt_util.h"
#include "gdt_wire.h"
#include "gdt_worker_proto.h"

/* Where a record is: "<path>:<line>". */
typedef struct where {
    char at[4200];
} where;

static gdt_status wrong(const where *w, const char *jp, const char *expected, const cJSON *got,
                        gdt_error *e)
{
    return gdt__record_wrong(w->at, jp, expected, got, e);
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

/* A number the record may leave out: NaN when it does (nothing measured
 * must not read as 0). */
static double num_nan(const cJSON *v)
{
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* What the run owns and no reader outside run.c sees: the records as
 * parsed (the typed fields' strings point into them) and the typed
 * fields' arrays. */
struct gdt_run_store {
    cJSON **records;
    int nrecords;
    const cJSON *header; /* records[0], the run record */
    void **owned;
    int nowned, cap;
};

/* n bytes (zeroed) the run owns until gdt_run_destroy; NULL: out of memory. */
static void *own(gdt_run *r, size_t n)
{
    struct gdt_run_store *st = r->store;
    if (st->nowned == st->cap) {
        int cap = st->cap ? 2 * st->cap : 64;
        void **q = realloc(st->owned, sizeof *q * (size_t)cap);
        if (!q)
            return NULL;
        st->owned = q, st->cap = cap;
    }
    void *p = calloc(1, n ? n : 1);
    if (p)
        st->owned[st->nowned++] = p;
    return p;
}

/* The numbers of the array a (null as NaN: an output that held NaN or Inf)
 * into an array the run owns; false: out of memory. */
static bool read_nums(gdt_run *r, const cJSON *a, const double **out, int *n)
{
    const cJSON *x;
    int k = 0;
    double *v = own(r, sizeof *v * (size_t)cJSON_GetArraySize(a));
    if (!v)
        return false;
    cJSON_ArrayForEach(x, a)
        v[k++] = num_nan(x);
    *out = v, *n = k;
    return true;
}

/* ------------------------------------------------------------ header */

/* The device's name and versions: "" and 0 where the header left one out
 * (record.c: only name and arch are required). */
static void read_device(const cJSON *d, gdt_run_device *v)
{
    v->name = str(d, gdt__wire_key(GDT__W_DEVICE_NAME));
    v->uuid = str(d, gdt__wire_key(GDT__W_DEVICE_UUID));
    v->arch = (int)gdt__wire_num_or(d, GDT__W_DEVICE_ARCH, 0);
    v->sm_count = (int)gdt__wire_num_or(d, GDT__W_DEVICE_SM_COUNT, 0);
    v->driver_version = (int)gdt__wire_num_or(d, GDT__W_DEVICE_DRIVER_VERSION, 0);
    v->cuda_version = (int)gdt__wire_num_or(d, GDT__W_DEVICE_CUDA_VERSION, 0);
    v->cudnn_version = (int)gdt__wire_num_or(d, GDT__W_DEVICE_CUDNN_VERSION, 0);
    v->nvrtc_version = (int)gdt__wire_num_or(d, GDT__W_DEVICE_NVRTC_VERSION, 0);
    v->l2_bytes = (int64_t)gdt__wire_num_or(d, GDT__W_DEVICE_L2_BYTES, 0);
    v->sm_clock_khz = (int64_t)gdt__wire_num_or(d, GDT__W_DEVICE_SM_CLOCK_KHZ, 0);
    v->mem_clock_khz = (int64_t)gdt__wire_num_or(d, GDT__W_DEVICE_MEM_CLOCK_KHZ, 0);
}

/* The header's prior order, its table and rules passed (at most one table
 * per family, each family known, sha256 or note). */
static void read_prior(const cJSON *p, gdt_run_prior *v)
{
    const cJSON *t;
    memset(v, 0, sizeof *v);
    if (!p || cJSON_IsNull(p))
        return;
    v->recorded = true;
    v->dir = str(p, "dir");
    cJSON_ArrayForEach(t, gdt_json_get(p, "tables"))
    {
        gdt_run_prior_table *pt = &v->tables[v->ntables++];
        gdt_family_parse(str(t, "family"), &pt->family, NULL);
        pt->path = str(t, "path");
        pt->sha256 = gdt_json_str_or(t, "sha256", NULL);
        pt->note = str(t, "note");
    }
}

/* The header's argv as strings the run owns the array of. */
static bool read_argv(gdt_run *r, const cJSON *a)
{
    const cJSON *w;
    const char **v = own(r, sizeof *v * (size_t)cJSON_GetArraySize(a));
    if (!v)
        return false;
    r->argc = 0;
    cJSON_ArrayForEach(w, a)
        v[r->argc++] = cJSON_GetStringValue(w);
    r->args = v;
    return true;
}

/* The header's settings, its table and rule passed. */
static void read_options(const cJSON *op, gdt_run_options *o)
{
    const cJSON *x;
    o->nbursts = 0;
    cJSON_ArrayForEach(x, gdt_json_get(op, "bursts"))
        o->bursts[o->nbursts++] = (int)x->valuedouble;
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
    o->planted = str(op, "planted");
}

/* The header's spec, its cells those the run sweeps (its family, its
 * shard). */
static gdt_status header_spec(gdt_run *r, const where *w, gdt_error *e)
{
    const char *spec = r->spec_text;
    char sub[GDT_ERROR_MAX];
    unsigned mask = 0;
    gdt_error pe = {0};
    if (gdt_family_parse_set(r->family, &mask, &pe) != GDT_STATUS_OK)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /family: %s", w->at, pe.msg);
    if (gdt_sweep_spec_parse(spec, strlen(spec), r->spec_source, r->quick, &r->spec,
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
    gdt_status s = gdt__record_check(gdt__record_table(GDT_REC_RUN), w->at, "", h, e);
    if (s != GDT_STATUS_OK)
        return s;
    read_options(gdt_json_get(h, "options"), &r->options);
    r->store->header = h;
    read_prior(gdt_json_get(h, "prior"), &r->prior);
    if (!read_argv(r, gdt_json_get(h, "argv")))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", w->at);
    read_device(gdt_json_get(h, "device"), &r->dev);
    r->candidates = cJSON_GetStringValue(gdt_json_get(h, "candidates"));
    r->family = str(h, "family");
    r->source_digest = str(h, "source_digest");
    r->candidates_digest = str(h, "candidates_digest");
    r->started = str(h, "started");
    r->gdtune_version = str(h, "gdtune_version");
    r->spec_source = str(h, "spec_source");
    r->spec_digest = str(h, "spec_digest");
    r->spec_text = str(h, "spec");
    r->quick = cJSON_IsTrue(gdt_json_get(h, "quick"));
    r->arch = num_int(h, "arch", 0);
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

/* A result nothing was read into: no record, NaN for what it would have
 * measured. */
static gdt_run_result no_result(void)
{
    return (gdt_run_result){.build_s = NAN, .measure_s = NAN, .heat_s = NAN, .heat_mhz = NAN,
                            .clocks = {false, NAN, NAN, NAN}};
}

/* One plan object, its table and rule passed: an engine of the cell's
 * family (a backend engine is of every family). */
static gdt_status read_plan(const where *w, const char *jp, const cJSON *o, gdt_family fam,
                            gdt_run_plan *p, gdt_error *e)
{
    char jk[256];
    bool backend;
    gdt_family f;
    int slot;
    memset(p, 0, sizeof *p);
    gdt_status s = gdt_plan_json_read(o, w->at, jp, true, &p->id, &p->name, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt_engine_id_decode(p->id.engine_id, &backend, &f, &slot, NULL);
    p->tag = str(o, "tag");
    p->backend = backend;
    p->untimed = num_int(o, "untimed", 0);
    if (!backend && f != fam)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: %s: engine %lld is not a gdtune engine "
                             "of family %s", w->at, gdt_json_path_key(jk, sizeof jk, jp, "engine_id"),
                             (long long)p->id.engine_id, gdt_family_name(fam));
    return GDT_STATUS_OK;
}

static gdt_status on_plans(gdt_run *r, const cJSON *rec, const where *w, gdt_error *e)
{
    gdt_run_cell *c = NULL;
    gdt_status s = record_cell(r, rec, w, &c, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (c->listed)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /plans: cell %d has its plan list "
                             "already", w->at, num_int(rec, "cell", 0));
    const cJSON *pl = gdt_json_get(rec, "plans"), *o;
    int n = cJSON_GetArraySize(pl), i = 0;
    c->plan = calloc((size_t)n + 1, sizeof *c->plan);
    c->result = calloc((size_t)n + 1, sizeof *c->result);
    c->other = calloc((size_t)n + 1, sizeof *c->other);
    if (!c->plan || !c->result || !c->other)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", w->at);
    for (int k = 0; k < n; k++)
        c->result[k] = c->other[k] = no_result();
    cJSON_ArrayForEach(o, pl)
    {
        char jp[64];
        gdt_json_path_index(jp, sizeof jp, "/plans", i);
        if ((s = read_plan(w, jp, o, c->spec->family, &c->plan[i++], e)) != GDT_STATUS_OK)
            return s;
    }
    c->listed = true;
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
    if (!c->listed)
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

/* A verified result's measurement (its rule passed: bursts, a time above
 * 0 and its noise). */
static void read_measurement(const cJSON *rec, gdt_run_result *res)
{
    const cJSON *bursts = gdt_json_get(rec, "bursts");
    const cJSON *last = cJSON_GetArrayItem(bursts, cJSON_GetArraySize(bursts) - 1);
    res->time_us = gdt_json_num_or(rec, "time_us", 0);
    res->noise = gdt_json_num_or(rec, "noise", 0);
    res->host_us = gdt__wire_num_or(cJSON_GetArrayItem(bursts, 0), GDT__W_BURST_MEDIAN_HOST_US, 0);
    res->samples = cJSON_GetArraySize(gdt__wire_get(last, GDT__W_BURST_DEVICE_US));
}

/* One burst object, its table passed (burst, host_us, device_us and
 * total_us required). */
static bool read_burst(gdt_run *r, const cJSON *b, gdt_run_burst *t)
{
    const cJSON *cm = gdt__wire_get(b, GDT__W_BURST_CLOCK_MHZ);
    t->burst = (int)gdt__wire_num_or(b, GDT__W_BURST_BURST, 0);
    t->dropped = (int)gdt__wire_num_or(b, GDT__W_BURST_DROPPED, 0);
    t->median_host_us = num_nan(gdt__wire_get(b, GDT__W_BURST_MEDIAN_HOST_US));
    t->median_device_us = num_nan(gdt__wire_get(b, GDT__W_BURST_MEDIAN_DEVICE_US));
    t->rel_spread = num_nan(gdt__wire_get(b, GDT__W_BURST_REL_SPREAD));
    return read_nums(r, gdt__wire_get(b, GDT__W_BURST_HOST_US), &t->host_us, &t->nhost) &&
           read_nums(r, gdt__wire_get(b, GDT__W_BURST_DEVICE_US), &t->device_us, &t->ndevice) &&
           read_nums(r, gdt__wire_get(b, GDT__W_BURST_TOTAL_US), &t->total_us, &t->ntotal) &&
           (!cm || read_nums(r, cm, &t->clock_mhz, &t->nclock));
}

static bool read_bursts(gdt_run *r, const cJSON *rec, gdt_run_result *res)
{
    const cJSON *a = gdt__wire_get(rec, GDT__W_RESULT_R_BURSTS), *b;
    gdt_run_burst *t = own(r, sizeof *t * (size_t)cJSON_GetArraySize(a));
    if (!t)
        return false;
    res->nbursts = 0;
    cJSON_ArrayForEach(b, a)
        if (!read_burst(r, b, &t[res->nbursts++]))
            return false;
    res->bursts = t;
    return true;
}

/* n numbers of the array a into v (the record's rule: 3 numbers). */
static void read_dims(const cJSON *a, int *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = (int)cJSON_GetNumberValue(cJSON_GetArrayItem(a, i));
}

/* The traced burst, its table and rule passed (the kernel's grid, block
 * and cluster 3 numbers each). */
static void read_traced(const cJSON *rec, gdt_run_traced *t)
{
    const cJSON *c = gdt__wire_get(rec, GDT__W_RESULT_R_CUPTI), *k = gdt__wire_get(c, GDT__W_CUPTI_KERNEL);
    gdt_cupti_kernel *m = &t->c.main;
    memset(t, 0, sizeof *t);
    t->recorded = c != NULL;
    t->burst = (int)gdt__wire_num_or(c, GDT__W_CUPTI_BURST, 0);
    t->c.kernels = gdt__wire_num_or(c, GDT__W_CUPTI_KERNELS, 0);
    t->c.kernel_us = gdt__wire_num_or(c, GDT__W_CUPTI_KERNEL_US, 0);
    t->c.event_us = gdt__wire_num_or(c, GDT__W_CUPTI_EVENT_US, 0);
    t->c.gap_us = gdt__wire_num_or(c, GDT__W_CUPTI_GAP_US, 0);
    t->c.span_us = gdt__wire_num_or(c, GDT__W_CUPTI_SPAN_US, 0);
    if (!k)
        return;
    snprintf(m->name, sizeof m->name, "%s", gdt__wire_str(k, GDT__W_CUPTI_K_NAME));
    m->share = gdt__wire_num_or(k, GDT__W_CUPTI_K_SHARE, 0);
    m->registers = (int)gdt__wire_num_or(k, GDT__W_CUPTI_K_REGISTERS, 0);
    m->smem = (int)gdt__wire_num_or(k, GDT__W_CUPTI_K_SMEM, 0);
    read_dims(gdt__wire_get(k, GDT__W_CUPTI_K_GRID), m->grid, 3);
    read_dims(gdt__wire_get(k, GDT__W_CUPTI_K_BLOCK), m->block, 3);
    read_dims(gdt__wire_get(k, GDT__W_CUPTI_K_CLUSTER), m->cluster, 3);
}

/* The clock probe's figures (NaN where left out). */
static void read_clocks(const cJSON *rec, gdt_run_clocks *c)
{
    const cJSON *o = gdt__wire_get(rec, GDT__W_RESULT_R_CLOCKS);
    c->recorded = o != NULL;
    c->rated_mhz = num_nan(gdt__wire_get(o, GDT__W_CLOCKS_RATED_MHZ));
    c->min_mhz = num_nan(gdt__wire_get(o, GDT__W_CLOCKS_MIN_MHZ));
    c->max_mhz = num_nan(gdt__wire_get(o, GDT__W_CLOCKS_MAX_MHZ));
}

/* The arrays of a result: its relative errors (null, an output that held
 * NaN or Inf, as NaN), bursts and cold times. */
static bool read_arrays(gdt_run *r, const cJSON *rec, gdt_run_result *res)
{
    const cJSON *err = gdt__wire_get(rec, GDT__W_RESULT_R_VERIFY_ERR);
    const cJSON *cold = gdt__wire_get(rec, GDT__W_RESULT_R_COLD_US);
    res->has_verify_err = err != NULL;
    return read_nums(r, err, &res->verify_err, &res->nerr) && read_bursts(r, rec, res) &&
           (!cold || read_nums(r, cold, &res->cold_us, &res->ncold));
}

static double opt_num(const cJSON *rec, gdt__wire_field id)
{
    return num_nan(gdt__wire_get(rec, id));
}

/* A result record's disposition and measurement into res (its fields and
 * rule were checked with the record, record.c). */
static gdt_status read_result(gdt_run *r, const cJSON *rec, const where *w, int line,
                              gdt_run_result *res, gdt_error *e)
{
    bool again = res->again;
    *res = no_result();
    res->again = again;
    gdt_disposition_parse(str(rec, "disposition"), &res->disposition);
    if (res->disposition == GDT_DISP_VERIFIED)
        read_measurement(rec, res);
    res->raced_out = gdt__wire_true(rec, GDT__W_RESULT_R_RACED_OUT);
    res->raced_late = gdt__wire_true(rec, GDT__W_RESULT_R_RACED_LATE);
    res->converged = gdt__wire_true(rec, GDT__W_RESULT_R_CONVERGED);
    res->build_s = opt_num(rec, GDT__W_RESULT_R_BUILD_S);
    res->measure_s = opt_num(rec, GDT__W_RESULT_R_MEASURE_S);
    res->heat_s = opt_num(rec, GDT__W_RESULT_R_HEAT_S);
    res->heat_mhz = opt_num(rec, GDT__W_RESULT_R_HEAT_MHZ);
    read_clocks(rec, &res->clocks);
    if (!read_arrays(r, rec, res))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", w->at);
    res->journaled = true;
    res->line = line;
    res->error = str(rec, "error");
    read_traced(rec, &res->traced);
    return GDT_STATUS_OK;
}

/* A plan's second series (clock_outlier): once, after its verified result
 * and before its cell's rounds; the one that counts goes in c->result. */
static gdt_status on_again(gdt_run *r, gdt_run_cell *c, int pi, const cJSON *rec, const where *w,
                           int line, gdt_error *e)
{
    gdt_run_result *first = &c->result[pi], again = {.again = true};
    const cJSON *co = gdt_json_get(rec, "clock_outlier");
    int ci = num_int(rec, "cell", 0); /* co's fields: checked with the record's (record.c) */
    if (!first->journaled || first->disposition != GDT_DISP_VERIFIED)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /clock_outlier: a re-measure of plan %d "
                             "of cell %d, which has no verified result before it", w->at, pi, ci);
    if (c->rounds.journaled)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /clock_outlier: a re-measure of plan %d "
                             "of cell %d after the cell's rounds (line %d)", w->at, pi, ci, c->rounds.line);
    if (c->other[pi].journaled)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /clock_outlier: plan %d of cell %d was "
                             "re-measured already (line %d)", w->at, pi, ci,
                             (first->again ? first : &c->other[pi])->line);
    gdt_status s = read_result(r, rec, w, line, &again, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (!cJSON_IsTrue(gdt_json_get(co, "counts"))) {
        c->other[pi] = again;
        return GDT_STATUS_OK;
    }
    r->counts[first->disposition]--;
    r->counts[again.disposition]++;
    c->other[pi] = *first;
    *first = again;
    return GDT_STATUS_OK;
}

static gdt_status on_result(gdt_run *r, const cJSON *rec, const where *w, int line, gdt_error *e)
{
    gdt_run_cell *c = NULL;
    int pi = 0;
    gdt_status s = record_plan(r, rec, w, &c, &pi, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (gdt_json_get(rec, "clock_outlier"))
        return on_again(r, c, pi, rec, w, line, e);
    gdt_run_result *res = &c->result[pi];
    if (res->journaled)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /plan: plan %d of cell %d has a result "
                             "already (line %d)", w->at, pi, num_int(rec, "cell", 0), res->line);
    if ((s = read_result(r, rec, w, line, res, e)) != GDT_STATUS_OK)
        return s;
    c->nresults++;
    r->results++;
    r->counts[res->disposition]++;
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------- rounds */

/* The plans a rounds record names (its rule passed: 2 to
 * GDT_ROUNDS_PLANS_MAX distinct indices), each a plan of the cell with a
 * metric series (verified; measured in full, or raced out late: what the
 * sweep's rounds take, harness/sweep.c), and what they measured. */
static gdt_status rounds_plans(const gdt_run_cell *c, const cJSON *rec, const where *w,
                               gdt_run_rounds *ro, gdt_error *e)
{
    const cJSON *x;
    char expected[96];
    snprintf(expected, sizeof expected, "a plan index below %d (the cell's plans)", c->nplans);
    ro->nplans = 0;
    cJSON_ArrayForEach(x, gdt_json_get(rec, "plans"))
    {
        char jp[64];
        double v = x->valuedouble;
        gdt_json_path_index(jp, sizeof jp, "/plans", ro->nplans);
        if (v >= c->nplans)
            return wrong(w, jp, expected, x, e);
        const gdt_run_result *res = &c->result[(int)v];
        if (res->disposition != GDT_DISP_VERIFIED || (res->raced_out && !res->raced_late))
            return wrong(w, jp, "a plan with a metric series (verified; measured in full, or raced out late)",
                         x, e);
        int i = ro->nplans++;
        ro->plans[i] = (int)v;
        ro->time_us[i] = cJSON_GetNumberValue(cJSON_GetArrayItem(gdt_json_get(rec, "time_us"), i));
        ro->noise[i] = cJSON_GetNumberValue(cJSON_GetArrayItem(gdt_json_get(rec, "noise"), i));
    }
    return GDT_STATUS_OK;
}

static gdt_status on_rounds(gdt_run *r, const cJSON *rec, const where *w, int line, gdt_error *e)
{
    gdt_run_cell *c = NULL;
    gdt_status s = record_cell(r, rec, w, &c, e);
    if (s != GDT_STATUS_OK)
        return s;
    gdt_run_rounds *ro = &c->rounds;
    if (ro->journaled)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cell: cell %d has a rounds record "
                             "already (line %d)", w->at, num_int(rec, "cell", 0), ro->line);
    if (!gdt_run_cell_complete(c))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /cell: a rounds record for cell %d "
                             "before its last result (%d of %d plans have one)", w->at,
                             num_int(rec, "cell", 0), c->nresults, c->nplans);
    ro->rounds = num_int(rec, "rounds", 0);
    ro->error = str(rec, "error");
    if ((s = rounds_plans(c, rec, w, ro, e)) != GDT_STATUS_OK)
        return s;
    ro->journaled = true;
    ro->measure_s = num_nan(gdt_json_get(rec, "measure_s"));
    ro->line = line;
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ records */

static gdt_status record_type(const cJSON *rec, const where *w, gdt_record_type *t, gdt_error *e)
{
    const cJSON *v = gdt_json_get(rec, "type");
    for (int i = 0; cJSON_IsString(v) && i < GDT_REC_COUNT; i++)
        if (!strcmp(v->valuestring, gdt_record_type_name((gdt_record_type)i))) {
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
    gdt_status s = record_type(rec, &w, &t, e);
    if (s == GDT_STATUS_OK && t == GDT_REC_RUN)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s: /type: a second run header (the header "
                             "is line 1 only)", w.at);
    if (s == GDT_STATUS_OK)
        s = gdt__record_check(gdt__record_table(t), w.at, "", rec, e);
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
    struct gdt_run_store *st = r->store;
    if (!(st->records = calloc((size_t)l->n, sizeof *st->records)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory", r->path);
    for (int i = 0; i < l->n; i++) {
        st->records[st->nrecords++] = l->rec[i];
        l->rec[i] = NULL;
        gdt_status s = on_record(r, st->records[i], i + 1, e);
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
    return GDT_CREATED(s, r, gdt_run_destroy, out);
}

static gdt_run *run_new(void)
{
    gdt_run *r = calloc(1, sizeof *r);
    if (r && !(r->store = calloc(1, sizeof *r->store))) {
        free(r);
        r = NULL;
    }
    return r;
}

gdt_status gdt_run_parse(const char *text, size_t len, const char *name, gdt_run **out,
                         gdt_error *e)
{
    *out = NULL;
    gdt_run *r = run_new();
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
    gdt_run *r = run_new();
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

gdt_status gdt_run_readback(const char *dir, gdt_run **out, gdt_error *e)
{
    gdt_status s = gdt_run_load(dir, out, e);
    if (s == GDT_STATUS_BAD_INPUT)
        s = gdt_error_prefix(e, GDT_STATUS_INTERNAL, "the run's own journal does not read back "
                             "through the strict reader: ");
    return s;
}

void gdt_run_destroy(gdt_run *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->ncells; i++) {
        free(r->cells[i].plan);
        free(r->cells[i].result);
        free(r->cells[i].other);
    }
    free(r->cells);
    gdt_sweep_spec_destroy(r->spec);
    struct gdt_run_store *st = r->store;
    for (int i = 0; st && i < st->nrecords; i++)
        cJSON_Delete(st->records[i]);
    for (int i = 0; st && i < st->nowned; i++)
        free(st->owned[i]);
    if (st) {
        free(st->records);
        free(st->owned);
    }
    free(st);
    free(r);
}

bool gdt_run_cell_complete(const gdt_run_cell *c)
{
    return c->listed && c->nresults == c->nplans;
}

const gdt_run_result *gdt_run_first_series(const gdt_run_cell *c, int pi)
{
    return c->result[pi].again ? &c->other[pi] : &c->result[pi];
}

const gdt_run_burst *gdt_run_largest_burst(const gdt_run_result *res)
{
    const gdt_run_burst *best = NULL;
    for (int i = 0; i < res->nbursts; i++)
        if (!best || res->bursts[i].burst > best->burst)
            best = &res->bursts[i];
    return best;
}

/* The value at a JSON pointer of one or two levels ("/options/rounds"). */
static const cJSON *at_pointer(const cJSON *o, const char *ptr)
{
    char key[64];
    for (const char *p = ptr; o && *p == '/';) {
        size_t n = strcspn(p + 1, "/");
        snprintf(key, sizeof key, "%.*s", (int)n, p + 1);
        o = gdt_json_get(o, key);
        p += n + 1;
    }
    return o;
}

gdt_status gdt_run_header_value(const gdt_run *r, const char *pointer, char **json, gdt_error *e)
{
    const cJSON *v = r->store ? at_pointer(r->store->header, pointer) : NULL;
    *json = v ? cJSON_PrintUnformatted(v) : NULL;
    if (v && !*json)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s:1: %s: out of memory", r->path, pointer);
    return GDT_STATUS_OK;
}
