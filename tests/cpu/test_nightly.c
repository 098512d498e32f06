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
 * its manifest; --tuning-config reaches each new sweep, and the
 * confirmation's worker lists the rows the night's journal recorded. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gdt_plant.h"
#include "gdt_lock.h"
#include "gdt_plan_json.h"
#include "gdt_test.h"
#include "gdt_worker.h"
#include "gdtune/candidates.h"

/* ------------------------------------------------ the stand-in worker */

/* Two plans per cell, both verified: cuDNN engine 0 at 10 us, ours at 8. */
static const char fake_plans[] =
    "[{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{},\"backend\":true,\"tag\":\"A\",\"untimed\":0},"
    "{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":{\"TILE_M\":128},\"backend\":false,"
    "\"tag\":\"OURS\",\"untimed\":1}]";

/* The stand-in's current cell (its "problem"), for GDT_TEST_SLOW_CELL. */
static char cell_problem[512];

/* Our plan's time: 8 us, or GDT_TEST_OURS_US in the cells whose problem
 * holds GDT_TEST_SLOW_CELL. */
static double ours_us(void)
{
    const char *slow = getenv("GDT_TEST_SLOW_CELL"), *us = getenv("GDT_TEST_OURS_US");
    return slow && us && strstr(cell_problem, slow) ? atof(us) : 8.0;
}

/* A plan of t us through the planted slowdown, as the worker's timed
 * execute runs it (a spin after each call, calibrated to the fraction):
 * the time per call. */
static double planted_us(const gdt_plant *p, const cJSON *plan, double t)
{
    gdt_plan_id id;
    double f = gdt_plan_json_read(plan, "plan", "", false, &id, NULL, NULL) == GDT_STATUS_OK ? gdt_plant_fraction(p, &id) : 0;
    return t * (1 + f);
}

/* GDT_TEST_INCORRECT=1: our plan fails verification; GDT_TEST_HANG=1: our
 * plan never answers (the sweep's deadline kills the stand-in). */
static void fake_result(const gdt_plant *p, const cJSON *plan)
{
    int engine = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(plan, "engine_id"));
    const char *hang = getenv("GDT_TEST_HANG");
    while (engine != 0 && hang && !strcmp(hang, "1"))
        sleep(600);
    double t = engine == 0 ? 10.0 : ours_us(), t1 = planted_us(p, plan, t), t4 = t1;
    const char *bad = getenv("GDT_TEST_INCORRECT");
    const char *disp = engine != 0 && bad && !strcmp(bad, "1") ? "incorrect" : "verified";
    printf("{\"op\":\"result\",\"disposition\":\"%s\",\"error\":\"\",\"build_s\":0.1,"
           "\"verify_err\":[0.001],\"bursts\":[{\"burst\":1,\"host_us\":[5,5.5],\"device_us\":[%g,%g],"
           "\"total_us\":[12,12],\"median_host_us\":5.25,\"median_device_us\":%g,\"rel_spread\":0.01},"
           "{\"burst\":4,\"host_us\":[4],\"device_us\":[%g],\"total_us\":[11],\"median_host_us\":4,"
           "\"median_device_us\":%g,\"rel_spread\":0.002}],\"cold_us\":[20],\"time_us\":%g,"
           "\"noise\":0.002,\"fatal\":false}\n", disp, t1, t1, t1, t4, t4, t4);
}

/* GDT_TEST_ROUNDS: "confirm" measures the cell as its plan requests do
 * (ours at ours_us(), planted slowdowns included, as the worker's rounds
 * have them), "dissolve" measures ours at 7.9 us (the committed
 * tables' 8: the night's slow series was a one-off) against the backend's
 * 10; unset: the rounds are refused.  Each round varies by a
 * few parts in a thousand. */
static void fake_rounds(const gdt_plant *pl, const cJSON *req)
{
    const char *mode = getenv("GDT_TEST_ROUNDS");
    const cJSON *p, *plans = cJSON_GetObjectItem(req, "plans");
    int rounds = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(req, "rounds")), i = 0;
    if (!mode) {
        printf("{\"op\":\"error\",\"status\":\"NOT_SUPPORTED\",\"error\":\"stand-in: no rounds\","
               "\"fatal\":false}\n");
        return;
    }
    fprintf(stderr, "stand-in: rounds of %d plans\n", cJSON_GetArraySize(plans));
    printf("{\"op\":\"rounds\",\"round_us\":[");
    cJSON_ArrayForEach(p, plans) {
        bool ours = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "engine_id")) != 0;
        double t = planted_us(pl, p, !ours ? 10.0 : !strcmp(mode, "dissolve") ? 7.9 : ours_us());
        printf("%s[", i++ ? "," : "");
        for (int r = 0; r < rounds; r++)
            printf("%s%g", r ? "," : "", t * (1 + 0.002 * ((r + i) % 3)));
        printf("]");
    }
    printf("],\"seconds\":0.1}\n");
}

static int fake_worker(void)
{
    char line[65536];
    gdt_plant plant;
    bool ignored;
    if (gdt_plant_from_env(&plant, &ignored, NULL) != GDT_STATUS_OK)
        return 2;
    while (fgets(line, sizeof line, stdin)) {
        cJSON *req = cJSON_Parse(line);
        const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(req, "op"));
        if (op && !strcmp(op, "hello")) {
            gdt_test_log_hello_rows(req);
            printf("{\"op\":\"hello\",\"device\":{\"name\":\"%s\",\"arch\":90,\"sm_count\":132,"
                   "\"uuid\":\"GPU-stand-in\",\"driver_version\":13000,\"device_count\":1}}\n",
                   getenv("FAKE_DEVICE") ? getenv("FAKE_DEVICE") : "Stand-in GPU");
        } else if (op && !strcmp(op, "cell")) {
            const char *pr = cJSON_GetStringValue(cJSON_GetObjectItem(req, "problem"));
            snprintf(cell_problem, sizeof cell_problem, "%s", pr ? pr : "");
            printf("{\"op\":\"cell\",\"reference\":\"cudnn.eng0\",\"plans\":%s}\n", fake_plans);
        } else if (op && !strcmp(op, "rounds"))
            fake_rounds(&plant, req);
        else if (op && !strcmp(op, "plan"))
            fake_result(&plant, cJSON_GetObjectItem(req, "plan"));
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

static void slurp(const char *root, const char *rel);

/* ------------------------------------------------ the tests */

static void test_usage(void)
{
    static const struct { const char *arg; const char *msg; } cases[] = {
        {"--family=conv", "--family: bad value \"conv\": expected gemm or sdpa"},
        {"--date=2026-12-01", "--date: bad value \"2026-12-01\": expected YYYYMMDD"},
        {"--rounds=1", "--rounds: bad value \"1\": expected 0 (off) or 2 to 100"},
        {"--rounds=3x", "--rounds: bad value \"3x\""},
        {"--confirm-rounds=1", "--confirm-rounds: bad value \"1\": expected 0 (off) or 2 to 100"},
        {"--deadline=0.5", "--deadline: bad value \"0.5\": expected a number in [1, 86400]"},
        {"--max-plan-seconds=0", "--max-plan-seconds: bad value \"0\": expected a number in [0.01, 3600]"},
        {"--gpus=17", "--gpus: bad value \"17\": expected an integer in 1..16"},
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
    CHECK_CONTAINS(out, "/reports/20261201-gemm.md");
    CHECK(present(root, "runs/gemm-20261201/journal.jsonl"));
    CHECK(present(root, "staging/20261201/sm90/gemm.tuning.json"));
    CHECK(present(root, "staging/20261201/sm90/gemm.placement.json"));
    CHECK(present(root, "reports/20261201-gemm.md"));
    CHECK(present(tables, "sm90/gemm.tuning.json")); /* --update */
    CHECK(present(tables, "sm90/gemm.placement.json"));
    int results_1, added;
    count_lines(root, "runs/gemm-20261201/journal.jsonl", "\"type\":\"result\"", &results_1);
    CHECK_INT(results_1, ==, 4); /* 2 cells x 2 plans */
    /* the header and a line per staged cell: winner, its time, decision */
    CHECK_INT(count_lines(root, "history.tsv", "\tgemm.nvrtc[TILE_M=128]\t8\tLEAD\tadded\n", &added), ==, 3);
    CHECK_INT(added, ==, 2);

    /* Second night, same date: the run resumes, measures nothing again, and
     * the staged tables match the ones the first night published. */
    CHECK_INT(nightly(root, tables, NULL), ==, 0);
    CHECK_CONTAINS(out, "resuming ");
    int results_2;
    count_lines(root, "runs/gemm-20261201/journal.jsonl", "\"type\":\"result\"", &results_2);
    CHECK_INT(results_2, ==, results_1);
    CHECK(present(root, "reports/20261201-gemm.md"));
    CHECK(present(root, "reports/20261201-gemm.json"));
    /* a stable night keeps each cell's trend: its winner and time again */
    int same;
    CHECK_INT(count_lines(root, "history.tsv", "\tgemm.nvrtc[TILE_M=128]\t8\tLEAD\tsame\n", &same), ==, 5);
    CHECK_INT(same, ==, 2);
    CHECK_INT(count_lines(root, "history.tsv", "20261201\tgemm\tgemm:b1,m256,", &same), ==, 5);
    CHECK_INT(same, ==, 2);
    char *cat[] = {"cat", root, NULL}, rep[PATH_MAX];
    snprintf(rep, sizeof rep, "%s/reports/20261201-gemm.json", root);
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
    /* two stable nights draw a line per cell in the history figure */
    slurp(root, "staging/20261202/nightly_history.dat");
    CHECK_CONTAINS(out, "# series 0\n20261201 8\n20261201 8\n20261202 8\n");

    /* --rounds reaches a new night's sweep: its header records it and each
     * cell has a rounds record (the stand-in refuses them: journaled). */
    CHECK_INT(nightly2(root, tables, "--date=20261203", "--rounds=3"), ==, 0);
    snprintf(rep, sizeof rep, "%s/runs/gemm-20261203/journal.jsonl", root);
    CHECK_INT(gdt_test_spawn(cat, NULL, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "\"rounds\":3,");
    CHECK_CONTAINS(out, "\"type\":\"rounds\"");
    CHECK_CONTAINS(out, "stand-in: no rounds");
    CHECK(strstr(out, "the committed tables were measured on") == NULL); /* the same device */

    /* A night on another device than the committed tables' says so first. */
    setenv("FAKE_DEVICE", "Other GPU", 1);
    CHECK_INT(nightly(root, tables, "--date=20261204"), ==, 0);
    CHECK_CONTAINS(out, "gdtune nightly: gemm sm90: the committed tables were measured on Stand-in GPU, "
                        "tonight's on Other GPU: what the diff finds is the device's as well as the build's");
    CHECK_INT(nightly2(root, tables, "--date=20261204", "--format=json"), ==, 0); /* resumed: nothing measured */
    CHECK_CONTAINS(out, "\"device_changed\":\t[{\n\t\t\t\"family\":\t\"gemm\",\n\t\t\t\"arch\":\t\"sm90\",\n"
                        "\t\t\t\"old\":\t\"Stand-in GPU\",\n\t\t\t\"new\":\t\"Other GPU\"");
    unsetenv("FAKE_DEVICE");

    /* A TABLES that does not load is bad input, passed on from the diff. */
    char bad[700];
    int history = count_lines(root, "history.tsv", NULL, NULL);
    CHECK_INT(history, ==, 13); /* the header and a line per cell per night */
    snprintf(bad, sizeof bad, "%s/sm90/gemm.tuning.json", tables);
    FILE *f = fopen(bad, "w");
    if (f) fputs("{", f), fclose(f);
    CHECK_INT(nightly(root, tables, NULL), ==, 2);
    CHECK_CONTAINS(out, "gemm.tuning.json");
    CHECK_INT(count_lines(root, "history.tsv", NULL, NULL), ==, history); /* none for it */

    unsetenv("GDTUNE_WORKER_EXE");
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

/* Issue 36 item 6: the night passes --deadline, --max-plan-seconds and
 * --gpus to its sweeps.  Our plan hangs in each of the two cells; on the
 * sweep's default deadline (180 + 3 x the cap: 198 s) that night took 6 min
 * 37 s, with --deadline 1 it takes seconds, each hang is journaled as
 * failed, and the header records what the sweep ran with. */
static void test_sweep_options(const char *self)
{
    char dir[] = "/tmp/gdt_nightly_XXXXXX", root[600], tables[600];
    scratch(dir, root, tables, self);
    setenv("GDT_TEST_HANG", "1", 1);
    char *av[] = {(char *)GDTUNE_EXE, "nightly", "--root", root, "--tables", tables, "--family", "gemm",
                  "--arch", "sm90", "--date", "20261201", "--spec", GDT_TEST_DATA "/sweeps/tiny_gemm.json",
                  "--deadline", "1", "--max-plan-seconds", "0.25", "--gpus", "1", NULL};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_INT(gdt_test_spawn(av, NULL, out, sizeof out), ==, 3);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("test_nightly: a two-cell night with a hanging plan per cell, --deadline 1: %.1f s\n", wall);
    CHECK(wall < 60);
    CHECK_CONTAINS(out, " --max-plan-seconds 0.25 --deadline 1 --gpus 1 --prior ");
    slurp(root, "runs/gemm-20261201/journal.jsonl");
    CHECK_CONTAINS(out, "\"max_plan_seconds\":0.25,\"deadline\":1,");
    CHECK_CONTAINS(out, "\"disposition\":\"failed\"");
    /* the backend's plan won each cell: the history has both */
    int lines = 0;
    CHECK_INT(count_lines(root, "history.tsv", "\tcudnn.eng0\t10\t", &lines), ==, 3);
    CHECK_INT(lines, ==, 2);
    /* resumed the same night: --deadline and --gpus reach it, the cap is recorded */
    CHECK_INT(gdt_test_spawn(av, NULL, out, sizeof out), ==, 3); /* still nothing committed */
    CHECK_CONTAINS(out, "--resume ");
    CHECK_CONTAINS(out, " --deadline 1 --gpus 1 --tables-dir ");
    CHECK(strstr(out, "--max-plan-seconds 0.25 --deadline") == NULL);
    unsetenv("GDT_TEST_HANG");
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
    CHECK(present(root, "reports/20261201-gemm.md"));
    CHECK(present(root, "staging/20261201/sm90/gemm.placement.json"));
    CHECK(!present(tables, "sm90/gemm.placement.json")); /* not updated */
    unsetenv("GDT_TEST_INCORRECT");
    unsetenv("GDTUNE_WORKER_EXE");
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

/* The file ROOT/rel into out (empty when it cannot be read). */
static void slurp(const char *root, const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = 0;
    if (f) fclose(f);
}

#define M512 "gemm sm90 gemm:b1,m512,n512,k256,bf16,a=row,b=row"
#define M256 "gemm sm90 gemm:b1,m256,n512,k256,bf16,a=row,b=row"

/* Confirm before alarming: a night whose sweep measures our plan slower in
 * one cell (12 us against the committed 8) differs beyond noise; the
 * rounds that measure it so again hold the change (exit 3, that cell
 * named), rounds that find the two plans within noise dissolve it (exit 0,
 * said in the report), a rerun finds the rounds journaled, rounds the
 * worker refuses leave it unconfirmed (3), and --confirm-rounds 0 keeps
 * the diff's status. */
static void test_confirmation(const char *self)
{
    char dir[] = "/tmp/gdt_nightly_XXXXXX", root[600], tables[600];
    scratch(dir, root, tables, self);
    CHECK_INT(nightly(root, tables, "--update"), ==, 3); /* the committed tables: ours 8 us */
    setenv("GDT_TEST_SLOW_CELL", "m=512", 1);
    setenv("GDT_TEST_OURS_US", "12", 1);

    setenv("GDT_TEST_ROUNDS", "confirm", 1);
    CHECK_INT(nightly(root, tables, "--date=20261202"), ==, 3);
    CHECK_CONTAINS(out, "gdtune nightly: confirming gemm gemm:b1,m512,n512,k256,bf16,a=row,b=row: 10 rounds of 2 plans");
    CHECK_CONTAINS(out, "held: " M512 " winner: gemm.nvrtc[TILE_M=128] -> cudnn.eng0 (rounds: cudnn.eng0 10");
    CHECK_CONTAINS(out, "held: " M512 " decision: gemm.nvrtc[TILE_M=128] -> cudnn.eng0");
    CHECK_CONTAINS(out, "held: " M512 " slowdown: "); /* the cell's best, 10 us against the committed 8 */
    CHECK(strstr(out, M256) == NULL); /* that cell did not change */
    CHECK(present(root, "runs/gemm-20261202/confirm/journal.jsonl"));
    slurp(root, "staging/20261202/nightly.md");
    CHECK_CONTAINS(out, "## Confirmation in interleaved rounds");
    CHECK_CONTAINS(out, "| **held** | gemm | sm90 | `gemm:b1,m512,n512,k256,bf16,a=row,b=row` | winner |");

    setenv("GDT_TEST_ROUNDS", "dissolve", 1);
    CHECK_INT(nightly(root, tables, "--date=20261203"), ==, 0);
    CHECK_CONTAINS(out, "dissolved: " M512 " winner: gemm.nvrtc[TILE_M=128] -> cudnn.eng0");
    CHECK_CONTAINS(out, "dissolved: " M512 " slowdown: "); /* the committed winner is at 7.9 again */
    CHECK(strstr(out, "held: ") == NULL);
    slurp(root, "staging/20261203/nightly.md");
    CHECK_CONTAINS(out, "| dissolved | gemm | sm90 | `gemm:b1,m512,n512,k256,bf16,a=row,b=row` | decision |");
    /* the history says what the rounds said: the night's m=512 line is dissolved, not beyond noise */
    int dissolved = 0, held = 0;
    count_lines(root, "history.tsv", "\tdissolved\n", &dissolved);
    count_lines(root, "history.tsv", "\tbeyond_noise\n", &held); /* the night of 20261202: held */
    CHECK_INT(dissolved, ==, 1);
    CHECK_INT(held, ==, 1);
    /* --format json: the night as one document on stdout, the lines on stderr
     * (the rounds are journaled: the rerun measures nothing again) */
    char *js[] = {(char *)GDTUNE_EXE, "nightly", "--root", root, "--tables", tables, "--family", "gemm",
                  "--arch", "sm90", "--date", "20261203", "--spec", GDT_TEST_DATA "/sweeps/tiny_gemm.json",
                  "--format", "json", NULL};
    char sum_path[PATH_MAX];
    snprintf(sum_path, sizeof sum_path, "%s/summary.json", root);
    CHECK_INT(gdt_test_spawn_to(js, NULL, sum_path, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "dissolved: " M512 " winner: "); /* stderr */
    slurp(root, "summary.json");
    CHECK_CONTAINS(out, "\"schema\":\t\"gdtune.nightly/1\"");
    CHECK_CONTAINS(out, "\"exit_code\":\t0");
    CHECK_CONTAINS(out, "/reports/20261203-gemm.confirm.json\"");
    CHECK_CONTAINS(out, "\"beyond_noise\":\t1");
    CHECK_CONTAINS(out, "\"confirmation\":\t{\n\t\t\"held\":\t0,\n\t\t\"dissolved\":\t");
    /* counted from the confirmation's verdicts (they once read as none) */
    CHECK(strstr(out, "\"dissolved\":\t0") == NULL);
    CHECK(strstr(out, "dissolved: ") == NULL); /* no line in the document */
    slurp(root, "reports/20261203-gemm.confirm.json");
    CHECK_CONTAINS(out, "\"schema\":\t\"gdtune.confirm/1\"");
    CHECK_CONTAINS(out, "\"exit_code\":\t0");
    slurp(root, "runs/gemm-20261203/confirm/journal.jsonl");
    CHECK_CONTAINS(out, "{\"type\":\"confirm_rounds\",\"family\":\"gemm\",\"key\":\"gemm:b1,m512,n512,k256,"
                        "bf16,a=row,b=row\",\"shape\":");
    CHECK_CONTAINS(out, "\"plans\":[\"gemm.nvrtc[TILE_M=128]\",\"cudnn.eng0\"],\"rounds\":10,\"burst\":4,\"error\":\"\"");

    /* The same night again: its rounds are journaled, so nothing is
     * measured again and the verdict stands (though the stand-in would
     * now confirm). */
    setenv("GDT_TEST_ROUNDS", "confirm", 1);
    CHECK_INT(nightly(root, tables, "--date=20261203"), ==, 0);
    CHECK(strstr(out, "confirming ") == NULL);
    CHECK_CONTAINS(out, "dissolved: " M512);

    unsetenv("GDT_TEST_ROUNDS"); /* refused: unconfirmed, which holds */
    CHECK_INT(nightly(root, tables, "--date=20261204"), ==, 3);
    CHECK_CONTAINS(out, "unconfirmed: " M512 " winner: gemm.nvrtc[TILE_M=128] -> cudnn.eng0 (rounds not "
                        "measured: stand-in: no rounds)");
    CHECK_INT(nightly2(root, tables, "--date=20261205", "--confirm-rounds=0"), ==, 3);
    CHECK(strstr(out, "confirming ") == NULL);
    unsetenv("GDT_TEST_SLOW_CELL");
    unsetenv("GDT_TEST_OURS_US");
    unsetenv("GDTUNE_WORKER_EXE");
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

/* The planted slowdown through the stand-in: refused with --update and
 * when malformed, ignored without GDTUNE_ENABLE_PLANT (GDTUNE_ENABLE_OPT_IN, the
 * test engines' gate, is not it), else our plan
 * measures 1.5x (8 -> 12 us at burst 4) and the header says so. */
static void test_plant(const char *self)
{
    char dir[] = "/tmp/gdt_nightly_XXXXXX", root[600], tables[600];
    scratch(dir, root, tables, self);
    setenv("GDTUNE_PLANT_SLOWDOWN", "gemm.nvrtc[TILE_M=128]=0.5", 1);
    CHECK_INT(nightly(root, tables, "--confirm-rounds=0"), ==, 3); /* not enabled: no effect */
    CHECK_CONTAINS(out, "GDTUNE_PLANT_SLOWDOWN ignored: it takes GDTUNE_ENABLE_PLANT=1");
    setenv("GDTUNE_ENABLE_OPT_IN", "1", 1); /* the test engines' gate: not the plant's */
    CHECK_INT(nightly(root, tables, "--confirm-rounds=0"), ==, 3);
    CHECK_CONTAINS(out, "GDTUNE_PLANT_SLOWDOWN ignored: it takes GDTUNE_ENABLE_PLANT=1");
    unsetenv("GDTUNE_ENABLE_OPT_IN");
    slurp(root, "runs/gemm-20261201/journal.jsonl");
    CHECK(strstr(out, "\"planted\"") == NULL);
    CHECK_CONTAINS(out, "\"time_us\":8,\"noise\":0.002,\"fatal\":false,\"type\":\"result\",\"cell\":0,\"plan\":1,");

    setenv("GDTUNE_ENABLE_PLANT", "1", 1);
    CHECK_INT(nightly(root, tables, "--update"), ==, 2);
    CHECK_CONTAINS(out, "--update refused: GDTUNE_PLANT_SLOWDOWN plants a slowdown");
    CHECK(!present(tables, "sm90/gemm.tuning.json"));
    setenv("GDTUNE_PLANT_SLOWDOWN", "gemm.nvrtc[TILE_M=128]", 1);
    CHECK_INT(nightly(root, tables, NULL), ==, 2);
    CHECK_CONTAINS(out, "GDTUNE_PLANT_SLOWDOWN: entry \"gemm.nvrtc[TILE_M=128]\": expected a plan name as "
                        "`gdtune plans` prints it before the last '=', got \"gemm.nvrtc[TILE_M\"");
    setenv("GDTUNE_PLANT_SLOWDOWN", "gemm.nvrtc[TILE_M=128]=0.5", 1);
    /* the run of 20261201 was measured unplanted: it is not resumed planted */
    CHECK_INT(nightly(root, tables, NULL), ==, 2);
    CHECK_CONTAINS(out, "the run was measured with planted slowdown \"\" (options.planted), now "
                        "\"gemm.nvrtc[TILE_M=128]=0.5\"");
    CHECK_INT(nightly(root, tables, "--date=20261202"), ==, 3);
    slurp(root, "runs/gemm-20261202/journal.jsonl");
    CHECK_CONTAINS(out, "\"planted\":\"gemm.nvrtc[TILE_M=128]=0.5\"");
    CHECK_CONTAINS(out, "\"time_us\":12,\"noise\":0.002,\"fatal\":false,\"type\":\"result\",\"cell\":0,\"plan\":1,");
    CHECK_CONTAINS(out, "\"time_us\":10,\"noise\":0.002,\"fatal\":false,\"type\":\"result\",\"cell\":0,\"plan\":0,");
    /* Rounds that measure the planted plan as the worker does (slowed
     * too) hold the changes: the plant is a change, not a slow series. */
    char base[700];
    snprintf(base, sizeof base, "%s/staging/20261201", root); /* the unplanted night's tables */
    CHECK(present(base, "sm90/gemm.tuning.json"));
    setenv("GDT_TEST_ROUNDS", "confirm", 1);
    CHECK_INT(nightly(root, base, "--date=20261203"), ==, 3);
    CHECK_CONTAINS(out, "held: " M512 " winner: gemm.nvrtc[TILE_M=128] -> cudnn.eng0 (rounds: cudnn.eng0 10");
    CHECK_CONTAINS(out, "gemm.nvrtc[TILE_M=128] 12");
    CHECK(strstr(out, "dissolved: ") == NULL);
    unsetenv("GDT_TEST_ROUNDS");
    unsetenv("GDTUNE_PLANT_SLOWDOWN");
    unsetenv("GDTUNE_ENABLE_PLANT");
    unsetenv("GDTUNE_WORKER_EXE");
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

/* --tuning-config FILE: the night's sweep gets it (its header records the
 * merged rows' digest), and the confirmation's worker is handed those rows
 * in its hello, not the defaults (every hello logged with their digest). */
static void test_tuning_config(const char *self)
{
    char dir[] = "/tmp/gdt_nightly_XXXXXX", root[600], tables[600], log[700], want[200];
    static const char staged[] = GDT_TEST_DATA "/candidates/staged_s37.json";
    char merged[65] = "", line[128];
    gdt_row_table *t = NULL;
    CHECK_INT(gdt_rows_load_default(&t, NULL), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_rows_override(t, staged, NULL), ==, GDT_STATUS_OK);
    gdt_rows_digest(t, merged);
    gdt_rows_destroy(t);
    scratch(dir, root, tables, self);
    snprintf(log, sizeof log, "%s/hellos.log", dir);
    CHECK_INT(nightly(root, tables, "--update"), ==, 3); /* the committed tables: ours 8 us */
    setenv("GDT_TEST_SLOW_CELL", "m=512", 1);
    setenv("GDT_TEST_OURS_US", "12", 1);
    setenv("GDT_TEST_ROUNDS", "confirm", 1);
    setenv("GDT_FAKE_ROWS_LOG", log, 1);
    snprintf(want, sizeof want, "--tuning-config=%s", staged);
    CHECK_INT(nightly2(root, tables, "--date=20261202", want), ==, 3);
    snprintf(want, sizeof want, " --tuning-config %s --prior ", staged);
    CHECK_CONTAINS(out, want);
    CHECK_CONTAINS(out, "confirming gemm gemm:b1,m512");
    slurp(root, "runs/gemm-20261202/journal.jsonl");
    snprintf(want, sizeof want, "\"candidates_digest\":\"%s\"", merged);
    CHECK_CONTAINS(out, want);
    int hellos = 0, with_rows = 0;
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f))
        hellos++, with_rows += !strncmp(line, merged, strlen(merged));
    if (f) fclose(f);
    CHECK(hellos >= 2); /* the sweep's worker and the confirmation's */
    CHECK_INT(with_rows, ==, hellos);
    unsetenv("GDT_FAKE_ROWS_LOG");
    unsetenv("GDT_TEST_ROUNDS");
    unsetenv("GDT_TEST_SLOW_CELL");
    unsetenv("GDT_TEST_OURS_US");
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
    test_sweep_options(self);
    test_incorrect_night(self);
    test_confirmation(self);
    test_plant(self);
    test_root_and_staging(self);
    test_tuning_config(self);
    return gdt_test_result("test_nightly");
}
