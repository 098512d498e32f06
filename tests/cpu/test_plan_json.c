/* A plan's identity in JSON (engines/gdt_plan_json.h): written and read
 * back it is the same plan; the older journal spelling is read only where
 * allowed; a name that disagrees with its knobs, an unknown knob name, a
 * knob twice are refused naming the place, expected and actual; and a
 * committed journal respelled in the current spelling gives the same
 * tables, compare and report byte for byte. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "gdt_plan_json.h"
#include "gdt_test.h"

#define JOURNAL_GZ GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz"

static const char *const names[] = {
    "cudnn.eng0",
    "cudnn.eng4[KERNEL_CFG=2]",
    "gemm.nvrtc[TILE_M=128]",
    "gemm.nvrtc[GROUP_M=8, MMA=0, STAGES=4, TILEK=32, TILE_M=128, TILE_N=128, WARPS_M=2, WARPS_N=2]",
    "gemm.cublaslt[ALGO=66, CLUSTER_SHAPE=3, CUSTOM_OPTION=1, STAGES=35, TILE_SIZE=20]",
};

/* Written (text and cJSON) and read back: the same plan, the same name. */
static void test_round_trip(void)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        gdt_plan_id id, back;
        gdt_error e = {0};
        const char *name = NULL;
        CHECK_INT(gdt_plan_id_parse(names[i], &id, &e), ==, GDT_STATUS_OK);
        cJSON *o = gdt_plan_json(&id);
        CHECK(o != NULL);
        CHECK_INT(gdt_plan_json_read(o, "t.json", "/p", false, &back, &name, &e), ==, GDT_STATUS_OK);
        if (e.msg[0])
            fprintf(stderr, "%s\n", e.msg);
        CHECK(gdt_plan_id_equal(&id, &back));
        CHECK_STR(name ? name : "", names[i]);
        cJSON_Delete(o);
    }
    /* the one layout, the tables' (cJSON prints it without spaces) */
    gdt_plan_id id;
    char text[512];
    CHECK_INT(gdt_plan_id_parse("gemm.nvrtc[TILE_M=128, STAGES=4]", &id, NULL), ==, GDT_STATUS_OK);
#define TEXT "\"plan\": \"gemm.nvrtc[STAGES=4, TILE_M=128]\", \"engine_id\": 20000, " \
             "\"knobs\": {\"STAGES\": 4, \"TILE_M\": 128}"
    CHECK_INT(gdt_plan_json_print(&id, text, sizeof text), ==, (int)strlen(TEXT));
    CHECK_STR(text, TEXT);
    cJSON *o = gdt_plan_json(&id);
    char *printed = cJSON_PrintUnformatted(o);
    CHECK_STR(printed, "{\"plan\":\"gemm.nvrtc[STAGES=4, TILE_M=128]\",\"engine_id\":20000,"
                       "\"knobs\":{\"STAGES\":4,\"TILE_M\":128}}");
    free(printed);
    cJSON_Delete(o);
    /* a buffer too small is cut, NUL-terminated, and the length needed told */
    CHECK_INT(gdt_plan_json_print(&id, text, 10), ==, (int)strlen(TEXT));
    CHECK_STR(text, "\"plan\": \"");
}

/* The message reading text gives (old: the older spelling allowed), "" when
 * it reads. */
static const char *read_msg(const char *text, bool old)
{
    static char msg[2048];
    gdt_plan_id id;
    gdt_error e = {0};
    cJSON *o = cJSON_Parse(text);
    CHECK(o != NULL);
    gdt_status s = gdt_plan_json_read(o, "t.json", "/plans/3", old, &id, NULL, &e);
    snprintf(msg, sizeof msg, "%s", s == GDT_STATUS_OK ? "" : e.msg);
    CHECK_INT(s, ==, msg[0] ? GDT_STATUS_BAD_INPUT : GDT_STATUS_OK);
    cJSON_Delete(o);
    return msg;
}

#define OLD "{\"engine_id\":20000,\"knobs\":[[40,128]],\"name\":\"gemm.nvrtc[TILE_M=128]\"}"
#define NEW "{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":{\"TILE_M\":128}}"

static void test_old_spelling(void)
{
    gdt_plan_id a, b;
    cJSON *o = cJSON_Parse(OLD), *n = cJSON_Parse(NEW);
    CHECK_INT(gdt_plan_json_read(o, "t", "", true, &a, NULL, NULL), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_plan_json_read(n, "t", "", true, &b, NULL, NULL), ==, GDT_STATUS_OK);
    CHECK(gdt_plan_id_equal(&a, &b));
    CHECK_INT(a.nknobs, ==, 1);
    cJSON_Delete(o);
    cJSON_Delete(n);
    CHECK_STR(read_msg(OLD, true), "");
    /* the tables and the worker take the current spelling alone */
    CHECK_STR(read_msg(OLD, false), "t.json: /plans/3/plan: expected a string, got missing");
    CHECK_STR(read_msg("{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":[[40,128]]}", false),
              "t.json: /plans/3/knobs: expected an object of knob names to integers, got array of 1");
    CHECK_STR(read_msg("{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"name\":\"gemm.nvrtc[TILE_M=128]\","
                       "\"engine_id\":20000,\"knobs\":{\"TILE_M\":128}}", true),
              "t.json: /plans/3: expected one of \"plan\" and the older \"name\", got both");
}

static void test_refusals(void)
{
    /* the name disagrees with engine_id and knobs, in either spelling */
    CHECK_STR(read_msg("{\"plan\":\"gemm.nvrtc[TILE_M=64]\",\"engine_id\":20000,\"knobs\":{\"TILE_M\":128}}", false),
              "t.json: /plans/3/plan: expected \"gemm.nvrtc[TILE_M=128]\" (what engine_id and knobs print as), "
              "got \"gemm.nvrtc[TILE_M=64]\"");
    CHECK_STR(read_msg("{\"engine_id\":20000,\"knobs\":[[40,128]],\"name\":\"cudnn.eng0\"}", true),
              "t.json: /plans/3/name: expected \"gemm.nvrtc[TILE_M=128]\" (what engine_id and knobs print as), "
              "got \"cudnn.eng0\"");
    /* a knob name the knob table does not have */
    CHECK_CONTAINS(read_msg("{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":{\"TILE_Q\":128}}",
                            false),
                   "t.json: /plans/3/knobs/TILE_Q: unknown knob \"TILE_Q\" (expected a cuDNN knob name like "
                   "TILE_M or KERNEL_CFG, or one of gdtune's: ");
    /* a knob twice, a value that is not an integer, an engine id no engine has */
    CHECK_STR(read_msg("{\"name\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":[[40,128],[40,64]]}",
                       true),
              "t.json: /plans/3/knobs/1: expected each knob once, got TILE_M twice");
    CHECK_STR(read_msg("{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":{\"TILE_M\":\"128\"}}",
                       false),
              "t.json: /plans/3/knobs/TILE_M: expected an integer, got string \"128\"");
    CHECK_STR(read_msg("{\"plan\":\"engine15000\",\"engine_id\":15000,\"knobs\":{}}", false),
              "t.json: /plans/3/engine_id: engine id 15000: in the reserved band [10000, 20000)");
    CHECK_STR(read_msg("[1]", false),
              "t.json: /plans/3: expected a plan object {\"plan\", \"engine_id\", \"knobs\"}, got array of 1");
}

/* gdtune ARGS...: its output (stdout and stderr), malloc'd; exit 0 checked. */
static char *gdtune(const char *verb, const char *a1, const char *a2, const char *a3, const char *a4)
{
    char *argv[] = {(char *)gdt_test_exe(), (char *)verb, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL};
    char *out = malloc(1 << 20);
    int rc = out ? gdt_test_spawn(argv, NULL, out, 1 << 20) : -1;
    CHECK_INT(rc, ==, 0);
    if (rc && out)
        fprintf(stderr, "gdtune %s: %s\n", verb, out);
    return out;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0;
    if (f) {
        buf = malloc(1 << 24);
        len = buf ? fread(buf, 1, (1 << 24) - 1, f) : 0;
        fclose(f);
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* What a run directory gives: its tables (emitted into dir/t-<tag>), and
 * compare's and report's documents. */
typedef struct {
    char *tables[2], *compare, *report;
} outputs;

static void outputs_of(const char *run, const char *dir, const char *tag, outputs *o)
{
    static const char *const files[] = {"gemm.tuning.json", "gemm.placement.json"};
    char t[1024], path[PATH_MAX];
    snprintf(t, sizeof t, "%s/t-%s", dir, tag);
    free(gdtune("tables", "emit", run, "--tables-dir", t));
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/sm90/%s", t, files[k]);
        o->tables[k] = slurp(path);
        CHECK(o->tables[k] && o->tables[k][0] == '{');
    }
    o->compare = gdtune("compare", run, "--format", "json", NULL);
    o->report = gdtune("report", run, "--format", "json", NULL);
}

/* A committed journal (the older spelling) and the same run respelled in
 * place: the same tables, compare and report, byte for byte. */
static void test_respelled_journal_gives_the_same(void)
{
    char dir[] = "/tmp/gdt_test_plan_json_XXXXXX", run[1024], path[PATH_MAX];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(run, sizeof run, "%s/run", dir);
    CHECK_INT(mkdir(run, 0700), ==, 0);
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK_INT(gdt_test_gunzip_to(JOURNAL_GZ, path), ==, 0);
    char *before = slurp(path);
    CHECK(before && strstr(before, "\"knobs\":[[") && !strstr(before, "\"plan\":\"gemm."));
    outputs a, b;
    outputs_of(run, dir, "old", &a);
    CHECK_INT(gdt_test_journal_respell(path, false), >, 100);
    char *after = slurp(path);
    CHECK(after && !strstr(after, "\"knobs\":[[") && strstr(after, "\"plan\":\"gemm.nvrtc["));
    outputs_of(run, dir, "new", &b);
    char *const x[] = {a.tables[0], a.tables[1], a.compare, a.report};
    char *const y[] = {b.tables[0], b.tables[1], b.compare, b.report};
    for (int k = 0; k < 4; k++) {
        CHECK(x[k] && y[k] && !strcmp(x[k], y[k]));
        free(x[k]);
        free(y[k]);
    }
    free(before);
    free(after);
    gdt_test_remove_tree(dir);
}

int main(void)
{
    test_round_trip();
    test_old_spelling();
    test_refusals();
    test_respelled_journal_gives_the_same();
    return gdt_test_result("test_plan_json");
}
