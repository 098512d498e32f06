/* `gdtune merge` at scale: 64 shard run directories of a synthetic sweep
 * (128 GEMM cells, 32 plans each, results with four bursts of samples),
 * written through the typed journal writer, merge into the tables that one
 * unsharded run of the same results gives, byte for byte, holding one
 * journal at a time (its peak RSS is far below that of emitting
 * the unsharded journal, which holds every record at once).  A set with
 * gaps or a doubled shard is refused, naming the indices.  The figures are
 * printed, not asserted: wall time and max RSS of each gdtune run (a
 * wall-time bound failed under a loaded ctest -j8; its ctest TIMEOUT, 300 s,
 * catches a hang).  Shards of two sweeps (another build, candidate rows,
 * driver or measurement option in one header) are refused, naming the
 * field, the journal and both values; another GPU of the same model is
 * not, and other prior tables are said (issue 34 F6). */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_run.h"
#include "gdt_run_write.h"
#include "gdt_sweep.h"
#include "gdt_util.h"
#include "gdt_test.h"

#define SHARDS 64
#define NPLANS 32
#define SAMPLES 16

static const char spec_text[] =
    "{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],\"grid\":[{"
    "\"m\":[128,256,384,512,640,768,896,1024,1152,1280,1408,1536,1664,1792,1920,2048],"
    "\"n,k\":[[512,256],[512,512],[1024,256],[1024,512],[2048,256],[2048,512],[4096,256],[4096,512]],"
    "\"dtype\":[\"bf16\"]}],\"bursts\":[1,4,16,64]}";

static const char device_json[] = "{\"name\":\"Stand-in GPU\",\"arch\":90,\"sm_count\":132,"
                                   "\"uuid\":\"GPU-synthetic\",\"driver_version\":13000,"
                                   "\"device_count\":1}";

static cJSON *plan_list(void)
{
    static const char *const tags[] = {"A", "B", "FALLBACK", "KNOB"};
    cJSON *a = cJSON_CreateArray();
    for (int p = 0; p < NPLANS; p++) {
        char name[64];
        bool ours = p == NPLANS - 1;
        cJSON *o = cJSON_CreateObject(), *knobs = cJSON_CreateArray();
        if (ours) {
            int kv[2] = {40, 128};
            cJSON_AddItemToArray(knobs, cJSON_CreateIntArray(kv, 2));
        }
        snprintf(name, sizeof name, ours ? "gemm.nvrtc[TILE_M=128]" : "cudnn.eng%d", p);
        cJSON_AddNumberToObject(o, "engine_id", ours ? 20000 : p);
        cJSON_AddItemToObject(o, "knobs", knobs);
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddBoolToObject(o, "backend", !ours);
        cJSON_AddStringToObject(o, "tag", ours ? "OURS" : tags[p * 4 / NPLANS]);
        cJSON_AddNumberToObject(o, "untimed", p);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* What a worker would have measured for plan p of the spec's cell g: the
 * same in a shard and in the unsharded run. */
static cJSON *measured(int g, int p, gdt_disposition *d)
{
    static const int bursts[] = {1, 4, 16, 64};
    double t = 5 + ((g * 31 + p * 17) % 97) * 0.25, x[SAMPLES];
    cJSON *o = cJSON_CreateObject(), *b = cJSON_CreateArray();
    *d = (g + p) % 11 == 3 ? GDT_DISP_INCORRECT : GDT_DISP_VERIFIED;
    for (int k = 0; k < 4; k++) {
        cJSON *one = cJSON_CreateObject();
        for (int i = 0; i < SAMPLES; i++)
            x[i] = t * (1 + 0.001 * ((i * 7 + k) % 5));
        cJSON_AddNumberToObject(one, "burst", bursts[k]);
        cJSON_AddItemToObject(one, "host_us", cJSON_CreateDoubleArray(x, SAMPLES));
        cJSON_AddItemToObject(one, "device_us", cJSON_CreateDoubleArray(x, SAMPLES));
        cJSON_AddItemToObject(one, "total_us", cJSON_CreateDoubleArray(x, SAMPLES));
        cJSON_AddNumberToObject(one, "median_host_us", t);
        cJSON_AddNumberToObject(one, "median_device_us", t);
        cJSON_AddItemToArray(b, one);
    }
    cJSON_AddStringToObject(o, "disposition", gdt_disposition_name(*d));
    cJSON_AddStringToObject(o, "error", *d == GDT_DISP_VERIFIED ? "" : "C: relative L2 error 0.5");
    cJSON_AddItemToObject(o, "bursts", b);
    cJSON_AddNumberToObject(o, "time_us", t);
    cJSON_AddNumberToObject(o, "noise", 0.004);
    return o;
}

static gdt_status write_cell(gdt_journal *j, int ci, int g, const gdt_sweep_cell *c,
                             const cJSON *plans, gdt_error *e)
{
    gdt_status s = gdt_run_write_cell(j, ci, c, e);
    if (s == GDT_STATUS_OK)
        s = gdt_run_write_plans(j, ci, c, plans, "cudnn.eng0", NULL, NULL, e);
    for (int p = 0; p < NPLANS && s == GDT_STATUS_OK; p++) {
        const cJSON *plan = cJSON_GetArrayItem(plans, p);
        gdt_run_result_rec res = {.cell = ci, .plan = p, .family = GDT_FAMILY_GEMM,
                                  .name = cJSON_GetStringValue(cJSON_GetObjectItem(plan, "name"))};
        res.measured = measured(g, p, &res.disposition);
        res.error = cJSON_GetStringValue(cJSON_GetObjectItem(res.measured, "error"));
        s = gdt_run_write_result(j, &res, e);
        cJSON_Delete((cJSON *)res.measured);
    }
    return s;
}

/* Shard k of n (n = 0: the whole sweep) into dir. */
static void write_run(const char *dir, const char *spec_path, int k, int n)
{
    gdt_sweep_spec *spec = NULL;
    gdt_journal *j = NULL;
    gdt_error e = {0};
    cJSON *device = cJSON_Parse(device_json), *plans = plan_list();
    const char *gpus[] = {"GPU-synthetic"};
    gdt_status s = gdt_sweep_spec_load("gemm", spec_path, false, &spec, &e);
    if (s == GDT_STATUS_OK) {
        gdt_sweep_spec_shard(spec, k, n);
        s = gdt_journal_open(dir, false, &j, &e);
    }
    gdt_run_header_rec h = {
        .started = "2026-01-02T03:04:05Z", .family = "gemm", .spec = spec, .candidates_digest = "0",
        .arch = 90, .device = device, .gpus = gpus, .ngpus = 1,
        .options = {.bursts = {1, 4, 16, 64}, .nbursts = 4, .target_rel = 0.005,
                    .max_plan_seconds = 2, .knob_cap = 8, .shard_i = k, .shard_n = n,
                    .shard_source = n ? "synthetic" : NULL},
    };
    if (s == GDT_STATUS_OK)
        s = gdt_run_write_header(j, &h, &e);
    for (int ci = 0; s == GDT_STATUS_OK && ci < spec->ncells; ci++)
        s = write_cell(j, ci, n ? k + n * ci : ci, &spec->cells[ci], plans, &e);
    if (s != GDT_STATUS_OK)
        fprintf(stderr, "writing %s: %s\n", dir, e.msg);
    CHECK_INT(s, ==, GDT_STATUS_OK);
    gdt_journal_close(j);
    gdt_sweep_spec_destroy(spec);
    cJSON_Delete(device);
    cJSON_Delete(plans);
}

typedef struct figures {
    int rc;
    double wall_s;
    long maxrss_kb;
} figures;

/* Runs gdtune with argv (argv[0] ignored), its output into log; exit code,
 * wall time and peak RSS. */
static figures run_gdtune(char **argv, const char *log)
{
    figures f = {.rc = -1};
    struct timespec t0, t1;
    struct rusage ru;
    int status = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 1);
        dup2(fd, 2);
        argv[0] = (char *)GDTUNE_EXE;
        execv(GDTUNE_EXE, argv);
        _exit(127);
    }
    if (pid > 0 && wait4(pid, &status, 0, &ru) == pid) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        f.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        f.wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        f.maxrss_kb = ru.ru_maxrss;
    }
    return f;
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    gdt_error e;
    return gdt_file_read(path, &text, &len, &e) == GDT_STATUS_OK ? text : NULL;
}

static void check_same_file(const char *a, const char *b)
{
    char *x = slurp(a), *y = slurp(b);
    CHECK(x && y);
    if (x && y && strcmp(x, y) != 0)
        fprintf(stderr, "%s and %s differ\n", a, b);
    CHECK(x && y && !strcmp(x, y));
    free(x);
    free(y);
}

/* argv: gdtune merge DIR... --tables-dir T, for the shards in keep. */
static int merge_argv(char **argv, char dirs[][600], const int *keep, int nkeep, char *tables)
{
    int n = 0;
    argv[n++] = NULL;
    argv[n++] = "merge";
    for (int i = 0; i < nkeep; i++)
        argv[n++] = dirs[keep[i]];
    argv[n++] = "--tables-dir";
    argv[n++] = tables;
    argv[n] = NULL;
    return n;
}

static void test_merge(const char *dir)
{
    static char shard[SHARDS][600];
    char spec[600], all[600], tall[700], tm[700], ts[700], log[700], a[800], b[800];
    char *argv[SHARDS + 8];
    int keep[SHARDS + 1];
    snprintf(spec, sizeof spec, "%s/synthetic.json", dir);
    FILE *f = fopen(spec, "w");
    CHECK(f && fputs(spec_text, f) >= 0 && fclose(f) == 0);
    double t0 = gdt_now();
    for (int k = 0; k < SHARDS; k++) {
        snprintf(shard[k], sizeof shard[k], "%s/shard-%d", dir, k);
        write_run(shard[k], spec, k, SHARDS);
    }
    snprintf(all, sizeof all, "%s/all", dir);
    write_run(all, spec, 0, 0);
    fprintf(stderr, "test_merge_shards: wrote %d shards and the unsharded run in %.1f s\n", SHARDS,
            gdt_now() - t0);
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(tall, sizeof tall, "%s/t-all", dir);
    snprintf(tm, sizeof tm, "%s/t-merged", dir);
    snprintf(ts, sizeof ts, "%s/t-one", dir);

    char *emit_all[] = {NULL, "tables", "emit", all, "--tables-dir", tall, NULL};
    figures fa = run_gdtune(emit_all, log);
    CHECK_INT(fa.rc, ==, 0);
    char *emit_one[] = {NULL, "tables", "emit", shard[0], "--tables-dir", ts, NULL};
    figures f1 = run_gdtune(emit_one, log);
    CHECK_INT(f1.rc, ==, 2); /* one shard of 64 is not the sweep */
    for (int k = 0; k < SHARDS; k++)
        keep[k] = k;
    merge_argv(argv, shard, keep, SHARDS, tm);
    figures fm = run_gdtune(argv, log);
    CHECK_INT(fm.rc, ==, 0);
    char *text = slurp(log);
    CHECK_CONTAINS(text, "gemm.{tuning,placement}.json (128 cells)");
    free(text);
    fprintf(stderr, "test_merge_shards: gdtune merge of %d shards (%d cells, %d results): %.2f s "
            "wall, %ld MiB max RSS; tables emit of the unsharded run: %.2f s, %ld MiB; refusing one "
            "shard alone: %.2f s, %ld MiB\n", SHARDS, 128, 128 * NPLANS, fm.wall_s,
            fm.maxrss_kb / 1024, fa.wall_s, fa.maxrss_kb / 1024, f1.wall_s, f1.maxrss_kb / 1024);
    /* One journal at a time: most of what the unsharded emit holds is not held. */
    CHECK_INT(fm.maxrss_kb - f1.maxrss_kb, <, (fa.maxrss_kb - f1.maxrss_kb) / 2);
    static const char *const tables[] = {"gemm.tuning.json", "gemm.placement.json"};
    for (int i = 0; i < 2; i++) {
        snprintf(a, sizeof a, "%s/sm90/%s", tall, tables[i]);
        snprintf(b, sizeof b, "%s/sm90/%s", tm, tables[i]);
        check_same_file(a, b);
    }

    /* Gaps and a doubled shard: named, nothing written. */
    int n = 0;
    for (int k = 0; k < SHARDS; k++)
        if (k != 3 && k != 17)
            keep[n++] = k;
    keep[n++] = 5;
    snprintf(tm, sizeof tm, "%s/t-bad", dir);
    merge_argv(argv, shard, keep, n, tm);
    CHECK_INT(run_gdtune(argv, log).rc, ==, 2);
    text = slurp(log);
    CHECK_CONTAINS(text, "gdtune merge: the 64 shards of gemm do not make one sweep; shard 5/64 is "
                         "measured in both ");
    CHECK_CONTAINS(text, "; missing shards 3, 17 (expected each of shards 0..63 once)");
    free(text);
    snprintf(a, sizeof a, "%s/sm90", tm);
    CHECK(access(a, F_OK) != 0);
    merge_argv(argv, shard, keep, 1, tm); /* shard 0 alone */
    CHECK_INT(run_gdtune(argv, log).rc, ==, 2);
    text = slurp(log);
    CHECK_CONTAINS(text, "missing shards 1, 2, 3,");
    CHECK_CONTAINS(text, " and 31 more (expected each of shards 0..63 once)");
    free(text);
}

/* dir's journal copied to to/journal.jsonl, its header's value at ptr
 * (one or two levels: "/options/rounds") set to the JSON value. */
static void patched_copy(const char *dir, const char *to, const char *ptr, const char *value)
{
    char src[700], dst[700], key[2][64] = {"", ""};
    snprintf(src, sizeof src, "%s/journal.jsonl", dir);
    snprintf(dst, sizeof dst, "%s/journal.jsonl", to);
    char *text = slurp(src), *nl = text ? strchr(text, '\n') : NULL;
    CHECK(nl != NULL);
    if (!nl) return free(text);
    *nl = '\0';
    cJSON *h = cJSON_Parse(text), *o = h, *v = cJSON_Parse(value);
    int levels = sscanf(ptr, "/%63[^/]/%63s", key[0], key[1]);
    if (levels == 2) o = cJSON_GetObjectItem(h, key[0]);
    cJSON_DeleteItemFromObject(o, key[levels - 1]);
    cJSON_AddItemToObject(o, key[levels - 1], v);
    char *line = cJSON_PrintUnformatted(h);
    mkdir(to, 0755);
    FILE *f = fopen(dst, "w");
    CHECK(f && fprintf(f, "%s\n%s", line, nl + 1) > 0 && fclose(f) == 0);
    cJSON_Delete(h);
    free(line);
    free(text);
}

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static void test_mixed_sweeps(const char *dir, const char *spec)
{
    static const struct { const char *ptr, *value, *was, *now; } cases[] = {
        {"/source_digest", "\"ffff\"", "expected \"", "got \"ffff\""},
        {"/gdtune_version", "\"0.0.1\"", "expected \"", "got \"0.0.1\""},
        {"/candidates_digest", "\"11\"", "expected \"0\"", "got \"11\""},
        {"/device/driver_version", "12080", "expected 13000", "got 12080"},
        {"/device/cudnn_version", "91000", "expected absent", "got 91000"},
        {"/options/target_rel", "0.01", "expected 0.005", "got 0.01"},
        {"/options/bursts", "[1,4]", "expected [1,4,16,64]", "got [1,4]"},
        {"/options/cudnn_knob_cap", "3", "expected 8", "got 3"},
        {"/options/rounds", "3", "expected absent", "got 3"},
    };
    char s0[600], s1[600], odd[700], tables[700], log[700], want[1600];
    snprintf(s0, sizeof s0, "%s/two-0", dir);
    snprintf(s1, sizeof s1, "%s/two-1", dir);
    snprintf(odd, sizeof odd, "%s/two-odd", dir);
    snprintf(tables, sizeof tables, "%s/t-two", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    write_run(s0, spec, 0, 2);
    write_run(s1, spec, 1, 2);
    char *argv[] = {NULL, "merge", s0, odd, "--tables-dir", tables, NULL};
    patched_copy(s1, odd, "/device/uuid", "\"GPU-other-machine\"");
    CHECK_INT(run_gdtune(argv, log).rc, ==, 0); /* shards run on several machines */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        patched_copy(s1, odd, cases[i].ptr, cases[i].value);
        CHECK_INT(run_gdtune(argv, log).rc, ==, 2);
        char *text = slurp(log);
        snprintf(want, sizeof want, "gdtune merge: %s/journal.jsonl:1: %s: %s", odd, cases[i].ptr, cases[i].was);
        CHECK_CONTAINS(text, want);
        snprintf(want, sizeof want, "(as in %s/journal.jsonl:1), %s", s0, cases[i].now);
        CHECK_CONTAINS(text, want);
        free(text);
    }
    /* another prior order: said, not refused */
    patched_copy(s1, odd, "/prior", "{\"dir\":\"t\",\"tables\":[{\"family\":\"gemm\",\"path\":"
                 "\"t/sm90/gemm.tuning.json\",\"sha256\":\"" SHA_A "\"}]}");
    CHECK_INT(run_gdtune(argv, log).rc, ==, 0);
    char *text = slurp(log);
    snprintf(want, sizeof want, "gdtune merge: warning: %s/journal.jsonl:1: /prior: the prior tables gemm " SHA_A
             ", but none in %s/journal.jsonl:1", odd, s0);
    CHECK_CONTAINS(text, want);
    free(text);
}

int main(void)
{
    char dir[] = "/tmp/gdt_merge_shards_XXXXXX";
    if (access(GDTUNE_EXE, X_OK) != 0) {
        fprintf(stderr, "test_merge_shards: %s is not built\n", GDTUNE_EXE);
        return 1;
    }
    CHECK(mkdtemp(dir) != NULL);
    test_merge(dir);
    char spec[600];
    snprintf(spec, sizeof spec, "%s/synthetic.json", dir);
    test_mixed_sweeps(dir, spec);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    return gdt_test_result("test_merge_shards");
}
