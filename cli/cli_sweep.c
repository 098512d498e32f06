/* `gdtune sweep FAMILY`: the command line of the sweep runner. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "gdt_cli_options.h"
#include "gdt_cli_summary.h"
#include "gdt_emit.h"
#include "gdt_rawh5.h"
#include "gdt_run.h"
#include "gdt_sweep.h"
#include "gdt_util.h"

static const char usage_text[] =
    "usage: gdtune sweep FAMILY [options]\n"
    "       gdtune sweep FAMILY --resume RUNDIR\n"
    "       gdtune sweep FAMILY --arch smXY --compile-only\n"
    "       gdtune sweep FAMILY --shape m=128:4096:x2,n=4096,k=4096 [options]\n"
    "       gdtune sweep FAMILY --tuning-config FILE [options]\n"
    "\n"
    "Verifies and measures every plan of FAMILY (gemm, sdpa_fwd, sdpa_bwd; sdpa names both) on\n"
    "the GPU over the cells of a sweep spec: our candidate rows and the cuDNN backend's plans per\n"
    "heuristic mode and knob enumeration.  A worker process owns the GPU; a plan that faults or\n"
    "overruns its deadline is recorded as failed and the worker is respawned.  Every attempt and\n"
    "result goes to RUNDIR/journal.jsonl; then RUNDIR/raw.h5 and the tables\n"
    "TABLES/sm<arch>/<family>.{tuning,placement}.json are written.\n";

static const char footer_text[] =
    "environment: GDTUNE_ENABLE_OPT_IN=1 enables opt-in slots (test engines); GDTUNE_CACHE_DIR\n"
    "is the compiled-kernel cache; GDTUNE_WORKER_EXE replaces the worker (tests only);\n"
    "GDTUNE_SHARDS is the shard count for --shard auto, as --shards.\n"
    "\n"
    "exit codes: 0 success, 1 failure while running (no device, a row that does not compile),\n"
    "2 bad usage or bad input (--cupti without a working CUPTI included), 4 the run completed\n"
    "(journal, raw.h5 and tables written) but some plan was incorrect; --format json changes\n"
    "none of them\n";

#define VERB "gdtune sweep"

/* The command line: the sweep's options, and how the outcome is said.  o
 * comes first, so that the option table's offsets into gdt_sweep_opts
 * (and the parsers' casts) hold for the whole. */
typedef struct sweep_cli {
    gdt_sweep_opts o;
    int format; /* GDT_CLI_FORMAT_TEXT or _JSON */
} sweep_cli;
_Static_assert(offsetof(sweep_cli, o) == 0, "the options' offsets are gdt_sweep_opts'");

static bool parse_shard(void *opts, const char *s, char *why, size_t nwhy)
{
    gdt_sweep_opts *o = opts;
    o->shard_auto = !strcmp(s, "auto");
    if (o->shard_auto) {
        o->shard_i = o->shard_n = 0;
        return true;
    }
    const char *slash = strchr(s, '/');
    char *end;
    long i = 0, n = 0;
    bool digits = s[0] >= '0' && s[0] <= '9' && slash && slash[1] >= '0' && slash[1] <= '9';
    if (digits) {
        i = strtol(s, &end, 10);
        digits = end == slash;
        n = strtol(slash + 1, &end, 10);
        digits = digits && !*end;
    }
    if (!digits || n < 1 || n > GDT_SHARDS_MAX || i >= n)
        return snprintf(why, nwhy, "expected I/N with 0 <= I < N <= %d", GDT_SHARDS_MAX), false;
    o->shard_i = (int)i;
    o->shard_n = (int)n;
    snprintf(o->shard_source, sizeof o->shard_source, "--shard %d/%d", o->shard_i, o->shard_n);
    return true;
}

/* Each --shape is read when the spec is built (gdt_sweep_spec_shapes). */
static bool parse_shape(void *opts, const char *v, char *why, size_t nwhy)
{
    gdt_sweep_opts *o = opts;
    if (o->nshapes == GDT_SWEEP_SHAPES_MAX)
        return snprintf(why, nwhy, "expected at most %d --shape options", GDT_SWEEP_SHAPES_MAX), false;
    o->shapes[o->nshapes++] = v;
    return true;
}

static bool parse_arch(void *opts, const char *v, char *why, size_t nwhy)
{
    gdt_error e = {0};
    if (gdt_arch_parse(v, &((gdt_sweep_opts *)opts)->arch, &e) == GDT_STATUS_OK)
        return true;
    return snprintf(why, nwhy, "%s", e.msg), false;
}

#define O(field) offsetof(gdt_sweep_opts, field)
static const gdt_cli_option options[] = {
    {"--quick", NULL, GDT_CLI_FLAG, O(quick), .help = "the spec's quick subset"},
    {"--spec", NULL, GDT_CLI_STRING, O(spec_path), .metavar = "FILE",
     .help = "sweep spec (default: the embedded sweeps/<family>.json)"},
    {"--tuning-config", NULL, GDT_CLI_STRING, O(tuning_config), .metavar = "FILE",
     .help = "candidate rows: each structural family FILE names replaces the\n"
             "default rows of that family (tables/candidates/nvrtc.json), as in\n"
             "gdtune candidates and plans; every worker lists those rows, the\n"
             "journal header records them (candidates, candidates_digest) and\n"
             "--resume measures them again (never this build's defaults);\n"
             "--compile-only compiles them.  A FILE that does not load is bad\n"
             "input (exit 2)"},
    {"--shape", NULL, GDT_CLI_CUSTOM, .parse = parse_shape, .metavar = "k=v,...",
     .help = "the cells without a spec file: the product of the keys' values, each\n"
             "a value, a list (m=128,256,n=4096) or a range LO:HI:xF or LO:HI:+S\n"
             "(m=128:4096:x2, k=256:1024:+256); repeated, the keys merge (a key\n"
             "twice is refused); the shape keys and defaults: gdtune list.  The\n"
             "rest of the spec (bursts, caps) is --spec's or the embedded one's"},
    {"--out", NULL, GDT_CLI_DIR, O(out_dir), .metavar = "RUNDIR",
     .help = "run directory (default: runs/<family>-<UTC timestamp>)"},
    {"--resume", NULL, GDT_CLI_DIR, O(resume_dir), .metavar = "RUNDIR",
     .help = "continue a killed sweep with its recorded settings: plans with a\n"
             "result are not run again (--deadline and --tables-dir may change);\n"
             "refused for a journal written by another gdtune build"},
    GDT_CLI_OPT_TABLES_DIR(gdt_sweep_opts, tables_dir, "where tables go (default: tables)"),
    {"--prior", NULL, GDT_CLI_DIR, O(prior_dir), .metavar = "DIR",
     .help = "measure each cell's plans first in the order DIR's tuning table\n"
             "(DIR/sm<arch>/<family>.tuning.json) ranked them, then the rest in\n"
             "untimed order, so racing's bar is tight early (default: the\n"
             "--tables-dir directory).  No table: untimed order; a table the\n"
             "loader refuses: a warning naming the file, and the sweep goes on\n"
             "without it.  The journal header records the tables used (sha256)"},
    {"--no-prior", NULL, GDT_CLI_FLAG, O(no_prior), .help = "untimed order, whatever tables there are"},
    GDT_CLI_OPT_BURSTS(gdt_sweep_opts, bursts, nbursts, "\n(default: spec, else " GDT_DEFAULT_TEXT(GDT_BURSTS_DEFAULT) ")"),
    GDT_CLI_OPT_TARGET_REL(gdt_sweep_opts, target_rel, NULL,
                           "relative spread to stop at (default: spec, else "
                           GDT_DEFAULT_TEXT(GDT_TARGET_REL_DEFAULT) ")"),
    GDT_CLI_OPT_PLAN_SECONDS(gdt_sweep_opts, max_plan_seconds, NULL,
                             "measurement cap per plan (default: spec, else "
                             GDT_DEFAULT_TEXT(GDT_PLAN_SECONDS_DEFAULT) ")"),
    GDT_CLI_OPT_DEADLINE(gdt_sweep_opts, deadline,
                         "per-plan deadline before the worker is killed\n"
                         "(default: 180 + 3 x the plan's cap: max-plan-seconds,\n"
                         "3 x that when racing gives contenders their time)"),
    {"--cudnn-knob-cap", NULL, GDT_CLI_INT, O(knob_cap), .lo = 0, .hi = GDT_KNOB_CAP_MAX,
     .metavar = "N", .help = "knob-enumerated cuDNN configs per engine (default: spec, else "
                             GDT_DEFAULT_TEXT(GDT_KNOB_CAP_DEFAULT) ")"},
    {"--shard", NULL, GDT_CLI_CUSTOM, .parse = parse_shard, .metavar = "I/N|auto",
     .help = "only cells whose index is I modulo N (0 <= I < N); auto: I and N\n"
             "from the scheduler (SLURM job array, Kubernetes Indexed Job, MPI:\n"
             "docs/scale-out.md); a resumed run keeps its header's shard"},
    {"--shards", NULL, GDT_CLI_INT, O(shards), .lo = 1, .hi = GDT_SHARDS_MAX, .metavar = "N",
     .help = "the shard count: what --shard auto takes for a Kubernetes index,\n"
             "else checked against the scheduler's count or the resumed run's"},
    {"--exhaustive", NULL, GDT_CLI_FLAG, O(exhaustive),
     .help = "measure every plan in full; by default a plan whose first estimate\n"
             "(a few short bursts), once three plans are measured in full, is\n"
             "more than 2% slower than the cell's third best (and its engine\n"
             "kind's best) beyond both spreads stops there (raced out); never the first\n"
             "plan of an engine kind or cuDNN's mode-A heuristic first; the plans that\n"
             "survive get up to 2 x max-plan-seconds more for the largest burst"},
    {"--cupti", NULL, GDT_CLI_FLAG, O(cupti),
     .help = "one extra CUPTI-traced burst (the largest) per verified plan not\n"
             "raced out: kernels, kernel time and gaps per call in the journal"},
    {"--rounds", NULL, GDT_CLI_INT, O(rounds), .lo = 0, .hi = GDT_ROUNDS_MAX, .metavar = "R",
     .help = "once a cell's plans all have a result, measure its 3 fastest plans\n"
             "measured in full again together, in R interleaved rounds (P1, P2,\n"
             "P3, P1, ...), and rank them by that (default 0: off; else 2 or more)"},
    GDT_CLI_OPT_GPUS(gdt_sweep_opts, gpus, "at most N workers, one per GPU, cells spread across them\n"
                                           "(default: every GPU of the first GPU's model)"),
    {"--arch", NULL, GDT_CLI_CUSTOM, .parse = parse_arch, .metavar = "smXY",
     .help = "the device's arch (another arch is refused unless --compile-only)"},
    {"--compile-only", NULL, GDT_CLI_FLAG, O(compile_only),
     .help = "no GPU: compile every surviving candidate row for --arch with NVRTC\n"
             "(through the compiled-kernel cache: run first on the GPU machine,\n"
             "it compiles on every core what the sweep's worker would compile\n"
             "one at a time)"},
    {"--jobs", NULL, GDT_CLI_INT, O(jobs), .lo = 1, .hi = 64, .metavar = "N",
     .help = "compile-only threads (default: online CPUs)"},
    GDT_CLI_OPT_SUMMARY_FORMAT(sweep_cli, format,
                               "text: the run directory on stdout; json: one summary document\n"
                               "(" GDT_CLI_SCHEMA_SWEEP ": counts, whether it finished or can\n"
                               "be resumed, the tables written; docs/formats.md), printed\n"
                               "whether the run finished or stopped; messages stay on stderr"),
};
#undef O

static const gdt_cli_spec spec = {VERB, usage_text, footer_text, options, GDT_CLI_NOPTS(options)};

/* Returns -1 to go on, else an exit code (help: 0, bad usage: 2). */
static int parse_args(int argc, char **argv, sweep_cli *c)
{
    const char *pos[2];
    gdt_sweep_opts *o = &c->o;
    int npos, rc = gdt_cli_parse(&spec, argc, argv, c, pos, 2, &npos);
    if (rc < 0 && c->format == GDT_CLI_FORMAT_JSON && o->compile_only)
        return gdt_cli_usage_error(VERB, "--compile-only measures nothing: its report is text "
                                   "(drop --format json)");
    if (rc >= 0)
        return rc;
    if (npos == 2)
        return gdt_cli_usage_error(VERB, "one FAMILY only, got '%s' and '%s'", pos[0], pos[1]);
    o->family = npos ? pos[0] : NULL;
    return -1;
}

static int check_combination(const gdt_sweep_opts *o)
{
    gdt_error e = {0};
    unsigned mask;
    if (!o->family && !o->resume_dir)
        return gdt_cli_usage_error(VERB, "missing FAMILY (gemm, sdpa_fwd, sdpa_bwd or sdpa)");
    if (o->family && gdt_family_parse_set(o->family, &mask, &e) != GDT_STATUS_OK) {
        fprintf(stderr, VERB ": %s\n", e.msg);
        return 2;
    }
    if (o->compile_only && !o->arch)
        return gdt_cli_usage_error(VERB, "--compile-only needs --arch smXY (sm80, sm90, sm100, ...)");
    if (o->compile_only && o->resume_dir)
        return gdt_cli_usage_error(VERB, "--compile-only measures nothing: it cannot --resume");
    if (o->rounds == 1)
        return gdt_cli_usage_error(VERB, "--rounds: bad value \"1\": expected 0 (off) or 2 to %d "
                                   "(one round pairs nothing)", GDT_ROUNDS_MAX);
    if (o->nshapes && o->quick)
        return gdt_cli_usage_error(VERB, "--shape gives the cells: drop --quick (the spec's own subset)");
    if (o->resume_dir && (o->spec_path || o->quick || o->nshapes || o->shard_n || o->nbursts || o->target_rel > 0 ||
                          o->max_plan_seconds > 0 || o->knob_cap >= 0 || o->exhaustive || o->cupti ||
                          o->rounds || o->tuning_config))
        return gdt_cli_usage_error(VERB, "--resume %s measures with the settings its journal "
                                   "recorded: drop --spec, --quick, --shape, --shard, --bursts, --target-rel, "
                                   "--max-plan-seconds, --cudnn-knob-cap, --exhaustive, --cupti, "
                                   "--rounds and --tuning-config (it measures the candidate rows its "
                                   "header records)", o->resume_dir);
    if (o->prior_dir && o->no_prior)
        return gdt_cli_usage_error(VERB, "--prior %s and --no-prior contradict each other", o->prior_dir);
    if (o->resume_dir && (o->prior_dir || o->no_prior))
        return gdt_cli_usage_error(VERB, "--resume %s orders plans by the prior its journal header "
                                   "recorded: drop --%s", o->resume_dir, o->no_prior ? "no-prior" : "prior");
    if (o->shards && !o->shard_auto && !o->resume_dir && o->shards != o->shard_n)
        return gdt_cli_usage_error(VERB, "--shards %d goes with --shard auto or --resume%s", o->shards,
                                   o->shard_n ? ", and contradicts --shard I/N" : "");
    if (o->resume_dir && o->out_dir)
        return gdt_cli_usage_error(VERB, "--resume %s continues in its own directory: drop --out %s",
                                   o->resume_dir, o->out_dir);
    return -1;
}

/* --shape: the spec built from the shapes, read once here so that a cell
 * the family refuses is bad usage before any worker starts. */
static int shape_spec(gdt_sweep_opts *o)
{
    gdt_error e = {0};
    gdt_sweep_spec *sp = NULL;
    if (!o->nshapes)
        return -1;
    gdt_status s = gdt_sweep_spec_shapes(o->family, o->spec_path, o->shapes, o->nshapes, &o->shape_spec, &e);
    if (s == GDT_STATUS_OK)
        s = gdt_sweep_spec_of(o, &sp, &e);
    if (s == GDT_STATUS_OK)
        fprintf(stderr, VERB ": --shape: %d cell%s\n", sp->ncells, sp->ncells == 1 ? "" : "s");
    gdt_sweep_spec_destroy(sp);
    if (s == GDT_STATUS_OK)
        return -1;
    fprintf(stderr, VERB ": %s\n", e.msg);
    return s == GDT_STATUS_NO_MEMORY ? 1 : 2;
}

/* Where the run writes, checked before the worker measures anything: an
 * unusable directory is bad usage, not a failure after hours of work. */
static int check_dirs(const gdt_sweep_opts *o)
{
    struct stat sb;
    gdt_error e = {0};
    if (o->compile_only)
        return -1; /* writes nothing */
    if (o->out_dir && stat(o->out_dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return gdt_cli_usage_error(VERB, "--out %s: %s (expected a run directory)", o->out_dir,
                                   strerror(ENOTDIR));
    if (gdt__cli_tables_dir_check(o->tables_dir, &e) != GDT_STATUS_OK) {
        fprintf(stderr, VERB ": %s\n", e.msg);
        return 2;
    }
    return -1;
}

static const char *env_lookup(const char *name)
{
    return getenv(name);
}

/* --shard auto: the scheduler's I and N, said on stderr; a resumed run keeps
 * its header's (sweep.c), whatever a resubmitted job's environment says. */
static int shard_from_env(gdt_sweep_opts *o)
{
    gdt_error e = {0};
    if (!o->shard_auto)
        return -1;
    if (o->resume_dir) {
        fprintf(stderr, VERB ": --shard auto: --resume %s keeps the shard its journal header "
                "names\n", o->resume_dir);
        return -1;
    }
    if (gdt_sweep_shard_auto(env_lookup, o->shards, &o->shard_i, &o->shard_n, o->shard_source,
                             sizeof o->shard_source, &e) != GDT_STATUS_OK) {
        fprintf(stderr, VERB ": %s\n", e.msg);
        return 2;
    }
    fprintf(stderr, VERB ": --shard auto: shard %d/%d from %s\n", o->shard_i, o->shard_n,
            o->shard_source);
    return -1;
}

/* Measures, then writes raw.h5; *out says what became of the run (the
 * caller destroys *journal and frees *emitted).  Returns the exit code. */
static int measure(const gdt_sweep_opts *o, char *dir, size_t ndir, gdt_emit_report *emitted,
                   gdt_run **journal, gdt_cli_sweep_outcome *out, gdt_error *e)
{
    gdt_status s = gdt_sweep_run(o, dir, ndir, journal, emitted, e);
    if (!dir[0] && o->resume_dir) /* stopped before it reopened the journal */
        snprintf(dir, ndir, "%s", o->resume_dir);
    out->raw_h5 = s == GDT_STATUS_OK && gdt_rawh5_after_sweep(*journal, dir);
    out->error = s == GDT_STATUS_OK ? NULL : e->msg;
    if (s != GDT_STATUS_OK)
        fprintf(stderr, VERB ": %s\n", e->msg);
    /* Written and complete, but a wrong result must not pass as success in
     * a script or a job chain. */
    int incorrect = s == GDT_STATUS_OK ? (*journal)->counts[GDT_DISP_INCORRECT] : 0;
    if (incorrect)
        fprintf(stderr, VERB ": %d plan%s incorrect (journal and tables written): exit %d\n", incorrect,
                incorrect == 1 ? "" : "s", GDT_SWEEP_EXIT_INCORRECT);
    return incorrect ? GDT_SWEEP_EXIT_INCORRECT : gdt_status_exit_code(s);
}

/* The sweep, said as text (the run directory) or as one JSON document. */
static int run_sweep(const sweep_cli *c)
{
    char dir[PATH_MAX] = "";
    gdt_run *journal = NULL;
    gdt_emit_report emitted = {0};
    gdt_error e = {0};
    gdt_cli_sweep_outcome out = {.o = &c->o, .run_dir = dir, .emitted = &emitted};
    double t0 = gdt_now();
    int rc = measure(&c->o, dir, sizeof dir, &emitted, &journal, &out, &e);
    out.journal = journal;
    out.exit_code = rc;
    out.wall_s = gdt_now() - t0;
    if (c->format == GDT_CLI_FORMAT_JSON) {
        int jrc = gdt_cli_json_emit(VERB, gdt__cli_sweep_json(&out));
        rc = jrc ? jrc : rc;
    } else if (journal)
        printf("%s\n", dir);
    gdt_run_destroy(journal);
    gdt_emit_report_free(&emitted);
    return rc;
}

/* The invocation as given, for the journal: "gdtune", then argv (the verb
 * first).  NULL when out of memory: not recorded. */
static const char **invocation(int argc, char **argv)
{
    const char **v = calloc((size_t)argc + 2, sizeof *v);
    if (!v)
        return NULL;
    v[0] = "gdtune";
    for (int i = 0; i < argc; i++)
        v[i + 1] = argv[i];
    return v;
}

int gdt_cli_sweep(int argc, char **argv)
{
    sweep_cli c = {.format = GDT_CLI_FORMAT_TEXT};
    gdt_sweep_opts *o = &c.o;
    gdt_sweep_opts_default(o);
    /* Tests put a stand-in worker here to exercise the run loop without a
     * GPU; unset, the worker is this executable. */
    o->worker_exe = getenv("GDTUNE_WORKER_EXE");
    int rc = parse_args(argc, argv, &c);
    if (rc < 0)
        rc = check_combination(o);
    if (rc < 0)
        rc = shape_spec(o);
    if (rc < 0)
        rc = shard_from_env(o);
    if (rc < 0)
        rc = check_dirs(o);
    if (rc >= 0)
        return free(o->shape_spec), rc;
    if (o->compile_only) {
        gdt_error e = {0};
        gdt_status s = gdt_sweep_compile_only(o, stdout, &e);
        if (s != GDT_STATUS_OK)
            fprintf(stderr, VERB ": %s\n", e.msg);
        free(o->shape_spec);
        return gdt_status_exit_code(s);
    }
    const char **av = invocation(argc, argv);
    o->argv = av, o->argc = av ? argc + 1 : 0;
    rc = run_sweep(&c);
    free(av);
    free(o->shape_spec);
    return rc;
}
