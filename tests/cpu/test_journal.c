/* The run journal: durable append, read back, torn-record cut, refusals;
 * raw.h5 rebuilt from a journal and readable by h5dump. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_rawh5.h"
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

static const char run_journal[] =
    "{\"type\":\"run\",\"gdtune_version\":\"0.1.0\",\"family\":\"gemm\",\"spec\":\"{}\","
    "\"device\":{\"name\":\"Test GPU\",\"uuid\":\"GPU-0\",\"arch\":90,\"sm_count\":132}}\n"
    "{\"type\":\"cell\",\"cell\":0,\"family\":\"gemm\",\"shape\":\"m=256\",\"key\":\"gemm:m256\"}\n"
    "{\"type\":\"plans\",\"cell\":0,\"family\":\"gemm\",\"reference\":\"cudnn.eng0\",\"plans\":["
    "{\"name\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":[],\"backend\":true,\"tag\":\"A\",\"untimed\":0},"
    "{\"name\":\"gemm.test_fault\",\"engine_id\":20090,\"knobs\":[],\"backend\":false,\"tag\":\"OURS\",\"untimed\":1}]}\n"
    "{\"type\":\"result\",\"cell\":0,\"plan\":0,\"family\":\"gemm\",\"disposition\":\"verified\",\"error\":\"\","
    "\"time_us\":3.5,\"noise\":0.01,\"bursts\":[{\"burst\":1,\"host_us\":[5.5,5.25],"
    "\"device_us\":[3.5,3.75],\"total_us\":[9,9]},{\"burst\":4,\"host_us\":[4.5],\"device_us\":[3.25],"
    "\"total_us\":[8]}],\"cold_us\":[7.5,7.25,7]}\n"
    "{\"type\":\"result\",\"cell\":0,\"plan\":1,\"family\":\"gemm\",\"disposition\":\"failed\","
    "\"error\":\"deadline exceeded after 20 s\"}\n"
    "{\"type\":\"result\",\"cell\":0,\"pl";

static void test_rawh5(const char *dir)
{
    char sub[512], path[600], cmd[1400], out[16384];
    snprintf(sub, sizeof sub, "%s/run", dir);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/journal.jsonl", sub);
    write_file(path, run_journal);
    gdt_error e = {0};
    CHECK_INT(gdt_rawh5_write(sub, &e), ==, GDT_STATUS_OK);
    snprintf(path, sizeof path, "%s/raw.h5", sub);
    CHECK(file_size(path) > 0);
    snprintf(path, sizeof path, "%s/raw.h5.tmp", sub);
    CHECK(file_size(path) < 0);
    if (system("command -v h5dump >/dev/null 2>&1") != 0) {
        fprintf(stderr, "test_journal: h5dump not installed: raw.h5 content not inspected\n");
        return;
    }
    snprintf(cmd, sizeof cmd, "h5dump -d /gemm/cell_000/plan_000/burst_1/device_us %s/raw.h5", sub);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "3.5, 3.75");
    snprintf(cmd, sizeof cmd, "h5dump -a /gemm/cell_000/plan_001/error %s/raw.h5", sub);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "deadline exceeded after 20 s");
    snprintf(cmd, sizeof cmd, "h5dump -a /device_name %s/raw.h5", sub);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "Test GPU");
}

/* Text too long for an HDF5 attribute becomes a dataset of that name. */
static void test_rawh5_long_text(const char *dir)
{
    char sub[512], path[600], cmd[1400], out[4096];
    snprintf(sub, sizeof sub, "%s/long", dir);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/journal.jsonl", sub);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("{\"type\":\"run\",\"family\":\"gemm\",\"spec\":\"", f);
    for (int i = 0; i < 70000; i++)
        fputc('a' + i % 26, f);
    fputs("\"}\n", f);
    fclose(f);
    gdt_error e = {0};
    CHECK_INT(gdt_rawh5_write(sub, &e), ==, GDT_STATUS_OK);
    if (e.msg[0])
        fprintf(stderr, "%s\n", e.msg);
    if (system("command -v h5dump >/dev/null 2>&1") != 0)
        return;
    snprintf(cmd, sizeof cmd, "h5dump -d /spec %s/raw.h5 | head -c 600", sub);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "STRSIZE 70001");
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
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!gdt_test_failures && system(cmd) != 0)
        fprintf(stderr, "test_journal: could not remove %s\n", dir);
    return gdt_test_result("test_journal");
}
