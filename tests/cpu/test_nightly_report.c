/* nightly.md and its figures (reports/nightly_report.c) for the committed
 * GEMM tables against tables emitted from the fixture journal: every
 * figure written is linked and every link names a file written; the
 * script names no absolute path; a cell name with gnuplot and markdown
 * special characters is quoted in the script and escaped in the
 * markdown; without gnuplot the script and data stay and the markdown
 * says how to draw them. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_gnuplot.h"
#include "gdt_markdown.h"
#include "gdt_nightly_report.h"
#include "gdt_test.h"
#include "gdt_util.h"

static char out[1 << 20], tmp[] = "/tmp/gdt_nightly_report_XXXXXX";

/* A key whose text is gnuplot and markdown code. */
#define ODD_KEY "m=1|2`x' ; system 'touch PWNED"
static const char history_text[] =
    "date\tfamily\tkey\twinner\twinner_us\tdecision\tstatus\n"
    "20261130\tgemm\t" ODD_KEY "\tp\t12.5\tLEAD\tbeyond_noise\n"
    "20261201\tgemm\t" ODD_KEY "\tp\t1300\tLEAD\twithin_noise\n"
    "20261201\tgemm\t-\t-\t-\t-\tsame\n";

static char *read_in(const char *dir, const char *name)
{
    char p[PATH_MAX], *s = NULL;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return gdt_file_read(p, &s, NULL, NULL) == GDT_STATUS_OK ? s : NULL;
}

static bool exists_in(const char *dir, const char *name)
{
    char p[PATH_MAX + 300];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

/* Staged tables from the fixture journal, and the diff against the committed ones. */
static char *staged(char *staging, size_t n)
{
    char run[PATH_MAX], j[PATH_MAX + 32];
    snprintf(run, sizeof run, "%s/run", tmp);
    snprintf(staging, n, "%s/staging", tmp);
    mkdir(run, 0755);
    snprintf(j, sizeof j, "%s/journal.jsonl", run);
    char *gz[] = {"gunzip", "-c", GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz", NULL};
    CHECK_INT(gdt_test_spawn(gz, NULL, out, sizeof out), ==, 0);
    FILE *f = fopen(j, "w");
    if (f) fputs(out, f), fclose(f);
    char *emit[] = {(char *)gdt_test_exe(), "tables", "emit", run, "--tables-dir", staging, NULL};
    CHECK_INT(gdt_test_spawn(emit, NULL, out, sizeof out), ==, 0);
    char *diff[] = {(char *)gdt_test_exe(), "tables", "diff", GDT_TEST_DATA "/nightly", staging,
                    "--family", "gemm", "--format", "json", NULL};
    CHECK_INT(gdt_test_spawn(diff, NULL, out, sizeof out), ==, 3);
    return strdup(out);
}

/* Every "](name)" of the markdown names a file in dir, and every .svg in
 * dir is linked. */
static int check_links(const char *dir, const char *md)
{
    int links = 0;
    for (const char *p = md; (p = strstr(p, "](")); p += 2) {
        const char *end = strchr(p, ')');
        char name[256];
        snprintf(name, sizeof name, "%.*s", end ? (int)(end - p - 2) : 0, p + 2);
        CHECK(name[0] && name[0] != '/' && !strstr(name, ".."));
        if (!exists_in(dir, name)) fprintf(stderr, "linked, not written: %s\n", name);
        CHECK(exists_in(dir, name));
        links++;
    }
    DIR *dp = opendir(dir);
    for (struct dirent *de; dp && (de = readdir(dp));) {
        char link[300];
        size_t n = strlen(de->d_name);
        if (n < 4 || strcmp(de->d_name + n - 4, ".svg")) continue;
        snprintf(link, sizeof link, "](%s)", de->d_name);
        CHECK_CONTAINS(md, link);
    }
    if (dp) closedir(dp);
    return links;
}

static void check_script(const char *dir)
{
    char *gp = read_in(dir, "nightly.gp");
    CHECK(gp != NULL);
    CHECK(gp && !strstr(gp, "'/"));
    CHECK(gp && !strstr(gp, tmp));
    CHECK_CONTAINS(gp, "noenhanced");
    /* ' doubled, so the key stays one string: no command of its own */
    CHECK_CONTAINS(gp, "title 'gemm m=1|2`x'' ; system ''touch PWNED' noenhanced");
    CHECK_CONTAINS(gp, "set logscale y"); /* 12.5 to 1300 us spans decades */
    free(gp);
}

static void test_report(const char *staging, const char *diff)
{
    gdt_nightly_in in = {GDT_TEST_DATA "/nightly", staging, 1u << GDT_FAMILY_GEMM, diff, history_text, "20261201", NULL};
    gdt_error e = {0};
    bool drawn = true;
    char gnuplot[PATH_MAX];
    CHECK_INT(gdt_nightly_report_write(&in, staging, &drawn, &e), ==, GDT_STATUS_OK);
    CHECK(drawn == gdt_gnuplot_find(gnuplot, sizeof gnuplot));
    char *md = read_in(staging, GDT_NIGHTLY_MD);
    CHECK(md != NULL);
    if (!md) return;
    CHECK_INT(check_links(staging, md), ==, 2);
    if (drawn) CHECK(exists_in(staging, GDT_NIGHTLY_WINNERS) && exists_in(staging, GDT_NIGHTLY_HISTORY));
    check_script(staging);
    /* it leads with the diff's worst regret and slowdown (these tables
     * carry no floor: their smallest noise is 0.01%), then one row per cell
     * of either side, the diff's verdict and its two costs in each: the
     * same winner 1.3% slower beyond 0.67% of noise */
    const char *worst = strstr(md, "- Worst regret"), *table = strstr(md, "| row |");
    CHECK(worst && table && worst < table);
    CHECK_CONTAINS(md, "- Worst slowdown (the night's winner's time over the committed winner's): **+1.30%** "
                       "(noise 0.67%, floor 0.01%), `gemm:b1,m128,n4096,k4096,bf16,a=row,b=row`: **beyond noise**.\n");
    CHECK_CONTAINS(md, "| 5 | gemm | sm90 | `gemm:b1,m128,n4096,k4096,bf16,a=row,b=row` | **beyond noise** | "
                       "+0.00% (noise 0.62%, floor 0.01%) | **+1.30%** (noise 0.67%, floor 0.01%) | "
                       "`cudnn.eng0[KERNEL_CFG=1]` | 12.627 ± 0.4% | `cudnn.eng0[KERNEL_CFG=1]` | 12.791 ± 0.3% |\n");
    CHECK_CONTAINS(md, "| 0 | gemm | sm90 | `gemm:b1,m1024,n14336,k4096,bf16,a=row,b=row` | removed | — | — | "
                       "`cudnn.eng4[KERNEL_CFG=1]` | 171.942 ± 0.1% | — | — |\n");
    CHECK(!strstr(md, "| unknown |"));
    CHECK(!exists_in(tmp, "PWNED") && !exists_in(staging, "PWNED"));
    free(md);
}

static void test_no_gnuplot(const char *staging, const char *diff)
{
    char dir[PATH_MAX], bin[PATH_MAX], *saved = strdup(getenv("PATH") ? getenv("PATH") : "");
    snprintf(dir, sizeof dir, "%s/bare", tmp);
    snprintf(bin, sizeof bin, "%s/empty-bin", tmp);
    mkdir(dir, 0755);
    mkdir(bin, 0755);
    gdt_nightly_in in = {GDT_TEST_DATA "/nightly", staging, 1u << GDT_FAMILY_GEMM, diff, history_text, "20261201", NULL};
    gdt_error e = {0};
    bool drawn = true;
    setenv("PATH", bin, 1);
    CHECK_INT(gdt_nightly_report_write(&in, dir, &drawn, &e), ==, GDT_STATUS_OK);
    setenv("PATH", saved, 1);
    free(saved);
    CHECK(!drawn);
    CHECK(exists_in(dir, "nightly.gp") && exists_in(dir, "nightly_winners.dat") &&
          exists_in(dir, "nightly_history.dat"));
    CHECK(!exists_in(dir, GDT_NIGHTLY_WINNERS));
    char *md = read_in(dir, GDT_NIGHTLY_MD);
    CHECK_CONTAINS(md, "run `gnuplot nightly.gp` here to draw them");
    free(md);
}

static void test_md_code(void)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    gdt_md_code(f, "a|b`c");
    fputc(' ', f);
    gdt_md_code(f, "`x`\ny");
    fclose(f);
    CHECK_STR(buf, "``a\\|b`c`` `` `x`\\ny ``");
    free(buf);
}

int main(void)
{
    char staging[PATH_MAX];
    CHECK(mkdtemp(tmp) != NULL);
    test_md_code();
    char *diff = staged(staging, sizeof staging);
    test_report(staging, diff);
    test_no_gnuplot(staging, diff);
    free(diff);
    CHECK_INT(gdt_test_remove_tree(tmp), ==, 0);
    return gdt_test_result("test_nightly_report");
}
