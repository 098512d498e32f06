/* Builder threads and the store of prebuilt plans (gdt_prebuild.h).
 *
 * The threads pull jobs from one shared index, so the work spreads however
 * long each build takes (cuDNN finalizations range from milliseconds to
 * seconds) and any one thread can finish the list alone. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_prebuild.h"

/* gdt_graph_prebuild's thread cap (gdtune.sweep/1 build_threads: 0..64). */
#define GDT__PREBUILD_THREADS_MAX 64

typedef struct pool {
    gdt__built *jobs;
    int n;
    int device;
    gdt__build_fn fn;
    void *ctx;
    pthread_mutex_t mu;
    int next;           /* the next job to take */
    int used;           /* threads that built */
    gdt_error first;    /* the first thread that could not set the device */
    bool failed;
} pool;

static int take_job(pool *p)
{
    pthread_mutex_lock(&p->mu);
    int i = p->next < p->n ? p->next++ : -1;
    pthread_mutex_unlock(&p->mu);
    return i;
}

/* A new thread's current device is device 0 whatever the caller's is:
 * set the caller's before the engine creates anything on it. */
static gdt_status adopt_device(int device, gdt_error *e)
{
    if (device >= 0)
        GDT_CHECK_CUDA(e, cudaSetDevice(device));
    return GDT_STATUS_OK;
}

static void *builder(void *arg)
{
    pool *p = arg;
    gdt_error e;
    gdt_error_clear(&e);
    if (adopt_device(p->device, &e) != GDT_STATUS_OK) {
        pthread_mutex_lock(&p->mu);
        if (!p->failed)
            p->first = e, p->failed = true;
        pthread_mutex_unlock(&p->mu);
        return NULL;
    }
    int i, built = 0;
    while ((i = take_job(p)) >= 0) {
        p->fn(p->ctx, &p->jobs[i]);
        p->jobs[i].done = true;
        built = 1;
    }
    pthread_mutex_lock(&p->mu);
    p->used += built;
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static gdt_status undone(const pool *p, int started, gdt_error *e)
{
    int left = 0;
    for (int i = 0; i < p->n; i++)
        left += !p->jobs[i].done;
    if (!left)
        return GDT_STATUS_OK;
    if (p->failed)
        return gdt_error_set(e, p->first.status, "prebuild: %d of %d plans left unbuilt: a builder "
                             "thread could not make device %d current: %s", left, p->n, p->device,
                             p->first.msg);
    return gdt_error_set(e, GDT_STATUS_INTERNAL, "prebuild: %d of %d plans left unbuilt: expected "
                         "at least 1 builder thread, %d started", left, p->n, started);
}

gdt_status gdt__prebuild_run(gdt__built *jobs, int n, int threads, int device, gdt__build_fn fn,
                             void *ctx, int *used, gdt_error *e)
{
    pthread_t th[GDT__PREBUILD_THREADS_MAX];
    pool p = {.jobs = jobs, .n = n, .device = device, .fn = fn, .ctx = ctx};
    int want = threads < n ? threads : n, started = 0;
    if (want > GDT__PREBUILD_THREADS_MAX)
        want = GDT__PREBUILD_THREADS_MAX;
    *used = 0;
    pthread_mutex_init(&p.mu, NULL);
    for (int i = 0; i < want; i++)
        started += pthread_create(&th[started], NULL, builder, &p) == 0;
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&p.mu);
    *used = p.used;
    return undone(&p, started, e);
}

gdt_status gdt__prebuild_device(int *device, gdt_error *e)
{
    *device = -1;
    if (!gdt__device_present())
        return GDT_STATUS_OK;
    GDT_CHECK_CUDA(e, cudaGetDevice(device));
    return GDT_STATUS_OK;
}

/* ---------------------------------------------------------- the store */

static int find(const gdt__prebuilt *p, const gdt_plan_id *id)
{
    for (int i = 0; i < p->n; i++)
        if (gdt_plan_id_equal(&p->v[i].id, id))
            return i;
    return -1;
}

bool gdt__prebuilt_has(const gdt__prebuilt *p, const gdt_plan_id *id) { return find(p, id) >= 0; }

void gdt__built_destroy(gdt__built *b)
{
    if (b->compiled && b->ops && b->ops->destroy)
        b->ops->destroy(b->compiled);
    b->compiled = NULL;
}

bool gdt__prebuilt_put(gdt__prebuilt *p, const gdt__built *b)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        gdt__built *v = realloc(p->v, (size_t)cap * sizeof *v);
        if (!v) {
            gdt__built lost = *b;
            gdt__built_destroy(&lost);
            return false;
        }
        p->v = v, p->cap = cap;
    }
    p->v[p->n++] = *b;
    return true;
}

bool gdt__prebuilt_take(gdt__prebuilt *p, const gdt_plan_id *id, gdt__built *out)
{
    int i = find(p, id);
    if (i < 0)
        return false;
    *out = p->v[i];
    p->v[i] = p->v[--p->n]; /* order does not matter: lookups are by id */
    return true;
}

void gdt__prebuilt_free(gdt__prebuilt *p)
{
    for (int i = 0; i < p->n; i++)
        gdt__built_destroy(&p->v[i]);
    free(p->v);
    memset(p, 0, sizeof *p);
}
