/* The compiled-kernel cache in a root it may share with others
 * (GDTUNE_CACHE_DIR=~/.cache) or where someone planted links and FIFOs: past
 * the size cap the pruner empties gdtune's own stale environments, and only
 * those (never a folder reached through a link, never a folder without
 * gdtune's marker, never a file gdtune did not name); a FIFO or a link at an
 * entry's name is a miss, never a hang, and is not followed on read or write.
 * A root or environment folder that is not the user's alone (others can
 * write it, another user owns it, a link another user owns) is ignored with
 * one warning, so forged entries there are never taken (`--compile-only`
 * counts them compiled, not cached); what gdtune creates is 0700/0600 even
 * under umask 000; a lock held by another process delays a compile at most
 * GDT_NVRTC_CACHE_LOCK_WAIT_S, then it goes uncached and says so.
 * Compiles run in a child process under an alarm: the pruner walks the cache
 * once per process, the cache warns once per process, and a hang must fail
 * its case, not stall the test. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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
    for (int i = 0; i < gdt__row_family_required(&gdt__rows_contraction); i++)
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

/* The child's stderr, into err (when not NULL) and echoed to ours. */
static void take_stderr(const char *path, char *err, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    if (gdt_file_read(path, &text, &len, NULL) == GDT_STATUS_OK) {
        fputs(text, stderr);
        snprintf(err, n, "%s", text);
    }
    free(text);
    unlink(path);
}

/* Runs fn in a child process under an alarm of `seconds`; true when it
 * returned true, its checks passed, and it ended in time.  The child's
 * stderr lands in err (n bytes) when err is not NULL.  The cache warns once
 * per process: every case that expects a warning runs in a child. */
static bool in_child_err(bool (*fn)(const char *), const char *arg, unsigned seconds, char *err,
                         size_t n)
{
    char path[] = "/tmp/gdt_cache_stderrXXXXXX";
    int st = 0, fd = err ? mkstemp(path) : -1;
    CHECK(!err || fd >= 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(seconds);
        if (fd >= 0)
            dup2(fd, 2);
        gdt_test_failures = 0; /* the child's own checks only */
        _exit(fn(arg) && gdt_test_failures == 0 ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    if (fd >= 0) {
        close(fd);
        take_stderr(path, err, n);
    }
    if (pid > 0 && WIFSIGNALED(st))
        fprintf(stderr, "child died of signal %d (SIGALRM is %d: still running after %u s)\n",
                WTERMSIG(st), SIGALRM, seconds);
    return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static bool in_child(bool (*fn)(const char *), const char *arg, unsigned seconds)
{
    return in_child_err(fn, arg, seconds, NULL, 0);
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

/* ------------------------------------------------ who may write the cache */

#define FORGED "forged payload: anything an attacker likes"
static const gdt_nvrtc_key plan_key = {.key = HEX64, .env = "00000000000000aa", .arch = "sm_90"};

/* root/<k's env>/<k's key><suffix> rewritten as a valid entry holding
 * FORGED: an entry's key, size and SHA-256 are no secret. */
static void forge(const char *root, const gdt_nvrtc_key *k, const char *suffix, const char *magic)
{
    char p[700], sum[65], text[512];
    snprintf(p, sizeof p, "%s/%s", root, k->env);
    CHECK(mkdir(p, 0700) == 0 || errno == EEXIST);
    gdt_digest_hex(FORGED, strlen(FORGED), sum);
    snprintf(text, sizeof text, "%skey %s\nsize %zu\nsha256 %s\n\n" FORGED, magic, k->key,
             strlen(FORGED), sum);
    snprintf(p, sizeof p, "%s/%s/%s%s", root, k->env, k->key, suffix);
    write_file(p, text, 0);
}

static bool is_forged(const void *data, size_t n)
{
    return data && n == strlen(FORGED) && !memcmp(data, FORGED, n);
}

/* Both forged entries taken as hits: the cache trusts what it may trust. */
static bool forged_hits(const char *root)
{
    void *data = NULL;
    size_t n = 0;
    CHECK(gdt__cache_get(root, &key, GDT_CACHE_CUBIN, &data, &n) && is_forged(data, n));
    free(data);
    data = NULL;
    CHECK(gdt__cache_get(root, &plan_key, GDT_CACHE_CUDNN_PLAN, &data, &n) && is_forged(data, n));
    free(data);
    return true;
}

/* Neither forged entry is read, and the compile runs without the cache
 * (its cubin is NVRTC's, not the forgery). */
static bool forged_refused(const char *root)
{
    gdt_build_info info = {0};
    gdt_error e = {0};
    void *data = NULL;
    size_t n = 0;
    CHECK(!gdt__cache_get(root, &key, GDT_CACHE_CUBIN, &data, &n));
    CHECK(!gdt__cache_get(root, &plan_key, GDT_CACHE_CUDNN_PLAN, &data, &n));
    gdt_status st = gdt__nvrtc_compile_cached(&gdt__tmpl_gemm, &facts, &plan, 90, root, &data, &n,
                                              &info, &e);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    CHECK(!info.cache_hit && info.compile_seconds > 0 && n > 0 && !is_forged(data, n));
    free(data);
    return st == GDT_STATUS_OK;
}

/* The warning names the folder, its owner and its mode; said once. */
static void check_warning(const char *err, const char *folder, unsigned uid, unsigned mode)
{
    char want[800];
    snprintf(want, sizeof want, "gdtune: compiled-kernel cache: ignoring %s, ", folder);
    CHECK_CONTAINS(err, want);
    snprintf(want, sizeof want, "(owner uid %u, mode %04o)", uid, mode);
    CHECK_CONTAINS(err, want);
    CHECK_CONTAINS(err, "compiling without the cache");
    const char *first = strstr(err, "ignoring");
    CHECK(first && !strstr(first + 1, "ignoring"));
}

/* The refusal of root as the folder `folder` (uid, mode) says. */
static void expect_refused(const char *root, const char *folder, unsigned uid, unsigned mode)
{
    char err[8192] = "";
    CHECK(in_child_err(forged_refused, root, 60, err, sizeof err));
    check_warning(err, folder, uid, mode);
}

/* The reviewer's reproducer: a root and environment folders others can
 * write, holding forged cubin and cuDNN plan entries. */
static void test_shared_root_refused(void)
{
    char dir[] = "/tmp/gdt_cache_sharedXXXXXX", root[600], env[700], penv[700], link[600];
    unsigned me = (unsigned)geteuid();
    CHECK(mkdtemp(dir) != NULL);
    snprintf(root, sizeof root, "%s/cache", dir);
    snprintf(env, sizeof env, "%s/%s", root, key.env);
    snprintf(penv, sizeof penv, "%s/%s", root, plan_key.env);
    CHECK(mkdir(root, 0700) == 0);
    forge(root, &key, ".cubin", "GDTUNE-CUBIN 1\n");
    forge(root, &plan_key, ".plan", "GDTUNE-CUDNN-PLAN 1\n");
    CHECK(in_child(forged_hits, root, 30)); /* this user's alone: trusted */
    CHECK(chmod(root, 0777) == 0 && chmod(env, 0777) == 0 && chmod(penv, 0777) == 0);
    expect_refused(root, root, me, 0777);
    CHECK(chmod(root, 01777) == 0); /* sticky, as /tmp: still anyone's to add to */
    expect_refused(root, root, me, 01777);
    CHECK(chmod(root, 0700) == 0);
    expect_refused(root, env, me, 0777); /* the environment, checked on its own */
    CHECK(chmod(env, 0770) == 0 && chmod(penv, 0770) == 0);
    expect_refused(root, env, me, 0770); /* the first one read is named */
    CHECK(chmod(env, 0700) == 0 && chmod(penv, 0700) == 0);
    /* A root named through a link: followed, and its target checked. */
    snprintf(link, sizeof link, "%s/link", dir);
    CHECK(symlink(root, link) == 0);
    CHECK(in_child(forged_hits, link, 30));
    CHECK(chmod(root, 0777) == 0);
    expect_refused(link, link, me, 0777);
    CHECK(chmod(root, 0700) == 0);
    if (me == 0) { /* only root can give a folder away */
        CHECK(chown(env, 65534, 65534) == 0 && chown(penv, 65534, 65534) == 0);
        expect_refused(root, env, 65534, 0700);
        CHECK(chown(env, 0, 0) == 0 && chown(penv, 0, 0) == 0);
        CHECK(lchown(link, 65534, 65534) == 0);
        expect_refused(link, link, 65534, 0777); /* a link's mode is 0777 */
    } else
        printf("not root: folders and links owned by another user not tried\n");
    remove_tree(dir);
}

/* `gdtune sweep --compile-only` into root: its output in out, and the count
 * of distinct compiles it reports. */
static int sweep_into(const char *root, char *out, size_t n)
{
    int distinct = -1, plans = -1;
    setenv("GDTUNE_CACHE_DIR", root, 1);
    char *argv[] = {(char *)gdt_test_exe(), "sweep", "gemm", "--arch", "sm90", "--compile-only",
                    "--spec", GDT_TEST_DATA "/sweeps/tiny_gemm.json", NULL};
    CHECK_INT(gdt_test_spawn(argv, NULL, out, n), ==, 0);
    unsetenv("GDTUNE_CACHE_DIR");
    const char *at = strstr(out, "gdtune sweep: sm90: ");
    CHECK(at && sscanf(at, "gdtune sweep: sm90: %d plans, %d distinct", &plans, &distinct) == 2 &&
          distinct > 0);
    return distinct;
}

static void expect_counts(const char *out, int compiled, int cached)
{
    char want[128];
    snprintf(want, sizeof want, ": %d compiled, %d cached, 0 failed;", compiled, cached);
    CHECK_CONTAINS(out, want);
}

/* Every .cubin in the environment rewritten as a valid forged entry. */
static int forge_env(const char *root, const char *env)
{
    char p[700];
    int n = 0;
    snprintf(p, sizeof p, "%s/%s", root, env);
    DIR *d = opendir(p);
    for (struct dirent *de; d && (de = readdir(d));) {
        gdt_nvrtc_key k = {.arch = "sm_90a"};
        if (strspn(de->d_name, "0123456789abcdef") != 64 || strcmp(de->d_name + 64, ".cubin"))
            continue;
        memcpy(k.key, de->d_name, 64);
        snprintf(k.env, sizeof k.env, "%s", env);
        forge(root, &k, ".cubin", "GDTUNE-CUBIN 1\n");
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* The sweep says "cached" for a hit; with the folders made anyone's and
 * every entry forged, none is taken and every plan is compiled again. */
static void test_sweep_forged(void)
{
    char root[] = "/tmp/gdt_cache_sweepXXXXXX", env[700], out[16384];
    CHECK(mkdtemp(root) != NULL);
    int n = sweep_into(root, out, sizeof out);
    expect_counts(out, n, 0);
    CHECK_INT(sweep_into(root, out, sizeof out), ==, n);
    expect_counts(out, 0, n);
    CHECK_INT(forge_env(root, key.env), ==, n);
    snprintf(env, sizeof env, "%s/%s", root, key.env);
    CHECK(chmod(root, 0777) == 0 && chmod(env, 0777) == 0);
    CHECK_INT(sweep_into(root, out, sizeof out), ==, n);
    expect_counts(out, n, 0);
    CHECK_CONTAINS(out, "gdtune: compiled-kernel cache: ignoring ");
    CHECK_INT(forge_env(root, key.env), ==, n); /* nothing written into them either */
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);
    remove_tree(root);
}

static long long mode_of(const char *path) /* -1: nothing there */
{
    struct stat st;
    return lstat(path, &st) == 0 ? (long long)(st.st_mode & 07777) : -1;
}

/* Even under umask 0, what gdtune creates is this user's alone. */
static bool compile_umask0(const char *root)
{
    umask(0);
    return compile_at(root);
}

static void test_created_modes(void)
{
    char dir[] = "/tmp/gdt_cache_modesXXXXXX", root[600], p[800];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(root, sizeof root, "%s/new/cache", dir);
    CHECK(in_child(compile_umask0, root, 60));
    snprintf(p, sizeof p, "%s/new", dir);
    CHECK_INT(mode_of(p), ==, 0700);
    CHECK_INT(mode_of(root), ==, 0700);
    snprintf(p, sizeof p, "%s/%s", root, key.env);
    CHECK_INT(mode_of(p), ==, 0700);
    snprintf(p, sizeof p, "%s/%s/%s.cubin", root, key.env, key.key);
    CHECK_INT(mode_of(p), ==, 0600);
    snprintf(p, sizeof p, "%s/%s/%s.lock", root, key.env, key.key);
    CHECK_INT(mode_of(p), ==, 0600);
    snprintf(p, sizeof p, "%s/%s/" MARKER, root, key.env);
    CHECK_INT(mode_of(p), ==, 0600);
    remove_tree(dir);
}

/* Another process holds the key's lock and never lets go: the compile
 * waits GDT_NVRTC_CACHE_LOCK_WAIT_S, then compiles without the cache (no
 * entry written) and says so. */
static void test_held_lock(void)
{
    char root[] = "/tmp/gdt_cache_lockXXXXXX", entry[700], lock[700], want[900];
    char err[8192] = "";
    CHECK(mkdtemp(root) != NULL);
    snprintf(entry, sizeof entry, "%s/%s/%s.cubin", root, key.env, key.key);
    snprintf(lock, sizeof lock, "%s/%s/%s.lock", root, key.env, key.key);
    CHECK(in_child(compile_at, root, 60));
    CHECK(unlink(entry) == 0);
    int fd = open(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
    CHECK(in_child_err(compile_at, root, GDT_NVRTC_CACHE_LOCK_WAIT_S + 60, err, sizeof err));
    snprintf(want, sizeof want, "gdtune: compiled-kernel cache: %s is held by another process after "
             "%d s; compiling without the cache", lock, GDT_NVRTC_CACHE_LOCK_WAIT_S);
    CHECK_CONTAINS(err, want);
    CHECK_INT(size_of(entry), ==, -1); /* uncached: nothing written */
    if (fd >= 0)
        close(fd); /* lets go */
    CHECK(in_child(compile_at, root, 60));
    CHECK(is_regular(entry));
    remove_tree(root);
}

int main(void)
{
    alarm(600); /* a hang anywhere fails the test (it takes 40-90 s: three compile-only sweeps) */
    unsetenv("GDTUNE_DISABLE_CACHE");
    setenv("GDTUNE_CACHE_MAX_MB", "1", 1);
    setup();
    test_sweep_keeps_linked_folder();
    test_foreign_folder_kept();
    test_stale_env_pruned();
    test_fifo_entry_is_miss();
    test_linked_entry_not_followed();
    test_plan_entries();
    test_shared_root_refused();
    test_sweep_forged();
    test_created_modes();
    test_held_lock();
    return gdt_test_result("test_cache_safety");
}
