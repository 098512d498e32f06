/* The run journal: durable append, read back, torn-record cut, a whole
 * last record kept, refusals; raw.h5 rebuilt from a journal and readable by
 * h5dump. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_rawh5.h"
#include "gdt_run.h"
#include "gdt_util.h"
#include "gdt_test.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void test_append_and_read(const char *dir)
{
    gdt_journal *j = NULL;
    gdt_error e = {0};
    CHECK_INT(gdt_journal_open(dir, false, &j, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_journal_append(j, "{\"type\":\"run\",\"n\":1}", &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_journal_append(j, "{\"type\":\"cell\",\"cell\":0}", &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_journal_append(j, "{\"a\":\n1}", &e), ==, GDT_STATUS_INTERNAL);
    CHECK_CONTAINS(e.msg, "may not hold a newline");
    gdt_journal_close(j);

    char path[512];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    gdt_journal_lines l;
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    CHECK_INT(l.n, ==, 2);
    CHECK_INT(l.tail.torn_bytes, ==, 0);
    if (l.n == 2)
        CHECK_STR(l.line[1], "{\"type\":\"cell\",\"cell\":0}");
    gdt_journal_lines_free(&l);

    /* A run directory is never overwritten. */
    CHECK_INT(gdt_journal_open(dir, false, &j, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "a journal already exists");
    CHECK_CONTAINS(e.msg, "--resume");
    CHECK(j == NULL);
}

static void test_torn_tail(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    FILE *f = fopen(path, "a");
    CHECK(f != NULL);
    if (f) {
        fputs("{\"type\":\"result\",\"cell\":0,\"pla", f); /* killed mid-record */
        fclose(f);
    }
    long before = file_size(path);
    gdt_journal_lines l;
    gdt_error e = {0};
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    CHECK_INT(l.n, ==, 2);
    CHECK_INT(l.tail.torn_bytes, ==, 30);
    CHECK_INT(file_size(path), ==, before); /* reading never cuts */

    gdt_journal *j = NULL;
    size_t cut = 0;
    CHECK_INT(gdt_journal_repair(path, &l.tail, &cut, &e), ==, GDT_STATUS_OK);
    gdt_journal_lines_free(&l);
    CHECK_INT(cut, ==, 30);
    CHECK_INT(file_size(path), ==, before - 30);
    CHECK_INT(gdt_journal_open(dir, true, &j, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_journal_append(j, "{\"type\":\"result\",\"cell\":0,\"plan\":0}", &e), ==, GDT_STATUS_OK);
    gdt_journal_close(j);
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    CHECK_INT(l.n, ==, 3);
    gdt_journal_lines_free(&l);

    /* A last line that does not parse is torn, with its newline or not. */
    f = fopen(path, "a");
    if (f) {
        fputs("{\"type\":\"res\n", f);
        fclose(f);
    }
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_journal_repair(path, &l.tail, &cut, &e), ==, GDT_STATUS_OK);
    gdt_journal_lines_free(&l);
    CHECK_INT(cut, ==, 13);
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_journal_repair(path, &l.tail, &cut, &e), ==, GDT_STATUS_OK);
    gdt_journal_lines_free(&l);
    CHECK_INT(cut, ==, 0);

    /* A whole last record without its newline is kept and ended, never cut. */
    f = fopen(path, "a");
    if (f) {
        fputs("{\"type\":\"attempt\"}", f);
        fclose(f);
    }
    before = file_size(path);
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    CHECK_INT(l.n, ==, 4);
    CHECK(l.tail.unterminated);
    CHECK_INT(gdt_journal_repair(path, &l.tail, &cut, &e), ==, GDT_STATUS_OK);
    gdt_journal_lines_free(&l);
    CHECK_INT(cut, ==, 0);
    CHECK_INT(file_size(path), ==, before + 1);
}

static void test_damaged(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/damaged.jsonl", dir);
    write_file(path, "{\"type\":\"run\"}\nnot json\n{\"type\":\"cell\"}\n");
    gdt_journal_lines l;
    gdt_error e = {0};
    size_t cut = 0;
    (void)cut;
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "damaged.jsonl:2: malformed JSON");
    CHECK_INT(file_size(path), ==, 40);

    gdt_journal *j = NULL;
    char empty[512];
    snprintf(empty, sizeof empty, "%s/nothing-here", dir);
    CHECK_INT(gdt_journal_open(empty, true, &j, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "nothing-here/journal.jsonl: no journal to resume");
}

/* A valid run from the committed GEMM journal: its header, cell 0, its
 * plans, plan 0's result (its first burst given per-sample clocks, 1755
 * MHz, which that journal predates), and plan 1 failed; spec_text
 * replaces the header's spec (NULL: kept). */
static char *small_run(const char *spec_text)
{
    static char gz[8 << 20];
    char *argv[] = {"gunzip", "-c", GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz", NULL};
    CHECK_INT(gdt_test_spawn(argv, NULL, gz, sizeof gz), ==, 0);
    char *line[6] = {0};
    char *p = gz;
    for (int i = 0; i < 6 && p; i++) {
        line[i] = p;
        if ((p = strchr(p, '\n')))
            *p++ = 0;
    }
    cJSON *h = cJSON_Parse(line[0]), *att = cJSON_Parse(line[5]), *res = cJSON_Parse(line[4]);
    cJSON *b0 = cJSON_GetArrayItem(cJSON_GetObjectItem(res, "bursts"), 0), *mhz = cJSON_CreateArray();
    for (int i = 0; i < cJSON_GetArraySize(cJSON_GetObjectItem(b0, "device_us")); i++)
        cJSON_AddItemToArray(mhz, cJSON_CreateNumber(1755));
    cJSON_AddItemToObject(b0, "clock_mhz", mhz);
    char *rt = cJSON_PrintUnformatted(res);
    if (spec_text) {
        char digest[65];
        gdt_digest_hex(spec_text, strlen(spec_text), digest);
        cJSON_ReplaceItemInObject(h, "spec", cJSON_CreateString(spec_text));
        cJSON_ReplaceItemInObject(h, "spec_digest", cJSON_CreateString(digest));
    }
    cJSON *fail = cJSON_CreateObject();
    cJSON_AddStringToObject(fail, "type", "result");
    cJSON_AddNumberToObject(fail, "cell", 0);
    cJSON_AddNumberToObject(fail, "plan", 1);
    cJSON_AddStringToObject(fail, "family", "gemm");
    cJSON_AddStringToObject(fail, "name", cJSON_GetStringValue(cJSON_GetObjectItem(att, "name")));
    cJSON_AddStringToObject(fail, "disposition", "failed");
    cJSON_AddStringToObject(fail, "error", "deadline exceeded after 20 s");
    char *ht = cJSON_PrintUnformatted(h), *ft = cJSON_PrintUnformatted(fail);
    size_t n = strlen(ht) + strlen(ft) + strlen(rt) + 64;
    for (int i = 1; i < 6; i++)
        n += strlen(line[i]) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%s\n%s\n%s\n%s\n%s\n%s\n%s\n{\"type\":\"result\",\"cell\":0,\"pl", ht, line[1],
             line[2], line[3], rt, line[5], ft);
    free(ht);
    free(ft);
    free(rt);
    cJSON_Delete(h);
    cJSON_Delete(att);
    cJSON_Delete(res);
    cJSON_Delete(fail);
    return out;
}

static int h5dump(char *const argv[], char *out, size_t n)
{
    return gdt_test_spawn(argv, NULL, out, n);
}

static void write_rawh5(const char *dir, gdt_status want)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    CHECK_INT(gdt_run_load(dir, &r, &e), ==, GDT_STATUS_OK);
    if (e.msg[0])
        fprintf(stderr, "%s\n", e.msg);
    if (r)
        CHECK_INT(gdt_rawh5_write(r, dir, &e), ==, want);
    gdt_run_destroy(r);
}

static void test_rawh5(const char *dir)
{
    char sub[512], path[600], out[16384];
    snprintf(sub, sizeof sub, "%s/run", dir);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/journal.jsonl", sub);
    char *j = small_run(NULL);
    write_file(path, j);
    free(j);
    write_rawh5(sub, GDT_STATUS_OK);
    snprintf(path, sizeof path, "%s/raw.h5", sub);
    CHECK(file_size(path) > 0);
    if (!gdt_test_have("h5dump")) {
        fprintf(stderr, "test_journal: h5dump not installed: raw.h5 content not inspected\n");
        return;
    }
    char *d1[] = {"h5dump", "-d", "/gemm/cell_000/plan_000/burst_1/device_us", path, NULL};
    CHECK_INT(h5dump(d1, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "96.96");
    char *d2[] = {"h5dump", "-a", "/gemm/cell_000/plan_001/error", path, NULL};
    CHECK_INT(h5dump(d2, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "deadline exceeded after 20 s");
    char *d3[] = {"h5dump", "-a", "/device_name", path, NULL};
    CHECK_INT(h5dump(d3, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "NVIDIA H200");
    /* The layout a reader can rely on (README: raw.h5): UTF-8 strings, int64
     * integers, uint8 flags, NaN where nothing was measured, units. */
    char *d4[] = {"h5dump", "-a", "/layout", path, NULL};
    CHECK_INT(h5dump(d4, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "\"gdtune.raw/4\"");
    CHECK_CONTAINS(out, "CSET H5T_CSET_UTF8");
    CHECK_CONTAINS(out, "STRSIZE H5T_VARIABLE");
    char *d5[] = {"h5dump", "-A", "-g", "/gemm/cell_000/plan_000", path, NULL};
    CHECK_INT(h5dump(d5, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "ATTRIBUTE \"engine_id\" {\n      DATATYPE  H5T_STD_I64LE");
    CHECK_CONTAINS(out, "ATTRIBUTE \"knob_TILE_M\" {\n      DATATYPE  H5T_STD_I64LE");
    CHECK_CONTAINS(out, "ATTRIBUTE \"converged\" {\n      DATATYPE  H5T_STD_U8LE");
    CHECK_CONTAINS(out, "ATTRIBUTE \"raced_late\" {\n      DATATYPE  H5T_STD_U8LE");
    CHECK_CONTAINS(out, "ATTRIBUTE \"heat_s\" {\n      DATATYPE  H5T_IEEE_F64LE");
    CHECK_CONTAINS(out, "ATTRIBUTE \"backend\" {\n      DATATYPE  H5T_STD_U8LE");
    char *d6[] = {"h5dump", "-a", "/gemm/cell_000/plan_001/time_us", path, NULL};
    CHECK_INT(h5dump(d6, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "(0): nan"); /* failed: nothing measured */
    char *d7[] = {"h5dump", "-a", "/gemm/cell_000/plan_002/disposition", path, NULL};
    CHECK_INT(h5dump(d7, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "\"not_run\"");
    char *d8[] = {"h5dump", "-d", "/gemm/cell_000/plan_000/verify_err", path, NULL};
    CHECK_INT(h5dump(d8, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "\"C\"");
    CHECK_CONTAINS(out, "\"relative L2 error\"");
    char *d9[] = {"h5dump", "-a", "/gemm/cell_000/plan_000/burst_1/device_us/units", path, NULL};
    CHECK_INT(h5dump(d9, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "us per call (device, events)");
    char *d10[] = {"h5dump", "-a", "/gemm/cell_000/plan_000/burst_1/n", path, NULL};
    CHECK_INT(h5dump(d10, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "H5T_STD_I64LE");
    /* per-sample clocks where the journal has them, none where it has not */
    char *d11[] = {"h5dump", "-d", "/gemm/cell_000/plan_000/burst_1/clock_mhz", path, NULL};
    CHECK_INT(h5dump(d11, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "1755");
    CHECK_CONTAINS(out, "MHz (the SM clock the probe read after the sample)");
    char *d12[] = {"h5dump", "-d", "/gemm/cell_000/plan_000/burst_4/clock_mhz", path, NULL};
    CHECK_INT(h5dump(d12, out, sizeof out), !=, 0);
}

/* Text too long for an HDF5 attribute becomes a dataset of that name. */
static void test_rawh5_long_text(const char *dir)
{
    char sub[512], path[600];
    snprintf(sub, sizeof sub, "%s/long", dir);
    mkdir(sub, 0755);
    static char spec[80000];
    int n = snprintf(spec, sizeof spec, "{\"schema\": \"gdtune.sweep/1\", \"families\": [\"gemm\"], "
                     "\"grid\": [{\"m\": [128], \"n,k\": [[4096, 4096]], \"dtype\": [\"bf16\"]}], "
                     "\"description\": \"");
    for (int i = 0; i < 70000; i++)
        spec[n++] = (char)('a' + i % 26);
    snprintf(spec + n, sizeof spec - (size_t)n, "\"}");
    snprintf(path, sizeof path, "%s/journal.jsonl", sub);
    char *j = small_run(spec);
    write_file(path, j);
    free(j);
    write_rawh5(sub, GDT_STATUS_OK);
    if (!gdt_test_have("h5dump"))
        return;
    snprintf(path, sizeof path, "%s/raw.h5", sub);
    char *d[] = {"h5dump", "-d", "/spec", path, NULL};
    static char big[200000];
    CHECK_INT(h5dump(d, big, sizeof big), ==, 0);
    CHECK_CONTAINS(big, "STRSIZE H5T_VARIABLE");
    CHECK_CONTAINS(big, "abcdefghijklmnopqrstuvwxyzabc"); /* the text itself, whole */
    CHECK_CONTAINS(big, "uvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnop");
}

int main(void)
{
    char dir[] = "/tmp/gdt_test_journal_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_append_and_read(dir);
    test_torn_tail(dir);
    test_damaged(dir);
    test_rawh5(dir);
    test_rawh5_long_text(dir);
    if (!gdt_test_failures && gdt_test_remove_tree(dir) != 0)
        fprintf(stderr, "test_journal: could not remove %s\n", dir);
    return gdt_test_result("test_journal");
}
