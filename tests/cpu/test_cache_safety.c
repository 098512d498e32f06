/* The compiled-kernel cache in a root it may share with others
 * (GDTUNE_CACHE_DIR=~/.cache) or where someone planted links and FIFOs: past
 * the size cap the pruner empties gdtune's own stale environments, and only
 * those (never a folder reached through a link, never a folder without
 * gdtune's marker, never a file gdtune did not name); a FIFO or a link at an
 * entry's name is a miss, never a hang, and is not followed on read or write.
 * Compiles run in a child process under an alarm: the pruner walks the cache
 * once per process, and a hang must fail its case, not stall the test. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdt_engines.h"
#include "gdt_rows.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "nvrtc/gdt_gemm.h"
#include "nvrtc/gdt_nvrtc_cache.h"

/* The marker gdtune writes into each environment folder it creates; a new
 * environment is checked to carry exactly this (test_stale_env_pruned). */
#define MARKER "gdtune-env"
#define MARKER_TEXT "GDTUNE-CACHE-ENV 1\n"
#define HEX64 "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define BIG (2 << 20) /* over the 1 MiB cap on its own */

static gdt_facts facts;
static gdt_plan_id plan;
static gdt_nvrtc_key key; /* of the one plan every case compiles */

static void setup(void)
{
    static const int64_t row[] = {128, 128, 64, 4, 1, 4, 8, 1};
    const gdt_engine_slot *s = gdt_manifest_find_name(gdt_manifest_default(), "gemm.nvrtc");
    gdt_problem p;
    gdt_device_props d;
    gdt_nvrtc_options o;
    gdt_error e = {0};
    CHECK(s != NULL);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "m=512,n=512,k=512", &p, &e), ==, GDT_STATUS_OK);
    CHECK(gdt_arch_limits(90, &d));
    gdt_facts_analyze(&p, &d, &facts);
    plan = (gdt_plan_id){.engine_id = s ? gdt_engine_id(GDT_FAMILY_GEMM, s->slot) : 0};
    for (int i = 0; i < gdt__rows_contraction.ncols; i++)
        gdt_plan_id_set_knob(&plan, gdt__rows_contraction.cols[i].knob, row[i]);
    CHECK_INT(gdt__nvrtc_options(&gdt__tmpl_gemm, &facts, &plan, 90, &o, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt__nvrtc_key(&gdt__tmpl_gemm, &o, 90, &key, &e), ==, GDT_STATUS_OK);
}

/* ------------------------------------------------------------ helpers */

static void write_file(const char *path, const char *text, size_t zeros)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    if (text)
        fputs(text, f);
    for (size_t i = 0; i < zeros; i++)
        fputc(0, f);
    CHECK(fclose(f) == 0);
}

static long long size_of(const char *path) /* -1: nothing there */
{
    struct stat st;
    return lstat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static bool is_regular(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *slurp(const char *path, size_t *n)
{
    char *data = NULL;
    *n = 0;
    CHECK_INT(gdt_file_read(path, &data, n, NULL), ==, GDT_STATUS_OK);
    return data;
}

static void remove_tree(const char *path)
{
    CHECK_INT(gdt_test_remove_tree(path), ==, 0);
}

/* Runs fn in a child process under an alarm of `seconds`; true when it
 * returned true, its checks passed, and it ended in time. */
static bool in_child(bool (*fn)(const char *), const char *arg, unsigned seconds)
{
    int st = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(seconds);
        gdt_test_failures = 0; /* the child's own checks only */
        _exit(fn(arg) && gdt_test_failures == 0 ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    if (pid > 0 && WIFSIGNALED(st))
        fprintf(stderr, "child died of signal %d (SIGALRM is %d: still running after %u s)\n",
                WTERMSIG(st), SIGALRM, seconds);
    return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* One compile of the plan through the cache rooted at root. */
static bool compile_at(const char *root)
{
    gdt_build_info info = {0};
    gdt_error e = {0};
    void *cubin = NULL;
    size_t len = 0;
    gdt_status st = gdt__nvrtc_compile_cached(&gdt__tmpl_gemm, &facts, &plan, 90, root, &cubin,
                                              &len, &info, &e);
    if (st != GDT_STATUS_OK)
        fprintf(stderr, "cached compile into %s: %s\n", root, e.msg);
    free(cubin);
    return st == GDT_STATUS_OK;
}

static bool hit_at(const char *root)
{
    void *data = NULL;
    size_t n = 0;
    bool hit = gdt__cache_get(root, &key, GDT_CACHE_CUBIN, &data, &n);
    free(data);
    return hit;
}

/* dir/name made as a folder holding a marker (when marked), a 2 MiB entry,
 * a lock and a cuDNN plan of gdtune's naming. */
static void make_env(const char *dir, const char *name, bool marked)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    CHECK(mkdir(p, 0755) == 0);
    snprintf(p, sizeof p, "%s/%s/" HEX64 ".cubin", dir, name);
    write_file(p, NULL, BIG);
    snprintf(p, sizeof p, "%s/%s/" HEX64 ".lock", dir, name);
    write_file(p, "", 0);
    snprintf(p, sizeof p, "%s/%s/" HEX64 ".plan", dir, name);
    write_file(p, "{}", 0);
    snprintf(p, sizeof p, "%s/%s/" MARKER, dir, name);
    if (marked)
        write_file(p, MARKER_TEXT, 0);
}

/* -------------------------------------------------------------- cases */

/* The reviewer's reproducer end to end: links out of the root, one of them
 * named like an environment and pointing at a folder that even looks like
 * one (marker, entry names), survive a compile-only sweep past the cap. */
static void test_sweep_keeps_linked_folder(void)
{
    char dir[] = "/tmp/gdt_cache_linkXXXXXX", root[600], victim[600], p[700], out[8192];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(root, sizeof root, "%s/cache", dir);
    CHECK(mkdir(root, 0755) == 0);
    make_env(dir, "victim", true);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(p, sizeof p, "%s/victim/data.bin", dir);
    write_file(p, NULL, BIG);
    snprintf(p, sizeof p, "%s/evil", root);
    CHECK(symlink(victim, p) == 0);
    snprintf(p, sizeof p, "%s/0123456789abcdef", root);
    CHECK(symlink(victim, p) == 0);

    setenv("GDTUNE_CACHE_DIR", root, 1);
    char *argv[] = {(char *)gdt_test_exe(), "sweep", "gemm", "--arch", "sm90", "--compile-only",
                    "--spec", GDT_TEST_DATA "/sweeps/tiny_gemm.json", NULL};
    CHECK_INT(gdt_test_spawn(argv, NULL, out, sizeof out), ==, 0);
    unsetenv("GDTUNE_CACHE_DIR");
    CHECK_CONTAINS(out, " 0 failed;");
    snprintf(p, sizeof p, "%s/victim/data.bin", dir);
    CHECK_INT(size_of(p), ==, BIG);
    snprintf(p, sizeof p, "%s/victim/" HEX64 ".cubin", dir);
    CHECK_INT(size_of(p), ==, BIG);
    snprintf(p, sizeof p, "%s/victim/" MARKER, dir);
    CHECK_INT(size_of(p), ==, strlen(MARKER_TEXT));
    snprintf(p, sizeof p, "%s/%s/%s.cubin", root, key.env, key.key);
    CHECK(is_regular(p)); /* the sweep did fill its own environment */
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);
    remove_tree(dir);
}

/* Folders that are not gdtune's: a foreign one (pip's, say) and an
 * environment from before markers, each over the cap on its own. */
static void test_foreign_folder_kept(void)
{
    char root[] = "/tmp/gdt_cache_foreignXXXXXX", p[700];
    CHECK(mkdtemp(root) != NULL);
    make_env(root, "pip", false);
    make_env(root, "fedcba9876543210", false);
    CHECK(in_child(compile_at, root, 60));
    snprintf(p, sizeof p, "%s/pip/" HEX64 ".cubin", root);
    CHECK_INT(size_of(p), ==, BIG);
    snprintf(p, sizeof p, "%s/fedcba9876543210/" HEX64 ".cubin", root);
    CHECK_INT(size_of(p), ==, BIG);
    snprintf(p, sizeof p, "%s/fedcba9876543210/" HEX64 ".lock", root);
    CHECK_INT(size_of(p), ==, 0);
    snprintf(p, sizeof p, "%s/fedcba9876543210/" HEX64 ".plan", root);
    CHECK_INT(size_of(p), ==, 2);
    remove_tree(root);
}

/* gdtune's own stale environments still go past the cap: one wholly, one
 * but for a file gdtune did not write; the new environment is marked. */
static void test_stale_env_pruned(void)
{
    char root[] = "/tmp/gdt_cache_staleXXXXXX", p[700];
    CHECK(mkdtemp(root) != NULL);
    make_env(root, "0123456789abcdef", true);
    snprintf(p, sizeof p, "%s/0123456789abcdef/" HEX64 ".cubin.tmp.4242", root);
    write_file(p, "torn", 0);
    make_env(root, "0123456789abcde0", true);
    snprintf(p, sizeof p, "%s/0123456789abcde0/notes.txt", root);
    write_file(p, "mine", 0);
    CHECK(in_child(compile_at, root, 60));
    snprintf(p, sizeof p, "%s/0123456789abcdef", root);
    CHECK_INT(size_of(p), ==, -1);
    snprintf(p, sizeof p, "%s/0123456789abcde0/" HEX64 ".cubin", root);
    CHECK_INT(size_of(p), ==, -1);
    snprintf(p, sizeof p, "%s/0123456789abcde0/" HEX64 ".plan", root);
    CHECK_INT(size_of(p), ==, -1);
    snprintf(p, sizeof p, "%s/0123456789abcde0/notes.txt", root);
    CHECK_INT(size_of(p), ==, 4);
    snprintf(p, sizeof p, "%s/%s/" MARKER, root, key.env);
    CHECK(is_regular(p));
    if (is_regular(p)) {
        size_t n;
        char *text = slurp(p, &n);
        CHECK_STR(text, MARKER_TEXT);
        free(text);
    }
    CHECK(hit_at(root));
    remove_tree(root);
}

static bool fifo_is_quick_miss(const char *root)
{
    double t0 = gdt_now();
    CHECK(!hit_at(root));
    CHECK(gdt_now() - t0 < 2);
    return compile_at(root);
}

/* A FIFO at the entry's name: a miss at once, then replaced by the entry. */
static void test_fifo_entry_is_miss(void)
{
    char root[] = "/tmp/gdt_cache_fifoXXXXXX", p[700];
    CHECK(mkdtemp(root) != NULL);
    snprintf(p, sizeof p, "%s/%s", root, key.env);
    CHECK(mkdir(p, 0755) == 0);
    snprintf(p, sizeof p, "%s/%s/%s.cubin", root, key.env, key.key);
    CHECK(mkfifo(p, 0644) == 0);
    CHECK(in_child(fifo_is_quick_miss, root, 10));
    CHECK(is_regular(p));
    if (is_regular(p)) /* never read the FIFO here: it would block this process */
        CHECK(hit_at(root));
    remove_tree(root);
}

/* Links at an entry's name, at its lock's name and at the environment's
 * name: none is read or written through. */
static void test_linked_entry_not_followed(void)
{
    char dir[] = "/tmp/gdt_cache_entryXXXXXX", root[600], entry[700], lock[700], away[700], p[700];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(root, sizeof root, "%s/cache", dir);
    snprintf(entry, sizeof entry, "%s/%s/%s.cubin", root, key.env, key.key);
    snprintf(lock, sizeof lock, "%s/%s/%s.lock", root, key.env, key.key);
    snprintf(away, sizeof away, "%s/away.cubin", dir);
    CHECK(in_child(compile_at, root, 60));
    CHECK(rename(entry, away) == 0 && symlink(away, entry) == 0);
    size_t nb, na;
    char *before = slurp(away, &nb);
    CHECK(!hit_at(root)); /* a valid entry, but behind a link */
    CHECK(in_child(compile_at, root, 60));
    CHECK(is_regular(entry)); /* the rewrite replaced the link */
    char *after = slurp(away, &na);
    CHECK(before && after && nb == na && !memcmp(before, after, nb));
    free(before);
    free(after);

    snprintf(p, sizeof p, "%s/made.lock", dir);
    CHECK(unlink(entry) == 0 && unlink(lock) == 0 && symlink(p, lock) == 0);
    CHECK(in_child(compile_at, root, 60));
    CHECK_INT(size_of(p), ==, -1); /* no lock created through the link */

    snprintf(root, sizeof root, "%s/cache2", dir);
    snprintf(p, sizeof p, "%s/elsewhere", dir);
    CHECK(mkdir(root, 0755) == 0 && mkdir(p, 0755) == 0);
    snprintf(entry, sizeof entry, "%s/%s", root, key.env);
    CHECK(symlink(p, entry) == 0);
    CHECK(in_child(compile_at, root, 60));
    snprintf(p, sizeof p, "%s/elsewhere/%s.cubin", dir, key.key);
    CHECK_INT(size_of(p), ==, -1);
    snprintf(p, sizeof p, "%s/elsewhere/%s.lock", dir, key.key);
    CHECK_INT(size_of(p), ==, -1);
    remove_tree(dir);
}

/* A cuDNN plan's entry (engines/cudnn/cudnn_plan_cache.c) beside the
 * cubins: written with the environment's marker, read back only as a plan
 * (the same key as a cubin is a miss), and a torn one is a miss. */
static void test_plan_entries(void)
{
    char root[] = "/tmp/gdt_cache_planXXXXXX", p[700];
    static const char text[] = "{\"a cuDNN plan\": 1}";
    gdt_nvrtc_key k = {.key = HEX64, .env = "00000000000000aa", .arch = "sm_90"};
    void *got = NULL;
    size_t n = 0;
    CHECK(mkdtemp(root) != NULL);
    gdt__cache_put(root, &k, GDT_CACHE_CUDNN_PLAN, text, sizeof text);
    snprintf(p, sizeof p, "%s/%s/" MARKER, root, k.env);
    CHECK(is_regular(p));
    CHECK(!gdt__cache_get(root, &k, GDT_CACHE_CUBIN, &got, &n));
    CHECK(gdt__cache_get(root, &k, GDT_CACHE_CUDNN_PLAN, &got, &n));
    CHECK(got && n == sizeof text && !memcmp(got, text, n));
    free(got);
    got = NULL;
    snprintf(p, sizeof p, "%s/%s/%s.plan", root, k.env, k.key);
    CHECK(truncate(p, size_of(p) - 1) == 0);
    CHECK(!gdt__cache_get(root, &k, GDT_CACHE_CUDNN_PLAN, &got, &n));
    free(got);
    remove_tree(root);
}

int main(void)
{
    alarm(300); /* a hang anywhere fails the test (it takes about 15 s) */
    unsetenv("GDTUNE_DISABLE_CACHE");
    setenv("GDTUNE_CACHE_MAX_MB", "1", 1);
    setup();
    test_sweep_keeps_linked_folder();
    test_foreign_folder_kept();
    test_stale_env_pruned();
    test_fifo_entry_is_miss();
    test_linked_entry_not_followed();
    test_plan_entries();
    return gdt_test_result("test_cache_safety");
}
