/* `gdtune sweep --compile-only`: every surviving row of every cell compiled
 * by NVRTC on every core into the compiled-kernel cache, in this process (no
 * GPU, no worker). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_sweep.h"
#include "gdt_util.h"
#include "nvrtc/gdt_nvrtc.h"
#include "nvrtc/gdt_nvrtc_cache.h"
#include "gdtune/candidates.h"

typedef struct compile_job {
    const gdt_nvrtc_template *t;
    gdt_facts facts;
    gdt_plan_id id;
    char key[1024];
    char where[640];  /* the first cell and plan that needs it */
    gdt_status status;
    bool cached;      /* taken from the compiled-kernel cache, not compiled */
    char msg[GDT_ERROR_MAX];
} compile_job;

typedef struct compile_set {
    compile_job *jobs;
    int n, cap;
    int arch;
    int next;          /* next job to take */
    pthread_mutex_t mu;
    int rejected, declined, plans;
    const char *cache;  /* the compiled-kernel cache root, or NULL */
    const char *tuning_config; /* --tuning-config: its families in place of the defaults' */
} compile_set;


/* Cells that bind the same defines share one compile. */
static void job_key(const gdt_nvrtc_template *t, const gdt_facts *f, const gdt_plan_id *id,
                    char *key, size_t n)
{
    gdt_nvrtc_define d[GDT_NVRTC_MAX_DEFINES];
    int nd = t->defines(f, id, d, GDT_NVRTC_MAX_DEFINES);
    int used = snprintf(key, n, "%s", t->source);
    for (int i = 0; i < nd && used > 0 && (size_t)used < n; i++)
        used += snprintf(key + used, n - (size_t)used, " %s=%lld", d[i].name, (long long)d[i].value);
}

static gdt_status add_job(compile_set *cs, const gdt_nvrtc_template *t, const gdt_facts *f,
                          const gdt_plan_id *id, const char *where, gdt_error *e)
{
    char key[1024];
    job_key(t, f, id, key, sizeof key);
    for (int i = 0; i < cs->n; i++)
        if (!strcmp(cs->jobs[i].key, key))
            return GDT_STATUS_OK;
    if (cs->n == cs->cap) {
        compile_job *g = realloc(cs->jobs, sizeof *g * (size_t)(cs->cap = cs->cap * 2 + 32));
        if (!g)
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "compile-only: out of memory");
        cs->jobs = g;
    }
    compile_job *j = &cs->jobs[cs->n++];
    memset(j, 0, sizeof *j);
    j->t = t;
    j->facts = *f;
    j->id = *id;
    snprintf(j->key, sizeof j->key, "%s", key);
    snprintf(j->where, sizeof j->where, "%s", where);
    return GDT_STATUS_OK;
}

/* One slot of one cell: rejected rows reported, surviving plans queued. */
static gdt_status slot_jobs(compile_set *cs, const gdt_row_table *rows, const gdt_engine_slot *sl,
                            const gdt_facts *f, const gdt_sweep_cell *c, FILE *out, gdt_error *e)
{
    const char *row_family = gdt_engine_slot_row_family(sl);
    const gdt_nvrtc_template *t = gdt__nvrtc_template_of(sl);
    gdt_candidate *cand = NULL;
    int n = 0;
    if (!t)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "%s: no NVRTC template for rows \"%s\"",
                             gdt_engine_slot_name(sl), row_family ? row_family : "(none)");
    gdt_status s = gdt_candidates_materialize(rows, sl, f, &cand, &n, e);
    for (int i = 0; i < n && s == GDT_STATUS_OK; i++) {
        char name[320], where[640];
        gdt_plan_id_format(&cand[i].id, name, sizeof name);
        snprintf(where, sizeof where, "%s %s: %.300s", gdt_family_name(c->family), c->shape, name);
        gdt_error ce = {0};
        if (cand[i].rejected) {
            cs->rejected++;
            fprintf(out, "  illegal: %s %s: %s row %d: %s\n", gdt_family_name(c->family), c->shape,
                    row_family, cand[i].row_index, cand[i].reason);
        } else if (cand[i].duplicate_of_earlier)
            continue;
        else if (t->check && t->check(f, &cand[i].id, &ce) != GDT_STATUS_OK) {
            cs->declined++;
            fprintf(out, "  declined: %s: %s\n", where, ce.msg);
        } else {
            cs->plans++;
            s = add_job(cs, t, f, &cand[i].id, where, e);
        }
    }
    free(cand);
    return s;
}

static gdt_status gather_jobs(compile_set *cs, const gdt_sweep_spec *sp, FILE *out, gdt_error *e)
{
    gdt_device_props dev;
    gdt_row_table *rows = NULL;
    if (!gdt_arch_limits(cs->arch, &dev))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--arch sm%d: no per-arch limits for it "
                             "(the limits table knows sm80, sm90, sm100 and their kin)", cs->arch);
    gdt_status s = gdt_sweep_rows_table(cs->tuning_config, &rows, e);
    const gdt_manifest *m = gdt_manifest_default();
    int nslots = gdt_manifest_count(m);
    bool *told = calloc((size_t)nslots + 1, sizeof *told); /* "not offered" said once per slot */
    for (int ci = 0; ci < sp->ncells && s == GDT_STATUS_OK; ci++) {
        gdt_facts f;
        gdt_facts_analyze(&sp->cells[ci].problem, &dev, &f);
        for (int i = 0; i < nslots && s == GDT_STATUS_OK; i++) {
            const gdt_engine_slot *sl = gdt_manifest_slot(m, i);
            char why[256] = "";
            if (gdt_engine_slot_family(sl) != sp->cells[ci].family ||
                gdt_engine_slot_kind(sl) != GDT_ENGINE_NVRTC)
                continue;
            if (!gdt_slot_offered(m, sl, &f, why, sizeof why)) {
                if (told && !told[i])
                    fprintf(out, "  not offered: %s on sm%d: %s\n", gdt_engine_slot_name(sl),
                            cs->arch, why);
                if (told)
                    told[i] = true;
                continue;
            }
            s = slot_jobs(cs, rows, sl, &f, &sp->cells[ci], out, e);
        }
    }
    free(told);
    gdt_rows_destroy(rows);
    return s;
}

static void *compile_worker(void *arg)
{
    compile_set *cs = arg;
    for (;;) {
        pthread_mutex_lock(&cs->mu);
        int i = cs->next < cs->n ? cs->next++ : -1;
        pthread_mutex_unlock(&cs->mu);
        if (i < 0)
            return NULL;
        compile_job *j = &cs->jobs[i];
        void *cubin = NULL;
        size_t len = 0;
        gdt_build_info info = {0};
        gdt_error e = {0};
        /* Through the cache: a compile-only run on the GPU machine warms it
         * for the sweep that follows (on every core, not in the worker). */
        j->status = gdt__nvrtc_compile_cached(j->t, &j->facts, &j->id, cs->arch, cs->cache, &cubin, &len,
                                              &info, &e);
        j->cached = j->status == GDT_STATUS_OK && info.cache_hit;
        snprintf(j->msg, sizeof j->msg, "%s", e.msg);
        free(cubin);
    }
}

static void compile_all(compile_set *cs, int jobs)
{
    pthread_t th[64];
    int n = jobs > 0 ? jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    n = n < 1 ? 1 : n > 64 ? 64 : n > cs->n ? cs->n : n;
    int started = 0;
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[started], NULL, compile_worker, cs) == 0)
            started++;
    if (!started)
        compile_worker(cs);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

gdt_status gdt_sweep_compile_only(const gdt_sweep_opts *o, FILE *out, gdt_error *e)
{
    gdt_sweep_spec *sp = NULL;
    char root[4096];
    compile_set cs = {.arch = o->arch, .cache = gdt_nvrtc_cache_root(root, sizeof root),
                      .tuning_config = o->tuning_config};
    pthread_mutex_init(&cs.mu, NULL);
    if (!o->arch)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--compile-only needs --arch smXY (there is "
                             "no device to take the arch from)");
    gdt_status s = gdt_sweep_spec_of(o, &sp, e);
    if (s == GDT_STATUS_OK) {
        gdt_sweep_spec_shard(sp, o->shard_i, o->shard_n);
        double t0 = gdt_now();
        fprintf(out, "gdtune sweep %s --compile-only: sm%d, %d cells (%s)\n", o->family, o->arch,
                sp->ncells, sp->source);
        s = gather_jobs(&cs, sp, out, e);
        if (s == GDT_STATUS_OK)
            compile_all(&cs, o->jobs);
        int failed = 0, cached = 0;
        for (int i = 0; i < cs.n && s == GDT_STATUS_OK; i++)
            cached += cs.jobs[i].cached;
        for (int i = 0; i < cs.n && s == GDT_STATUS_OK; i++)
            if (cs.jobs[i].status != GDT_STATUS_OK) {
                failed++;
                fprintf(out, "  compile failed: %s: %s\n", cs.jobs[i].where, cs.jobs[i].msg);
            }
        if (s == GDT_STATUS_OK)
            fprintf(out, "gdtune sweep: sm%d: %d plans, %d distinct compiles: %d compiled, %d "
                    "cached, %d failed; %d rows illegal, %d plans declined; %.1f s\n", o->arch,
                    cs.plans, cs.n, cs.n - failed - cached, cached, failed, cs.rejected, cs.declined,
                    gdt_now() - t0);
        if (s == GDT_STATUS_OK && failed)
            s = gdt_error_set(e, GDT_STATUS_NVRTC, "%d of %d distinct plans did not compile for "
                              "sm%d", failed, cs.n, o->arch);
    }
    free(cs.jobs);
    pthread_mutex_destroy(&cs.mu);
    gdt_sweep_spec_destroy(sp);
    return s;
}
