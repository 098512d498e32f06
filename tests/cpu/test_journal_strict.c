/* The journal is read strictly, by one reader, for resume, emit, merge and
 * report: each damaged copy of a committed journal is refused with exit 2,
 * the file and line, the JSON path, the expected and the actual value, and
 * no table is written; a torn last record is the only damage tolerated; a
 * refused --resume leaves the journal as it was. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_test.h"

#define JOURNAL_GZ GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz"
#define MAX_TEXT (8u << 20)

static char *original;   /* the committed journal, decompressed */
static size_t original_len;
static char tmp[] = "/tmp/gdt_test_journal_strict_XXXXXX";
static int ncase;

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void write_bytes(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_INT(fwrite(data, 1, n, f), ==, n);
    fclose(f);
}

static bool load_original(void)
{
    char *argv[] = {"gunzip", "-c", JOURNAL_GZ, NULL};
    original = malloc(MAX_TEXT);
    int rc = original ? gdt_test_spawn(argv, NULL, original, MAX_TEXT) : -1;
    CHECK_INT(rc, ==, 0);
    original_len = original ? strlen(original) : 0;
    CHECK(original_len > 100000);
    return rc == 0 && original_len > 100000;
}

/* Start offset of 1-based line n in text (its end: the next newline). */
static const char *line_at(const char *text, int n)
{
    const char *p = text;
    for (int i = 1; p && i < n; i++)
        if ((p = strchr(p, '\n')))
            p++;
    return p;
}

/* A copy of the journal with the first `from` after the start of line n
 * replaced by `to`; NULL `from` replaces the whole line (not its newline). */
static char *edited_n(int n, const char *from, const char *to, size_t tn, size_t *len);

static char *edited(int n, const char *from, const char *to, size_t *len)
{
    return edited_n(n, from, to, strlen(to), len);
}

static char *edited_n(int n, const char *from, const char *to, size_t tn, size_t *len)
{
    const char *l = line_at(original, n), *end = strchr(l, '\n');
    const char *at = from ? strstr(l, from) : l;
    size_t cut = from ? strlen(from) : (size_t)(end - l);
    CHECK(at != NULL && at < end);
    if (!at || at >= end)
        return NULL;
    size_t head = (size_t)(at - original);
    char *out = malloc(original_len + tn + 1);
    memcpy(out, original, head);
    memcpy(out + head, to, tn);
    memcpy(out + head + tn, at + cut, original_len - head - cut);
    *len = original_len - cut + tn;
    out[*len] = 0;
    return out;
}

/* Runs `gdtune ARGS... RUNDIR` on a run directory holding text. */
static int run_on(const char *text, size_t n, const char *verb, char *out, size_t nout, char *dir)
{
    char path[PATH_MAX + 16], tables[PATH_MAX];
    snprintf(dir, PATH_MAX, "%s/case%02d", tmp, ncase++);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    snprintf(tables, sizeof tables, "%s/tables", dir);
    write_bytes(path, text, n);
    char *emit[] = {(char *)gdt_test_exe(), "tables", "emit", dir, "--tables-dir", tables, NULL};
    char *resume[] = {(char *)gdt_test_exe(), "sweep", "--resume", dir, "--tables-dir", tables, NULL};
    char *report[] = {(char *)gdt_test_exe(), "report", dir, NULL};
    char **argv = !strcmp(verb, "emit") ? emit : !strcmp(verb, "resume") ? resume : report;
    int rc = gdt_test_spawn(argv, NULL, out, nout);
    char written[PATH_MAX + 32];
    snprintf(written, sizeof written, "%s/sm90", tables);
    CHECK(!exists(written) || strcmp(verb, "emit") != 0 || rc == 0);
    return rc;
}

/* The damaged copy is refused with exit 2 by emit and report, and the
 * message names the line, the JSON path and the values. */
static void refused(const char *what, const char *text, size_t n, const char *want1,
                    const char *want2)
{
    static const char *const verbs[] = {"emit", "report"};
    char out[8192], dir[PATH_MAX];
    if (!text)
        return;
    for (int v = 0; v < 2; v++) {
        int rc = run_on(text, n, verbs[v], out, sizeof out, dir);
        if (rc != 2 || !strstr(out, want1) || (want2 && !strstr(out, want2)))
            fprintf(stderr, "case \"%s\" (%s) gave exit %d:\n%s\n", what, verbs[v], rc, out);
        CHECK_INT(rc, ==, 2);
        CHECK_CONTAINS(out, want1);
        if (want2)
            CHECK_CONTAINS(out, want2);
    }
}

static void refuse_edit(const char *what, int line, const char *from, const char *to,
                        const char *want1, const char *want2)
{
    size_t n = 0;
    char *t = edited(line, from, to, &n);
    refused(what, t, n, want1, want2);
    free(t);
}

/* Line 5 is cell 0 plan 0's result, line 3 cell 0's plans, line 1 the header. */
static void test_damaged_records(void)
{
    size_t n;
    char *t = edited_n(5, "\"noise\"", "\"no\0ise\"", 8, &n);
    refused("NUL byte", t, n, "journal.jsonl:5: NUL byte", NULL);
    free(t);
    refuse_edit("two records on one line", 4, "}\n{\"verify_err\"", "}{\"verify_err\"",
                "journal.jsonl:4: unexpected text after the JSON value", NULL);
    refuse_edit("trailing garbage", 5, "\"gpu\":0}", "\"gpu\":0} x", "journal.jsonl:5: unexpected text", NULL);
    refuse_edit("case-equal key", 5, "\"time_us\":", "\"TIME_US\":1,\"time_us\":", "journal.jsonl:5",
                "two keys equal ignoring case");
    refuse_edit("duplicate key", 5, "\"noise\":", "\"noise\":0.5,\"noise\":", "journal.jsonl:5", "duplicate key");
    t = edited(5, "\"time_us\":89.682497084140778", "\"time_us\":\"12\"", &n);
    refused("time as a string", t, n, "journal.jsonl:5: /time_us: expected a number", "string \"12\"");
    free(t);
    refuse_edit("upper-case disposition", 5, "\"disposition\":\"verified\"", "\"disposition\":\"VERIFIED\"",
                "journal.jsonl:5: /disposition: expected one of verified", "VERIFIED");
    refuse_edit("zero time", 5, "\"time_us\":89.682497084140778", "\"time_us\":0",
                "journal.jsonl:5: /time_us: expected a time above 0", NULL);
    refuse_edit("negative time", 5, "\"time_us\":89.682497084140778", "\"time_us\":-84.3",
                "journal.jsonl:5: /time_us", NULL);
    refuse_edit("damaged key name", 5, "\"noise\":", "\"noisf\":", "journal.jsonl:5: /noisf: unknown field", NULL);
    refuse_edit("damaged nested key", 5, "\"median_host_us\":", "\"median_host_uz\":",
                "journal.jsonl:5: /bursts/0/median_host_uz: unknown field", NULL);
    refuse_edit("damaged engine_id key", 3, "\"engine_id\":", "\"engine[id\":",
                "journal.jsonl:3: /plans/0/engine[id: unknown field", NULL);
    refuse_edit("negative engine id", 3, "\"engine_id\":20000", "\"engine_id\":-1",
                "journal.jsonl:3: /plans/0/engine_id", "-1");
    refuse_edit("huge engine id", 3, "\"engine_id\":20000", "\"engine_id\":1e300",
                "journal.jsonl:3: /plans/0/engine_id", NULL);
    refuse_edit("plans not an array", 3, "\"plans\":[", "\"plans\":{},\"x\":[",
                "journal.jsonl:3: /plans: expected an array", NULL);
}

static void test_damaged_header(void)
{
    refuse_edit("negative arch", 1, "\"arch\":90,\"device\"", "\"arch\":-90,\"device\"",
                "journal.jsonl:1: /arch: expected a value in [10, 9999]", "-90");
    refuse_edit("huge arch", 1, "\"arch\":90,\"device\"", "\"arch\":1e20,\"device\"",
                "journal.jsonl:1: /arch", NULL);
    refuse_edit("bad bursts", 1, "\"bursts\":[1,4,16,64]", "\"bursts\":[0,-4,1e12]",
                "journal.jsonl:1: /options/bursts/0: expected a value in [1, 4096]", NULL);
    refuse_edit("target_rel 99", 1, "\"target_rel\":0.005", "\"target_rel\":99",
                "journal.jsonl:1: /options/target_rel", "99");
    refuse_edit("negative cap", 1, "\"max_plan_seconds\":0.5", "\"max_plan_seconds\":-1",
                "journal.jsonl:1: /options/max_plan_seconds", NULL);
    refuse_edit("spec edited", 1, "GEMM shapes", "GEMM Shapes", "journal.jsonl:1: /spec_digest", NULL);
    refuse_edit("prior not an object", 1, "\"shard_n\":0}}", "\"shard_n\":0},\"prior\":7}",
                "journal.jsonl:1: /prior: expected an object or null, got number 7", NULL);
    refuse_edit("prior table without sha256 or note", 1, "\"shard_n\":0}}",
                "\"shard_n\":0},\"prior\":{\"dir\":\"t\",\"tables\":[{\"family\":\"gemm\",\"path\":\"p\"}]}}",
                "journal.jsonl:1: /prior/tables/0: expected either sha256 (the table used) or note", NULL);
    refuse_edit("prior of no family", 1, "\"shard_n\":0}}",
                "\"shard_n\":0},\"prior\":{\"dir\":\"t\",\"tables\":[{\"family\":\"conv\",\"path\":\"p\",\"note\":\"no table\"}]}}",
                "journal.jsonl:1: /prior/tables/0/family: expected gemm, sdpa_fwd or sdpa_bwd", NULL);
    refuse_edit("prior sha256 short", 1, "\"shard_n\":0}}",
                "\"shard_n\":0},\"prior\":{\"dir\":\"t\",\"tables\":[{\"family\":\"gemm\",\"path\":\"p\",\"sha256\":\"ab\"}]}}",
                "journal.jsonl:1: /prior/tables/0/sha256: expected 64 lowercase hex digits", NULL);
}

/* Order: the header first, plans before their results, one of each. */
static void test_order(void)
{
    const char *l1 = line_at(original, 1), *l2 = line_at(original, 2), *l3 = line_at(original, 3);
    const char *l4 = line_at(original, 4), *l5 = line_at(original, 5), *l6 = line_at(original, 6);
    char *t = malloc(2 * original_len + 1);
    size_t a = (size_t)(l2 - l1), b = (size_t)(l3 - l2);
    /* header not on line 1 */
    memcpy(t, l2, b);
    memcpy(t + b, l1, a);
    memcpy(t + a + b, l3, original_len - a - b);
    refused("header on line 2", t, original_len, "journal.jsonl:1: /type: expected \"run\"", NULL);
    /* a result before its plans (lines 3 and 5 swapped) */
    size_t p = (size_t)(l3 - original), np = (size_t)(l4 - l3), na = (size_t)(l5 - l4),
           nr = (size_t)(l6 - l5);
    memcpy(t, original, p);
    memcpy(t + p, l5, nr);
    memcpy(t + p + nr, l4, na);
    memcpy(t + p + nr + na, l3, np);
    memcpy(t + p + nr + na + np, l6, original_len - (size_t)(l6 - original));
    refused("result before plans", t, original_len, "journal.jsonl:3: /plan: a result record for cell 0 before its plans record", NULL);
    /* a duplicated result record */
    memcpy(t, original, (size_t)(l6 - original));
    memcpy(t + (l6 - original), l5, nr);
    memcpy(t + (l6 - original) + nr, l6, original_len - (size_t)(l6 - original));
    refused("duplicated result", t, original_len + nr, "journal.jsonl:6: /plan: plan 0 of cell 0 has a result already (line 5)", NULL);
    free(t);
    /* a plans record without its plans, then the real one: refused, no leak */
    t = malloc(original_len + 4096);
    size_t n3 = (size_t)(l4 - l3);
    memcpy(t, original, p);
    int k = snprintf(t + p, 4096, "{\"type\":\"plans\",\"cell\":0,\"family\":\"gemm\",\"shape\":"
                     "\"m=128,n=4096,k=4096,dtype=bf16\",\"key\":\"gemm:b1,m128,n4096,k4096,bf16,a=row,b=row\"}\n");
    memcpy(t + p + k, l3, original_len - p);
    (void)n3;
    refused("plans without plans", t, original_len + (size_t)k, "journal.jsonl:3: /plans: expected an array, got nothing", NULL);
    free(t);
}

/* The one damage tolerated: a torn last record (left out, tables written). */
static void test_torn_tail_accepted(void)
{
    char out[8192], dir[PATH_MAX], path[PATH_MAX + 64];
    int rc = run_on(original, original_len, "emit", out, sizeof out, dir);
    CHECK_INT(rc, ==, 0);
    snprintf(path, sizeof path, "%s/tables/sm90/gemm.placement.json", dir);
    CHECK(exists(path));
    rc = run_on(original, original_len - 200, "emit", out, sizeof out, dir);
    if (rc != 0)
        fprintf(stderr, "torn tail: %s\n", out);
    CHECK_INT(rc, ==, 0);
    snprintf(path, sizeof path, "%s/tables/sm90/gemm.placement.json", dir);
    CHECK(exists(path));
    /* but the same torn record followed by a whole one is damage */
    size_t last = (size_t)(strrchr(original, '\n') - original); /* the final newline */
    const char *prev = original + last;
    while (prev > original && prev[-1] != '\n')
        prev--;
    size_t start = (size_t)(prev - original), n = last - start;
    char *t = malloc(original_len + n + 2);
    memcpy(t, original, start + n - 100);
    t[start + n - 100] = '\n';
    memcpy(t + start + n - 99, prev, n + 1);
    int line = 0;
    for (size_t i = 0; i <= start; i++)
        line += original[i] == '\n';
    char want[64];
    snprintf(want, sizeof want, "journal.jsonl:%d: truncated JSON", line + 1);
    refused("torn record mid-file", t, start + n - 99 + n + 1, want, NULL);
    free(t);
}

/* A refused resume changes nothing: a journal holding only its header
 * without a final newline is not cut to 0 bytes; a torn tail stays. */
static void test_refused_resume_keeps_journal(void)
{
    char out[8192], dir[PATH_MAX], path[PATH_MAX + 64];
    size_t h = (size_t)(strchr(original, '\n') - original);
    int rc = run_on(original, h, "resume", out, sizeof out, dir);
    CHECK_INT(rc, ==, 2); /* another build measured it */
    CHECK_CONTAINS(out, "measured by gdtune source");
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK_INT(file_size(path), ==, (long)h);
    rc = run_on(original, original_len - 200, "resume", out, sizeof out, dir);
    CHECK_INT(rc, ==, 2);
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK_INT(file_size(path), ==, (long)(original_len - 200));
    /* a damaged header is refused by resume too, naming the place */
    size_t n;
    char *t = edited(1, "\"bursts\":[1,4,16,64]", "\"bursts\":[0,-4,1e12]", &n);
    rc = run_on(t, n, "resume", out, sizeof out, dir);
    CHECK_INT(rc, ==, 2);
    CHECK_CONTAINS(out, "journal.jsonl:1: /options/bursts/0");
    free(t);
}

static void test_missing_run_dir(void)
{
    char out[4096], dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/no-such-run", tmp);
    char *emit[] = {(char *)gdt_test_exe(), "tables", "emit", dir, NULL};
    char *report[] = {(char *)gdt_test_exe(), "report", dir, NULL};
    CHECK_INT(gdt_test_spawn(emit, NULL, out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "no-such-run");
    CHECK_INT(gdt_test_spawn(report, NULL, out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "no-such-run");
}

int main(void)
{
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    if (load_original()) {
        test_damaged_records();
        test_damaged_header();
        test_order();
        test_torn_tail_accepted();
        test_refused_resume_keeps_journal();
        test_missing_run_dir();
    }
    free(original);
    if (!gdt_test_failures)
        gdt_test_remove_tree(tmp);
    return gdt_test_result("test_journal_strict");
}
