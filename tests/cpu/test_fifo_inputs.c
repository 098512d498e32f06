/* A FIFO (or a folder, or a device) where gdtune expects an input file is
 * refused at once, with a message naming the path and what sits there,
 * never a hang: gdt_file_read opens without blocking and checks the kind
 * before it reads.  Covered through every verb that reads a user's file:
 * the tables beside a good placement file (`gdtune plans`, the reader of
 * gdt_tables_find's folder), --spec, --tuning-config and `tables check`.
 * Each gdtune runs under `timeout`, and the whole test under an alarm, so a
 * regression fails instead of hanging. */
#include <sys/stat.h>

#include "gdt_test.h"
#include "gdt_util.h"

#define GUARD_S "30" /* a verb still blocked on a FIFO after this is killed */

static char dir[] = "/tmp/gdt_fifoXXXXXX";
static char fifo[600];

/* gdtune argv[] (NULL-terminated, without the binary) under timeout: its
 * exit status (-1 when it had to be killed: timeout -s KILL ends itself
 * with the signal too), its output in out. */
static int run(char *const *args, char *out, size_t n)
{
    char *argv[32] = {"timeout", "-s", "KILL", GUARD_S, (char *)gdt_test_exe()};
    int k = 5;
    for (int i = 0; args[i] && k < 31; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    int rc = gdt_test_spawn(argv, NULL, out, n);
    if (rc == -1)
        fprintf(stderr, "%s %s: still running after %s s (blocked on a FIFO?)\n", argv[4], args[0],
                GUARD_S);
    return rc;
}

static void expect_refused(const char *out, const char *path)
{
    char want[700];
    snprintf(want, sizeof want, "%s: cannot read: a FIFO, not a regular file", path);
    CHECK_CONTAINS(out, want);
}

static void test_file_read_kinds(void)
{
    char *data = NULL;
    size_t n = 1;
    gdt_error e = {0};
    CHECK_INT(gdt_file_read(fifo, &data, &n, &e), ==, GDT_STATUS_IO);
    expect_refused(e.msg, fifo);
    CHECK(data == NULL && n == 0);
    CHECK_INT(gdt_file_read(dir, &data, &n, &e), ==, GDT_STATUS_IO);
    CHECK_CONTAINS(e.msg, "cannot read: a directory, not a regular file");
    CHECK_CONTAINS(e.msg, dir);
    CHECK_INT(gdt_file_read("/dev/null", &data, &n, &e), ==, GDT_STATUS_IO);
    CHECK_CONTAINS(e.msg, "/dev/null: cannot read: a character device, not a regular file");
    char path[600];
    snprintf(path, sizeof path, "%s/plain.txt", dir);
    CHECK_INT(gdt_file_write_atomic(path, "text\n", 5, NULL), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_file_read(path, &data, &n, &e), ==, GDT_STATUS_OK);
    CHECK(data && n == 5 && !strcmp(data, "text\n"));
    free(data);
}

/* The reviewer's reproducer: a FIFO tuning file beside a good placement
 * file.  The planner warns, names the file, and falls back to the untimed
 * order. */
static void test_tables_fifo(void)
{
    char tables[600], sub[620], placement[700], tuning[700], out[16384];
    snprintf(tables, sizeof tables, "%s/tables", dir);
    snprintf(sub, sizeof sub, "%s/sm90", tables);
    snprintf(placement, sizeof placement, "%s/gemm.placement.json", sub);
    snprintf(tuning, sizeof tuning, "%s/gemm.tuning.json", sub);
    CHECK(mkdir(tables, 0700) == 0 && mkdir(sub, 0700) == 0);
    char *text = NULL;
    size_t n = 0;
    CHECK_INT(gdt_file_read(GDT_SOURCE_DIR "/tables/sm90/gemm.placement.json", &text, &n, NULL), ==,
              GDT_STATUS_OK);
    CHECK_INT(gdt_file_write_atomic(placement, text, n, NULL), ==, GDT_STATUS_OK);
    free(text);
    CHECK(mkfifo(tuning, 0600) == 0);
    setenv("GDTUNE_TABLES_PATH", tables, 1);
    char *args[] = {"plans", "gemm", "--shape", "m=128,n=4096,k=4096", "--arch", "sm90", NULL};
    CHECK_INT(run(args, out, sizeof out), ==, 0);
    unsetenv("GDTUNE_TABLES_PATH");
    expect_refused(out, tuning);
    CHECK_CONTAINS(out, "tables passed over (the search goes on)"); /* F13: the next place is read */
}

static void test_spec_fifo(void)
{
    char out[8192];
    char *args[] = {"sweep", "gemm", "--arch", "sm90", "--compile-only", "--spec", fifo, NULL};
    CHECK_INT(run(args, out, sizeof out), ==, 2);
    expect_refused(out, fifo);
}

static void test_tuning_config_fifo(void)
{
    char out[8192];
    char *args[] = {"candidates", "gemm", "--tuning-config", fifo, NULL};
    CHECK_INT(run(args, out, sizeof out), ==, 2);
    expect_refused(out, fifo);
}

static void test_tables_check_fifo(void)
{
    char out[8192];
    char *args[] = {"tables", "check", fifo, NULL};
    CHECK_INT(run(args, out, sizeof out), ==, 2);
    expect_refused(out, fifo);
    CHECK_CONTAINS(out, "1 of 1 files invalid");
}

int main(void)
{
    alarm(180); /* the last guard: a hang in this process fails the test */
    CHECK(mkdtemp(dir) != NULL);
    snprintf(fifo, sizeof fifo, "%s/input.json", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    test_tables_fifo();
    test_spec_fifo();
    test_tuning_config_fifo();
    test_tables_check_fifo();
    test_file_read_kinds(); /* last: in this process, only the alarm ends a hang */
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_fifo_inputs");
}
