/* gdt__parallel_for (gdt_verify.h): independent items spread over the
 * machine's cores, for the fills, the CPU references and the comparisons. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "gdt_verify.h"

typedef struct par {
    void (*fn)(const void *ctx, int64_t item);
    const void *ctx;
    int64_t n;
    atomic_llong next;
} par;

static void *par_worker(void *arg)
{
    par *p = arg;
    for (int64_t i; (i = atomic_fetch_add(&p->next, 1)) < p->n;)
        p->fn(p->ctx, i);
    return NULL;
}

/* Runs fn(ctx, i) for i in [0, n) on up to one thread per core; the caller's
 * thread works too, so a failed pthread_create only costs speed. */
void gdt__parallel_for(int64_t n, void (*fn)(const void *, int64_t), const void *ctx)
{
    enum { MAX_THREADS = 32 };
    pthread_t th[MAX_THREADS];
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t want = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : cores;
    int started = 0;
    par p = {fn, ctx, n, 0};
    want = want < n ? want : n;
    for (int t = 1; t < want; t++)
        if (pthread_create(&th[started], NULL, par_worker, &p) == 0)
            started++;
    par_worker(&p);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}
