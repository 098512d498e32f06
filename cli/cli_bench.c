/* `gdtune bench`: one plan, in process (not the sweep): built through
 * libgdtune's ranked list (by index or by name), verified and measured as
 * the sweep's worker does it (harness/trial.c: the same reference policy,
 * the same graph execute), from a drained queue across burst sizes.  Prints
 * host enqueue and device time per call, TFLOP/s and the spread per burst;
 * with --floor the bare cuLaunchKernel enqueue of an empty kernel, with
 * --vs-cudnn the mode-A cuDNN plans measured the same way, with --cupti
 * CUPTI kernel records as a second clock (cli/cli_bench_cupti.c).  With
 * --format json the same figures go into one document on stdout instead
 * (schema gdtune.bench/2, docs/commands.md, JSON output; cli/cli_bench_json.c);
 * messages stay on stderr. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "gdt_bench_cupti.h"
#include "gdt_bench_json.h"
#include "gdt_cli_csv.h"
#include "gdt_cli_options.h"
#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_measure.h"
#include "gdt_rows.h"
#include "gdt_trial.h"
#include "gdtune/plan.h"

#define BENCH_VS_CUDNN_MAX 4

#define VERB "gdtune bench"

static const char usage_text[] =
    "usage: gdtune bench FAMILY [--shape k=v,...] [--plan NAME | --index I [--count N]] [--mode M]\n"
    "                    [--bursts " GDT_DEFAULT_TEXT(GDT_BURSTS_DEFAULT)
    "] [--max-seconds S] [--target REL] [--seed N]\n"
    "                    [--cold] [--floor] [--vs-cudnn] [--cupti] [--format text|json|csv]\n"
    "\n"
    "Builds one plan of FAMILY (gemm, sdpa_fwd or sdpa_bwd) for one shape on this GPU,\n"
    "verifies it as a sweep does (against the first mode-A cuDNN plan that runs, itself\n"
    "checked against the fp64 CPU reference on small shapes; the CPU reference alone when\n"
    "no cuDNN plan runs) and measures it from a drained queue per burst size: host enqueue per call,\n"
    "device time per call (events), TFLOP/s and the relative spread of the estimate.\n"
    "A benchmark, not a test: it prints figures and asserts nothing about them.\n";

static const char footer_text[] =
    "exit codes: 0 success, 1 failure while running (no GPU, plan does not build or\n"
    "is incorrect), 2 bad usage or bad input\n";

typedef struct bench_args {
    gdt_family family;
    const char *plan;
    char shape[1024];    /* merged --shape; "": the family's default */
    gdt_problem p;       /* parsed here, so that bad input exits 2 with or without a GPU */
    int index;           /* -1: first that builds */
    gdt_mode mode;       /* the mode block planned (A unless --mode) */
    int count;           /* plans benchmarked from index on (--count) */
    gdt_measure_opts mo;
    long long seed;
    bool floor, vs_cudnn, cupti;
    int format;          /* GDT_CLI_FORMAT_TEXT, _JSON or _CSV */
} bench_args;

/* ------------------------------------------------------------ arguments */

static bool parse_mode(void *opts, const char *v, char *why, size_t nwhy)
{
    gdt_error e;
    if (gdt_mode_parse(v, &((bench_args *)opts)->mode, &e) == GDT_STATUS_OK)
        return true;
    return snprintf(why, nwhy, "%s", e.msg), false;
}

#define O(field) offsetof(bench_args, field)
static const gdt_cli_option options[] = {
    GDT_CLI_OPT_SHAPE(bench_args, shape, "the problem (default: the family's default shape);\n"
                                         "repeatable (keys merge)"),
    {"--plan", NULL, GDT_CLI_STRING, O(plan), .metavar = "NAME",
     .help = "a plan by name, e.g. \"gemm.nvrtc[...]\" or \"cudnn.eng0[KERNEL_CFG=3]\""},
    {"--index", NULL, GDT_CLI_INT, O(index), .lo = 0, .hi = 1e6, .metavar = "I",
     .help = "plan I of the ranked list (gdtune plans FAMILY --shape ...);\n"
             "default: the first plan of the list that builds"},
    {"--count", NULL, GDT_CLI_INT, O(count), .lo = 1, .hi = 1e6, .def = "1", .metavar = "N",
     .help = "benchmark N plans of the list from --index (default 0) on, each\n"
             "verified and measured (failures printed and skipped); the best by\n"
             "device time at the largest burst goes on to --vs-cudnn / --cupti"},
    {"--mode", NULL, GDT_CLI_CUSTOM, .parse = parse_mode, .metavar = "M",
     .help = "the mode block the list is planned with: A (default), B, FALLBACK,\n"
             "or OPENSOURCE (gdtune engines only: index 0 is the first of ours)"},
    GDT_CLI_OPTS_MEASURE(bench_args,
                         " (default " GDT_DEFAULT_TEXT(GDT_BURSTS_DEFAULT) ";\nthe sweep's limits)",
                         "measurement cap per plan", "relative spread to stop at"),
    {"--seed", NULL, GDT_CLI_INT64, O(seed), .lo = 1, .hi = 1e15, .def = "1", .metavar = "N",
     .help = "input seed (default 1)"},
    {"--cold", NULL, GDT_CLI_FLAG, O(mo.cold),
     .help = "also time single calls with the L2 flushed before each"},
    {"--floor", NULL, GDT_CLI_FLAG, O(floor),
     .help = "also measure cuLaunchKernel of an empty kernel (host floor)"},
    {"--vs-cudnn", NULL, GDT_CLI_FLAG, O(vs_cudnn),
     .help = "also measure the mode-A cuDNN plans (up to 4) and print ratios"},
    {"--cupti", NULL, GDT_CLI_FLAG, O(cupti),
     .help = "also read device time per call from CUPTI kernel records"},
    GDT_CLI_OPT_FORMAT(bench_args, format),
};
#undef O

static const gdt_cli_spec spec = {VERB, usage_text, footer_text, options, GDT_CLI_NOPTS(options)};

static int usage_error(const char *fmt, const char *what)
{
    return gdt_cli_usage_error(VERB, fmt, what);
}

/* True when the knob is a column of rf with a value in that column's
 * domain; else why not, in why. */
static bool knob_in_rows(const gdt_row_family *rf, const gdt_knob *k, char *why, size_t n)
{
    const char *name = gdt_knob_name(k->type);
    const gdt_column *col = NULL;
    int w;
    for (int c = 0; c < rf->ncols && !col; c++)
        if (rf->cols[c].knob == k->type)
            col = &rf->cols[c];
    if (!col) {
        w = snprintf(why, n, "knob %s is not a column of the %s rows (expected one of", name, rf->name);
        for (int c = 0; c < rf->ncols && (size_t)w < n; c++)
            w += snprintf(why + w, n - (size_t)w, "%s %s", c ? "," : "", gdt_knob_name(rf->cols[c].knob));
        if ((size_t)w < n)
            snprintf(why + w, n - (size_t)w, ")");
        return false;
    }
    for (int d = 0; d < col->ndomain; d++)
        if (col->domain[d] == k->value)
            return true;
    w = snprintf(why, n, "knob %s=%lld: expected one of", name, (long long)k->value);
    for (int d = 0; d < col->ndomain && (size_t)w < n; d++)
        w += snprintf(why + w, n - (size_t)w, "%s %lld", d ? "," : "", (long long)col->domain[d]);
    return false;
}

/* The plan name, judged as far as it can be without a device (so that bad
 * input exits 2 with or without one): syntax, engine and knob names
 * (gdt_plan_id_parse), an engine of FAMILY, and for an engine of candidate
 * rows every knob a column of those rows with a value in its domain.  The
 * cuDNN engines' knob ranges are cuDNN's to judge, on the device. */
static int check_plan(const bench_args *a)
{
    gdt_plan_id id;
    gdt_error e;
    char why[512] = "";
    if (gdt_plan_id_parse(a->plan, &id, &e))
        return usage_error("--plan: %s", e.msg);
    if (id.engine_id >= 0 && id.engine_id < GDT_ENGINE_ID_BACKEND_END)
        return 0;
    const gdt_engine_slot *slot = gdt_manifest_find(gdt_manifest_default(), id.engine_id);
    const char *row_family = gdt_engine_slot_row_family(slot);
    const gdt_row_family *rf = row_family ? gdt__row_family_find(row_family) : NULL;
    if (!slot)
        snprintf(why, sizeof why, "no engine has id %lld", (long long)id.engine_id);
    else if (gdt_engine_slot_family(slot) != a->family)
        snprintf(why, sizeof why, "%s is an engine of %s, not of %s", gdt_engine_slot_name(slot),
                 gdt_family_name(gdt_engine_slot_family(slot)), gdt_family_name(a->family));
    for (int k = 0; !why[0] && rf && k < id.nknobs; k++)
        if (!knob_in_rows(rf, &id.knobs[k], why, sizeof why))
            break;
    if (!why[0])
        return 0;
    return gdt_cli_usage_error(VERB, "--plan: plan name \"%s\": %s", a->plan, why);
}

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, bench_args *a)
{
    memset(a, 0, sizeof *a);
    gdt_measure_opts_default(&a->mo);
    a->index = -1;
    const char *family = NULL;
    int npos, rc = gdt_cli_parse(&spec, argc, argv, a, &family, 1, &npos);
    if (rc >= 0)
        return rc;
    if (a->plan && (a->index >= 0 || a->count > 1))
        return usage_error("%s", "--plan names one plan; --index and --count pick from the list instead");
    gdt_error e;
    if (!family)
        return usage_error("%s", "missing FAMILY (gemm, sdpa_fwd or sdpa_bwd)");
    if (gdt_family_parse(family, &a->family, &e))
        return usage_error("%s", e.msg);
    if (gdt_problem_parse(a->family, a->shape[0] ? a->shape : NULL, &a->p, &e))
        return usage_error("--shape: %s", e.msg);
    return a->plan && check_plan(a) ? 2 : -1;
}

/* -------------------------------------------------------------- the run */

typedef struct bench {
    bench_args a;
    gdt_problem p;
    gdt_device_props dev;
    gdt_trial *t;           /* buffers, stream and the reference (harness/trial.c) */
    gdt_graph *g;           /* the plan benchmarked, planned in --mode */
    char name[512];
    gdt_graph *ref_g;       /* planned in mode A: the reference and --vs-cudnn plans */
    gdt_measure_result *res;
    double flops;
    cJSON *doc;             /* --format json or csv: the document; NULL: text */
    cJSON *cur;             /* the plans[] entry being filled (in doc) */
} bench;

static gdt_status plan_graph(bench *b, gdt_mode mode, gdt_graph **g, gdt_error *e)
{
    gdt_plan_options po = {.backend = gdt_cudnn_backend(), .modes = {mode}, .nmodes = 1};
    gdt_status st = gdt_graph_create(&b->p, &b->dev, g, e);
    if (st == GDT_STATUS_OK)
        st = gdt_graph_plan(*g, &po, e);
    return st;
}

/* " (cached)" when the last build came from the compiled-kernel cache (an
 * NVRTC cubin or a cuDNN plan's text), not from a compile. */
static const char *cached_note(const gdt_graph *g)
{
    gdt_build_report rep;
    gdt_graph_last_build(g, &rep);
    return rep.info.cache_hit ? " (cached)" : "";
}

/* The plan under test: by name (replayed), by index (pinned), or the first
 * of the ranked list that builds. */
static gdt_status build_plan(bench *b, gdt_error *e)
{
    gdt_status st = plan_graph(b, b->a.mode, &b->g, e);
    gdt_plan_id id;
    int built = -1;
    double s = 0;
    if (st == GDT_STATUS_OK && b->a.plan && (st = gdt_plan_id_parse(b->a.plan, &id, e)) == GDT_STATUS_OK)
        st = gdt_graph_replay(b->g, &id, e);
    else if (st == GDT_STATUS_OK && b->a.index >= 0)
        st = gdt_graph_select(b->g, b->a.index, e);
    if (st == GDT_STATUS_OK)
        st = gdt_trial_build(b->t, b->g, &built, &s, e);
    if (st != GDT_STATUS_OK)
        return st;
    const gdt_plan_id *pid = b->a.plan ? &id : &gdt_graph_plan_at(b->g, built)->id;
    gdt_plan_id_format(pid, b->name, sizeof b->name);
    if (b->doc) {
        b->cur = gdt__bench_plan_json(pid, b->a.plan ? -1 : built, gdt_graph_plan_count(b->g), s * 1e3,
                                      gdt_graph_workspace_size(b->g));
        cJSON_AddItemToArray(cJSON_GetObjectItem(b->doc, "plans"), b->cur);
        return GDT_STATUS_OK;
    }
    char where[64];
    if (b->a.plan)
        snprintf(where, sizeof where, "replayed by name");
    else
        snprintf(where, sizeof where, "index %d of %d in the ranked list", built, gdt_graph_plan_count(b->g));
    printf("plan:      %s (%s), built in %.1f ms%s, workspace %zu bytes\n", b->name, where, s * 1e3,
           cached_note(b->g), gdt_graph_workspace_size(b->g));
    return GDT_STATUS_OK;
}

/* The cell's reference, by the sweep's policy (harness/gdt_trial.h). */
static gdt_status reference(bench *b, gdt_error *e)
{
    gdt_status st = plan_graph(b, GDT_MODE_A, &b->ref_g, e);
    return st == GDT_STATUS_OK ? gdt_trial_reference(b->t, b->ref_g, e) : st;
}

/* Pins ref_g on its nth mode-A backend entry and builds it. */
static gdt_status build_cudnn(bench *b, int nth, char *name, size_t nname, int64_t *engine_id, gdt_error *e)
{
    int seen = 0, idx = -1;
    for (int i = 0; i < gdt_graph_plan_count(b->ref_g) && idx < 0; i++) {
        const gdt_plan_entry *x = gdt_graph_plan_at(b->ref_g, i);
        if (gdt_trial_reference_candidate(x) && seen++ == nth)
            idx = i;
    }
    if (idx < 0)
        return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "cuDNN lists fewer than %d mode-A plans for %s",
                             nth + 1, gdt_family_name(b->p.family));
    gdt_plan_id_format(&gdt_graph_plan_at(b->ref_g, idx)->id, name, nname);
    *engine_id = gdt_graph_plan_at(b->ref_g, idx)->id.engine_id;
    gdt_status st = gdt_graph_select(b->ref_g, idx, e);
    return st == GDT_STATUS_OK ? gdt_trial_build(b->t, b->ref_g, NULL, NULL, e) : st;
}

static gdt_status verify(bench *b, gdt_error *e)
{
    double err[4];
    int nerr = 0;
    gdt_status st = gdt_trial_verify(b->t, b->g, err, &nerr, e);
    if (st != GDT_STATUS_OK)
        return st;
    const gdt_trial *t = b->t;
    if (b->doc) {
        cJSON_AddItemToObject(b->cur, "verified", gdt__bench_verified_json(&b->p, t->ref_is_cpu ? NULL
                                                                                   : t->ref_name,
                                                                         t->ref_cpu_checked, err, nerr));
        return GDT_STATUS_OK;
    }
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = gdt_family_outputs(b->p.family, roles);
    gdt_dtype dt = gdt_problem_dtype(&b->p);
    printf("verified:  against %s%s:", t->ref_is_cpu ? "the fp64 CPU reference" : t->ref_name,
           t->ref_cpu_checked ? " (itself checked against the fp64 CPU reference)" : "");
    for (int i = 0; i < nerr && i < nout; i++)
        printf(" %s %.2e", gdt_operand_name(roles[i]), err[i]);
    printf(" (relative L2; bound %.2g for %s)\n", gdt_dtype_tolerance(dt), gdt_dtype_name(dt));
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------- printing */

static double tflops(const bench *b, double us) { return gdt__bench_tflops(b->flops, us); }

static void print_result(const bench *b, const char *what, const gdt_measure_result *r,
                         const gdt_measure_clocks *c)
{
    printf("\n%s\n%6s %14s %16s %15s %9s %8s %4s %8s\n", what, "burst", "host us/call",
           "device us/call", "total us/call", "TFLOP/s", "spread", "n", "dropped");
    for (int i = 0; i < r->nbursts; i++) {
        const gdt_burst_result *x = &r->bursts[i];
        printf("%6d %14.2f %16.2f %15.2f %9.1f %8.4f %4d %8d\n", x->burst, x->median_host_us,
               x->median_device_us, gdt_stats_median(x->total_us, x->n), tflops(b, x->median_device_us),
               x->rel_spread, x->n, x->dropped);
    }
    if (r->ncold)
        printf("%6s %14s %16.2f %15s %9.1f %8.4f %4d\n", "cold", "-", r->median_cold_us, "-",
               tflops(b, r->median_cold_us), gdt_stats_rel_spread(r->cold_us, r->ncold), r->ncold);
    printf("measured %.2f s, %s; SM clock %.0f..%.0f MHz over %d probes (rated %.0f, samples "
           "below %.0f%% dropped)\n", r->seconds, r->converged ? "converged" : "NOT converged (time cap)",
           c->min_mhz, c->max_mhz, c->probes, c->rated_mhz, c->threshold * 100);
}

/* ------------------------------------------------------------ measuring */

/* into: where the figures go under --format json (unused for text). */
static gdt_status measure_graph(bench *b, gdt_graph *g, const char *what, gdt_measure_result *r,
                                cJSON *into, gdt_error *e)
{
    gdt_measure_clocks clk;
    gdt_status st = gdt_trial_measure(b->t, g, &b->a.mo, r, &clk, e);
    if (st == GDT_STATUS_OK && b->doc)
        gdt__bench_measure_json(into, r, &clk, b->flops);
    else if (st == GDT_STATUS_OK)
        print_result(b, what, r, &clk);
    return st;
}

/* ---------------------------------------------------------------- extras */

typedef struct empty_kernel {
    CUfunction fn;
    const gdt_cu_api *cu;
} empty_kernel;

static gdt_status launch_empty(void *ctx, void *stream, gdt_error *e)
{
    empty_kernel *k = ctx;
    GDT_CHECK_CU(e, k->cu->cuLaunchKernel(k->fn, 1, 1, 1, 32, 1, 1, 0, (CUstream)stream, NULL, NULL));
    return GDT_STATUS_OK;
}

/* The host floor: cuLaunchKernel of an empty kernel, no library around it. */
static gdt_status floor_run(bench *b, gdt_error *e)
{
    static const char src[] = "extern \"C\" __global__ void gdt_empty(void) {}\n";
    empty_kernel k = {.cu = gdt_cu(e)};
    void *cubin = NULL;
    size_t len = 0;
    CUmodule mod = NULL;
    if (!k.cu)
        return e ? e->status : GDT_STATUS_NO_DEVICE;
    gdt_status st = gdt__nvrtc_cubin(src, "gdt_empty.cu", b->dev.arch, &cubin, &len, e);
    if (st != GDT_STATUS_OK)
        return st;
    CUresult r = k.cu->cuModuleLoadData(&mod, cubin);
    free(cubin);
    GDT_CHECK_CU(e, r);
    if ((r = k.cu->cuModuleGetFunction(&k.fn, mod, "gdt_empty")) == CUDA_SUCCESS) {
        gdt_exec_fn fn = {launch_empty, &k};
        gdt_measure_clocks clk;
        gdt_measure_opts o = b->a.mo;
        o.cold = false;
        if ((st = gdt_measure_trials(&fn, NULL, b->t->stream, &o, b->res, &clk, e)) == GDT_STATUS_OK && b->doc)
            gdt__bench_measure_json(cJSON_AddObjectToObject(b->doc, "floor"), b->res, &clk, b->flops);
        else if (st == GDT_STATUS_OK)
            print_result(b, "floor: bare cuLaunchKernel of an empty kernel (TFLOP/s column meaningless)",
                         b->res, &clk);
    }
    k.cu->cuModuleUnload(mod);
    GDT_CHECK_CU(e, r);
    return st;
}

/* cuDNN mode-A plan nth built and measured into r; its device time at the
 * largest burst, or INFINITY when it did not build or measure (said in its
 * row of rows under --format json, else printed). */
static double cudnn_plan(bench *b, int nth, gdt_measure_result *r, cJSON *rows, char *name, size_t nname)
{
    char what[600];
    gdt_error pe;
    cJSON *row = rows ? cJSON_CreateObject() : NULL; /* cJSON's adders ignore a NULL object */
    cJSON_AddItemToArray(rows, row);
    cJSON_AddNumberToObject(row, "nth", nth);
    int64_t engine_id = -1;
    gdt_status st = build_cudnn(b, nth, name, nname, &engine_id, &pe);
    if (st != GDT_STATUS_OK && !row)
        printf("\ncuDNN mode-A plan %d: %s\n", nth, pe.msg);
    if (st == GDT_STATUS_OK) {
        cJSON_AddStringToObject(row, "name", name);
        cJSON_AddNumberToObject(row, "engine_id", (double)engine_id);
        snprintf(what, sizeof what, "cuDNN mode-A plan %d: %s", nth, name);
        if ((st = measure_graph(b, b->ref_g, what, r, row, &pe)) != GDT_STATUS_OK && !row)
            printf("  measuring failed: %s\n", pe.msg);
    }
    if (st != GDT_STATUS_OK)
        cJSON_AddStringToObject(row, "error", pe.msg);
    return st == GDT_STATUS_OK ? gdt_measure_best_us(r, NULL) : INFINITY;
}

/* The mode-A cuDNN plans, each measured as the plan was; the best device
 * time at the largest burst against the plan's. */
static gdt_status vs_cudnn(bench *b, gdt_error *e)
{
    double mine = gdt_measure_best_us(b->res, NULL), best = INFINITY;
    char best_name[512] = "";
    gdt_measure_result *r = calloc(1, sizeof *r);
    if (!r)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "bench: out of memory");
    cJSON *rows = b->doc ? cJSON_AddArrayToObject(b->doc, "cudnn") : NULL;
    for (int i = 0; i < BENCH_VS_CUDNN_MAX; i++) {
        char name[512];
        double us = cudnn_plan(b, i, r, rows, name, sizeof name);
        if (us < best)
            best = us, snprintf(best_name, sizeof best_name, "%s", name);
    }
    free(r);
    if (b->doc)
        cJSON_AddItemToObject(b->doc, "ratio", isfinite(best) ? gdt__bench_ratio_json(b->name, mine, best_name,
                                                                                   best, b->flops)
                                                              : cJSON_CreateNull());
    else if (isfinite(best))
        printf("\nratio: %s %.1f TFLOP/s vs best cuDNN mode-A %s %.1f TFLOP/s: %.3f (the plan's time over "
               "cuDNN's, < 1: the plan faster; largest burst)\n",
               b->name, tflops(b, mine), best_name, tflops(b, best), mine / best);
    return GDT_STATUS_OK;
}

/* ----------------------------------------------------------------- CUPTI */

static gdt_status exec_plan(void *ctx, void *stream, gdt_error *e)
{
    bench *b = ctx;
    (void)stream; /* the trial's own */
    return gdt_trial_execute(b->t, b->g, e);
}

/* A traced run of the largest burst, reps times. */
static gdt_status cupti_run(bench *b, gdt_error *e)
{
    int burst = b->a.mo.bursts[b->a.mo.nbursts - 1], reps = 5;
    gdt_exec_fn fn = {exec_plan, b};
    gdt_bench_cupti c;
    gdt_status st = gdt__bench_cupti(&fn, b->t->stream, (long)burst * reps, &c, e);
    if (st != GDT_STATUS_OK)
        return st;
    if (b->doc) {
        cJSON *o = cJSON_AddObjectToObject(b->doc, "cupti");
        cJSON_AddNumberToObject(o, "burst", burst);
        cJSON_AddNumberToObject(o, "reps", reps);
        cJSON_AddNumberToObject(o, "kernels_per_execute", c.kernels_per_call);
        cJSON_AddNumberToObject(o, "kernel_us", c.kernel_us);
        cJSON_AddNumberToObject(o, "span_us", c.span_us);
        cJSON_AddNumberToObject(o, "time_us", gdt_measure_best_us(b->res, NULL));
        return GDT_STATUS_OK;
    }
    printf("\ncupti (second clock, traced burst of %d x %d): %.2f kernels per execute, kernel time "
           "%.2f us/call, span %.2f us/call (events at burst %d: %.2f us/call)\n",
           burst, reps, c.kernels_per_call, c.kernel_us, c.span_us, burst, gdt_measure_best_us(b->res, NULL));
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------------ scan */

/* Plan i of b->g: pinned, built, verified, measured into r. */
static gdt_status bench_index(bench *b, int i, gdt_measure_result *r, gdt_error *e)
{
    int built = -1;
    double s = 0;
    gdt_status st = gdt_graph_select(b->g, i, e);
    if (st == GDT_STATUS_OK)
        st = gdt_trial_build(b->t, b->g, &built, &s, e);
    const gdt_plan_id *id = &gdt_graph_plan_at(b->g, i)->id;
    gdt_plan_id_format(id, b->name, sizeof b->name);
    b->cur = NULL;
    if (st != GDT_STATUS_OK)
        return st;
    double ms = s * 1e3;
    if (b->doc)
        cJSON_AddItemToArray(cJSON_GetObjectItem(b->doc, "plans"),
                             b->cur = gdt__bench_plan_json(id, i, gdt_graph_plan_count(b->g), ms,
                                                           gdt_graph_workspace_size(b->g)));
    else
        printf("\nplan:      %s (index %d of %d), built in %.1f ms%s, workspace %zu bytes\n", b->name,
               i, gdt_graph_plan_count(b->g), ms, cached_note(b->g), gdt_graph_workspace_size(b->g));
    if ((st = verify(b, e)) == GDT_STATUS_OK)
        st = measure_graph(b, b->g, b->name, r, b->cur, e);
    return st;
}

/* A plan of the --count scan that failed: its plans[] entry (made here
 * when it did not build) gets the error, or the line is printed. */
static void scan_failed(bench *b, int i, const char *msg)
{
    if (!b->doc) {
        printf("\nplan %d: %s: %s\n", i, b->name, msg);
        return;
    }
    if (!b->cur) {
        cJSON_AddItemToArray(cJSON_GetObjectItem(b->doc, "plans"), b->cur = cJSON_CreateObject());
        cJSON_AddStringToObject(b->cur, "name", b->name);
        cJSON_AddNumberToObject(b->cur, "engine_id", (double)gdt_graph_plan_at(b->g, i)->id.engine_id);
        cJSON_AddNumberToObject(b->cur, "index", i);
    }
    cJSON_AddStringToObject(b->cur, "error", msg);
}

/* --count N: plans index..; the best (device time at the largest burst)
 * ends in b->res and b->name, built in b->g. */
static gdt_status scan(bench *b, gdt_error *e)
{
    gdt_measure_result *r = calloc(1, sizeof *r);
    int start = b->a.index < 0 ? 0 : b->a.index, tried = 0, best = -1, n;
    double best_us = INFINITY;
    char best_name[512] = "";
    gdt_status st = r ? plan_graph(b, b->a.mode, &b->g, e) : GDT_STATUS_NO_MEMORY;
    n = st == GDT_STATUS_OK ? gdt_graph_plan_count(b->g) : 0;
    for (int i = start; i < n && tried < b->a.count; i++) {
        gdt_error pe;
        if (gdt_graph_plan_at(b->g, i)->is_marker)
            continue;
        tried++;
        if (bench_index(b, i, r, &pe) != GDT_STATUS_OK) {
            scan_failed(b, i, pe.msg);
            continue;
        }
        double us = gdt_measure_best_us(r, NULL);
        if (!b->doc)
            printf("scan %d: %s %.2f us/call %.1f TFLOP/s\n", i, b->name, us, tflops(b, us));
        if (us < best_us)
            best_us = us, best = i, *b->res = *r, snprintf(best_name, sizeof best_name, "%s", b->name);
    }
    free(r);
    if (st == GDT_STATUS_OK && best < 0)
        st = gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "none of %d plans from index %d built, verified and "
                           "measured", tried, start);
    if (st != GDT_STATUS_OK)
        return st;
    snprintf(b->name, sizeof b->name, "%s", best_name);
    if (b->doc)
        cJSON_AddItemToObject(b->doc, "best", gdt__bench_best_json(tried, best, b->name,
                                                                  gdt_graph_plan_at(b->g, best)->id.engine_id,
                                                                  best_us, b->flops));
    else
        printf("\nbest of %d: index %d %s: %.2f us/call, %.1f TFLOP/s (largest burst)\n", tried, best, b->name,
           best_us, tflops(b, best_us));
    int built;
    if ((st = gdt_graph_select(b->g, best, e)) == GDT_STATUS_OK)
        st = gdt_trial_build(b->t, b->g, &built, NULL, e); /* for --cupti */
    return st;
}

static gdt_status single(bench *b, gdt_error *e)
{
    gdt_status st = build_plan(b, e);
    if (st == GDT_STATUS_OK)
        st = verify(b, e);
    if (st == GDT_STATUS_OK)
        st = measure_graph(b, b->g, b->name, b->res, b->cur, e);
    return st;
}

/* ------------------------------------------------------------------ main */

static gdt_status run(bench *b, gdt_error *e)
{
    gdt_status st;
    char key[512];
    b->p = b->a.p;
    b->flops = gdt_problem_flops(&b->p);
    if ((st = gdt__device_props(0, &b->dev, e)) != GDT_STATUS_OK)
        return st;
    gdt_problem_key(&b->p, key, sizeof key);
    if (b->a.format != GDT_CLI_FORMAT_TEXT) {
        int driver = 0, cuda = 0;
        cudaDriverGetVersion(&driver);  /* 0 stays when unknown: figures, not a reason to stop */
        cudaRuntimeGetVersion(&cuda);
        if (!(b->doc = gdt__bench_doc(&b->p, &b->dev, driver, cuda, gdt_cudnn_runtime_version())))
            return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "bench: out of memory");
    } else {
        printf("problem:   %s (%.4g FLOP) on %s (sm%d, %d SMs), cuDNN %d\n", key, b->flops, b->dev.name,
               b->dev.arch, b->dev.sm_count, gdt_cudnn_runtime_version());
    }
    if (!(b->res = calloc(1, sizeof *b->res)))
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "bench: out of memory");
    if ((st = gdt_trial_create(&b->p, &b->dev, (uint64_t)b->a.seed, VERB, &b->t, e)) != GDT_STATUS_OK ||
        (st = reference(b, e)) != GDT_STATUS_OK)
        return st;
    st = b->a.count > 1 ? scan(b, e) : single(b, e);
    if (st != GDT_STATUS_OK)
        return st;
    if (b->a.cupti && (st = cupti_run(b, e)) != GDT_STATUS_OK)
        return st;
    if (b->a.vs_cudnn && (st = vs_cudnn(b, e)) != GDT_STATUS_OK)
        return st;
    return b->a.floor ? floor_run(b, e) : GDT_STATUS_OK;
}

static void cleanup(bench *b)
{
    gdt_graph_destroy(b->g);
    gdt_graph_destroy(b->ref_g);
    gdt_trial_destroy(b->t);
    free(b->res);
}

/* --format csv: one line per burst of every plan measured, the plans
 * benchmarked first, then --vs-cudnn's and the --floor kernel's. */
#define BURST_COLS                                                                             \
    {"burst", 1, "burst"}, {"median_host_us", 1, "median_host_us"},                               \
    {"median_device_us", 1, "median_device_us"}, {"median_total_us", 1, "median_total_us"},       \
    {"tflops", 1, "tflops"}, {"rel_spread", 1, "rel_spread"},                                     \
    {"n", 1, "n"}, {"dropped", 1, "dropped"}
static const gdt_cli_csv_col plan_cols[] = {
    {"source", -1, "plan"}, {"plan", 0, "name"}, {"index", 0, "index"}, BURST_COLS};
static const gdt_cli_csv_col cudnn_cols[] = {
    {"source", -1, "cudnn"}, {"plan", 0, "name"}, {"index", 0, "nth"}, BURST_COLS};
static const gdt_cli_csv_col floor_cols[] = {
    {"source", -1, "floor"}, {"plan", -1, "cuLaunchKernel of an empty kernel"}, {"index", -1, ""},
    BURST_COLS};
#undef BURST_COLS
#define NCOLS (int)(sizeof plan_cols / sizeof plan_cols[0])
static const gdt_cli_csv_view csv_views[] = {
    {{"plans", "bursts"}, 2, plan_cols, NCOLS},
    {{"cudnn", "bursts"}, 2, cudnn_cols, NCOLS},
    {{"floor", "bursts"}, 2, floor_cols, NCOLS},
};
#undef NCOLS

int gdt_cli_bench(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof b);
    int rc = parse_args(argc, argv, &b.a);
    if (rc >= 0)
        return rc;
    /* No device, no document: stdout stays empty under --format json too. */
    if (!gdt__device_present()) {
        fprintf(stderr, "gdtune bench: no CUDA device: bench builds, verifies and times plans on "
                        "the GPU; run it on a machine with one (gdtune plans and gdtune candidates "
                        "work without)\n");
        return 1;
    }
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status st = run(&b, &e);
    fflush(stdout);
    if (st != GDT_STATUS_OK)
        fprintf(stderr, "gdtune bench: %s: %s\n", gdt_status_message(st), e.msg);
    /* JSON: the document only after a whole run; a failed one leaves stdout empty. */
    rc = st == GDT_STATUS_OK && b.doc ? gdt_cli_doc_emit(VERB, b.doc, b.a.format, csv_views, 3)
                                      : gdt_status_exit_code(st);
    if (st != GDT_STATUS_OK)
        cJSON_Delete(b.doc);
    cleanup(&b);
    return rc;
}
