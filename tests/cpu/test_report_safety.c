/* `gdtune report` and the gnuplot it runs: a run directory whose name is
 * shell code and a journal whose shape is gnuplot code run nothing; the
 * script names no absolute path and typesets no subscripts; a missing
 * RUNDIR is bad input (2); a cell with nothing verified draws no figure
 * instead of failing gnuplot; no gnuplot in PATH is a note, not an error;
 * gdt_gnuplot_quote doubles quotes, masks control characters, cuts safely. */
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_gnuplot.h"
#include "gdt_test.h"
#include "gdt_util.h"

#define SHELL_NAME "x';touch PWNED;'"
#define GP_SHAPE "x' ; system 'touch PWNED2' ; set title '"
#define OUT_MAX 65536

static char tmp[PATH_MAX], start_cwd[PATH_MAX];

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Nothing named `name` in the test's first cwd, the temp dir (the cwd now),
 * the run dir or its report dir: wherever a shell or gnuplot would run. */
static void check_absent(const char *name, const char *run)
{
    const char *where[] = {start_cwd, tmp, run};
    char p[PATH_MAX * 2];
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", where[i], name);
        if (exists(p))
            fprintf(stderr, "found %s\n", p);
        CHECK(!exists(p));
        snprintf(p, sizeof p, "%s/report/%s", where[i], name);
        CHECK(!exists(p));
    }
}

static void write_file(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK_INT(fwrite(data, 1, n, f), ==, n);
        fclose(f);
    }
}

/* The committed GEMM journal, decompressed by gunzip spawned without a shell. */
static char *committed_journal(void)
{
    static const size_t cap = 16u << 20;
    char *buf = malloc(cap);
    char *argv[] = {"gunzip", "-c", GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz", NULL};
    CHECK(buf != NULL);
    if (!buf)
        return NULL;
    CHECK_INT(gdt_test_spawn(argv, NULL, buf, cap), ==, 0);
    CHECK(strlen(buf) > 100000 && strlen(buf) + 1 < cap);
    CHECK(!strncmp(buf, "{\"type\":\"run\"", 13));
    return buf;
}

static void make_run(char *run, size_t n, const char *name, const char *journal, size_t len)
{
    char p[PATH_MAX * 2];
    CHECK_INT(snprintf(run, n, "%s/%s", tmp, name), <, (long long)n);
    CHECK_INT(mkdir(run, 0755), ==, 0);
    snprintf(p, sizeof p, "%s/journal.jsonl", run);
    write_file(p, journal, len);
}

static int report(const char *run, char *out)
{
    char *argv[] = {(char *)gdt_test_exe(), "report", (char *)run, NULL};
    int rc = gdt_test_spawn(argv, NULL, out, OUT_MAX);
    printf("gdtune report %s -> %d\n%s", run, rc, out);
    return rc;
}

static bool report_has(const char *run, const char *name)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof p, "%s/report/%s", run, name);
    return exists(p);
}

/* (a) and (d): a run directory named as shell code. */
static void test_shell_name(const char *journal)
{
    char run[PATH_MAX], out[OUT_MAX], p[PATH_MAX * 2], gnuplot[PATH_MAX];
    make_run(run, sizeof run, SHELL_NAME, journal, strlen(journal));
    CHECK_INT(report(run, out), ==, 0);
    check_absent("PWNED", run);
    snprintf(p, sizeof p, "%s/raw.h5", run);
    CHECK(exists(p));
    CHECK(report_has(run, "summary.md"));
    if (gdt_gnuplot_find(gnuplot, sizeof gnuplot)) {
        CHECK(report_has(run, "cell_000_plans.svg"));
        CHECK(report_has(run, "cell_000_bursts.svg"));
    } else {
        printf("gnuplot not in PATH: figures not checked\n");
    }
    char *gp = NULL;
    snprintf(p, sizeof p, "%s/report/figures.gp", run);
    CHECK_INT(gdt_file_read(p, &gp, NULL, NULL), ==, GDT_STATUS_OK);
    CHECK(gp && !strstr(gp, tmp));   /* no path of the run directory */
    CHECK(gp && !strstr(gp, "'/")); /* no absolute path at all */
    CHECK_CONTAINS(gp, "noenhanced");
    CHECK_CONTAINS(gp, "set output 'cell_000_plans.svg'");
    free(gp);
}

/* (b): a cell whose shape is gnuplot code.  The exit code is left open: a
 * stricter journal reader may refuse the shape (2) before any figure. */
static void test_gnuplot_shape(const char *journal)
{
    const char *cell = strstr(journal, "{\"type\":\"cell\",\"cell\":0,");
    const char *shape = cell ? strstr(cell, "\"shape\":\"") : NULL;
    const char *end = shape ? strchr(shape + 9, '"') : NULL;
    CHECK(end != NULL);
    if (!end)
        return;
    size_t head = (size_t)(shape + 9 - journal), tail = strlen(end);
    char *text = malloc(head + strlen(GP_SHAPE) + tail + 1), run[PATH_MAX], out[OUT_MAX];
    memcpy(text, journal, head);
    strcpy(text + head, GP_SHAPE);
    strcat(text + head, end);
    make_run(run, sizeof run, "gp-shape", text, strlen(text));
    free(text);
    /* The strict journal reader refuses the shape the spec does not hold. */
    CHECK_INT(report(run, out), ==, 2);
    CHECK_CONTAINS(out, "journal.jsonl:2: /shape: expected \"m=128,n=4096,k=4096,dtype=bf16\"");
    check_absent("PWNED2", run);
}

/* A cell with plans and no result: no figure, gnuplot not run, exit 0. */
static void test_nothing_verified(const char *journal)
{
    const char *p = journal;
    for (int i = 0; i < 3 && p; i++) /* the run header, cell 0 and its plans */
        if ((p = strchr(p, '\n')))
            p++;
    CHECK(p != NULL);
    if (!p)
        return;
    char run[PATH_MAX], out[OUT_MAX];
    make_run(run, sizeof run, "unverified", journal, (size_t)(p - journal));
    CHECK_INT(report(run, out), ==, 0);
    CHECK(!strstr(out, "gnuplot failed"));
    CHECK_CONTAINS(out, "no figures");
    CHECK(report_has(run, "summary.md"));
    CHECK(!report_has(run, "cell_000_plans.svg"));
    CHECK(!report_has(run, "cell_000_plans.dat"));
}

/* With no gnuplot in PATH the report is written and says there are no figures. */
static void test_no_gnuplot(const char *journal)
{
    char run[PATH_MAX], out[OUT_MAX], bin[PATH_MAX + 16], gnuplot[PATH_MAX];
    const char *path = getenv("PATH");
    char *saved = strdup(path ? path : "");
    make_run(run, sizeof run, "plain", journal, strlen(journal));
    snprintf(bin, sizeof bin, "%s/empty-bin", tmp);
    CHECK_INT(mkdir(bin, 0755), ==, 0);
    setenv("PATH", bin, 1);
    CHECK(!gdt_gnuplot_find(gnuplot, sizeof gnuplot));
    CHECK_INT(report(run, out), ==, 0);
    setenv("PATH", saved, 1);
    free(saved);
    CHECK_CONTAINS(out, "no figures");
    CHECK(report_has(run, "summary.md"));
    CHECK(!report_has(run, "cell_000_plans.svg"));
}

/* (e) */
static void test_missing_rundir(void)
{
    char run[PATH_MAX + 16], out[OUT_MAX];
    snprintf(run, sizeof run, "%s/no-such-run", tmp);
    CHECK_INT(report(run, out), ==, 2);
    CHECK_CONTAINS(out, run);
}

/* (c) */
static void test_quote(void)
{
    char b[256];
    CHECK(gdt_gnuplot_quote(b, sizeof b, "it's"));
    CHECK_STR(b, "'it''s'");
    CHECK(gdt_gnuplot_quote(b, sizeof b, GP_SHAPE));
    CHECK_STR(b, "'x'' ; system ''touch PWNED2'' ; set title '''");
    CHECK(gdt_gnuplot_quote(b, sizeof b, "a\nb\rc\td\x7f" "e\x1b"));
    CHECK_STR(b, "'a?b?c?d?e?'");
    CHECK(gdt_gnuplot_quote(b, sizeof b, "sdpa_fwd h_q `x` @y \xe2\x80\x94"));
    CHECK_STR(b, "'sdpa_fwd h_q `x` @y \xe2\x80\x94'");
    CHECK(gdt_gnuplot_quote(b, sizeof b, NULL));
    CHECK_STR(b, "''");
}

static void test_quote_cut(void)
{
    char b[16];
    memset(b, 'X', sizeof b);
    CHECK(!gdt_gnuplot_quote(b, 6, "abcdef"));
    CHECK_STR(b, "'abc'");
    CHECK_INT(b[6], ==, 'X'); /* nothing written past n */
    CHECK(!gdt_gnuplot_quote(b, 5, "a'b")); /* a '' pair is never split */
    CHECK_STR(b, "'a'");
    CHECK(!gdt_gnuplot_quote(b, 5, "\xe2\x80\x94")); /* nor a UTF-8 character */
    CHECK_STR(b, "''");
    CHECK(gdt_gnuplot_quote(b, 6, "\xe2\x80\x94"));
    CHECK_STR(b, "'\xe2\x80\x94'");
    b[0] = 'X';
    CHECK(!gdt_gnuplot_quote(b, 2, "a"));
    CHECK_STR(b, "");
    b[0] = 'X';
    CHECK(!gdt_gnuplot_quote(b, 0, "a"));
    CHECK_INT(b[0], ==, 'X');
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(void)
{
    test_quote();
    test_quote_cut();
    snprintf(tmp, sizeof tmp, "/tmp/gdt_report_safety.XXXXXX");
    CHECK(mkdtemp(tmp) != NULL);
    CHECK(getcwd(start_cwd, sizeof start_cwd) != NULL);
    CHECK_INT(chdir(tmp), ==, 0); /* a stray PWNED lands here, not in the build tree */
    char *journal = committed_journal();
    if (journal) {
        test_shell_name(journal);
        test_gnuplot_shape(journal);
        test_nothing_verified(journal);
        test_no_gnuplot(journal);
    }
    test_missing_rundir();
    free(journal);
    CHECK_INT(chdir(start_cwd), ==, 0);
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return gdt_test_result("test_report_safety");
}
