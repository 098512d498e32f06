/* Autotune wisdom (engines/wisdom.c): put, save, load and find give back
 * the same entry; an entry of another device, arch, SM count, cuDNN or
 * gdtune version is not found; put replaces the entry of the same key and
 * device; a missing file is an empty wisdom; a corrupt file, a wrong type
 * or a missing field is BAD_INPUT naming the file and the JSON path; a
 * save through a symbolic link is refused with the target untouched; a
 * failed save leaves the old file as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/autotune.h"

static char dir[] = "/tmp/gdt_wisdom_XXXXXX";

static void path_in(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

static gdt_wisdom_entry entry(const char *key, const char *plan, double us)
{
    gdt_wisdom_entry x;
    memset(&x, 0, sizeof x);
    snprintf(x.key, sizeof x.key, "%s", key);
    snprintf(x.device, sizeof x.device, "NVIDIA H100 80GB HBM3");
    x.arch = 90, x.sm_count = 132, x.cudnn_version = 91900;
    snprintf(x.gdtune_version, sizeof x.gdtune_version, "%s", GDT_VERSION_STRING);
    CHECK_INT(gdt_plan_id_parse(plan, &x.id, NULL), ==, GDT_STATUS_OK);
    x.median_us = us, x.first_us = us * 1.25;
    snprintf(x.measured, sizeof x.measured, "2026-12-06T20:40:00Z");
    return x;
}

static gdt_wisdom *load_ok(const char *path)
{
    gdt_wisdom *w = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    CHECK_INT(gdt_wisdom_load(path, &w, &e), ==, GDT_STATUS_OK);
    if (e.msg[0]) fprintf(stderr, "%s\n", e.msg);
    return w;
}

static void check_same(const gdt_wisdom_entry *a, const gdt_wisdom_entry *b)
{
    CHECK(a && b);
    if (!a || !b) return;
    CHECK_STR(a->key, b->key);
    CHECK_STR(a->device, b->device);
    CHECK_INT(a->arch, ==, b->arch);
    CHECK_INT(a->sm_count, ==, b->sm_count);
    CHECK_INT(a->cudnn_version, ==, b->cudnn_version);
    CHECK_STR(a->gdtune_version, b->gdtune_version);
    CHECK(gdt_plan_id_equal(&a->id, &b->id));
    CHECK_NEAR(a->median_us, b->median_us, 1e-9);
    CHECK_NEAR(a->first_us, b->first_us, 1e-9);
    CHECK_STR(a->measured, b->measured);
}

/* Put, save, load, find: the same entries; a missing file loads empty. */
static void test_round_trip(void)
{
    char path[256];
    path_in(path, sizeof path, "rt.json");
    gdt_wisdom *w = load_ok(path);
    if (!w) return;
    CHECK_INT(gdt_wisdom_count(w), ==, 0);
    gdt_wisdom_entry a = entry("gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row", "gemm.nvrtc[TILE_M=128]", 10.5);
    gdt_wisdom_entry b = entry("gemm:b1,m128,n128,k128,bf16,a=row,b=row", "cudnn.eng4[KERNEL_CFG=2]", 3.25);
    CHECK_INT(gdt_wisdom_put(w, &a, NULL), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_wisdom_put(w, &b, NULL), ==, GDT_STATUS_OK);
    gdt_error e;
    CHECK_INT(gdt_wisdom_save(w, path, &e), ==, GDT_STATUS_OK);
    gdt_wisdom_destroy(w);
    if (!(w = load_ok(path))) return;
    CHECK_INT(gdt_wisdom_count(w), ==, 2);
    check_same(gdt_wisdom_find(w, &a), &a);
    check_same(gdt_wisdom_find(w, &b), &b);
    /* put replaces the entry of the same key and device */
    gdt_wisdom_entry a2 = entry(a.key, "gemm.nvrtc[TILE_M=64]", 9.0);
    a2.cudnn_version = 92000;
    CHECK_INT(gdt_wisdom_put(w, &a2, NULL), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_wisdom_count(w), ==, 2);
    check_same(gdt_wisdom_find(w, &a2), &a2);
    CHECK(gdt_wisdom_find(w, &a) == NULL);
    gdt_wisdom_destroy(w);
}

/* Any difference but the plan and its times: not found. */
static void test_other_device_not_found(void)
{
    gdt_wisdom *w = load_ok("/nonexistent-gdt-wisdom/w.json");
    if (!w) return;
    gdt_wisdom_entry a = entry("gemm:b1,m64,n64,k64,bf16,a=row,b=row", "gemm.nvrtc[TILE_M=128]", 2.0);
    CHECK_INT(gdt_wisdom_put(w, &a, NULL), ==, GDT_STATUS_OK);
    gdt_wisdom_entry p = a;
    CHECK(gdt_wisdom_find(w, &p) != NULL);
    p = a, snprintf(p.key, sizeof p.key, "gemm:b1,m64,n64,k128,bf16,a=row,b=row");
    CHECK(gdt_wisdom_find(w, &p) == NULL);
    p = a, snprintf(p.device, sizeof p.device, "NVIDIA H200");
    CHECK(gdt_wisdom_find(w, &p) == NULL);
    p = a, p.arch = 100;
    CHECK(gdt_wisdom_find(w, &p) == NULL);
    p = a, p.sm_count = 114;
    CHECK(gdt_wisdom_find(w, &p) == NULL);
    p = a, p.cudnn_version = 91901;
    CHECK(gdt_wisdom_find(w, &p) == NULL);
    p = a, snprintf(p.gdtune_version, sizeof p.gdtune_version, "0.1.9");
    CHECK(gdt_wisdom_find(w, &p) == NULL);
    p = a, p.median_us = 99, p.id.engine_id = 1; /* what find does not read */
    CHECK(gdt_wisdom_find(w, &p) != NULL);
    gdt_wisdom_destroy(w);
}

#define HEAD "{\"schema\": \"gdtune.wisdom/1\", \"entries\": [{\"key\": \"gemm:x\", \"device\": \"D\", "
#define PLAN "\"plan\": \"gemm.nvrtc[TILE_M=128]\", \"engine_id\": 20000, \"knobs\": {\"TILE_M\": 128}, "
#define TAIL "\"sm_count\": 132, \"cudnn_version\": 91900, \"gdtune_version\": \"0.2.0\", " PLAN \
             "\"median_us\": 1.5, \"first_median_us\": 2, \"measured_utc\": \"2026-12-06T20:40:00Z\"}]}"

/* A bad file: BAD_INPUT naming the file and the path; nothing loaded. */
static void test_bad_files(void)
{
    static const struct {
        const char *text, *want1, *want2;
    } cases[] = {
        {HEAD "\"arch\": 90, " TAIL, NULL, NULL}, /* the good one, the others' base */
        {"{\"schema\": \"gdtune.wisdom/1\", \"entries\": [{", "offset", NULL},
        {HEAD "\"arch\": \"90\", " TAIL, "/entries/0/arch", "string"},
        {HEAD TAIL, "/entries/0", "\"arch\""},
        {HEAD "\"arch\": 90, \"median_us\": 1, " TAIL, "median_us", "duplicate"},
        {"{\"schema\": \"gdtune.wisdom/2\", \"entries\": []}", "/schema", "gdtune.wisdom/1"},
        {"{\"schema\": \"gdtune.wisdom/1\", \"entries\": {}}", "/entries", "array"},
        {HEAD "\"arch\": 90, \"colour\": 1, " TAIL, "/entries/0/colour", "unknown"},
    };
    char path[256];
    path_in(path, sizeof path, "bad.json");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gdt_error e;
        gdt_error_clear(&e);
        gdt_wisdom *w = (gdt_wisdom *)&e; /* must be reset */
        unlink(path);
        CHECK_INT(gdt_file_write_atomic(path, cases[i].text, strlen(cases[i].text), NULL), ==, GDT_STATUS_OK);
        gdt_status s = gdt_wisdom_load(path, &w, &e);
        if (!cases[i].want1) {
            CHECK_INT(s, ==, GDT_STATUS_OK);
            CHECK_INT(gdt_wisdom_count(w), ==, 1);
            gdt_wisdom_destroy(w);
            continue;
        }
        CHECK_INT(s, ==, GDT_STATUS_BAD_INPUT);
        CHECK(w == NULL);
        CHECK(strstr(e.msg, path) != NULL);
        CHECK(strstr(e.msg, cases[i].want1) != NULL);
        CHECK(!cases[i].want2 || strstr(e.msg, cases[i].want2) != NULL);
        if (!strstr(e.msg, cases[i].want1)) fprintf(stderr, "case %zu: %s\n", i, e.msg);
    }
}

/* A key longer than an entry holds: refused, not cut (a cut key could
 * match another problem's). */
static void test_long_key(void)
{
    char path[256], text[2048], key[600];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    path_in(path, sizeof path, "bad.json");
    snprintf(text, sizeof text, "{\"schema\": \"gdtune.wisdom/1\", \"entries\": [{\"key\": \"%s\", "
             "\"device\": \"D\", \"arch\": 90, " TAIL, key);
    unlink(path);
    CHECK_INT(gdt_file_write_atomic(path, text, strlen(text), NULL), ==, GDT_STATUS_OK);
    gdt_wisdom *w = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    CHECK_INT(gdt_wisdom_load(path, &w, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK(strstr(e.msg, path) && strstr(e.msg, "/entries/0/key") && strstr(e.msg, "at most 511 bytes, got 599"));
    gdt_wisdom_destroy(w);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) fputs(text, f), fclose(f);
}

static char *read_text(const char *path)
{
    char *t = NULL;
    CHECK_INT(gdt_file_read(path, &t, NULL, NULL), ==, GDT_STATUS_OK);
    return t;
}

/* A link at the path: refused, its target and the link untouched. */
static void test_symlink_refused(void)
{
    char target[256], link[256];
    path_in(target, sizeof target, "target.txt");
    path_in(link, sizeof link, "link.json");
    write_text(target, "keep me\n");
    CHECK_INT(symlink(target, link), ==, 0);
    gdt_wisdom *w = load_ok("/nonexistent-gdt-wisdom/w.json");
    if (!w) return;
    gdt_wisdom_entry a = entry("gemm:x", "gemm.nvrtc[TILE_M=128]", 1.0);
    CHECK_INT(gdt_wisdom_put(w, &a, NULL), ==, GDT_STATUS_OK);
    gdt_error e;
    gdt_error_clear(&e);
    CHECK_INT(gdt_wisdom_save(w, link, &e), ==, GDT_STATUS_IO);
    CHECK(strstr(e.msg, link) && strstr(e.msg, "symbolic link"));
    char *t = read_text(target);
    CHECK_STR(t ? t : "", "keep me\n");
    free(t);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    /* and a link is not read either */
    gdt_wisdom *back = NULL;
    CHECK_INT(gdt_wisdom_load(link, &back, &e), ==, GDT_STATUS_IO);
    gdt_wisdom_destroy(w);
}

/* A save that fails (a full disk, GDTUNE_TEST_FAIL_PUBLISH) leaves the old
 * file byte for byte and no temporary beside it. */
static void test_failed_save_keeps_old(void)
{
    char path[256];
    path_in(path, sizeof path, "keep.json");
    gdt_wisdom *w = load_ok(path);
    if (!w) return;
    gdt_wisdom_entry a = entry("gemm:x", "gemm.nvrtc[TILE_M=128]", 1.0);
    CHECK_INT(gdt_wisdom_put(w, &a, NULL), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_wisdom_save(w, path, NULL), ==, GDT_STATUS_OK);
    char *old = read_text(path);
    gdt_wisdom_entry b = entry("gemm:y", "gemm.nvrtc[TILE_M=64]", 2.0);
    CHECK_INT(gdt_wisdom_put(w, &b, NULL), ==, GDT_STATUS_OK);
    setenv("GDTUNE_TEST_FAIL_PUBLISH", "1", 1);
    gdt_error e;
    gdt_error_clear(&e);
    CHECK_INT(gdt_wisdom_save(w, path, &e), ==, GDT_STATUS_IO);
    unsetenv("GDTUNE_TEST_FAIL_PUBLISH");
    char *now = read_text(path);
    CHECK_STR(now ? now : "", old ? old : "-");
    free(old);
    free(now);
    gdt_wisdom *back = load_ok(path);
    CHECK_INT(gdt_wisdom_count(back), ==, 1);
    gdt_wisdom_destroy(back);
    /* saved again without the failure: both */
    CHECK_INT(gdt_wisdom_save(w, path, NULL), ==, GDT_STATUS_OK);
    back = load_ok(path);
    CHECK_INT(gdt_wisdom_count(back), ==, 2);
    gdt_wisdom_destroy(back);
    gdt_wisdom_destroy(w);
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    test_round_trip();
    test_other_device_not_found();
    test_bad_files();
    test_long_key();
    test_symlink_refused();
    test_failed_save_keeps_old();
    const char *names[] = {"rt.json", "bad.json", "target.txt", "link.json", "keep.json"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char p[256];
        path_in(p, sizeof p, names[i]);
        unlink(p);
    }
    rmdir(dir);
    return gdt_test_result("test_wisdom");
}
