/* One cell on the device and its plans, through libgdtune's graph API
 * (gdt_trial.h): the sweep's worker and `gdtune bench` run plans only
 * through here, so both verify against the same reference and measure the
 * same call a user makes. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cuda.h"
#include "gdt_plant.h"
#include "gdt_trial.h"
#include "gdt_util.h"
#include "nvrtc/gdt_nvrtc_cache.h"

static gdt_status make_stream(gdt_trial *t, gdt_error *e)
{
    cudaStream_t s;
    GDT_CHECK_CUDA(e, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    t->stream = s;
    return GDT_STATUS_OK;
}

gdt_status gdt_trial_create(const gdt_problem *p, const gdt_device_props *dev, uint64_t seed,
                            const char *who, gdt_trial **out, gdt_error *e)
{
    gdt_trial *t = calloc(1, sizeof *t);
    *out = NULL;
    if (!t)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "trial: out of memory");
    t->problem = *p;
    t->dev = *dev;
    t->who = who;
    gdt_status s = make_stream(t, e);
    if (s == GDT_STATUS_OK)
        s = gdt_buffers_create(p, seed, &t->buf, e);
    return GDT_CREATED(s, t, gdt_trial_destroy, out);
}

void gdt_trial_destroy(gdt_trial *t)
{
    if (!t)
        return;
    gdt_verifier_destroy(t->ref);
    gdt_buffers_destroy(t->buf);
    gdt_clock_probe_destroy(t->spin);
    if (t->stream)
        cudaStreamDestroy((cudaStream_t)t->stream);
    free(t);
}

/* ------------------------------------------------------------ one plan */

/* The options every build of the trial uses: a prebuilt plan is taken only
 * by a build with the options it was built with. */
static gdt_build_opts build_opts(const gdt_trial *t, char *root, size_t n)
{
    return (gdt_build_opts){.device = t->dev, .cache_dir = gdt_nvrtc_cache_root(root, n)};
}

gdt_status gdt_trial_prebuild(gdt_trial *t, gdt_graph *g, int threads, int *prebuilt, gdt_error *e)
{
    char root[PATH_MAX];
    gdt_build_opts bo = build_opts(t, root, sizeof root);
    return gdt_graph_prebuild(g, NULL, 0, threads, &bo, prebuilt, e);
}

gdt_status gdt_trial_build(gdt_trial *t, gdt_graph *g, int *built_index, double *build_s,
                           gdt_error *e)
{
    char root[PATH_MAX];
    gdt_build_opts bo = build_opts(t, root, sizeof root);
    gdt_build_report rep;
    double t0 = gdt_now();
    gdt_status s = gdt_graph_build(g, &bo, built_index, e);
    double wall = gdt_now() - t0;
    gdt_graph_last_build(g, &rep);
    /* A prebuilt plan's build happened on its builder thread: its time
     * there, not the lookup's. */
    if (build_s)
        *build_s = rep.prebuilt ? rep.seconds : wall;
    if (s == GDT_STATUS_OK)
        s = gdt_buffers_reserve_workspace(t->buf, gdt_graph_workspace_size(g), e);
    return s;
}

static gdt_status execute(gdt_trial *t, gdt_graph *g, void *stream, gdt_error *e)
{
    gdt_buffers *b = t->buf;
    return gdt_graph_execute(g, &b->ops, b->workspace, b->workspace_bytes, stream, e);
}

gdt_status gdt_trial_execute(gdt_trial *t, gdt_graph *g, gdt_error *e)
{
    return execute(t, g, t->stream, e);
}

/* Once, on poisoned outputs, drained: what the verifier reads. */
static gdt_status run_once(gdt_trial *t, gdt_graph *g, gdt_error *e)
{
    gdt_status s = gdt_buffers_poison(t->buf, t->stream, e);
    if (s == GDT_STATUS_OK)
        s = execute(t, g, t->stream, e);
    if (s == GDT_STATUS_OK)
        GDT_CHECK_CUDA(e, cudaStreamSynchronize((cudaStream_t)t->stream));
    return s;
}

gdt_status gdt_trial_verify(gdt_trial *t, gdt_graph *g, double err[4], int *nerr, gdt_error *e)
{
    *nerr = 0;
    if (!t->ref)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "trial: verify before the cell has a reference");
    gdt_status s = run_once(t, g, e);
    return s == GDT_STATUS_OK ? gdt_verifier_check(t->ref, t->buf, err, nerr, e) : s;
}

typedef struct exec_ctx {
    gdt_trial *t;
    gdt_graph *g;
    long long spin; /* a planted slowdown's spin after each call (gdt_plant.h); < 0: none */
} exec_ctx;

static gdt_status exec_once(void *ctx, void *stream, gdt_error *e)
{
    exec_ctx *x = ctx;
    gdt_status s = execute(x->t, x->g, stream, e);
    return s == GDT_STATUS_OK && x->spin >= 0 ? gdt_clock_probe_spin(x->t->spin, x->spin, stream, e) : s;
}

static int slow_index(const gdt_trial *t, const gdt_graph *g)
{
    for (int i = 0; i < t->nslow; i++)
        if (t->slow_g[i] == g)
            return i;
    return -1;
}

gdt_status gdt_trial_slow(gdt_trial *t, const gdt_graph *g, double fraction, gdt_error *e)
{
    int i = slow_index(t, g);
    if (i >= 0 && !(fraction > 0)) { /* removed: the last entry takes its place */
        t->nslow--;
        t->slow_g[i] = t->slow_g[t->nslow];
        t->slow_f[i] = t->slow_f[t->nslow];
        t->slow_cycles[i] = t->slow_cycles[t->nslow];
        return GDT_STATUS_OK;
    }
    if (!(fraction > 0))
        return GDT_STATUS_OK;
    if (i < 0 && t->nslow == GDT_TRIAL_SLOW_MAX)
        return gdt_error_set(e, GDT_STATUS_INTERNAL, "trial: more than %d slowed plans", GDT_TRIAL_SLOW_MAX);
    if (i < 0)
        i = t->nslow++;
    t->slow_g[i] = g;
    t->slow_f[i] = fraction;
    t->slow_cycles[i] = -1; /* calibrated on the plan g holds when it is first measured */
    return GDT_STATUS_OK;
}

/* Trial state: every sample starts from the same buffer contents. */
static gdt_status restore_once(void *ctx, void *stream, gdt_error *e)
{
    return gdt_buffers_restore(((exec_ctx *)ctx)->t->buf, stream, e);
}

/* ------------------------------------------------ a planted slowdown's spin */

/* An empty spin (0 cycles): its launch alone. */
static gdt_status spin_once(void *ctx, void *stream, gdt_error *e)
{
    return gdt_clock_probe_spin(((exec_ctx *)ctx)->t->spin, 0, stream, e);
}

/* fn's best time per call, measured as every plan is (gdt_measure_trials
 * with the measurement's options), the trial's buffers restored first. */
static gdt_status best_us(exec_ctx *x, gdt_exec_fn fn, const gdt_measure_opts *mo, gdt_measure_result *r,
                          double *us, gdt_error *e)
{
    gdt_exec_fn restore = {restore_once, x};
    gdt_status s = gdt_buffers_restore(x->t->buf, x->t->stream, e);
    if (s == GDT_STATUS_OK && (s = gdt_measure_trials(&fn, &restore, x->t->stream, mo, r, NULL, e)) == GDT_STATUS_OK)
        *us = gdt_measure_best_us(r, NULL);
    return s;
}

/* The spin that slows g's plan by fraction (gdt_plant_spin_cycles), in one
 * correction: the plan alone (plain), then with a first spin of
 * fraction * plain at the SM clock; what that call took beyond the plan and
 * the spin's own cycles is the spin's launch as it costs behind the plan
 * (gdt_plant_launch_us: held to [0, an empty spin launched alone]), and the
 * final spin leaves it out.  (On an H100 an empty spin alone measured 3.5 us, 1 to
 * 2 us behind a 45 us plan, where subtracting the 3.5 planted 5.7% for 10%;
 * behind a 340 us plan whose times spread by 10%, the difference came out
 * 25 us, which planted 4% for 10%.)  stderr says what was found. */
static gdt_status spin_calibrate(gdt_trial *t, gdt_graph *g, const gdt_measure_opts *mo, double fraction,
                                 long long *cycles, gdt_error *e)
{
    exec_ctx x = {t, g, -1};
    gdt_exec_fn plan = {exec_once, &x}, empty = {spin_once, &x};
    gdt_measure_result *r = calloc(1, sizeof *r);
    double plain = 0, first = 0, alone = 0, mhz = 0;
    gdt_status s = r ? best_us(&x, plan, mo, r, &plain, e) : gdt_error_set(e, GDT_STATUS_NO_MEMORY, "trial: out of memory");
    if (s == GDT_STATUS_OK)
        s = gdt_clock_probe_read(t->spin, t->stream, &mhz, e);
    x.spin = gdt_plant_spin_cycles(fraction, plain, 0, mhz);
    if (s == GDT_STATUS_OK)
        s = best_us(&x, plan, mo, r, &first, e);
    if (s == GDT_STATUS_OK)
        s = best_us(&x, empty, mo, r, &alone, e);
    free(r);
    if (s != GDT_STATUS_OK)
        return s;
    double launch = gdt_plant_launch_us(plain, first, x.spin, mhz, alone);
    *cycles = gdt_plant_spin_cycles(fraction, plain, launch, mhz);
    fprintf(stderr, "%s: planted slowdown %.3g on a plan of %.3f us a call: a spin of %lld cycles after "
            "each call (%.0f MHz; its launch behind the plan %.3f us, alone %.3f: x%.4f)\n", t->who, fraction,
            plain, *cycles, mhz, launch, alone,
            plain > 0 ? 1 + (launch + (double)*cycles / fmax(mhz, 1)) / plain : 0.0);
    return GDT_STATUS_OK;
}

/* The spin of slowed graph i, calibrated the first time it is measured. */
static gdt_status spin_of(gdt_trial *t, int i, gdt_graph *g, const gdt_measure_opts *mo, gdt_error *e)
{
    if (t->slow_cycles[i] >= 0)
        return GDT_STATUS_OK;
    gdt_status s = t->spin ? GDT_STATUS_OK : gdt_clock_probe_create(&t->spin, e);
    return s == GDT_STATUS_OK ? spin_calibrate(t, g, mo, t->slow_f[i], &t->slow_cycles[i], e) : s;
}

gdt_status gdt_trial_measure(gdt_trial *t, gdt_graph *g, const gdt_measure_opts *o,
                             gdt_measure_result *r, gdt_measure_clocks *clocks, gdt_error *e)
{
    int si = slow_index(t, g);
    gdt_measure_opts mo = *o;
    mo.l2_bytes = (size_t)t->dev.l2_bytes;
    gdt_status s = si >= 0 ? spin_of(t, si, g, &mo, e) : GDT_STATUS_OK;
    exec_ctx x = {t, g, si >= 0 ? t->slow_cycles[si] : -1};
    gdt_exec_fn fn = {exec_once, &x}, restore = {restore_once, &x};
    if (s == GDT_STATUS_OK)
        s = gdt_buffers_restore(t->buf, t->stream, e);
    return s == GDT_STATUS_OK ? gdt_measure_trials(&fn, &restore, t->stream, &mo, r, clocks, e) : s;
}

/* ------------------------------------------------------------ reference */

/* The fp64 CPU reference of a small shape, as a verifier (NULL when the
 * shape is too large or the reference fails). */
static gdt_verifier *cpu_reference(gdt_trial *t)
{
    gdt_outputs cpu = {0};
    gdt_verifier *v = NULL;
    if (gdt_problem_flops(&t->problem) <= GDT_TRIAL_CPU_REFERENCE_FLOPS &&
        gdt_reference_cpu(t->buf, GDT_TRIAL_CPU_REFERENCE_FLOPS, &cpu, NULL) == GDT_STATUS_OK)
        gdt_verifier_create(t->buf, &cpu, &v, NULL);
    gdt_outputs_free(&cpu);
    return v;
}

/* Entry i as the reference: it builds, runs, agrees with the CPU reference
 * when there is one, and its outputs become the cell's reference. */
static gdt_status try_reference(gdt_trial *t, gdt_graph *g, int i, gdt_verifier *cpu, gdt_error *e)
{
    double err[4];
    int nerr = 0;
    gdt_status s = gdt_graph_select(g, i, e);
    if (s == GDT_STATUS_OK)
        s = gdt_trial_build(t, g, NULL, NULL, e);
    if (s == GDT_STATUS_OK)
        s = run_once(t, g, e);
    if (s == GDT_STATUS_OK && cpu)
        s = gdt_verifier_check(cpu, t->buf, err, &nerr, e);
    if (s == GDT_STATUS_OK)
        s = gdt_verifier_create_device(t->buf, &t->ref, e);
    return s;
}

bool gdt_trial_reference_candidate(const gdt_plan_entry *x)
{
    return x->is_backend && !x->is_marker && x->mode == GDT_MODE_A;
}

gdt_status gdt_trial_reference(gdt_trial *t, gdt_graph *g, gdt_error *e)
{
    gdt_verifier *cpu = cpu_reference(t);
    for (int i = 0; i < gdt_graph_plan_count(g) && !t->ref; i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(g, i);
        gdt_error pe;
        gdt_error_clear(&pe);
        if (!gdt_trial_reference_candidate(x))
            continue;
        gdt_plan_id_format(&x->id, t->ref_name, sizeof t->ref_name);
        if (try_reference(t, g, i, cpu, &pe) != GDT_STATUS_OK)
            fprintf(stderr, "%s: reference candidate %s: %s\n", t->who, t->ref_name, pe.msg);
    }
    t->ref_cpu_checked = t->ref && cpu;
    if (!t->ref && cpu) {
        t->ref = cpu;
        t->ref_is_cpu = true;
        snprintf(t->ref_name, sizeof t->ref_name, "cpu-fp64");
        return GDT_STATUS_OK;
    }
    gdt_verifier_destroy(cpu);
    if (!t->ref)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED,
                             "no reference: no mode-A cuDNN plan built and ran for %s, and the "
                             "shape is too large for the fp64 CPU reference (%.3g FLOP, limit %.3g)",
                             gdt_family_name(t->problem.family), gdt_problem_flops(&t->problem),
                             GDT_TRIAL_CPU_REFERENCE_FLOPS);
    return GDT_STATUS_OK;
}
