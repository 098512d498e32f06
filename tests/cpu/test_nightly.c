/* `gdtune nightly` without a GPU, against a stand-in worker (this
 * executable run as `test_nightly worker`, through GDTUNE_WORKER_EXE): bad
 * usage exits 2; a first night with --update fills an empty TABLES (exit
 * 3: every cell new); a second night the same date resumes its run (no
 * plan measured twice) and, against tables of the same stand-in, exits 0;
 * the run directory, staging tables, both reports and history lines exist;
 * a new night's sweep takes the committed tables as its prior order, and
 * --rounds reaches it (its header and rounds record);
 * a night with an incorrect plan exits 4 and does not update; a second
 * night on a root in use is refused (exit 2) naming the holder; --update
 * publishes only what this night staged (staging/DATE), each pair with
 * its manifest. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_lock.h"
#include "gdt_test.h"

/* ------------------------------------------------ the stand-in worker */

/* Two plans per cell, both verified: cuDNN engine 0 at 10 us, ours at 8. */
static const char fake_plans[] =
    "[{\"engine_id\":0,\"knobs\":[],\"name\":\"cudnn.eng0\",\"backend\":true,\"tag\":\"A\",\"untimed\":0},"
    "{\"engine_id\":20000,\"knobs\":[[40,128]],\"name\":\"gemm.nvrtc[TILE_M=128]\",\"backend\":false,"
    "\"tag\":\"OURS\",\"untimed\":1}]";

/* GDT_TEST_INCORRECT=1: our plan fails verification. */
static void fake_result(int engine)
{
    double t = engine == 0 ? 10.0 : 8.0;
    const char *bad = getenv("GDT_TEST_INCORRECT");
    const char *disp = engine != 0 && bad && !strcmp(bad, "1") ? "incorrect" : "verified";
    printf("{\"op\":\"result\",\"disposition\":\"%s\",\"error\":\"\",\"build_s\":0.1,"
           "\"verify_err\":[0.001],\"bursts\":[{\"burst\":1,\"host_us\":[5,5.5],\"device_us\":[%g,%g],"
           "\"total_us\":[12,12],\"median_host_us\":5.25,\"median_device_us\":%g,\"rel_spread\":0.01},"
           "{\"burst\":4,\"host_us\":[4],\"device_us\":[%g],\"total_us\":[11],\"median_host_us\":4,"
           "\"median_device_us\":%g,\"rel_spread\":0.002}],\"cold_us\":[20],\"time_us\":%g,"
           "\"noise\":0.002,\"fatal\":false}\n", disp, t, t, t, t, t, t);
}

static int fake_worker(void)
{
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        cJSON *req = cJSON_Parse(line);
        const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(req, "op"));
        if (op && !strcmp(op, "hello"))
            printf("{\"op\":\"hello\",\"device\":{\"name\":\"Stand-in GPU\",\"arch\":90,\"sm_count\":132,"
                   "\"uuid\":\"GPU-stand-in\",\"driver_version\":13000,\"device_count\":1}}\n");
        else if (op && !strcmp(op, "cell"))
            printf("{\"op\":\"cell\",\"reference\":\"cudnn.eng0\",\"plans\":%s}\n", fake_plans);
        else if (op && !strcmp(op, "rounds"))
            printf("{\"op\":\"error\",\"status\":\"NOT_SUPPORTED\",\"error\":\"stand-in: no rounds\","
                   "\"fatal\":false}\n");
        else if (op && !strcmp(op, "plan"))
            fake_result((int)cJSON_GetNumberValue(
                cJSON_GetObjectItem(cJSON_GetObjectItem(req, "plan"), "engine_id")));
        fflush(stdout);
        cJSON_Delete(req);
    }
    return 0;
}

/* ------------------------------------------------ helpers */

static char out[1 << 16];

/* gdtune nightly on the tiny spec, with up to two more arguments (NULL: none). */
static int nightly2(const char *root, const char *tables, const char *extra, const char *extra2)
{
    char *av[17] = {(char *)GDTUNE_EXE, "nightly", "--root", (char *)root, "--tables",
                    (char *)tables, "--family", "gemm", "--arch", "sm90", "--date", "20261201",
                    "--spec", GDT_TEST_DATA "/sweeps/tiny_gemm.json", (char *)extra, (char *)extra2, NULL};
    int rc = gdt_test_spawn(av, NULL, out, sizeof out);
    if (rc != 0 && rc != 3 && rc != 4)
        fprintf(stderr, "gdtune nightly:\n%s\n", out);
    return rc;
}

static int nightly(const char *root, const char *tables, const char *extra)
{
    return nightly2(root, tables, extra, NULL);
}

static bool present(const char *dir, const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return access(p, R_OK) == 0;
}

/* Lines of a file and the number of them containing what (NULL: none). */
static int count_lines(const char *dir, const char *rel, const char *what, int *matching)
{
    char p[PATH_MAX], line[4096];
    int n = 0;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "r");
    if (matching) *matching = 0;
    while (f && fgets(line, sizeof line, f)) {
        n++;
        if (matching && what && strstr(line, what)) (*matching)++;
    }
    if (f) fclose(f);
    return n;
}

/* A scratch folder DIR holding ROOT and TABLES, the stand-in as worker. */
static void scratch(char *dir, char root[600], char tables[600], const char *self)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(root, 600, "%s/root", dir);
    snprintf(tables, 600, "%s/tables", dir);
    setenv("GDTUNE_WORKER_EXE", self, 1);
}

/* ------------------------------------------------ the tests */

static void test_usage(void)
{
    static const struct { const char *arg; const char *msg; } cases[] = {
        {"--family=conv", "--family: bad value \"conv\": expected gemm or sdpa"},
        {"--date=2026-12-01", "--date: bad value \"2026-12-01\": expected YYYYMMDD"},
        {"--rounds=1", "--rounds: bad value \"1\": expected 0 (off) or 2 to 100"},
        {"--rounds=3x", "--rounds: bad value \"3x\""},
        {"--arch=gpu9", "--arch: bad value \"gpu9\""},
        {"--bogus", "unknown option '--bogus'"},
        {"extra", "unexpected argument 'extra'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *av[] = {(char *)GDTUNE_EXE, "nightly", (char *)cases[i].arg, NULL};
        CHECK_INT(gdt_test_spawn(av, NULL, out, sizeof out), ==, 2);
        CHECK_CONTAINS(out, cases[i].msg);
    }
    char *help[] = {(char *)GDTUNE_EXE, "nightly", "--help", NULL};
    CHECK_INT(gdt_test_spawn(help, NULL, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "usage: gdtune nightly");
}

static void test_two_nights(const char *self)
{
    char dir[] = "/tmp/gdt_nightly_XXXXXX", root[600], tables[600];
    scratch(dir, root, tables, self);

    /* First night: nothing committed yet, so every cell is new (3). */
    CHECK_INT(nightly(root, tables, "--update"), ==, 3);
    CHECK_CONTAINS(out, "report: ");
    CHECK_CONTAINS(out, "/reports/20261201.md");
    CHECK(present(root, "runs/gemm-20261201/journal.jsonl"));
    CHECK(present(root, "staging/20261201/sm90/gemm.tuning.json"));
    CHECK(present(root, "staging/20261201/sm90/gemm.placement.json"));
    CHECK(present(root, "reports/20261201.md"));
    CHECK(present(tables, "sm90/gemm.tuning.json")); /* --update */
    CHECK(present(tables, "sm90/gemm.placement.json"));
    int results_1, added;
    count_lines(root, "runs/gemm-20261201/journal.jsonl", "\"type\":\"result\"", &results_1);
    CHECK_INT(results_1, ==, 4); /* 2 cells x 2 plans */
    CHECK_INT(count_lines(root, "history.tsv", "\tadded\n", &added), ==, 2);
    CHECK_INT(added, ==, 1);

    /* Second night, same date: the run resumes, measures nothing again, and
     * the staged tables match the ones the first night published. */
    CHECK_INT(nightly(root, tables, NULL), ==, 0);
    CHECK_CONTAINS(out, "resuming ");
    int results_2;
    count_lines(root, "runs/gemm-20261201/journal.jsonl", "\"type\":\"result\"", &results_2);
    CHECK_INT(results_2, ==, results_1);
    CHECK(present(root, "reports/20261201.md"));
    CHECK(present(root, "reports/20261201.json"));
    int same;
    CHECK_INT(count_lines(root, "history.tsv", "\tgemm\t-\t-\t-\t-\tsame\n", &same), ==, 3);
    CHECK_INT(same, ==, 1);
    char *cat[] = {"cat", root, NULL}, rep[PATH_MAX];
    snprintf(rep, sizeof rep, "%s/reports/20261201.json", root);
    cat[1] = rep;
    CHECK_INT(gdt_test_spawn(cat, NULL, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "\"schema\":\t\"gdtune.tables_diff/1\"");
    CHECK_CONTAINS(out, "\"beyond_noise\":\t0");

    /* A new night: the committed tables order its sweep's cells, and its
     * journal header says which (path and sha256). */
    CHECK_INT(nightly(root, tables, "--date=20261202"), ==, 0);
    char want[1400];
    snprintf(rep, sizeof rep, "%s/runs/gemm-20261202/journal.jsonl", root);
    snprintf(want, sizeof want, "\"prior\":{\"dir\":\"%s\",\"tables\":[{\"family\":\"gemm\","
             "\"path\":\"%s/sm90/gemm.tuning.json\",\"sha256\":\"", tables, tables);
    CHECK_INT(gdt_test_spawn(cat, NULL, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, want);
    CHECK(strstr(out, "\"rounds\"") == NULL); /* off by default */

    /* --rounds reaches a new night's sweep: its header records it and each
     * cell has a rounds record (the stand-in refuses them: journaled). */
    CHECK_INT(nightly2(root, tables, "--date=20261203", "--rounds=3"), ==, 0);
    snprintf(rep, sizeof rep, "%s/runs/gemm-20261203/journal.jsonl", root);
    CHECK_INT(gdt_test_spawn(cat, NULL, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "\"rounds\":3,");
    CHECK_CONTAINS(out, "\"type\":\"rounds\"");
    CHECK_CONTAINS(out, "stand-in: no rounds");

    /* A TABLES that does not load is bad input, passed on from the diff. */
    char bad[700];
    int history = count_lines(root, "history.tsv", NULL, NULL);
    CHECK_INT(history, ==, 5); /* the header and a line per night */
    snprintf(bad, sizeof bad, "%s/sm90/gemm.tuning.json", tables);
    FILE *f = fopen(bad, "w");
    if (f) fputs("{", f), fclose(f);
    CHECK_INT(nightly(root, tables, NULL), ==, 2);
    CHECK_CONTAINS(out, "gemm.tuning.json");
    CHECK_INT(count_lines(root, "history.tsv", NULL, NULL), ==, history); /* none for it */

    unsetenv("GDTUNE_WORKER_EXE");
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

/* Writes text to dir/rel (its folder made). */
static void plant(const char *dir, const char *rel, const char *text)
{
    char p[PATH_MAX], folder[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    snprintf(folder, sizeof folder, "%s", p);
    *strrchr(folder, '/') = '\0';
    char *mk[] = {"mkdir", "-p", folder, NULL}, ignored[256];
    CHECK_INT(gdt_test_spawn(mk, NULL, ignored, sizeof ignored), ==, 0);
    FILE *f = fopen(p, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* Issue 34 F3 and F8: one night per root (a second is refused while the
 * first holds it, and nothing is swept); --update publishes this night's
 * staging only, not an sm* folder an earlier night (or an older gdtune,
 * straight under staging/) left. */
static void test_root_and_staging(const char *self)
{
    char dir[] = "/tmp/gdt_nightly_XXXXXX", root[600], tables[600], want[64];
    scratch(dir, root, tables, self);
    plant(root, "staging/sm91/gemm.tuning.json", "{}");
    plant(root, "staging/sm91/gemm.placement.json", "{}");
    plant(root, "staging/20261130/sm92/gemm.tuning.json", "{}");
    plant(root, "staging/20261130/sm92/gemm.placement.json", "{}");
    int fd = -1;
    gdt_error e = {0};
    CHECK_INT(gdt_dir_lock(root, "gdtune nightly", "test", &fd, &e), ==, GDT_STATUS_OK);
    CHECK_INT(nightly(root, tables, "--update"), ==, 2);
    snprintf(want, sizeof want, "gdtune nightly pid %ld, host ", (long)getpid());
    CHECK_CONTAINS(out, "is in use: ");
    CHECK_CONTAINS(out, want);
    CHECK(!present(root, "runs/gemm-20261201"));
    gdt_dir_unlock(fd);
    CHECK_INT(nightly(root, tables, "--update"), ==, 3);
    CHECK(present(tables, "sm90/gemm.tuning.json"));
    CHECK(present(tables, "sm90/gemm.pair.json"));
    CHECK(!present(tables, "sm91"));
    CHECK(!present(tables, "sm92"));
    unsetenv("GDTUNE_WORKER_EXE");
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

/* A night whose sweep measures an incorrect plan: the diff and reports are
 * still written, the exit status is 4, and --update leaves TABLES alone. */
static void test_incorrect_night(const char *self)
{
    char dir[] = "/tmp/gdt_nightly_XXXXXX", root[600], tables[600];
    scratch(dir, root, tables, self);
    setenv("GDT_TEST_INCORRECT", "1", 1);
    CHECK_INT(nightly(root, tables, "--update"), ==, 4);
    CHECK_CONTAINS(out, "measured an incorrect plan");
    CHECK_CONTAINS(out, "report: ");
    CHECK(present(root, "reports/20261201.md"));
    CHECK(present(root, "staging/20261201/sm90/gemm.placement.json"));
    CHECK(!present(tables, "sm90/gemm.placement.json")); /* not updated */
    unsetenv("GDT_TEST_INCORRECT");
    unsetenv("GDTUNE_WORKER_EXE");
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "worker"))
        return fake_worker();
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    test_usage();
    test_two_nights(self);
    test_incorrect_night(self);
    test_root_and_staging(self);
    return gdt_test_result("test_nightly");
}
