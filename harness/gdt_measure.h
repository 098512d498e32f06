/* Measurement from a drained queue across burst sizes (DESIGN: Measuring).
 *
 * For each burst size b: synchronize; host clock; event; enqueue b executes;
 * host clock (host enqueue per call); event; synchronize (device time per
 * call).  Repeated until the relative spread of the estimate is under the
 * target or the time cap is reached.  Warm-up stays outside the numbers:
 * at least two executes, then until GDT_WARMUP_S (or a tenth of the cap)
 * has passed.  What it must keep out is what the first executes carry:
 * module load, lazy loading, handle creation; the first two take that.  It
 * does not heat the GPU to a steady clock: in a sweep the GPU is busy back
 * to back anyway, and the clock probe drops throttled samples whatever the
 * warm-up did.  (heat_seconds, off by default, heats before the metric's
 * series alone: measure.c, heat_up.)  (It was 50 ms: three quarters of a raced-out plan's cost.)
 * A clock probe marks samples taken while the SM clock is below threshold;
 * they are dropped, except in the metric's series after a heat-up, which
 * measures the power-capped clock on purpose.  Runs only in the worker (it
 * touches the GPU). */
#ifndef GDT_MEASURE_H
#define GDT_MEASURE_H

#include "gdtune/gdtune.h"

#define GDT_MAX_BURSTS 8
#define GDT_MAX_SAMPLES 200

/* The measurement defaults, each written here once: gdt_measure_opts_default,
 * the sweep's settings where neither the command line nor the spec sets
 * one, and the verbs' --help text (GDT_DEFAULT_TEXT) take them from here. */
#define GDT_BURSTS_DEFAULT 1,4,16,64
#define GDT_TARGET_REL_DEFAULT 0.005
#define GDT_PLAN_SECONDS_DEFAULT 2
#define GDT_MIN_SAMPLES_DEFAULT 5
/* A default as the text of a string literal: "1,4,16,64", "0.005", "2". */
#define GDT__DEFAULT_TEXT(...) #__VA_ARGS__
#define GDT_DEFAULT_TEXT(...) GDT__DEFAULT_TEXT(__VA_ARGS__)

/* What is measured: one execute of a built plan on bound buffers. */
typedef struct gdt_exec_fn {
    gdt_status (*execute)(void *ctx, void *stream, gdt_error *e);
    void *ctx;
} gdt_exec_fn;

typedef struct gdt_measure_opts {
    int bursts[GDT_MAX_BURSTS];
    int nbursts;          /* default GDT_BURSTS_DEFAULT */
    double target_rel;    /* default GDT_TARGET_REL_DEFAULT */
    double max_seconds;   /* per plan, all bursts; default GDT_PLAN_SECONDS_DEFAULT */
    int min_samples;      /* default GDT_MIN_SAMPLES_DEFAULT: the floor while a series is within
                             its budget (its share of max_seconds); past
                             GDT_MEASURE_OVERRUN x its budget a series stops
                             with 2, unconverged, so the cap holds even when
                             one sample is long (measure.c) */
    bool cold;            /* also take cold-L2 samples (L2 flushed before each call) */
    size_t l2_bytes;      /* for the flush buffer */
    /* Racing (0: off): the best device time per call at the largest burst
     * measured so far among the cell's plans, and its relative spread.  A
     * cheap first estimate comes first: min_samples samples of the largest
     * burst whose sample fits GDT_RACE_SAMPLE_S at the warm-up's time per
     * call (at least the smallest burst); a plan gdt_measure_raced_out
     * calls hopeless against that bar, by race_margin beyond both spreads,
     * stops there.  The sweep picks the bar (race.c: gdt_race_bar). */
    double race_us, race_noise;
    double race_margin;   /* default GDT_RACE_MARGIN */
    /* Contenders (0: off): the cap of the largest burst's series (the
     * metric) when it exceeds that series' share of max_seconds, so that a
     * plan measured in full can reach target_rel there.  The smaller bursts
     * and the cold calls keep their shares of max_seconds; a plan's cap is
     * then max_seconds + contender_seconds. */
    double contender_seconds;
    /* The target of the series that are not the metric (every burst but the
     * largest, and the cold calls): they draw the burst curve and the host
     * overhead, not the decision (measure.c).  0: target_rel, as every
     * series had before; the sweep's worker asks GDT_CURVE_REL.  Never
     * tighter than target_rel. */
    double curve_rel;
    /* Heat-up (0: off): before the largest burst's series of a plan not
     * raced out, that burst runs back to back for this long, so that every
     * contender's metric starts under the power cap instead of some at the
     * boost clock (measure.c: heat_up). */
    double heat_seconds;
    /* The metric's sample (0: off): after the warm-up, the bursts whose
     * sample would pass this at the warm-up's time per call are left out
     * from the top (the smallest always stays), so that a long kernel's
     * metric is a burst of a few tens of milliseconds, not 64 calls of 3 ms
     * (gdt_measure_kept_bursts).  The sweep asks its spec's metric_sample_s
     * of a cell's first plan measured in full and the bursts that plan kept
     * of the rest (sweep.c). */
    double metric_sample_s;
} gdt_measure_opts;

#define GDT_METRIC_SAMPLE_MAX 10.0

#define GDT_HEAT_SECONDS_MAX 2.0

#define GDT_CURVE_REL 0.02

/* The warm-up's time after its first two executes (measure.c: warm_up). */
#define GDT_WARMUP_S 0.010

/* The device time one racing sample may take (measure.c: race). */
#define GDT_RACE_SAMPLE_S 0.003

/* Racing's first estimate stops after two samples when they are already
 * past the bar by this much more (twice the line): a plan several times
 * slower than the cell's best is out whatever its next three samples say
 * (measure.c: race). */
#define GDT_RACE_FAR 1.0

void gdt_measure_opts_default(gdt_measure_opts *o);

typedef struct gdt_burst_result {
    int burst;
    int n;                              /* samples kept */
    double host_us[GDT_MAX_SAMPLES];    /* host enqueue per call */
    double device_us[GDT_MAX_SAMPLES];  /* device time per call (events) */
    double total_us[GDT_MAX_SAMPLES];   /* wall time per call to drain */
    double clock_mhz[GDT_MAX_SAMPLES];  /* the SM clock the probe read right after each kept
                                           sample (0 where the probe has no clock) */
    double median_host_us, median_device_us;
    double rel_spread;                  /* relative spread of the estimate */
    int dropped;                        /* samples dropped by the clock probe */
} gdt_burst_result;

typedef struct gdt_measure_result {
    gdt_burst_result bursts[GDT_MAX_BURSTS];
    int nbursts;
    double cold_us[GDT_MAX_SAMPLES];    /* cold-L2 device time per call */
    int ncold;
    double median_cold_us;
    bool converged;                     /* the largest burst (the metric) reached target_rel
                                           with at least min_samples samples */
    bool raced_out;                     /* stopped early: only the racing burst, first estimate,
                                           or (raced_late) during the largest burst's series */
    bool raced_late;                    /* past the bar during the largest burst's series, all
                                           bursts kept, the metric not converged */
    int race_burst;                     /* the burst the racing estimate came from (0: no race) */
    double heat_s, heat_mhz;            /* the heat-up's length and the SM clock the probe read
                                           after it (0: no heat-up) */
    double seconds;                     /* wall time spent measuring */
} gdt_measure_result;

/* Measures fn on stream (a cudaStream_t).  *out is caller-owned (large:
 * allocate it). */
gdt_status gdt_measure(const gdt_exec_fn *fn, void *stream, const gdt_measure_opts *o,
                       gdt_measure_result *out, gdt_error *e);

/* The device-rate figure of a result: median device time per call at the
 * largest burst, with its relative spread. */
double gdt_measure_best_us(const gdt_measure_result *r, double *noise);

/* How many of o's bursts (the first ones) a plan of call_s seconds per
 * call measures under o->metric_sample_s: those whose sample fits it, at
 * least one; all of them when it is 0. */
int gdt_measure_kept_bursts(const gdt_measure_opts *o, double call_s);

/* ------------------------------------------------------------ additions */

/* Stopping statistic (documented in measure.c): the relative half-width of
 * the distribution-free ~95% confidence interval of the median, from the
 * order statistics at ranks n/2 -+ 0.98 sqrt(n):
 *     (x[hi] - x[lo]) / 2 / median.
 * INFINITY below 2 samples.  Testable without a GPU. */
double gdt_stats_median(const double *x, int n);
double gdt_stats_rel_spread(const double *x, int n);
/* Whether a series of n kept samples stops: at GDT_MAX_SAMPLES; with at
 * least o->min_samples once rel_spread <= target (*converged = true) or
 * elapsed >= budget (seconds); with at least 2 once elapsed >=
 * GDT_MEASURE_OVERRUN * budget (a budget <= 0 means the cap is spent), not
 * converged.  *converged needs min_samples. */
#define GDT_MEASURE_OVERRUN 3.0
bool gdt_measure_should_stop(int n, double rel_spread, double elapsed, double budget, double target,
                             const gdt_measure_opts *o, bool *converged);
/* A series' target: target_rel for the metric (the largest burst), else
 * the larger of curve_rel and target_rel. */
double gdt_measure_series_target(const gdt_measure_opts *o, bool metric);

/* The racing rule: a plan whose first estimate est_us (relative spread
 * rel) is slower than a bar (bar_us, bar_rel) by more than margin beyond
 * both spreads,
 *     est_us * (1 - rel) > bar_us * (1 + bar_rel) * (1 + margin),
 * stops.  With the cell's best as the bar and GDT_RACE_MARGIN it cannot be
 * the cell's winner nor within its noise; with the slower of the cell's
 * third best and its engine kind's best (GDT_RACE_TOP_MARGIN) it can be
 * neither in the top three nor its kind's best (gdt_race.h chooses the
 * bar).  False when any figure is not a finite positive number or margin
 * is negative (no race). */
#define GDT_RACE_MARGIN 0.10
#define GDT_RACE_TOP_MARGIN 0.02
#define GDT_RACE_TOP 3
bool gdt_measure_raced_out(double est_us, double rel, double bar_us, double bar_rel, double margin);

/* A sample is dropped when the SM clock the probe saw is below
 * threshold * rated clock.  GDTUNE_CLOCK_THRESHOLD (0..1) overrides. */
#define GDT_CLOCK_THRESHOLD 0.90
/* What dropped samples may cost a series, as a share of its budget (measure.c). */
#define GDT_DROP_SHARE 0.25
bool gdt_clock_ok(double mhz, double rated_mhz, double threshold);

/* What the clock probe saw during one measurement. */
typedef struct gdt_measure_clocks {
    double rated_mhz;           /* cudaDevAttrClockRate */
    double min_mhz, max_mhz;    /* over every probe */
    int probes;
    double threshold;           /* fraction of rated_mhz below which samples dropped */
} gdt_measure_clocks;

/* gdt_measure with trial state: restore (may be NULL) runs on the stream,
 * untimed, before every sample (burst or cold call), so buffers a plan
 * accumulates into are identical before each.  clocks may be NULL. */
gdt_status gdt_measure_trials(const gdt_exec_fn *fn, const gdt_exec_fn *restore, void *stream,
                              const gdt_measure_opts *o, gdt_measure_result *out,
                              gdt_measure_clocks *clocks, gdt_error *e);

/* harness/clock_probe.c: a kernel compiled with NVRTC for the device's arch
 * that spins on clock64 for a fixed number of cycles and reads %globaltimer
 * around the spin: SM MHz = cycles / nanoseconds * 1000. */
typedef struct gdt_clock_probe gdt_clock_probe;
gdt_status gdt_clock_probe_create(gdt_clock_probe **out, gdt_error *e);
void gdt_clock_probe_destroy(gdt_clock_probe *p);
/* Launches the probe on stream, waits for it, and returns the SM clock. */
gdt_status gdt_clock_probe_read(gdt_clock_probe *p, void *stream, double *mhz, gdt_error *e);
/* Launches, without waiting, one thread that spins for cycles SM cycles. */
gdt_status gdt_clock_probe_spin(gdt_clock_probe *p, long long cycles, void *stream, gdt_error *e);
double gdt_clock_probe_rated_mhz(const gdt_clock_probe *p);
/* Compiles one self-contained CUDA source to a cubin for sm_<arch> with
 * NVRTC (malloc'd); NVRTC status with the compiler log otherwise.  Used by
 * the probe and by bench's empty-kernel floor. */
gdt_status gdt__nvrtc_cubin(const char *src, const char *name, int arch, void **cubin, size_t *len,
                            gdt_error *e);

#endif
