/* Status names, messages and exit classes from the X-macro; the error
 * record; SHA-256 against known vectors; file helpers. */
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/gdtune.h"

static void test_names(void)
{
    CHECK_STR(gdt_status_name(GDT_STATUS_OK), "OK");
    CHECK_STR(gdt_status_name(GDT_STATUS_BAD_INPUT), "BAD_INPUT");
    CHECK_STR(gdt_status_message(GDT_STATUS_BAD_INPUT), "bad input");
    CHECK_STR(gdt_status_name(GDT_STATUS_INTERNAL), "INTERNAL");
    CHECK_STR(gdt_status_message(GDT_STATUS_TIMEOUT), "deadline exceeded");
    CHECK_STR(gdt_status_name(GDT_STATUS_COUNT), "UNKNOWN_STATUS");
    CHECK_STR(gdt_status_name((gdt_status)-1), "UNKNOWN_STATUS");
    CHECK_INT(gdt_status_exit_code(GDT_STATUS_OK), ==, 0);
    CHECK_INT(gdt_status_exit_code(GDT_STATUS_BAD_USAGE), ==, 2);
    CHECK_INT(gdt_status_exit_code(GDT_STATUS_BAD_INPUT), ==, 2);
    CHECK_INT(gdt_status_exit_code(GDT_STATUS_CUDA), ==, 1);
    CHECK_INT(gdt_status_exit_code(GDT_STATUS_COUNT), ==, 1);
    /* Every status has a distinct name and a message. */
    for (int i = 0; i < GDT_STATUS_COUNT; i++) {
        CHECK(strlen(gdt_status_message((gdt_status)i)) > 0);
        int code = gdt_status_exit_code((gdt_status)i);
        CHECK(code >= 0 && code <= 2);
        CHECK_INT(code == 0, ==, i == GDT_STATUS_OK);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(gdt_status_name((gdt_status)i), gdt_status_name((gdt_status)j)) != 0);
    }
}

static void test_error_record(void)
{
    gdt_error e;
    CHECK_INT(gdt_error_set(&e, GDT_STATUS_IO, "%s: %d", "x.json", 42), ==, GDT_STATUS_IO);
    CHECK_INT(e.status, ==, GDT_STATUS_IO);
    CHECK_STR(e.msg, "x.json: 42");
    CHECK_INT(gdt_error_set(NULL, GDT_STATUS_CUDNN, "ignored %d", 1), ==, GDT_STATUS_CUDNN);
    char big[3 * GDT_ERROR_MAX];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    gdt_error_set(&e, GDT_STATUS_BAD_INPUT, "%s", big); /* truncated, terminated */
    CHECK_INT((long long)strlen(e.msg), ==, GDT_ERROR_MAX - 1);
    gdt_error_clear(&e);
    CHECK_INT(e.status, ==, GDT_STATUS_OK);
    CHECK_STR(e.msg, "");
    gdt_error_clear(NULL);
}

static void sha(const void *data, size_t n, const char *want)
{
    char out[65];
    gdt_digest_hex(data, n, out);
    CHECK_STR(out, want);
}

static void test_sha256(void)
{
    /* FIPS 180-2 vectors, plus the padding edges 55/56/64 bytes. */
    sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char a[1000000];
    memset(a, 'a', sizeof a);
    sha(a, sizeof a, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    sha(a, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    sha(a, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    sha(a, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

static void test_files(void)
{
    char dir[128], sub[256], path[512], bad[1024];
    snprintf(dir, sizeof dir, "/tmp/gdt_test_status_%ld", (long)getpid());
    snprintf(sub, sizeof sub, "%s/a/b/c", dir);
    gdt_error e;
    CHECK_INT(gdt_mkdirs(sub, &e), ==, 0);
    CHECK_INT(gdt_mkdirs(sub, &e), ==, 0); /* idempotent */
    snprintf(path, sizeof path, "%s/file.txt", sub);
    CHECK_INT(gdt_file_write_atomic(path, "hello\n", 6, &e), ==, 0);
    CHECK_INT(gdt_file_write_atomic(path, "bye\n", 4, &e), ==, 0);
    char *data;
    size_t len;
    CHECK_INT(gdt_file_read(path, &data, &len, &e), ==, 0);
    CHECK_INT((long long)len, ==, 4);
    CHECK_STR(data, "bye\n");
    free(data);
    /* A file where a folder should be. */
    snprintf(bad, sizeof bad, "%s/x", path);
    CHECK_INT(gdt_mkdirs(bad, &e), ==, GDT_STATUS_IO);
    CHECK_CONTAINS(e.msg, "file.txt");
    snprintf(sub, sizeof sub, "%s/none/x.json", dir);
    CHECK_INT(gdt_file_read(sub, &data, &len, &e), ==, GDT_STATUS_IO);
    CHECK_CONTAINS(e.msg, "none/x.json: cannot open: No such file or directory");
    CHECK(data == NULL);
    CHECK_INT(gdt_file_read("/dev/zero", &data, &len, &e), ==, GDT_STATUS_IO);
    CHECK_STR(e.msg, "/dev/zero: cannot read: a character device, not a regular file");
    CHECK_INT(gdt_file_write_atomic(sub, "x", 1, &e), ==, GDT_STATUS_IO);
    CHECK_CONTAINS(e.msg, "none/x.json");
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);

    double t0 = gdt_now(), t1 = gdt_now();
    CHECK(t1 >= t0 && t0 > 0);
    CHECK(gdt_embedded_find("tables/candidates/nvrtc.json") != NULL);
    CHECK(gdt_embedded_find("no/such/file") == NULL);
    CHECK(gdt_embedded_find(NULL) == NULL);
}

/* GDT_CREATED: an OK init hands the object over untouched; a failed one
 * destroys it once, leaves *out alone and returns the init's status. */
static int destroyed;
static void count_destroy(int *obj)
{
    (void)obj;
    destroyed++;
}

static void test_created(void)
{
    int obj = 7, *out = NULL;
    gdt_status st = GDT_STATUS_OK;
    CHECK_INT(GDT_CREATED(st, &obj, count_destroy, &out), ==, GDT_STATUS_OK);
    CHECK(out == &obj);
    CHECK_INT(destroyed, ==, 0);
    out = NULL;
    st = GDT_STATUS_CUDA;
    CHECK_INT(GDT_CREATED(st, &obj, count_destroy, &out), ==, GDT_STATUS_CUDA);
    CHECK(out == NULL);
    CHECK_INT(destroyed, ==, 1);
}

/* gdt_path_is_dir and gdt_path_is_file tell a folder, a file and nothing apart. */
static void test_path_kinds(void)
{
    char dir[128], file[256];
    gdt_error e;
    snprintf(dir, sizeof dir, "/tmp/gdt_test_status_kinds_%ld", (long)getpid());
    snprintf(file, sizeof file, "%s/f", dir);
    CHECK(!gdt_path_is_dir(dir) && !gdt_path_is_file(dir));
    CHECK_INT(gdt_mkdirs(dir, &e), ==, 0);
    CHECK_INT(gdt_file_write_atomic(file, "x", 1, &e), ==, 0);
    CHECK(gdt_path_is_dir(dir) && !gdt_path_is_file(dir));
    CHECK(gdt_path_is_file(file) && !gdt_path_is_dir(file));
    CHECK(!gdt_path_is_file("/dev/null"));
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

int main(void)
{
    test_names();
    test_error_record();
    test_sha256();
    test_files();
    test_created();
    test_path_kinds();
    return gdt_test_result("test_status");
}
