/* The figures a performance engineer reads, rendered: `gdtune report` and
 * `gdtune compare` on two committed --quick journals (runs/sm90/quick/:
 * GEMM with generated, handwritten, cuDNN and cuBLASLt plans in 2 cells;
 * SDPA with generated, handwritten and cuDNN plans in 4 cells), gnuplot's
 * SVG of every figure read back: its title, axis labels, the legend's
 * entries (one per series, each kind under its own name: cuBLASLt is never
 * "gdtune"), cells named by shape, error bars, a ratio axis fitted to the
 * data (1.0 inside, no log axis) and the key below the plot.  Skipped (77)
 * without gnuplot or gunzip. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_gnuplot.h"
#include "gdt_test.h"
#include "gdt_util.h"

#define QUICK GDT_SOURCE_DIR "/runs/sm90/quick/"
#define SERIES_MAX 16

static char out[1 << 16];

static char *slurp(const char *dir, const char *name)
{
    char path[PATH_MAX];
    char *text = NULL;
    snprintf(path, sizeof path, "%s/report/%s", dir, name);
    if (gdt_file_read(path, &text, NULL, NULL) != GDT_STATUS_OK)
        fprintf(stderr, "%s: expected a file, found none\n", path);
    return text;
}

/* RUN/journal.jsonl from a committed journal, then report and compare. */
static bool make_run(const char *scratch, const char *name, char *run, size_t n)
{
    char gz[PATH_MAX], journal[PATH_MAX + 32];
    snprintf(run, n, "%s/%s", scratch, name);
    snprintf(gz, sizeof gz, QUICK "%s.journal.jsonl.gz", name);
    snprintf(journal, sizeof journal, "%s/journal.jsonl", run);
    char *mk[] = {"mkdir", "-p", run, NULL};
    if (gdt_test_spawn(mk, NULL, out, sizeof out) != 0 || gdt_test_gunzip_to(gz, journal) != 0)
        return false;
    char *rep[] = {(char *)gdt_test_exe(), "report", run, NULL};
    char *cmp[] = {(char *)gdt_test_exe(), "compare", run, NULL};
    int rc = gdt_test_spawn(rep, NULL, out, sizeof out);
    if (rc)
        fprintf(stderr, "gdtune report %s: exit %d: %s\n", run, rc, out);
    CHECK_INT(rc, ==, 0);
    rc = gdt_test_spawn(cmp, NULL, out, sizeof out);
    if (rc)
        fprintf(stderr, "gdtune compare %s: exit %d: %s\n", run, rc, out);
    CHECK_INT(rc, ==, 0);
    return true;
}

/* The legend entries of an SVG: gnuplot writes each series as
 * <g id="gnuplot_plot_N"><title>KEY</title>; a multiplot's panels add a
 * letter (N a, N b): only the last panel's, which carries the key, count. */
static int series(const char *svg, const char *panel, char keys[SERIES_MAX][256])
{
    int n = 0;
    for (const char *p = svg; p && (p = strstr(p, "<g id=\"gnuplot_plot_")); p++) {
        const char *q = p + strlen("<g id=\"gnuplot_plot_");
        while (*q >= '0' && *q <= '9')
            q++;
        if (strncmp(q, panel, strlen(panel)) || q[strlen(panel)] != '"')
            continue;
        const char *t = strstr(q, "<title>"), *end = t ? strstr(t, "</title>") : NULL;
        if (!end || n == SERIES_MAX)
            break;
        snprintf(keys[n++], 256, "%.*s", (int)(end - t - 7), t + 7);
    }
    return n;
}

static bool has_key(char keys[SERIES_MAX][256], int n, const char *want)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(keys[i], want))
            return true;
    return false;
}

/* A text element of the SVG (a title, an axis label, a tic). */
static void check_text(const char *svg, const char *name, const char *text)
{
    char want[512];
    snprintf(want, sizeof want, "<text>%s</text>", text);
    if (!svg || !strstr(svg, want)) {
        fprintf(stderr, "%s: expected the text \"%s\", found none\n", name, text);
        gdt_test_failures++;
    }
}

/* The figure's legend: exactly these entries, in this order. */
static void check_keys(const char *svg, const char *name, const char *panel, const char *const *want, int nwant)
{
    char keys[SERIES_MAX][256];
    int n = series(svg, panel, keys);
    if (n != nwant)
        fprintf(stderr, "%s: expected %d series, found %d\n", name, nwant, n);
    CHECK_INT(n, ==, nwant);
    for (int i = 0; i < nwant; i++)
        if (!has_key(keys, n, want[i])) {
            fprintf(stderr, "%s: expected a legend entry \"%s\", found none\n", name, want[i]);
            gdt_test_failures++;
        }
    for (int i = 0; i < n; i++)
        CHECK(strstr(keys[i], "gdtune") == NULL); /* no side is called gdtune */
}

/* The part of figures.gp that draws one figure: from its `set output` to
 * the next. */
static char *section(const char *gp, const char *svg)
{
    char head[128];
    snprintf(head, sizeof head, "set output '%s'", svg);
    const char *a = gp ? strstr(gp, head) : NULL, *b = a ? strstr(a + 1, "set output '") : NULL;
    if (!a) {
        fprintf(stderr, "figures.gp: expected \"%s\", found none\n", head);
        gdt_test_failures++;
        return strdup("");
    }
    return strndup(a, b ? (size_t)(b - a) : strlen(a));
}

/* overview.dat's bars all inside the y range, with 1.0, and the range no
 * wider than the data and parity need (twice over): not 0.1-10. */
static void check_ratio_axis(const char *gp_section, const char *dat)
{
    double lo = 1, hi = 1, ylo = 0, yhi = 0;
    const char *yr = strstr(gp_section, "set yrange [");
    CHECK(yr && sscanf(yr, "set yrange [%lf:%lf]", &ylo, &yhi) == 2);
    CHECK(!strstr(gp_section, "logscale"));
    for (const char *line = dat; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
        const char *p = line + strcspn(line, " \n"); /* past x */
        if (*line == '#')
            continue;
        while (*p == ' ') {
            char *end;
            double x = strtod(++p, &end);
            if (end != p) /* not '-' (missing) */
                lo = fmin(lo, x), hi = fmax(hi, x);
            p += strcspn(p, " \n");
        }
    }
    CHECK(ylo <= lo && yhi >= hi);
    if (!(yhi - ylo <= 2 * (hi - lo) + 0.05))
        fprintf(stderr, "overview: y range [%g:%g] for data and parity in [%g:%g]\n", ylo, yhi, lo, hi);
    CHECK(yhi - ylo <= 2 * (hi - lo) + 0.05);
}

static void check_gemm_overviews(const char *run, const char *gp)
{
    char *svg = slurp(run, "overview.svg"), *dat = slurp(run, "overview.dat"), *sec = section(gp, "overview.svg");
    static const char *const over[] = {"generated (NVRTC) / cuDNN", "handwritten / cuDNN", "cuBLASLt / cuDNN",
                                       "parity (1.0)"};
    check_keys(svg, "gemm overview.svg", "", over, 4);
    check_text(svg, "gemm overview.svg", "best plan of each kind / best cuDNN plan, time per cell (ratio under 1: faster than cuDNN)");
    check_text(svg, "gemm overview.svg", "cell (shape)");
    check_text(svg, "gemm overview.svg", "m128 n4096 k4096");
    check_text(svg, "gemm overview.svg", "m4096 n4096 k4096");
    CHECK_CONTAINS(sec, "with yerrorbars");
    CHECK_CONTAINS(sec, "set key below");
    check_ratio_axis(sec, dat ? dat : "");
    free(svg), free(dat), free(sec);

    svg = slurp(run, "overview_ceiling.svg"), sec = section(gp, "overview_ceiling.svg");
    static const char *const ceil[] = {"generated (NVRTC)", "handwritten", "cuDNN", "cuBLASLt", "measured ceiling (1.0)"};
    check_keys(svg, "gemm overview_ceiling.svg", "", ceil, 5);
    check_text(svg, "gemm overview_ceiling.svg", "best plan of each kind per cell, as a fraction of the measured ceiling");
    check_text(svg, "gemm overview_ceiling.svg", "fraction of the measured ceiling (bars: noise)");
    check_text(svg, "gemm overview_ceiling.svg", "m128 n4096 k4096 (mem)");
    CHECK_CONTAINS(sec, "with boxerrorbars");
    CHECK_CONTAINS(sec, "set key below");
    free(svg), free(sec);
}

static void check_gemm_cells(const char *run, const char *gp)
{
    char *svg = slurp(run, "cell_000_plans.svg"), *sec = section(gp, "cell_000_plans.svg");
    static const char *const plans[] = {"generated (NVRTC) (18 plans)", "handwritten (12 plans)", "cuDNN (15 plans)",
                                        "cuBLASLt (12 plans)"};
    check_keys(svg, "gemm cell_000_plans.svg", "", plans, 4);
    check_text(svg, "gemm cell_000_plans.svg", "gemm m128 n4096 k4096 (cell 0): 57 verified plans, fastest first");
    check_text(svg, "gemm cell_000_plans.svg", "device time per call (us, log; bars: noise)");
    CHECK_CONTAINS(sec, "set xlabel 'rank among the cell''s verified plans (1: fastest)'");
    CHECK_CONTAINS(sec, "with yerrorbars");
    free(svg), free(sec);

    svg = slurp(run, "cell_001_bursts.svg");
    char keys[SERIES_MAX][256];
    int n = series(svg, "b", keys);
    CHECK_INT(n, ==, 4);
    static const char *const kinds[] = {"generated (NVRTC): gemm.nvrtc[", "handwritten: gemm.hand[", "cuDNN: cudnn.",
                                        "cuBLASLt: gemm.cublaslt["};
    for (int k = 0; k < 4 && k < n; k++)
        CHECK(!strncmp(keys[k], kinds[k], strlen(kinds[k])));
    check_text(svg, "gemm cell_001_bursts.svg", "gemm m4096 n4096 k4096 (cell 1): per call vs burst size, the best plan of each kind");
    check_text(svg, "gemm cell_001_bursts.svg", "burst size (log 2)");
    free(svg);
}

static void check_compare(const char *run, const char *what, const char *tic)
{
    char *svg = slurp(run, "compare.svg"), *gp = slurp(run, "compare.gp");
    static const char *const keys[] = {"handwritten / generated", "handwritten / cuDNN (best plans)", "parity (1.0)",
                                       "handwritten goal (1.11)"};
    check_keys(svg, what, "", keys, 4);
    check_text(svg, what, "cell (shape)");
    check_text(svg, what, tic);
    CHECK_CONTAINS(gp, "set key below");
    CHECK(gp && !strstr(gp, "logscale"));
    free(svg), free(gp);
}

static void check_sdpa(const char *run)
{
    char *gp = slurp(run, "figures.gp"), *svg = slurp(run, "overview.svg");
    static const char *const over[] = {"generated (NVRTC) / cuDNN", "handwritten / cuDNN", "parity (1.0)"};
    check_keys(svg, "sdpa overview.svg", "", over, 3);
    check_text(svg, "sdpa overview.svg", "fwd b8 h32/8 s2048 d128");
    check_text(svg, "sdpa overview.svg", "bwd b8 h32/8 s2048 d128 causal");
    free(svg);
    svg = slurp(run, "cell_002_plans.svg");
    static const char *const plans[] = {"generated (NVRTC) (13 plans)", "handwritten (1 plan)", "cuDNN (4 plans)"};
    check_keys(svg, "sdpa cell_002_plans.svg", "", plans, 3);
    check_text(svg, "sdpa cell_002_plans.svg", "sdpa fwd b8 h32/8 s2048 d128 causal (cell 2): 18 verified plans, fastest first");
    free(svg), free(gp);
    check_compare(run, "sdpa compare.svg", "bwd b8 h32/8 s2048 d128");
}

int main(void)
{
    char gnuplot[PATH_MAX], scratch[] = "/tmp/gdt_report_figures_XXXXXX", run[PATH_MAX];
    if (!gdt_gnuplot_find(gnuplot, sizeof gnuplot) || !gdt_test_have("gunzip")) {
        printf("gnuplot or gunzip not in PATH: skipped\n");
        return GDT_TEST_SKIP;
    }
    if (!mkdtemp(scratch))
        return 1;
    if (make_run(scratch, "gemm-quick-20261203T0221Z", run, sizeof run)) {
        char *gp = slurp(run, "figures.gp");
        check_gemm_overviews(run, gp);
        check_gemm_cells(run, gp);
        check_compare(run, "gemm compare.svg", "m128 n4096 k4096");
        free(gp);
    } else {
        CHECK(!"the GEMM run could not be made");
    }
    if (make_run(scratch, "sdpa-quick-20261203T0221Z", run, sizeof run))
        check_sdpa(run);
    else
        CHECK(!"the SDPA run could not be made");
    CHECK_INT(gdt_test_remove_tree(scratch), ==, 0);
    return gdt_test_result("test_report_figures");
}
