/* Measurement from a drained queue across burst sizes (gdt_measure.h).
 *
 * One sample of burst b: synchronize; event; host clock; b executes; host
 * clock; event; synchronize; host clock.  host_us = enqueue time / b,
 * device_us = event time / b, total_us = drain time / b.  (The host clock
 * starts after the first event record, not before it: a record costs about
 * a microsecond, which would otherwise land in the burst-1 enqueue figure.)
 *
 * Stopping: the estimate is the median device time per call.  Its relative
 * spread is the half-width of the distribution-free ~95% confidence interval
 * of the median over the median.  Ranks lo = floor(n/2 - 0.98 sqrt(n)) and
 * hi = ceil(n/2 + 0.98 sqrt(n)) (1-based, clamped to [1, n]) bracket the
 * median with ~95% probability whatever the distribution (the binomial
 * count of samples below the median, normal approximation), so a few slow
 * outliers widen it far less than they would a standard deviation.
 *
 * Order and budgets: after the warm-up (and racing's first estimate) the
 * metric comes first, the heat-up and the largest burst's series, with
 * half of what is left of max_seconds (all of it when nothing follows), or
 * contender_seconds when that is more; then the curve, each smaller burst
 * and the cold calls an equal share of what is left when it starts.  A
 * plan raced late has no curve (the decision never reads it, and it took
 * the raced-late plans' curve and cold calls: docs/results/2026-12-02.md).  A
 * series stops:
 *   - at GDT_MAX_SAMPLES;
 *   - with at least min_samples, at the target (converged) or once its
 *     budget is spent;
 *   - with at least 2, once it has spent GDT_MEASURE_OVERRUN (3) times its
 *     budget, even below min_samples (not converged).
 * The last rule is what keeps max_seconds a cap.  Without it a plan whose
 * one sample is long (a burst of 64 calls of an 8 ms kernel is 0.5 s) took
 * min_samples of every burst whatever the cap: 3.3 s against 0.2 s on the
 * H200.  Two samples stay the floor, so that every burst still has a median
 * and a finite spread: a series ends with the first sample that finishes
 * past 3x its budget, or with its second if that is later.  A burst that
 * arrives with the cap already spent takes those two.  Convergence counts only with min_samples: a tight
 * spread of two or three samples says little about the median.
 *
 * Targets: only the largest burst's series (the metric) must reach
 * target_rel; the other series (the smaller bursts, the cold calls) stop at
 * curve_rel once they have min_samples (gdt_measure_series_target), within
 * the same budget shares.  They draw the burst curve and the host overhead,
 * which no decision reads: the tables rank by the largest burst, racing
 * compares with it, and `converged` is about it alone.  Yet they cost:
 * their samples are short, so the probe and the synchronizations around
 * each cost more than the kernels, and in the 2026-12-01 default GEMM sweep
 * the plans measured in full took 27,000 samples of bursts 1, 4 and 16
 * (34 s of kernel time) against 147 s of burst 64.  Each series still
 * says what it measured: its samples, median and rel_spread, per burst in
 * the journal and raw.h5, so a looser spread is there to see.
 *
 * Clock: the probe runs after every sample; a sample is kept only when the
 * probes before and after it both saw the SM clock at or above threshold x
 * rated clock, and a kept sample records what the probe after it read
 * (clock_mhz, journaled per sample: a series whose times rise as its clock
 * falls is thermal drift, not noise).  A dropped sample backs off (1 ms doubling to 64 ms).  Once
 * its dropped samples and back-offs have cost GDT_DROP_SHARE of its budget
 * a series keeps samples whatever the clock, so a GPU that never reaches
 * the threshold still ends (with at least 2 samples per series, the drops
 * counted in `dropped`), and a long burst that the power cap throttles
 * (64 calls of a 3 ms GEMM, 180 ms a sample) is measured as the sustained
 * load it is instead of spending the cap on dropped samples: in the
 * 22-cell default GEMM sweep of 2026-12-01 on the H200, dropped samples of
 * the largest burst took 149 of the contenders' 381 s when drops were
 * allowed until twice the budget.  After a heat-up the metric's series
 * drops nothing (limits.keep): the heat-up brought the load to the clock
 * the power cap gives it, which is what the metric measures, and each drop
 * backed off up to 64 ms, long enough for the GPU to cool mid-series.  In
 * the 2026-12-02T23:07Z default GEMM sweep (threshold 0.75) the heated
 * plans dropped 1645 samples, about 0.1 s a plan; the clock per sample is
 * still journaled.
 *
 * The metric's sample (o->metric_sample_s > 0): after the warm-up the
 * bursts whose sample would pass it at the warm-up's time per call are
 * left out from the top (gdt_measure_kept_bursts), so a 2.8 ms GEMM's
 * metric is burst 4 (11 ms a sample), not 64 (180 ms).
 *
 * Racing (o->race_us > 0): see race() for the first estimate.  A plan that
 * survives it is raced again during the largest burst's series: once that
 * series has min_samples, a sample after which its estimate is past the
 * same bar by the same rule ends it (raced_late; the racing burst and the
 * metric stay, the metric is not converged, no curve follows).  Bars only fall as a cell's plans are
 * measured, so a plan past the bar its request carried is past every later
 * one: it can be neither the winner nor in the top three nor its kind's
 * best.  In the default GEMM sweep of 2026-12-01T20:09Z, 45 of the 80 plans
 * measured in full that did not converge (60.6 of their 114 s) ended past
 * the cell's top-three bar, and were measured to the contender cap.  Contenders
 * (o->contender_seconds > 0): the largest burst's series is capped by
 * contender_seconds instead of its share when that is larger; `converged`
 * says whether that series, the metric, reached target_rel.
 *
 * Heat-up (o->heat_seconds > 0, off by default): right before the largest
 * burst's series that burst runs back to back for heat_seconds and the
 * series starts over (racing's samples of that burst were taken before
 * it), keeping every sample whatever the clock; see heat_up() for why.
 * It is time beyond the plan's cap. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gdt_cuda.h"
#include "gdt_measure.h"
#include "gdt_util.h"

void gdt_measure_opts_default(gdt_measure_opts *o)
{
    memset(o, 0, sizeof *o);
    static const int def[] = {GDT_BURSTS_DEFAULT};
    _Static_assert(sizeof def / sizeof *def <= GDT_MAX_BURSTS, "GDT_BURSTS_DEFAULT: too many");
    memcpy(o->bursts, def, sizeof def);
    o->nbursts = (int)(sizeof def / sizeof *def);
    o->target_rel = GDT_TARGET_REL_DEFAULT;
    o->max_seconds = GDT_PLAN_SECONDS_DEFAULT;
    o->min_samples = GDT_MIN_SAMPLES_DEFAULT;
    o->race_margin = GDT_RACE_MARGIN;
}

/* ------------------------------------------------------------ statistics */

static double *sorted_copy(const double *x, int n)
{
    double *s = malloc(sizeof *s * (size_t)(n > 0 ? n : 1));
    if (!s)
        return NULL;
    memcpy(s, x, sizeof *s * (size_t)(n > 0 ? n : 0));
    gdt_sort_doubles(s, n);
    return s;
}

static double median_sorted(const double *s, int n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double gdt_stats_median(const double *x, int n)
{
    if (n <= 0)
        return NAN;
    double *s = sorted_copy(x, n);
    if (!s)
        return NAN;
    double m = median_sorted(s, n);
    free(s);
    return m;
}

double gdt_stats_rel_spread(const double *x, int n)
{
    if (n < 2)
        return INFINITY;
    double *s = sorted_copy(x, n);
    if (!s)
        return INFINITY;
    double half = 0.98 * sqrt((double)n);
    int lo = (int)floor(n / 2.0 - half), hi = (int)ceil(n / 2.0 + half);
    lo = lo < 1 ? 1 : lo;
    hi = hi > n ? n : hi;
    double m = median_sorted(s, n), w = 0.5 * (s[hi - 1] - s[lo - 1]);
    free(s);
    return m > 0 ? w / m : INFINITY;
}

bool gdt_measure_should_stop(int n, double rel_spread, double elapsed, double budget, double target,
                             const gdt_measure_opts *o, bool *converged)
{
    *converged = n >= 2 && n >= o->min_samples && rel_spread <= target;
    if (n >= GDT_MAX_SAMPLES)
        return true;
    if (n >= o->min_samples && (*converged || elapsed >= budget))
        return true;
    /* Past the bounded overrun the cap wins over the floor. */
    return n >= 2 && elapsed >= GDT_MEASURE_OVERRUN * budget;
}

double gdt_measure_series_target(const gdt_measure_opts *o, bool metric)
{
    return metric || !(o->curve_rel > o->target_rel) ? o->target_rel : o->curve_rel;
}

bool gdt_clock_ok(double mhz, double rated_mhz, double threshold)
{
    return rated_mhz <= 0 || mhz >= threshold * rated_mhz;
}

/* ------------------------------------------------------------ one run */

typedef struct meas {
    const gdt_exec_fn *fn, *restore;
    cudaStream_t s;
    const gdt_measure_opts *o;
    cudaEvent_t ev[2];
    gdt_clock_probe *probe;
    gdt_measure_clocks clk;
    bool last_ok;          /* the probe before the next sample */
    double last_mhz;       /* what that probe read */
    double call_s;         /* the warm-up's fastest execute, drained: an upper bound on its device time */
    int nb;                /* the bursts measured: o->bursts[0..nb) (gdt_measure_kept_bursts) */
    bool raced_late;       /* the largest burst's series ended past racing's bar */
    void *flush;
    size_t flush_bytes;
} meas;

static gdt_status probe(meas *m, bool *ok, gdt_error *e)
{
    double mhz = 0;
    gdt_status st = gdt_clock_probe_read(m->probe, m->s, &mhz, e);
    if (st != GDT_STATUS_OK)
        return st;
    if (!m->clk.probes++ || mhz < m->clk.min_mhz)
        m->clk.min_mhz = mhz;
    if (mhz > m->clk.max_mhz)
        m->clk.max_mhz = mhz;
    bool now = gdt_clock_ok(mhz, m->clk.rated_mhz, m->clk.threshold);
    *ok = now && m->last_ok;
    m->last_ok = now;
    m->last_mhz = mhz;
    return GDT_STATUS_OK;
}

static gdt_status pre_sample(meas *m, gdt_error *e)
{
    if (m->restore) {
        gdt_status st = m->restore->execute(m->restore->ctx, m->s, e);
        if (st != GDT_STATUS_OK)
            return st;
    }
    GDT_CHECK_CUDA(e, cudaStreamSynchronize(m->s));
    return GDT_STATUS_OK;
}

/* One drained-queue sample of burst b. */
static gdt_status burst_sample(meas *m, int b, double v[3], gdt_error *e)
{
    gdt_status st = pre_sample(m, e);
    if (st != GDT_STATUS_OK)
        return st;
    /* The host clock starts after the first event is recorded, so that the
     * record's own cost stays out of a burst of 1's enqueue figure. */
    GDT_CHECK_CUDA(e, cudaEventRecord(m->ev[0], m->s));
    double t0 = gdt_now();
    for (int i = 0; i < b; i++)
        if ((st = m->fn->execute(m->fn->ctx, m->s, e)) != GDT_STATUS_OK)
            return st;
    double t1 = gdt_now();
    GDT_CHECK_CUDA(e, cudaEventRecord(m->ev[1], m->s));
    GDT_CHECK_CUDA(e, cudaStreamSynchronize(m->s));
    double t2 = gdt_now();
    float ms = 0;
    GDT_CHECK_CUDA(e, cudaEventElapsedTime(&ms, m->ev[0], m->ev[1]));
    v[0] = (t1 - t0) * 1e6 / b;
    v[1] = ms * 1e3 / b;
    v[2] = (t2 - t0) * 1e6 / b;
    return GDT_STATUS_OK;
}

/* One cold call: the L2 is overwritten (2x its size) before it. */
static gdt_status cold_sample(meas *m, double v[3], gdt_error *e)
{
    gdt_status st = pre_sample(m, e);
    if (st != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CUDA(e, cudaMemsetAsync(m->flush, m->clk.probes & 0xFF, m->flush_bytes, m->s));
    GDT_CHECK_CUDA(e, cudaEventRecord(m->ev[0], m->s));
    if ((st = m->fn->execute(m->fn->ctx, m->s, e)) != GDT_STATUS_OK)
        return st;
    GDT_CHECK_CUDA(e, cudaEventRecord(m->ev[1], m->s));
    GDT_CHECK_CUDA(e, cudaStreamSynchronize(m->s));
    float ms = 0;
    GDT_CHECK_CUDA(e, cudaEventElapsedTime(&ms, m->ev[0], m->ev[1]));
    v[0] = v[2] = 0;
    v[1] = ms * 1e3;
    return GDT_STATUS_OK;
}

static void back_off(int *ms)
{
    struct timespec ts = {0, (long)*ms * 1000000L};
    nanosleep(&ts, NULL);
    *ms = *ms < 64 ? *ms * 2 : 64;
}

/* A series' limits: its budget, its target, and (stop_at > 0) a count at
 * which it stops whatever the target. */
typedef struct limits {
    double budget, target;
    int stop_at;
    bool race; /* the largest burst of a raced plan: raced again after each sample */
    bool far;  /* racing's first estimate: ends after two samples far past the bar */
    bool keep; /* the metric after a heat-up: no sample dropped for its clock */
} limits;

/* An estimate past the bar of the plan's request (racing's rule). */
static bool beyond_bar(const meas *m, double est_us, double rel)
{
    const gdt_measure_opts *o = m->o;
    return gdt_measure_raced_out(est_us, rel, o->race_us, o->race_noise, o->race_margin);
}

/* Two samples or more already past the bar with GDT_RACE_FAR more. */
static bool far_past(const meas *m, const double *dev, int n, double rel)
{
    const gdt_measure_opts *o = m->o;
    double margin = (1 + o->race_margin) * (1 + GDT_RACE_FAR) - 1;
    return n >= 2 && gdt_measure_raced_out(gdt_stats_median(dev, n), rel, o->race_us, o->race_noise, margin);
}

/* The series' estimate past that bar once it has min_samples (raced_late). */
static bool past_bar(const meas *m, const double *dev, int n, double rel)
{
    return n >= m->o->min_samples && beyond_bar(m, gdt_stats_median(dev, n), rel);
}

/* Samples of one series (burst b, or cold when b == 0) until it stops. */
static gdt_status series(meas *m, int b, limits lim, double *host, double *dev, double *total,
                         double *mhz, int *n, int *dropped, double *rel, bool *converged,
                         gdt_error *e)
{
    double t_start = gdt_now(), dropped_s = 0;
    int wait_ms = 1;
    for (;;) {
        double v[3] = {0, 0, 0}, t_sample = gdt_now();
        bool ok = false;
        gdt_status st = b ? burst_sample(m, b, v, e) : cold_sample(m, v, e);
        if (st == GDT_STATUS_OK)
            st = probe(m, &ok, e);
        if (st != GDT_STATUS_OK)
            return st;
        if (!ok && !lim.keep && dropped_s < GDT_DROP_SHARE * lim.budget) {
            (*dropped)++;
            back_off(&wait_ms);
            dropped_s += gdt_now() - t_sample;
            continue;
        }
        double elapsed = gdt_now() - t_start;
        wait_ms = 1;
        if (host)
            host[*n] = v[0], total[*n] = v[2];
        if (mhz)
            mhz[*n] = m->last_mhz;
        dev[(*n)++] = v[1];
        *rel = gdt_stats_rel_spread(dev, *n);
        if (lim.race && past_bar(m, dev, *n, *rel)) {
            m->raced_late = true, *converged = false;
            return GDT_STATUS_OK;
        }
        if (lim.far && far_past(m, dev, *n, *rel))
            return (*converged = false, GDT_STATUS_OK);
        if ((lim.stop_at > 0 && *n >= lim.stop_at) ||
            gdt_measure_should_stop(*n, *rel, elapsed, lim.budget, lim.target, m->o, converged))
            return GDT_STATUS_OK;
    }
}

/* Module load, lazy loading and handle creation stay out of the numbers:
 * at least two executes, then until GDT_WARMUP_S (or a tenth of the cap)
 * pass (gdt_measure.h says why no longer).  Each execute is drained, so
 * the fastest one also bounds the time per call from above (racing sizes
 * its burst by it). */
static gdt_status warm_up(meas *m, gdt_error *e)
{
    double t0 = gdt_now(), tenth = m->o->max_seconds / 10;
    double until = tenth < GDT_WARMUP_S ? tenth : GDT_WARMUP_S;
    m->call_s = INFINITY;
    for (int i = 0; i < 2 || gdt_now() - t0 < until; i++) {
        double t1 = gdt_now();
        gdt_status st = m->fn->execute(m->fn->ctx, m->s, e);
        if (st != GDT_STATUS_OK)
            return st;
        GDT_CHECK_CUDA(e, cudaStreamSynchronize(m->s));
        if (i > 0 && gdt_now() - t1 < m->call_s) /* the first carries the lazy loading */
            m->call_s = gdt_now() - t1;
    }
    return GDT_STATUS_OK;
}

/* Heat-up: the metric's burst back to back for heat_seconds, then the
 * probe, so that the series starts from the clock this load holds.  Under
 * the power cap a series short enough to end before the cap engages
 * measures the boost clock while a longer one runs capped: in the default
 * SDPA sweep of 2026-12-01T20:17Z one kernel measured 492.4 us at a median
 * 1979 MHz and 552.5 us at 1694 MHz, as two configs of one cell.  The
 * probe's verdict stands for the first sample, as the probe before any
 * sample does. */
static gdt_status heat_up(meas *m, int b, gdt_measure_result *out, gdt_error *e)
{
    double t0 = gdt_now();
    bool ok;
    while (gdt_now() - t0 < m->o->heat_seconds) {
        for (int i = 0; i < b; i++) {
            gdt_status st = m->fn->execute(m->fn->ctx, m->s, e);
            if (st != GDT_STATUS_OK)
                return st;
        }
        GDT_CHECK_CUDA(e, cudaStreamSynchronize(m->s));
    }
    out->heat_s = gdt_now() - t0;
    gdt_status st = probe(m, &ok, e);
    out->heat_mhz = m->last_mhz;
    return st;
}

static gdt_status check_opts(const gdt_measure_opts *o, gdt_error *e)
{
    if (o->nbursts < 1 || o->nbursts > GDT_MAX_BURSTS)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "measure: %d burst sizes, expected 1..%d",
                             o->nbursts, GDT_MAX_BURSTS);
    for (int i = 0; i < o->nbursts; i++)
        if (o->bursts[i] < 1 || o->bursts[i] > 100000)
            return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "measure: burst size %d (index %d) outside 1..100000",
                                 o->bursts[i], i);
    if (!(o->target_rel > 0) || !(o->max_seconds > 0))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "measure: target_rel %g and max_seconds %g must be positive",
                             o->target_rel, o->max_seconds);
    if (!(o->curve_rel >= 0 && o->curve_rel <= 1))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "measure: curve_rel %g outside 0..1",
                             o->curve_rel);
    if (!(o->heat_seconds >= 0 && o->heat_seconds <= GDT_HEAT_SECONDS_MAX))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "measure: heat_seconds %g outside 0..%g",
                             o->heat_seconds, GDT_HEAT_SECONDS_MAX);
    if (!(o->metric_sample_s >= 0 && o->metric_sample_s <= GDT_METRIC_SAMPLE_MAX))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "measure: metric_sample_s %g outside 0..%g",
                             o->metric_sample_s, GDT_METRIC_SAMPLE_MAX);
    if (!(o->contender_seconds >= 0 && o->contender_seconds <= 1e6))
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "measure: contender_seconds %g outside 0..1e6",
                             o->contender_seconds);
    if (o->min_samples < 1 || o->min_samples > GDT_MAX_SAMPLES)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "measure: min_samples %d outside 1..%d",
                             o->min_samples, GDT_MAX_SAMPLES);
    return GDT_STATUS_OK;
}

static double threshold_from_env(void)
{
    const char *s = getenv("GDTUNE_CLOCK_THRESHOLD");
    char *end = NULL;
    double t = s ? strtod(s, &end) : GDT_CLOCK_THRESHOLD;
    return s && (end == s || *end || !(t >= 0 && t <= 1)) ? GDT_CLOCK_THRESHOLD : t;
}

static gdt_status setup(meas *m, gdt_error *e)
{
    gdt_status st = gdt_clock_probe_create(&m->probe, e);
    if (st != GDT_STATUS_OK)
        return st;
    m->clk.rated_mhz = gdt_clock_probe_rated_mhz(m->probe);
    m->clk.threshold = threshold_from_env();
    GDT_CHECK_CUDA(e, cudaEventCreate(&m->ev[0]));
    GDT_CHECK_CUDA(e, cudaEventCreate(&m->ev[1]));
    m->last_ok = true;
    bool ok;
    return probe(m, &ok, e); /* the probe before the first sample */
}

/* The cold calls' flush buffer (2x the L2), made when they start: most
 * plans of a sweep are raced out before any cold call. */
static gdt_status flush_alloc(meas *m, gdt_error *e)
{
    size_t l2 = m->o->l2_bytes;
    if (!l2) {
        int dev = 0, v = 0;
        GDT_CHECK_CUDA(e, cudaGetDevice(&dev));
        GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, dev));
        l2 = (size_t)v;
    }
    m->flush_bytes = 2 * (l2 ? l2 : (size_t)64 << 20);
    GDT_CHECK_CUDA(e, cudaMalloc(&m->flush, m->flush_bytes));
    return GDT_STATUS_OK;
}

static void teardown(meas *m)
{
    for (int i = 0; i < 2; i++)
        if (m->ev[i])
            cudaEventDestroy(m->ev[i]);
    if (m->flush)
        cudaFree(m->flush);
    gdt_clock_probe_destroy(m->probe);
}

static gdt_status burst_series(meas *m, gdt_burst_result *r, int burst, limits lim, bool *conv,
                               gdt_error *e)
{
    r->burst = burst;
    gdt_status st = series(m, burst, lim, r->host_us, r->device_us, r->total_us, r->clock_mhz, &r->n,
                           &r->dropped, &r->rel_spread, conv, e);
    r->median_host_us = gdt_stats_median(r->host_us, r->n);
    r->median_device_us = gdt_stats_median(r->device_us, r->n);
    return st;
}

/* Racing's burst: the largest whose sample fits GDT_RACE_SAMPLE_S at
 * call_s per call, else the smallest. */
static int race_index(const gdt_measure_opts *o, int nb, double call_s)
{
    int fit = -1, small = 0;
    for (int i = 0; i < nb; i++) {
        if (o->bursts[i] < o->bursts[small])
            small = i;
        if (o->bursts[i] * call_s <= GDT_RACE_SAMPLE_S && (fit < 0 || o->bursts[i] > o->bursts[fit]))
            fit = i;
    }
    return fit >= 0 ? fit : small;
}

/* Racing: min_samples samples of a burst sized by the plan's own time, so
 * that a slow plan costs a few milliseconds per sample, not min_samples
 * bursts of 64 calls (3 ms calls: a second).  Comparing that estimate with
 * the best plan's largest-burst time is conservative: under the power cap a
 * longer burst is never faster per call, so a shorter burst can only make
 * the plan look faster, i.e. less likely raced out.  What a short burst adds
 * is its one launch latency (later launches queue behind running kernels),
 * and the burst chosen spans at least a quarter of GDT_RACE_SAMPLE_S (or one
 * call longer than it) with the default bursts: under a percent, inside the
 * sweep's GDT_RACE_TOP_MARGIN (2%).  Two samples already past twice the line end it
 * (GDT_RACE_FAR): a plan several times slower than the best need not take
 * five.  *out holds only that burst when the plan is raced out; otherwise
 * the full measurement continues that burst's series. */
static gdt_status race(meas *m, gdt_measure_result *out, gdt_error *e)
{
    const gdt_measure_opts *o = m->o;
    int k = race_index(o, m->nb, m->call_s);
    gdt_burst_result *r = &out->bursts[k];
    bool conv = false;
    out->race_burst = o->bursts[k];
    limits lim = {.budget = o->max_seconds, .target = o->target_rel, .stop_at = o->min_samples, .far = true};
    gdt_status st = burst_series(m, r, o->bursts[k], lim, &conv, e);
    if (st == GDT_STATUS_OK && beyond_bar(m, r->median_device_us, r->rel_spread)) {
        out->bursts[0] = *r;
        out->nbursts = 1;
        out->raced_out = true;
        out->converged = false;
    }
    return st;
}

int gdt_measure_kept_bursts(const gdt_measure_opts *o, double call_s)
{
    int n = 1;
    while (n < o->nbursts && (!(o->metric_sample_s > 0) || o->bursts[n] * call_s <= o->metric_sample_s))
        n++;
    return n;
}

/* The metric first: the heat-up, then the largest kept burst's series,
 * raced again after each sample.  Its budget: what is left of max_seconds
 * (half of it when other series follow), or contender_seconds when that is
 * more. */
static gdt_status metric_series(meas *m, gdt_measure_result *out, double t0, gdt_error *e)
{
    const gdt_measure_opts *o = m->o;
    int top = m->nb - 1;
    bool more = top > 0 || o->cold, conv = false;
    gdt_burst_result *r = &out->bursts[top];
    limits lim = {.budget = (o->max_seconds - (gdt_now() - t0)) / (more ? 2 : 1), .target = o->target_rel,
                  .race = o->race_us > 0, .keep = o->heat_seconds > 0};
    if (o->contender_seconds > lim.budget)
        lim.budget = o->contender_seconds;
    gdt_status st = GDT_STATUS_OK;
    if (o->heat_seconds > 0) { /* racing's samples of it came before the heat */
        r->n = r->dropped = 0;
        st = heat_up(m, o->bursts[top], out, e);
    }
    if (st == GDT_STATUS_OK) /* the racing burst continues what racing took */
        st = burst_series(m, r, o->bursts[top], lim, &conv, e);
    out->converged = conv;
    return st;
}

/* The cold calls, with what is left of max_seconds, after the L2 flush
 * buffer is made. */
static gdt_status cold_series(meas *m, gdt_measure_result *out, double t0, gdt_error *e)
{
    const gdt_measure_opts *o = m->o;
    limits lim = {.budget = o->max_seconds - (gdt_now() - t0), .target = gdt_measure_series_target(o, false)};
    double rel;
    int dropped = 0;
    bool conv;
    gdt_status st = flush_alloc(m, e);
    if (st == GDT_STATUS_OK)
        st = series(m, 0, lim, NULL, out->cold_us, NULL, NULL, &out->ncold, &dropped, &rel, &conv, e);
    out->median_cold_us = gdt_stats_median(out->cold_us, out->ncold);
    return st;
}

/* Then the curve (the smaller bursts, each a share of what is left of
 * max_seconds, to curve_rel) and the cold calls; none for a plan raced
 * late. */
static gdt_status curve_series(meas *m, gdt_measure_result *out, double t0, gdt_error *e)
{
    const gdt_measure_opts *o = m->o;
    int left = m->nb - 1 + (o->cold ? 1 : 0);
    bool conv;
    gdt_status st = GDT_STATUS_OK;
    for (int i = 0; i < m->nb - 1 && st == GDT_STATUS_OK; i++, left--) {
        limits lim = {.budget = (o->max_seconds - (gdt_now() - t0)) / left,
                      .target = gdt_measure_series_target(o, false)};
        st = burst_series(m, &out->bursts[i], o->bursts[i], lim, &conv, e);
    }
    return st == GDT_STATUS_OK && o->cold ? cold_series(m, out, t0, e) : st;
}

/* The bursts with samples, in order (a plan raced late has the racing
 * burst and the metric). */
static void keep_measured(gdt_measure_result *out, int nb)
{
    int k = 0;
    for (int i = 0; i < nb; i++)
        if (out->bursts[i].n > 0) {
            if (k != i)
                out->bursts[k] = out->bursts[i];
            k++;
        }
    out->nbursts = k;
}

static gdt_status run_all(meas *m, gdt_measure_result *out, gdt_error *e)
{
    const gdt_measure_opts *o = m->o;
    double t0 = gdt_now();
    gdt_status st = warm_up(m, e);
    m->nb = gdt_measure_kept_bursts(o, m->call_s);
    if (st == GDT_STATUS_OK && o->race_us > 0)
        st = race(m, out, e);
    if (out->raced_out || st != GDT_STATUS_OK) {
        out->seconds = gdt_now() - t0;
        return st;
    }
    st = metric_series(m, out, t0, e);
    if (st == GDT_STATUS_OK && !m->raced_late)
        st = curve_series(m, out, t0, e);
    keep_measured(out, m->nb);
    out->raced_late = out->raced_out = m->raced_late;
    out->seconds = gdt_now() - t0;
    return st;
}

bool gdt_measure_raced_out(double est_us, double rel, double bar_us, double bar_rel, double margin)
{
    if (!(est_us > 0 && bar_us > 0 && rel >= 0 && bar_rel >= 0 && margin >= 0) || !isfinite(est_us) ||
        !isfinite(rel) || !isfinite(bar_us) || !isfinite(bar_rel) || !isfinite(margin))
        return false;
    return est_us * (1 - rel) > bar_us * (1 + bar_rel) * (1 + margin);
}

gdt_status gdt_measure_trials(const gdt_exec_fn *fn, const gdt_exec_fn *restore, void *stream,
                              const gdt_measure_opts *o, gdt_measure_result *out,
                              gdt_measure_clocks *clocks, gdt_error *e)
{
    memset(out, 0, sizeof *out);
    gdt_status st = check_opts(o, e);
    if (st != GDT_STATUS_OK)
        return st;
    meas m = {.fn = fn, .restore = restore, .s = (cudaStream_t)stream, .o = o};
    st = setup(&m, e);
    if (st == GDT_STATUS_OK)
        st = run_all(&m, out, e);
    if (clocks)
        *clocks = m.clk;
    teardown(&m);
    return st;
}

gdt_status gdt_measure(const gdt_exec_fn *fn, void *stream, const gdt_measure_opts *o,
                       gdt_measure_result *out, gdt_error *e)
{
    return gdt_measure_trials(fn, NULL, stream, o, out, NULL, e);
}

double gdt_measure_best_us(const gdt_measure_result *r, double *noise)
{
    const gdt_burst_result *best = NULL;
    for (int i = 0; i < r->nbursts; i++)
        if (r->bursts[i].n > 0 && (!best || r->bursts[i].burst > best->burst))
            best = &r->bursts[i];
    if (noise)
        *noise = best ? best->rel_spread : INFINITY;
    return best ? best->median_device_us : NAN;
}
