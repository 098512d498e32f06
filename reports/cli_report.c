/* `gdtune report RUNDIR`: rebuilds raw.h5 from the journal and writes
 * RUNDIR/report/summary.md, plus gnuplot figures when gnuplot is installed:
 * per cell the verified plans against the backend's, and burst curves (host
 * enqueue and device time per call against the burst size). */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_rawh5.h"
#include "gdt_util.h"

typedef struct rcell {
    const cJSON *cell, *plans;
    const cJSON **results;
    int nplans;
    gdt_problem problem;
    bool have_problem;
} rcell;

typedef struct report {
    cJSON **recs;
    int nrecs;
    const cJSON *header;
    rcell *cells;
    int ncells;
    char dir[PATH_MAX];
} report;

static bool is_verified(const cJSON *res)
{
    return res && !strcmp(gdt_json_str_or(res, "disposition", ""), "verified") && gdt_json_num_or(res, "time_us", 0) > 0;
}

static rcell *cell_at(report *r, int ci)
{
    if (ci < 0 || ci > 100000)
        return NULL;
    if (ci >= r->ncells) {
        rcell *g = realloc(r->cells, sizeof *g * (size_t)(ci + 1));
        if (!g)
            return NULL;
        memset(g + r->ncells, 0, sizeof *g * (size_t)(ci + 1 - r->ncells));
        r->cells = g;
        r->ncells = ci + 1;
    }
    return &r->cells[ci];
}

static void index_record(report *r, const cJSON *rec)
{
    const char *type = gdt_json_str_or(rec, "type", "");
    rcell *c = cell_at(r, (int)gdt_json_num_or(rec, "cell", -1));
    if (!strcmp(type, "run"))
        r->header = rec;
    else if (c && !strcmp(type, "cell")) {
        gdt_family f;
        c->cell = rec;
        c->have_problem = gdt_family_parse(gdt_json_str_or(rec, "family", ""), &f, NULL) == GDT_STATUS_OK &&
                          gdt_problem_parse(f, gdt_json_str_or(rec, "shape", ""), &c->problem, NULL) == GDT_STATUS_OK;
    } else if (c && !strcmp(type, "plans") && !c->plans) {
        c->plans = cJSON_GetObjectItem(rec, "plans");
        c->nplans = cJSON_GetArraySize(c->plans);
        c->results = calloc((size_t)c->nplans + 1, sizeof *c->results);
    } else if (c && !strcmp(type, "result") && c->results) {
        int pi = (int)gdt_json_num_or(rec, "plan", -1);
        if (pi >= 0 && pi < c->nplans)
            c->results[pi] = rec;
    }
}

static gdt_status load(report *r, gdt_error *e)
{
    char path[PATH_MAX + 32];
    gdt_journal_lines l;
    snprintf(path, sizeof path, "%s/%s", r->dir, GDT_JOURNAL_NAME);
    gdt_status s = gdt_journal_read(path, &l, e);
    if (s != GDT_STATUS_OK)
        return s;
    r->recs = calloc((size_t)l.n + 1, sizeof *r->recs);
    for (int i = 0; r->recs && i < l.n; i++)
        if ((r->recs[r->nrecs] = cJSON_Parse(l.line[i])))
            index_record(r, r->recs[r->nrecs++]);
    gdt_journal_lines_free(&l);
    if (!r->header)
        return gdt_error_set(e, GDT_STATUS_BAD_INPUT, "%s:1: expected the run header", path);
    return GDT_STATUS_OK;
}

/* Best verified plan of one side (backend or ours); -1 when none. */
static int best(const rcell *c, bool backend)
{
    int b = -1;
    for (int i = 0; i < c->nplans; i++) {
        const cJSON *p = cJSON_GetArrayItem(c->plans, i);
        if (is_verified(c->results[i]) && cJSON_IsTrue(cJSON_GetObjectItem(p, "backend")) == backend &&
            (b < 0 || gdt_json_num_or(c->results[i], "time_us", 0) < gdt_json_num_or(c->results[b], "time_us", 0)))
            b = i;
    }
    return b;
}

static double tflops(const rcell *c, int i)
{
    double us = i >= 0 ? gdt_json_num_or(c->results[i], "time_us", 0) : 0;
    return c->have_problem && us > 0 ? gdt_problem_flops(&c->problem) / (us * 1e-6) / 1e12 : 0;
}

static void side(FILE *f, const rcell *c, int i)
{
    if (i < 0) {
        fprintf(f, " — | — |");
        return;
    }
    fprintf(f, " `%s` | %.2f us, %.1f TFLOP/s, host %.2f us |", gdt_json_str_or(cJSON_GetArrayItem(c->plans, i), "name", ""),
            gdt_json_num_or(c->results[i], "time_us", 0), tflops(c, i),
            gdt_json_num_or(cJSON_GetArrayItem(cJSON_GetObjectItem(c->results[i], "bursts"), 0), "median_host_us", 0));
}

static void counts(const rcell *c, int n[5])
{
    static const char *const d[] = {"verified", "incorrect", "failed", "declined"};
    memset(n, 0, sizeof(int) * 5);
    for (int i = 0; i < c->nplans; i++) {
        int k = 4;
        for (int j = 0; c->results[i] && j < 4; j++)
            if (!strcmp(gdt_json_str_or(c->results[i], "disposition", ""), d[j]))
                k = j;
        n[k]++;
    }
}

static void summary_cells(FILE *f, const report *r)
{
    fprintf(f, "| cell | family | shape | verified / incorrect / failed / declined / not run | "
               "best gdtune plan | time | best cuDNN plan | time | time ours / cuDNN (< 1: ours faster) |\n"
               "|---|---|---|---|---|---|---|---|---|\n");
    for (int ci = 0; ci < r->ncells; ci++) {
        const rcell *c = &r->cells[ci];
        int n[5];
        if (!c->cell)
            continue;
        counts(c, n);
        int o = best(c, false), b = best(c, true);
        fprintf(f, "| %d | %s | %s | %d / %d / %d / %d / %d |", ci, gdt_json_str_or(c->cell, "family", ""),
                gdt_json_str_or(c->cell, "shape", ""), n[0], n[1], n[2], n[3], n[4]);
        side(f, c, o);
        side(f, c, b);
        if (o >= 0 && b >= 0)
            fprintf(f, " %.3f |\n", gdt_json_num_or(c->results[o], "time_us", 0) / gdt_json_num_or(c->results[b], "time_us", 1));
        else
            fprintf(f, " — |\n");
    }
}

static void summary_failures(FILE *f, const report *r)
{
    fprintf(f, "\n## Plans not verified\n\n");
    int any = 0;
    for (int ci = 0; ci < r->ncells; ci++)
        for (int i = 0; i < r->cells[ci].nplans; i++) {
            const cJSON *res = r->cells[ci].results[i];
            if (!res || is_verified(res))
                continue;
            fprintf(f, "- cell %d `%s`: **%s**: %.400s\n", ci,
                    gdt_json_str_or(cJSON_GetArrayItem(r->cells[ci].plans, i), "name", ""), gdt_json_str_or(res, "disposition", ""),
                    gdt_json_str_or(res, "error", ""));
            any++;
        }
    if (!any)
        fprintf(f, "None.\n");
}

static gdt_status write_summary(const report *r, const char *rdir, gdt_error *e)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/summary.md", rdir);
    FILE *f = fopen(path, "w");
    if (!f)
        return gdt_error_set(e, GDT_STATUS_IO, "%s: cannot write", path);
    const cJSON *d = cJSON_GetObjectItem(r->header, "device");
    fprintf(f, "# gdtune sweep %s\n\n", gdt_json_str_or(r->header, "family", ""));
    fprintf(f, "- device: %s (sm%d, %d SMs, UUID %s), driver %d, CUDA %d, cuDNN %d, NVRTC %d\n",
            gdt_json_str_or(d, "name", ""), (int)gdt_json_num_or(d, "arch", 0), (int)gdt_json_num_or(d, "sm_count", 0), gdt_json_str_or(d, "uuid", ""),
            (int)gdt_json_num_or(d, "driver_version", 0), (int)gdt_json_num_or(d, "cuda_version", 0),
            (int)gdt_json_num_or(d, "cudnn_version", 0), (int)gdt_json_num_or(d, "nvrtc_version", 0));
    fprintf(f, "- gdtune %s, source digest %.16s, started %s\n", gdt_json_str_or(r->header, "gdtune_version", ""),
            gdt_json_str_or(r->header, "source_digest", ""), gdt_json_str_or(r->header, "started", ""));
    fprintf(f, "- spec %s (digest %.16s%s), candidate table digest %.16s\n\n",
            gdt_json_str_or(r->header, "spec_source", ""), gdt_json_str_or(r->header, "spec_digest", ""),
            cJSON_IsTrue(cJSON_GetObjectItem(r->header, "quick")) ? ", quick" : "",
            gdt_json_str_or(r->header, "candidates_digest", ""));
    fprintf(f, "Times are device time per call at the largest burst (median); host is host enqueue "
               "per call at the first burst.\n\n");
    summary_cells(f, r);
    summary_failures(f, r);
    fclose(f);
    return GDT_STATUS_OK;
}

/* ------------------------------------------------------------ figures */

static void plans_figure(FILE *gp, const rcell *c, int ci, const char *rdir)
{
    char dat[PATH_MAX + 64];
    snprintf(dat, sizeof dat, "%s/cell_%03d_plans.dat", rdir, ci);
    FILE *f = fopen(dat, "w");
    if (!f)
        return;
    for (int i = 0; i < c->nplans; i++)
        if (is_verified(c->results[i]))
            fprintf(f, "%d %g %d\n", i, gdt_json_num_or(c->results[i], "time_us", 0),
                    cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(c->plans, i), "backend")));
    fclose(f);
    fprintf(gp, "set output '%s/cell_%03d_plans.svg'\nset title 'cell %d: %s %s'\n"
                "set xlabel 'plan index'\nset ylabel 'device time per call (us)'\nunset logscale\n"
                "plot '%s' using 1:($3==0?$2:1/0) with points pt 7 title 'gdtune', "
                "'' using 1:($3==1?$2:1/0) with points pt 5 title 'cuDNN'\n",
            rdir, ci, ci, gdt_json_str_or(c->cell, "family", ""), gdt_json_str_or(c->cell, "shape", ""), dat);
}

static void burst_rows(FILE *f, const cJSON *res)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItem(res, "bursts"))
        fprintf(f, "%d %g %g\n", (int)gdt_json_num_or(b, "burst", 0), gdt_json_num_or(b, "median_host_us", 0),
                gdt_json_num_or(b, "median_device_us", 0));
    fprintf(f, "\n\n");
}

static void burst_figure(FILE *gp, const rcell *c, int ci, const char *rdir)
{
    int o = best(c, false), b = best(c, true);
    if (o < 0 || b < 0)
        return;
    char dat[PATH_MAX + 64];
    snprintf(dat, sizeof dat, "%s/cell_%03d_bursts.dat", rdir, ci);
    FILE *f = fopen(dat, "w");
    if (!f)
        return;
    burst_rows(f, c->results[o]);
    burst_rows(f, c->results[b]);
    fclose(f);
    fprintf(gp, "set output '%s/cell_%03d_bursts.svg'\nset title 'cell %d: per call vs burst'\n"
                "set xlabel 'burst size'\nset ylabel 'us per call'\nset logscale x 2\n"
                "plot '%s' index 0 using 1:2 with linespoints title 'gdtune host', "
                "'' index 0 using 1:3 with linespoints title 'gdtune device', "
                "'' index 1 using 1:2 with linespoints title 'cuDNN host', "
                "'' index 1 using 1:3 with linespoints title 'cuDNN device'\n",
            rdir, ci, ci, dat);
}

static int write_figures(const report *r, const char *rdir)
{
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "gdtune report: gnuplot not installed: no figures (summary.md written)\n");
        return 0;
    }
    char script[PATH_MAX + 32], cmd[PATH_MAX + 64];
    snprintf(script, sizeof script, "%s/figures.gp", rdir);
    FILE *gp = fopen(script, "w");
    if (!gp)
        return -1;
    fprintf(gp, "set terminal svg size 900,540\nset key outside\nset grid\n");
    for (int ci = 0; ci < r->ncells; ci++)
        if (r->cells[ci].cell && r->cells[ci].plans) {
            plans_figure(gp, &r->cells[ci], ci, rdir);
            burst_figure(gp, &r->cells[ci], ci, rdir);
        }
    fclose(gp);
    snprintf(cmd, sizeof cmd, "gnuplot '%s'", script);
    return system(cmd) == 0 ? 0 : -1;
}

static void report_free(report *r)
{
    for (int i = 0; i < r->nrecs; i++)
        cJSON_Delete(r->recs[i]);
    free(r->recs);
    for (int i = 0; i < r->ncells; i++)
        free(r->cells[i].results);
    free(r->cells);
}

static gdt_status run_report(report *r, gdt_error *e)
{
    char rdir[PATH_MAX + 16];
    gdt_status s = load(r, e);
    if (s == GDT_STATUS_OK)
        s = gdt_rawh5_write(r->dir, e);
    snprintf(rdir, sizeof rdir, "%s/report", r->dir);
    if (s == GDT_STATUS_OK)
        s = gdt_mkdirs(rdir, e);
    if (s == GDT_STATUS_OK)
        s = write_summary(r, rdir, e);
    if (s == GDT_STATUS_OK && write_figures(r, rdir) != 0)
        s = gdt_error_set(e, GDT_STATUS_IO, "%s/figures.gp: gnuplot failed", rdir);
    if (s == GDT_STATUS_OK)
        printf("%s/raw.h5\n%s/summary.md\n", r->dir, rdir);
    return s;
}

int gdt_cli_report(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: gdtune report RUNDIR\n\nRebuilds RUNDIR/raw.h5 from RUNDIR/journal.jsonl and "
               "writes RUNDIR/report/summary.md\n(per cell: dispositions, best gdtune and cuDNN plans, "
               "TFLOP/s, ratio; plans not verified\nwith their errors) and, when gnuplot is installed, "
               "SVG figures: per cell plans vs\nbackend, and burst curves.\n");
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "gdtune report: expected one RUNDIR (see gdtune report --help)\n");
        return 2;
    }
    report r = {0};
    gdt_error e = {0};
    snprintf(r.dir, sizeof r.dir, "%s", argv[1]);
    gdt_status s = run_report(&r, &e);
    report_free(&r);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "gdtune report: %s\n", e.msg);
    return gdt_status_exit_code(s);
}
