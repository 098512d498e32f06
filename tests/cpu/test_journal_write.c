/* The journal's writer against its reader: one record of every type (a
 * header, a cell and its cell_error, a cell with its plans, an attempt and
 * a result of each disposition, a resume) written through gdt_run_write_*
 * and read back whole by gdt_run_parse, which refuses a field its table
 * does not hold and a missing required one.  Each record's bytes are the
 * ones sweeps wrote before the writer existed (taken from such a sweep
 * against a stand-in worker), so a journal stays what its readers and
 * diffs expect. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_json.h"
#include "gdt_run.h"
#include "gdt_run_write.h"
#include "gdt_util.h"
#include "gdt_test.h"

#define CELL0 "\"cell\":0,\"family\":\"gemm\",\"shape\":\"m=256,n=512,k=256,dtype=bf16\"," \
              "\"key\":\"gemm:b1,m256,n512,k256,bf16,a=row,b=row\""
#define CELL1 "\"cell\":1,\"family\":\"gemm\",\"shape\":\"m=512,n=512,k=256,dtype=bf16\"," \
              "\"key\":\"gemm:b1,m512,n512,k256,bf16,a=row,b=row\""

static const char plans_json[] =
    "[{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{},\"backend\":true,\"tag\":\"A\",\"untimed\":0},"
    "{\"plan\":\"cudnn.eng1\",\"engine_id\":1,\"knobs\":{},\"backend\":true,\"tag\":\"B\",\"untimed\":1},"
    "{\"plan\":\"cudnn.eng2\",\"engine_id\":2,\"knobs\":{},\"backend\":true,\"tag\":\"FALLBACK\",\"untimed\":2},"
    "{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":{\"TILE_M\":128},\"backend\":false,"
    "\"tag\":\"OURS\",\"untimed\":3}]";

static const char *const plan_names[] = {"cudnn.eng0", "cudnn.eng1", "cudnn.eng2",
                                         "gemm.nvrtc[TILE_M=128]"};

/* The worker's replies, as it sent them; NULL: the sweep failed the plan
 * itself (here: the reply had no disposition). */
static const char *const replies[] = {
    "{\"op\":\"result\",\"verify_err\":[0.00123,1e-7],\"bursts\":[{\"burst\":1,\"host_us\":[5.125,6],"
    "\"device_us\":[10.5,10.25],\"total_us\":[12,12.5],\"median_host_us\":5.5,\"median_device_us\":10.375,"
    "\"rel_spread\":0.0123456789,\"dropped\":0}],\"cold_us\":[20.333333333333332],"
    "\"median_cold_us\":20.333333333333332,\"converged\":true,\"measure_s\":0.12,\"time_us\":10.375,"
    "\"noise\":0.0123456789,\"clocks\":{\"rated_mhz\":1980,\"min_mhz\":1755,\"max_mhz\":1980,\"probes\":3,"
    "\"threshold\":0.95},\"disposition\":\"verified\",\"error\":\"\",\"build_s\":0.01,\"fatal\":false}",
    "{\"op\":\"result\",\"disposition\":\"declined\",\"error\":\"not supported: \\\"quoted\\\" \\\\ and "
    "unicode \\u00e9\",\"build_s\":0,\"fatal\":false}",
    NULL,
    "{\"op\":\"result\",\"verify_err\":[0.5],\"disposition\":\"incorrect\",\"error\":\"C: relative L2 "
    "error 0.5\",\"build_s\":1.5e-3,\"fatal\":true,\"fatal_error\":\"cudaErrorIllegalAddress\"}",
};
static const gdt_disposition dispositions[] = {GDT_DISP_VERIFIED, GDT_DISP_DECLINED, GDT_DISP_FAILED,
                                               GDT_DISP_INCORRECT};
static const char *const errors[] = {"", "not supported: \"quoted\" \\ and unicode \xc3\xa9",
                                     "worker answered without a disposition: no disposition here",
                                     "C: relative L2 error 0.5"};

/* Lines 2 to 13 as a sweep wrote them for the records above. */
static const char *const golden[] = {
    "{\"type\":\"cell\"," CELL0 "}",
    "{\"type\":\"cell_error\"," CELL0 ",\"error\":\"no reference: stand-in refuses "
    "m=256,n=512,k=256,dtype=bf16\"}",
    "{\"type\":\"cell\"," CELL1 "}",
    "{\"type\":\"plans\"," CELL1 ",\"plans\":[{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{},"
    "\"backend\":true,\"tag\":\"A\",\"untimed\":0},{\"plan\":\"cudnn.eng1\",\"engine_id\":1,\"knobs\":{},"
    "\"backend\":true,\"tag\":\"B\",\"untimed\":1},{\"plan\":\"cudnn.eng2\",\"engine_id\":2,\"knobs\":{},"
    "\"backend\":true,\"tag\":\"FALLBACK\",\"untimed\":2},{\"plan\":\"gemm.nvrtc[TILE_M=128]\","
    "\"engine_id\":20000,\"knobs\":{\"TILE_M\":128},\"backend\":false,\"tag\":\"OURS\",\"untimed\":3}],"
    "\"reference\":\"cudnn.eng0\",\"reference_cpu\":true}",
    "{\"type\":\"attempt\"," CELL1 ",\"plan\":0,\"name\":\"cudnn.eng0\"}",
    "{\"verify_err\":[0.00123,1e-07],\"bursts\":[{\"burst\":1,\"host_us\":[5.125,6],\"device_us\":"
    "[10.5,10.25],\"total_us\":[12,12.5],\"median_host_us\":5.5,\"median_device_us\":10.375,"
    "\"rel_spread\":0.0123456789,\"dropped\":0}],\"cold_us\":[20.333333333333332],\"median_cold_us\":"
    "20.333333333333332,\"converged\":true,\"measure_s\":0.12,\"time_us\":10.375,\"noise\":0.0123456789,"
    "\"clocks\":{\"rated_mhz\":1980,\"min_mhz\":1755,\"max_mhz\":1980,\"probes\":3,\"threshold\":0.95},"
    "\"disposition\":\"verified\",\"error\":\"\",\"build_s\":0.01,\"fatal\":false,\"type\":\"result\","
    "\"cell\":1,\"plan\":0,\"family\":\"gemm\",\"name\":\"cudnn.eng0\",\"gpu\":0}",
    "{\"type\":\"attempt\"," CELL1 ",\"plan\":1,\"name\":\"cudnn.eng1\"}",
    "{\"disposition\":\"declined\",\"error\":\"not supported: \\\"quoted\\\" \\\\ and unicode \xc3\xa9\","
    "\"build_s\":0,\"fatal\":false,\"type\":\"result\",\"cell\":1,\"plan\":1,\"family\":\"gemm\","
    "\"name\":\"cudnn.eng1\",\"gpu\":0}",
    "{\"type\":\"attempt\"," CELL1 ",\"plan\":2,\"name\":\"cudnn.eng2\"}",
    "{\"disposition\":\"failed\",\"error\":\"worker answered without a disposition: no disposition "
    "here\",\"type\":\"result\",\"cell\":1,\"plan\":2,\"family\":\"gemm\",\"name\":\"cudnn.eng2\","
    "\"gpu\":0}",
    "{\"type\":\"attempt\"," CELL1 ",\"plan\":3,\"name\":\"gemm.nvrtc[TILE_M=128]\"}",
    "{\"verify_err\":[0.5],\"disposition\":\"incorrect\",\"error\":\"C: relative L2 error 0.5\","
    "\"build_s\":0.0015,\"fatal\":true,\"fatal_error\":\"cudaErrorIllegalAddress\",\"type\":\"result\","
    "\"cell\":1,\"plan\":3,\"family\":\"gemm\",\"name\":\"gemm.nvrtc[TILE_M=128]\",\"gpu\":0}",
};

static const char device_json[] = "{\"name\":\"Stand-in GPU\",\"arch\":90,\"sm_count\":132,"
                                   "\"uuid\":\"GPU-py\",\"driver_version\":13000,\"device_count\":1}";
static const char *const gpus[] = {"GPU-py"};
/* The invocations as given: the header's and the resume record's (a
 * resumed sweep's differ from its header's, and are not compared). */
static const char *const run_argv[] = {"gdtune", "sweep", "gemm", "--out", "runs/a \"b\""};
static const char *const resume_argv[] = {"gdtune", "sweep", "--resume", "runs/a \"b\""};

static void check_ok(gdt_status s, const gdt_error *e)
{
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "  status %d: %s\n", (int)s, e->msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
}

static gdt_run_header_rec header(const gdt_sweep_spec *spec, const cJSON *device)
{
    gdt_run_header_rec h = {
        .started = "2026-01-02T03:04:05Z", .family = "gemm", .quick = false, .spec = spec,
        .candidates_digest = "2a46b9e8", .candidates = "{\"rows\":[]}", .arch = 90,
        .device = device, .gpus = gpus, .ngpus = 1, .argv = {run_argv, 5},
        .options = {.bursts = {1, 2, 8}, .nbursts = 3, .target_rel = 0.01, .max_plan_seconds = 0.5,
                    .deadline = 2, .knob_cap = 1, .shard_i = 0, .shard_n = 0, .race = true},
    };
    return h;
}

/* The header as sweeps wrote it: these keys in this order, numbers as
 * they print; the spec text escaped as any JSON string. */
static void check_header_line(const char *line, const gdt_sweep_spec *spec)
{
    cJSON *text = cJSON_CreateString(spec->text), *src = cJSON_CreateString(spec->source);
    char *t = cJSON_PrintUnformatted(text), *s = cJSON_PrintUnformatted(src);
    size_t n = strlen(spec->text) * 2 + 4096;
    char *want = malloc(n);
    if (t && s && want) {
        snprintf(want, n, "{\"type\":\"run\",\"gdtune_version\":\"%s\",\"source_digest\":\"%s\","
                 "\"started\":\"2026-01-02T03:04:05Z\",\"family\":\"gemm\",\"quick\":false,"
                 "\"spec_source\":%s,\"spec_digest\":\"%s\",\"spec\":%s,\"candidates_digest\":"
                 "\"2a46b9e8\",\"candidates\":\"{\\\"rows\\\":[]}\",\"arch\":90,\"device\":%s,"
                 "\"gpus\":[\"GPU-py\"],\"options\":{\"bursts\":[1,2,8],\"target_rel\":0.01,"
                 "\"max_plan_seconds\":0.5,\"deadline\":2,\"cudnn_knob_cap\":1,\"shard_i\":0,"
                 "\"shard_n\":0,\"race\":true},\"prior\":null,\"argv\":[\"gdtune\",\"sweep\",\"gemm\","
                 "\"--out\",\"runs/a \\\"b\\\"\"]}", GDT_VERSION_STRING, gdt__source_digest, s, spec->digest, t,
                 device_json);
        CHECK_STR(line, want);
    }
    CHECK(t && s && want);
    free(want);
    free(t);
    free(s);
    cJSON_Delete(text);
    cJSON_Delete(src);
}

static void write_results(gdt_journal *j, const gdt_sweep_cell *c, gdt_error *e)
{
    for (int pi = 0; pi < 4; pi++) {
        check_ok(gdt_run_write_attempt(j, 1, c, pi, plan_names[pi], e), e);
        cJSON *rep = replies[pi] ? cJSON_Parse(replies[pi]) : NULL;
        CHECK(!replies[pi] || rep);
        gdt_run_result_rec res = {.cell = 1, .plan = pi, .gpu = 0, .family = GDT_FAMILY_GEMM,
                                  .name = plan_names[pi], .disposition = dispositions[pi],
                                  .error = errors[pi], .measured = rep};
        check_ok(gdt_run_write_result(j, &res, e), e);
        cJSON_Delete(rep);
    }
}

/* Every record type, written in the order a sweep writes them. */
static void write_journal(const char *dir, const gdt_sweep_spec *spec)
{
    gdt_journal *j = NULL;
    gdt_error e = {0};
    cJSON *device = cJSON_Parse(device_json), *plans = cJSON_Parse(plans_json);
    check_ok(gdt_journal_open(dir, false, &j, &e), &e);
    if (!j || !device || !plans || spec->ncells != 2) {
        CHECK(!"the journal opens, the fixtures parse, the spec has 2 cells");
        goto done;
    }
    gdt_run_header_rec h = header(spec, device);
    bool cpu = true;
    check_ok(gdt_run_write_header(j, &h, &e), &e);
    check_ok(gdt_run_write_cell(j, 0, &spec->cells[0], &e), &e);
    check_ok(gdt_run_write_cell_error(j, 0, &spec->cells[0], "no reference: stand-in refuses "
                                      "m=256,n=512,k=256,dtype=bf16", &e), &e);
    check_ok(gdt_run_write_cell(j, 1, &spec->cells[1], &e), &e);
    check_ok(gdt_run_write_plans(j, 1, &spec->cells[1], plans, "cudnn.eng0", &cpu, NULL, &e), &e);
    write_results(j, &spec->cells[1], &e);
    check_ok(gdt_run_write_resume(j, "2026-01-02T04:05:06Z", 4, gpus, 1, (gdt_run_argv){resume_argv, 4}, &e), &e);
done:
    gdt_journal_close(j);
    cJSON_Delete(device);
    cJSON_Delete(plans);
}

static void check_bytes(const char *dir, const gdt_sweep_spec *spec)
{
    char path[PATH_MAX];
    gdt_journal_lines l;
    gdt_error e = {0};
    snprintf(path, sizeof path, "%s/%s", dir, GDT_JOURNAL_NAME);
    check_ok(gdt_journal_read(path, &l, &e), &e);
    int ngolden = (int)(sizeof golden / sizeof *golden);
    CHECK_INT(l.n, ==, ngolden + 2);
    if (l.n == ngolden + 2) {
        check_header_line(l.line[0], spec);
        for (int i = 0; i < ngolden; i++)
            CHECK_STR(l.line[i + 1], golden[i]);
        char want[512];
        snprintf(want, sizeof want, "{\"type\":\"resume\",\"started\":\"2026-01-02T04:05:06Z\","
                 "\"source_digest\":\"%s\",\"results_before\":4,\"gpus\":[\"GPU-py\"],"
                 "\"argv\":[\"gdtune\",\"sweep\",\"--resume\",\"runs/a \\\"b\\\"\"]}",
                 gdt__source_digest);
        CHECK_STR(l.line[ngolden + 1], want);
    }
    gdt_journal_lines_free(&l);
}

static void check_header(const gdt_run *r)
{
    CHECK_STR(r->family, "gemm");
    CHECK_STR(r->started, "2026-01-02T03:04:05Z");
    CHECK_STR(r->source_digest, gdt__source_digest);
    CHECK_STR(r->gdtune_version, GDT_VERSION_STRING);
    CHECK_STR(r->candidates_digest, "2a46b9e8");
    CHECK(!r->quick);
    CHECK_INT(r->arch, ==, 90);
    CHECK_STR(r->dev.uuid, "GPU-py");
    CHECK_INT(r->options.nbursts, ==, 3);
    CHECK_INT(r->options.bursts[2], ==, 8);
    CHECK_NEAR(r->options.target_rel, 0.01, 0);
    CHECK_NEAR(r->options.max_plan_seconds, 0.5, 0);
    CHECK_NEAR(r->options.deadline, 2, 0);
    CHECK_INT(r->options.knob_cap, ==, 1);
    CHECK_INT(r->options.shard_n, ==, 0);
    CHECK(r->options.race);
    CHECK_STR(r->options.shard_source, "");
    CHECK_INT(r->ncells, ==, 2);
    /* the header's argv, not the resume record's */
    CHECK_INT(r->argc, ==, 5);
    CHECK_STR(r->argc == 5 ? r->args[2] : "", "gemm");
    CHECK_STR(r->argc == 5 ? r->args[4] : "", "runs/a \"b\"");
}

static void check_cells(const gdt_run *r)
{
    const gdt_run_cell *c0 = &r->cells[0], *c1 = &r->cells[1];
    CHECK(c0->journaled && !c0->listed);
    CHECK_STR(c0->error, "no reference: stand-in refuses m=256,n=512,k=256,dtype=bf16");
    CHECK(c1->journaled && !c1->error);
    CHECK_INT(c1->nplans, ==, 4);
    CHECK_STR(c1->reference, "cudnn.eng0");
    CHECK(gdt_run_cell_complete(c1));
    for (int pi = 0; pi < c1->nplans && pi < 4; pi++) {
        CHECK_STR(c1->plan[pi].name, plan_names[pi]);
        CHECK_INT(c1->result[pi].disposition, ==, dispositions[pi]);
        CHECK_STR(c1->result[pi].error, errors[pi]);
        CHECK_INT(c1->result[pi].line, ==, 7 + 2 * pi);
    }
    CHECK_STR(c1->plan[3].tag, "OURS");
    CHECK_INT(c1->plan[3].id.engine_id, ==, 20000);
    CHECK_NEAR(c1->result[0].time_us, 10.375, 0);
    CHECK_NEAR(c1->result[0].noise, 0.0123456789, 0);
    CHECK_NEAR(c1->result[0].host_us, 5.5, 0);
    CHECK_INT(c1->result[0].samples, ==, 2);
    CHECK_INT(r->results, ==, 4);
    for (int d = 0; d < GDT_DISP_COUNT; d++)
        CHECK_INT(r->counts[d], ==, 1);
}

/* The resume record as written (the reader keeps nothing of it). */
static void check_resume(const char *text, size_t len)
{
    gdt_journal_lines l = {0};
    CHECK_INT(gdt_journal_parse(text, len, "journal.jsonl", &l, NULL), ==, GDT_STATUS_OK);
    CHECK_INT(l.n, ==, 14);
    const cJSON *res = l.n == 14 ? l.rec[13] : NULL;
    CHECK_STR(gdt_json_str_or(res, "type", ""), gdt_record_type_name(GDT_REC_RESUME));
    CHECK_STR(gdt_json_str_or(res, "started", ""), "2026-01-02T04:05:06Z");
    CHECK_INT(gdt_json_num_or(res, "results_before", -1), ==, 4);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(res, "gpus"), 0)), "GPU-py");
    gdt_journal_lines_free(&l);
}

/* The strict reader takes the whole journal and sees what was written. */
static void check_read_back(const char *dir)
{
    char path[PATH_MAX], *text = NULL;
    size_t len = 0;
    gdt_error e = {0};
    gdt_run *r = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, GDT_JOURNAL_NAME);
    check_ok(gdt_file_read(path, &text, &len, &e), &e);
    if (text)
        check_ok(gdt_run_parse(text, len, path, &r, &e), &e);
    if (r) {
        CHECK_INT(r->tail.torn_bytes, ==, 0);
        check_header(r);
        check_cells(r);
        check_resume(text, len);
    }
    CHECK(r != NULL);
    gdt_run_destroy(r);
    free(text);
}

/* Keys of a reply that are the writer's own (and the protocol's "op") are
 * not copied: the record keeps one of each and the reader takes it. */
static void test_reply_keys(const char *dir, const gdt_sweep_spec *spec)
{
    gdt_journal *j = NULL;
    gdt_error e = {0};
    cJSON *device = cJSON_Parse(device_json), *plans = cJSON_Parse(plans_json);
    cJSON *rep = cJSON_Parse("{\"op\":\"result\",\"type\":\"x\",\"gpu\":7,\"name\":\"y\",\"cell\":5,"
                             "\"disposition\":\"weird\",\"build_s\":0.5}");
    gdt_run *r = NULL;
    check_ok(gdt_journal_open(dir, false, &j, &e), &e);
    if (j && device && plans && rep) {
        gdt_run_header_rec h = header(spec, device);
        check_ok(gdt_run_write_header(j, &h, &e), &e);
        check_ok(gdt_run_write_cell(j, 1, &spec->cells[1], &e), &e);
        check_ok(gdt_run_write_plans(j, 1, &spec->cells[1], plans, NULL, NULL, NULL, &e), &e);
        gdt_run_result_rec res = {.cell = 1, .plan = 2, .family = GDT_FAMILY_GEMM, .name = "cudnn.eng2",
                                  .disposition = GDT_DISP_DECLINED, .error = "no", .measured = rep};
        check_ok(gdt_run_write_result(j, &res, &e), &e);
    }
    gdt_journal_close(j);
    check_ok(gdt_run_load(dir, &r, &e), &e);
    char path[PATH_MAX];
    gdt_journal_lines l = {0};
    snprintf(path, sizeof path, "%s/%s", dir, GDT_JOURNAL_NAME);
    check_ok(gdt_journal_read(path, &l, &e), &e);
    if (r && l.n == 4) {
        const gdt_run_result *res = &r->cells[1].result[2];
        CHECK_STR(r->cells[1].reference, ""); /* left out */
        CHECK(!gdt_json_get(l.rec[2], "reference_cpu"));
        CHECK_INT(res->disposition, ==, GDT_DISP_DECLINED);
        CHECK_STR(res->error, "no");
        CHECK_INT(gdt_json_num_or(l.rec[3], "gpu", -1), ==, 0); /* the writer's, not the reply's 7 */
        CHECK_NEAR(res->build_s, 0.5, 0);
    }
    CHECK(r && l.n == 4);
    gdt_journal_lines_free(&l);
    gdt_run_destroy(r);
    cJSON_Delete(device);
    cJSON_Delete(plans);
    cJSON_Delete(rep);
}

/* A sharded header carries its shard's source after shard_n, and the reader
 * gives it back; an unsharded one (above) writes none and reads "". */
static void test_shard_source(const char *dir, const gdt_sweep_spec *spec)
{
    static const char src[] = "SLURM job array: SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 "
                              "SLURM_ARRAY_TASK_COUNT=2";
    gdt_journal *j = NULL;
    gdt_error e = {0};
    gdt_run *r = NULL;
    gdt_journal_lines l = {0};
    char path[PATH_MAX];
    cJSON *device = cJSON_Parse(device_json);
    check_ok(gdt_journal_open(dir, false, &j, &e), &e);
    if (j && device) {
        gdt_run_header_rec h = header(spec, device);
        h.options.shard_i = 1;
        h.options.shard_n = 2;
        h.options.shard_source = src;
        check_ok(gdt_run_write_header(j, &h, &e), &e);
    }
    gdt_journal_close(j);
    snprintf(path, sizeof path, "%s/%s", dir, GDT_JOURNAL_NAME);
    check_ok(gdt_journal_read(path, &l, &e), &e);
    CHECK_CONTAINS(l.n ? l.line[0] : "", "\"cudnn_knob_cap\":1,\"shard_i\":1,\"shard_n\":2,"
                   "\"shard_source\":\"SLURM job array: SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 "
                   "SLURM_ARRAY_TASK_COUNT=2\",\"race\":true},\"prior\":null,");
    gdt_journal_lines_free(&l);
    check_ok(gdt_run_load(dir, &r, &e), &e);
    if (r) {
        CHECK_INT(r->options.shard_i, ==, 1);
        CHECK_INT(r->options.shard_n, ==, 2);
        CHECK_STR(r->options.shard_source, src);
        CHECK_INT(r->ncells, ==, 1); /* the second of tiny_gemm's two */
    }
    CHECK(r != NULL);
    gdt_run_destroy(r);
    cJSON_Delete(device);
}

int main(void)
{
    char dir[] = "/tmp/gdt_journal_write_XXXXXX", one[600], two[600], three[600];
    gdt_sweep_spec *spec = NULL;
    gdt_error e = {0};
    CHECK(mkdtemp(dir) != NULL);
    check_ok(gdt_sweep_spec_load("gemm", GDT_TEST_DATA "/sweeps/tiny_gemm.json", false, &spec, &e), &e);
    if (spec) {
        snprintf(one, sizeof one, "%s/one", dir);
        snprintf(two, sizeof two, "%s/two", dir);
        write_journal(one, spec);
        check_bytes(one, spec);
        check_read_back(one);
        test_reply_keys(two, spec);
        snprintf(three, sizeof three, "%s/three", dir);
        test_shard_source(three, spec);
    }
    gdt_sweep_spec_destroy(spec);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_journal_write");
}
