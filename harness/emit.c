/* Tables from journals: the complete cells of one or more runs, as the
 * journal's model read them, through gdt_tables_write.  One path for the
 * end of a sweep, `tables emit` and `merge`. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_emit.h"
#include "gdt_emit_report.h"
#include "gdt_plan_figures.h"
#include "gdtune/candidates.h"
#include "gdtune/tables.h"

static gdt_mode tag_mode(const char *tag, bool backend)
{
    gdt_mode m;
    if (!backend)
        return GDT_MODE_OPENSOURCE;
    if (gdt_mode_parse(tag, &m, NULL) == GDT_STATUS_OK)
        return m;
    return GDT_MODE_COUNT; /* knob-enumerated: no heuristic mode made it */
}

/* The verified plans of one cell as the table writer takes them, each
 * plan's noise at least the spec's floor. */
static gdt_status measured_cell(const gdt_run_cell *c, double floor, gdt_measured_cell *mc,
                                gdt_error *e)
{
    mc->problem = c->spec->problem;
    mc->nplans = 0;
    if (!(mc->plans = calloc((size_t)c->nplans + 1, sizeof *mc->plans)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
    for (int pi = 0; pi < c->nplans; pi++) {
        const gdt_run_plan *pl = &c->plan[pi];
        if (c->result[pi].disposition != GDT_DISP_VERIFIED)
            continue;
        mc->plans[mc->nplans] = gdt_run_plan_measured(c, pi, floor);
        mc->plans[mc->nplans++].mode = tag_mode(pl->tag, pl->backend);
    }
    return GDT_STATUS_OK;
}

/* The run's header: what measured it, on what (the tables name it). */
static void provenance(const gdt_run *r, gdt_provenance *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->device_name, sizeof p->device_name, "%s", r->dev.name);
    p->arch = r->arch;
    p->driver_version = r->dev.driver_version;
    p->cuda_version = r->dev.cuda_version;
    p->cudnn_version = r->dev.cudnn_version;
    p->nvrtc_version = r->dev.nvrtc_version;
    snprintf(p->gdtune_version, sizeof p->gdtune_version, "%s", r->gdtune_version);
    snprintf(p->source_digest, sizeof p->source_digest, "%s", r->source_digest);
    snprintf(p->sweep_digest, sizeof p->sweep_digest, "%s", r->spec->digest);
    snprintf(p->candidates_digest, sizeof p->candidates_digest, "%s", r->candidates_digest);
}

/* A cell enters the tables only when every plan of its list has a result:
 * a cell cut short by a killed sweep would rank a partial list. */
static bool cell_complete(const char *verb, const gdt_run_cell *c)
{
    if (c->listed && !gdt_run_cell_complete(c))
        fprintf(stderr, "%s: %s: %d of %d plans have a result: cell left out of the "
                "tables\n", verb, c->spec->shape, c->nresults, c->nplans);
    return gdt_run_cell_complete(c);
}

/* The cells of one family taken so far, each with its problem key (which
 * tells a cell measured twice) and the run it came from. */
typedef struct family_cells {
    gdt_measured_cell *cells;
    char **keys;
    int *from;
    int n, cap;
    int raced_first; /* cells whose fastest plan was raced out (fastest_raced_out) */
} family_cells;

/* What a merge keeps of a run once its cells are taken: not its records,
 * so that merging many shards holds one journal at a time. */
typedef struct merged_run {
    char *path;   /* its journal */
    char *family; /* the FAMILY argument it swept */
    int shard_i, shard_n;
} merged_run;

/* What the runs merged into one set of tables must share, as JSON pointers
 * into the run header: the build, the candidate rows, the driver and
 * libraries, and every setting that changes what a plan measures (the
 * device model and the spec are same_sweep's; the GPUs' UUIDs may differ:
 * shards run on several machines). */
static const char *const same_fields[] = {
    "/gdtune_version", "/source_digest", "/candidates_digest", "/quick",
    "/device/driver_version", "/device/cuda_version", "/device/cudnn_version", "/device/nvrtc_version",
    "/options/bursts", "/options/target_rel", "/options/max_plan_seconds", "/options/deadline",
    "/options/cudnn_knob_cap", "/options/race", "/options/cupti", "/options/rounds",
};
#define NSAME ((int)(sizeof same_fields / sizeof *same_fields))

typedef struct merge {
    const char *verb;    /* "gdtune sweep", "gdtune merge", ...: its messages' prefix */
    char *same[NSAME];   /* the first run's values of same_fields as JSON text (NULL: absent) */
    char prior[1024];    /* the first run's prior tables' digests (prior_digests) */
    gdt_provenance prov; /* the first run's: the tables name it */
    char device[128], spec_source[PATH_MAX], spec_digest[65];
    unsigned families;
    family_cells fam[GDT_FAMILY_COUNT];
    const gdt_run_cells *validation; /* a validation sweep's cells, or NULL */
    merged_run *runs;
    int nruns, cap;
    gdt_emit_report *rep; /* what it did, for a summary; NULL: none */
} merge;

static bool grow(void **p, int cap, size_t size)
{
    void *q = realloc(*p, (size_t)cap * size);
    if (q)
        *p = q;
    return q != NULL;
}

static void append(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t n, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (used < n)
        vsnprintf(buf + used, n - used, fmt, ap);
    va_end(ap);
}

/* Room for one more cell in fc. */
static gdt_status family_room(family_cells *fc, gdt_error *e)
{
    int cap = fc->cap ? 2 * fc->cap : 64;
    if (fc->n < fc->cap)
        return GDT_STATUS_OK;
    if (!grow((void **)&fc->cells, cap, sizeof *fc->cells) ||
        !grow((void **)&fc->keys, cap, sizeof *fc->keys) || !grow((void **)&fc->from, cap, sizeof *fc->from))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
    fc->cap = cap;
    return GDT_STATUS_OK;
}

/* A cell two runs measured: refused, and kept as the summary's conflict. */
static gdt_status measured_twice(const merge *m, const char *key, const char *first, const char *second,
                                 gdt_error *e)
{
    gdt_status s = gdt__emit_report_conflict(m->rep, key, first, second, e);
    return s ? s : gdt_error_set(e, GDT_STATUS_BAD_INPUT, "cell %s is measured in both %s and %s: merge "
                                 "runs of disjoint cells (--shard)", key, first, second);
}

/* Whether the cell's fastest plan, by the figure the tables take, was
 * raced out and is not in the cell's rounds: its place then rests on one
 * series at the cell's clock, which racing had judged slower than the
 * cell's top (docs/racing.md, "Rounds"). */
static bool fastest_raced_out(const gdt_run_cell *c)
{
    int best = -1;
    double best_us = 0, t, noise;
    bool best_in_rounds = false;
    for (int pi = 0; pi < c->nplans; pi++) {
        if (c->result[pi].disposition != GDT_DISP_VERIFIED)
            continue;
        bool in_rounds = gdt_run_plan_figures(c, pi, &t, &noise);
        if (best < 0 || t < best_us)
            best = pi, best_us = t, best_in_rounds = in_rounds;
    }
    return best >= 0 && !best_in_rounds && c->result[best].raced_out;
}

/* Appends the complete cells of family f in run r (the merge's last run);
 * a cell that an earlier run already gave is refused, naming both runs. */
static gdt_status collect_family(merge *m, const gdt_run *r, gdt_family f, gdt_error *e)
{
    family_cells *fc = &m->fam[f];
    for (int ci = 0; ci < r->ncells; ci++) {
        const gdt_run_cell *c = &r->cells[ci];
        char key[512];
        gdt_problem_key(&c->spec->problem, key, sizeof key);
        gdt_status s = GDT_STATUS_OK;
        if (c->spec->family != f)
            continue;
        if (!cell_complete(m->verb, c)) {
            if (c->listed && (s = gdt__emit_report_left_out(m->rep, key, r->path, c->nresults, c->nplans, e)))
                return s;
            continue;
        }
        for (int k = 0; k < fc->n; k++)
            if (!strcmp(key, fc->keys[k]))
                return measured_twice(m, key, m->runs[fc->from[k]].path, r->path, e);
        s = family_room(fc, e);
        if (s == GDT_STATUS_OK)
            s = measured_cell(c, r->spec->noise_floor, &fc->cells[fc->n], e);
        if (s == GDT_STATUS_OK && fc->cells[fc->n].nplans > 0 &&
            !(fc->keys[fc->n] = strdup(key)))
            s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
        if (s != GDT_STATUS_OK || fc->cells[fc->n].nplans == 0) {
            free(fc->cells[fc->n].plans);
            if (s != GDT_STATUS_OK)
                return s;
            continue;
        }
        fc->raced_first += fastest_raced_out(c);
        fc->from[fc->n++] = m->nruns - 1;
        gdt__emit_report_taken(m->rep);
    }
    return GDT_STATUS_OK;
}

static gdt_status emit_family(const merge *m, gdt_family f, const char *dir, gdt_error *e)
{
    const family_cells *fc = &m->fam[f];
    if (fc->n == 0) {
        fprintf(stderr, "%s: %s: no cell has a verified plan: no table written\n", m->verb,
                gdt_family_name(f));
        return gdt__emit_report_table(m->rep, f, 0, NULL, e);
    }
    const gdt_run_cells *v = m->validation;
    gdt_status s = v && v->n[f] > 0 ? gdt_tables_write_validated(dir, f, &m->prov, fc->cells, fc->n, v->cells[f],
                                                                 v->n[f], e)
                                    : gdt_tables_write(dir, f, &m->prov, fc->cells, fc->n, e);
    if (s == GDT_STATUS_OK)
        fprintf(stderr, "%s: wrote %s/%s.{tuning,placement}.json (%d cells)\n", m->verb, dir,
                gdt_family_name(f), fc->n);
    if (s == GDT_STATUS_OK && fc->raced_first > 0)
        fprintf(stderr, "%s: %s: in %d of %d cells the fastest plan was raced out: its place rests on one "
                "series at the cell's clock (--rounds measures it beside the cell's top; docs/racing.md)\n",
                m->verb, gdt_family_name(f), fc->raced_first, fc->n);
    return s == GDT_STATUS_OK ? gdt__emit_report_table(m->rep, f, fc->n, dir, e) : s;
}

/* Runs merged into one set of tables must describe one measurement: the
 * same arch, device model and sweep spec (the provenance names one). */
static gdt_status same_sweep(const merge *m, const gdt_run *b, gdt_error *e)
{
    const char *db = b->dev.name;
    if (m->prov.arch != b->arch || strcmp(m->device, db) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s ran on %s (sm%d) but %s on %s (sm%d): "
                             "tables merge runs of one device model", m->runs[0].path, m->device,
                             m->prov.arch, b->path, db, b->arch);
    if (strcmp(m->spec_digest, b->spec->digest) != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s swept spec %s (digest %.16s) but %s "
                             "spec %s (digest %.16s): tables merge shards of one sweep",
                             m->runs[0].path, m->spec_source, m->spec_digest, b->path,
                             b->spec->source, b->spec->digest);
    return GDT_STATUS_OK;
}

/* The prior order's tables as their digests ("gemm a1b2...; sdpa_fwd ..."),
 * "none" without a prior: where each shard read them may differ, what they
 * held may not. */
static void prior_digests(const gdt_run_prior *p, char *out, size_t n)
{
    snprintf(out, n, "%s", p->recorded ? "" : "none");
    for (int i = 0; i < p->ntables; i++)
        append(out, n, "%s%s %s", *out ? "; " : "", gdt_family_name(p->tables[i].family),
               p->tables[i].sha256 ? p->tables[i].sha256 : "(no digest)");
}

/* A value for a message: its JSON, cut short, or "absent". */
static void value_text(const char *v, char *out, size_t n)
{
    snprintf(out, n, "%.80s%s", v ? v : "absent", v && strlen(v) > 80 ? "..." : "");
}

static gdt_status remember_header(merge *m, const gdt_run *r, gdt_error *e)
{
    for (int i = 0; i < NSAME; i++) {
        gdt_status s = gdt_run_header_value(r, same_fields[i], &m->same[i], e);
        if (s != GDT_STATUS_OK)
            return s;
    }
    prior_digests(&r->prior, m->prior, sizeof m->prior);
    return GDT_STATUS_OK;
}

/* Run b measured as the first run did: the same build, candidate rows,
 * driver and settings, field by field; another prior order is said, not
 * refused (it changes which plans race out, never a measured number, and
 * a shard swept after another on one machine reads the first's tables). */
static gdt_status same_header(const merge *m, const gdt_run *b, gdt_error *e)
{
    char want[128], got[128], prior[1024];
    for (int i = 0; i < NSAME; i++) {
        char *v = NULL;
        gdt_status s = gdt_run_header_value(b, same_fields[i], &v, e);
        if (s != GDT_STATUS_OK)
            return s;
        bool same = v && m->same[i] ? !strcmp(v, m->same[i]) : !v && !m->same[i];
        value_text(m->same[i], want, sizeof want);
        value_text(v, got, sizeof got);
        free(v);
        if (same)
            continue;
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s:1: %s: expected %s (as in %s:1), got %s: "
                             "merge shards of one sweep (one build, candidate rows, driver and "
                             "measurement options)", b->path, same_fields[i], want, m->runs[0].path, got);
    }
    prior_digests(&b->prior, prior, sizeof prior);
    if (strcmp(prior, m->prior)) /* shards swept one after the other may read the first's tables */
        fprintf(stderr, "%s: warning: %s:1: /prior: the prior tables %s, but %s in %s:1: the order "
                "plans were raced in differs, not what they measured\n", m->verb, b->path, prior,
                m->prior, m->runs[0].path);
    return GDT_STATUS_OK;
}

gdt_status gdt_emit_check_candidates(const gdt_run *r, gdt_error *e)
{
    const char *text = r->candidates;
    gdt_row_table *rows = NULL;
    gdt_error le = {0};
    char digest[65], name[4200];
    if (!text)
        return GDT_STATUS_OK; /* a journal from before the header kept them */
    snprintf(name, sizeof name, "%s:1: /candidates", r->path);
    gdt_status s = gdt_rows_load_text(text, strlen(text), name, &rows, &le);
    if (s == GDT_STATUS_OK)
        gdt_rows_digest(rows, digest);
    gdt_rows_destroy(rows);
    if (s != GDT_STATUS_OK)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "the candidate rows the header records do not "
                             "load, so its candidates_digest cannot be checked: %s", le.msg);
    if (strcmp(digest, r->candidates_digest))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s:1: /candidates_digest: expected \"%s\" (the "
                             "digest of the candidate rows the header records), got \"%.64s\"",
                             r->path, digest, r->candidates_digest);
    return GDT_STATUS_OK;
}

/* An earlier run of the merge that is the same shard of the same sweep as
 * its last run, or -1. */
static int doubled_shard(const merge *m)
{
    const merged_run *last = &m->runs[m->nruns - 1];
    for (int k = 0; k < m->nruns - 1; k++)
        if (!strcmp(m->runs[k].family, last->family) && m->runs[k].shard_n == last->shard_n &&
            m->runs[k].shard_i == last->shard_i)
            return k;
    return -1;
}

static gdt_status remember(merge *m, const gdt_run *r, gdt_error *e)
{
    if (m->nruns == m->cap) {
        int cap = m->cap ? 2 * m->cap : 16;
        if (!grow((void **)&m->runs, cap, sizeof *m->runs))
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
        m->cap = cap;
    }
    merged_run *mr = &m->runs[m->nruns];
    *mr = (merged_run){.path = strdup(r->path), .family = strdup(r->family),
                       .shard_i = r->options.shard_i, .shard_n = r->options.shard_n};
    if (!mr->path || !mr->family) {
        free(mr->path);
        free(mr->family);
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
    }
    m->nruns++;
    return GDT_STATUS_OK;
}

/* Takes run r's complete cells.  With shards, a shard an earlier run gave
 * is left for merge_shards to name rather than refused cell by cell. */
static gdt_status merge_add(merge *m, const gdt_run *r, bool shards, gdt_error *e)
{
    gdt_status s = gdt__emit_report_input(m->rep, r, e);
    if (s == GDT_STATUS_OK)
        s = gdt_emit_check_candidates(r, e);
    if (s == GDT_STATUS_OK && m->nruns)
        s = same_sweep(m, r, e);
    if (s == GDT_STATUS_OK && m->nruns)
        s = same_header(m, r, e);
    if (s == GDT_STATUS_OK && !m->nruns)
        s = remember_header(m, r, e);
    if (s == GDT_STATUS_OK && !m->nruns) {
        provenance(r, &m->prov);
        snprintf(m->device, sizeof m->device, "%s", r->dev.name);
        snprintf(m->spec_source, sizeof m->spec_source, "%s", r->spec->source);
        snprintf(m->spec_digest, sizeof m->spec_digest, "%s", r->spec->digest);
    }
    if (s == GDT_STATUS_OK)
        s = remember(m, r, e);
    if (s != GDT_STATUS_OK || (shards && doubled_shard(m) >= 0))
        return s;
    m->families |= r->spec->families;
    for (int f = 0; f < GDT_FAMILY_COUNT && s == GDT_STATUS_OK; f++)
        if (r->spec->families & (1u << f))
            s = collect_family(m, r, (gdt_family)f, e);
    return s;
}

static void shard_name(const merged_run *r, char *out, size_t n)
{
    if (r->shard_n)
        snprintf(out, n, "shard %d/%d", r->shard_i, r->shard_n);
    else
        snprintf(out, n, "every cell (unsharded)");
}

/* The runs of one FAMILY argument, starting at runs[k0]: one shard count,
 * each index 0..N-1 exactly once (an unsharded run alone). */
static gdt_status check_group(const merge *m, int k0, int *seen, gdt_error *e)
{
    const merged_run *r0 = &m->runs[k0];
    int n = r0->shard_n ? r0->shard_n : 1, missing = 0, doubled = 0;
    char why[GDT_ERROR_MAX] = "", a[64], b[64];
    for (int i = 0; i < n; i++)
        seen[i] = -1;
    for (int k = k0; k < m->nruns; k++) {
        const merged_run *r = &m->runs[k];
        if (strcmp(r->family, r0->family) != 0)
            continue;
        shard_name(r0, a, sizeof a);
        shard_name(r, b, sizeof b);
        if (r->shard_n != r0->shard_n)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s is %s of %s but %s is %s: merge the "
                                 "shards of one sweep (one --shard count)", r0->path, a, r0->family,
                                 r->path, b);
        if (seen[r->shard_i] >= 0) {
            char what[128];
            snprintf(what, sizeof what, "%s of %s", b, r->family);
            gdt_status s = gdt__emit_report_conflict(m->rep, what, m->runs[seen[r->shard_i]].path, r->path, e);
            if (s)
                return s;
        }
        if (seen[r->shard_i] >= 0 && !r->shard_n)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "every cell of %s is measured in both "
                                 "%s and %s: merge runs of disjoint cells (--shard)", r0->family,
                                 m->runs[seen[0]].path, r->path);
        if (seen[r->shard_i] >= 0 && doubled++ < 8)
            append(why, sizeof why, "; %s is measured in both %s and %s", b,
                   m->runs[seen[r->shard_i]].path, r->path);
        else if (seen[r->shard_i] < 0)
            seen[r->shard_i] = k;
    }
    for (int i = 0; i < n; i++)
        if (seen[i] < 0 && missing++ < 32)
            append(why, sizeof why, "%s%d", missing == 1 ? "; missing shards " : ", ", i);
    if (missing > 32)
        append(why, sizeof why, " and %d more", missing - 32);
    if (doubled > 8)
        append(why, sizeof why, "; %d more doubled", doubled - 8);
    if (!missing && !doubled)
        return GDT_STATUS_OK;
    return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "the %d shards of %s do not make one sweep%s "
                         "(expected each of shards 0..%d once)", n, r0->family, why, n - 1);
}

/* Run directories merged as shards form one sweep: per FAMILY argument,
 * one shard count and each shard exactly once. */
static gdt_status merge_shards(const merge *m, gdt_error *e)
{
    int nmax = 1;
    for (int k = 0; k < m->nruns; k++)
        nmax = m->runs[k].shard_n > nmax ? m->runs[k].shard_n : nmax;
    int *seen = calloc((size_t)nmax, sizeof *seen);
    gdt_status s = seen ? GDT_STATUS_OK : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
    for (int k = 0; k < m->nruns && s == GDT_STATUS_OK; k++) {
        int j = 0;
        while (j < k && strcmp(m->runs[j].family, m->runs[k].family) != 0)
            j++;
        if (j == k) /* the first run of its FAMILY argument */
            s = check_group(m, k, seen, e);
    }
    free(seen);
    return s;
}

static gdt_status merge_write(const merge *m, const char *tables_dir, gdt_error *e)
{
    char dir[PATH_MAX + 16];
    gdt_status s = GDT_STATUS_OK;
    /* the table writer makes the folder once the tables pass its checks */
    snprintf(dir, sizeof dir, "%s/sm%d", tables_dir ? tables_dir : "tables", m->prov.arch);
    for (int f = 0; f < GDT_FAMILY_COUNT && s == GDT_STATUS_OK; f++)
        if (m->families & (1u << f))
            s = emit_family(m, (gdt_family)f, dir, e);
    return s;
}

static void merge_free(merge *m)
{
    for (int i = 0; i < NSAME; i++)
        free(m->same[i]);
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) {
        for (int i = 0; i < m->fam[f].n; i++) {
            free(m->fam[f].cells[i].plans);
            free(m->fam[f].keys[i]);
        }
        free(m->fam[f].cells);
        free(m->fam[f].keys);
        free(m->fam[f].from);
    }
    for (int k = 0; k < m->nruns; k++) {
        free(m->runs[k].path);
        free(m->runs[k].family);
    }
    free(m->runs);
}

gdt_status gdt_emit_runs(gdt_run *const *runs, int nruns, const char *tables_dir,
                         gdt_emit_report *report, gdt_error *e)
{
    merge m = {.verb = "gdtune sweep", .rep = report};
    gdt_status s = nruns > 0 ? GDT_STATUS_OK
                             : gdt_error_set(e, GDT_STATUS_BAD_USAGE, "no run directory given");
    for (int i = 0; i < nruns && s == GDT_STATUS_OK; i++)
        s = merge_add(&m, runs[i], false, e);
    if (s == GDT_STATUS_OK)
        s = merge_write(&m, tables_dir, e);
    merge_free(&m);
    return s;
}

void gdt_run_cells_free(gdt_run_cells *v)
{
    for (int f = 0; v && f < GDT_FAMILY_COUNT; f++) {
        for (int i = 0; i < v->n[f]; i++) free(v->cells[f][i].plans);
        free(v->cells[f]);
        v->cells[f] = NULL, v->n[f] = 0;
    }
}

/* The complete cells of one run, added to out by family. */
static gdt_status run_cells_add(const gdt_run *r, gdt_run_cells *out, gdt_error *e)
{
    for (int ci = 0; ci < r->ncells; ci++) {
        const gdt_run_cell *c = &r->cells[ci];
        gdt_family f = c->spec->family;
        if ((unsigned)f >= GDT_FAMILY_COUNT || !cell_complete("gdtune tables", c)) continue;
        gdt_measured_cell *v = realloc(out->cells[f], (size_t)(out->n[f] + 1) * sizeof *v);
        if (!v) return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "emit: out of memory");
        out->cells[f] = v;
        gdt_status s = measured_cell(c, r->spec->noise_floor, &v[out->n[f]], e);
        if (s) return s;
        if (v[out->n[f]].nplans > 0) out->n[f]++;
        else free(v[out->n[f]].plans);
    }
    return GDT_STATUS_OK;
}

gdt_status gdt_run_cells_load(const char *const *run_dirs, int nruns, gdt_run_cells *out, gdt_error *e)
{
    gdt_status s = GDT_STATUS_OK;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < nruns && !s; i++) {
        gdt_run *r = NULL;
        s = gdt_run_load(run_dirs[i], &r, e);
        if (!s) s = run_cells_add(r, out, e);
        gdt_run_destroy(r);
    }
    if (s) gdt_run_cells_free(out);
    return s;
}

gdt_status gdt_emit_dirs(const char *verb, const char *const *run_dirs, int nruns,
                         const char *tables_dir, gdt_error *e)
{
    return gdt_emit_dirs_validated(verb, run_dirs, nruns, tables_dir, NULL, NULL, e);
}

/* One journal in memory at a time: each run's cells are taken and its
 * records freed before the next is read. */
gdt_status gdt_emit_dirs_validated(const char *verb, const char *const *run_dirs, int nruns,
                                   const char *tables_dir, const gdt_run_cells *validation,
                                   gdt_emit_report *report, gdt_error *e)
{
    merge m = {.verb = verb, .validation = validation, .rep = report};
    gdt_status s = nruns > 0 ? GDT_STATUS_OK
                             : gdt_error_set(e, GDT_STATUS_BAD_USAGE, "no run directory given");
    for (int i = 0; i < nruns && s == GDT_STATUS_OK; i++) {
        gdt_run *r = NULL;
        s = gdt_run_load(run_dirs[i], &r, e);
        if (s == GDT_STATUS_OK)
            s = merge_add(&m, r, true, e);
        gdt_run_destroy(r);
    }
    if (s == GDT_STATUS_OK)
        s = merge_shards(&m, e);
    if (s == GDT_STATUS_OK)
        s = merge_write(&m, tables_dir, e);
    merge_free(&m);
    return s;
}
