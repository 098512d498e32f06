/* The SM clock a result's metric was measured at (metric_clock.c): what
 * the probe read after each kept sample of its largest burst (`clock_mhz`),
 * of a worker's reply (the sweep's clock outliers, below) or of a result
 * the journal's reader typed (the report's "SM clock of the metric",
 * `tables diff --runs`).  Private to the harness and reports. */
#ifndef GDT_METRIC_CLOCK_H
#define GDT_METRIC_CLOCK_H

#include <stdbool.h>

#include <cjson/cJSON.h>

typedef struct gdt_metric_clock {
    int samples;      /* clocks read (a 0, a probe without a clock, is left out) */
    double median_mhz, min_mhz, max_mhz;
    double rated_mhz; /* the result's clocks.rated_mhz, 0 when absent */
} gdt_metric_clock;

/* false when the result records no clock for its largest burst (journals
 * before per-sample clocks, a GPU whose probe reads none). */
bool gdt_metric_clock_of(const cJSON *result, gdt_metric_clock *out);

/* The same of a journaled result, typed (gdt_run.h). */
struct gdt_run_result;
bool gdt_run_metric_clock(const struct gdt_run_result *res, gdt_metric_clock *out);

/* ------------------------------------------------------ clock outliers
 *
 * Under the power cap a plan's series may run at a much lower SM clock
 * than the rest of its cell (on the H200 a GEMM series at a median 1109 MHz
 * measured 51.5 us, 40.5 us at 1499 MHz in another run), and such a series
 * decided held-out picks and a nightly false alarm.  A verified series
 * whose median clock is below GDT_CLOCK_OUTLIER x its cell's clock (the
 * median of the median clocks of the cell's verified series of its kind,
 * each plan's first series) is measured again once, after the cell's last
 * plan and before its rounds and tables: before it can win, stay raced
 * out, or decide a placement (the sweep, sweep.c; sweeps/README.md "Clock
 * outliers").  0.9: within the cap a cell's plans' median clocks differ
 * by some percent on their own (a kernel that draws more power is clocked
 * lower; docs/method.md, "Not every plan's metric reaches the cap": in the committed sweeps the top
 * three's spread over 5% in 4 of 22 GEMM cells and 1 of 48 SDPA ones), and
 * the GEMM series above sat at 0.74 of the other run's clock.  A dip of
 * less (cudnn.eng0[KERNEL_CFG=0], 1364 against 1484 MHz in another run:
 * 0.92) is caught only where the rest of its cell ran faster still. */
#define GDT_CLOCK_OUTLIER 0.9

/* The kinds of series, judged among their own: the metric (the largest
 * burst of a plan measured in full or raced late, heated with the spec's
 * heat_seconds) runs under the cap; racing's first estimate of a plan
 * raced out before its metric is short and unheated, at a boost clock. */
typedef enum gdt_series_kind { GDT_SERIES_METRIC, GDT_SERIES_ESTIMATE, GDT_SERIES_KINDS } gdt_series_kind;

typedef struct gdt_series_clock {
    gdt_series_kind kind;
    double mhz; /* the median clock of its largest burst; 0: not verified, or no clock */
} gdt_series_clock;

/* A journaled result's or a worker reply's series. */
gdt_series_clock gdt_series_clock_of(const cJSON *result);
/* The same of a result the journal's reader typed (gdt_run.h). */
gdt_series_clock gdt_run_series_clock(const struct gdt_run_result *res);

/* Per kind, the median of the n series' clocks above 0; 0 where none. */
void gdt_cell_clocks(const gdt_series_clock *s, int n, double cell_mhz[GDT_SERIES_KINDS]);

/* Below GDT_CLOCK_OUTLIER x its kind's cell clock (false where either
 * clock is unknown). */
bool gdt_clock_outlier(gdt_series_clock s, const double cell_mhz[GDT_SERIES_KINDS]);

/* Does a plan's second series (again: the re-measure's result) count
 * rather than its first (verified, first_us)?  Yes when it is incorrect (a
 * wrong answer is never outvoted by a faster one), or verified and no
 * longer an outlier; when verified and still an outlier, the faster of the
 * two counts (a low clock only slows a series; both ran at the plan's own
 * capped clock, so the faster is the nearer).  No when it failed or
 * declined (it measured nothing). */
bool gdt_clock_again_counts(double first_us, const cJSON *again, const double cell_mhz[GDT_SERIES_KINDS]);

/* ------------------------------------------------------ time at the cell's clock
 *
 * Under the power cap a compute-bound series' time follows the SM clock it
 * happened to run at, and that clock follows the GPU's recent history more
 * than the plan: on one H100 the same GEMM plan (m16384 n4096 k14336) ran
 * its metric at 1379, 1454 and 1597 MHz on three nights, 2874, 2749 and
 * 2551 us, while time x clock stayed within 3%.  So in a compute-bound cell
 * plans are set against each other at one clock, the cell's: each series'
 * time is scaled by its median clock over the cell's clock (the median of
 * the clocks of its plans' verified metric series that count).  Where
 * plans shared one state, in a night's interleaved rounds, the ratios
 * agreed with that within 1.5% (mean |log| over 25 GEMM changes), against
 * 5.4% for the series' own times (docs/method.md, "Time at the cell's
 * clock").  A memory-bound cell's time does not follow the SM clock (there
 * the scaling moved the small GEMMs' winners by up to 12% between nights):
 * its series keep their own times. */
struct gdt_run_cell;

/* Compute-bound: at least this many FLOPs per byte the problem must move
 * (every operand once).  About twice the ridge of the measured ceilings
 * (H200: 790 TFLOP/s over 4.3 TB/s, 184), so that only cells well clear of
 * the memory roof are scaled; in the default grids every GEMM with M of
 * 512 or more, every attention cell with s of 2048 or more and the four
 * non-causal GQA cells at s 512 (405-510 FLOPs a byte). */
#define GDT_CLOCK_BOUND_INTENSITY 400.0

/* Whether a problem is compute-bound as above: its plans are set against
 * each other at one clock. */
struct gdt_problem;
bool gdt_problem_clock_bound(const struct gdt_problem *p);

/* A series' time us at cell_mhz: scaled by its clock mhz over cell_mhz;
 * us itself where either is unknown (0). */
double gdt_time_at_clock(double us, double mhz, double cell_mhz);

/* The clock (MHz) a cell's plans are set against each other at: 0 (their
 * own times) when the cell is not compute-bound or no verified metric
 * series of it that counts recorded a clock. */
double gdt_run_cell_mhz(const struct gdt_run_cell *c);

/* Plan pi's series time at the cell's clock cell_mhz: its time_us scaled
 * by its series' clock over cell_mhz, a first estimate of racing too (run
 * at the boost clock, it would be slower under the cap); its own time
 * where either clock is unknown (no clock read, 0 for cell_mhz). */
double gdt_run_time_at_cell_clock(const struct gdt_run_cell *c, int pi, double cell_mhz);

#endif
