/* `gdtune compare`: generated against handwritten plans in one timing scope.
 *
 *   gdtune compare RUNDIR... [--family F] [--format text|json|md|csv]
 *       per cell the best generated, handwritten, cuDNN and cuBLASLt plans from the
 *       sweep's own measurements (harness/compare_runs.c), and the figure
 *       RUNDIR/report/compare.svg (reports/compare_figure.c);
 *   gdtune compare FAMILY --shape ... --plan A --plan B [--rounds N]
 *       an A/B on the GPU in one process (harness/ab.c). */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "gdt_ab.h"
#include "gdt_cli_csv.h"
#include "gdt_cli_options.h"
#include "gdt_cli_reproduce.h"
#include "gdt_compare_figure.h"
#include "gdt_compare_runs.h"
#include "gdt_compare_summary.h"
#include "gdt_cuda.h"
#include "gdtune/plan.h"

#define VERB "gdtune compare"
#define MAX_RUNS 256

static const char usage_text[] =
    "usage: gdtune compare RUNDIR... [--family F] [--format text|json|md|csv]\n"
    "       gdtune compare FAMILY [--shape k=v,...] --plan A --plan B [--rounds N]\n"
    "                      [--bursts LIST] [--max-seconds S] [--target REL] [--seed N]\n"
    "\n"
    "RUNDIR...: per cell (matched by problem key across the run directories) the best\n"
    "generated plan (NVRTC engines), the best handwritten plan (hand engines), the\n"
    "best cuDNN plan and the best cuBLASLt plan, from the sweep's own measurements:\n"
    "device time per call at the largest burst, and each side's ratio to cuDNN (its\n"
    "time over cuDNN's).  The cell's ratio is handwritten time / generated time (< 1:\n"
    "handwritten faster), its noise the two plans' relative noise summed.  Also each side's budget,\n"
    "the winners' bound parameters by role, their errors against the reference and what\n"
    "one execute holds; the ratios go into RUNDIR/report/compare.svg (the first RUNDIR)\n"
    "when gnuplot is installed.  Runs measured with other bursts or on another device\n"
    "model are refused (exit 2).\n"
    "\n"
    "FAMILY --plan A --plan B: both plans built, verified against one reference and\n"
    "measured on this GPU in interleaved rounds A, B, A, B, ...; prints both times (median\n"
    "over the rounds), the ratio (A's time over B's, < 1: A faster) and its spread.\n";

static const char footer_text[] =
    "exit codes: 0 success, 1 failure while running (A/B: no GPU, a plan does not build\n"
    "or is incorrect), 2 bad usage or bad input (a comparison that does not hold the\n"
    "timing scope equal is refused with the reason)\n";

static const char *const formats[] = {"text", "json", "md", "csv", NULL};
enum { FMT_TEXT, FMT_JSON, FMT_MD, FMT_CSV };

typedef struct compare_args {
    const char *family;
    int format;
    char shape[1024];
    const char *plan[2];
    int nplans;
    int rounds;          /* 0: not given */
    gdt_measure_opts mo;
    long long seed;
} compare_args;

static bool parse_plan(void *opts, const char *v, char *why, size_t nwhy)
{
    compare_args *a = opts;
    if (a->nplans == 2)
        return snprintf(why, nwhy, "a third plan (expected exactly two: --plan A --plan B)"), false;
    a->plan[a->nplans++] = v;
    return true;
}

#define O(field) offsetof(compare_args, field)
static const gdt_cli_option options[] = {
    {"--family", NULL, GDT_CLI_STRING, O(family), .metavar = "F",
     .help = "RUNDIR form: only cells of F (gemm, sdpa_fwd, sdpa_bwd, or sdpa)"},
    {"--format", NULL, GDT_CLI_CHOICE, O(format), .choices = formats, .def = "text",
     .metavar = "text|json|md", .help = "RUNDIR form: text, one JSON document (gdtune.compare/2),\n"
                                        "or markdown tables"},
    GDT_CLI_OPT_SHAPE(compare_args, shape, "A/B: the problem (default: the family's default shape)"),
    {"--plan", NULL, GDT_CLI_CUSTOM, .parse = parse_plan, .metavar = "NAME",
     .help = "A/B: a plan by name, given twice (A, then B)"},
    {"--rounds", NULL, GDT_CLI_INT, O(rounds), .lo = 2, .hi = GDT_AB_ROUNDS_MAX, .metavar = "N",
     .help = "A/B: rounds of A then B (default 6)"},
    GDT_CLI_OPTS_MEASURE(compare_args, "\n(A/B; default " GDT_DEFAULT_TEXT(GDT_BURSTS_DEFAULT) ")",
                         "A/B: measurement cap per plan and round",
                         "A/B: relative spread to stop a measurement at"),
    {"--seed", NULL, GDT_CLI_INT64, O(seed), .lo = 1, .hi = 1e15, .metavar = "N",
     .help = "A/B: input seed (default 1)"},
};
#undef O

static const gdt_cli_spec spec = {VERB, usage_text, footer_text, options, GDT_CLI_NOPTS(options)};

/* ============================================================ RUNDIR... */

typedef struct out {
    const gdt_comparison *c;
    int format;
    char figure[PATH_MAX + 64]; /* "" when not drawn */
} out;

static double tflops(const gdt_compare_cell *x, gdt_side s)
{
    return gdt_problem_flops(&x->problem) / (x->best[s].time_us * 1e-6) / 1e12;
}

/* The cell's outputs, family order, and their dtype's bound. */
static int outputs(const gdt_compare_cell *x, gdt_operand_role *roles, double *bound)
{
    int nout = gdt_family_outputs(x->problem.family, roles);
    *bound = gdt_dtype_tolerance(gdt_problem_dtype(&x->problem));
    return nout;
}

static void verify_text(const gdt_compare_cell *x, gdt_side s, char *buf, size_t n)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    double bound;
    int nout = outputs(x, roles, &bound);
    size_t w = 0;
    buf[0] = '\0';
    for (int i = 0; i < x->best[s].nerr && i < nout && w < n; i++)
        w += (size_t)snprintf(buf + w, n - w, "%s%s %.2e", i ? ", " : "", gdt_operand_name(roles[i]),
                              x->best[s].verify_err[i]);
    if (w == 0)
        snprintf(buf, n, "not recorded");
}

static void budget_text(const gdt_side_budget *b, char *buf, size_t n)
{
    snprintf(buf, n, "%d listed, %d tried: %d verified (%d raced out), %d incorrect, %d failed, "
             "%d declined", b->listed, b->tried, b->counts[GDT_DISP_VERIFIED], b->raced_out,
             b->counts[GDT_DISP_INCORRECT], b->counts[GDT_DISP_FAILED], b->counts[GDT_DISP_DECLINED]);
}

/* Why a side has no winner: no plan at all, or none verified. */
static void missing_text(const gdt_compare_cell *x, gdt_side s, char *buf, size_t n)
{
    const gdt_side_budget *b = &x->budget[s];
    if (!b->listed)
        snprintf(buf, n, "no %s plan for this cell", gdt_side_name(s));
    else if (b->why)
        snprintf(buf, n, "no verified %s plan for this cell (first: %.200s: %.300s)", gdt_side_name(s),
                 b->why_plan, b->why);
    else
        snprintf(buf, n, "no verified %s plan for this cell (none of %d measured)", gdt_side_name(s),
                 b->listed);
}

static void knob_text(const gdt_side_best *b, int knob, char *buf, size_t n)
{
    int64_t v = b->plan ? gdt_plan_id_knob(&b->plan->id, knob, INT64_MIN) : INT64_MIN;
    if (v == INT64_MIN)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%lld", (long long)v);
}


/* ------------------------------------------------------------ text, md */

static void header_text(FILE *f, const out *o)
{
    const gdt_comparison *c = o->c;
    const gdt_run *r = c->runs[0];
    const char *li = o->format == FMT_MD ? "- " : "";
    fprintf(f, o->format == FMT_MD ? "# gdtune compare\n\n" : "gdtune compare\n");
    for (int i = 0; i < c->nruns; i++)
        fprintf(f, "%srun %s: %s, started %s, gdtune %s\n", li, c->dirs[i], c->runs[i]->family,
                c->runs[i]->started, c->runs[i]->gdtune_version);
    fprintf(f, "%sdevice: %s (sm%d, %d SMs)\n", li, r->dev.name, r->arch, r->dev.sm_count);
    fprintf(f, "%stime: device time per call at the largest burst (%d), the median the sweep "
               "measured for one execute of the plan; noise: its relative spread\n", li,
            r->options.bursts[r->options.nbursts - 1]);
    fprintf(f, "%sratio: handwritten time / generated time: < 1 means the handwritten plan is faster; "
               "its noise is the two plans' relative noise summed; beyond noise: faster by more than "
               "both noises (the tables' rule)\n", li);
    fprintf(f, "%sverify: relative L2 error against the cell's reference; below the dtype's bound "
               "it is rounding (fp32 accumulation order, bf16/fp16 outputs), never a reason to "
               "refuse\n\n", li);
}

/* One side of a cell as text, for the text and markdown forms alike. */
typedef struct side_view {
    bool found;
    char plan[600];      /* the winner's name, or why there is none */
    char figures[200];   /* time, TFLOP/s, against cuDNN, noise */
    char verify[160];
    char budget[200];
    char scope[1200];    /* the scope, then what a --cupti trace saw */
    const char *run;     /* the winner's run directory */
    char again[1400];    /* the command that measures the winner again */
} side_view;

static void side_view_fill(const out *o, const gdt_compare_cell *x, gdt_side s, side_view *v)
{
    const gdt_side_best *b = &x->best[s];
    memset(v, 0, sizeof *v);
    budget_text(&x->budget[s], v->budget, sizeof v->budget);
    v->found = b->result != NULL;
    if (!v->found) {
        missing_text(x, s, v->plan, sizeof v->plan);
        return;
    }
    char vs[48] = "";
    double r;
    if (s != GDT_SIDE_CUDNN && gdt_compare_versus(b, &x->best[GDT_SIDE_CUDNN], &r, NULL))
        snprintf(vs, sizeof vs, ", %.3f x cuDNN's time", r);
    snprintf(v->plan, sizeof v->plan, "%s", b->plan->name);
    char clock[96] = "";
    if (b->mhz > 0 && b->cell_mhz > 0)
        snprintf(clock, sizeof clock, ", SM clock %.0f MHz, time at the cell's clock %.0f MHz", b->mhz, b->cell_mhz);
    else if (b->mhz > 0)
        snprintf(clock, sizeof clock, ", SM clock %.0f MHz", b->mhz);
    snprintf(v->figures, sizeof v->figures, "%.3f us, %.1f TFLOP/s%s, noise %.4f%s%s", b->time_us, tflops(x, s), vs,
             b->noise, clock, b->rounds      ? ", in the cell's interleaved rounds"
                              : b->raced_out ? ", a first estimate (raced out)"
                                             : "");
    verify_text(x, s, v->verify, sizeof v->verify);
    gdt_compare_scope(b->plan, v->scope, sizeof v->scope);
    char traced[800];
    if (gdt_compare_traced(b->result, traced, sizeof traced))
        snprintf(v->scope + strlen(v->scope), sizeof v->scope - strlen(v->scope), "; %s", traced);
    v->run = o->c->dirs[b->run];
    gdt_cli_reproduce(v->again, sizeof v->again, gdt_family_name(x->problem.family), x->shape, b->plan->name);
}

static void ratio_text(const gdt_compare_cell *x, char *buf, size_t n)
{
    double r, noise;
    const gdt_side_best *h = &x->best[GDT_SIDE_HAND], *g = &x->best[GDT_SIDE_GENERATED];
    /* the series' clocks beside the verdict: under the power cap a series at a lower clock is
       slower whatever its kernel (the same machine code 6% apart at 1514 and 1604 MHz) */
    char clocks[48] = "";
    if (h->mhz > 0 && g->mhz > 0)
        snprintf(clocks, sizeof clocks, " (SM clocks %.0f / %.0f MHz)", h->mhz, g->mhz);
    if (gdt_compare_ratio(x, &r, &noise))
        snprintf(buf, n, "%.3f, noise %.3f: %s%s", r, noise, gdt_verdict_text(gdt_compare_verdict(x)), clocks);
    else
        missing_text(x, x->best[GDT_SIDE_GENERATED].result ? GDT_SIDE_HAND : GDT_SIDE_GENERATED, buf, n);
}

static bool role_used(const gdt_compare_cell *x, int knob)
{
    for (int s = GDT_SIDE_GENERATED; s <= GDT_SIDE_HAND; s++)
        if (x->best[s].plan && gdt_plan_id_knob(&x->best[s].plan->id, knob, INT64_MIN) != INT64_MIN)
            return true;
    return false;
}

/* The two winners' bound parameters by role, rows a side binds. */
static void roles_out(FILE *f, const gdt_compare_cell *x, bool md)
{
    char g[32], h[32], og[256] = "", oh[256] = "";
    if (md)
        fprintf(f, "\n| role | knob | generated | handwritten |\n|---|---|---|---|\n");
    else
        fprintf(f, "  bound parameters by role:\n    %-10s %-14s  %-11s %s\n", "role", "knob", "generated",
                "handwritten");
    for (int r = 0; r < gdt_compare_nroles; r++) {
        const gdt_compare_role *role = &gdt_compare_roles[r];
        if (!role_used(x, role->knob))
            continue;
        knob_text(&x->best[GDT_SIDE_GENERATED], role->knob, g, sizeof g);
        knob_text(&x->best[GDT_SIDE_HAND], role->knob, h, sizeof h);
        if (md)
            fprintf(f, "| %s | %s | %s | %s |\n", role->role, gdt_knob_name(role->knob), g, h);
        else
            fprintf(f, "    %-10s %-14s  %-11s %s\n", role->role, gdt_knob_name(role->knob), g, h);
    }
    if (x->best[GDT_SIDE_GENERATED].plan)
        gdt_compare_other_knobs(&x->best[GDT_SIDE_GENERATED].plan->id, og, sizeof og);
    if (x->best[GDT_SIDE_HAND].plan)
        gdt_compare_other_knobs(&x->best[GDT_SIDE_HAND].plan->id, oh, sizeof oh);
    if (og[0] || oh[0]) {
        if (md)
            fprintf(f, "| other | | %s | %s |\n", og[0] ? og : "-", oh[0] ? oh : "-");
        else
            fprintf(f, "    %-10s %-14s  %-11s %s\n", "other", "", og[0] ? og : "-", oh[0] ? oh : "-");
    }
}

static void cell_text(FILE *f, const out *o, const gdt_compare_cell *x, int i)
{
    char ratio[256];
    double bound;
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    outputs(x, roles, &bound);
    fprintf(f, "cell %d: %s (reference %s; verify bound %.2g)\n", i, x->key,
            x->reference[0] ? x->reference : "not recorded", bound);
    for (int s = 0; s < GDT_SIDE_COUNT; s++) {
        side_view v;
        side_view_fill(o, x, (gdt_side)s, &v);
        fprintf(f, "  %s: %s\n", gdt_side_name((gdt_side)s), v.plan);
        if (v.found)
            fprintf(f, "    %s\n    verify: %s\n    scope: %s\n    from: %s\n    again: %s\n", v.figures,
                    v.verify, v.scope, v.run, v.again);
        if (x->budget[s].listed)
            fprintf(f, "    budget: %s\n", v.budget);
    }
    ratio_text(x, ratio, sizeof ratio);
    fprintf(f, "  ratio handwritten / generated time: %s\n", ratio);
    roles_out(f, x, false);
    fprintf(f, "\n");
}

/* Journal text (an error message) inside a markdown table cell: a | or a
 * line break would end the cell or the row. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void summary_md(FILE *f, const out *o)
{
    fprintf(f, "| cell | problem | generated | us | handwritten | us | cuDNN | us | cuBLASLt | us | "
               "ratio handwritten / generated time (< 1: handwritten faster) |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < o->c->ncells; i++) {
        const gdt_compare_cell *x = &o->c->cells[i];
        char ratio[256];
        fprintf(f, "| %d | `%s` |", i, x->key);
        for (int s = 0; s < GDT_SIDE_COUNT; s++) {
            const gdt_side_best *b = &x->best[s];
            if (b->result)
                fprintf(f, " `%s` | %.3f |", b->plan->name, b->time_us);
            else
                fprintf(f, " %s | — |", x->budget[s].listed ? "none verified" : "none");
        }
        ratio_text(x, ratio, sizeof ratio);
        fputc(' ', f);
        md_text(f, ratio);
        fprintf(f, " |\n");
    }
}

static void cell_md(FILE *f, const out *o, const gdt_compare_cell *x, int i)
{
    char ratio[256];
    fprintf(f, "\n## Cell %d: `%s`\n\nReference: %s.\n\n| side | plan | figures | verify (relative L2) "
               "| budget | timing scope | run |\n|---|---|---|---|---|---|---|\n", i, x->key,
            x->reference[0] ? x->reference : "not recorded");
    for (int s = 0; s < GDT_SIDE_COUNT; s++) {
        side_view v;
        side_view_fill(o, x, (gdt_side)s, &v);
        fprintf(f, "| %s | %s", gdt_side_name((gdt_side)s), v.found ? "`" : "");
        md_text(f, v.plan);
        fprintf(f, "%s | %s | %s | %s | %s | ", v.found ? "`" : "", v.found ? v.figures : "—",
                v.found ? v.verify : "—", v.budget, v.found ? v.scope : "—");
        md_text(f, v.found ? v.run : "—");
        fprintf(f, " |\n");
    }
    ratio_text(x, ratio, sizeof ratio);
    fprintf(f, "\nRatio handwritten / generated time: ");
    md_text(f, ratio);
    fprintf(f, ".\n");
    roles_out(f, x, true);
}

static void print_text(const out *o)
{
    header_text(stdout, o);
    gdt_compare_summary_print(stdout, o->c, o->format == FMT_MD);
    if (o->format == FMT_MD)
        summary_md(stdout, o);
    for (int i = 0; i < o->c->ncells; i++)
        (o->format == FMT_MD ? cell_md : cell_text)(stdout, o, &o->c->cells[i], i);
    if (o->figure[0])
        printf(o->format == FMT_MD ? "\nFigure: `%s`\n" : "figure: %s\n", o->figure);
}

/* ------------------------------------------------------------ JSON */

static cJSON *budget_json(const gdt_side_budget *b)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "listed", b->listed);
    cJSON_AddNumberToObject(o, "tried", b->tried);
    for (int d = 0; d < GDT_DISP_COUNT; d++)
        cJSON_AddNumberToObject(o, gdt_disposition_name((gdt_disposition)d), b->counts[d]);
    cJSON_AddNumberToObject(o, "raced_out", b->raced_out);
    if (b->why) {
        cJSON *w = cJSON_AddObjectToObject(o, "first_not_verified");
        cJSON_AddStringToObject(w, "plan", b->why_plan);
        cJSON_AddNumberToObject(w, "engine_id", (double)b->why_engine_id);
        cJSON_AddStringToObject(w, "error", b->why);
    } else {
        cJSON_AddNullToObject(o, "first_not_verified");
    }
    return o;
}

static cJSON *verify_json(const gdt_compare_cell *x, gdt_side s)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    double bound;
    int nout = outputs(x, roles, &bound);
    cJSON *o = cJSON_CreateObject(), *errs = cJSON_AddObjectToObject(o, "errors");
    for (int i = 0; i < x->best[s].nerr && i < nout; i++)
        cJSON_AddNumberToObject(errs, gdt_operand_name(roles[i]), x->best[s].verify_err[i]);
    cJSON_AddNumberToObject(o, "bound", bound);
    cJSON_AddStringToObject(o, "against", x->reference);
    return o;
}

static cJSON *best_json(const out *o, const gdt_compare_cell *x, gdt_side s)
{
    const gdt_side_best *b = &x->best[s];
    double r;
    char scope[400];
    cJSON *j = cJSON_CreateObject(), *sc;
    cJSON_AddStringToObject(j, "plan", b->plan->name);
    cJSON_AddNumberToObject(j, "engine_id", (double)b->plan->id.engine_id);
    cJSON_AddStringToObject(j, "run", o->c->dirs[b->run]);
    char again[1400];
    gdt_cli_reproduce(again, sizeof again, gdt_family_name(x->problem.family), x->shape, b->plan->name);
    cJSON_AddStringToObject(j, "reproduce", again);
    cJSON_AddNumberToObject(j, "time_us", b->time_us);
    cJSON_AddNumberToObject(j, "tflops", tflops(x, s));
    cJSON_AddNumberToObject(j, "noise", b->noise);
    if (b->mhz > 0)
        cJSON_AddNumberToObject(j, "median_mhz", b->mhz);
    else
        cJSON_AddNullToObject(j, "median_mhz");
    if (b->cell_mhz > 0)
        cJSON_AddNumberToObject(j, "cell_mhz", b->cell_mhz);
    else
        cJSON_AddNullToObject(j, "cell_mhz");
    cJSON_AddBoolToObject(j, "rounds", b->rounds);
    cJSON_AddBoolToObject(j, "raced_out", b->raced_out);
    if (gdt_compare_versus(b, &x->best[GDT_SIDE_CUDNN], &r, NULL))
        cJSON_AddNumberToObject(j, "ratio_cudnn", r);
    else
        cJSON_AddNullToObject(j, "ratio_cudnn");
    cJSON_AddItemToObject(j, "verified", verify_json(x, s));
    sc = cJSON_AddObjectToObject(j, "scope");
    cJSON_AddNumberToObject(sc, "kernels", gdt_compare_scope(b->plan, scope, sizeof scope));
    cJSON_AddStringToObject(sc, "text", scope);
    const gdt_run_traced *t = &b->result->traced; /* the --cupti trace as journaled, null without one */
    cJSON_AddItemToObject(sc, "traced", t->recorded ? gdt_cupti_json(t->burst, &t->c) : cJSON_CreateNull());
    return j;
}

static cJSON *side_json(const out *o, const gdt_compare_cell *x, gdt_side s)
{
    char why[1024];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "budget", budget_json(&x->budget[s]));
    if (x->best[s].result) {
        cJSON_AddItemToObject(j, "best", best_json(o, x, s));
        cJSON_AddNullToObject(j, "missing");
    } else {
        missing_text(x, s, why, sizeof why);
        cJSON_AddNullToObject(j, "best");
        cJSON_AddStringToObject(j, "missing", why);
    }
    return j;
}

static cJSON *knob_json(const gdt_side_best *b, int knob)
{
    int64_t v = b->plan ? gdt_plan_id_knob(&b->plan->id, knob, INT64_MIN) : INT64_MIN;
    return v == INT64_MIN ? cJSON_CreateNull() : cJSON_CreateNumber((double)v);
}

static cJSON *bound_json(const gdt_compare_cell *x)
{
    cJSON *a = cJSON_CreateArray();
    for (int r = 0; r < gdt_compare_nroles; r++) {
        const gdt_compare_role *role = &gdt_compare_roles[r];
        if (!role_used(x, role->knob))
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "role", role->role);
        cJSON_AddStringToObject(o, "knob", gdt_knob_name(role->knob));
        cJSON_AddItemToObject(o, "generated", knob_json(&x->best[GDT_SIDE_GENERATED], role->knob));
        cJSON_AddItemToObject(o, "handwritten", knob_json(&x->best[GDT_SIDE_HAND], role->knob));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *cell_json(const out *o, const gdt_compare_cell *x, int i)
{
    static const char *const verdicts[] = {NULL, "generated", "handwritten", "within_noise"};
    double r, noise;
    gdt_verdict v = gdt_compare_verdict(x);
    cJSON *j = cJSON_CreateObject(), *sides = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "cell", i);
    cJSON_AddStringToObject(j, "key", x->key);
    cJSON_AddStringToObject(j, "family", gdt_family_name(x->problem.family));
    cJSON_AddStringToObject(j, "shape", x->shape);
    cJSON_AddStringToObject(j, "reference", x->reference);
    for (int s = 0; s < GDT_SIDE_COUNT; s++)
        cJSON_AddItemToObject(sides, gdt_side_name((gdt_side)s), side_json(o, x, (gdt_side)s));
    cJSON_AddItemToObject(j, "sides", sides);
    cJSON_AddNumberToObject(j, "other_plans", x->budget[GDT_SIDE_COUNT].listed);
    bool has = gdt_compare_ratio(x, &r, &noise);
    cJSON_AddItemToObject(j, "ratio", has ? cJSON_CreateNumber(r) : cJSON_CreateNull());
    cJSON_AddItemToObject(j, "noise", has ? cJSON_CreateNumber(noise) : cJSON_CreateNull());
    cJSON_AddItemToObject(j, "verdict", verdicts[v] ? cJSON_CreateString(verdicts[v]) : cJSON_CreateNull());
    cJSON_AddItemToObject(j, "bound", bound_json(x));
    return j;
}

static cJSON *runs_json(const gdt_comparison *c)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < c->nruns; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "dir", c->dirs[i]);
        cJSON_AddStringToObject(o, "family", c->runs[i]->family);
        cJSON_AddStringToObject(o, "started", c->runs[i]->started);
        cJSON_AddStringToObject(o, "gdtune_version", c->runs[i]->gdtune_version);
        cJSON_AddStringToObject(o, "source_digest", c->runs[i]->source_digest);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *roles_json(void)
{
    cJSON *a = cJSON_CreateArray();
    for (int r = 0; r < gdt_compare_nroles; r++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "role", gdt_compare_roles[r].role);
        cJSON_AddStringToObject(o, "knob", gdt_knob_name(gdt_compare_roles[r].knob));
        cJSON_AddStringToObject(o, "meaning", gdt_compare_roles[r].meaning);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *doc_json(const out *o)
{
    const gdt_run *r = o->c->runs[0];
    cJSON *doc = cJSON_CreateObject(), *dev, *cells = cJSON_CreateArray();
    cJSON_AddStringToObject(doc, "schema", "gdtune.compare/2");
    cJSON_AddItemToObject(doc, "runs", runs_json(o->c));
    dev = cJSON_AddObjectToObject(doc, "device");
    cJSON_AddStringToObject(dev, "name", r->dev.name);
    cJSON_AddNumberToObject(dev, "arch", r->arch);
    cJSON_AddNumberToObject(dev, "sm_count", r->dev.sm_count);
    cJSON_AddItemToObject(doc, "bursts", cJSON_CreateIntArray(r->options.bursts, r->options.nbursts));
    cJSON_AddStringToObject(doc, "ratio_direction", "handwritten time_us / generated time_us: < 1 when the "
                            "handwritten plan is faster");
    cJSON_AddItemToObject(doc, "roles", roles_json());
    for (int i = 0; i < o->c->ncells; i++)
        cJSON_AddItemToArray(cells, cell_json(o, &o->c->cells[i], i));
    cJSON_AddItemToObject(doc, "cells", cells);
    cJSON_AddItemToObject(doc, "summary", gdt_compare_summary_json(o->c));
    cJSON_AddItemToObject(doc, "figure", o->figure[0] ? cJSON_CreateString(o->figure) : cJSON_CreateNull());
    return doc;
}

/* ------------------------------------------------------------ figure */

static gdt_status figure(out *o, gdt_error *e)
{
    const gdt_comparison *c = o->c;
    gdt_compare_point *pts = calloc((size_t)c->ncells + 1, sizeof *pts);
    char dir[PATH_MAX + 16], *title = NULL;
    int n = 0;
    bool drawn = false;
    if (!pts)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "compare: out of memory");
    for (int i = 0; i < c->ncells; i++) {
        const gdt_side_best *best = c->cells[i].best;
        gdt_compare_point *p = &pts[n];
        *p = (gdt_compare_point){.cell = i, .problem = &c->cells[i].problem};
        bool g = gdt_compare_ratio(&c->cells[i], &p->ratio, &p->noise);
        bool k = gdt_compare_versus(&best[GDT_SIDE_HAND], &best[GDT_SIDE_CUDNN], &p->ratio_cudnn, &p->ratio_cudnn_noise);
        n += g || k;
    }
    snprintf(dir, sizeof dir, "%s/report", c->dirs[0]);
    gdt_status s = asprintf(&title, "gdtune compare on %s: time ratios of the best plans per cell",
                            c->runs[0]->dev.name) < 0
                       ? gdt_error_set(e, GDT_STATUS_NO_MEMORY, "compare: out of memory")
                       : gdt_compare_figure_write(dir, title, pts, n, &drawn, e);
    if (s == GDT_STATUS_OK && drawn)
        snprintf(o->figure, sizeof o->figure, "%s/%s", dir, GDT_COMPARE_FIGURE);
    else if (s == GDT_STATUS_OK)
        fprintf(stderr, VERB ": %s\n", n ? "gnuplot not installed: no figure (report/compare.gp written)"
                                         : "no cell has a handwritten winner beside a generated or cuDNN one: no figure");
    free(title);
    free(pts);
    return s;
}


/* --format csv: a line per cell of the JSON, each side's best plan, its
 * time, noise and throughput, and the ratio (handwritten over generated, as
 * the JSON's ratio_direction says). */
#define SIDE_COLS(s)                                                                              \
    {s "_plan", 0, "sides." s ".best.plan"}, {s "_time_us", 0, "sides." s ".best.time_us"},         \
        {s "_noise", 0, "sides." s ".best.noise"}, {s "_tflops", 0, "sides." s ".best.tflops"},     \
        {s "_ratio_cudnn", 0, "sides." s ".best.ratio_cudnn"}
static const gdt_cli_csv_col csv_cols[] = {
    {"family", 0, "family"}, {"key", 0, "key"}, {"shape", 0, "shape"}, {"reference", 0, "reference"},
    SIDE_COLS("generated"), SIDE_COLS("handwritten"), SIDE_COLS("cudnn"), SIDE_COLS("cublaslt"),
    {"ratio", 0, "ratio"}, {"noise", 0, "noise"}, {"verdict", 0, "verdict"},
};
static const gdt_cli_csv_view csv_view = {{"cells"}, 1, csv_cols, sizeof csv_cols / sizeof csv_cols[0]};

static int compare_runs(const compare_args *a, const char *const *dirs, int ndirs)
{
    unsigned mask = 0;
    gdt_error e = {0};
    if (a->family && gdt_family_parse_set(a->family, &mask, &e) != GDT_STATUS_OK)
        return gdt_cli_usage_error(VERB, "--family: %s", e.msg);
    gdt_comparison *c = NULL;
    gdt_status s = gdt_comparison_create(mask, &c, &e);
    for (int i = 0; s == GDT_STATUS_OK && i < ndirs; i++)
        s = gdt_comparison_add(c, dirs[i], &e);
    if (s == GDT_STATUS_OK && c->ncells == 0)
        s = gdt_error_set(&e, GDT_STATUS_BAD_INPUT, "no cell with a plan list%s%s in the run "
                          "directories given", a->family ? " of family " : "", a->family ? a->family : "");
    out o = {.c = c, .format = a->format};
    if (s == GDT_STATUS_OK)
        s = figure(&o, &e);
    int rc = gdt_status_exit_code(s);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, VERB ": %s%s\n", rc == 2 ? "refused: " : "", e.msg);
    else if (a->format == FMT_JSON)
        rc = gdt_cli_json_emit(VERB, doc_json(&o));
    else if (a->format == FMT_CSV)
        rc = gdt_cli_csv_emit(VERB, doc_json(&o), &csv_view, 1);
    else
        print_text(&o);
    gdt_comparison_destroy(c);
    return rc;
}

/* ================================================================ A/B */

static int ab_usage(const char *fmt, const char *what)
{
    return gdt_cli_usage_error(VERB, fmt, what);
}

/* A plan name judged without a device: its syntax and knob names, and an
 * engine of the family (cuDNN's knob ranges are cuDNN's to judge). */
static int check_plan(gdt_family fam, const char *name, gdt_plan_id *id)
{
    gdt_error e;
    if (gdt_plan_id_parse(name, id, &e) != GDT_STATUS_OK)
        return gdt_cli_usage_error(VERB, "--plan: %s", e.msg);
    if (id->engine_id >= 0 && id->engine_id < GDT_ENGINE_ID_BACKEND_END)
        return 0;
    const gdt_engine_slot *slot = gdt_manifest_find(NULL, id->engine_id);
    if (!slot)
        return gdt_cli_usage_error(VERB, "--plan: plan name \"%s\": no engine has id %lld", name,
                                   (long long)id->engine_id);
    gdt_family sf = gdt_engine_slot_family(slot);
    if (sf != fam)
        return gdt_cli_usage_error(VERB, "--plan: plan name \"%s\": %s is an engine of %s, not of %s",
                                   name, gdt_engine_slot_name(slot), gdt_family_name(sf),
                                   gdt_family_name(fam));
    return 0;
}

/* Everything the A/B needs judged before any device is looked for, so
 * that bad input exits 2 with or without one. */
static int check_ab(const compare_args *a, const char *const *pos, int npos, gdt_ab_opts *o)
{
    gdt_family fam;
    gdt_plan_id id[2];
    gdt_error e;
    if (a->family || a->format != FMT_TEXT)
        return ab_usage("%s", "--family and --format belong to the RUNDIR form (the A/B prints text)");
    if (npos != 1)
        return ab_usage("%s", "the A/B takes one FAMILY (gemm, sdpa_fwd or sdpa_bwd), then --plan A --plan B");
    if (gdt_family_parse(pos[0], &fam, &e) != GDT_STATUS_OK)
        return ab_usage("%s", e.msg);
    if (a->nplans != 2)
        return gdt_cli_usage_error(VERB, "the A/B needs two plans, --plan A --plan B (got %d)", a->nplans);
    if (gdt_problem_parse(fam, a->shape[0] ? a->shape : NULL, &o->problem, &e) != GDT_STATUS_OK)
        return ab_usage("--shape: %s", e.msg);
    for (int i = 0; i < 2; i++)
        if (check_plan(fam, a->plan[i], &id[i]))
            return 2;
    if (gdt_plan_id_equal(&id[0], &id[1]))
        return ab_usage("--plan: A and B are the same plan, %s (expected two different plans)", a->plan[0]);
    o->plan[0] = a->plan[0];
    o->plan[1] = a->plan[1];
    o->rounds = a->rounds ? a->rounds : 6;
    o->mo = a->mo;
    o->seed = a->seed ? (uint64_t)a->seed : 1;
    return -1;
}

static void ab_print(const gdt_ab_opts *o, const gdt_ab_result *r)
{
    char key[512];
    const gdt_ab_stats *st = &r->stats;
    double flops = gdt_problem_flops(&o->problem);
    gdt_problem_key(&o->problem, key, sizeof key);
    printf("problem:   %s on %s; reference %s\n", key, r->device, r->reference);
    for (int i = 0; i < 2; i++) {
        double us = i ? st->b_us : st->a_us;
        printf("plan %c:    %s: %.3f us per call (median of %d rounds), %.1f TFLOP/s; verified:", 'A' + i,
               o->plan[i], us, st->rounds, flops / (us * 1e-6) / 1e12);
        for (int k = 0; k < r->nerr; k++)
            printf(" %.2e", r->verify_err[i][k]);
        printf(" (relative L2)\n");
    }
    printf("ratio:     %.4f (A's time over B's per round, median; < 1: A faster), spread %.4f, "
           "rounds %.4f..%.4f\n", st->ratio, st->spread, st->lo, st->hi);
    printf("rounds:   ");
    for (int i = 0; i < st->rounds; i++)
        printf(" %.3f/%.3f", r->a_us[i], r->b_us[i]);
    printf(" (A/B us, in order measured A, B, A, B, ...)\n");
}

static int compare_ab(const compare_args *a, const char *const *pos, int npos)
{
    gdt_ab_opts o;
    memset(&o, 0, sizeof o);
    int rc = check_ab(a, pos, npos, &o);
    if (rc >= 0)
        return rc;
    if (!gdt__device_present()) {
        fprintf(stderr, VERB ": no CUDA device: the A/B builds, verifies and times both plans on the "
                        "GPU; run it on a machine with one (compare RUNDIR... works without)\n");
        return 1;
    }
    gdt_ab_result *r = calloc(1, sizeof *r);
    gdt_error e = {0};
    gdt_status s = r ? gdt_ab_run(&o, r, &e) : gdt_error_set(&e, GDT_STATUS_NO_MEMORY, "out of memory");
    if (s == GDT_STATUS_OK)
        ab_print(&o, r);
    else
        fprintf(stderr, VERB ": %s: %s\n", gdt_status_message(s), e.msg);
    free(r);
    return gdt_status_exit_code(s);
}

/* ============================================================== the verb */

/* The A/B form: a --plan, --shape or --rounds, or a FAMILY that names no
 * directory. */
static bool ab_form(const compare_args *a, const char *first)
{
    gdt_family f;
    struct stat st;
    if (a->nplans || a->shape[0] || a->rounds)
        return true;
    return first && gdt_family_parse(first, &f, NULL) == GDT_STATUS_OK && stat(first, &st) != 0;
}

static bool measure_given(const compare_args *a)
{
    gdt_measure_opts d;
    gdt_measure_opts_default(&d);
    bool same = a->mo.nbursts == d.nbursts && !memcmp(a->mo.bursts, d.bursts, sizeof d.bursts) &&
                a->mo.max_seconds == d.max_seconds && a->mo.target_rel == d.target_rel;
    return !same || a->seed;
}

int gdt_cli_compare(int argc, char **argv)
{
    compare_args a;
    const char *pos[MAX_RUNS];
    int npos = 0;
    memset(&a, 0, sizeof a);
    gdt_measure_opts_default(&a.mo);
    int rc = gdt_cli_parse(&spec, argc, argv, &a, pos, MAX_RUNS, &npos);
    if (rc >= 0)
        return rc;
    if (ab_form(&a, npos ? pos[0] : NULL))
        return compare_ab(&a, pos, npos);
    if (measure_given(&a))
        return ab_usage("%s", "--bursts, --max-seconds, --target and --seed belong to the A/B form "
                              "(FAMILY --plan A --plan B); RUNDIR... compares what the sweep measured");
    if (npos == 0)
        return ab_usage("%s", "expected RUNDIR... (run directories of `gdtune sweep`) or FAMILY --plan A --plan B");
    return compare_runs(&a, pos, npos);
}
