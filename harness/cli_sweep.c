/* `gdtune sweep FAMILY`: the command line of the sweep runner. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "gdt_sweep.h"

static const char usage_text[] =
    "usage: gdtune sweep FAMILY [options]\n"
    "       gdtune sweep FAMILY --resume RUNDIR\n"
    "       gdtune sweep FAMILY --arch smXY --compile-only\n"
    "\n"
    "Verifies and measures every plan of FAMILY (gemm, sdpa_fwd, sdpa_bwd; sdpa names both) on\n"
    "the GPU over the cells of a sweep spec: our candidate rows and the cuDNN backend's plans per\n"
    "heuristic mode and knob enumeration.  A worker process owns the GPU; a plan that faults or\n"
    "overruns its deadline is recorded as failed and the worker is respawned.  Every attempt and\n"
    "result goes to RUNDIR/journal.jsonl; then RUNDIR/raw.h5 and the tables\n"
    "TABLES/sm<arch>/<family>.{tuning,placement}.json are written.\n"
    "\n"
    "options:\n"
    "  --quick                the spec's quick subset\n"
    "  --spec FILE            sweep spec (default: the embedded sweeps/<family>.json)\n"
    "  --out RUNDIR           run directory (default: runs/<family>-<UTC timestamp>)\n"
    "  --resume RUNDIR        continue a killed sweep with its recorded settings: plans with a\n"
    "                         result are not run again (--deadline and --tables-dir may change);\n"
    "                         refused for a journal written by another gdtune build\n"
    "  --tables-dir DIR       where tables go (default: tables)\n"
    "  --bursts LIST          burst sizes, e.g. 1,4,16,64 (default: spec, else 1,4,16,64)\n"
    "  --target-rel X         relative spread to stop at (default: spec, else 0.005)\n"
    "  --max-plan-seconds S   measurement cap per plan (default: spec, else 2)\n"
    "  --deadline S           per-plan deadline before the worker is killed\n"
    "                         (default: 180 + 3 x max-plan-seconds)\n"
    "  --cudnn-knob-cap N     knob-enumerated cuDNN configs per engine (default: spec, else 8)\n"
    "  --shard I/N            only cells whose index is I modulo N (0 <= I < N)\n"
    "  --gpus N               at most N workers, one per GPU, cells spread across them\n"
    "                         (default: every GPU of the first GPU's model)\n"
    "  --arch smXY            the device's arch (another arch is refused unless --compile-only)\n"
    "  --compile-only         no GPU: compile every surviving candidate row for --arch with NVRTC\n"
    "                         (through the compiled-kernel cache: run first on the GPU machine,\n"
    "                         it compiles on every core what the sweep's worker would compile\n"
    "                         one at a time)\n"
    "  --jobs N               compile-only threads (default: online CPUs)\n"
    "  --help                 this text\n"
    "\n"
    "environment: GDTUNE_ENABLE_OPT_IN=1 enables opt-in slots (test engines); GDTUNE_CACHE_DIR\n"
    "is the compiled-kernel cache; GDTUNE_WORKER_EXE replaces the worker (tests only).\n"
    "\n"
    "exit codes: 0 success, 1 failure while running (no device, a row that does not compile),\n"
    "2 bad usage or bad input\n";

static int bad_usage(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "gdtune sweep: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n(see gdtune sweep --help)\n");
    return 2;
}

/* strtod and strtol skip leading blanks and take a sign; a value on the
 * command line is the number alone. */
static bool starts_number(const char *s)
{
    return (s[0] >= '0' && s[0] <= '9') || s[0] == '.' || s[0] == '-';
}

static bool parse_double(const char *s, double lo, double hi, double *out, char *why, size_t nwhy)
{
    char *end;
    errno = 0;
    double v = starts_number(s) ? strtod(s, &end) : 0;
    if (!starts_number(s) || errno || end == s || *end || !(v >= lo && v <= hi))
        return snprintf(why, nwhy, "expected a number in [%g, %g]", lo, hi), false;
    *out = v;
    return true;
}

static bool parse_int(const char *s, long lo, long hi, int *out, char *why, size_t nwhy)
{
    char *end;
    errno = 0;
    long v = starts_number(s) ? strtol(s, &end, 10) : 0;
    if (!starts_number(s) || errno || end == s || *end || v < lo || v > hi)
        return snprintf(why, nwhy, "expected an integer in %ld..%ld", lo, hi), false;
    *out = (int)v;
    return true;
}

/* One item of a comma-separated list, copied out; false when it does not
 * fit (no valid item is that long). */
static bool list_item(const char *s, size_t len, char *item, size_t nitem)
{
    if (len >= nitem)
        return false;
    memcpy(item, s, len);
    item[len] = '\0';
    return true;
}

static bool parse_bursts(const char *s, gdt_sweep_opts *o, char *why, size_t nwhy)
{
    o->nbursts = 0;
    for (int k = 1;; k++) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char item[32], range[64];
        int v;
        if (len == 0)
            snprintf(why, nwhy, "item %d is empty", k);
        else if (o->nbursts == GDT_MAX_BURSTS)
            snprintf(why, nwhy, "item %d is one size too many", k);
        else if (!list_item(s, len, item, sizeof item) ||
                 !parse_int(item, 1, GDT_BURST_MAX, &v, range, sizeof range))
            snprintf(why, nwhy, "item %d '%.*s' is not a size in 1..%d", k, (int)len, s, GDT_BURST_MAX);
        else if (o->nbursts && v <= o->bursts[o->nbursts - 1])
            snprintf(why, nwhy, "item %d '%s' is not above the size before it", k, item);
        else {
            o->bursts[o->nbursts++] = v;
            if (!comma)
                return true;
            s = comma + 1;
            continue;
        }
        size_t used = strlen(why);
        snprintf(why + used, nwhy - used, " (expected comma-separated increasing sizes in 1..%d, "
                 "at most %d)", GDT_BURST_MAX, GDT_MAX_BURSTS);
        return false;
    }
}

static bool parse_shard(const char *s, gdt_sweep_opts *o, char *why, size_t nwhy)
{
    const char *slash = strchr(s, '/');
    char item[32], range[64];
    int i, n;
    if (!slash || !list_item(s, (size_t)(slash - s), item, sizeof item) ||
        !parse_int(slash + 1, 1, GDT_SHARDS_MAX, &n, range, sizeof range) ||
        !parse_int(item, 0, n - 1, &i, range, sizeof range))
        return snprintf(why, nwhy, "expected I/N with 0 <= I < N <= %d", GDT_SHARDS_MAX), false;
    o->shard_i = i;
    o->shard_n = n;
    return true;
}

/* One option that takes a value; returns 0 when taken, else the exit code. */
static int value_option(const char *name, const char *v, gdt_sweep_opts *o)
{
    gdt_error e = {0};
    char why[256] = "";
    bool ok = true;
    if (!strcmp(name, "--spec"))
        o->spec_path = v;
    else if (!strcmp(name, "--out"))
        o->out_dir = v;
    else if (!strcmp(name, "--resume"))
        o->resume_dir = v;
    else if (!strcmp(name, "--tables-dir"))
        o->tables_dir = v;
    else if (!strcmp(name, "--bursts"))
        ok = parse_bursts(v, o, why, sizeof why);
    else if (!strcmp(name, "--target-rel"))
        ok = parse_double(v, GDT_TARGET_REL_MIN, GDT_TARGET_REL_MAX, &o->target_rel, why, sizeof why);
    else if (!strcmp(name, "--max-plan-seconds"))
        ok = parse_double(v, GDT_PLAN_SECONDS_MIN, GDT_PLAN_SECONDS_MAX, &o->max_plan_seconds, why,
                          sizeof why);
    else if (!strcmp(name, "--deadline"))
        ok = parse_double(v, GDT_DEADLINE_MIN, GDT_DEADLINE_MAX, &o->deadline, why, sizeof why);
    else if (!strcmp(name, "--cudnn-knob-cap"))
        ok = parse_int(v, 0, GDT_KNOB_CAP_MAX, &o->knob_cap, why, sizeof why);
    else if (!strcmp(name, "--jobs"))
        ok = parse_int(v, 1, 64, &o->jobs, why, sizeof why);
    else if (!strcmp(name, "--gpus"))
        ok = parse_int(v, 1, 16, &o->gpus, why, sizeof why);
    else if (!strcmp(name, "--shard"))
        ok = parse_shard(v, o, why, sizeof why);
    else if (!strcmp(name, "--arch")) {
        if (gdt_arch_parse(v, &o->arch, &e) != GDT_STATUS_OK) {
            fprintf(stderr, "gdtune sweep: %s\n", e.msg);
            return 2;
        }
    } else
        return bad_usage("unknown option '%s'%s", name, "");
    if (ok)
        return 0;
    fprintf(stderr, "gdtune sweep: %s: bad value '%s': %s\n(see gdtune sweep --help)\n", name, v, why);
    return 2;
}

static bool takes_value(const char *name)
{
    static const char *const names[] = {"--spec", "--out", "--resume", "--tables-dir", "--bursts",
                                        "--target-rel", "--max-plan-seconds", "--deadline",
                                        "--cudnn-knob-cap", "--jobs", "--gpus", "--shard", "--arch"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i]))
            return true;
    return false;
}

/* Returns -1 to go on, else an exit code (help: 0, bad usage: 2). */
static int parse_args(int argc, char **argv, gdt_sweep_opts *o)
{
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *a = argv[i], *eq = strchr(a, '=');
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return fputs(usage_text, stdout), 0;
        if (a[0] != '-') {
            if (o->family)
                return bad_usage("one FAMILY only, got '%s' and '%s'", o->family, a);
            o->family = a;
            continue;
        }
        if (!strcmp(a, "--quick") || !strcmp(a, "--compile-only")) {
            *(a[2] == 'q' ? &o->quick : &o->compile_only) = true;
            continue;
        }
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        if (!takes_value(name))
            return bad_usage("unknown option '%s'%s", a, "");
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v)
            return bad_usage("%s needs a value%s", name, "");
        int rc = value_option(name, v, o);
        if (rc)
            return rc;
    }
    return -1;
}

static int check_combination(const gdt_sweep_opts *o)
{
    gdt_error e = {0};
    unsigned mask;
    if (!o->family && !o->resume_dir)
        return bad_usage("missing FAMILY (gemm, sdpa_fwd, sdpa_bwd or sdpa)%s%s", "", "");
    if (o->family && gdt_family_parse_set(o->family, &mask, &e) != GDT_STATUS_OK) {
        fprintf(stderr, "gdtune sweep: %s\n", e.msg);
        return 2;
    }
    if (o->compile_only && !o->arch)
        return bad_usage("--compile-only needs --arch smXY (sm80, sm90, sm100, ...)%s%s", "", "");
    if (o->compile_only && o->resume_dir)
        return bad_usage("--compile-only measures nothing: it cannot --resume%s%s", "", "");
    if (o->resume_dir && (o->spec_path || o->quick || o->shard_n || o->nbursts || o->target_rel > 0 ||
                          o->max_plan_seconds > 0 || o->knob_cap >= 0))
        return bad_usage("--resume %s measures with the settings its journal recorded: drop --spec, "
                         "--quick, --shard, --bursts, --target-rel, --max-plan-seconds and "
                         "--cudnn-knob-cap%s", o->resume_dir, "");
    if (o->resume_dir && o->out_dir)
        return bad_usage("--resume %s continues in its own directory: drop --out %s",
                         o->resume_dir, o->out_dir);
    return -1;
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
        return bad_usage("--out %s: %s (expected a run directory)", o->out_dir, strerror(ENOTDIR));
    if (gdt__cli_tables_dir_check(o->tables_dir, &e) != GDT_STATUS_OK) {
        fprintf(stderr, "gdtune sweep: %s\n", e.msg);
        return 2;
    }
    return -1;
}

int gdt_cli_sweep(int argc, char **argv)
{
    gdt_sweep_opts o;
    gdt_sweep_opts_default(&o);
    /* Tests put a stand-in worker here to exercise the run loop without a
     * GPU; unset, the worker is this executable. */
    o.worker_exe = getenv("GDTUNE_WORKER_EXE");
    int rc = parse_args(argc, argv, &o);
    if (rc < 0)
        rc = check_combination(&o);
    if (rc < 0)
        rc = check_dirs(&o);
    if (rc >= 0)
        return rc;
    gdt_error e = {0};
    gdt_status s;
    if (o.compile_only)
        s = gdt_sweep_compile_only(&o, stdout, &e);
    else {
        char dir[PATH_MAX] = "";
        s = gdt_sweep_run(&o, dir, sizeof dir, &e);
        if (s == GDT_STATUS_OK)
            printf("%s\n", dir);
    }
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "gdtune sweep: %s\n", e.msg);
    return gdt_status_exit_code(s);
}
