/* Building plans ahead, on several threads (gdt_graph_prebuild): the
 * builder threads, and the per-graph store of what each build gave until
 * the graph's next build of that plan takes it.  Private to libgdtune. */
#ifndef GDT_PREBUILD_H
#define GDT_PREBUILD_H

#include <stdbool.h>

#include "gdt_engine_impl.h"

/* One build's outcome, everything a later gdt_graph_build of the plan
 * reports: the compiled plan (owned until taken), or the status and the
 * message the serial build would have given, and the build's own info and
 * wall time on the thread that ran it. */
typedef struct gdt__built {
    gdt_plan_id id; /* normalized */
    const gdt_engine_ops *ops;
    gdt_compiled *compiled;
    gdt_status status;
    gdt_error err;
    gdt_build_info info;
    double seconds;
    bool done;      /* a builder ran it (false: no thread could take it) */
} gdt__built;

/* Destroys b's compiled plan, if it holds one, and forgets it. */
void gdt__built_destroy(gdt__built *b);

/* Fills b (all but id) the way the graph's serial build would. */
typedef void (*gdt__build_fn)(void *ctx, gdt__built *b);

/* Runs fn over jobs[0 .. n-1] on up to `threads` threads and returns when
 * every thread has ended.  Each thread makes `device` current first (-1:
 * no device; nothing set) and takes jobs until none is left, so a thread
 * that cannot start or cannot set the device only costs speed.  *used: the
 * threads that built.  Not OK (the first failure named) only when some job
 * was left undone (its done stays false). */
gdt_status gdt__prebuild_run(gdt__built *jobs, int n, int threads, int device, gdt__build_fn fn,
                             void *ctx, int *used, gdt_error *e);

/* The calling thread's current CUDA device, -1 without one (no device
 * present: the CPU parts of libgdtune, stand-in engines in tests). */
gdt_status gdt__prebuild_device(int *device, gdt_error *e);

/* The kept outcomes of one graph. */
typedef struct gdt__prebuilt {
    gdt__built *v;
    int n, cap;
} gdt__prebuilt;

/* Whether id is kept (built and not taken yet). */
bool gdt__prebuilt_has(const gdt__prebuilt *p, const gdt_plan_id *id);
/* Moves b in (its compiled plan now owned by p); false when out of memory
 * (b's plan is then destroyed). */
bool gdt__prebuilt_put(gdt__prebuilt *p, const gdt__built *b);
/* Moves id's outcome out into *out (the caller owns its plan); false when
 * none is kept. */
bool gdt__prebuilt_take(gdt__prebuilt *p, const gdt_plan_id *id, gdt__built *out);
/* Destroys every plan never taken. */
void gdt__prebuilt_free(gdt__prebuilt *p);

#endif
