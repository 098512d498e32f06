/* Placement and tuning tables: byte-identical round trip, the noise-aware
 * ranking rule, shards for unmeasured shapes, and every loader refusal with
 * its message. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

static char root[256];

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

static gdt_measured_plan mp(gdt_plan_id id, bool backend, gdt_mode mode, int pos, double t, double noise)
{
    gdt_measured_plan p = {.id = id, .is_backend = backend, .mode = mode, .untimed_position = pos,
                           .time_us = t, .noise = noise, .host_us = 4.25, .samples = 40};
    return p;
}

static void gemm_problem(gdt_problem *p, const char *shape)
{
    gdt_error e;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, shape, p, &e), ==, GDT_STATUS_OK);
}

static void provenance(gdt_provenance *v, int arch)
{
    memset(v, 0, sizeof *v);
    snprintf(v->device_name, sizeof v->device_name, "NVIDIA H200 \"test\"");
    v->arch = arch;
    v->driver_version = 13000;
    v->cuda_version = 13000;
    v->cudnn_version = 91900;
    v->nvrtc_version = 13000;
    snprintf(v->gdtune_version, sizeof v->gdtune_version, "%s", GDT_VERSION_STRING);
    snprintf(v->source_digest, sizeof v->source_digest, "%064d", 1);
    snprintf(v->sweep_digest, sizeof v->sweep_digest, "%064d", 2);
    snprintf(v->candidates_digest, sizeof v->candidates_digest, "%064d", 3);
}

/* Four cells along m: the backend wins the small ones, ours the large
 * ones, so the placement has one TRAIL shard and one LEAD shard. */
enum { NCELLS = 4 };
static gdt_measured_plan plans[NCELLS][4];
static gdt_measured_cell cells[NCELLS];

static void build_cells(void)
{
    static const char *const shapes[NCELLS] = {"m=128", "m=1024", "m=4096", "m=16384"};
    static const double ours[NCELLS] = {30, 60, 100, 300}, back[NCELLS] = {20, 50, 120, 400};
    for (int i = 0; i < NCELLS; i++) {
        gemm_problem(&cells[i].problem, shapes[i]);
        plans[i][0] = mp(backend_plan(7, 1), true, GDT_MODE_A, 0, back[i], 0.004);
        plans[i][1] = mp(backend_plan(3, 0), true, GDT_MODE_FALLBACK, 1, back[i] * 1.5, 0.004);
        plans[i][2] = mp(our_plan(128, 256), false, GDT_MODE_A, 2, ours[i], 0.004);
        plans[i][3] = mp(our_plan(64, 64), false, GDT_MODE_A, 3, ours[i] * 1.2, 0.004);
        cells[i].plans = plans[i];
        cells[i].nplans = 4;
    }
}

static char *slurp(const char *path)
{
    char *d = NULL;
    size_t n;
    gdt_error e;
    if (gdt_file_read(path, &d, &n, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return NULL;
    }
    return d;
}

static void spit(const char *path, const char *text)
{
    gdt_error e;
    CHECK_INT(gdt_file_write_atomic(path, text, strlen(text), &e), ==, GDT_STATUS_OK);
}

static void path_of(char *buf, size_t n, const char *sub, const char *file)
{
    snprintf(buf, n, "%s/%s/%s", root, sub, file);
}

static void test_round_trip_bytes(void)
{
    gdt_provenance prov;
    gdt_error e;
    provenance(&prov, 90);
    char d1[512], d2[512], p1[600], p2[600];
    snprintf(d1, sizeof d1, "%s/a/sm90", root);
    snprintf(d2, sizeof d2, "%s/b/sm90", root);
    CHECK_INT(gdt_tables_write(d1, GDT_FAMILY_GEMM, &prov, cells, NCELLS, &e), ==, GDT_STATUS_OK);
    /* The same measurements in another order: the same bytes. */
    gdt_measured_cell rev[NCELLS];
    for (int i = 0; i < NCELLS; i++) rev[i] = cells[NCELLS - 1 - i];
    CHECK_INT(gdt_tables_write(d2, GDT_FAMILY_GEMM, &prov, rev, NCELLS, &e), ==, GDT_STATUS_OK);
    const char *files[] = {"gemm.tuning.json", "gemm.placement.json"};
    for (int f = 0; f < 2; f++) {
        snprintf(p1, sizeof p1, "%s/%s", d1, files[f]);
        snprintf(p2, sizeof p2, "%s/%s", d2, files[f]);
        char *a = slurp(p1), *b = slurp(p2);
        CHECK(a && b && !strcmp(a, b));
        CHECK(a && !strstr(a, "-0,"));
        free(a);
        free(b);
    }
    /* Writing again over the first: identical bytes. */
    snprintf(p1, sizeof p1, "%s/gemm.tuning.json", d1);
    char *before = slurp(p1);
    CHECK_INT(gdt_tables_write(d1, GDT_FAMILY_GEMM, &prov, cells, NCELLS, &e), ==, GDT_STATUS_OK);
    char *after = slurp(p1);
    CHECK(before && after && !strcmp(before, after));
    CHECK_CONTAINS(after, "\"schema\": \"gdtune.tuning/1\"");
    CHECK_CONTAINS(after, "\"device_name\": \"NVIDIA H200 \\\"test\\\"\"");
    free(before);
    free(after);
}

static gdt_tables *load(const char *sub, gdt_family f, int arch, gdt_status want, gdt_error *e)
{
    char dir[512];
    gdt_tables *t = NULL;
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    gdt_error_clear(e);
    CHECK_INT(gdt_tables_load(dir, f, arch, &t, e), ==, want);
    if (want != GDT_STATUS_OK) CHECK(t == NULL);
    return t;
}

static void lookup(const gdt_tables *t, const char *shape, gdt_cell_decision *d, bool want)
{
    gdt_problem p;
    gdt_device_props dev;
    gdt_facts f;
    gemm_problem(&p, shape);
    CHECK(gdt_arch_limits(90, &dev));
    gdt_facts_analyze(&p, &dev, &f);
    bool got = gdt_tables_lookup(t, &f, d);
    if (got != want) fprintf(stderr, "lookup %s: got %d, want %d\n", shape, got, want);
    CHECK(got == want);
}

static void test_lookup_measured(void)
{
    gdt_error e;
    gdt_tables *t = load("a", GDT_FAMILY_GEMM, 90, GDT_STATUS_OK, &e);
    if (!t) return fprintf(stderr, "%s\n", e.msg), (void)gdt_test_failures++;
    gdt_cell_decision d;
    /* m=4096: ours 100 vs backend 120: ours first, the backend block after
     * the backend's best. */
    lookup(t, "m=4096", &d, true);
    CHECK(d.measured && d.lead);
    CHECK_INT(d.nranked, ==, 4);
    gdt_plan_id w = our_plan(128, 256), b = backend_plan(7, 1), fb = backend_plan(3, 0);
    if (d.nranked == 4) {
        CHECK(gdt_plan_id_equal(&d.ranked[0], &w) && !d.ranked_is_backend[0]);
        CHECK(gdt_plan_id_equal(&d.ranked[1], &b) && d.ranked_is_backend[1]);
    }
    CHECK_INT(d.backend_pos, ==, 2);
    CHECK(d.fallback && gdt_plan_id_equal(d.fallback, &fb));
    CHECK(fabs(d.ratio - 100.0 / 120.0) < 1e-5);
    CHECK(fabs(d.noise - 0.008) < 1e-9);
    /* Tables of sm90 say nothing about sm100. */
    gdt_problem p;
    gdt_device_props dev;
    gdt_facts f;
    gemm_problem(&p, "m=4096");
    if (gdt_arch_limits(100, &dev)) {
        gdt_facts_analyze(&p, &dev, &f);
        CHECK(!gdt_tables_lookup(t, &f, &d));
    }
    /* m=128: the backend wins and stays first. */
    lookup(t, "m=128", &d, true);
    CHECK(d.measured && !d.lead);
    if (d.nranked == 4) CHECK(gdt_plan_id_equal(&d.ranked[0], &b));
    CHECK_INT(d.backend_pos, ==, 1);
    gdt_tables_destroy(t);
}

static void test_lookup_shards(void)
{
    gdt_error e;
    gdt_tables *t = load("a", GDT_FAMILY_GEMM, 90, GDT_STATUS_OK, &e);
    if (!t) return;
    gdt_cell_decision d;
    /* TRAIL below the geometric midpoint of m=1024 and m=4096 (2048), LEAD
     * at and above it; both ends open. */
    const struct { const char *shape; bool lead; } probes[] = {
        {"m=16", false}, {"m=1500", false}, {"m=2047", false}, {"m=2048", true},
        {"m=3000", true}, {"m=100000", true}, {"m=4096,n=1024,k=1024", false}};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        lookup(t, probes[i].shape, &d, true);
        CHECK(!d.measured);
        CHECK_INT(d.nranked, ==, 0);
        if (d.lead != probes[i].lead) fprintf(stderr, "shard for %s\n", probes[i].shape);
        CHECK(d.lead == probes[i].lead);
    }
    /* No shard for another dtype or layout. */
    lookup(t, "dtype=fp16", &d, false);
    gdt_tables_destroy(t);
}

/* A difference within the combined noise never flips the untimed order;
 * beyond it, the faster plan moves ahead. */
static void test_noise_rule(void)
{
    gdt_provenance prov;
    gdt_error e;
    provenance(&prov, 90);
    gdt_measured_plan p[3] = {
        mp(backend_plan(7, 1), true, GDT_MODE_A, 0, 100.0, 0.01),
        mp(our_plan(128, 128), false, GDT_MODE_A, 1, 99.0, 0.01), /* within 2 us of noise */
        mp(our_plan(64, 128), false, GDT_MODE_A, 2, 90.0, 0.01),  /* beyond it */
    };
    gdt_measured_cell c = {.plans = p, .nplans = 3};
    gemm_problem(&c.problem, "m=512");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/noise/sm90", root);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, &c, 1, &e), ==, GDT_STATUS_OK);
    gdt_tables *t = load("noise", GDT_FAMILY_GEMM, 90, GDT_STATUS_OK, &e);
    if (!t) return;
    gdt_cell_decision d;
    lookup(t, "m=512", &d, true);
    CHECK_INT(d.nranked, ==, 3);
    if (d.nranked == 3) {
        CHECK(gdt_plan_id_equal(&d.ranked[0], &p[2].id));
        CHECK(gdt_plan_id_equal(&d.ranked[1], &p[0].id));
        CHECK(gdt_plan_id_equal(&d.ranked[2], &p[1].id));
    }
    CHECK(d.lead); /* our best (90) beats the backend's (100) beyond noise */
    gdt_tables_destroy(t);
}

/* Rewrites one file of a copy of the good pair and expects the load to
 * fail with a message holding `want`. */
static void refuse2(const char *file, const char *from, const char *to, const char *want,
                    const char *want_check)
{
    static int n;
    char sub[64], src[1024], dst[1024], dir[600];
    snprintf(sub, sizeof sub, "bad%d", n++);
    snprintf(dir, sizeof dir, "%s/%s/sm90", root, sub);
    gdt_error e;
    CHECK_INT(gdt_mkdirs(dir, &e), ==, GDT_STATUS_OK);
    const char *files[] = {"gemm.tuning.json", "gemm.placement.json"};
    for (int i = 0; i < 2; i++) {
        path_of(src, sizeof src, "a/sm90", files[i]);
        snprintf(dst, sizeof dst, "%s/%s", dir, files[i]);
        char *text = slurp(src);
        if (!text) continue;
        char *hit = !strcmp(files[i], file) ? strstr(text, from) : NULL;
        if (!strcmp(files[i], file) && !hit) fprintf(stderr, "fixture lacks \"%s\"\n", from);
        CHECK(strcmp(files[i], file) || hit);
        if (hit) {
            size_t head = (size_t)(hit - text);
            char *out = malloc(strlen(text) + strlen(to) + 1);
            memcpy(out, text, head);
            strcpy(out + head, to);
            strcat(out, hit + strlen(from));
            spit(dst, out);
            free(out);
        } else {
            spit(dst, text);
        }
        free(text);
    }
    gdt_tables *t = load(sub, GDT_FAMILY_GEMM, 90, GDT_STATUS_BAD_INPUT, &e);
    gdt_tables_destroy(t);
    CHECK_CONTAINS(e.msg, want);
    /* tables check refuses the file alone (it cannot see the pair). */
    char bad[1024];
    snprintf(bad, sizeof bad, "%s/%s", dir, file);
    gdt_error ce;
    gdt_error_clear(&ce);
    if (want_check) {
        CHECK_INT(gdt_table_check_file(bad, &ce), ==, GDT_STATUS_BAD_INPUT);
        CHECK_CONTAINS(ce.msg, want_check);
    } else {
        CHECK_INT(gdt_table_check_file(bad, &ce), ==, GDT_STATUS_OK);
    }
}

static void refuse(const char *file, const char *from, const char *to, const char *want)
{
    refuse2(file, from, to, want, want);
}

static void test_refusals(void)
{
    refuse2("gemm.tuning.json", "gdtune.tuning/1", "gdtune.tuning/2",
            "gemm.tuning.json: /schema: expected \"gdtune.tuning/1\", got \"gdtune.tuning/2\"",
            "gemm.tuning.json: /schema: expected \"gdtune.tuning/1\" or \"gdtune.placement/7\", "
            "got \"gdtune.tuning/2\"");
    refuse2("gemm.placement.json", "\"family\": \"gemm\"", "\"family\": \"sdpa_fwd\"",
            "gemm.placement.json: /family: expected \"gemm\", got \"sdpa_fwd\"",
            "/cells/0/problem/batch: unknown field \"batch\"");
    refuse2("gemm.tuning.json", "\"arch\": \"sm90\"", "\"arch\": \"sm80\"",
            "/arch: expected \"sm90\", got \"sm80\"",
            "/provenance/arch: expected 80 (the table's arch), got 90");
    refuse("gemm.tuning.json", "\"backend_pos\": 1", "\"backend_pos\": \"1\"",
           "/cells/0/backend_pos: expected an integer, got string \"1\"");
    refuse("gemm.tuning.json", "\"backend_pos\": 1", "\"backend_pos\": 1, \"extra\": true",
           "/cells/0/extra: unknown field \"extra\"");
    refuse("gemm.placement.json", "\"decision\": \"TRAIL\"", "\"decision\": \"BEHIND\"",
           "/cells/0/decision: expected one of TRAIL, LEAD, got \"BEHIND\"");
    refuse("gemm.tuning.json", "\"time_us\": 20,", "\"time_us\": -20,",
           "/cells/1/ranking/0/time_us: expected a time > 0, got -20");
    refuse("gemm.tuning.json", "\"samples\": 40", "\"samples\": 40.5",
           "/cells/0/ranking/0/samples: expected an integer, got number 40.5");
    refuse("gemm.tuning.json", "\"a_row_major\": true", "\"a_row_major\": false",
           "/cells/0/facts/a_row_major: expected true (derived from the problem), got false");
    refuse("gemm.tuning.json", "gemm:b1,m1024", "gemm:b1,m1025",
           "(the key of the problem's fields), got \"gemm:b1,m1025");
    refuse("gemm.tuning.json", "\"engine_id\": 7,", "\"engine_id\": 15000,",
           "/cells/0/ranking/0/engine_id: engine id 15000: in the reserved band");
    refuse("gemm.tuning.json", "\"plan\": \"cudnn.eng7[KERNEL_CFG=1]\"",
           "\"plan\": \"cudnn.eng7[KERNEL_CFG=2]\"",
           "/plan: expected \"cudnn.eng7[KERNEL_CFG=1]\" (what engine_id and knobs print as), got \"cudnn.eng7[KERNEL_CFG=2]\"");
    refuse("gemm.tuning.json", "\"KERNEL_CFG\": 1", "\"NO_SUCH_KNOB\": 1", "/knobs/NO_SUCH_KNOB");
    refuse2("gemm.tuning.json", "\"cudnn_version\": 91900", "\"cudnn_version\": 91400",
            "/provenance: expected the provenance of its pair", NULL);
    refuse("gemm.placement.json", "\"lo\": 68719476736, \"hi\": null", "\"lo\": 68719476736, \"hi\": 5",
           "/shards/1/hi: expected hi >= lo (68719476736), got 5");
    refuse("gemm.tuning.json", "\"mode\": \"FALLBACK\"", "\"mode\": \"fallback\"",
           "expected one of A, B, FALLBACK, OPENSOURCE, enumerated, got \"fallback\"");
    refuse("gemm.tuning.json", "\"measured\": 4", "\"measured\": 3",
           "/cells/0/evidence/measured: expected 4 (entries in the ranking), got 3");
    refuse("gemm.tuning.json", "\"schema\"", "\"schema\": 1, \"Schema\"", "two keys equal ignoring case");
    refuse("gemm.tuning.json", "\"provenance\": {", "\"provenance\": [", "gemm.tuning.json: ");
    refuse("gemm.tuning.json", "\"n\": 4096,", "\"n\": 4096, \"n\": 4096,", "duplicate key");
    refuse("gemm.tuning.json", "\"noise\": 0.004", "\"noise\": 1e400", "like 1e400");
}

static void test_missing_and_half_pairs(void)
{
    gdt_error e;
    load("nowhere", GDT_FAMILY_GEMM, 90, GDT_STATUS_NOT_SUPPORTED, &e);
    CHECK_CONTAINS(e.msg, "no tables for gemm on sm90");
    load("a", GDT_FAMILY_SDPA_FWD, 90, GDT_STATUS_NOT_SUPPORTED, &e);
    /* Asking sm80 of tables written for sm90: a copy under sm80/ is refused
     * by arch. */
    char dir[600], src[1024], dst[1024];
    snprintf(dir, sizeof dir, "%s/arch/sm80", root);
    CHECK_INT(gdt_mkdirs(dir, &e), ==, GDT_STATUS_OK);
    const char *files[] = {"gemm.tuning.json", "gemm.placement.json"};
    for (int i = 0; i < 2; i++) {
        path_of(src, sizeof src, "a/sm90", files[i]);
        snprintf(dst, sizeof dst, "%s/%s", dir, files[i]);
        char *t = slurp(src);
        if (t) spit(dst, t);
        free(t);
    }
    load("arch", GDT_FAMILY_GEMM, 80, GDT_STATUS_BAD_INPUT, &e);
    CHECK_CONTAINS(e.msg, "sm80/gemm.tuning.json: /arch: expected \"sm80\", got \"sm90\"");
    /* Half a pair. */
    snprintf(dst, sizeof dst, "%s/gemm.placement.json", dir);
    CHECK_INT(unlink(dst), ==, 0);
    load("arch", GDT_FAMILY_GEMM, 80, GDT_STATUS_BAD_INPUT, &e);
    CHECK_CONTAINS(e.msg, "gemm.placement.json: missing (its pair");
}

static void test_check_file(void)
{
    char p[600];
    gdt_error e;
    path_of(p, sizeof p, "a/sm90", "gemm.tuning.json");
    CHECK_INT(gdt_table_check_file(p, &e), ==, GDT_STATUS_OK);
    path_of(p, sizeof p, "a/sm90", "gemm.placement.json");
    CHECK_INT(gdt_table_check_file(p, &e), ==, GDT_STATUS_OK);
    path_of(p, sizeof p, "a/sm90", "nope.json");
    CHECK(gdt_table_check_file(p, &e) != GDT_STATUS_OK);
    CHECK_CONTAINS(e.msg, "nope.json");
    char q[600];
    path_of(q, sizeof q, "a", "other.json");
    spit(q, "{\"schema\": \"gdtune.other/1\"}");
    CHECK_INT(gdt_table_check_file(q, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "/schema: expected \"gdtune.tuning/1\" or \"gdtune.placement/7\", got \"gdtune.other/1\"");
    CHECK(strstr(e.msg, "another version of gdtune") == NULL); /* not one of ours */
    /* a table of an older layout: refused, saying it must be emitted again */
    spit(q, "{\"schema\": \"gdtune.placement/6\"}");
    CHECK_INT(gdt_table_check_file(q, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "got \"gdtune.placement/6\": another version of gdtune wrote it (the layout differs); "
                          "emit the tables again from the journal they come from (gdtune tables emit RUNDIR)");
    /* The committed fixtures stay valid. */
    const char *fixtures[] = {GDT_TEST_DATA "/tables/sm90/gemm.tuning.json",
                              GDT_TEST_DATA "/tables/sm90/gemm.placement.json"};
    for (int i = 0; i < 2; i++) {
        gdt_error_clear(&e);
        CHECK_INT(gdt_table_check_file(fixtures[i], &e), ==, GDT_STATUS_OK);
        if (e.msg[0]) fprintf(stderr, "%s\n", e.msg);
    }
}

static void test_writer_refusals(void)
{
    gdt_provenance prov;
    gdt_error e;
    provenance(&prov, 90);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/w/sm90", root);
    gdt_measured_plan p[2] = {mp(our_plan(64, 64), false, GDT_MODE_A, 0, 10, 0.01),
                              mp(our_plan(64, 64), false, GDT_MODE_A, 1, 11, 0.01)};
    gdt_measured_cell c = {.plans = p, .nplans = 2};
    gemm_problem(&c.problem, "m=64");
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, &c, 1, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "measured twice");
    p[1] = mp(our_plan(64, 128), false, GDT_MODE_A, 1, NAN, 0.01);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, &c, 1, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "expected time_us > 0");
    p[1].time_us = 11;
    gdt_measured_cell two[2] = {c, c};
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, two, 2, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "given twice");
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_SDPA_FWD, &prov, &c, 1, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "family gemm given to the sdpa_fwd writer");
}

/* An sdpa pair: groups by dtype, causal, d and GQA, ordered by query tiles. */
static void test_sdpa_round_trip(void)
{
    gdt_provenance prov;
    gdt_error e;
    provenance(&prov, 90);
    gdt_measured_plan p[2] = {mp(backend_plan(12, 0), true, GDT_MODE_A, 0, 500, 0.003),
                              mp((gdt_plan_id){.engine_id = gdt_engine_id(GDT_FAMILY_SDPA_FWD, 0)},
                                 false, GDT_MODE_A, 1, 400, 0.003)};
    gdt_measured_cell c = {.plans = p, .nplans = 2};
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=2,h_q=32,h_kv=8,s_q=2048,s_kv=2048,d=128",
                                &c.problem, &e), ==, GDT_STATUS_OK);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/s/sm90", root);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_SDPA_FWD, &prov, &c, 1, &e), ==, GDT_STATUS_OK);
    gdt_tables *t = load("s", GDT_FAMILY_SDPA_FWD, 90, GDT_STATUS_OK, &e);
    if (!t) return (void)fprintf(stderr, "%s\n", e.msg);
    gdt_device_props dev;
    gdt_arch_limits(90, &dev);
    gdt_facts f;
    gdt_cell_decision d;
    gdt_facts_analyze(&c.problem, &dev, &f);
    CHECK(gdt_tables_lookup(t, &f, &d) && d.measured && d.lead);
    gdt_problem q;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=8,h_q=32,h_kv=8,s_q=512,s_kv=512,d=128", &q, &e),
              ==, GDT_STATUS_OK);
    gdt_facts_analyze(&q, &dev, &f);
    CHECK(gdt_tables_lookup(t, &f, &d) && !d.measured && d.lead);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "b=8,h_q=32,h_kv=32,s_q=512,s_kv=512,d=128", &q, &e),
              ==, GDT_STATUS_OK);
    gdt_facts_analyze(&q, &dev, &f);
    CHECK(!gdt_tables_lookup(t, &f, &d)); /* no GQA shard for h_q == h_kv */
    gdt_tables_destroy(t);
}

/* Two cells with one metric and different decisions (the sweep
 * has (N, K) = (14336, 4096) and (4096, 14336): equal flops) give an empty
 * shard between them; the pair still loads and each cell keeps its own
 * measured decision. */
static void test_equal_metric_cells(void)
{
    gdt_provenance prov;
    gdt_error e;
    provenance(&prov, 90);
    gdt_measured_plan a[2] = {mp(backend_plan(1, 0), true, GDT_MODE_A, 0, 100, 0.001),
                              mp(our_plan(128, 128), false, GDT_MODE_A, 1, 80, 0.001)};
    gdt_measured_plan b[2] = {mp(backend_plan(1, 0), true, GDT_MODE_A, 0, 80, 0.001),
                              mp(our_plan(128, 128), false, GDT_MODE_A, 1, 100, 0.001)};
    gdt_measured_cell c[2] = {{.plans = a, .nplans = 2}, {.plans = b, .nplans = 2}};
    gemm_problem(&c[0].problem, "m=4096,n=14336,k=4096");
    gemm_problem(&c[1].problem, "m=4096,n=4096,k=14336");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/eq/sm90", root);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, c, 2, &e), ==, GDT_STATUS_OK);
    gdt_tables *t = load("eq", GDT_FAMILY_GEMM, 90, GDT_STATUS_OK, &e);
    if (!t) return (void)fprintf(stderr, "%s\n", e.msg);
    gdt_cell_decision d;
    lookup(t, "m=4096,n=14336,k=4096", &d, true);
    CHECK(d.measured && d.lead);
    lookup(t, "m=4096,n=4096,k=14336", &d, true);
    CHECK(d.measured && !d.lead);
    lookup(t, "m=14336,n=4096,k=4096", &d, true); /* same flops, unmeasured: the upper shard */
    CHECK(!d.measured);
    gdt_tables_destroy(t);
}

/* A cell listed twice is refused in either table, by its key. */
static void test_cell_twice(void)
{
    static const char *const kinds[] = {"gemm.tuning.json", "gemm.placement.json"};
    for (int k = 0; k < 2; k++) {
        char src[600], dst[600];
        snprintf(src, sizeof src, "%s/tables/sm90/%s", GDT_TEST_DATA, kinds[k]);
        path_of(dst, sizeof dst, "twice", kinds[k]);
        char dir[600];
        path_of(dir, sizeof dir, "twice", "");
        mkdir(dir, 0700);
        char *text = slurp(src);
        cJSON *doc = text ? cJSON_Parse(text) : NULL;
        cJSON *cells = cJSON_GetObjectItem(doc, "cells");
        CHECK(cJSON_GetArraySize(cells) > 0);
        cJSON_AddItemToArray(cells, cJSON_Duplicate(cJSON_GetArrayItem(cells, 0), true));
        char *out = cJSON_Print(doc);
        spit(dst, out ? out : "");
        gdt_error e;
        CHECK_INT(gdt_table_check_file(dst, &e), ==, GDT_STATUS_BAD_INPUT);
        CHECK_CONTAINS(e.msg, "/cells: cell \"gemm:b1,m");
        CHECK_CONTAINS(e.msg, "\" appears twice");
        free(out);
        cJSON_Delete(doc);
        free(text);
    }
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/gdt_test_tables.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    build_cells();
    test_round_trip_bytes();
    test_lookup_measured();
    test_lookup_shards();
    test_noise_rule();
    test_refusals();
    test_missing_and_half_pairs();
    test_check_file();
    test_writer_refusals();
    test_sdpa_round_trip();
    test_equal_metric_cells();
    test_cell_twice();
    if (!gdt_test_failures && gdt_test_remove_tree(root) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_tables");
}
