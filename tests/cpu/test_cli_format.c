/* --format json on `candidates`, `plans` and `report`: stdout holds exactly
 * one JSON document (stderr kept apart), with its "schema" and the fields
 * README's command reference names, for known shapes: a GEMM whose rows
 * project and are rejected on sm100, the committed test tables, and the
 * committed H200 GEMM journal (cross-checked against its summary.md).
 * --format csv on the same: RFC 4180 (read back by a strict reader here),
 * one line per element of the JSON's rows, the same values. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdt_test.h"

extern char **environ;

static char scratch[] = "/tmp/gdt_cli_format_XXXXXX";
static char out[1 << 20];

/* gdtune args... with stdout alone captured into out (stderr to a file of
 * its own); returns the exit status. */
static int run_json(const char *const *args)
{
    char *argv[16] = {(char *)gdt_test_exe()};
    char so[PATH_MAX], se[PATH_MAX];
    for (int i = 0; args[i] && i < 14; i++)
        argv[i + 1] = (char *)args[i];
    snprintf(so, sizeof so, "%s/stdout", scratch);
    snprintf(se, sizeof se, "%s/stderr", scratch);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, so, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, se, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    pid_t pid;
    int st = -1, rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    FILE *f = fopen(so, "r");
    size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = '\0';
    if (f)
        fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole of stdout as one document: nothing before or after it. */
static cJSON *one_document(const char *what)
{
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithOpts(out, &end, false);
    while (end && (*end == '\n' || *end == ' '))
        end++;
    if (!doc || !end || *end)
        fprintf(stderr, "%s: stdout is not one JSON document:\n%.2000s\n", what, out);
    CHECK(doc != NULL);
    CHECK(end && *end == '\0');
    return doc;
}

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, key);
    CHECK(cJSON_IsNumber(n));
    return cJSON_IsNumber(n) ? n->valuedouble : -1;
}

static const cJSON *at(const cJSON *o, const char *key, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, key), i);
}

/* ------------------------------------------------------- candidates */

static void test_candidates(void)
{
    const char *args[] = {"candidates", "gemm", "--format", "json", "--shape", "m=48,n=64,k=32",
                          "--arch", "sm100", NULL};
    CHECK_INT(run_json(args), ==, 0);
    cJSON *doc = one_document("candidates");
    CHECK_STR(str(doc, "schema"), "gdtune.candidates/2");
    CHECK_STR(str(doc, "arch"), "sm100");
    const cJSON *fam = at(doc, "families", 0), *slot = at(fam, "slots", 0);
    CHECK_STR(str(fam, "family"), "gemm");
    CHECK_STR(str(fam, "key"), "gemm:b1,m48,n64,k32,bf16,a=row,b=row");
    CHECK_STR(str(slot, "slot"), "gemm.nvrtc");
    CHECK_STR(str(slot, "row_family"), "contraction");
    CHECK_STR(str(slot, "rows_from"), "tables/candidates/nvrtc.json");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(slot, "offered")));
    const cJSON *rows = cJSON_GetObjectItem(slot, "rows"), *counts = cJSON_GetObjectItem(slot, "counts"), *r;
    int seen[3] = {0, 0, 0}, projected = 0, wgmma = 0;
    cJSON_ArrayForEach(r, rows) {
        const char *status = str(r, "status");
        CHECK(status != NULL);
        if (!status)
            continue;
        seen[!strcmp(status, "duplicate") ? 1 : !strcmp(status, "rejected") ? 2 : 0]++;
        if (!strcmp(status, "rejected"))
            wgmma += str(r, "reason") && strstr(str(r, "reason"), "MMA=1 (wgmma) needs sm_90a, target is sm100");
        if (!strcmp(status, "plan")) {
            CHECK(!strncmp(str(r, "plan"), "gemm.nvrtc[", 11));
            projected += num(cJSON_GetObjectItem(r, "bound"), "BM") !=
                         num(cJSON_GetObjectItem(r, "requested"), "BM");
        }
    }
    CHECK_INT(num(counts, "rows"), ==, cJSON_GetArraySize(rows));
    CHECK_INT(num(counts, "plans"), ==, seen[0]);
    CHECK_INT(num(counts, "duplicates"), ==, seen[1]);
    CHECK_INT(num(counts, "rejected"), ==, seen[2]);
    CHECK_INT(seen[0], >, 0);
    CHECK_INT(seen[1], >, 0);
    CHECK_INT(seen[2], >, 0);
    CHECK_INT(projected, >, 0); /* m=48 projects the requested BM=128 down */
    CHECK_INT(wgmma, >, 0);
    cJSON_Delete(doc);
}

/* ------------------------------------------------------------ plans */

static void test_plans(void)
{
    const char *args[] = {"plans", "gemm", "--format", "json", "--tables", GDT_TEST_DATA "/tables",
                          "--shape", "m=4096", NULL};
    CHECK_INT(run_json(args), ==, 0);
    cJSON *doc = one_document("plans");
    CHECK_STR(str(doc, "schema"), "gdtune.plans/2");
    CHECK_STR(str(doc, "arch"), "sm90");
    CHECK_STR(cJSON_GetStringValue(at(doc, "modes", 0)), "A");
    const cJSON *fam = at(doc, "families", 0), *p0 = at(fam, "plans", 0), *p1 = at(fam, "plans", 1);
    CHECK_STR(str(fam, "family"), "gemm");
    CHECK_STR(str(fam, "key"), "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row");
    CHECK_CONTAINS(str(fam, "tables"), GDT_TEST_DATA "/tables/sm90/gemm.{placement,tuning}.json");
    CHECK_INT(num(p0, "index"), ==, 0);
    CHECK_STR(str(p0, "name"), "gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256]");
    CHECK_STR(str(p0, "mode"), "A");
    CHECK_STR(str(p0, "why"), "measured rank");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(p0, "marker")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(p0, "backend")));
    CHECK_STR(str(p1, "name"), "cudnn.eng7[KERNEL_CFG=1]");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(p1, "backend")));
    cJSON_Delete(doc);
}

/* ----------------------------------------------------------- report */

static void write_journal(const char *run)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK_INT(mkdir(run, 0755), ==, 0);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    CHECK(fd >= 0);
    char *argv[] = {"gunzip", "-c", GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz",
                    NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    pid_t pid;
    int st = -1;
    CHECK_INT(posix_spawnp(&pid, "gunzip", &fa, NULL, argv, environ), ==, 0);
    waitpid(pid, &st, 0);
    posix_spawn_file_actions_destroy(&fa);
    close(fd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_report(void)
{
    char run[PATH_MAX], md[PATH_MAX + 32], row[512], row2[512];
    snprintf(run, sizeof run, "%s/run", scratch);
    write_journal(run);
    const char *args[] = {"report", run, "--format", "json", NULL};
    CHECK_INT(run_json(args), ==, 0);
    cJSON *doc = one_document("report");
    CHECK_STR(str(doc, "schema"), "gdtune.report/2");
    CHECK_STR(str(doc, "family"), "gemm");
    CHECK_INT(num(doc, "arch"), ==, 90);
    CHECK_STR(str(doc, "device"), "NVIDIA H200");
    snprintf(md, sizeof md, "%s/report/summary.md", run);
    CHECK_STR(str(doc, "summary_md"), md);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "cells")), ==, 12);
    const cJSON *c = at(doc, "cells", 0), *n = cJSON_GetObjectItem(c, "counts");
    const cJSON *ours = cJSON_GetObjectItem(c, "best_ours"), *theirs = cJSON_GetObjectItem(c, "best_backend");
    CHECK_INT(num(c, "cell"), ==, 0);
    CHECK_STR(str(c, "family"), "gemm");
    CHECK_STR(str(c, "shape"), "m=128,n=4096,k=4096,dtype=bf16");
    CHECK(!strncmp(str(ours, "plan") ? str(ours, "plan") : "", "gemm.nvrtc[", 11));
    CHECK(!strncmp(str(theirs, "plan") ? str(theirs, "plan") : "", "cudnn.", 6));
    /* ratio: ours over the backend's time (< 1: ours faster), as in the tables */
    CHECK_NEAR(num(c, "ratio"), num(ours, "time_us") / num(theirs, "time_us"), 1e-9);
    CHECK_STR(str(c, "key"), "gemm:b1,m128,n4096,k4096,bf16,a=row,b=row");
    CHECK(num(ours, "engine_id") >= 20000);
    /* The same figures as the summary.md row of that cell. */
    /* (the converged count between them is the journal's: JSON does not carry it) */
    snprintf(row, sizeof row, "| 0 | gemm | m=128,n=4096,k=4096,dtype=bf16 | %d / %d / %d / %d / %d | ",
             (int)num(n, "verified"), (int)num(n, "incorrect"), (int)num(n, "failed"), (int)num(n, "declined"),
             (int)num(n, "not_run"));
    snprintf(row2, sizeof row2, " / 0 | `%s` | %.2f us ±", str(ours, "plan"), num(ours, "time_us"));
    FILE *f = fopen(md, "r");
    size_t len = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[len] = '\0';
    if (f)
        fclose(f);
    CHECK_CONTAINS(out, row);
    CHECK_CONTAINS(out, row2);
    CHECK_INT(num(n, "verified"), >, 0);
    /* The placement by the tables' rule, the declines grouped by reason (the
     * 2026-11-29 fixture: every decline is a cuDNN config that does not
     * finalize), nothing incorrect or failed and so no banner. */
    CHECK_CONTAINS(out, "| TRAIL, beyond noise | — | — |\n"); /* no cuBLASLt plan in that run */
    CHECK_CONTAINS(out, "## Declined plans by reason (79)\n\n- 79 x engine config finalize: CUDNN_STATUS_NOT_SUPPORTED");
    CHECK_CONTAINS(out, "## Plans incorrect or failed\n\nNone.\n");
    CHECK(strstr(out, "INCORRECT") == NULL);
    /* Every figure linked, relative to the summary; the script draws times
     * on a log axis, host and device apart, the fastest plans named. */
    CHECK_CONTAINS(out, "- [overview: each kind's best plan / the best cuDNN plan, per cell](overview.svg)\n");
    CHECK_CONTAINS(out, "- cell 0, gemm m128 n4096 k4096: [plans](cell_000_plans.svg), [per call vs burst](cell_000_bursts.svg)\n");
    snprintf(md, sizeof md, "%s/report/figures.gp", run);
    f = fopen(md, "r");
    len = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[len] = '\0';
    if (f)
        fclose(f);
    CHECK_CONTAINS(out, "set output 'overview.svg'");
    CHECK_CONTAINS(out, "set logscale y\n");
    CHECK_CONTAINS(out, "set multiplot layout 2,1");
    CHECK_CONTAINS(out, "set label 1 '#1 ");
    CHECK(strstr(out, scratch) == NULL); /* no absolute path */
    cJSON_Delete(doc);
}

/* ------------------------------------------------------------- csv */

#define CSV_ROWS 1024
#define CSV_COLS 24
static char *csv[CSV_ROWS][CSV_COLS];
static int csv_nrows, csv_ncols[CSV_ROWS];

static void csv_free(void)
{
    for (int r = 0; r < csv_nrows; r++)
        for (int c = 0; c < csv_ncols[r]; c++)
            free(csv[r][c]);
    csv_nrows = 0;
}

/* A strict RFC 4180 reader of out: CRLF line ends, a quoted field's quotes
 * doubled, nothing after a closing quote but a comma or the line end.
 * Returns false (and says where) on anything else. */
static bool csv_read(const char *what)
{
    const char *p = out;
    csv_free();
    while (*p && csv_nrows < CSV_ROWS) {
        int r = csv_nrows++, c = 0;
        csv_ncols[r] = 0;
        for (;;) {
            char *f = malloc(strlen(p) + 1), *w = f;
            if (*p == '"') {
                for (p++; *p && !(*p == '"' && p[1] != '"'); p++)
                    *w++ = *p == '"' ? *++p : *p;
                if (*p++ != '"' || (*p != ',' && *p != '\r'))
                    return fprintf(stderr, "%s: row %d field %d: bad quoting\n", what, r, c), free(f), false;
            } else {
                while (*p && *p != ',' && *p != '\r' && *p != '\n' && *p != '"')
                    *w++ = *p++;
                if (*p == '"' || *p == '\n')
                    return fprintf(stderr, "%s: row %d field %d: stray quote or bare LF\n", what, r, c),
                           free(f), false;
            }
            *w = '\0';
            if (c < CSV_COLS)
                csv[r][c] = f, csv_ncols[r] = ++c;
            else
                free(f);
            if (*p == ',') {
                p++;
                continue;
            }
            if (p[0] != '\r' || p[1] != '\n')
                return fprintf(stderr, "%s: row %d: line does not end in CRLF\n", what, r), false;
            p += 2;
            break;
        }
    }
    return csv_nrows > 0;
}

static int csv_col(const char *header)
{
    for (int c = 0; c < csv_ncols[0]; c++)
        if (!strcmp(csv[0][c], header))
            return c;
    fprintf(stderr, "csv: no column %s\n", header);
    CHECK(false);
    return 0;
}

/* Same arguments with --format csv: one line per element of rows (the JSON
 * array at fam.key per family, or doc.key), every line as wide as the
 * header. */
static void check_csv_rows(const char *what, const char *const *args, int nrows)
{
    CHECK_INT(run_json(args), ==, 0);
    CHECK(csv_read(what));
    CHECK_INT(csv_nrows, ==, nrows + 1);
    for (int r = 1; r < csv_nrows; r++)
        CHECK_INT(csv_ncols[r], ==, csv_ncols[0]);
}

static void test_csv(void)
{
    /* plans: the names and flags of the JSON list, in order. */
    const char *pj[] = {"plans", "gemm", "--format", "json", "--tables", GDT_TEST_DATA "/tables",
                        "--shape", "m=4096", NULL};
    const char *pc[] = {"plans", "gemm", "--format", "csv", "--tables", GDT_TEST_DATA "/tables",
                        "--shape", "m=4096", NULL};
    CHECK_INT(run_json(pj), ==, 0);
    cJSON *doc = one_document("plans");
    const cJSON *plans = cJSON_GetObjectItem(at(doc, "families", 0), "plans");
    check_csv_rows("plans csv", pc, cJSON_GetArraySize(plans));
    CHECK_STR(csv[0][0], "family");
    for (int r = 1; r < csv_nrows && r <= cJSON_GetArraySize(plans); r++) {
        const cJSON *x = cJSON_GetArrayItem(plans, r - 1);
        CHECK_STR(csv[r][csv_col("key")], "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row");
        CHECK_STR(csv[r][csv_col("name")], str(x, "name") ? str(x, "name") : "");
        CHECK_STR(csv[r][csv_col("marker")], cJSON_IsTrue(cJSON_GetObjectItem(x, "marker")) ? "true" : "false");
        CHECK_INT(atoi(csv[r][csv_col("index")]), ==, r - 1);
    }
    cJSON_Delete(doc);
    /* candidates: every row of the slot, bound knobs as k=v;k=v. */
    const char *cc[] = {"candidates", "gemm", "--format", "csv", "--shape", "m=48,n=64,k=32", "--arch",
                        "sm100", NULL};
    const char *cj[] = {"candidates", "gemm", "--format", "json", "--shape", "m=48,n=64,k=32", "--arch",
                        "sm100", NULL};
    CHECK_INT(run_json(cj), ==, 0);
    doc = one_document("candidates");
    const cJSON *rows = cJSON_GetObjectItem(at(at(doc, "families", 0), "slots", 0), "rows");
    check_csv_rows("candidates csv", cc, cJSON_GetArraySize(rows));
    const cJSON *r0 = cJSON_GetArrayItem(rows, 0);
    char bound[256];
    snprintf(bound, sizeof bound, "BM=%d;", (int)num(cJSON_GetObjectItem(r0, "bound"), "BM"));
    CHECK(!strncmp(csv[1][csv_col("bound")], bound, strlen(bound)));
    CHECK_STR(csv[1][csv_col("status")], str(r0, "status"));
    cJSON_Delete(doc);
    /* report: one line per cell; the first cell's best plans and ratio. */
    char run[PATH_MAX];
    snprintf(run, sizeof run, "%s/run", scratch);
    const char *rj[] = {"report", run, "--format", "json", NULL}, *rc[] = {"report", run, "--format", "csv", NULL};
    CHECK_INT(run_json(rj), ==, 0);
    doc = one_document("report");
    const cJSON *c0 = at(doc, "cells", 0);
    check_csv_rows("report csv", rc, cJSON_GetArraySize(cJSON_GetObjectItem(doc, "cells")));
    CHECK_STR(csv[1][csv_col("shape")], "m=128,n=4096,k=4096,dtype=bf16");
    CHECK_STR(csv[1][csv_col("best_ours")], str(cJSON_GetObjectItem(c0, "best_ours"), "plan"));
    CHECK_NEAR(atof(csv[1][csv_col("ratio")]), num(c0, "ratio"), 1e-12);
    CHECK_INT(atoi(csv[1][csv_col("verified")]), ==, (int)num(cJSON_GetObjectItem(c0, "counts"), "verified"));
    cJSON_Delete(doc);
    csv_free();
    /* A format the table does not know is bad usage. */
    const char *bad[] = {"plans", "gemm", "--format", "xml", NULL};
    CHECK_INT(run_json(bad), ==, 2);
}

int main(void)
{
    if (!mkdtemp(scratch))
        return perror("mkdtemp"), 1;
    test_candidates();
    test_plans();
    test_report();
    test_csv();
    CHECK_INT(gdt_test_remove_tree(scratch), ==, 0);
    return gdt_test_result("test_cli_format");
}
