/* `gdtune sweep FAMILY --tuning-config FILE` without a GPU, against
 * test_cli_sweep's stand-in worker (SWEEP_WORKER, through
 * GDTUNE_WORKER_EXE), each hello of which logs the digest of the
 * candidate rows it carries (GDT_FAKE_ROWS_LOG):
 *   - the option's usage: its help, a missing value, and --resume with it
 *     refused (a resumed run measures its header's rows);
 *   - a FILE that does not load is bad input, exit 2, the message naming
 *     the file, the JSON path, expected and actual, before any worker
 *     starts or any run directory is made (--compile-only too);
 *   - every worker (two GPUs, and each one respawned after a fault) is
 *     handed the defaults with FILE's families in their place, the rows
 *     `gdtune candidates --tuning-config` merges, and the run header
 *     records those rows and their digest; `tables emit`, `report`,
 *     `compare` and `candidates --journal` read such a journal;
 *   - a resume hands the workers the header's rows, not the defaults;
 *   - without FILE the header keeps tables/candidates/nvrtc.json byte for
 *     byte and the workers get those rows;
 *   - shards of one sweep merge only when their rows are the same;
 *   - --compile-only compiles FILE's rows;
 *   - the real worker (`gdtune worker`) loads a hello's rows and refuses,
 *     by name, rows that do not load. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "gdt_run.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/candidates.h"

#define STAGED GDT_TEST_DATA "/candidates/staged_s37.json"
#define TINY GDT_TEST_DATA "/sweeps/tiny_gemm.json"
#define NO_MORE ((const char *)NULL)

static char out[65536];

/* gdtune ARG... (up to NO_MORE), without a shell: its stdout and stderr
 * into out, its exit status returned. */
static int gdtune(const char *arg, ...)
{
    char *argv[48];
    int n = 0;
    va_list ap;
    argv[n++] = (char *)gdt_test_exe();
    va_start(ap, arg);
    for (const char *a = arg; a && n < 47; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    int rc = gdt_test_spawn(argv, NULL, out, sizeof out);
    return rc;
}

/* The rows a sweep with FILE should measure (NULL: the defaults), as
 * `gdtune candidates --tuning-config` merges them: their digest and how
 * many contraction rows they hold. */
typedef struct rows_want {
    char digest[65];
    int contraction;
} rows_want;

static rows_want rows_of(const char *tuning_config)
{
    rows_want w = {"", -1};
    gdt_row_table *t = NULL;
    gdt_error e = {0};
    CHECK_INT(gdt_rows_load_default(&t, &e), ==, GDT_STATUS_OK);
    if (t && tuning_config)
        CHECK_INT(gdt_rows_override(t, tuning_config, &e), ==, GDT_STATUS_OK);
    if (t) {
        gdt_rows_digest(t, w.digest);
        w.contraction = gdt_rows_count(t, "contraction");
    }
    gdt_rows_destroy(t);
    return w;
}

/* How many hellos the stand-in logged; every one must have carried the
 * rows of digest want. */
static int hellos_with(const char *log, const char *want)
{
    FILE *f = fopen(log, "r");
    char line[128];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        CHECK_STR(line, want);
        n++;
    }
    if (f)
        fclose(f);
    return n;
}

/* The run header's rows are want's: its digest, and rows that load to it. */
static void check_header(const char *run, const rows_want *want)
{
    gdt_run *jr = NULL;
    gdt_row_table *t = NULL;
    gdt_error e = {0};
    char got[65] = "";
    CHECK_INT(gdt_run_load(run, &jr, &e), ==, GDT_STATUS_OK);
    CHECK(jr && jr->candidates);
    if (!jr || !jr->candidates)
        return (void)fprintf(stderr, "%s: %s\n", run, e.msg), gdt_run_destroy(jr);
    CHECK_STR(jr->candidates_digest, want->digest);
    CHECK_INT(gdt_rows_load_text(jr->candidates, strlen(jr->candidates), "header", &t, &e), ==,
              GDT_STATUS_OK);
    if (t)
        gdt_rows_digest(t, got);
    CHECK_STR(got, want->digest);
    CHECK_INT(t ? gdt_rows_count(t, "contraction") : -1, ==, want->contraction);
    gdt_rows_destroy(t);
    gdt_run_destroy(jr);
}

/* Cuts the run's journal after its first result record, as a sweep killed
 * there leaves it. */
static void cut_after_first_result(const char *run)
{
    char path[PATH_MAX], *line = NULL;
    size_t cap = 0;
    off_t keep = 0;
    ssize_t n;
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    while (f && (n = getline(&line, &cap, f)) > 0) {
        keep += n;
        if (strstr(line, "\"type\":\"result\""))
            break;
    }
    if (f)
        fclose(f);
    free(line);
    CHECK_INT(truncate(path, keep), ==, 0);
}

static void test_usage(void)
{
    CHECK_INT(gdtune("sweep", "--help", NO_MORE), ==, 0);
    CHECK_CONTAINS(out, "gdtune sweep FAMILY --tuning-config FILE [options]");
    CHECK_CONTAINS(out, "--tuning-config FILE   candidate rows: each structural family FILE names");
    CHECK_INT(gdtune("sweep", "gemm", "--tuning-config", NO_MORE), ==, 2);
    CHECK_CONTAINS(out, "--tuning-config needs a value");
    CHECK_INT(gdtune("sweep", "gemm", "--resume", "/tmp/x", "--tuning-config", STAGED, NO_MORE), ==, 2);
    CHECK_CONTAINS(out, "--rounds and --tuning-config (it measures the candidate rows its header records)");
}

/* FILE does not load: exit 2 naming it, the JSON path, expected and
 * actual; no worker started (the log stays absent), no run directory. */
static void test_bad_file(const char *dir, const char *log)
{
    char run[PATH_MAX], tables[PATH_MAX], missing[PATH_MAX], want[PATH_MAX + 200];
    snprintf(run, sizeof run, "%s/bad", dir);
    snprintf(tables, sizeof tables, "%s/t", dir);
    snprintf(missing, sizeof missing, "%s/missing.json", dir);
    static const char *const files[] = {GDT_TEST_DATA "/candidates/type_string.json",
                                        GDT_TEST_DATA "/candidates/truncated.json", NULL};
    static const char *const says[] = {
        "/nvrtc/contraction/1/1: expected an integer, got string \"128\" (column BN)",
        "truncated JSON: input ends inside an unclosed array or object at offset 43 (line 1, column 44)",
        "cannot open: No such file or directory"};
    for (int i = 0; i < 3; i++) {
        const char *file = files[i] ? files[i] : missing;
        snprintf(want, sizeof want, "gdtune sweep: --tuning-config: %s: %s", file, says[i]);
        CHECK_INT(gdtune("sweep", "gemm", "--spec", TINY, "--out", run, "--tables-dir", tables,
                         "--deadline", "1", "--tuning-config", file, NO_MORE), ==, 2);
        CHECK_CONTAINS(out, want);
        CHECK(access(run, F_OK) != 0);
        CHECK(access(log, F_OK) != 0);
    }
    CHECK_INT(gdtune("sweep", "gemm", "--arch", "sm90", "--compile-only", "--spec", TINY,
                     "--tuning-config", files[0], NO_MORE), ==, 2);
    snprintf(want, sizeof want, "gdtune sweep: --tuning-config: %s: %s", files[0], says[0]);
    CHECK_CONTAINS(out, want);
}

/* The journal of a --tuning-config sweep, read by the verbs that read
 * journals; the tables carry the rows' digest. */
static void check_readers(const char *run, const char *dir, const rows_want *merged)
{
    char te[PATH_MAX], tuning[PATH_MAX + 32], want[128];
    snprintf(te, sizeof te, "%s/te", dir);
    CHECK_INT(gdtune("tables", "emit", run, "--tables-dir", te, NO_MORE), ==, 0);
    snprintf(tuning, sizeof tuning, "%s/sm90/gemm.tuning.json", te);
    CHECK_INT(gdt_test_spawn((char *[]){"cat", tuning, NULL}, NULL, out, sizeof out), ==, 0);
    snprintf(want, sizeof want, "\"candidates_digest\": \"%s\"", merged->digest);
    CHECK_CONTAINS(out, want);
    CHECK_INT(gdtune("report", run, NO_MORE), ==, 0);
    CHECK_INT(gdtune("compare", run, "--family", "gemm", NO_MORE), ==, 0);
    CHECK_INT(gdtune("candidates", "gemm", "--journal", run, "--tuning-config", STAGED, NO_MORE), ==, 0);
    snprintf(want, sizeof want, "contraction: 0 best, 0 within, 0 dominated, %d unmeasured",
             merged->contraction);
    CHECK_CONTAINS(out, want);
}

/* Two workers, each respawned after the stand-in's faults: every hello
 * carries the merged rows, and the header records them; a resume of the
 * run cut after its first result hands its workers the same rows. */
static void test_merged(const char *dir, const char *log)
{
    char run[PATH_MAX], tables[PATH_MAX];
    snprintf(run, sizeof run, "%s/staged", dir);
    snprintf(tables, sizeof tables, "%s/t", dir);
    rows_want merged = rows_of(STAGED), defaults = rows_of(NULL);
    CHECK(strcmp(merged.digest, defaults.digest) != 0);
    CHECK(merged.contraction > defaults.contraction);
    setenv("GDT_FAKE_GPUS", "2", 1);
    CHECK_INT(gdtune("sweep", "gemm", "--spec", TINY, "--out", run, "--tables-dir", tables, "--deadline",
                     "1", "--tuning-config", STAGED, NO_MORE), ==, 4); /* cudnn.eng1 is incorrect */
    unsetenv("GDT_FAKE_GPUS");
    CHECK_CONTAINS(out, "(sm90), GPUs: 2: 2 cells");
    CHECK(hellos_with(log, merged.digest) >= 4); /* two lanes, and a respawn after each fault */
    check_header(run, &merged);
    check_readers(run, dir, &merged);

    cut_after_first_result(run);
    CHECK_INT(unlink(log), ==, 0);
    CHECK_INT(gdtune("sweep", "gemm", "--resume", run, "--tables-dir", tables, "--deadline", "1", NO_MORE),
              ==, 4);
    CHECK_CONTAINS(out, "2 cells, run directory");
    CHECK(hellos_with(log, merged.digest) >= 1);
    check_header(run, &merged);
    CHECK_INT(unlink(log), ==, 0);
}

/* No FILE: the header keeps the embedded file as it is, the workers get
 * its rows; a resume too. */
static void test_defaults(const char *dir, const char *log)
{
    char run[PATH_MAX], tables[PATH_MAX];
    snprintf(run, sizeof run, "%s/default", dir);
    snprintf(tables, sizeof tables, "%s/t", dir);
    rows_want defaults = rows_of(NULL);
    CHECK_INT(gdtune("sweep", "gemm", "--spec", TINY, "--out", run, "--tables-dir", tables, "--deadline",
                     "1", NO_MORE), ==, 4);
    CHECK(hellos_with(log, defaults.digest) >= 1);
    check_header(run, &defaults);
    gdt_run *jr = NULL;
    gdt_error e = {0};
    char *file = NULL;
    size_t n = 0;
    CHECK_INT(gdt_run_load(run, &jr, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_file_read(GDT_SOURCE_DIR "/tables/candidates/nvrtc.json", &file, &n, &e), ==, GDT_STATUS_OK);
    CHECK_STR(jr && jr->candidates ? jr->candidates : "", file ? file : "?");
    free(file);
    gdt_run_destroy(jr);
    cut_after_first_result(run);
    CHECK_INT(unlink(log), ==, 0);
    CHECK_INT(gdtune("sweep", "gemm", "--resume", run, "--tables-dir", tables, "--deadline", "1", NO_MORE),
              ==, 4);
    CHECK(hellos_with(log, defaults.digest) >= 1);
    CHECK_INT(unlink(log), ==, 0);
}

/* Shards swept with one FILE merge; a shard with other rows is refused,
 * naming the field. */
static void test_shards(const char *dir)
{
    char s0[PATH_MAX], s1[PATH_MAX], s1d[PATH_MAX], t[PATH_MAX], tm[PATH_MAX];
    snprintf(s0, sizeof s0, "%s/shard0", dir);
    snprintf(s1, sizeof s1, "%s/shard1", dir);
    snprintf(s1d, sizeof s1d, "%s/shard1-default", dir);
    snprintf(t, sizeof t, "%s/ts", dir);
    snprintf(tm, sizeof tm, "%s/tm", dir);
    const char *runs[] = {s0, s1, s1d}, *shard[] = {"0/2", "1/2", "1/2"};
    for (int i = 0; i < 3; i++) /* the third without FILE: its arguments end at the shard */
        CHECK_INT(gdtune("sweep", "gemm", "--spec", TINY, "--out", runs[i], "--tables-dir", t, "--deadline",
                         "1", "--shard", shard[i], i < 2 ? "--tuning-config" : NO_MORE, STAGED, NO_MORE),
                  ==, 4);
    CHECK_INT(gdtune("merge", s0, s1, "--tables-dir", tm, NO_MORE), ==, 0);
    CHECK_CONTAINS(out, "gemm.{tuning,placement}.json (2 cells)");
    CHECK_INT(gdtune("merge", s0, s1d, "--tables-dir", tm, NO_MORE), ==, 2);
    CHECK_CONTAINS(out, "/candidates_digest: expected");
}

/* --compile-only compiles FILE's rows: one contraction row, one compile. */
static void test_compile_only(const char *dir)
{
    char one[PATH_MAX], cache[PATH_MAX];
    snprintf(one, sizeof one, "%s/one.json", dir);
    snprintf(cache, sizeof cache, "%s/kc", dir);
    FILE *f = fopen(one, "w");
    CHECK(f && fputs("{\"nvrtc\": {\"contraction\": [[64, 64, 64, 2, 2, 4, 8, 0]]}}\n", f) >= 0 &&
          fclose(f) == 0);
    setenv("GDTUNE_CACHE_DIR", cache, 1);
    CHECK_INT(gdtune("sweep", "gemm", "--arch", "sm90", "--compile-only", "--spec", TINY, "--tuning-config",
                     one, NO_MORE), ==, 0);
    unsetenv("GDTUNE_CACHE_DIR");
    CHECK_CONTAINS(out, "gdtune sweep: sm90: 2 plans, 1 distinct compiles:");
}

/* One hello request line carrying rows (text NULL: the number 5). */
static void put_hello(FILE *f, const char *text)
{
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "hello");
    if (text)
        cJSON_AddStringToObject(req, "rows", text);
    else
        cJSON_AddNumberToObject(req, "rows", 5);
    char *line = cJSON_PrintUnformatted(req);
    CHECK(line && fprintf(f, "%s\n", line) > 0);
    free(line);
    cJSON_Delete(req);
}

/* The real worker takes a hello's rows as the sweep sends them (a rows
 * file's text, lines and all): rows that do not load, or are not text,
 * are an error reply naming /rows; rows that load answer the hello
 * (without a GPU: no device). */
static void test_worker_hello(const char *dir)
{
    char in[PATH_MAX], replies[PATH_MAX], ignored[4096], *staged = NULL;
    size_t n = 0;
    gdt_error e = {0};
    snprintf(in, sizeof in, "%s/requests", dir);
    snprintf(replies, sizeof replies, "%s/replies", dir);
    CHECK_INT(gdt_file_read(STAGED, &staged, &n, &e), ==, GDT_STATUS_OK);
    FILE *f = fopen(in, "w");
    CHECK(f != NULL);
    if (!f || !staged)
        return free(staged);
    put_hello(f, "{\"nvrtc\": {\"contraction\": [[1]]}}");
    put_hello(f, NULL);
    put_hello(f, staged);
    CHECK(fputs("{\"op\":\"quit\"}\n", f) >= 0 && fclose(f) == 0);
    free(staged);
    char *argv[] = {(char *)gdt_test_exe(), "worker", NULL};
    CHECK_INT(gdt_test_spawn_to(argv, in, replies, ignored, sizeof ignored), ==, 0);
    CHECK_INT(gdt_test_spawn((char *[]){"cat", replies, NULL}, NULL, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "{\"op\":\"error\",\"status\":\"BAD_INPUT\",\"error\":\"worker request: /rows: "
                        "/nvrtc/contraction/0: expected 8 to ");
    CHECK_CONTAINS(out, "\"error\":\"worker request: /rows: expected a rows file's text, got number 5\"}\n"
                        "{\"op\":\"hello\",\"device\":");
}

int main(void)
{
    char dir[] = "/tmp/gdt_sweep_rows_XXXXXX", log[PATH_MAX];
    if (access(gdt_test_exe(), X_OK) != 0 || access(SWEEP_WORKER, X_OK) != 0) {
        fprintf(stderr, "test_sweep_rows: %s or %s is not built\n", gdt_test_exe(), SWEEP_WORKER);
        return 1;
    }
    CHECK(mkdtemp(dir) != NULL);
    snprintf(log, sizeof log, "%s/hellos", dir);
    setenv("GDTUNE_WORKER_EXE", SWEEP_WORKER, 1);
    setenv("GDT_FAKE_ROWS_LOG", log, 1);
    test_usage();
    test_bad_file(dir, log);
    test_merged(dir, log);
    test_defaults(dir, log);
    test_shards(dir);
    test_compile_only(dir);
    test_worker_hello(dir);
    if (gdt_test_failures)
        fprintf(stderr, "last output:\n%s\n(kept %s)\n", out, dir);
    else
        CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_sweep_rows");
}
