/* `gdtune plans`: the ranked plan list libgdtune would try for one shape.
 * Without a GPU the BACKEND marker stays unexpanded and nothing touches the
 * device beyond asking how many there are. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <limits.h>

#include "cli.h"
#include "gdt_cli_csv.h"
#include "gdt_cli_options.h"
#include "gdt_cuda.h"
#include "gdt_engines.h"
#include "gdt_util.h"
#include "gdtune/plan.h"

#define VERB "gdtune plans"

static const char usage_text[] =
    "usage: gdtune plans FAMILY [--shape k=v,...] [--arch smXY] [--tables DIR]\n"
    "                    [--mode A|B|FALLBACK|OPENSOURCE]... [--tuning-config FILE]\n"
    "                    [--format text|json|csv]\n"
    "\n"
    "Prints the ranked plan list libgdtune would try for one problem: index, plan name\n"
    "engine[K=V, ...], the mode block, where the entry came from and its time:\n"
    "measured (a swept cell), predicted by the tables' time model, or untimed.  BACKEND(mode)\n"
    "stands for the cuDNN backend's block; it is expanded when a GPU is present and\n"
    "--arch is that GPU's arch.  Each plan's side: ours, the backend's, or the library's\n"
    "(cuBLASLt, listed on the GPU by its heuristic).  FAMILY is gemm, sdpa_fwd, sdpa_bwd,\n"
    "or sdpa (both).  \"mode A's first\" says why mode A's first entry is first: measured\n"
    "(a swept cell), predicted (its lead over the backend heuristic's first beyond the\n"
    "model's interval at the shape's distance from the swept cells), or the backend's\n"
    "heuristic (the predicted lead within that error).\n";

typedef struct plans_args {
    unsigned families;
    const char *arch, *tables, *tuning_config;
    char shape[1024];    /* merged --shape; "": the family's default */
    int arch_num;        /* parsed --arch; 0: none given */
    gdt_mode modes[GDT_MODE_COUNT];
    int nmodes;
    int format;
} plans_args;

static bool add_mode(void *opts, const char *v, char *why, size_t nwhy)
{
    plans_args *a = opts;
    gdt_error e;
    if (a->nmodes == GDT_MODE_COUNT)
        return snprintf(why, nwhy, "at most %d mode blocks", GDT_MODE_COUNT), false;
    if (gdt_mode_parse(v, &a->modes[a->nmodes], &e)) return snprintf(why, nwhy, "%s", e.msg), false;
    a->nmodes++;
    return true;
}

static const gdt_cli_option options[] = {
    GDT_CLI_OPT_SHAPE(plans_args, shape, "the problem (default: the family's default shape);\n"
                                         "repeatable (keys merge)"),
    {"--arch", NULL, GDT_CLI_STRING, offsetof(plans_args, arch), .metavar = "smXY",
     .help = "target arch (default: the GPU's, else sm90)"},
    {"--tables", NULL, GDT_CLI_DIR, offsetof(plans_args, tables), .metavar = "DIR",
     .help = "placement/tuning tables root, read as DIR/smXY/FAMILY.*.json\n"
             "(default: the first of $GDTUNE_TABLES_PATH, ./tables and the\n"
             "installed share/gdtune/tables that holds them; none: untimed\n"
             "order, with a warning naming each place searched)"},
    {"--mode", NULL, GDT_CLI_CUSTOM, .parse = add_mode, .metavar = "M",
     .help = "a mode block, in order; repeatable (default: A)"},
    {"--tuning-config", NULL, GDT_CLI_STRING, offsetof(plans_args, tuning_config), .metavar = "FILE",
     .help = "candidate rows overriding the embedded defaults per family"},
    GDT_CLI_OPT_FORMAT(plans_args, format),
};

static const gdt_cli_spec spec = {
    VERB, usage_text, "exit codes: 0 success, 1 failure while running, 2 bad usage or bad input\n",
    options, GDT_CLI_NOPTS(options)};

static const char *shape_arg(const plans_args *a) { return a->shape[0] ? a->shape : NULL; }

/* What can be judged without the device is judged before it is asked
 * anything: the arch, the shape of every family named, --tables. */
static int check_args(plans_args *a)
{
    gdt_error e;
    gdt_problem p;
    if (a->arch && gdt_arch_parse(a->arch, &a->arch_num, &e))
        return gdt_cli_usage_error(VERB, "--arch: %s", e.msg);
    if (a->arch && !gdt_arch_limits(a->arch_num, NULL))
        return gdt_cli_usage_error(VERB, "--arch %s: no per-arch limits for it", a->arch);
    for (int f = 0; f < GDT_FAMILY_COUNT; f++)
        if ((a->families & (1u << f)) && gdt_problem_parse((gdt_family)f, shape_arg(a), &p, &e))
            return fprintf(stderr, VERB ": %s\n", e.msg), 2;
    if (a->tables && access(a->tables, F_OK) == 0 && !gdt_path_is_dir(a->tables))
        return gdt_cli_usage_error(VERB, "--tables %s: Not a directory (expected the tables root)",
                                   a->tables);
    return 0;
}

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, plans_args *a)
{
    const char *family = NULL;
    int npos, rc = gdt_cli_parse(&spec, argc, argv, a, &family, 1, &npos);
    if (rc >= 0) return rc;
    if (!family) return gdt_cli_usage_error(VERB, "missing FAMILY (gemm, sdpa_fwd, sdpa_bwd or sdpa)");
    gdt_error e;
    if (gdt_family_parse_set(family, &a->families, &e)) return gdt_cli_usage_error(VERB, "%s", e.msg);
    return check_args(a) ? 2 : -1;
}

/* ------------------------------------------------------------ the device */

static gdt_status device_arch(int *arch, gdt_error *e)
{
    int major = 0, minor = 0;
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    GDT_CHECK_CUDA(e, cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
    *arch = major * 10 + minor;
    return GDT_STATUS_OK;
}

/* The backend as the planner sees it, wrapped so that a list() failure is
 * remembered and printed beside the marker it left unexpanded. */
typedef struct recorder {
    const gdt_backend *real;
    char note[GDT_MODE_COUNT][GDT_ERROR_MAX];
} recorder;

static gdt_status recording_list(void *ctx, const gdt_facts *f, gdt_mode mode, gdt_plan_entry **out,
                                 int *n, gdt_error *e)
{
    recorder *r = ctx;
    gdt_status s = r->real->list(r->real->ctx, f, mode, out, n, e);
    if (s && (unsigned)mode < GDT_MODE_COUNT)
        snprintf(r->note[mode], sizeof r->note[mode], "%s", e ? e->msg : gdt_status_message(s));
    return s;
}

/* What the run knows about the device: the arch to plan for and, when the
 * GPU is that arch, the backend. */
typedef struct target {
    int arch;
    bool have_device;
    int device_arch;
    const char *unexpanded; /* why the marker stays, when no backend */
    recorder rec;
    gdt_backend backend;
} target;

static int pick_target(const plans_args *a, target *t)
{
    gdt_error e;
    memset(t, 0, sizeof *t);
    t->have_device = gdt__device_present() && device_arch(&t->device_arch, &e) == GDT_STATUS_OK;
    t->arch = a->arch_num ? a->arch_num : t->have_device ? t->device_arch : 90;
    const gdt_backend *real = t->have_device ? gdt_cudnn_backend() : NULL;
    if (!t->have_device) {
        t->unexpanded = "no GPU";
    } else if (t->arch != t->device_arch) {
        t->unexpanded = "--arch is not this GPU's arch";
    } else if (!real || !real->list) {
        t->unexpanded = "no backend";
    } else {
        t->rec.real = real;
        t->backend = (gdt_backend){.list = recording_list, .ops = real->ops, .ctx = &t->rec};
    }
    return 0;
}

/* What the planner warned about a slot that proposed nothing (a library
 * slot without its library or a device: cuBLASLt's heuristic runs on the
 * GPU).  Backend warnings are already said beside their marker. */
typedef struct slot_notes {
    int n;
    char msg[4][GDT_ERROR_MAX + 64];
} slot_notes;

static void note_warn(void *ctx, const char *msg)
{
    slot_notes *sn = ctx;
    if (strncmp(msg, "backend ", 8) && sn->n < 4) snprintf(sn->msg[sn->n++], sizeof sn->msg[0], "%s", msg);
}

/* ------------------------------------------------------------ the tables */

/* ctx NULL: the tables --tables named; else a place of the search path. */
static void search_warn(void *ctx, const char *msg)
{
    char text[2048];
    fprintf(stderr, VERB ": warning: tables %s: %s\n", ctx ? "passed over (the search goes on)" : "not used",
            gdt_text_escape(msg, text, sizeof text));
}

/* No place of the search holds the family's tables: said on stderr, each
 * place with what it lacks, so that an untimed order is never read as a
 * ranking.  The exit status stays 0: no tables is a state libgdtune
 * dispatches in as well (the untimed order), and the output says so. */
typedef struct unfound {
    gdt_family f;
    int arch;
} unfound;

/* dir as an absolute path, also when it does not exist (./tables). */
static const char *absolute(const char *dir, char *abs, size_t n)
{
    char here[PATH_MAX];
    if (realpath(dir, abs)) return abs;
    if (dir[0] != '/' && getcwd(here, sizeof here) && snprintf(abs, n, "%s/%s", here, dir) < (int)n) return abs;
    return dir;
}

static bool say_place(void *ctx, const char *dir, const char *origin)
{
    const unfound *u = ctx;
    char abs[PATH_MAX], file[PATH_MAX + 64], why[128], shown[2048], from[2048];
    struct stat st;
    snprintf(why, sizeof why, "absent");
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        snprintf(why, sizeof why, "not a folder");
    } else if (stat(dir, &st) == 0) {
        snprintf(file, sizeof file, "%s/sm%d/%s.placement.json", dir, u->arch, gdt_family_name(u->f));
        if (gdt_path_is_file(file))
            snprintf(why, sizeof why, "its tables were refused (see the warning above)");
        else
            snprintf(why, sizeof why, "holds no sm%d/%s.placement.json", u->arch, gdt_family_name(u->f));
    }
    fprintf(stderr, "  %s (%s): %s\n", gdt_text_escape(absolute(dir, abs, sizeof abs), shown, sizeof shown),
            gdt_text_escape(origin, from, sizeof from), why);
    return false;
}

static void say_unfound(gdt_family f, int arch)
{
    unfound u = {.f = f, .arch = arch};
    fprintf(stderr, VERB ": warning: no %s tables for sm%d in any place searched, so the order below is "
            "untimed (name the folder with --tables or GDTUNE_TABLES_PATH); the places, in order:\n",
            gdt_family_name(f), arch);
    gdt_tables_search_places(say_place, &u);
}

/* A table that fails to load is a warning; the untimed order is used.
 * Without --tables, a place of the search path whose tables are refused
 * is passed over with a warning and the next place tried; none found is
 * a warning naming every place. */
static gdt_tables *load_tables(const plans_args *a, gdt_family f, int arch, char *note, size_t n)
{
    char found[4096], abs[PATH_MAX], shown[2048];
    gdt_tables *t = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    if (!a->tables) {
        gdt_tables_search how = {.warn = search_warn, .ctx = "search", .out = &t};
        if (gdt_tables_search_path(f, arch, &how, found, sizeof found))
            snprintf(note, n, "%s/sm%d/%s.{placement,tuning}.json", gdt_text_escape(found, shown, sizeof shown),
                     arch, gdt_family_name(f));
        else {
            snprintf(note, n, "none found (untimed order; the places searched are on stderr)");
            say_unfound(f, arch);
        }
        return t;
    }
    const char *dir = a->tables;
    gdt_text_escape(realpath(dir, abs) ? abs : dir, shown, sizeof shown);
    if (!gdt_path_is_dir(a->tables))
        fprintf(stderr, VERB ": warning: --tables %s: not a directory\n", shown);
    gdt_status s = gdt_tables_load(dir, f, arch, &t, &e);
    if (s == GDT_STATUS_OK) snprintf(note, n, "%s/sm%d/%s.{placement,tuning}.json", shown, arch, gdt_family_name(f));
    else if (s == GDT_STATUS_NOT_SUPPORTED) snprintf(note, n, "none under %s (untimed order)", shown);
    else {
        search_warn(NULL, e.msg);
        snprintf(note, n, "refused (see warning; untimed order)");
    }
    return t;
}

/* Tables measured with other candidate rows than the ones planned with: a
 * generated plan they do not name (a row added, a column added) ranks in
 * the untimed order until the next sweep.  Said, not refused. */
static void stale_rows_note(const gdt_tables *tables, const gdt_row_table *rows, char *note, size_t n)
{
    const gdt_provenance *prov = gdt_tables_provenance(tables);
    gdt_row_table *def = NULL;
    char now[65] = "";
    if (!prov || !prov->candidates_digest[0]) return;
    if (!rows && gdt_rows_load_default(&def, NULL) == GDT_STATUS_OK) rows = def;
    if (rows) gdt_rows_digest(rows, now);
    gdt_rows_destroy(def);
    if (!now[0] || !strcmp(now, prov->candidates_digest)) return;
    size_t used = strlen(note);
    snprintf(note + used, n - used, "\n  (measured with candidate rows %.12s, planned with %.12s: a generated "
             "plan the tables do not name keeps its untimed place)", prov->candidates_digest, now);
}

/* A shape of a dtype, layout or mask no swept cell has: the model's
 * features do not hold those, so what it predicts is carried over from
 * the shapes that were swept. */
static void extrapolation_note(const gdt_tables *tables, const gdt_facts *f, char *note, size_t n)
{
    gdt_model_cv cv;
    if (!tables || !f || !gdt_tables_model_cv(tables, &cv) || gdt_tables_group_swept(tables, f)) return;
    size_t used = strlen(note);
    used += (size_t)snprintf(note + used, n - used, "\n  (no swept cell has this shape's combination of ");
    for (int i = 0; gdt_tables_group_field(f->family, i) && used < n; i++)
        used += (size_t)snprintf(note + used, n - used, "%s%s", i ? ", " : "", gdt_tables_group_field(f->family, i));
    if (used < n)
        snprintf(note + used, n - used, ": its predicted times extrapolate from the swept ones)");
}

/* ------------------------------------------------------------ the output */

/* Why a BACKEND marker stayed unexpanded. */
static const char *marker_why(const gdt_plan_entry *x, const target *t)
{
    return (unsigned)x->mode < GDT_MODE_COUNT && t->rec.note[x->mode][0] ? t->rec.note[x->mode]
           : t->unexpanded                                              ? t->unexpanded
                                                                        : "backend listed nothing";
}

static const char *const time_sources[] = {"untimed", "measured", "predicted"};

/* "measured 12.8 us", "19.1 us predicted from cells (11 measured it, nearest KEY; noise 6.4%)",
 * "untimed": the text of the JSON's time_us, noise, time_cells and time_nearest. */
static void time_text(const gdt_plan_time *pt, char *buf, size_t n)
{
    char near[512];
    if (pt->source == GDT_TIME_MEASURED)
        snprintf(buf, n, "measured %.6g us", pt->time_us);
    else if (pt->source == GDT_TIME_PREDICTED)
        snprintf(buf, n, "%.6g us predicted from cells (%d measured it, nearest %s; noise %.1f%%)",
                 pt->time_us, pt->ncells, gdt_text_escape(pt->nearest, near, sizeof near), 100 * pt->error);
    else
        snprintf(buf, n, "untimed");
}

static gdt_plan_side entry_side(const gdt_plan_entry *x)
{
    return x->is_backend ? GDT_PLAN_SIDE_BACKEND : gdt_engine_side(NULL, x->id.engine_id);
}

/* By gdt_plan_side: what the text line says after the why. */
static const char *const side_text[] = {"", ", backend", ", library"};
_Static_assert(sizeof side_text / sizeof *side_text == GDT_PLAN_SIDE_COUNT, "one text per side");

static void print_entry(int i, const gdt_plan_entry *x, const target *t, const gdt_tables *tables,
                        const gdt_facts *f)
{
    if (x->is_marker) {
        printf("%4d  BACKEND(%s) \xe2\x80\x94 unexpanded: %s\n", i, gdt_mode_name(x->mode),
               marker_why(x, t));
        return;
    }
    char name[1024], when[512];
    gdt_plan_time pt;
    gdt_tables_plan_time(tables, f, &x->id, &pt);
    time_text(&pt, when, sizeof when);
    gdt_plan_id_format(&x->id, name, sizeof name);
    printf("%4d  %-64s  %s, %s%s; %s\n", i, name, gdt_mode_name(x->mode), x->why ? x->why : "",
           side_text[entry_side(x)], when);
}

/* Why mode A's first entry is first, in words. */
static void first_text(const gdt_first_reason *r, char *buf, size_t n)
{
    char lead[160] = "";
    if (r->source == GDT_FIRST_PREDICTED || r->source == GDT_FIRST_HEURISTIC) {
        if (isnan(r->lead))
            snprintf(lead, sizeof lead, "no lead predicted");
        else
            snprintf(lead, sizeof lead, "lead %+.1f%%, interval \xc2\xb1%.1f%% at distance %.3g", 100 * r->lead,
                     100 * r->width, r->distance);
    }
    switch (r->source) {
    case GDT_FIRST_MEASURED: snprintf(buf, n, "measured (a swept cell)"); break;
    case GDT_FIRST_PREDICTED:
        snprintf(buf, n, "predicted: %s ahead of the backend heuristic's first (%s)",
                 r->ours ? "ours" : "a backend config", lead);
        break;
    case GDT_FIRST_HEURISTIC:
        snprintf(buf, n, "the backend's heuristic: no predicted lead beyond the model's error (%s)", lead);
        break;
    case GDT_FIRST_SHARD: snprintf(buf, n, "a shard's decision (the tables have no model for it)"); break;
    default: snprintf(buf, n, "untimed order (no tables)"); break;
    }
}

static const char *const first_sources[] = {"untimed", "measured", "predicted", "heuristic", "shard"};

/* "first": why mode A's first entry is first (null: no mode-A block). */
static void first_json(cJSON *o, const gdt_graph *g)
{
    gdt_first_reason r;
    if (!gdt_graph_first_reason(g, &r)) {
        cJSON_AddNullToObject(o, "first");
        return;
    }
    cJSON *x = cJSON_CreateObject();
    bool pred = r.source == GDT_FIRST_PREDICTED || r.source == GDT_FIRST_HEURISTIC;
    cJSON_AddStringToObject(x, "source", first_sources[r.source]);
    cJSON_AddItemToObject(x, "ours", pred ? cJSON_CreateBool(r.ours) : cJSON_CreateNull());
    cJSON_AddItemToObject(x, "lead", pred && !isnan(r.lead) ? cJSON_CreateNumber(r.lead) : cJSON_CreateNull());
    cJSON_AddItemToObject(x, "interval", pred && isfinite(r.width) ? cJSON_CreateNumber(r.width) : cJSON_CreateNull());
    cJSON_AddItemToObject(x, "distance", pred && isfinite(r.distance) ? cJSON_CreateNumber(r.distance)
                                                                       : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "first", x);
}

static int print_modes(const plans_args *a, char *buf, size_t n)
{
    int w = 0;
    for (int i = 0; i < (a->nmodes ? a->nmodes : 1); i++)
        w += snprintf(buf + w, n - (size_t)w, "%s%s", i ? " " : "",
                      gdt_mode_name(a->nmodes ? a->modes[i] : GDT_MODE_A));
    return w;
}

/* time_us, time_source, noise (relative: the measured noise, or the
 * model's cross-validated median error), time_cells and
 * time_nearest (predicted only); null where they do not apply. */
static void time_json(cJSON *o, const gdt_plan_time *pt)
{
    bool timed = pt->source != GDT_TIME_UNTIMED, predicted = pt->source == GDT_TIME_PREDICTED;
    cJSON_AddItemToObject(o, "time_us", timed ? cJSON_CreateNumber(pt->time_us) : cJSON_CreateNull());
    cJSON_AddStringToObject(o, "time_source", time_sources[pt->source]);
    cJSON_AddItemToObject(o, "noise", timed ? cJSON_CreateNumber(pt->error) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "time_cells", predicted ? cJSON_CreateNumber(pt->ncells) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "time_nearest", predicted ? cJSON_CreateString(pt->nearest) : cJSON_CreateNull());
}

static cJSON *entry_json(int i, const gdt_plan_entry *x, const target *t, const gdt_tables *tables,
                         const gdt_facts *f)
{
    cJSON *o = cJSON_CreateObject();
    char name[1024];
    cJSON_AddNumberToObject(o, "index", i);
    cJSON_AddStringToObject(o, "mode", gdt_mode_name(x->mode));
    cJSON_AddBoolToObject(o, "marker", x->is_marker);
    if (x->is_marker) {
        cJSON_AddStringToObject(o, "unexpanded", marker_why(x, t));
        return o;
    }
    gdt_plan_id_format(&x->id, name, sizeof name);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "engine_id", (double)x->id.engine_id);
    cJSON_AddStringToObject(o, "why", x->why ? x->why : "");
    cJSON_AddBoolToObject(o, "backend", x->is_backend);
    cJSON_AddStringToObject(o, "side", gdt_plan_side_label(entry_side(x)));
    gdt_plan_time pt;
    gdt_tables_plan_time(tables, f, &x->id, &pt);
    time_json(o, &pt);
    return o;
}

static void family_json(cJSON *doc, gdt_family f, const char *key, const char *note, const gdt_graph *g,
                        const target *t, const slot_notes *sn, const gdt_tables *tables)
{
    cJSON *o = cJSON_CreateObject(), *plans = cJSON_CreateArray(), *notes = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "family", gdt_family_name(f));
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddStringToObject(o, "tables", note);
    for (int i = 0; i < gdt_graph_plan_count(g); i++)
        cJSON_AddItemToArray(plans, entry_json(i, gdt_graph_plan_at(g, i), t, tables, gdt_graph_facts(g)));
    cJSON_AddItemToObject(o, "plans", plans);
    first_json(o, g);
    for (int i = 0; i < sn->n; i++) cJSON_AddItemToArray(notes, cJSON_CreateString(sn->msg[i]));
    cJSON_AddItemToObject(o, "not_listed", notes);
    cJSON_AddItemToArray(cJSON_GetObjectItem(doc, "families"), o);
}

static cJSON *new_doc(const plans_args *a, const target *t)
{
    cJSON *doc = cJSON_CreateObject(), *modes = cJSON_CreateArray();
    char arch[16];
    snprintf(arch, sizeof arch, "sm%d", t->arch);
    cJSON_AddStringToObject(doc, "schema", "gdtune.plans/2");
    cJSON_AddStringToObject(doc, "arch", arch);
    for (int i = 0; i < (a->nmodes ? a->nmodes : 1); i++)
        cJSON_AddItemToArray(modes, cJSON_CreateString(gdt_mode_name(a->nmodes ? a->modes[i] : GDT_MODE_A)));
    cJSON_AddItemToObject(doc, "modes", modes);
    cJSON_AddArrayToObject(doc, "families");
    return doc;
}

/* doc: the document under --format json, else NULL (text). */
static int plan_family(const plans_args *a, gdt_family f, const gdt_row_table *rows, target *t,
                       cJSON *doc)
{
    gdt_problem p;
    gdt_error e;
    gdt_error_clear(&e);
    if (gdt_problem_parse(f, shape_arg(a), &p, &e)) return fprintf(stderr, VERB ": %s\n", e.msg), 2;
    gdt_device_props dev;
    if (!gdt_arch_limits(t->arch, &dev))
        return fprintf(stderr, VERB ": --arch sm%d: no per-arch limits for it\n", t->arch), 2;
    char key[256], note[4200], modes[64], esc[2048];
    gdt_problem_key(&p, key, sizeof key);
    gdt_tables *tables = load_tables(a, f, t->arch, note, sizeof note);
    stale_rows_note(tables, rows, note, sizeof note);
    slot_notes sn = {0};
    gdt_plan_options o = {.rows = rows, .tables = tables, .nmodes = a->nmodes,
                          .backend = t->rec.real ? &t->backend : NULL, .warn = note_warn, .warn_ctx = &sn};
    memcpy(o.modes, a->modes, sizeof o.modes);
    gdt_graph *g = NULL;
    gdt_status s = gdt_graph_create(&p, &dev, &g, &e);
    if (!s) s = gdt_graph_plan(g, &o, &e);
    if (!s) extrapolation_note(tables, gdt_graph_facts(g), note, sizeof note);
    print_modes(a, modes, sizeof modes);
    if (!s && doc) {
        family_json(doc, f, key, note, g, t, &sn, tables);
    } else if (!s) {
        char why[512];
        gdt_first_reason r;
        printf("%s on sm%d, modes %s, tables: %s\n", key, t->arch, modes, note);
        if (gdt_graph_first_reason(g, &r)) first_text(&r, why, sizeof why), printf("  mode A's first: %s\n", why);
        for (int i = 0; i < gdt_graph_plan_count(g); i++)
            print_entry(i, gdt_graph_plan_at(g, i), t, tables, gdt_graph_facts(g));
        for (int i = 0; i < sn.n; i++) printf("      not listed: %s\n", gdt_text_escape(sn.msg[i], esc, sizeof esc));
    } else {
        fprintf(stderr, VERB ": %s\n", gdt_text_escape(e.msg, esc, sizeof esc));
    }
    gdt_graph_destroy(g);
    gdt_tables_destroy(tables);
    return gdt_status_exit_code(s);
}

static int load_rows(const plans_args *a, gdt_row_table **rows)
{
    gdt_error e;
    *rows = NULL;
    if (!a->tuning_config) return 0;
    gdt_status s = gdt_rows_load_default(rows, &e);
    if (!s) s = gdt_rows_override(*rows, a->tuning_config, &e);
    if (!s) return 0;
    fprintf(stderr, VERB ": --tuning-config: %s\n", e.msg);
    gdt_rows_destroy(*rows);
    *rows = NULL;
    return s == GDT_STATUS_IO ? 2 : gdt_status_exit_code(s);
}

/* --format csv: one line per entry of each family's list. */
static const gdt_cli_csv_col csv_cols[] = {
    {"family", 0, "family"}, {"key", 0, "key"}, {"tables", 0, "tables"},
    {"index", 1, "index"},   {"mode", 1, "mode"},       {"marker", 1, "marker"},
    {"name", 1, "name"},     {"engine_id", 1, "engine_id"}, {"why", 1, "why"},         {"backend", 1, "backend"},
    {"side", 1, "side"},     {"unexpanded", 1, "unexpanded"}, {"time_us", 1, "time_us"},     {"time_source", 1, "time_source"},
    {"noise", 1, "noise"}, {"time_cells", 1, "time_cells"}, {"time_nearest", 1, "time_nearest"},
};
static const gdt_cli_csv_view csv_view = {{"families", "plans"}, 2, csv_cols,
                                          sizeof csv_cols / sizeof csv_cols[0]};

int gdt_cli_plans(int argc, char **argv)
{
    plans_args a = {0};
    target t;
    gdt_row_table *rows = NULL;
    cJSON *doc = NULL;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;
    rc = load_rows(&a, &rows);
    if (!rc) rc = pick_target(&a, &t);
    if (!rc && a.format != GDT_CLI_FORMAT_TEXT) doc = new_doc(&a, &t);
    for (int f = 0, n = 0; !rc && f < GDT_FAMILY_COUNT; f++)
        if (a.families & (1u << f)) {
            if (n++ && !doc) printf("\n");
            rc = plan_family(&a, (gdt_family)f, rows, &t, doc);
        }
    gdt_rows_destroy(rows);
    if (doc && !rc) return gdt_cli_doc_emit(VERB, doc, a.format, &csv_view, 1);
    cJSON_Delete(doc);
    return rc;
}
