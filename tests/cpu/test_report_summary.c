/* summary.md of the fixture GEMM journal: each cell's "top 3 converged"
 * and the run's count, and the fraction of the measured ceiling, against
 * figures worked out by hand from the journal (the fastest three verified
 * plans of each cell and their converged flags; flops, operand bytes and
 * the sm90 ceilings of reports/ceiling.c). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gdt_ceiling.h"
#include "gdt_test.h"
#include "gdt_util.h"

static char out[1 << 16];

static char *summary_of_fixture(char *dir)
{
    char journal[PATH_MAX], md[PATH_MAX];
    char *gz[] = {"gunzip", "-c", GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz", NULL};
    CHECK(mkdtemp(dir) != NULL);
    snprintf(journal, sizeof journal, "%s/journal.jsonl", dir);
    static char text[16u << 20];
    CHECK_INT(gdt_test_spawn(gz, NULL, text, sizeof text), ==, 0);
    FILE *f = fopen(journal, "w");
    CHECK(f != NULL);
    if (!f)
        return NULL;
    fputs(text, f);
    fclose(f);
    char *av[] = {(char *)gdt_test_exe(), "report", dir, NULL};
    CHECK_INT(gdt_test_spawn(av, NULL, out, sizeof out), ==, 0);
    char *s = NULL;
    snprintf(md, sizeof md, "%s/report/summary.md", dir);
    CHECK_INT(gdt_file_read(md, &s, NULL, NULL), ==, GDT_STATUS_OK);
    return s;
}

/* The line of summary.md's cell table for cell ci. */
static const char *cell_line(const char *md, int ci, char *buf, size_t n)
{
    char head[32];
    snprintf(head, sizeof head, "\n| %d | gemm |", ci);
    const char *p = strstr(md, head);
    const char *end = p ? strchr(p + 1, '\n') : NULL;
    snprintf(buf, n, "%.*s", p && end ? (int)(end - p - 1) : 0, p ? p + 1 : "");
    return buf;
}

static void test_top3(const char *md)
{
    /* converged flags of the three fastest verified plans, per cell */
    static const char *const want[12] = {"**1/3**", "3/3", "**2/3**", "**1/3**", "**0/3**", "**0/3**",
                                         "**0/3**", "**0/3**", "**0/3**", "**1/3**", "**0/3**", "**0/3**"};
    char line[4096], cell[32];
    for (int ci = 0; ci < 12; ci++) {
        snprintf(cell, sizeof cell, " / 0 | %s | ", want[ci]); /* after the disposition counts */
        CHECK_CONTAINS(cell_line(md, ci, line, sizeof line), cell);
    }
    CHECK_CONTAINS(md, " / not run | top 3 converged | converged / raced out |");
    CHECK_CONTAINS(md, "\n1 of 12 cells' top three converged");
}

/* Each cell's best plans with the command that measures them again. */
static void test_again(const char *md)
{
    CHECK_CONTAINS(md, "\n## Measure a cell's best plans again\n");
    CHECK_CONTAINS(md, "\n# cell 0: m=");
    CHECK_CONTAINS(md, "\ngdtune bench gemm --shape m=");
    CHECK_CONTAINS(md, " --plan 'cudnn.eng0[KERNEL_CFG=1]'\n");
}

static void test_ceiling(const char *md)
{
    const gdt_ceiling *c = gdt_ceiling_find(90);
    CHECK(c != NULL);
    CHECK(gdt_ceiling_find(75) == NULL);
    /* m=128 n=4096 k=4096 bf16: 2mnk = 4.295e9 flops, (mk + kn + mn) * 2 =
     * 35651584 bytes; at 4.3 TB/s 8.291 us > 5.437 us at 790 TFLOP/s:
     * memory-bound; 8.291 / 18.67 and / 12.79 us. */
    CHECK_CONTAINS(md, "| 0 | memory | 4.295 | 35.652 | 8.291 | 0.444 | 0.648 |");
    /* m=1024: 34.36 GFLOP at 790 TFLOP/s, 43.493 us > 11.705 us for 50.33 MB. */
    CHECK_CONTAINS(md, "| 3 | compute | 34.360 | 50.332 | 43.493 | 0.619 | 0.958 |");
    CHECK_CONTAINS(md, "Measured ceiling, see docs/method.md");
    CHECK_CONTAINS(md, "[overview: each side's best plan as a fraction of the measured ceiling](overview_ceiling.svg)");
    gdt_problem p = {0};
    p.family = GDT_FAMILY_GEMM;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "m=128,n=4096,k=4096", &p, NULL), ==, GDT_STATUS_OK);
    gdt_roofline r;
    gdt_roofline_of(&p, c, &r);
    CHECK_NEAR(r.bytes, 35651584.0, 0.5);
    CHECK_NEAR(r.floor_us, 35651584.0 / 4.3e6, 1e-9);
    CHECK(r.memory_bound);
    CHECK_NEAR(gdt_roofline_fraction(&r, 2 * r.floor_us), 0.5, 1e-12);
    CHECK_NEAR(gdt_roofline_fraction(&r, 0), 0, 0);
}

int main(void)
{
    char dir[] = "/tmp/gdt_report_summary_XXXXXX";
    char *md = summary_of_fixture(dir);
    if (md) {
        test_top3(md);
        test_again(md);
        test_ceiling(md);
    }
    free(md);
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_report_summary");
}
