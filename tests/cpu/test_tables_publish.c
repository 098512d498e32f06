/* The table writer publishes a pair or nothing: a failure on the second
 * file (the GDTUNE_TEST_FAIL_PUBLISH hook, as a full disk) leaves the old
 * pair byte-identical, and a table the loader would refuse (provenance arch
 * -90 or 2147483647, engine_id -1, negative samples) is never written;
 * each refusal is BAD_INPUT naming the field.  A publish killed before
 * any of its renames (GDTUNE_TEST_KILL_RENAME, and `strace -e inject`
 * where strace is installed) leaves a pair the loader takes, the old one
 * or the new one, never a mix (issue 34 F5); the next publish removes the
 * temporaries the killed one left, but not a live writer's, a link or a
 * name gdtune does not make. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

static char root[256];

static void provenance(gdt_provenance *v, int arch)
{
    memset(v, 0, sizeof *v);
    snprintf(v->device_name, sizeof v->device_name, "NVIDIA H200");
    v->arch = arch;
    v->driver_version = v->cuda_version = v->nvrtc_version = 13000;
    v->cudnn_version = 91900;
    snprintf(v->gdtune_version, sizeof v->gdtune_version, "%s", GDT_VERSION_STRING);
    snprintf(v->source_digest, sizeof v->source_digest, "%064d", 1);
    snprintf(v->sweep_digest, sizeof v->sweep_digest, "%064d", 2);
    snprintf(v->candidates_digest, sizeof v->candidates_digest, "%064d", 3);
}

/* One gemm cell: a backend plan (engine 7) and one of ours. */
static gdt_measured_plan plans[2];
static gdt_measured_cell cell;

static void build_cell(const char *shape, double ours_us)
{
    gdt_error e;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shape, &cell.problem, &e), ==, GDT_STATUS_OK);
    gdt_plan_id back = {.engine_id = 7}, ours = {.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 0)};
    gdt_plan_id_set_knob(&back, GDT_KNOB_KERNEL_CFG, 1);
    gdt_plan_id_set_knob(&ours, GDT_KNOB_TILE_M, 128);
    gdt_plan_id_set_knob(&ours, GDT_KNOB_TILE_N, 128);
    plans[0] = (gdt_measured_plan){.id = back, .is_backend = true, .mode = GDT_MODE_A,
                                   .untimed_position = 0, .time_us = 50, .noise = 0.004,
                                   .host_us = 4, .samples = 40};
    plans[1] = (gdt_measured_plan){.id = ours, .mode = GDT_MODE_A, .untimed_position = 1,
                                   .time_us = ours_us, .noise = 0.004, .host_us = 4, .samples = 40};
    cell.plans = plans;
    cell.nplans = 2;
}

/* The whole file, or "" (freed by the caller). */
static char *slurp(const char *path)
{
    char *data = NULL;
    gdt_error e;
    if (gdt_file_read(path, &data, NULL, &e)) return calloc(1, 1);
    return data;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *x; d && (x = readdir(d));)
        if (x->d_name[0] != '.') n++;
    if (d) closedir(d);
    return n;
}

static bool absent(const char *path)
{
    struct stat st;
    return lstat(path, &st) != 0 && errno == ENOENT;
}

/* Old pair written, then a new one whose stage N fails: the old pair
 * stays, byte for byte, and no temporary is left. */
static void test_pair_failure(int fail_at)
{
    char dir[512], tp[600], pp[600];
    snprintf(dir, sizeof dir, "%s/pair%d/sm90", root, fail_at);
    snprintf(tp, sizeof tp, "%s/gemm.tuning.json", dir);
    snprintf(pp, sizeof pp, "%s/gemm.placement.json", dir);
    gdt_provenance prov;
    provenance(&prov, 90);
    gdt_error e;
    build_cell("m=1024", 40);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, &cell, 1, &e), ==, GDT_STATUS_OK);
    char *old_t = slurp(tp), *old_p = slurp(pp);
    build_cell("m=2048", 60); /* another cell, another decision: both files differ */
    char n[8];
    snprintf(n, sizeof n, "%d", fail_at);
    setenv("GDTUNE_TEST_FAIL_PUBLISH", n, 1);
    gdt_error_clear(&e);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, &cell, 1, &e), ==, GDT_STATUS_IO);
    unsetenv("GDTUNE_TEST_FAIL_PUBLISH");
    CHECK_CONTAINS(e.msg, fail_at == 1 ? tp : pp);
    char *new_t = slurp(tp), *new_p = slurp(pp);
    CHECK_STR(new_t, old_t);
    CHECK_STR(new_p, old_p);
    CHECK_INT(count_entries(dir), ==, 3); /* the pair and its manifest */
    gdt_tables *t = NULL;
    snprintf(dir, sizeof dir, "%s/pair%d", root, fail_at);
    CHECK_INT(gdt_tables_load(dir, GDT_FAMILY_GEMM, 90, &t, &e), ==, GDT_STATUS_OK);
    gdt_tables_destroy(t);
    free(old_t), free(old_p), free(new_t), free(new_p);
}

/* Refused before anything is written: the folder is not even created. */
static void check_refused(const char *sub, const gdt_provenance *prov, const char *field)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s/sm90", root, sub);
    gdt_error e;
    gdt_error_clear(&e);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, prov, &cell, 1, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, field);
    CHECK(absent(dir));
}

static void test_refusals(void)
{
    gdt_provenance prov;
    provenance(&prov, -90);
    build_cell("m=1024", 40);
    check_refused("arch_neg", &prov, "arch: expected an arch in [10, 999]");
    provenance(&prov, 2147483647);
    check_refused("arch_big", &prov, "arch");
    provenance(&prov, 90);
    plans[1].id.engine_id = -1;
    check_refused("engine_neg", &prov, "engine_id");
    build_cell("m=1024", 40);
    plans[1].id.engine_id = INT64_MAX;
    check_refused("engine_big", &prov, "engine_id");
    build_cell("m=1024", 40);
    plans[0].is_backend = false; /* engine 7 is the backend's: the loader refuses */
    check_refused("engine_side", &prov, "is_backend");
    build_cell("m=1024", 40);
    plans[1].samples = -1; /* only the loader's check on the text catches this */
    check_refused("samples", &prov, "/samples: expected an integer in [0,");
}

/* The first cell's key of the pair in dir (its parent holds sm90), or
 * "refused: <why>". */
static void loaded_key(const char *dir, char *key, size_t n)
{
    gdt_tables *t = NULL;
    gdt_table_cell c;
    gdt_error e;
    gdt_error_clear(&e);
    if (gdt_tables_load(dir, GDT_FAMILY_GEMM, 90, &t, &e) != GDT_STATUS_OK)
        snprintf(key, n, "refused: %.1000s", e.msg);
    else
        snprintf(key, n, "%s", gdt_tables_cell(t, 0, &c) ? c.key : "no cell");
    gdt_tables_destroy(t);
}

/* Writes the m=2048 pair into dir (what a killed child runs). */
static int write_new(const char *dir)
{
    gdt_provenance prov;
    gdt_error e;
    provenance(&prov, 90);
    build_cell("m=2048", 60);
    return gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, &cell, 1, &e) == GDT_STATUS_OK ? 0 : 1;
}

static const char old_key[] = "gemm:b1,m1024,", new_key[] = "gemm:b1,m2048,";

/* The old pair (m=1024) in root/<name>/sm90; its parent into top. */
static void old_pair(const char *name, char *top, size_t n, char *dir, size_t nd)
{
    gdt_provenance prov;
    gdt_error e;
    snprintf(top, n, "%s/%s", root, name);
    snprintf(dir, nd, "%s/sm90", top);
    provenance(&prov, 90);
    build_cell("m=1024", 40);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, &cell, 1, &e), ==, GDT_STATUS_OK);
}

/* A publish killed before its N-th rename (4 in all: the manifest naming
 * the staged files, the two files, the manifest alone). */
static void test_kill_window(int n)
{
    char top[400], dir[512], name[32], key[2048], when[16];
    snprintf(name, sizeof name, "kill%d", n);
    old_pair(name, top, sizeof top, dir, sizeof dir);
    pid_t pid = fork();
    if (pid == 0) {
        snprintf(when, sizeof when, "%d", n);
        setenv("GDTUNE_TEST_KILL_RENAME", when, 1);
        _exit(write_new(dir));
    }
    int st = 0;
    CHECK_INT(waitpid(pid, &st, 0), ==, pid);
    CHECK(n <= 4 ? WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL : WIFEXITED(st) && WEXITSTATUS(st) == 0);
    loaded_key(top, key, sizeof key);
    if (strncmp(key, n == 1 ? old_key : new_key, strlen(old_key)))
        fprintf(stderr, "killed before rename %d: %s\n", n, key);
    CHECK(!strncmp(key, n == 1 ? old_key : new_key, strlen(old_key)));
    /* the next publish leaves the pair and its manifest, no temporary */
    CHECK_INT(write_new(dir), ==, 0);
    CHECK_INT(count_entries(dir), ==, 3);
}

/* `strace -f -e inject=rename:signal=SIGKILL:when=N`, the command,
 * on this executable writing the new pair. */
static void test_strace_kill(const char *self)
{
    char *probe[] = {"strace", "-f", "-qq", "-o", "/dev/null", "true", NULL}, said[4096];
    if (!gdt_test_have("strace") || gdt_test_spawn(probe, NULL, said, sizeof said) != 0) {
        fprintf(stderr, "test_tables_publish: no strace that can trace here: its kill windows are the "
                "hook's only\n");
        return;
    }
    for (int n = 1; n <= 4; n++) {
        char top[400], dir[512], name[32], key[2048], inject[64], ignored[4096];
        snprintf(name, sizeof name, "strace%d", n);
        old_pair(name, top, sizeof top, dir, sizeof dir);
        snprintf(inject, sizeof inject, "inject=rename:signal=SIGKILL:when=%d", n);
        char *argv[] = {"strace", "-f", "-qq", "-o", "/dev/null", "-e", inject, (char *)self, "write", dir, NULL};
        gdt_test_spawn(argv, NULL, ignored, sizeof ignored);
        loaded_key(top, key, sizeof key);
        if (strncmp(key, n == 1 ? old_key : new_key, strlen(old_key)))
            fprintf(stderr, "strace, rename %d killed: %s\n%s\n", n, key, ignored);
        CHECK(!strncmp(key, n == 1 ? old_key : new_key, strlen(old_key)));
    }
}

static void touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
}

/* What the cleaner leaves: a live writer's temporary (its flock held), a
 * link named as a temporary, a name gdtune does not make; what it takes:
 * a dead writer's temporary. */
static void test_clean_only_stale(void)
{
    char top[400], dir[512], stale[700], live[700], link[700], odd[700], target[700];
    old_pair("clean", top, sizeof top, dir, sizeof dir);
    snprintf(stale, sizeof stale, "%s/gemm.tuning.json.tmp.aaaaaaaaaaaa", dir);
    snprintf(live, sizeof live, "%s/gemm.tuning.json.tmp.bbbbbbbbbbbb", dir);
    snprintf(link, sizeof link, "%s/gemm.placement.json.tmp.cccccccccccc", dir);
    snprintf(odd, sizeof odd, "%s/gemm.tuning.json.tmp.short", dir);
    snprintf(target, sizeof target, "%s/target", top);
    touch(stale), touch(live), touch(odd), touch(target);
    CHECK_INT(symlink(target, link), ==, 0);
    int fd = open(live, O_RDONLY);
    CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
    CHECK_INT(write_new(dir), ==, 0);
    CHECK(absent(stale));
    CHECK(!absent(live));
    CHECK(!absent(link));
    CHECK(!absent(odd));
    CHECK(!absent(target));
    close(fd);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "write"))
        return write_new(argv[2]);
    snprintf(root, sizeof root, "/tmp/gdt_tables_publish_XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    test_pair_failure(2);
    test_pair_failure(1);
    test_refusals();
    for (int n = 1; n <= 5; n++)
        test_kill_window(n);
    test_strace_kill(argv[0]);
    test_clean_only_stale();
    if (!gdt_test_failures && nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS))
        fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_tables_publish");
}
