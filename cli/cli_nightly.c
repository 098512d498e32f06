/* `gdtune nightly`: the verbs a nightly job runs, in order, each one
 * spawned as this executable with an argument vector (never a shell):
 * `sweep` per family into a dated run directory (resumed when its journal
 * exists), emitting into ROOT/staging/DATE; `tables diff` of the committed
 * tables against the staged ones as markdown and JSON reports; one history
 * line per cell the diff names; with --update the staged tables replace the
 * committed ones.  The exit status is the diff's, once its changes beyond
 * noise are confirmed in interleaved rounds (gdt_confirm.h). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gdt_cli_options.h"
#include "gdt_confirm_run.h"
#include "gdt_lock.h"
#include "gdt_nightly_report.h"
#include "gdt_plant.h"
#include "gdt_sweep.h"
#include "gdt_tables_pair.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

extern char **environ;

#define VERB "gdtune nightly"
#define NF_GEMM 1u
#define NF_SDPA 2u

static const char usage_text[] =
    "usage: gdtune nightly [--arch smXY] [--root DIR] [--tables DIR] [--family gemm|sdpa]...\n"
    "                      [--quick] [--spec FILE] [--rounds R] [--confirm-rounds R]\n"
    "                      [--tuning-config FILE] [--deadline S] [--max-plan-seconds S] [--gpus N]\n"
    "                      [--date YYYYMMDD] [--update]\n"
    "\n"
    "One night of table regeneration on a GPU machine, as the verbs it runs:\n"
    "  1. per family: gdtune sweep FAMILY --out ROOT/runs/FAMILY-DATE --prior TABLES\n"
    "     --tables-dir ROOT/staging/DATE (the committed tables' rankings order each cell's\n"
    "     plans; --rounds R, --tuning-config, --deadline, --max-plan-seconds and --gpus\n"
    "     passed on), or --resume that run directory (--deadline and --gpus passed on)\n"
    "     when its journal exists (a rerun the same night continues where the last one\n"
    "     stopped, with its recorded prior, rounds and candidate rows);\n"
    "  2. gdtune tables diff TABLES ROOT/staging/DATE, as ROOT/reports/NAME.md and\n"
    "     ROOT/reports/NAME.json (gdtune.tables_diff/1); NAME is DATE, or DATE-FAMILY\n"
    "     for a night of one --family, so two one-family nights of a date keep both;\n"
    "  2b. when the diff finds a change beyond noise: the plans behind each change\n"
    "     (old and new winner, old and new first entry, the two sides of a placement\n"
    "     decision) measured again together in --confirm-rounds interleaved rounds on\n"
    "     the same GPU, journaled in the family's run directory (confirm/journal.jsonl;\n"
    "     a rerun finds them there); a change holds when the rounds show the new plan\n"
    "     ahead of the committed one beyond both plans' noise (floored at the spec's\n"
    "     noise floor), else it dissolved: stdout lists each with the rounds' figures,\n"
    "     ROOT/reports/NAME.confirm.json (gdtune.confirm/1) and nightly.md say so;\n"
    "  3. one line per staged cell appended to ROOT/history.tsv every night (date,\n"
    "     family, key, winner, winner time in us, decision, status: the diff's, 'same'\n"
    "     when the diff does not name the cell), so a stable night keeps the trend;\n"
    "  4. ROOT/staging/DATE/nightly.md: per cell the committed and the new winner with\n"
    "     their noise and the diff's verdict, linking two gnuplot figures (winners,\n"
    "     history.tsv per night; without gnuplot their scripts and data only);\n"
    "  5. with --update only: the tables this night staged replace those in TABLES,\n"
    "     each family's pair as one step (tables/README.md: Publishing a pair).\n"
    "When TABLES holds no tables yet, step 2 writes a markdown note instead and every\n"
    "cell counts as added.  Prints the report's path.\n";

static const char footer_text[] =
    "exit codes: 0 nothing beyond noise, or every change the diff found dissolved in\n"
    "the rounds; 3 a change that held in the rounds (or could not be measured again, a\n"
    "cell added or removed, no tables in TABLES yet; with --confirm-rounds 0 the diff's\n"
    "status); 2 bad usage or bad input (--update with a planted slowdown,\n"
    "GDTUNE_PLANT_SLOWDOWN, included); 1 failure while running (a sweep\n"
    "that failed stops the night with its exit status); 4 a sweep measured an incorrect\n"
    "plan (the night still diffs and reports, but --update does not replace the tables)\n";

typedef struct nightly_opts {
    const char *arch, *root, *tables, *spec, *date, *rounds;
    const char *tuning_config; /* each new sweep's --tuning-config; NULL: the default rows */
    bool quick, update;
    int confirm_rounds; /* 0: no confirmation (default GDT_CONFIRM_ROUNDS_DEFAULT) */
    unsigned families;
    double deadline, max_plan_seconds; /* the sweep's; 0: its default */
    int gpus;                          /* the sweep's --gpus; 0: every GPU */
    int format;                        /* FMT_TEXT or FMT_JSON */
} nightly_opts;

enum { FMT_TEXT, FMT_JSON };
static const char *const night_formats[] = {"text", "json", NULL};

static bool parse_arch(void *opts, const char *v, char *why, size_t nwhy)
{
    int arch;
    gdt_error e = {0};
    if (gdt_arch_parse(v, &arch, &e) != GDT_STATUS_OK)
        return snprintf(why, nwhy, "%s", e.msg), false;
    ((nightly_opts *)opts)->arch = v;
    return true;
}

static bool parse_family(void *opts, const char *v, char *why, size_t nwhy)
{
    unsigned f = !strcmp(v, "gemm") ? NF_GEMM : !strcmp(v, "sdpa") ? NF_SDPA : 0;
    if (!f)
        return snprintf(why, nwhy, "expected gemm or sdpa"), false;
    ((nightly_opts *)opts)->families |= f;
    return true;
}

/* A round count: 0 (off) or 2 to GDT_ROUNDS_MAX. */
static bool rounds_parse(const char *v, long *r, char *why, size_t nwhy)
{
    char *end = NULL;
    *r = strtol(v, &end, 10);
    if (!*v || *end || !(*r == 0 || (*r >= 2 && *r <= GDT_ROUNDS_MAX)))
        return snprintf(why, nwhy, "expected 0 (off) or 2 to %d", GDT_ROUNDS_MAX), false;
    return true;
}

/* The sweep's --rounds, passed on as given. */
static bool parse_rounds(void *opts, const char *v, char *why, size_t nwhy)
{
    long r;
    if (!rounds_parse(v, &r, why, nwhy))
        return false;
    ((nightly_opts *)opts)->rounds = r ? v : NULL;
    return true;
}

/* --confirm-rounds (0: the diff's status is the night's). */
static bool parse_confirm(void *opts, const char *v, char *why, size_t nwhy)
{
    long r;
    if (!rounds_parse(v, &r, why, nwhy))
        return false;
    ((nightly_opts *)opts)->confirm_rounds = (int)r;
    return true;
}

static bool parse_date(void *opts, const char *v, char *why, size_t nwhy)
{
    bool ok = strlen(v) == 8;
    for (int i = 0; ok && i < 8; i++)
        ok = v[i] >= '0' && v[i] <= '9';
    if (!ok)
        return snprintf(why, nwhy, "expected YYYYMMDD"), false;
    ((nightly_opts *)opts)->date = v;
    return true;
}

#define O(field) offsetof(nightly_opts, field)
static const gdt_cli_option options[] = {
    {"--arch", NULL, GDT_CLI_CUSTOM, .parse = parse_arch, .metavar = "smXY",
     .help = "passed to each sweep (the device's arch)"},
    {"--root", NULL, GDT_CLI_DIR, O(root), .metavar = "DIR", .def = "nightly",
     .help = "where runs/, staging/, reports/ and history.tsv go"},
    {"--tables", NULL, GDT_CLI_DIR, O(tables), .metavar = "DIR", .def = "tables",
     .help = "the committed tables to compare against (and --update)"},
    {"--family", NULL, GDT_CLI_CUSTOM, .parse = parse_family, .metavar = "gemm|sdpa",
     .help = "a family to sweep, repeatable (default: gemm and sdpa)"},
    {"--quick", NULL, GDT_CLI_FLAG, O(quick), .help = "each sweep's quick subset"},
    {"--spec", NULL, GDT_CLI_STRING, O(spec), .metavar = "FILE",
     .help = "the sweep spec of every family (default: the embedded ones)"},
    {"--tuning-config", NULL, GDT_CLI_STRING, O(tuning_config), .metavar = "FILE",
     .help = "each new sweep's candidate rows: FILE's families in place of the\n"
             "defaults' (gdtune sweep --tuning-config); the confirmation's rounds\n"
             "list the rows the night's journal header records"},
    {"--rounds", NULL, GDT_CLI_CUSTOM, .parse = parse_rounds, .metavar = "R",
     .help = "each new sweep's --rounds: its cells' best plans and each engine kind's\n"
             "best measured again together in R interleaved rounds (default 0: off)"},
    {"--confirm-rounds", NULL, GDT_CLI_CUSTOM, .parse = parse_confirm, .metavar = "R",
     .help = "interleaved rounds that confirm each change beyond noise before the night\n"
             "exits 3 (default 10; 0: none, the diff's status stands)"},
    GDT_CLI_OPT_DEADLINE(nightly_opts, deadline,
                         "each sweep's per-plan deadline before its worker is killed, a\n"
                         "resumed one's too (default: the sweep's, 180 s + 3 x the plan's cap)"),
    GDT_CLI_OPT_PLAN_SECONDS(nightly_opts, max_plan_seconds, NULL,
                             "each new sweep's measurement cap per plan (default: the\n"
                             "spec's, else " GDT_DEFAULT_TEXT(GDT_PLAN_SECONDS_DEFAULT)
                             "; a resumed run keeps its recorded cap)"),
    GDT_CLI_OPT_GPUS(nightly_opts, gpus, "each sweep's workers, one per GPU (default: every GPU of\n"
                                         "the first GPU's model)"),
    {"--date", NULL, GDT_CLI_CUSTOM, .parse = parse_date, .metavar = "YYYYMMDD",
     .help = "the night's name (default: today, UTC)"},
    {"--update", NULL, GDT_CLI_FLAG, O(update),
     .help = "replace the tables in TABLES with the staged ones"},
    {"--format", NULL, GDT_CLI_CHOICE, O(format), .choices = night_formats, .def = "text",
     .metavar = "text|json",
     .help = "text: the confirmation's lines and the reports' paths; json: one summary\n"
             "document on stdout (gdtune.nightly/1: the paths, the diff's counts, the\n"
             "rounds' verdicts, the exit status), the lines on stderr"},
};
#undef O

static const gdt_cli_spec spec = {VERB, usage_text, footer_text, options, GDT_CLI_NOPTS(options)};

/* ------------------------------------------------------------ spawning */

/* Runs `gdtune ARGS...` (this executable) and returns its exit status, -1
 * when it could not run or died by a signal.  out NULL: the child's stdout
 * goes to our stderr, keeping our stdout for the report's path; else it is
 * captured into *out (malloc'd, NUL-terminated). */
static int run_verb(char *const argv[], char **out)
{
    int fds[2] = {-1, -1};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out && pipe(fds) != 0)
        return posix_spawn_file_actions_destroy(&fa), -1;
    if (out) {
        posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
        posix_spawn_file_actions_addclose(&fa, fds[0]);
    } else {
        posix_spawn_file_actions_adddup2(&fa, 2, 1);
    }
    fflush(NULL);
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (out) {
        size_t got = 0, cap = 4096;
        char *buf = malloc(cap);
        ssize_t n = 0;
        close(fds[1]);
        while (buf && (n = read(fds[0], buf + got, cap - got - 1)) > 0)
            if ((got += (size_t)n) + 1 == cap) {
                char *b = realloc(buf, cap *= 2);
                if (!b) free(buf);
                buf = b;
            }
        close(fds[0]);
        if (buf) buf[got] = 0;
        *out = buf;
    }
    int st;
    if (rc != 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return out && !*out ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int verb_failed(const char *what, int rc)
{
    fprintf(stderr, VERB ": %s %s\n", what, rc < 0 ? "could not run or died by a signal" : "failed");
    return rc < 0 ? 1 : rc;
}

/* ------------------------------------------------------------ the steps */

static const char *const family_names[] = {"gemm", "sdpa"};

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* The night's run directory of family f (0 gemm, 1 sdpa). */
static void run_dir_of(const nightly_opts *o, int f, char run[4096])
{
    snprintf(run, 4096, "%s/runs/%s-%s", o->root, family_names[f], o->date);
}

/* The sweep's argument vector into av (NULL-terminated; num holds the
 * numbers' text): a new sweep takes every option of the night, a resumed
 * one those a resume may change (--deadline, --gpus, --tables-dir). */
static void sweep_argv(const nightly_opts *o, int f, const char *run, bool resume, const char *staging,
                       const char *av[32], char num[3][32])
{
    int n = 0;
    av[n++] = "gdtune", av[n++] = "sweep", av[n++] = family_names[f];
    if (o->arch) av[n++] = "--arch", av[n++] = o->arch;
    if (resume) av[n++] = "--resume", av[n++] = run;
    else av[n++] = "--out", av[n++] = run;
    if (!resume && o->quick) av[n++] = "--quick";
    if (!resume && o->spec) av[n++] = "--spec", av[n++] = o->spec;
    if (!resume && o->rounds) av[n++] = "--rounds", av[n++] = o->rounds;
    if (!resume && o->tuning_config) av[n++] = "--tuning-config", av[n++] = o->tuning_config;
    if (!resume && o->max_plan_seconds > 0)
        snprintf(num[0], 32, "%.17g", o->max_plan_seconds), av[n++] = "--max-plan-seconds", av[n++] = num[0];
    if (o->deadline > 0)
        snprintf(num[1], 32, "%.17g", o->deadline), av[n++] = "--deadline", av[n++] = num[1];
    if (o->gpus > 0)
        snprintf(num[2], 32, "%d", o->gpus), av[n++] = "--gpus", av[n++] = num[2];
    /* the committed tables the night diffs against order its cells (a
     * resumed run keeps its header's prior) */
    if (!resume) av[n++] = "--prior", av[n++] = o->tables;
    av[n++] = "--tables-dir", av[n++] = staging;
    av[n] = NULL;
}

static int sweep_family(const nightly_opts *o, int f, const char *staging)
{
    char run[4096], journal[4200], num[3][32];
    const char *av[32];
    run_dir_of(o, f, run);
    snprintf(journal, sizeof journal, "%s/journal.jsonl", run);
    bool resume = exists(journal);
    sweep_argv(o, f, run, resume, staging, av, num);
    /* the cron log says what each sweep ran with (its journal header too) */
    fprintf(stderr, VERB ": %s %s:", resume ? "resuming" : "sweeping", run);
    for (int i = 0; av[i]; i++)
        fprintf(stderr, " %s", av[i]);
    fputc('\n', stderr);
    int rc = run_verb((char *const *)av, NULL);
    if (rc == GDT_SWEEP_EXIT_INCORRECT) {
        fprintf(stderr, VERB ": %s measured an incorrect plan: the night goes on, the tables "
                "are not updated, and the exit status is %d\n", run, GDT_SWEEP_EXIT_INCORRECT);
        return rc;
    }
    return rc ? verb_failed("gdtune sweep", rc) : 0;
}

/* gdtune tables diff TABLES STAGING --format FMT into *out; its status. */
static int diff(const nightly_opts *o, const char *staging, const char *fmt, char **out)
{
    const char *av[10];
    int n = 0;
    av[n++] = "gdtune", av[n++] = "tables", av[n++] = "diff", av[n++] = o->tables;
    av[n++] = staging, av[n++] = "--format", av[n++] = fmt;
    if (o->families != (NF_GEMM | NF_SDPA))
        av[n++] = "--family", av[n++] = o->families == NF_GEMM ? "gemm" : "sdpa";
    av[n] = NULL;
    *out = NULL;
    return run_verb((char *const *)av, out);
}

/* Whether dir holds a <family>.tuning.json of the night's families in an
 * sm<arch> folder: the committed tables to compare against. */
static bool has_tables(const nightly_opts *o, const char *dir)
{
    DIR *dp = opendir(dir);
    bool found = false;
    int arch;
    for (struct dirent *de; dp && !found && (de = readdir(dp));)
        for (int f = 0; f < GDT_FAMILY_COUNT && !found; f++) {
            char p[4096];
            unsigned want = f == GDT_FAMILY_GEMM ? NF_GEMM : NF_SDPA;
            if (!(o->families & want) || gdt_arch_parse(de->d_name, &arch, NULL) != GDT_STATUS_OK)
                continue;
            snprintf(p, sizeof p, "%s/%s/%s.tuning.json", dir, de->d_name, gdt_family_name((gdt_family)f));
            found = exists(p);
        }
    if (dp) closedir(dp);
    return found;
}

static int write_file(const char *path, const char *text)
{
    gdt_error e = {0};
    if (gdt_file_write_atomic(path, text, strlen(text), &e) == GDT_STATUS_OK)
        return 0;
    fprintf(stderr, VERB ": %s\n", e.msg);
    return 1;
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(b ? cJSON_GetObjectItem(o, a) : o, b ? b : a));
    return s && *s ? s : "-";
}

/* One night's history: its options, staged tables, the diff's JSON (NULL:
 * no committed tables) and the confirmation's (NULL: none ran). */
typedef struct history_night {
    const nightly_opts *o;
    const char *staging;
    cJSON *diff, *conf;
} history_night;

static bool night_has(const nightly_opts *o, gdt_family f)
{
    return o->families & (f == GDT_FAMILY_GEMM ? NF_GEMM : NF_SDPA);
}

/* A cell's status after the confirmation (conf: its JSON, NULL when none
 * ran): "dissolved" when the rounds dissolved every change of the cell,
 * else the diff's status. */
static const char *confirmed_status(const cJSON *conf, const cJSON *c)
{
    const cJSON *ch;
    bool any = false, held = false;
    cJSON_ArrayForEach(ch, cJSON_GetObjectItem(conf, "changes")) {
        if (strcmp(str_at(ch, "key", NULL), str_at(c, "key", NULL)) ||
            strcmp(str_at(ch, "family", NULL), str_at(c, "family", NULL)))
            continue;
        any = true;
        held |= strcmp(str_at(ch, "verdict", NULL), "dissolved") != 0;
    }
    return any && !held ? "dissolved" : str_at(c, "status", NULL);
}

static const char history_header[] = "date\tfamily\tkey\twinner\twinner_us\tdecision\tstatus\n";

/* The diff's cell of family f, arch folder arch, key (NULL: the diff does
 * not name it). */
static const cJSON *diff_cell(const cJSON *doc, const char *family, const char *arch, const char *key)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cells"))
        if (!strcmp(str_at(c, "family", NULL), family) && !strcmp(str_at(c, "arch", NULL), arch) &&
            !strcmp(str_at(c, "key", NULL), key))
            return c;
    return NULL;
}

/* One staged cell's line: its winner (the fastest measured plan, as
 * nightly.md and `tables diff` have it), that plan's time and the cell's
 * decision, with the diff's status after the confirmation, "same" when the
 * diff does not name it, "added" when nothing was committed. */
static void history_cell(FILE *f, const history_night *n, const char *arch, gdt_family fam,
                         const gdt_table_cell *c)
{
    const gdt_measured_plan *w = NULL;
    char plan[512] = "-", us[32] = "-";
    for (int i = 0; i < c->nranked; i++)
        if (!w || c->ranked[i].time_us < w->time_us)
            w = &c->ranked[i];
    if (w) {
        gdt_plan_id_format(&w->id, plan, sizeof plan);
        snprintf(us, sizeof us, "%.6g", w->time_us);
    }
    const cJSON *d = diff_cell(n->diff, gdt_family_name(fam), arch, c->key);
    const char *status = d ? confirmed_status(n->conf, d) : n->diff ? "same" : "added";
    fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n->o->date, gdt_family_name(fam), c->key, plan, us,
            c->lead ? "LEAD" : "TRAIL", status);
}

/* The lines of one arch folder's staged tables of family fam; how many. */
static int history_tables(FILE *f, const history_night *n, const char *arch, gdt_family fam, gdt_error *e)
{
    gdt_tables *t = NULL;
    int a, lines = 0;
    if (gdt_arch_parse(arch, &a, NULL) != GDT_STATUS_OK)
        return 0;
    gdt_status s = gdt_tables_load(n->staging, fam, a, &t, e);
    if (s == GDT_STATUS_NOT_SUPPORTED)
        return gdt_error_clear(e), 0;
    if (s != GDT_STATUS_OK)
        return -1;
    gdt_table_cell c;
    for (int i = 0; gdt_tables_cell(t, i, &c); i++, lines++)
        history_cell(f, n, arch, fam, &c);
    gdt_tables_destroy(t);
    return lines;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The staged arch folders (sm90, ...) in name order; their count, at most max. */
static int staged_archs(const char *staging, char *names[], int max)
{
    DIR *dp = opendir(staging);
    int n = 0, arch;
    for (struct dirent *de; dp && n < max && (de = readdir(dp));)
        if (gdt_arch_parse(de->d_name, &arch, NULL) == GDT_STATUS_OK && (names[n] = strdup(de->d_name)))
            n++;
    if (dp) closedir(dp);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    return n;
}

/* The cells the diff names as removed (in the committed tables only). */
static void history_removed(FILE *f, const history_night *n, int lines[GDT_FAMILY_COUNT])
{
    const cJSON *c;
    gdt_family fam;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(n->diff, "cells")) {
        if (strcmp(str_at(c, "status", NULL), "removed") ||
            gdt_family_parse(str_at(c, "family", NULL), &fam, NULL) != GDT_STATUS_OK)
            continue;
        fprintf(f, "%s\t%s\t%s\t-\t-\t-\tremoved\n", n->o->date, gdt_family_name(fam), str_at(c, "key", NULL));
        lines[fam]++;
    }
}

/* The lines of one night: every staged cell of the night's families, each
 * night, so that a stable night keeps each cell's trend; the removed
 * cells; a family with no cell at all gets one line with key '-'. */
static gdt_status history_write(FILE *f, const history_night *n, gdt_error *e)
{
    char *archs[64];
    int na = staged_archs(n->staging, archs, 64), lines[GDT_FAMILY_COUNT] = {0};
    gdt_status s = GDT_STATUS_OK;
    for (int i = 0; i < na; i++) {
        for (int k = 0; k < GDT_FAMILY_COUNT && s == GDT_STATUS_OK; k++) {
            int m = night_has(n->o, (gdt_family)k) ? history_tables(f, n, archs[i], (gdt_family)k, e) : 0;
            s = m < 0 ? GDT_STATUS_BAD_INPUT : s;
            lines[k] += m > 0 ? m : 0;
        }
        free(archs[i]);
    }
    history_removed(f, n, lines);
    for (int k = 0; k < GDT_FAMILY_COUNT; k++)
        if (night_has(n->o, (gdt_family)k) && !lines[k])
            fprintf(f, "%s\t%s\t-\t-\t-\t-\t%s\n", n->o->date, gdt_family_name((gdt_family)k),
                    n->diff ? "same" : "added");
    return s;
}

/* Appends through a whole-file atomic write: a killed night leaves the
 * history as it was, never a torn line.  json: the diff's (NULL: no
 * committed tables), conf: the confirmation's (NULL: none ran). */
static int append_history(const nightly_opts *o, const char *staging, const char *json, const char *conf)
{
    char path[4096], *text = NULL, *old = NULL;
    size_t ntext = 0, nold = 0;
    gdt_error e = {0};
    history_night n = {o, staging, json ? cJSON_Parse(json) : NULL, conf ? cJSON_Parse(conf) : NULL};
    snprintf(path, sizeof path, "%s/history.tsv", o->root);
    gdt_status s = exists(path) ? gdt_file_read(path, &old, &nold, &e) : GDT_STATUS_OK;
    FILE *f = s == GDT_STATUS_OK ? open_memstream(&text, &ntext) : NULL;
    if (s == GDT_STATUS_OK && !f)
        s = gdt_error_set(&e, GDT_STATUS_NO_MEMORY, "%s: out of memory", path);
    if (f) {
        fputs(old && *old ? old : history_header, f);
        s = history_write(f, &n, &e);
        fclose(f);
    }
    int rc = s == GDT_STATUS_OK ? write_file(path, text) : (fprintf(stderr, VERB ": %s\n", e.msg), 1);
    cJSON_Delete(n.diff);
    cJSON_Delete(n.conf);
    free(text);
    free(old);
    return rc;
}

/* Publishes one arch folder's staged tables of the night's families into
 * TABLES/<arch>/, each family's pair as one step (gdt_tables_pair.h): a
 * night killed here leaves each pair old or new, never half of each. */
static gdt_status update_arch(const nightly_opts *o, const char *staging, const char *arch, gdt_error *e)
{
    char dst_dir[4096];
    snprintf(dst_dir, sizeof dst_dir, "%s/%s", o->tables, arch);
    gdt_status s = GDT_STATUS_OK;
    for (int f = 0; f < GDT_FAMILY_COUNT && !s; f++) {
        char src[2][8600], *data[2] = {NULL, NULL};
        size_t n[2] = {0, 0};
        if (!(o->families & (f == GDT_FAMILY_GEMM ? NF_GEMM : NF_SDPA))) continue;
        for (int k = 0; k < 2; k++)
            snprintf(src[k], sizeof src[k], "%s/%s/%s.%s.json", staging, arch, gdt_family_name((gdt_family)f),
                     k ? "placement" : "tuning");
        if (!exists(src[0]) && !exists(src[1])) continue;
        for (int k = 0; k < 2 && !s; k++)
            s = gdt_file_read(src[k], &data[k], &n[k], e);
        if (!s) s = gdt__pair_publish(dst_dir, (gdt_family)f, data[0], n[0], data[1], n[1], e);
        free(data[0]);
        free(data[1]);
    }
    return s;
}

static int update_tables(const nightly_opts *o, const char *staging)
{
    DIR *dp = opendir(staging);
    gdt_error e = {0};
    gdt_status s = dp ? GDT_STATUS_OK : gdt_error_set(&e, GDT_STATUS_IO, "%s: cannot read the directory", staging);
    int arch;
    for (struct dirent *de; !s && (de = readdir(dp));)
        if (gdt_arch_parse(de->d_name, &arch, NULL) == GDT_STATUS_OK)
            s = update_arch(o, staging, de->d_name, &e);
    if (dp) closedir(dp);
    if (s) return fprintf(stderr, VERB ": --update: %s\n", e.msg), gdt_status_exit_code(s);
    fprintf(stderr, VERB ": updated %s from %s\n", o->tables, staging);
    return 0;
}

static const char first_night[] =
    "## gdtune nightly\n\nNo tables of these families in `%s` yet: nothing to compare, every cell "
    "of `%s` is new.\n";

/* Step 4, the reviewer's report in the staging folder, from the diff's
 * JSON (NULL: no committed tables), the confirmation's (NULL: none) and
 * the history as now written. */
static int nightly_md(const nightly_opts *o, const char *staging, const char *json, const char *conf)
{
    char path[4096], *hist = NULL;
    gdt_error e = {0};
    snprintf(path, sizeof path, "%s/history.tsv", o->root);
    if (gdt_file_read(path, &hist, NULL, &e) != GDT_STATUS_OK)
        return fprintf(stderr, VERB ": %s\n", e.msg), 1;
    unsigned fams = 0;
    for (int f = 0; f < GDT_FAMILY_COUNT; f++)
        if (o->families & (f == GDT_FAMILY_GEMM ? NF_GEMM : NF_SDPA))
            fams |= 1u << f;
    gdt_nightly_in in = {o->tables, staging, fams, json, hist, o->date, conf};
    bool drawn;
    gdt_status s = gdt_nightly_report_write(&in, staging, &drawn, &e);
    free(hist);
    if (s != GDT_STATUS_OK)
        return fprintf(stderr, VERB ": %s\n", e.msg), gdt_status_exit_code(s);
    if (!drawn)
        fprintf(stderr, VERB ": figures not drawn (no gnuplot in PATH, or nothing to plot): %s/nightly.gp\n", staging);
    return 0;
}

/* ------------------------------------------------------------ confirmation */

static void confirm_line(FILE *f, const gdt_confirm_change *c)
{
    fprintf(f, "%s: %s %s %s %s: %s -> %s", gdt_confirm_verdict_name(c->verdict), c->family, c->arch,
            c->key, c->what, c->old_choice, c->new_choice);
    if (c->verdict == GDT_CONFIRM_UNCONFIRMED)
        fprintf(f, " (%s)\n", c->why);
    else if (!strcmp(c->what, "slowdown")) /* the faster plan's rounds against the committed time */
        fprintf(f, " (rounds: the faster of the two, %s, %.4g us against the committed %.4g us, ratio "
                "%.4f in [%.4f, %.4f] over %d rounds, noise %.1f%% + %.1f%%)\n", c->faster, c->new_us, c->old_us,
                c->ratio, c->lo, c->hi, c->rounds, 100 * c->new_noise, 100 * c->old_noise);
    else
        fprintf(f, " (rounds: %s %.4g us, %s %.4g us, ratio new/old %.4f in [%.4f, %.4f] over %d rounds, "
                "noise %.1f%% + %.1f%%)\n", c->new_plan, c->new_us, c->old_plan, c->old_us, c->ratio,
                c->lo, c->hi, c->rounds, 100 * c->new_noise, 100 * c->old_noise);
}

/* ROOT/reports/NAME<ext>: NAME is the date, or DATE-FAMILY for a night of
 * one family, so that a GEMM night and an SDPA night of one date (two
 * cron lines) keep their reports side by side. */
static void report_path(const nightly_opts *o, const char *ext, char *out, size_t n)
{
    bool one = o->families != (NF_GEMM | NF_SDPA);
    snprintf(out, n, "%s/reports/%s%s%s%s", o->root, o->date, one ? "-" : "",
             one ? family_names[o->families == NF_GEMM ? 0 : 1] : "", ext);
}

/* The confirmation's JSON into ROOT/reports/NAME.confirm.json and *out. */
static int confirm_save(const nightly_opts *o, const gdt_confirm *c, char **out)
{
    char path[4200];
    cJSON *doc = gdt_confirm_json(c);
    *out = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (!*out)
        return fprintf(stderr, VERB ": out of memory\n"), 1;
    report_path(o, ".confirm.json", path, sizeof path);
    return write_file(path, *out);
}

/* Step 2b: the diff's changes beyond noise measured again in rounds; the
 * night's status (0 or 3, gdt_confirm_exit) or a failure's. */
static int confirm(const nightly_opts *o, const char *json, char **out)
{
    char dirs[2][4096];
    gdt_confirm c;
    gdt_error e = {0};
    gdt_confirm_runs runs = {.worker_exe = getenv("GDTUNE_WORKER_EXE")};
    for (int f = 0; f < 2; f++)
        run_dir_of(o, f, dirs[f]);
    if (o->families & NF_GEMM)
        runs.run_dir[GDT_FAMILY_GEMM] = dirs[0];
    if (o->families & NF_SDPA)
        runs.run_dir[GDT_FAMILY_SDPA_FWD] = runs.run_dir[GDT_FAMILY_SDPA_BWD] = dirs[1];
    *out = NULL;
    gdt_status s = gdt_confirm_from_diff(json, &c, &e);
    c.rounds = o->confirm_rounds;
    if (s == GDT_STATUS_OK)
        s = gdt_confirm_run(&c, &runs, &e);
    if (s != GDT_STATUS_OK) {
        fprintf(stderr, VERB ": confirming the diff's changes: %s\n", e.msg);
        gdt_confirm_free(&c);
        return gdt_status_exit_code(s);
    }
    for (int i = 0; i < c.n; i++)
        confirm_line(o->format == FMT_JSON ? stderr : stdout, &c.v[i]);
    int rc = confirm_save(o, &c, out);
    rc = rc ? rc : gdt_confirm_exit(&c);
    gdt_confirm_free(&c);
    return rc;
}

/* The families whose committed tables another device measured (the diff
 * doc's provenance names device_name), as [{family, arch, old, new}]. */
static cJSON *device_changes(const cJSON *diff)
{
    cJSON *a = cJSON_CreateArray();
    const cJSON *set, *f;
    cJSON_ArrayForEach(set, cJSON_GetObjectItem(diff, "provenance"))
    {
        cJSON_ArrayForEach(f, cJSON_GetObjectItem(set, "differences"))
        {
            if (strcmp(str_at(f, "field", NULL), "device_name"))
                continue;
            cJSON *c = cJSON_CreateObject();
            cJSON_AddStringToObject(c, "family", str_at(set, "family", NULL));
            cJSON_AddStringToObject(c, "arch", str_at(set, "arch", NULL));
            cJSON_AddStringToObject(c, "old", str_at(f, "old", NULL));
            cJSON_AddStringToObject(c, "new", str_at(f, "new", NULL));
            cJSON_AddItemToArray(a, c);
        }
    }
    return a;
}

/* Said before the changes, per such family: what the diff finds is then
 * the device's as well as the build's. */
static void device_note(const nightly_opts *o, const char *json)
{
    cJSON *doc = cJSON_Parse(json), *changes = device_changes(doc);
    const cJSON *c;
    cJSON_ArrayForEach(c, changes)
    {
        fprintf(o->format == FMT_JSON ? stderr : stdout,
                VERB ": %s %s: the committed tables were measured on %s, tonight's on %s: what "
                "the diff finds is the device's as well as the build's\n",
                str_at(c, "family", NULL), str_at(c, "arch", NULL), str_at(c, "old", NULL),
                str_at(c, "new", NULL));
    }
    cJSON_Delete(changes);
    cJSON_Delete(doc);
}

/* Steps 2b to 4 once the diff is written: the diff's status rc, or the
 * confirmation's; *confirmed says whether this night ran the rounds. */
static int after_diff(const nightly_opts *o, const char *staging, const char *json, int rc, bool *confirmed)
{
    char *conf = NULL;
    device_note(o, json);
    if (rc == 3 && o->confirm_rounds)
        rc = confirm(o, json, &conf);
    *confirmed = conf != NULL;
    if ((rc == 0 || rc == 3) && (append_history(o, staging, json, conf) || nightly_md(o, staging, json, conf)))
        rc = 1;
    free(conf);
    return rc;
}

/* A planted slowdown never becomes committed tables: --update is bad
 * usage while the environment plants one (a bad plant is refused here, as
 * the sweep would). */
static int plant_check(const nightly_opts *o)
{
    gdt_plant p;
    bool ignored;
    gdt_error e = {0};
    if (gdt_plant_from_env(&p, &ignored, &e) != GDT_STATUS_OK)
        return fprintf(stderr, VERB ": %s\n", e.msg), 2;
    if (p.n && o->update)
        return fprintf(stderr, VERB ": --update refused: " GDT_PLANT_ENV " plants a slowdown "
                       "(" GDT_PLANT_GATE_ENV "=1), and a planted night never replaces the committed "
                       "tables\n"), 2;
    return -1;
}

/* Steps 2 to 4; returns the diff's status, or the confirmation's;
 * *confirmed as after_diff says. */
static int report(const nightly_opts *o, const char *staging, const char *md_path, const char *json_path,
                  bool *confirmed)
{
    *confirmed = false;
    char *md = NULL, *json = NULL;
    int rc;
    if (!has_tables(o, o->tables)) {
        char note[9000];
        snprintf(note, sizeof note, first_night, o->tables, staging);
        rc = write_file(md_path, note);
        if (!rc) rc = append_history(o, staging, NULL, NULL) ? 1 : nightly_md(o, staging, NULL, NULL);
        return rc ? rc : 3;
    }
    rc = diff(o, staging, "md", &md);
    if ((rc == 0 || rc == 3) && diff(o, staging, "json", &json) != rc)
        rc = -1; /* the two formats of one diff disagree: something broke */
    if (rc != 0 && rc != 3)
        rc = verb_failed("gdtune tables diff", rc);
    else if (write_file(md_path, md) || write_file(json_path, json))
        rc = 1;
    else
        rc = after_diff(o, staging, json, rc, confirmed);
    free(md);
    free(json);
    return rc;
}

static void today_utc(char out[9])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 9, "%Y%m%d", &tm);
}

static int make_dirs(const nightly_opts *o)
{
    static const char *const sub[] = {"runs", "staging", "reports"};
    gdt_error e = {0};
    for (int i = 0; i < 3; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", o->root, sub[i]);
        if (gdt_mkdirs(p, &e) != GDT_STATUS_OK)
            return fprintf(stderr, VERB ": %s\n", e.msg), 2;
    }
    return -1;
}

/* Each night stages into ROOT/staging/DATE: --update publishes what this
 * night's sweeps emitted there, never a folder an earlier night left. */
static void night_staging(const nightly_opts *o, char *out, size_t n)
{
    snprintf(out, n, "%s/staging/%s", o->root, o->date);
}

/* One night per root at a time, held until this process ends: a second
 * would resume the first's sweeps beside it and rewrite its staging,
 * reports and history.  The sweeps it runs lock their run directories
 * too. */
static int lock_root(const nightly_opts *o)
{
    int fd;
    gdt_error e = {0};
    gdt_status s = gdt_dir_lock(o->root, VERB, "two nights on one root would sweep, stage and "
                                "report over each other", &fd, &e);
    if (s != GDT_STATUS_OK)
        return fprintf(stderr, VERB ": %s\n", e.msg), gdt_status_exit_code(s);
    return -1; /* fd stays open (close-on-exec) until the night ends */
}

/* The JSON document at path, NULL when there is none or it does not parse. */
/* The confirmation's verdicts counted, from its JSON (NULL: no rounds). */
static cJSON *verdict_counts(const cJSON *conf)
{
    if (!conf) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject(), *c;
    int n[3] = {0, 0, 0};
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(conf, "changes"))
        for (int v = 0; v < 3; v++)
            n[v] += !strcmp(str_at(c, "verdict", NULL), gdt_confirm_verdict_name((gdt_confirm_verdict)v));
    for (int v = 0; v < 3; v++)
        cJSON_AddNumberToObject(o, gdt_confirm_verdict_name((gdt_confirm_verdict)v), n[v]);
    return o;
}

static void add_path(cJSON *o, const char *key, const char *path)
{
    gdt_cli_json_add_text(o, key, exists(path) ? path : NULL);
}

/* --format json: the night in one document (gdtune.nightly/1) on stdout;
 * the night's exit status rc, or 1 when stdout cannot take it. */
static int summary_emit(const nightly_opts *o, const char *staging, const char *md, const char *json,
                        bool confirmed, int rc)
{
    char conf_path[4200], path[4200];
    report_path(o, ".confirm.json", conf_path, sizeof conf_path);
    cJSON *doc = cJSON_CreateObject(), *fams = cJSON_AddArrayToObject(doc, "families");
    cJSON_AddStringToObject(doc, "schema", "gdtune.nightly/1");
    cJSON_AddStringToObject(doc, "date", o->date);
    for (int f = 0; f < 2; f++)
        if (o->families & (1u << f)) cJSON_AddItemToArray(fams, cJSON_CreateString(family_names[f]));
    cJSON_AddNumberToObject(doc, "exit_code", rc);
    cJSON_AddStringToObject(doc, "root", o->root);
    cJSON_AddStringToObject(doc, "staging", staging);
    add_path(doc, "report", md);
    add_path(doc, "report_json", json);
    add_path(doc, "confirm_json", confirmed ? conf_path : "");
    snprintf(path, sizeof path, "%s/" GDT_NIGHTLY_MD, staging);
    add_path(doc, "nightly_md", path);
    snprintf(path, sizeof path, "%s/history.tsv", o->root);
    add_path(doc, "history", path);
    cJSON_AddBoolToObject(doc, "updated", o->update && rc != GDT_SWEEP_EXIT_INCORRECT);
    cJSON *diff = gdt_cli_json_read(json), *conf = confirmed ? gdt_cli_json_read(conf_path) : NULL;
    const cJSON *sum = cJSON_GetObjectItem(diff, "summary");
    cJSON_AddItemToObject(doc, "diff", sum ? cJSON_Duplicate(sum, true) : cJSON_CreateNull());
    cJSON_AddItemToObject(doc, "device_changed", device_changes(diff));
    cJSON_AddItemToObject(doc, "confirmation", verdict_counts(conf));
    cJSON_Delete(diff);
    cJSON_Delete(conf);
    int out = gdt_cli_json_emit(VERB, doc);
    return out ? out : rc;
}

int gdt_cli_nightly(int argc, char **argv)
{
    nightly_opts o = {.confirm_rounds = GDT_CONFIRM_ROUNDS_DEFAULT};
    char date[9], staging[4096], md[4096], json[4096];
    const char *pos;
    int npos, rc = gdt_cli_parse(&spec, argc, argv, &o, &pos, 0, &npos);
    if (rc >= 0)
        return rc;
    if ((rc = plant_check(&o)) >= 0)
        return rc;
    if (!o.families) o.families = NF_GEMM | NF_SDPA;
    if (!o.date) today_utc(date), o.date = date;
    if ((rc = make_dirs(&o)) >= 0 || (rc = lock_root(&o)) >= 0)
        return rc;
    night_staging(&o, staging, sizeof staging);
    report_path(&o, ".md", md, sizeof md);
    report_path(&o, ".json", json, sizeof json);
    bool incorrect = false;
    for (int f = 0; f < 2; f++) {
        if (!(o.families & (1u << f))) continue;
        rc = sweep_family(&o, f, staging);
        incorrect = incorrect || rc == GDT_SWEEP_EXIT_INCORRECT;
        if (rc && rc != GDT_SWEEP_EXIT_INCORRECT)
            return rc;
    }
    bool confirmed;
    rc = report(&o, staging, md, json, &confirmed);
    bool reported = rc == 0 || rc == 3;
    if (reported && o.update && !incorrect) {
        int ru = update_tables(&o, staging);
        if (ru) return ru;
    }
    rc = reported && incorrect ? GDT_SWEEP_EXIT_INCORRECT : rc;
    if (reported && o.format == FMT_JSON)
        return summary_emit(&o, staging, md, json, confirmed, rc);
    if (reported)
        printf("report: %s\nnightly report: %s/" GDT_NIGHTLY_MD "\n", md, staging);
    return rc;
}
