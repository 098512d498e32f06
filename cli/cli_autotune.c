/* `gdtune autotune`: libgdtune's autotune at first use (gdtune/autotune.h)
 * for one shape on this GPU: the mode-A list planned from the tables, its
 * short candidate list measured on random operands (harness/trial.c's
 * buffers and stream), each candidate's median and the winner against the
 * list's first (the tables-only pick) and the backend heuristic's first.
 * With --format json one document (schema gdtune.autotune/1,
 * cli/cli_autotune_json.c) on stdout instead; messages stay on stderr. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gdt_autotune_json.h"
#include "gdt_cli_options.h"
#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_trial.h"
#include "gdt_util.h"
#include "gdtune/autotune.h"
#include "nvrtc/gdt_nvrtc_cache.h"

#define VERB "gdtune autotune"

static const char usage_text[] =
    "usage: gdtune autotune FAMILY [--shape k=v,...] [--backend N] [--library N] [--ours N]\n"
    "                       [--margin R] [--reps N] [--tables DIR] [--seed N] [--wisdom FILE]\n"
    "                       [--format text|json]\n"
    "\n"
    "Autotune at first use, as libgdtune's gdt_graph_autotune does it in a program:\n"
    "plans FAMILY (gemm, sdpa_fwd or sdpa_bwd) in mode A from the tables, then builds\n"
    "and times on this GPU the list's first plan, the first N backend (cuDNN heuristic)\n"
    "plans, the first N library (cuBLASLt) plans and the first N of ours, in list order\n"
    "(a plan that declines is reported and skipped), each the median of several\n"
    "launches timed with CUDA events on random operands, and keeps the fastest unless\n"
    "the list's first is within the margin.  The library's plans are GEMM's (SDPA\n"
    "lists none).\n"
    "Prints each candidate's median, the winner, and the winner's time over the list's\n"
    "first (the tables-only pick) and over the backend heuristic's first.  With --wisdom\n"
    "FILE, a winner recorded there for this shape, device, cuDNN and gdtune is built\n"
    "without measuring; otherwise the new winner is saved into FILE.  Timing only:\n"
    "`gdtune bench FAMILY --plan NAME` verifies and measures one plan in full.\n";

static const char footer_text[] =
    "exit codes: 0 success, 1 failure while running (no GPU, no candidate built and ran),\n"
    "2 bad usage or bad input\n";

typedef struct autotune_args {
    gdt_family family;
    char shape[1024];
    gdt_problem p;
    gdt_autotune_opts o;
    const char *tables;
    const char *wisdom_path;
    long long seed;
    int format;
} autotune_args;

#define O(field) offsetof(autotune_args, field)
static const gdt_cli_option options[] = {
    GDT_CLI_OPT_SHAPE(autotune_args, shape, "the problem (default: the family's default shape);\n"
                                            "repeatable (keys merge)"),
    {"--backend", NULL, GDT_CLI_INT, O(o.backend), .lo = 0, .hi = 16, .metavar = "N",
     .help = "backend (cuDNN) plans measured: the first N of the list (default 3)"},
    {"--ours", NULL, GDT_CLI_INT, O(o.ours), .lo = 0, .hi = 16, .metavar = "N",
     .help = "our plans measured: the first N of the list (default 3)"},
    {"--library", NULL, GDT_CLI_INT, O(o.library), .lo = 0, .hi = 16, .metavar = "N",
     .help = "library (cuBLASLt) plans measured: the first N of the list (default 3)"},
    {"--margin", NULL, GDT_CLI_DOUBLE, O(o.margin), .lo = 0, .hi = 1, .metavar = "R",
     .help = "the list's first stays unless another is faster by more than R\n"
             "(relative; default 0.01)"},
    {"--reps", NULL, GDT_CLI_INT, O(o.reps), .lo = 1, .hi = 1000, .metavar = "N",
     .help = "timed launches per candidate, after 3 warm-up launches (default 11)"},
    {"--tables", NULL, GDT_CLI_DIR, O(tables), .metavar = "DIR",
     .help = "placement/tuning tables root, read as DIR/smXY/FAMILY.*.json\n"
             "(default: the search path of gdtune plans; none: untimed order)"},
    {"--seed", NULL, GDT_CLI_INT64, O(seed), .lo = 1, .hi = 1e15, .def = "1", .metavar = "N",
     .help = "input seed (default 1)"},
    {"--wisdom", NULL, GDT_CLI_STRING, O(wisdom_path), .metavar = "FILE",
     .help = "winners kept across runs (gdtune.wisdom/1, docs/formats.md): one\n"
             "recorded for this shape and device is used unmeasured; a new one is\n"
             "saved there (a missing FILE is created; a link is refused)"},
    GDT_CLI_OPT_SUMMARY_FORMAT(autotune_args, format,
                               "text for people; json: one document on stdout (docs/fields.md)"),
};
#undef O

static const gdt_cli_spec spec = {VERB, usage_text, footer_text, options, GDT_CLI_NOPTS(options)};

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, autotune_args *a)
{
    memset(a, 0, sizeof *a);
    gdt_autotune_opts_default(&a->o); /* the defaults: libgdtune's, which --help quotes */
    const char *family = NULL;
    int npos, rc = gdt_cli_parse(&spec, argc, argv, a, &family, 1, &npos);
    if (rc >= 0) return rc;
    gdt_error e;
    if (!family) return gdt_cli_usage_error(VERB, "missing FAMILY (gemm, sdpa_fwd or sdpa_bwd)");
    if (gdt_family_parse(family, &a->family, &e)) return gdt_cli_usage_error(VERB, "%s", e.msg);
    if (gdt_problem_parse(a->family, a->shape[0] ? a->shape : NULL, &a->p, &e))
        return gdt_cli_usage_error(VERB, "--shape: %s", e.msg);
    if (a->tables && !gdt_path_is_dir(a->tables))
        return gdt_cli_usage_error(VERB, "--tables %s: not a directory (expected the tables root)", a->tables);
    return -1;
}

/* ------------------------------------------------------------ the run */

typedef struct autotune_run {
    autotune_args a;
    gdt_device_props dev;
    gdt_trial *t;
    gdt_tables *tables;
    char tables_note[PATH_MAX + 128];
    gdt_graph *g;
    gdt_wisdom *wisdom;
    gdt_autotune_report rep;
} autotune_run;

static void search_warn(void *ctx, const char *msg)
{
    char text[2048];
    (void)ctx;
    fprintf(stderr, VERB ": warning: tables passed over (the search goes on): %s\n",
            gdt_text_escape(msg, text, sizeof text));
}

/* Tables that do not load leave the untimed order, said on stderr. */
static void load_tables(autotune_run *r)
{
    gdt_family f = r->a.family;
    char dir[PATH_MAX] = "", shown[2048];
    gdt_error e;
    gdt_error_clear(&e);
    if (!r->a.tables) {
        gdt_tables_search how = {.warn = search_warn, .out = &r->tables};
        if (!gdt_tables_search_path(f, r->dev.arch, &how, dir, sizeof dir))
            fprintf(stderr, VERB ": warning: no %s tables for sm%d found (gdtune plans %s names the places "
                    "searched): the list is the untimed order\n", gdt_family_name(f), r->dev.arch,
                    gdt_family_name(f));
    } else if (gdt_tables_load(r->a.tables, f, r->dev.arch, &r->tables, &e) == GDT_STATUS_OK) {
        snprintf(dir, sizeof dir, "%s", r->a.tables);
    } else {
        fprintf(stderr, VERB ": warning: tables not used (untimed order): %s\n",
                gdt_text_escape(e.msg[0] ? e.msg : "none for this family and arch", shown, sizeof shown));
    }
    if (r->tables)
        snprintf(r->tables_note, sizeof r->tables_note, "%s/sm%d", gdt_text_escape(dir, shown, sizeof shown),
                 r->dev.arch);
    else snprintf(r->tables_note, sizeof r->tables_note, "none (untimed order)");
}

/* --wisdom FILE read before any device is asked: -1 to go on, or the exit
 * code (a bad file: 2). */
static int load_wisdom(autotune_run *r)
{
    gdt_error e;
    char shown[2048];
    gdt_error_clear(&e);
    if (!r->a.wisdom_path) return -1;
    gdt_status s = gdt_wisdom_load(r->a.wisdom_path, &r->wisdom, &e);
    if (!s) return -1;
    fprintf(stderr, VERB ": --wisdom: %s: %s\n", gdt_status_message(s), gdt_text_escape(e.msg, shown, sizeof shown));
    return gdt_status_exit_code(s);
}

static gdt_status tune(autotune_run *r, gdt_error *e)
{
    gdt_plan_options po = {.tables = r->tables, .backend = gdt_cudnn_backend(), .modes = {GDT_MODE_A}, .nmodes = 1};
    char root[PATH_MAX];
    gdt_build_opts bo = {.device = r->dev, .cache_dir = gdt_nvrtc_cache_root(root, sizeof root)};
    gdt_status s = gdt_graph_create(&r->a.p, &r->dev, &r->g, e);
    if (!s) s = gdt_graph_plan(r->g, &po, e);
    const gdt_buffers *b = r->t->buf;
    if (!s) s = gdt_graph_autotune(r->g, &bo, &b->ops, b->workspace, b->workspace_bytes, r->t->stream, &r->a.o,
                                   &r->rep, e);
    return s;
}

/* ------------------------------------------------------------- output */

static void print_text(const autotune_run *r)
{
    const gdt_autotune_report *rep = &r->rep;
    char key[512], name[512], shown[1024];
    gdt_problem_key(&r->a.p, key, sizeof key);
    printf("problem:   %s on %s (sm%d, %d SMs), tables: %s\n", key, r->dev.name, r->dev.arch,
           r->dev.sm_count, r->tables_note);
    if (rep->from_wisdom)
        printf("wisdom:    %s: the winner measured %s; nothing measured now\n\n",
               gdt_text_escape(r->a.wisdom_path, shown, sizeof shown), rep->wisdom_measured);
    else
        printf("measured:  the list's first, %d backend, %d library, %d ours; margin %.3g; %d warm-up + %d timed "
               "launches each\n\n",
               r->a.o.backend, r->a.o.library, r->a.o.ours, r->a.o.margin, r->a.o.warmup, r->a.o.reps);
    printf("%5s %-8s %-8s %10s  %s\n", "index", "side", "status", "median us", "plan");
    for (int i = 0; i < rep->n; i++) {
        const gdt_autotune_candidate *c = &rep->c[i];
        char us[32] = "-";
        if (isfinite(c->median_us)) snprintf(us, sizeof us, "%.2f", c->median_us);
        gdt_plan_id_format(&c->id, name, sizeof name);
        printf("%5d %-8s %-8s %10s  %s%s%s%s\n", c->index, gdt_plan_side_label(c->side),
               gdt__autotune_status_word(c), us, name, i == rep->winner ? "  <- winner" : "",
               c->why[0] ? "\n                                  " : "", c->why);
    }
}

/* "vs WHAT: PLAN 54.50 us: winner / it = 0.741": the winner against one pick. */
static void print_ratio(const gdt_autotune_report *rep, int other, const char *what)
{
    char name[512];
    if (other < 0) {
        printf("vs %s: none ran\n", what);
        return;
    }
    gdt_plan_id_format(&rep->c[other].id, name, sizeof name);
    printf("vs %s: %s %.2f us: winner / it = %.3f\n", what, name, rep->c[other].median_us,
           rep->c[rep->winner].median_us / rep->c[other].median_us);
}

static void print_summary(const gdt_autotune_report *rep)
{
    char name[512];
    const gdt_autotune_candidate *w = &rep->c[rep->winner];
    gdt_plan_id_format(&w->id, name, sizeof name);
    printf("\nwinner: %s (index %d, %s) %.2f us%s\n", name, w->index, gdt_plan_side_label(w->side), w->median_us,
           rep->from_wisdom ? ", from wisdom" : "");
    if (rep->from_wisdom) {
        printf("vs the list's first when measured: %.2f us: winner / it = %.3f\n", rep->wisdom_first_us,
               w->median_us / rep->wisdom_first_us);
        return;
    }
    print_ratio(rep, rep->first, "the list's first (tables-only pick)");
    print_ratio(rep, rep->heuristic, "the backend heuristic's first");
}

static int emit(const autotune_run *r)
{
    char key[512];
    gdt_problem_key(&r->a.p, key, sizeof key);
    return gdt_cli_json_emit(VERB, gdt__autotune_doc(key, &r->dev, r->tables_note, r->a.wisdom_path, &r->a.o, &r->rep));
}

static gdt_status run(autotune_run *r, gdt_error *e)
{
    gdt_status s = gdt__device_props(0, &r->dev, e);
    if (!s) s = gdt_trial_create(&r->a.p, &r->dev, (uint64_t)r->a.seed, VERB, &r->t, e);
    if (s) return s;
    load_tables(r);
    r->a.o.wisdom = r->wisdom;
    s = tune(r, e);
    if (!s && r->wisdom && !r->rep.from_wisdom) s = gdt_wisdom_save(r->wisdom, r->a.wisdom_path, e);
    /* What each candidate did is worth printing when none ran, too. */
    if (r->a.format == GDT_CLI_FORMAT_TEXT && r->rep.n) print_text(r);
    if (!s && r->a.format == GDT_CLI_FORMAT_TEXT) print_summary(&r->rep);
    return s;
}

int gdt_cli_autotune(int argc, char **argv)
{
    autotune_run *r = calloc(1, sizeof *r);
    if (!r) return fprintf(stderr, VERB ": out of memory\n"), 1;
    int rc = parse_args(argc, argv, &r->a);
    if (rc < 0) rc = load_wisdom(r);
    if (rc < 0 && !gdt__device_present()) {
        fprintf(stderr, VERB ": no CUDA device: autotune builds and times plans on the GPU; run it on a "
                        "machine with one (gdtune plans shows the list without)\n");
        rc = 1;
    }
    if (rc < 0) {
        gdt_error e;
        gdt_error_clear(&e);
        gdt_status s = run(r, &e);
        fflush(stdout);
        if (s) fprintf(stderr, VERB ": %s: %s\n", gdt_status_message(s), e.msg);
        rc = s ? gdt_status_exit_code(s) : r->a.format == GDT_CLI_FORMAT_JSON ? emit(r) : 0;
    }
    gdt_graph_destroy(r->g);
    gdt_wisdom_destroy(r->wisdom);
    gdt_tables_destroy(r->tables);
    gdt_trial_destroy(r->t);
    free(r);
    return rc;
}
