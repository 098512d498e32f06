/* `gdtune tables diff`: a flip told from noise on synthetic table pairs
 * written by gdt_tables_write, the exit status, provenance first, bad input
 * named, the JSON and markdown forms, the committed tables against a copy,
 * --runs on the committed journal, and the Mann-Whitney U test alone. */
#include <cjson/cJSON.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

static char root[256];
static char out[1 << 18];

/* ------------------------------------------------------------ synthetic tables */

static gdt_plan_id backend_plan(int64_t eng, int64_t cfg)
{
    gdt_plan_id id = {.engine_id = eng};
    gdt_plan_id_set_knob(&id, GDT_KNOB_KERNEL_CFG, cfg);
    return id;
}

static gdt_plan_id our_plan(int64_t tm, int64_t tn)
{
    gdt_plan_id id = {.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 0)};
    gdt_plan_id_set_knob(&id, GDT_KNOB_TILE_M, tm);
    gdt_plan_id_set_knob(&id, GDT_KNOB_TILE_N, tn);
    gdt_plan_id_set_knob(&id, GDT_KNOB_STAGES, 3);
    return id;
}

static gdt_measured_plan mp(gdt_plan_id id, bool backend, gdt_mode mode, int pos, double t)
{
    return (gdt_measured_plan){.id = id, .is_backend = backend, .mode = mode, .untimed_position = pos,
                               .time_us = t, .noise = 0.004, .host_us = 4.25, .samples = 40};
}

static void provenance(gdt_provenance *v)
{
    memset(v, 0, sizeof *v);
    snprintf(v->device_name, sizeof v->device_name, "NVIDIA H200");
    v->arch = 90;
    v->driver_version = v->cuda_version = v->nvrtc_version = 13000;
    v->cudnn_version = 91900;
    snprintf(v->gdtune_version, sizeof v->gdtune_version, "%s", GDT_VERSION_STRING);
    snprintf(v->source_digest, sizeof v->source_digest, "%064d", 1);
    snprintf(v->sweep_digest, sizeof v->sweep_digest, "%064d", 2);
    snprintf(v->candidates_digest, sizeof v->candidates_digest, "%064d", 3);
}

/* Four gemm cells along m, each with two backend and two of our plans:
 * the backend wins m=128 and m=1024 (TRAIL), ours the others (LEAD). */
enum { NCELLS = 4 };
typedef struct cellset {
    gdt_measured_plan plans[NCELLS][4];
    gdt_measured_cell cells[NCELLS];
    gdt_provenance prov;
} cellset;

static const char *const shapes[NCELLS] = {"m=128", "m=1024", "m=4096", "m=16384"};

static void build(cellset *s)
{
    static const double ours[NCELLS] = {30, 60, 100, 300}, back[NCELLS] = {20, 50, 120, 400};
    provenance(&s->prov);
    for (int i = 0; i < NCELLS; i++) {
        gdt_error e;
        CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shapes[i], &s->cells[i].problem, &e), ==, 0);
        s->plans[i][0] = mp(backend_plan(7, 1), true, GDT_MODE_A, 0, back[i]);
        s->plans[i][1] = mp(backend_plan(3, 0), true, GDT_MODE_FALLBACK, 1, back[i] * 1.5);
        s->plans[i][2] = mp(our_plan(128, 256), false, GDT_MODE_A, 2, ours[i]);
        s->plans[i][3] = mp(our_plan(64, 64), false, GDT_MODE_A, 3, ours[i] * 1.2);
        s->cells[i].plans = s->plans[i];
        s->cells[i].nplans = 4;
    }
}

/* Writes cells [from, to) of s as root/<name>/sm90/gemm.*.json. */
static void write_set(const char *name, const cellset *s, int from, int to)
{
    char dir[512];
    gdt_error e;
    snprintf(dir, sizeof dir, "%s/%s/sm90", root, name);
    gdt_status st = gdt_tables_write(dir, GDT_FAMILY_GEMM, &s->prov, s->cells + from, to - from, &e);
    if (st) fprintf(stderr, "%s\n", e.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
}

/* gdtune tables diff root/<a> root/<b> [extra...]; the exit status. */
static int diff(const char *a, const char *b, const char *x1, const char *x2)
{
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/%s", root, a);
    snprintf(pb, sizeof pb, "%s/%s", root, b);
    char *argv[] = {(char *)gdt_test_exe(), "tables", "diff", pa, pb, (char *)x1, (char *)x2, NULL};
    return gdt_test_spawn(argv, NULL, out, sizeof out);
}

/* ------------------------------------------------------------ the cases */

static void test_identical(void)
{
    cellset s;
    build(&s);
    write_set("same_a", &s, 0, NCELLS);
    write_set("same_b", &s, 0, NCELLS);
    CHECK_INT(diff("same_a", "same_b", NULL, NULL), ==, 0);
    CHECK_CONTAINS(out, "gemm sm90: identical");
    CHECK_CONTAINS(out, "4 cells compared, 0 changed beyond noise, 0 within noise, 0 added, 0 removed");
    /* One file of each pair names the pair. */
    CHECK_INT(diff("same_a/sm90/gemm.placement.json", "same_b/sm90/gemm.tuning.json", NULL, NULL), ==, 0);
    CHECK_CONTAINS(out, "4 cells compared, 0 changed beyond noise");
}

/* m=128: ours 30 -> 15 against the backend's 20: TRAIL -> LEAD far beyond
 * noise, with the cuDNN version changed as well. */
static void planted_flip(cellset *o, cellset *n)
{
    build(o);
    build(n);
    n->plans[0][2].time_us = 15;
    n->plans[0][3].time_us = 18;
    n->prov.cudnn_version = 92000;
    write_set("flip_old", o, 0, NCELLS);
    write_set("flip_new", n, 0, NCELLS);
}

static void test_flip_beyond_noise(void)
{
    cellset o, n;
    planted_flip(&o, &n);
    CHECK_INT(diff("flip_old", "flip_new", NULL, NULL), ==, 3);
    CHECK_CONTAINS(out, "gemm:b1,m128,n4096,k4096");
    CHECK_CONTAINS(out, "changed beyond noise");
    /* The verdicts lead: the committed backend plan costs 20 / 15 in NEW,
     * beyond the combined noise (0.004 x 20 + 0.004 x 15) / 15 and the
     * floor (the tables' smallest noise); the winner got faster. */
    CHECK_CONTAINS(out, "changed beyond noise: regret +33.33% (winner), regret +33.33% (first entry), "
                        "regret +33.33% (decision TRAIL)\n  regret       +33.33% winner cudnn.eng7[KERNEL_CFG=1] "
                        "over NEW's winner gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256]: beyond noise "
                        "(noise 0.93%, floor 0.40%)");
    CHECK_CONTAINS(out, "  slowdown     -25.00% 20 -> 15 us, winner gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256] "
                        "(OLD's: cudnn.eng7[KERNEL_CFG=1]): faster beyond noise, not an alarm (noise 0.70%, "
                        "floor 0.40%)\n  decision");
    CHECK_CONTAINS(out, "decision     TRAIL -> LEAD: shift beyond noise (ratio ours/backend 1.5 -> 0.75");
    /* Each side's choice ahead of the other's in its own tables: the
     * backend's 20 against ours 30 (10 / (0.08 + 0.12)), then ours 15
     * against its 20 (5 / (0.06 + 0.08)); the first entry is the same pair. */
    CHECK_CONTAINS(out, "; ahead by 50 x noise in OLD, 35.7 in NEW)\n  first entry");
    CHECK_CONTAINS(out, "first entry  cudnn.eng7[KERNEL_CFG=1] -> gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256]: "
                        "shift beyond noise (t_new/t_old 1.5 -> 0.75, gap 41.7 x noise; ahead by 50 x noise in "
                        "OLD, 35.7 in NEW)");
    CHECK_CONTAINS(out, "4 cells compared, 1 changed beyond noise, 0 within noise, 0 added, 0 removed");
    /* The provenance difference comes first, as the likely cause. */
    const char *p = strstr(out, "cudnn_version 91900 -> 92000"), *c = strstr(out, "gemm:b1,m128");
    CHECK(p && c && p < c);
    CHECK(strncmp(out, "provenance", 10) == 0);
}

static void test_jitter_within_noise(void)
{
    cellset o, n;
    build(&o);
    build(&n);
    n.plans[2][2].time_us = 100.2; /* m=4096's winner, noise 0.4% each */
    write_set("jit_old", &o, 0, NCELLS);
    write_set("jit_new", &n, 0, NCELLS);
    CHECK_INT(diff("jit_old", "jit_new", NULL, NULL), ==, 0);
    CHECK_CONTAINS(out, "gemm:b1,m4096,n4096,k4096");
    CHECK_CONTAINS(out, "changed within noise");
    CHECK_CONTAINS(out, "  slowdown     +0.20% 100 -> 100.2 us, winner gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256] "
                        "(OLD's too): within noise (noise 0.80%, floor 0.40%)\n");
    CHECK_CONTAINS(out, "4 cells compared, 0 changed beyond noise, 1 within noise");
}

/* m=4096: our two plans 0.4% apart swap places as the fastest; the first
 * entry keeps its untimed place. */
static void test_winner_swap_within_noise(void)
{
    cellset o, n;
    build(&o);
    build(&n);
    o.plans[2][3].time_us = 100.2;
    n.plans[2][2].time_us = 100.1;
    n.plans[2][3].time_us = 99.9;
    write_set("swap_old", &o, 0, NCELLS);
    write_set("swap_new", &n, 0, NCELLS);
    CHECK_INT(diff("swap_old", "swap_new", NULL, NULL), ==, 0);
    CHECK_CONTAINS(out, "winner       gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256] -> "
                        "gemm.nvrtc[STAGES=3, TILE_M=64, TILE_N=64]: shift within noise");
    CHECK_CONTAINS(out, "; ahead by 0.25 x noise in OLD, 0.25 in NEW)"); /* 0.2 / 0.8008, 0.2 / 0.8 */
    CHECK(!strstr(out, "first entry"));
    CHECK_CONTAINS(out, "0 changed beyond noise, 1 within noise");
}

/* A cuBLASLt plan is the library's: the fastest at m=4096 here, yet the
 * cell's best of ours is still our own plan, as the placement takes it. */
static void test_library_not_ours(void)
{
    cellset o, n;
    build(&o);
    build(&n);
    gdt_plan_id lt = {.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 11)};
    gdt_plan_id_set_knob(&lt, GDT_KNOB_ALGO, 66);
    o.plans[2][3] = mp(lt, false, GDT_MODE_OPENSOURCE, 3, 90);
    n.plans[2][3] = mp(lt, false, GDT_MODE_OPENSOURCE, 3, 89.9);
    write_set("lib_old", &o, 0, NCELLS);
    write_set("lib_new", &n, 0, NCELLS);
    CHECK_INT(diff("lib_old", "lib_new", "--format", "json"), ==, 0);
    cJSON *doc = cJSON_Parse(out);
    const cJSON *c = doc ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "cells"), 0) : NULL;
    const cJSON *b = c ? cJSON_GetObjectItemCaseSensitive(c, "best_ours") : NULL;
    CHECK(b != NULL);
    if (b) {
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "old")),
                  "gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256]");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "new")),
                  "gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256]");
    }
    cJSON_Delete(doc);
}

static void test_added_removed(void)
{
    cellset s;
    build(&s);
    write_set("ar_old", &s, 0, 3);
    write_set("ar_new", &s, 1, 4);
    CHECK_INT(diff("ar_old", "ar_new", NULL, NULL), ==, 3);
    CHECK_CONTAINS(out, "gemm:b1,m128,n4096,k4096,bf16,a=row,b=row [gemm sm90]: removed (in OLD only)");
    CHECK_CONTAINS(out, "gemm:b1,m16384,n4096,k4096,bf16,a=row,b=row [gemm sm90]: added (in NEW only)");
    CHECK_CONTAINS(out, "2 cells compared, 0 changed beyond noise, 0 within noise, 1 added, 1 removed");
}

/* ------------------------------------------------------------ costs */

/* m=4096 (row 2): the old winner ours 128x256 at 100 us, 64x64 at 120,
 * the backend at 120 and 180, every noise 0.004 (the floor the tables
 * show).  The new cell's times are given; the diff's exit status. */
static int cost_case_from(const char *name, const double *ot, const double t[4], const char *x1,
                          const char *x2)
{
    cellset o, n;
    char a[64], b[64];
    build(&o);
    build(&n);
    for (int k = 0; ot && k < 4; k++) o.plans[2][k].time_us = ot[k];
    for (int k = 0; k < 4; k++) n.plans[2][k].time_us = t[k];
    snprintf(a, sizeof a, "%s_old", name);
    snprintf(b, sizeof b, "%s_new", name);
    write_set(a, &o, 0, NCELLS);
    write_set(b, &n, 0, NCELLS);
    return diff(a, b, x1, x2);
}

static int cost_case(const char *name, const double t[4], const char *x1, const char *x2)
{
    return cost_case_from(name, NULL, t, x1, x2);
}

/* A first entry OLD kept within noise of its winner: the backend's 100.6
 * ahead of ours at 100 (0.6% behind, within 0.80% of noise).  NEW measures
 * it 1.0% behind (beyond the 0.80% noise on its own), but 0.40% beyond the
 * 0.6% the committed tables held, under the 0.40% floor: no alarm.  At
 * 1.5% behind it is 0.89% beyond it, over the noise: an alarm. */
static void test_regret_accepted(void)
{
    const double old_t[] = {100.6, 180, 100, 120};
    const double same[] = {101.0, 180, 100, 120}, worse[] = {101.5, 180, 100, 120};
    CHECK_INT(cost_case_from("acc_s", old_t, same, "--verbose", NULL), ==, 0);
    CHECK_CONTAINS(out, "  first entry  cudnn.eng7[KERNEL_CFG=1]");
    CHECK_CONTAINS(out, "+1.00% first entry cudnn.eng7[KERNEL_CFG=1] over NEW's winner gemm.nvrtc[STAGES=3, "
                        "TILE_M=128, TILE_N=256]: within noise (committed +0.60%, +0.40% over it; noise 0.80%");
    CHECK_INT(cost_case_from("acc_w", old_t, worse, NULL, NULL), ==, 3);
    CHECK_CONTAINS(out, "changed beyond noise: regret +1.50% (first entry)");
    CHECK_CONTAINS(out, "(committed +0.60%, +0.89% over it; noise 0.81%");
    CHECK_INT(cost_case_from("acc_w", old_t, worse, "--format", "json"), ==, 3);
    cJSON *doc = cJSON_Parse(out);
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "cells"), 0);
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "regret"), "first_entry");
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(r, "accepted")), 0.006, 1e-9);
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(r, "excess")), 1.015 / 1.006 - 1, 1e-9);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "beyond_noise")));
    cJSON_Delete(doc);
    /* --format csv: the JSON's cells a line each, the exit status kept */
    CHECK_INT(cost_case_from("acc_w", old_t, worse, "--format", "csv"), ==, 3);
    CHECK_CONTAINS(out, "family,arch,key,status,worst_regret,regret_winner_plan,");
    CHECK_CONTAINS(out, "gemm,sm90,\"gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row\",beyond_noise,first_entry,");
    CHECK_CONTAINS(out, "cudnn.eng7[KERNEL_CFG=1],0.0149999999999999,0.00894632206759427,0.00806,true,");
}

/* The same winner 10% slower, all the cell's plans with it: no plan
 * moves, no regret, a slowdown beyond noise. */
static void test_slowdown_same_winner(void)
{
    const double t[] = {132, 198, 110, 132};
    CHECK_INT(cost_case("slow", t, NULL, NULL), ==, 3);
    CHECK_CONTAINS(out, "gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row [gemm sm90]: changed beyond noise: "
                        "slowdown +10.00%\n");
    CHECK_CONTAINS(out, "  regret       +0.00% winner gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256], NEW's best "
                        "too: within noise");
    CHECK_CONTAINS(out, "  slowdown     +10.00% 100 -> 110 us, winner gemm.nvrtc[STAGES=3, TILE_M=128, "
                        "TILE_N=256] (OLD's too): beyond noise (noise 0.84%, floor 0.40%)\n");
    CHECK_CONTAINS(out, "worst slowdown gemm:b1,m4096");
    CHECK_CONTAINS(out, "4 cells compared, 1 changed beyond noise, 0 within noise");
    /* improvements: 20% faster is reported, not an alarm */
    const double f[] = {96, 144, 80, 96};
    CHECK_INT(cost_case("fast", f, NULL, NULL), ==, 0);
    CHECK_CONTAINS(out, "[gemm sm90]: faster beyond noise: slowdown -20.00% (not an alarm)\n");
    CHECK_CONTAINS(out, "4 cells compared, 0 changed beyond noise, 0 within noise, 0 added, 0 removed, "
                        "1 faster beyond noise");
    CHECK_INT(cost_case("fast", f, "--format", "json"), ==, 0);
    cJSON *doc = cJSON_Parse(out);
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "cells"), 0);
    const cJSON *sl = cJSON_GetObjectItemCaseSensitive(c, "slowdown");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "status")), "faster");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sl, "faster")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(sl, "beyond_noise")));
    CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(sl, "value")), -0.2, 1e-9);
    cJSON_Delete(doc);
}

/* A new winner that costs within noise: ours 64x64 from 120 to 100, the
 * committed 128x256 to 100.5: the winner's ratio t_x/t_y moved from 1.2
 * to 0.995 (a shift beyond noise), but keeping the committed plan costs
 * 0.5% against 0.80% of noise: exit 0, the move is detail. */
static void test_new_winner_within_noise(void)
{
    const double t[] = {120, 180, 100.5, 100};
    CHECK_INT(cost_case("nw", t, NULL, NULL), ==, 0);
    CHECK_CONTAINS(out, "[gemm sm90]: changed within noise\n  regret       +0.50% winner gemm.nvrtc[STAGES=3, "
                        "TILE_M=128, TILE_N=256] over NEW's winner gemm.nvrtc[STAGES=3, TILE_M=64, TILE_N=64]: "
                        "within noise (noise 0.80%, floor 0.40%)\n");
    CHECK_CONTAINS(out, "  winner       gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256] -> gemm.nvrtc[STAGES=3, "
                        "TILE_M=64, TILE_N=64]: shift beyond noise");
    CHECK_CONTAINS(out, "0 changed beyond noise, 1 within noise");
}

/* The committed winner against NEW's winner at 100 us, both at 0.4%
 * noise: beyond when t - 100 > 0.004 t + 0.4, t > 100.8032 (the measured
 * noise, above the floor 0.4%); with --noise-floor 0.03, at 3%. */
static void test_regret_thresholds(void)
{
    const double above[] = {120, 180, 100.85, 100}, below[] = {120, 180, 100.75, 100};
    CHECK_INT(cost_case("rn_a", above, NULL, NULL), ==, 3);
    CHECK_CONTAINS(out, "changed beyond noise: regret +0.85% (winner), regret +0.85% (first entry)\n");
    CHECK_CONTAINS(out, "(noise 0.80%, floor 0.40%)");
    CHECK_INT(cost_case("rn_b", below, NULL, NULL), ==, 0);
    CHECK_CONTAINS(out, "  regret       +0.75% winner");
    /* the floor above the measured noise decides */
    const double fa[] = {120, 180, 103.1, 100}, fb[] = {120, 180, 102.9, 100};
    CHECK_INT(cost_case("rf_a", fa, "--noise-floor", "0.03"), ==, 3);
    CHECK_CONTAINS(out, "changed beyond noise: regret +3.10% (winner), regret +3.10% (first entry)\n");
    CHECK_CONTAINS(out, "(noise 0.81%, floor 3.00%)");
    CHECK_INT(cost_case("rf_b", fb, "--noise-floor", "0.03"), ==, 0);
    CHECK_CONTAINS(out, "  regret       +2.90% winner");
    /* a slowdown the same way: the whole cell 3.1% or 2.9% slower */
    const double sa[] = {123.72, 185.58, 103.1, 123.72}, sb[] = {123.48, 185.22, 102.9, 123.48};
    CHECK_INT(cost_case("sf_a", sa, "--noise-floor", "0.03"), ==, 3);
    CHECK_CONTAINS(out, "changed beyond noise: slowdown +3.10%\n");
    CHECK_INT(cost_case("sf_b", sb, "--noise-floor", "0.03"), ==, 0);
    CHECK_CONTAINS(out, "  slowdown     +2.90% 100 -> 102.9 us");
    CHECK_INT(cost_case("sf_b", sb, "--noise-floor", "0.7"), ==, 2);
    CHECK_CONTAINS(out, "--noise-floor");
}

/* The committed winner not measured in NEW: its cost is unknown, an
 * alarm. */
static void test_regret_unknown(void)
{
    cellset o, n;
    build(&o);
    build(&n);
    n.plans[2][2] = n.plans[2][3];
    n.cells[2].nplans = 3;
    write_set("unk_old", &o, 0, NCELLS);
    write_set("unk_new", &n, 0, NCELLS);
    CHECK_INT(diff("unk_old", "unk_new", NULL, NULL), ==, 3);
    CHECK_CONTAINS(out, "changed beyond noise: regret unknown (winner), regret unknown (first entry)");
    CHECK_CONTAINS(out, "  regret       unknown: winner gemm.nvrtc[STAGES=3, TILE_M=128, TILE_N=256] not "
                        "measured in NEW: beyond noise (floor 0.40%)\n");
}

/* Replaces the first `from` in the file by `to`. */
static void edit(const char *path, const char *from, const char *to)
{
    char *t = NULL;
    size_t n;
    gdt_error e;
    CHECK_INT(gdt_file_read(path, &t, &n, &e), ==, 0);
    char *at = t ? strstr(t, from) : NULL;
    CHECK(at != NULL);
    if (!at) return free(t);
    size_t head = (size_t)(at - t), fl = strlen(from), tl = strlen(to);
    char *u = malloc(n - fl + tl + 1);
    memcpy(u, t, head);
    memcpy(u + head, to, tl);
    memcpy(u + head + tl, at + fl, n - head - fl + 1);
    CHECK_INT(gdt_file_write_atomic(path, u, strlen(u), &e), ==, 0);
    free(t);
    free(u);
}

static void test_damaged(void)
{
    cellset s;
    build(&s);
    write_set("bad_old", &s, 0, NCELLS);
    write_set("bad_new", &s, 0, NCELLS);
    char path[600];
    snprintf(path, sizeof path, "%s/bad_new/sm90/gemm.tuning.json", root);
    edit(path, "\"samples\": 40", "\"samples\": \"40\"");
    CHECK_INT(diff("bad_old", "bad_new", NULL, NULL), ==, 2);
    CHECK_CONTAINS(out, "bad_new/sm90/gemm.tuning.json: /cells/0/ranking/0/samples: expected an integer");
    /* Half a pair and nothing at all are bad input too. */
    snprintf(path, sizeof path, "%s/bad_new/sm90/gemm.tuning.json", root);
    unlink(path);
    CHECK_INT(diff("bad_old", "bad_new", NULL, NULL), ==, 2);
    CHECK_CONTAINS(out, "gemm.tuning.json: missing (its pair");
    CHECK_INT(diff("bad_old", "nothing_here", NULL, NULL), ==, 2);
    CHECK_INT(diff("bad_old", "bad_old", "--format", "xml"), ==, 2);
    CHECK_CONTAINS(out, "expected one of text, json, md, csv");
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

static void test_json(void)
{
    CHECK_INT(diff("flip_old", "flip_new", "--format", "json"), ==, 3);
    cJSON *doc = cJSON_Parse(out);
    CHECK(doc != NULL);
    if (!doc) return;
    CHECK_STR(cJSON_GetStringValue(get(doc, "schema")), "gdtune.tables_diff/1");
    const cJSON *prov = cJSON_GetArrayItem(get(doc, "provenance"), 0);
    const cJSON *field = cJSON_GetArrayItem(get(prov, "differences"), 0);
    CHECK_STR(cJSON_GetStringValue(get(field, "field")), "cudnn_version");
    CHECK_STR(cJSON_GetStringValue(get(field, "new")), "92000");
    const cJSON *sum = get(doc, "summary");
    CHECK_INT(get(sum, "compared")->valuedouble, ==, 4);
    CHECK_INT(get(sum, "beyond_noise")->valuedouble, ==, 1);
    CHECK_INT(get(sum, "exit_code")->valuedouble, ==, 3);
    CHECK_INT(cJSON_GetArraySize(get(doc, "cells")), ==, 1);
    const cJSON *c = cJSON_GetArrayItem(get(doc, "cells"), 0);
    CHECK_STR(cJSON_GetStringValue(get(c, "status")), "beyond_noise");
    const cJSON *d = get(c, "decision");
    CHECK_STR(cJSON_GetStringValue(get(d, "old")), "TRAIL");
    CHECK_STR(cJSON_GetStringValue(get(d, "new")), "LEAD");
    CHECK(cJSON_IsTrue(get(d, "beyond_noise")));
    CHECK_NEAR(get(d, "new_ratio")->valuedouble, 0.75, 1e-6);
    CHECK(get(d, "gap")->valuedouble > 1);
    CHECK(cJSON_IsTrue(get(get(c, "first_entry"), "changed")));
    CHECK(cJSON_IsNull(get(c, "tests")));
    cJSON_Delete(doc);
}

static void test_md(void)
{
    CHECK_INT(diff("flip_old", "flip_new", "--format", "md"), ==, 3);
    CHECK_CONTAINS(out, "## gdtune tables diff");
    CHECK_CONTAINS(out, "| gemm sm90 | cudnn_version | `91900` | `92000` |");
    CHECK_CONTAINS(out, "| `gemm:b1,m128,n4096,k4096,bf16,a=row,b=row` | **beyond noise** | **+33.33%** | 0.93% | "
                        "0.40% | winner | -25.00% | 0.70% | 0.40% |");
    CHECK_CONTAINS(out, "| `gemm:b1,m128,n4096,k4096,bf16,a=row,b=row` | decision | `TRAIL` | `LEAD` | beyond |");
    /* the verdicts before the detail */
    const char *cost = strstr(out, "### Cost"), *moves = strstr(out, "### Plan moves");
    CHECK(cost && moves && cost < moves);
}

/* ------------------------------------------------------------ committed data */

static void copy_file(const char *from, const char *to)
{
    char *t = NULL;
    size_t n;
    gdt_error e;
    CHECK_INT(gdt_file_read(from, &t, &n, &e), ==, 0);
    if (t) CHECK_INT(gdt_file_write_atomic(to, t, n, &e), ==, 0);
    free(t);
}

static void copy_tables(const char *name)
{
    static const char *const files[] = {"gemm", "sdpa_fwd", "sdpa_bwd"};
    char dir[512], a[700], b[700];
    gdt_error e;
    snprintf(dir, sizeof dir, "%s/%s/sm90", root, name);
    CHECK_INT(gdt_mkdirs(dir, &e), ==, 0);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(a, sizeof a, "%s/tables/sm90/%s.%s.json", GDT_SOURCE_DIR, files[i], k ? "tuning" : "placement");
            snprintf(b, sizeof b, "%s/%s.%s.json", dir, files[i], k ? "tuning" : "placement");
            copy_file(a, b);
        }
}

static void test_committed_against_copy(void)
{
    copy_tables("committed");
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/tables/sm90", GDT_SOURCE_DIR);
    snprintf(pb, sizeof pb, "%s/committed/sm90", root);
    char *argv[] = {(char *)gdt_test_exe(), "tables", "diff", pa, pb, NULL};
    CHECK_INT(gdt_test_spawn(argv, NULL, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "73 cells compared, 0 changed beyond noise, 0 within noise, 0 added, 0 removed");
}

/* Every "time_us" of the file's first cell times factor (the cell ends at
 * the next "key"). */
static void scale_first_cell(const char *path, double factor)
{
    char *t = NULL, *u;
    size_t n, len = 0;
    gdt_error e;
    CHECK_INT(gdt_file_read(path, &t, &n, &e), ==, 0);
    if (!t || !(u = malloc(2 * n + 1))) return free(t);
    const char *p = t, *start = strstr(t, "\"key\": "), *end = start ? strstr(start + 1, "\"key\": ") : NULL;
    for (const char *q; start && (q = strstr(p, "\"time_us\": ")) && q < end;) {
        q += strlen("\"time_us\": ");
        char *after;
        double v = strtod(q, &after);
        memcpy(u + len, p, (size_t)(q - p));
        len += (size_t)(q - p);
        len += (size_t)sprintf(u + len, "%.6g", v * factor);
        p = after;
    }
    strcpy(u + len, p);
    CHECK_INT(gdt_file_write_atomic(path, u, strlen(u), &e), ==, 0);
    free(t);
    free(u);
}

/* The committed tables against a copy whose first GEMM cell has every time
 * 33% longer: the same winner slower is beyond noise, exit 3. */
static void test_committed_slower(void)
{
    copy_tables("slower");
    char pa[512], pb[512], f[600];
    snprintf(pa, sizeof pa, "%s/tables/sm90", GDT_SOURCE_DIR);
    snprintf(pb, sizeof pb, "%s/slower/sm90", root);
    snprintf(f, sizeof f, "%s/gemm.tuning.json", pb);
    scale_first_cell(f, 1.33);
    snprintf(f, sizeof f, "%s/gemm.placement.json", pb);
    scale_first_cell(f, 1.33);
    char *argv[] = {(char *)gdt_test_exe(), "tables", "diff", pa, pb, "--family", "gemm", NULL};
    CHECK_INT(gdt_test_spawn(argv, NULL, out, sizeof out), ==, 3);
    CHECK_CONTAINS(out, "gemm:b1,m1024,n14336,k4096,bf16,a=row,b=row [gemm sm90]: changed beyond noise: "
                        "slowdown +33.00%\n");
    CHECK_CONTAINS(out, "25 cells compared, 1 changed beyond noise, 0 within noise");
}

/* mkdir -p RUN, then the one committed gemm journal unpacked to JOURNAL;
 * 0, or the failing step's nonzero status. */
static int unpack_gemm_journal(const char *run, const char *journal)
{
    gdt_error e;
    if (gdt_mkdirs(run, &e) != GDT_STATUS_OK) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    glob_t g;
    if (glob(GDT_SOURCE_DIR "/runs/sm90/tables/gemm-*.journal.jsonl.gz", 0, NULL, &g) != 0) {
        fprintf(stderr, "runs/sm90/tables: no gemm-*.journal.jsonl.gz\n");
        return -1;
    }
    int rc = g.gl_pathc == 1 ? gdt_test_gunzip_to(g.gl_pathv[0], journal) : -1;
    if (g.gl_pathc != 1)
        fprintf(stderr, "runs/sm90/tables: expected 1 gemm journal, got %zu\n", g.gl_pathc);
    globfree(&g);
    return rc;
}

/* The committed gemm journal against itself: a decision edited in the
 * tables (the ratio unchanged: a flip within noise), and every plan it
 * names tested on identical samples: U = n*n/2, p = 1, and at one median
 * clock. */
static void test_runs(void)
{
    char run[512], t1[512], journal[600];
    snprintf(run, sizeof run, "%s/run", root);
    snprintf(t1, sizeof t1, "%s/emitted", root);
    snprintf(journal, sizeof journal, "%s/journal.jsonl", run);
    CHECK_INT(unpack_gemm_journal(run, journal), ==, 0);
    char *emit[] = {(char *)gdt_test_exe(), "tables", "emit", run, "--tables-dir", t1, NULL};
    CHECK_INT(gdt_test_spawn(emit, NULL, out, sizeof out), ==, 0);
    char a[700], b[700], dir[512];
    gdt_error e;
    snprintf(dir, sizeof dir, "%s/edited/sm90", root);
    CHECK_INT(gdt_mkdirs(dir, &e), ==, 0);
    snprintf(a, sizeof a, "%s/sm90/gemm.tuning.json", t1);
    snprintf(b, sizeof b, "%s/gemm.tuning.json", dir);
    copy_file(a, b);
    snprintf(a, sizeof a, "%s/sm90/gemm.placement.json", t1);
    snprintf(b, sizeof b, "%s/gemm.placement.json", dir);
    copy_file(a, b);
    edit(b, "\"decision\": \"TRAIL\"", "\"decision\": \"LEAD\"");
    char *argv[] = {(char *)gdt_test_exe(), "tables", "diff", t1, dir, "--runs", run, run, "--format",
                    "json", NULL};
    CHECK_INT(gdt_test_spawn(argv, NULL, out, sizeof out), ==, 0);
    cJSON *doc = cJSON_Parse(out);
    const cJSON *c = cJSON_GetArrayItem(get(doc, "cells"), 0), *tests = get(c, "tests");
    CHECK_STR(cJSON_GetStringValue(get(c, "status")), "within_noise");
    CHECK(cJSON_IsTrue(get(get(c, "decision"), "changed")));
    CHECK(cJSON_GetArraySize(tests) >= 2);
    for (const cJSON *t = tests ? tests->child : NULL; t; t = t->next) {
        double n = get(t, "n_old")->valuedouble;
        CHECK_NEAR(get(t, "p")->valuedouble, 1.0, 1e-12);
        CHECK_NEAR(get(t, "u")->valuedouble, n * n / 2, 1e-9);
        CHECK_INT(get(t, "burst_old")->valuedouble, ==, 64);
        /* the journal records each sample's clock: one median, on both sides */
        CHECK(get(t, "median_mhz_old")->valuedouble > 1000);
        CHECK_NEAR(get(t, "median_mhz_new")->valuedouble, get(t, "median_mhz_old")->valuedouble, 0);
    }
    cJSON_Delete(doc);
    /* --runs without its two values is bad usage. */
    char *bad[] = {(char *)gdt_test_exe(), "tables", "diff", t1, dir, "--runs", run, NULL};
    CHECK_INT(gdt_test_spawn(bad, NULL, out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "--runs needs two values");
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/gdt_test_tables_diff.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    test_identical();
    test_flip_beyond_noise();
    test_jitter_within_noise();
    test_winner_swap_within_noise();
    test_library_not_ours();
    test_added_removed();
    test_damaged();
    test_json();
    test_md();
    test_committed_against_copy();
    test_committed_slower();
    test_slowdown_same_winner();
    test_new_winner_within_noise();
    test_regret_thresholds();
    test_regret_accepted();
    test_regret_unknown();
    test_runs();
    if (!gdt_test_failures && gdt_test_remove_tree(root) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_tables_diff");
}
