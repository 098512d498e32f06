/* --format json summaries of `sweep`, `merge`, `tables emit` and `tables
 * check`: stdout holds exactly one document (stderr apart), its schema,
 * and fields checked against what the run did: the sweep's counts against
 * its journal, a stopped sweep as resumable, a resume that is not refused
 * for another argv, the journal header's argv as given, the merge's inputs
 * and conflicts, the cells emit left out, the check's error parts.  The
 * sweeps run against test_cli_sweep's stand-in worker (its plans: 2
 * verified, 1 incorrect, 3 failed per cell). */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_cli_summary.h"
#include "gdt_journal.h"
#include "gdt_test.h"
#include "gdt_util.h"

static char dir[] = "/tmp/gdt_cli_summaries_XXXXXX";
static char err[65536];

/* gdtune args... (NULL-ended), stdout into DIR/stdout, stderr into err;
 * the exit status, and stdout parsed as the one document it must be
 * (*doc NULL when it is not: the test fails). */
static int run_json(const char *const *args, cJSON **doc)
{
    char *argv[32] = {(char *)gdt_test_exe()}, so[PATH_MAX];
    for (int i = 0; args[i] && i < 30; i++)
        argv[i + 1] = (char *)args[i];
    snprintf(so, sizeof so, "%s/stdout", dir);
    int rc = gdt_test_spawn_to(argv, NULL, so, err, sizeof err);
    gdt_error e = {0};
    char *text = NULL;
    size_t len = 0;
    *doc = NULL;
    if (gdt_file_read(so, &text, &len, &e) == GDT_STATUS_OK) {
        const char *end = NULL;
        *doc = cJSON_ParseWithOpts(text, &end, false);
        while (end && (*end == '\n' || *end == ' '))
            end++;
        if (!end || *end)
            cJSON_Delete(*doc), *doc = NULL;
    }
    if (!*doc)
        fprintf(stderr, "gdtune %s ...: stdout is not one JSON document:\n%.2000s\nstderr:\n%.2000s\n", args[0],
                text ? text : "", err);
    CHECK(*doc != NULL);
    free(text);
    return rc;
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(get(o, key));
}

static int num(const cJSON *o, const char *key)
{
    const cJSON *n = get(o, key);
    CHECK(cJSON_IsNumber(n));
    return cJSON_IsNumber(n) ? n->valueint : -1;
}

static bool is_true(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(get(o, key));
}

/* ------------------------------------------------------- the journal */

/* Per disposition, each plan's first result in DIR/journal.jsonl, and
 * how many results: what the summary's counts must say.  *header: the
 * first record (the caller deletes it). */
typedef struct tally {
    int verified, incorrect, failed, declined, results;
    cJSON *header, *resume;
} tally;

static tally read_journal(const char *run)
{
    char path[PATH_MAX];
    gdt_journal_lines l;
    gdt_error e = {0};
    tally t = {0};
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < l.n; i++) {
        cJSON *r = cJSON_Parse(l.line[i]);
        const char *type = str(r, "type"), *d = str(r, "disposition");
        if (i == 0)
            t.header = r, r = NULL;
        else if (type && !strcmp(type, "resume"))
            cJSON_Delete(t.resume), t.resume = r, r = NULL;
        else if (type && !strcmp(type, "result") && d) {
            t.results++;
            t.verified += !strcmp(d, "verified");
            t.incorrect += !strcmp(d, "incorrect");
            t.failed += !strcmp(d, "failed");
            t.declined += !strcmp(d, "declined");
        }
        cJSON_Delete(r);
    }
    gdt_journal_lines_free(&l);
    return t;
}

static void tally_free(tally *t)
{
    cJSON_Delete(t->header);
    cJSON_Delete(t->resume);
}

/* Keeps the journal up to its first result: a sweep killed there. */
static void cut_after_first_result(const char *run)
{
    char path[PATH_MAX], *text = NULL;
    size_t len = 0;
    gdt_error e = {0};
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK_INT(gdt_file_read(path, &text, &len, &e), ==, GDT_STATUS_OK);
    char *hit = text ? strstr(text, "\"type\":\"result\"") : NULL;
    char *nl = hit ? strchr(hit, '\n') : NULL;
    CHECK(nl != NULL);
    if (nl)
        CHECK_INT(truncate(path, (off_t)(nl + 1 - text)), ==, 0);
    free(text);
}

/* The array holds exactly want[0..n) as strings. */
static void check_strings(const cJSON *a, const char *const *want, int n)
{
    CHECK_INT(cJSON_GetArraySize(a), ==, n);
    for (int i = 0; i < n && i < cJSON_GetArraySize(a); i++)
        CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(a, i)), want[i]);
}

/* ------------------------------------------------------------- sweep */

/* The summary's counts and cells against the journal. */
static void check_counts(const cJSON *doc, const char *run, int cells, int plans)
{
    tally t = read_journal(run);
    const cJSON *c = get(doc, "counts");
    CHECK_INT(num(doc, "cells"), ==, cells);
    CHECK_INT(num(doc, "plans"), ==, plans);
    CHECK_INT(num(c, "verified"), ==, t.verified);
    CHECK_INT(num(c, "incorrect"), ==, t.incorrect);
    CHECK_INT(num(c, "failed"), ==, t.failed);
    CHECK_INT(num(c, "declined"), ==, t.declined);
    CHECK_INT(num(c, "not_run"), ==, plans - t.results);
    tally_free(&t);
}

/* report's summary.md names the command the header recorded. */
static void check_report_invocation(const char *run, const char *tables)
{
    char cmd[4096], out[65536], md[PATH_MAX + 32], want[4096], *text = NULL;
    size_t len = 0;
    gdt_error e = {0};
    snprintf(cmd, sizeof cmd, "%s report %s", gdt_test_exe(), run);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    snprintf(md, sizeof md, "%s/report/summary.md", run);
    CHECK_INT(gdt_file_read(md, &text, &len, &e), ==, GDT_STATUS_OK);
    snprintf(want, sizeof want, "- run as `gdtune sweep gemm --spec %s/sweeps/tiny_gemm.json --out %s --tables-dir "
             "%s --deadline 1 --format json`\n", GDT_TEST_DATA, run, tables);
    CHECK_CONTAINS(text ? text : "", want);
    free(text);
}

/* The stand-in's tiny GEMM sweep, finished: exit 4 (an incorrect plan),
 * every count the journal's, the tables and raw.h5 where it says. */
static void test_sweep_finished(const char *run, const char *tables)
{
    const char *args[] = {"sweep", "gemm", "--spec", GDT_TEST_DATA "/sweeps/tiny_gemm.json", "--out", run,
                          "--tables-dir", tables, "--deadline", "1", "--format", "json", NULL};
    cJSON *doc;
    CHECK_INT(run_json(args, &doc), ==, 4);
    CHECK_STR(str(doc, "schema"), "gdtune.sweep_summary/1");
    CHECK_STR(str(doc, "family"), "gemm");
    CHECK_STR(str(doc, "arch"), "sm90");
    CHECK_STR(str(doc, "device"), "Stand-in GPU");
    CHECK_STR(str(doc, "run_dir"), run);
    CHECK(is_true(doc, "finished"));
    CHECK(!is_true(doc, "resumable") && !is_true(doc, "resumed"));
    CHECK_INT(num(doc, "exit_code"), ==, 4);
    CHECK(cJSON_IsNull(get(doc, "error")));
    CHECK(cJSON_IsNumber(get(doc, "wall_s")) && get(doc, "wall_s")->valuedouble > 0);
    check_counts(doc, run, 2, 12);
    CHECK_INT(num(get(doc, "counts"), "verified"), ==, 4); /* the stand-in's: 2 per cell */
    CHECK_INT(num(doc, "cells_complete"), ==, 2);
    const cJSON *t0 = cJSON_GetArrayItem(get(doc, "tables"), 0);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "%s/sm90/gemm.tuning.json", tables);
    CHECK_STR(str(t0, "tuning"), want);
    CHECK(access(want, F_OK) == 0);
    CHECK_INT(num(t0, "cells"), ==, 2);
    CHECK(str(doc, "raw_h5") && access(str(doc, "raw_h5"), F_OK) == 0);
    CHECK(!strstr(err, "\"schema\"")); /* stderr has the messages, not the document */
    CHECK_CONTAINS(err, "2 plans incorrect");
    /* the journal header keeps the invocation as given */
    tally t = read_journal(run);
    const char *inv[] = {"gdtune", "sweep", "gemm", "--spec", GDT_TEST_DATA "/sweeps/tiny_gemm.json", "--out", run,
                         "--tables-dir", tables, "--deadline", "1", "--format", "json"};
    check_strings(get(t.header, "argv"), inv, 13);
    tally_free(&t);
    cJSON_Delete(doc);
    check_report_invocation(run, tables);
}

/* A copy of the file from at to, the first find in it overwritten by put
 * (as many bytes as put has). */
static void copy_edited(const char *from, const char *to, const char *find, const char *put)
{
    char *text = NULL;
    size_t len = 0;
    gdt_error e = {0};
    CHECK_INT(gdt_file_read(from, &text, &len, &e), ==, GDT_STATUS_OK);
    char *at = text ? strstr(text, find) : NULL;
    CHECK(at != NULL && strlen(at) >= strlen(put));
    if (at && strlen(at) >= strlen(put))
        memcpy(at, put, strlen(put));
    FILE *f = at ? fopen(to, "w") : NULL;
    CHECK(f && fwrite(text, 1, len, f) == len && fclose(f) == 0);
    free(text);
}

/* A copy of the stopped run as another build measured it: --resume refuses
 * it (exit 2), so the summary does not call it resumable. */
static void other_build(const char *run)
{
    char from[PATH_MAX + 16], other[PATH_MAX], to[PATH_MAX + 16];
    snprintf(from, sizeof from, "%s/journal.jsonl", run);
    snprintf(other, sizeof other, "%s/other", dir);
    snprintf(to, sizeof to, "%s/journal.jsonl", other);
    CHECK_INT(mkdir(other, 0700), ==, 0);
    copy_edited(from, to, "\"source_digest\":\"", "\"source_digest\":\"ffffffffffffffff");
    const char *args[] = {"sweep", "--resume", other, "--format", "json", NULL};
    cJSON *doc;
    CHECK_INT(run_json(args, &doc), ==, 2);
    CHECK(!is_true(doc, "finished") && !is_true(doc, "resumable"));
    CHECK_CONTAINS(str(doc, "error"), "the run was measured by gdtune source ffffffffffffffff");
    check_counts(doc, other, 2, 6);
    cJSON_Delete(doc);
}

/* Killed after its first result, then resumed where no worker starts: the
 * sweep stops (exit 1) and says it can be resumed, with the journal's
 * counts; resumed with the worker (another argv than the header's), it
 * finishes, and the resume record keeps the resuming argv. */
static void test_sweep_stopped(const char *run, const char *tables)
{
    cut_after_first_result(run);
    setenv("GDTUNE_WORKER_EXE", "/nonexistent/gdtune-worker", 1);
    const char *args[] = {"sweep", "gemm", "--resume", run, "--tables-dir", tables, "--format", "json", NULL};
    cJSON *doc;
    CHECK_INT(run_json(args, &doc), ==, 1);
    CHECK(!is_true(doc, "finished"));
    CHECK(is_true(doc, "resumable"));
    CHECK(is_true(doc, "resumed"));
    CHECK_INT(num(doc, "exit_code"), ==, 1);
    CHECK_CONTAINS(str(doc, "error"), "no CUDA device found");
    check_counts(doc, run, 2, 6); /* the second cell has no plan list yet */
    CHECK_INT(num(doc, "cells_complete"), ==, 0);
    CHECK_INT(cJSON_GetArraySize(get(doc, "tables")), ==, 0);
    CHECK(cJSON_IsNull(get(doc, "raw_h5")));
    cJSON_Delete(doc);

    other_build(run);
    setenv("GDTUNE_WORKER_EXE", SWEEP_WORKER, 1);
    const char *again[] = {"sweep", "--resume", run, "--tables-dir", tables, "--deadline", "1", "--format", "json",
                           NULL};
    CHECK_INT(run_json(again, &doc), ==, 4);
    CHECK(is_true(doc, "finished") && !is_true(doc, "resumable"));
    check_counts(doc, run, 2, 12);
    tally t = read_journal(run);
    const char *resumed[] = {"gdtune", "sweep", "--resume", run, "--tables-dir", tables, "--deadline", "1",
                             "--format", "json"};
    check_strings(get(t.resume, "argv"), resumed, 10);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(get(t.header, "argv"), 2)), "gemm"); /* kept */
    tally_free(&t);
    cJSON_Delete(doc);
}

/* No worker at all: stopped before any journal, nothing to resume. */
static void test_sweep_no_journal(void)
{
    char run[PATH_MAX];
    snprintf(run, sizeof run, "%s/never", dir);
    setenv("GDTUNE_WORKER_EXE", "/nonexistent/gdtune-worker", 1);
    const char *args[] = {"sweep", "gemm", "--spec", GDT_TEST_DATA "/sweeps/tiny_gemm.json", "--out", run,
                          "--format", "json", NULL};
    cJSON *doc;
    CHECK_INT(run_json(args, &doc), ==, 1);
    CHECK(!is_true(doc, "finished") && !is_true(doc, "resumable"));
    CHECK(cJSON_IsNull(get(doc, "run_dir")));
    CHECK(cJSON_IsNull(get(doc, "counts")));
    cJSON_Delete(doc);
    setenv("GDTUNE_WORKER_EXE", SWEEP_WORKER, 1);
}

/* -------------------------------------------------------- merge, emit */

static void sweep_shard(const char *run, const char *shard, const char *tables)
{
    char cmd[4096], out[65536];
    snprintf(cmd, sizeof cmd, "%s sweep gemm --spec %s/sweeps/tiny_gemm.json --out %s --tables-dir %s "
             "--deadline 1 --shard %s", gdt_test_exe(), GDT_TEST_DATA, run, tables, shard);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 4);
}

/* Two shards merged: each input with its shard and counts, one table of
 * both cells, no conflict; one shard twice: refused (exit 2), the
 * conflict named with both journals. */
static void test_merge(const char *tables)
{
    char s0[PATH_MAX], s1[PATH_MAX], out[PATH_MAX], j1[PATH_MAX + 16];
    snprintf(s0, sizeof s0, "%s/shard0", dir);
    snprintf(s1, sizeof s1, "%s/shard1", dir);
    snprintf(out, sizeof out, "%s/merged", dir);
    snprintf(j1, sizeof j1, "%s/journal.jsonl", s1);
    sweep_shard(s0, "0/2", tables);
    sweep_shard(s1, "1/2", tables);
    const char *args[] = {"merge", s0, s1, "--tables-dir", out, "--format", "json", NULL};
    cJSON *doc;
    CHECK_INT(run_json(args, &doc), ==, 0);
    CHECK_STR(str(doc, "schema"), "gdtune.merge/1");
    CHECK(is_true(doc, "ok") && cJSON_IsNull(get(doc, "error")));
    CHECK_STR(str(doc, "tables_dir"), out);
    const cJSON *in1 = cJSON_GetArrayItem(get(doc, "inputs"), 1);
    CHECK_INT(cJSON_GetArraySize(get(doc, "inputs")), ==, 2);
    CHECK_STR(str(in1, "journal"), j1);
    CHECK_INT(num(in1, "shard_i"), ==, 1);
    CHECK_INT(num(in1, "shard_n"), ==, 2);
    CHECK_INT(num(in1, "cells"), ==, 1);
    CHECK_INT(num(in1, "cells_merged"), ==, 1);
    CHECK_INT(num(in1, "results"), ==, 6);
    CHECK_INT(num(doc, "cells"), ==, 2);
    CHECK_INT(num(doc, "results"), ==, 12);
    CHECK_INT(num(cJSON_GetArrayItem(get(doc, "tables"), 0), "cells"), ==, 2);
    CHECK_INT(cJSON_GetArraySize(get(doc, "conflicts")), ==, 0);
    cJSON_Delete(doc);

    const char *twice[] = {"merge", s1, s1, "--tables-dir", out, "--format", "json", NULL};
    CHECK_INT(run_json(twice, &doc), ==, 2);
    CHECK(!is_true(doc, "ok"));
    CHECK_INT(num(doc, "exit_code"), ==, 2);
    CHECK_CONTAINS(str(doc, "error"), "do not make one sweep");
    const cJSON *c = cJSON_GetArrayItem(get(doc, "conflicts"), 0);
    CHECK_INT(cJSON_GetArraySize(get(doc, "conflicts")), ==, 1);
    CHECK_STR(str(c, "what"), "shard 1/2 of gemm");
    const char *both[] = {j1, j1};
    check_strings(get(c, "journals"), both, 2);
    CHECK_INT(cJSON_GetArraySize(get(doc, "tables")), ==, 0);
    cJSON_Delete(doc);
}

/* A journal cut after its first result: emit leaves the cell out, says
 * so, and writes no table. */
static void test_emit(const char *run)
{
    char out[PATH_MAX], journal[PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/emitted", dir);
    snprintf(journal, sizeof journal, "%s/journal.jsonl", run);
    cut_after_first_result(run);
    const char *args[] = {"tables", "emit", run, "--tables-dir", out, "--format", "json", NULL};
    cJSON *doc;
    CHECK_INT(run_json(args, &doc), ==, 0);
    CHECK_STR(str(doc, "schema"), "gdtune.tables_emit/1");
    CHECK(is_true(doc, "ok"));
    const cJSON *l = cJSON_GetArrayItem(get(doc, "left_out"), 0);
    CHECK_INT(cJSON_GetArraySize(get(doc, "left_out")), ==, 1);
    CHECK_STR(str(l, "key"), "gemm:b1,m256,n512,k256,bf16,a=row,b=row");
    CHECK_STR(str(l, "journal"), journal);
    CHECK_INT(num(l, "results"), ==, 1);
    CHECK_INT(num(l, "plans"), ==, 6);
    const char *none[] = {"gemm"};
    check_strings(get(doc, "not_written"), none, 1);
    CHECK_INT(cJSON_GetArraySize(get(doc, "tables")), ==, 0);
    CHECK_INT(num(doc, "cells"), ==, 0);
    CHECK_INT(num(cJSON_GetArrayItem(get(doc, "inputs"), 0), "cells_complete"), ==, 0);
    cJSON_Delete(doc);
}

/* ----------------------------------------------------------- check */

/* A copy of a valid tuning table with its arch changed, beside a valid
 * pair: the bad file's verdict carries the loader's error in parts. */
static void test_check(const char *tables)
{
    char good[PATH_MAX + 64], place[PATH_MAX + 64], bad[PATH_MAX + 64];
    snprintf(good, sizeof good, "%s/sm90/gemm.tuning.json", tables);
    snprintf(place, sizeof place, "%s/sm90/gemm.placement.json", tables);
    snprintf(bad, sizeof bad, "%s/bad.tuning.json", dir);
    copy_edited(good, bad, "\"arch\": \"sm90\"", "\"arch\": \"sm80\"");
    const char *args[] = {"tables", "check", good, bad, place, "--format", "json", NULL};
    cJSON *doc;
    CHECK_INT(run_json(args, &doc), ==, 2);
    CHECK_STR(str(doc, "schema"), "gdtune.tables_check/1");
    CHECK(!is_true(doc, "ok"));
    CHECK_INT(num(doc, "invalid"), ==, 1);
    const cJSON *files = get(doc, "files"), *g = cJSON_GetArrayItem(files, 0), *b = cJSON_GetArrayItem(files, 1);
    const cJSON *p = cJSON_GetArrayItem(files, 2), *be = get(b, "error");
    CHECK_INT(cJSON_GetArraySize(files), ==, 3);
    CHECK(is_true(g, "ok") && cJSON_IsNull(get(g, "error")));
    CHECK_STR(str(g, "kind"), "tuning");
    CHECK_STR(str(g, "arch"), "sm90");
    CHECK_STR(str(g, "family"), "gemm");
    CHECK_INT(num(g, "cells"), ==, 2);
    CHECK_STR(str(p, "kind"), "placement");
    CHECK(cJSON_IsObject(get(p, "model")) || cJSON_IsNull(get(p, "model")));
    CHECK(!is_true(b, "ok"));
    CHECK_STR(str(be, "file"), bad);
    CHECK(str(be, "json_path") && str(be, "json_path")[0] == '/');
    CHECK_CONTAINS(str(be, "expected"), "80");
    CHECK_STR(str(be, "actual"), "90");
    CHECK_CONTAINS(str(be, "message"), "expected 80");
    CHECK(!strstr(err, "\"schema\""));
    cJSON_Delete(doc);
}

/* The splitter alone: a JSON path, a comma inside expected, no got, no
 * parts at all. */
static void test_error_split(void)
{
    gdt_cli_error_parts p;
    gdt__cli_error_split("t/a.json: /cells/3/plans: expected one of A, B, got \"C, got D\"", "t/a.json", &p);
    CHECK(p.has_file && p.has_path && p.has_expected && p.has_actual);
    CHECK_STR(p.file, "t/a.json");
    CHECK_STR(p.json_path, "/cells/3/plans");
    CHECK_STR(p.expected, "one of A, B");
    CHECK_STR(p.actual, "\"C, got D\""); /* the file's text, whatever it holds */
    gdt__cli_error_split("t/a.json: /x: expected an object", "t/a.json", &p);
    CHECK(p.has_expected && !p.has_actual);
    CHECK_STR(p.expected, "an object");
    gdt__cli_error_split("cannot open t/a.json", "t/a.json", &p);
    CHECK(!p.has_file && !p.has_path && !p.has_expected && !p.has_actual);
}

/* ----------------------------------------------------- bad usage */

static void test_usage(void)
{
    static const char *const verbs[][3] = {
        {"sweep", "gemm", NULL}, {"merge", "x", NULL}, {"tables", "emit", "x"}, {"tables", "check", "x"}};
    char out[4096];
    for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++) {
        char *argv[8] = {(char *)gdt_test_exe()};
        int n = 1;
        for (int k = 0; k < 3 && verbs[i][k]; k++)
            argv[n++] = (char *)verbs[i][k];
        argv[n++] = "--format", argv[n++] = "csv";
        CHECK_INT(gdt_test_spawn(argv, NULL, out, sizeof out), ==, 2);
        CHECK_CONTAINS(out, "--format: bad value \"csv\": expected one of text, json");
    }
    char *co[] = {(char *)gdt_test_exe(), "sweep", "gemm", "--arch", "sm90", "--compile-only", "--format", "json", NULL};
    CHECK_INT(gdt_test_spawn(co, NULL, out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "--compile-only measures nothing: its report is text");
}

int main(void)
{
    char run[PATH_MAX], tables[PATH_MAX];
    if (!mkdtemp(dir))
        return fprintf(stderr, "test_cli_summaries: mkdtemp: cannot\n"), 1;
    setenv("GDTUNE_WORKER_EXE", SWEEP_WORKER, 1);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(tables, sizeof tables, "%s/t", dir);
    test_error_split();
    test_usage();
    test_sweep_finished(run, tables);
    test_check(tables);
    test_sweep_stopped(run, tables);
    test_sweep_no_journal();
    test_merge(tables);
    test_emit(run);
    if (gdt_test_failures)
        fprintf(stderr, "test_cli_summaries: scratch kept: %s\n", dir);
    else
        CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_cli_summaries");
}
