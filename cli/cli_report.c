/* `gdtune report RUNDIR`: rebuilds raw.h5 from the journal and writes
 * RUNDIR/report/summary.md, plus gnuplot figures when gnuplot is installed
 * (reports/report_figures.c: the overviews, per cell the verified plans of
 * each kind and burst curves). */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gdt_budget.h"
#include "gdt_cell_top.h"
#include "gdt_ceiling.h"
#include "gdt_clocks.h"
#include "gdt_cli_csv.h"
#include "gdt_cli_options.h"
#include "gdt_cli_reproduce.h"
#include "gdt_markdown.h"
#include "gdt_mfile.h"
#include "gdt_plan_figures.h"
#include "gdt_rawh5.h"
#include "gdt_report_figures.h"
#include "gdt_run.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

/* The run as the journal's model holds it (gdt_run.h): the same strict
 * reader as `tables emit`. */
typedef struct report {
    gdt_run *run;
    char dir[PATH_MAX];
    int format; /* --format: GDT_CLI_FORMAT_TEXT, _JSON or _CSV */
} report;

/* Best verified plan of one side (ours, the backend's or a library's:
 * cuBLASLt) by the tables' times; -1 when none. */
static int best(const gdt_run_cell *c, gdt_plan_side want)
{
    int b = -1;
    for (int i = 0; i < c->nplans; i++)
        if (gdt_cell_verified(c, i) && gdt_engine_side(NULL, c->plan[i].id.engine_id) == want &&
            (b < 0 || gdt_run_plan_time(c, i) < gdt_run_plan_time(c, b)))
            b = i;
    return b;
}

static double tflops(const gdt_run_cell *c, int i)
{
    return gdt_problem_flops(&c->spec->problem) / (gdt_run_plan_time(c, i) * 1e-6) / 1e12;
}

static void side(FILE *f, const gdt_run_cell *c, int i)
{
    if (i < 0) {
        fprintf(f, " — | — |");
        return;
    }
    fputc(' ', f);
    gdt_md_code(f, c->plan[i].name);
    fprintf(f, " | %.2f us ± %.1f%%, %.1f TFLOP/s, host %.2f us |", gdt_run_plan_time(c, i),
            100 * c->result[i].noise, tflops(c, i), c->result[i].host_us);
}

/* Plans per disposition, and (last) those not run. */
static void counts(const gdt_run_cell *c, int n[GDT_DISP_COUNT + 1])
{
    memset(n, 0, sizeof(int) * (GDT_DISP_COUNT + 1));
    for (int i = 0; i < c->nplans; i++)
        n[c->result[i].journaled ? c->result[i].disposition : GDT_DISP_COUNT]++;
}

static bool converged(const gdt_run_cell *c, int i)
{
    return c->result[i].converged;
}

/* How many of the fastest three converged, out of how many there are: a
 * winner picked from estimates that never settled may be noise. */
static int top3_converged(const gdt_run_cell *c, int *ntop)
{
    int top[3], k = 0;
    *ntop = gdt_cell_top3(c, false, top);
    for (int t = 0; t < *ntop; t++)
        k += converged(c, top[t]);
    return k;
}

/* Verified plans of a cell that converged, and that were raced out. */
static void convergence(const gdt_run_cell *c, int *conv, int *raced)
{
    *conv = *raced = 0;
    for (int i = 0; i < c->nplans; i++)
        if (gdt_cell_verified(c, i)) {
            *conv += converged(c, i);
            *raced += c->result[i].raced_out;
        }
}

/* The placement the tables would make, by their own rule on the plans as
 * they take them (the spec's noise floor, a cell's rounds): LEAD when ours
 * beats the backend beyond the combined noise; TRAIL otherwise, saying
 * whether the backend's lead is beyond noise or within it. */
static const char *decision(const report *r, const gdt_run_cell *c, int o, int b)
{
    if (o < 0 || b < 0)
        return o < 0 ? "TRAIL (none of ours verified)" : "LEAD (no backend plan verified)";
    double floor = r->run->spec->noise_floor;
    gdt_measured_plan mo = gdt_run_plan_measured(c, o, floor), mb = gdt_run_plan_measured(c, b, floor);
    if (gdt_measured_beats(&mo, &mb))
        return "**LEAD**, beyond noise";
    return gdt_measured_beats(&mb, &mo) ? "TRAIL, beyond noise" : "TRAIL, within noise";
}

/* The run's count under the table: cells whose fastest three verified
 * plans all converged, of the cells with a verified plan. */
static void summary_top3_total(FILE *f, const report *r)
{
    int all = 0, cells = 0;
    for (int ci = 0; ci < r->run->ncells; ci++) {
        const gdt_run_cell *c = &r->run->cells[ci];
        if (!c->journaled)
            continue;
        int ntop, k = top3_converged(c, &ntop);
        if (!ntop)
            continue;
        cells++;
        all += k == ntop;
    }
    fprintf(f, "\n%d of %d cells' top three converged (a cell with fewer verified plans counts "
               "its fastest one or two).\n", all, cells);
}

/* "k/3", in bold when not all of the three converged. */
static const char *top3_cell(const gdt_run_cell *c)
{
    static char buf[32];
    int ntop, k = top3_converged(c, &ntop);
    snprintf(buf, sizeof buf, "%s%d/%d%s", k < ntop ? "**" : "", k, ntop, k < ntop ? "**" : "");
    return buf;
}

static void summary_cells(FILE *f, const report *r)
{
    fprintf(f, "| cell | family | shape | verified / incorrect / failed / declined / not run | "
               "top 3 converged | converged / raced out | best gdtune plan | time | best cuDNN plan | "
               "time | ratio: ours / cuDNN time (< 1: ours faster) | decision | best cuBLASLt plan | "
               "time |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    _Static_assert(GDT_DISP_COUNT == 4, "the table's columns name four dispositions");
    for (int ci = 0; ci < r->run->ncells; ci++) {
        const gdt_run_cell *c = &r->run->cells[ci];
        int n[GDT_DISP_COUNT + 1], conv, raced;
        if (!c->journaled)
            continue;
        counts(c, n);
        convergence(c, &conv, &raced);
        int o = best(c, GDT_PLAN_SIDE_OURS), b = best(c, GDT_PLAN_SIDE_BACKEND);
        fprintf(f, "| %d | %s | %s | %d / %s%d%s / %s%d%s / %d / %d | %s | %d / %d |", ci,
                gdt_family_name(c->spec->family), c->spec->shape, n[GDT_DISP_VERIFIED],
                n[GDT_DISP_INCORRECT] ? "**" : "", n[GDT_DISP_INCORRECT], n[GDT_DISP_INCORRECT] ? "**" : "",
                n[GDT_DISP_FAILED] ? "**" : "", n[GDT_DISP_FAILED], n[GDT_DISP_FAILED] ? "**" : "",
                n[GDT_DISP_DECLINED], n[GDT_DISP_COUNT], top3_cell(c), conv, raced);
        side(f, c, o);
        side(f, c, b);
        if (o >= 0 && b >= 0)
            fprintf(f, " %.3f |", gdt_run_plan_time(c, o) / gdt_run_plan_time(c, b));
        else
            fprintf(f, " — |");
        fprintf(f, " %s |", decision(r, c, o, b));
        side(f, c, best(c, GDT_PLAN_SIDE_LIBRARY));
        fputc('\n', f);
    }
    summary_top3_total(f, r);
}

/* The command that measures each cell's best plan of each side again on a
 * GPU (gdtune bench), a cell's lines under its index and shape. */
static void summary_again(FILE *f, const report *r)
{
    static const gdt_plan_side sides[] = {GDT_PLAN_SIDE_OURS, GDT_PLAN_SIDE_BACKEND, GDT_PLAN_SIDE_LIBRARY};
    char cmd[1400];
    fprintf(f, "\n## Measure a cell's best plans again\n\nEach cell's best gdtune, cuDNN and cuBLASLt "
               "plan, as `gdtune bench` measures one plan on a GPU:\n\n```sh\n");
    for (int ci = 0; ci < r->run->ncells; ci++) {
        const gdt_run_cell *c = &r->run->cells[ci];
        if (!c->journaled)
            continue;
        fprintf(f, "# cell %d: %s\n", ci, c->spec->shape);
        for (size_t k = 0; k < sizeof sides / sizeof *sides; k++) {
            int i = best(c, sides[k]);
            if (i >= 0 && gdt_cli_reproduce(cmd, sizeof cmd, gdt_family_name(c->spec->family), c->spec->shape,
                                            c->plan[i].name))
                fprintf(f, "%s\n", cmd);
        }
    }
    fprintf(f, "```\n");
}

/* Incorrect and failed plans first and each by name: they must not be
 * missed. */
static void summary_failures(FILE *f, const report *r)
{
    fprintf(f, "\n## Plans incorrect or failed\n\n");
    int any = 0;
    for (int ci = 0; ci < r->run->ncells; ci++) {
        const gdt_run_cell *c = &r->run->cells[ci];
        for (int i = 0; i < c->nplans; i++) {
            gdt_disposition d = c->result[i].disposition;
            if (!c->result[i].journaled || (d != GDT_DISP_INCORRECT && d != GDT_DISP_FAILED))
                continue;
            char err[2048];
            fprintf(f, "- cell %d ", ci);
            gdt_md_code(f, c->plan[i].name);
            fprintf(f, ": **%s**: %.400s\n", gdt_disposition_name(d),
                    gdt_text_escape(c->result[i].error, err, sizeof err));
            any++;
        }
    }
    if (!any)
        fprintf(f, "None.\n");
}

/* A decline's reason without the plan's own name in front (the engines
 * say "NAME: declined: why"), so that equal reasons group. */
static const char *reason_of(const char *error, const char *name)
{
    size_t n = strlen(name);
    if (!strncmp(error, name, n) && !strncmp(error + n, ": ", 2))
        error += n + 2;
    const char *d = strstr(error, "declined: ");
    return d ? d + strlen("declined: ") : error;
}

typedef struct reason_count {
    const char *reason, *example;
    int n;
} reason_count;

static void summary_declines(FILE *f, const report *r)
{
    reason_count *v = NULL;
    int nv = 0, total = 0;
    for (int ci = 0; ci < r->run->ncells; ci++) {
        const gdt_run_cell *c = &r->run->cells[ci];
        for (int i = 0; i < c->nplans; i++) {
            if (!c->result[i].journaled || c->result[i].disposition != GDT_DISP_DECLINED)
                continue;
            const char *why = reason_of(c->result[i].error, c->plan[i].name);
            int k = 0;
            while (k < nv && strcmp(v[k].reason, why)) k++;
            if (k == nv) {
                reason_count *g = realloc(v, sizeof *v * (size_t)(nv + 1));
                if (!g)
                    break;
                v = g;
                v[nv++] = (reason_count){why, c->plan[i].name, 0};
            }
            v[k].n++;
            total++;
        }
    }
    fprintf(f, "\n## Declined plans by reason (%d)\n\n", total);
    for (int k = 0; k < nv; k++)
        fprintf(f, "- %d x %.300s (e.g. `%s`)\n", v[k].n, v[k].reason, v[k].example);
    if (!nv)
        fprintf(f, "None.\n");
    free(v);
}

/* A line at the top when any plan was incorrect or failed. */
static void summary_banner(FILE *f, const report *r)
{
    int bad[GDT_DISP_COUNT + 1] = {0};
    for (int ci = 0; ci < r->run->ncells; ci++) {
        int n[GDT_DISP_COUNT + 1];
        if (!r->run->cells[ci].journaled)
            continue;
        counts(&r->run->cells[ci], n);
        bad[GDT_DISP_INCORRECT] += n[GDT_DISP_INCORRECT];
        bad[GDT_DISP_FAILED] += n[GDT_DISP_FAILED];
    }
    if (bad[GDT_DISP_INCORRECT] || bad[GDT_DISP_FAILED])
        fprintf(f, "> **%d plans INCORRECT, %d FAILED**: each is listed under \"Plans incorrect or "
                   "failed\" below.\n\n", bad[GDT_DISP_INCORRECT], bad[GDT_DISP_FAILED]);
}

/* "- run as `gdtune sweep ...`": the header's argv, when the journal has
 * one (journals before 2026-12-06 do not) and it fits. */
static void summary_invocation(FILE *f, const gdt_run *run)
{
    char cmd[4096];
    if (run->argc && run->argc < 64 &&
        gdt_cli_command_line(cmd, sizeof cmd, run->args, run->argc))
        fprintf(f, "- run as `%s`\n", cmd);
}

static void summary_header(FILE *f, const report *r)
{
    const gdt_run *run = r->run;
    const gdt_run_device *d = &run->dev;
    fprintf(f, "# gdtune sweep %s\n\n", run->family);
    char name[512], uuid[256];
    fprintf(f, "- device: %s (sm%d, %d SMs, UUID %s), driver %d, CUDA %d, cuDNN %d, NVRTC %d\n",
            gdt_text_escape(d->name, name, sizeof name), d->arch, d->sm_count,
            gdt_text_escape(d->uuid, uuid, sizeof uuid), d->driver_version, d->cuda_version,
            d->cudnn_version, d->nvrtc_version);
    fprintf(f, "- gdtune %s, source digest %.16s, started %s\n", run->gdtune_version,
            run->source_digest, run->started);
    summary_invocation(f, run);
    fprintf(f, "- spec %s (digest %.16s%s), candidate table digest %.16s\n\n", run->spec->source,
            run->spec->digest, run->quick ? ", quick" : "", run->candidates_digest);
    fprintf(f, "Times are device time per call at the largest burst (median) with its relative "
               "spread (±); host is host enqueue per call at the first burst. Converged: plans "
               "whose largest burst (the metric) reached the target spread; raced out: plans "
               "stopped after a cheap first estimate, more than 2%% slower than the slower of the cell's third best "
               "and its kind's best, beyond both spreads (docs/racing.md); "
               "top 3 converged: how many of the cell's fastest three verified plans (either side) "
               "converged, in bold when not all did. "
               "Decision: the tables' rule (LEAD when the best gdtune plan beats the best cuDNN "
               "plan by more than their combined noise, each plan's noise at least the spec's noise "
               "floor, %.3g; a cell's rounds give their figures).\n\n", run->spec->noise_floor);
}

/* Where the time went (reports/budget.c). */
static void summary_budget(FILE *f, const report *r)
{
    gdt_budget b;
    gdt_budget_of(r->run, &b);
    gdt_budget_write_md(f, &b);
}

/* ------------------------------------------------- measured ceiling */

/* A cell with a verified plan of ours or of the backend: the ceiling table's rows. */
static bool has_plans_figure(const gdt_run_cell *c)
{
    return c->listed && (best(c, GDT_PLAN_SIDE_OURS) >= 0 || best(c, GDT_PLAN_SIDE_BACKEND) >= 0);
}

static double side_fraction(const gdt_run_cell *c, int i, const gdt_roofline *rl)
{
    return i < 0 ? NAN : gdt_roofline_fraction(rl, gdt_run_plan_time(c, i));
}

/* A cell's roofline and the fraction of it that the best plan of ours
 * (fr[0]) and of cuDNN (fr[1]) reach (NaN: none verified); false for a
 * cell with neither, which the table leaves out. */
static bool cell_fractions(const gdt_run_cell *c, const gdt_ceiling *cl, gdt_roofline *rl,
                           double fr[2])
{
    if (!has_plans_figure(c))
        return false;
    gdt_roofline_of(&c->spec->problem, cl, rl);
    fr[0] = side_fraction(c, best(c, GDT_PLAN_SIDE_OURS), rl);
    fr[1] = side_fraction(c, best(c, GDT_PLAN_SIDE_BACKEND), rl);
    return true;
}

static void fraction_cell(FILE *f, double x)
{
    if (isnan(x))
        fprintf(f, " — |");
    else
        fprintf(f, " %.3f |", x);
}

/* Per cell, how close each side's best plan comes to the device's measured
 * ceiling, by the bound (compute or memory) that is lower for the cell. */
static void summary_ceiling(FILE *f, const report *r)
{
    const gdt_ceiling *cl = gdt_ceiling_find(r->run->arch);
    fprintf(f, "\n## Fraction of the measured ceiling\n\n");
    if (!cl) {
        fprintf(f, "No measured ceiling for sm%d (reports/ceiling.c): none computed.\n", r->run->arch);
        return;
    }
    fprintf(f, "Measured ceiling, see docs/method.md (\"Fraction of the measured ceiling\"): %s (sm%d), "
               "%.0f TFLOP/s dense 16-bit, %.1f TB/s HBM. A cell's floor is the larger of its "
               "flops at that rate and its bytes (every operand read or written once) at that "
               "bandwidth; a plan's fraction is floor / its time.\n\n"
               "| cell | bound | GFLOP | MB moved | floor (us) | best gdtune | best cuDNN |\n"
               "|---|---|---|---|---|---|---|\n",
            cl->device, cl->arch, cl->dense_tflops, cl->hbm_tbps);
    for (int ci = 0; ci < r->run->ncells; ci++) {
        gdt_roofline rl;
        double fr[2];
        if (!cell_fractions(&r->run->cells[ci], cl, &rl, fr))
            continue;
        fprintf(f, "| %d | %s | %.3f | %.3f | %.3f |", ci, rl.memory_bound ? "memory" : "compute",
                rl.flops / 1e9, rl.bytes / 1e6, rl.floor_us);
        fraction_cell(f, fr[0]);
        fraction_cell(f, fr[1]);
        fputc('\n', f);
    }
}

static gdt_status write_summary(const report *r, const char *rdir, gdt_error *e)
{
    gdt_mfile m;
    gdt_status s = gdt_mfile_open(&m, rdir, "summary.md", e);
    if (s != GDT_STATUS_OK)
        return s;
    summary_header(m.f, r);
    summary_banner(m.f, r);
    summary_cells(m.f, r);
    summary_again(m.f, r);
    summary_failures(m.f, r);
    summary_declines(m.f, r);
    summary_budget(m.f, r);
    gdt_clocks_markdown(m.f, r->run);
    summary_ceiling(m.f, r);
    gdt_report_figures_markdown(m.f, r->run);
    return gdt_mfile_save(&m, rdir, "summary.md", e);
}

/* ------------------------------------------------------- --format json|csv */

/* --format csv: one line per cell of the summary. */
static const gdt_cli_csv_col csv_cols[] = {
    {"cell", 0, "cell"},
    {"key", 0, "key"},
    {"family", 0, "family"},
    {"shape", 0, "shape"},
    {"verified", 0, "counts.verified"},
    {"incorrect", 0, "counts.incorrect"},
    {"failed", 0, "counts.failed"},
    {"declined", 0, "counts.declined"},
    {"not_run", 0, "counts.not_run"},
    {"best_ours", 0, "best_ours.plan"},
    {"best_ours_engine_id", 0, "best_ours.engine_id"},
    {"best_ours_time_us", 0, "best_ours.time_us"},
    {"best_ours_tflops", 0, "best_ours.tflops"},
    {"best_backend", 0, "best_backend.plan"},
    {"best_backend_engine_id", 0, "best_backend.engine_id"},
    {"best_backend_time_us", 0, "best_backend.time_us"},
    {"best_backend_tflops", 0, "best_backend.tflops"},
    {"ratio", 0, "ratio"},
};
static const gdt_cli_csv_view csv_view = {{"cells"}, 1, csv_cols, sizeof csv_cols / sizeof csv_cols[0]};

static cJSON *side_json(const gdt_run_cell *c, int i)
{
    if (i < 0)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "plan", c->plan[i].name);
    cJSON_AddNumberToObject(o, "engine_id", (double)c->plan[i].id.engine_id);
    cJSON_AddNumberToObject(o, "time_us", gdt_run_plan_time(c, i));
    cJSON_AddNumberToObject(o, "noise", c->result[i].noise);
    cJSON_AddNumberToObject(o, "tflops", tflops(c, i));
    cJSON_AddNumberToObject(o, "host_us", c->result[i].host_us);
    return o;
}

static cJSON *cell_json(const gdt_run_cell *c, int ci)
{
    cJSON *o = cJSON_CreateObject(), *n = cJSON_CreateObject();
    int count[GDT_DISP_COUNT + 1];
    counts(c, count);
    char key[512];
    gdt_problem_key(&c->spec->problem, key, sizeof key);
    cJSON_AddNumberToObject(o, "cell", ci);
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddStringToObject(o, "family", gdt_family_name(c->spec->family));
    cJSON_AddStringToObject(o, "shape", c->spec->shape);
    for (int d = 0; d < GDT_DISP_COUNT; d++)
        cJSON_AddNumberToObject(n, gdt_disposition_name((gdt_disposition)d), count[d]);
    cJSON_AddNumberToObject(n, "not_run", count[GDT_DISP_COUNT]);
    cJSON_AddItemToObject(o, "counts", n);
    int ours = best(c, GDT_PLAN_SIDE_OURS), theirs = best(c, GDT_PLAN_SIDE_BACKEND);
    cJSON_AddItemToObject(o, "best_ours", side_json(c, ours));
    cJSON_AddItemToObject(o, "best_backend", side_json(c, theirs));
    if (ours >= 0 && theirs >= 0)
        cJSON_AddNumberToObject(o, "ratio", gdt_run_plan_time(c, ours) / gdt_run_plan_time(c, theirs));
    else
        cJSON_AddNullToObject(o, "ratio");
    cJSON_AddItemToObject(o, "metric_clock", gdt_clocks_json(c));
    return o;
}

/* The summary.md table as one document (docs/commands.md). */
static cJSON *summary_json(const report *r, const char *rdir)
{
    const gdt_run *run = r->run;
    char raw[PATH_MAX + 16], md[PATH_MAX + 32];
    cJSON *doc = cJSON_CreateObject(), *cells = cJSON_CreateArray();
    snprintf(raw, sizeof raw, "%s/raw.h5", r->dir);
    snprintf(md, sizeof md, "%s/summary.md", rdir);
    cJSON_AddStringToObject(doc, "schema", "gdtune.report/2");
    cJSON_AddStringToObject(doc, "family", run->family);
    cJSON_AddNumberToObject(doc, "arch", run->arch);
    cJSON_AddStringToObject(doc, "device", run->dev.name);
    cJSON_AddStringToObject(doc, "gdtune_version", run->gdtune_version);
    cJSON_AddStringToObject(doc, "source_digest", run->source_digest);
    cJSON_AddStringToObject(doc, "raw_h5", raw);
    cJSON_AddStringToObject(doc, "summary_md", md);
    for (int ci = 0; ci < run->ncells; ci++)
        if (run->cells[ci].journaled)
            cJSON_AddItemToArray(cells, cell_json(&run->cells[ci], ci));
    cJSON_AddItemToObject(doc, "cells", cells);
    gdt_budget b;
    gdt_budget_of(run, &b);
    gdt_budget_add_json(doc, &b);
    return doc;
}

/* ------------------------------------------------------------ the verb */

static gdt_status run_report(report *r, gdt_error *e)
{
    char rdir[PATH_MAX + 16];
    gdt_status s = gdt_run_load(r->dir, &r->run, e);
    if (s == GDT_STATUS_OK)
        s = gdt_rawh5_write(r->run, r->dir, e);
    snprintf(rdir, sizeof rdir, "%s/report", r->dir);
    if (s == GDT_STATUS_OK)
        s = gdt_mkdirs(rdir, e);
    if (s == GDT_STATUS_OK)
        s = write_summary(r, rdir, e);
    if (s == GDT_STATUS_OK)
        s = gdt_report_figures_write(r->run, rdir, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (r->format == GDT_CLI_FORMAT_TEXT)
        printf("%s/raw.h5\n%s/summary.md\n", r->dir, rdir);
    else if (gdt_cli_doc_emit("gdtune report", summary_json(r, rdir), r->format, &csv_view, 1))
        s = gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory for the JSON summary", rdir);
    return s;
}

static const char usage_text[] =
    "usage: gdtune report RUNDIR [--format text|json|csv]\n\nRebuilds RUNDIR/raw.h5 from "
    "RUNDIR/journal.jsonl and writes RUNDIR/report/summary.md\n(per cell: dispositions, best "
    "gdtune and cuDNN plans, TFLOP/s, ratio; plans not verified\nwith their errors; where the "
    "time went; the SM clock the top plans were\nmeasured at) and, when gnuplot is installed, SVG\nfigures: per cell plans vs backend, and "
    "burst curves.  Prints the two paths, or\nwith --format json the summary.\n";

static const gdt_cli_option options[] = {
    GDT_CLI_OPT_FORMAT(report, format),
};

static const gdt_cli_spec spec = {"gdtune report", usage_text, NULL, options, GDT_CLI_NOPTS(options)};

int gdt_cli_report(int argc, char **argv)
{
    report r = {0};
    const char *dir = NULL;
    int n, rc = gdt_cli_parse(&spec, argc, argv, &r, &dir, 1, &n);
    if (rc >= 0)
        return rc;
    if (!dir)
        return gdt_cli_usage_error(spec.verb, "expected one RUNDIR");
    gdt_error e = {0};
    snprintf(r.dir, sizeof r.dir, "%s", dir);
    gdt_status s = run_report(&r, &e);
    gdt_run_destroy(r.run);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "gdtune report: %s\n", e.msg);
    return gdt_status_exit_code(s);
}
