/* `gdtune sweep` on a machine without a GPU: usage errors (exit 2), the
 * no-device message (exit 1, nothing written), --compile-only on tiny specs
 * (exit 0), and the run loop against a stand-in worker (this executable
 * run as `test_cli_sweep worker`, through GDTUNE_WORKER_EXE): a plan that
 * kills the worker and one that hangs are recorded failed and the worker is
 * respawned; --resume after a torn journal runs each plan exactly once;
 * --rounds re-measures a cell's plans measured in full, journals it, resumes
 * it alone and ranks the tables by it; --prior orders a cell's plans by
 * earlier tables, and its header records which; a plan measured at a clock
 * far below its cell's is measured again, and the tables take the second.
 * test_sweep_rows runs the same stand-in for --tuning-config: each hello
 * logs the rows it carries (GDT_FAKE_ROWS_LOG). */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_test.h"
#include "gdtune/candidates.h"

/* ------------------------------------------------ the stand-in worker */

/* Plans of every cell: engine 0 (backend, A) and 20000 (ours) verify;
 * engine 1 (backend, B) is incorrect; engine 2 poisons the context (a fatal
 * reply, then the worker exits); 20090 kills the worker; 20091 hangs. */
static const char fake_plans[] =
    "[{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{},\"backend\":true,\"tag\":\"A\",\"untimed\":0},"
    "{\"plan\":\"cudnn.eng1\",\"engine_id\":1,\"knobs\":{},\"backend\":true,\"tag\":\"B\",\"untimed\":1},"
    "{\"plan\":\"gemm.test_fault\",\"engine_id\":20090,\"knobs\":{},\"backend\":false,\"tag\":\"OURS\",\"untimed\":2},"
    "{\"plan\":\"gemm.test_hang\",\"engine_id\":20091,\"knobs\":{},\"backend\":false,\"tag\":\"OURS\",\"untimed\":3},"
    "{\"plan\":\"cudnn.eng2\",\"engine_id\":2,\"knobs\":{},\"backend\":true,\"tag\":\"FALLBACK\",\"untimed\":5},"
    "{\"plan\":\"gemm.nvrtc[TILE_M=128]\",\"engine_id\":20000,\"knobs\":{\"TILE_M\":128},\"backend\":false,\"tag\":\"OURS\",\"untimed\":4}]";

/* With GDT_FAKE_CLOCK_MARK (a path), every sample's SM clock is 1500 MHz
 * but for ours the first time (the path does not exist yet: made then, so
 * a respawned worker knows): 1200 MHz, 0.8 of the cell's, and 13 us. */
static double fake_clock(int engine, double *t)
{
    const char *mark = getenv("GDT_FAKE_CLOCK_MARK");
    int fd = mark && engine == 20000 ? open(mark, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) : -1;
    if (fd < 0)
        return mark ? 1500 : 0;
    close(fd);
    *t = 13;
    return 1200;
}

static void fake_result(int engine)
{
    if (engine == 20090) {
        signal(SIGSEGV, SIG_DFL); /* die by the signal even under a sanitizer's handler */
        raise(SIGSEGV);
    }
    if (engine == 20091)
        for (;;)
            pause();
    bool all_ok = getenv("GDT_FAKE_ALL_OK") != NULL; /* eng1 and eng2 verify too (12 and 11 us) */
    if (engine == 2 && !all_ok) {
        printf("{\"op\":\"result\",\"disposition\":\"failed\",\"error\":\"cudaErrorIllegalAddress\","
               "\"fatal\":true}\n");
        fflush(stdout);
        exit(1);
    }
    if (engine == 1 && !all_ok) {
        printf("{\"op\":\"result\",\"disposition\":\"incorrect\",\"error\":\"C: relative L2 error "
               "0.5 above bound 0.01\",\"build_s\":0.1,\"fatal\":false}\n");
        return;
    }
    const char *eng0 = getenv("GDT_FAKE_ENG0_US"); /* cudnn.eng0's time, 10 us by default */
    double t = engine == 0 ? (eng0 ? atof(eng0) : 10.0) : engine == 1 ? 12.0 : engine == 2 ? 11.0 : 8.0;
    double mhz = fake_clock(engine, &t);
    /* GDT_FAKE_LATE: every sample at 1500 MHz but eng2's, raced out late at
     * 10.5 us and 1400 MHz (9.8 us at the others' clock) */
    bool late = getenv("GDT_FAKE_LATE") && engine == 2;
    if (getenv("GDT_FAKE_LATE"))
        mhz = late ? 1400 : 1500, t = late ? 10.5 : t;
    char clock[64] = "";
    if (mhz > 0)
        snprintf(clock, sizeof clock, ",\"clock_mhz\":[%g]", mhz);
    printf("{\"op\":\"result\",\"disposition\":\"verified\",\"error\":\"\",\"build_s\":0.1,"
           "\"verify_err\":[0.001],\"bursts\":[{\"burst\":1,\"host_us\":[5,5.5],\"device_us\":[%g,%g],"
           "\"total_us\":[12,12],\"median_host_us\":5.25,\"median_device_us\":%g,\"rel_spread\":0.01},"
           "{\"burst\":4,\"host_us\":[4],\"device_us\":[%g],\"total_us\":[11],\"median_host_us\":4,"
           "\"median_device_us\":%g,\"rel_spread\":0.002%s}],\"cold_us\":[20],\"time_us\":%g,"
           "\"noise\":0.002%s,\"fatal\":false}\n", t, t, t, t, t, clock, t,
           late ? ",\"raced_out\":true,\"race_burst\":4,\"raced_late\":true" : "");
}

/* The rounds reverse the plans' single measurements: engine 0 measures
 * 9 us, every other 11 us (in the plan request, eng0 10 and ours 8), each
 * GDT_FAKE_ROUNDS_PLUS us more (rounds that ran hotter).  The request is
 * said on stderr; GDT_FAKE_ROUNDS_FAIL refuses it. */
static void fake_rounds(const cJSON *req)
{
    const cJSON *p;
    int k = 0, rounds = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(req, "rounds"));
    double t[3] = {0};
    fprintf(stderr, "stand-in: rounds %d bursts %g plans", rounds,
            cJSON_GetNumberValue(cJSON_GetArrayItem(cJSON_GetObjectItem(req, "bursts"), 0)));
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(req, "plans"))
    {
        int engine = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(p, "engine_id"));
        fprintf(stderr, " %d", engine);
        const char *plus = getenv("GDT_FAKE_ROUNDS_PLUS");
        if (k < 3)
            t[k++] = (engine == 0 ? 9.0 : 11.0) + (plus ? atof(plus) : 0);
    }
    fputc('\n', stderr);
    if (getenv("GDT_FAKE_ROUNDS_FAIL")) {
        printf("{\"op\":\"error\",\"status\":\"FAULT\",\"error\":\"stand-in: rounds refused\","
               "\"fatal\":false}\n");
        return;
    }
    printf("{\"op\":\"rounds\"");
    static const char *const keys[] = {"time_us", "noise", "ratios"};
    for (int key = 0; key < 3; key++) {
        printf(",\"%s\":[", keys[key]);
        for (int i = 0; i < k; i++)
            printf("%s%g", i ? "," : "", key == 0 ? t[i] : key == 1 ? 0.003 : t[i] / t[0]);
        printf("]");
    }
    printf(",\"round_us\":[");
    for (int i = 0; i < k; i++) {
        printf("%s[", i ? "," : "");
        for (int r = 0; r < rounds; r++)
            printf("%s%g", r ? "," : "", t[i]);
        printf("]");
    }
    printf("],\"seconds\":0.5}\n");
}

/* GDT_FAKE_GPUS devices when all are visible; a worker given one device
 * (CUDA_VISIBLE_DEVICES) sees one, and device GDT_FAKE_ODD is another model. */
static void fake_hello(const cJSON *req)
{
    gdt_test_log_hello_rows(req);
    /* a FIFO: the first hello waits for its writer to close it, and removes it */
    const char *gate = getenv("GDT_FAKE_HELLO_GATE");
    int g = gate ? open(gate, O_RDONLY) : -1;
    for (char c; g >= 0 && read(g, &c, 1) > 0;)
        ;
    if (g >= 0)
        close(g), unlink(gate);
    const char *vis = getenv("CUDA_VISIBLE_DEVICES"), *n = getenv("GDT_FAKE_GPUS");
    const char *odd = getenv("GDT_FAKE_ODD");
    bool other = vis && odd && !strcmp(vis, odd);
    printf("{\"op\":\"hello\",\"device\":{\"name\":\"%s\",\"arch\":90,\"sm_count\":132,"
           "\"uuid\":\"GPU-stand-in-%s\",\"driver_version\":13000,\"device_count\":%d}}\n",
           other ? "Other GPU" : "Stand-in GPU", vis ? vis : "all", vis ? 1 : n ? atoi(n) : 1);
}

static int fake_worker(void)
{
    char line[65536];
    while (fgets(line, sizeof line, stdin)) {
        cJSON *req = cJSON_Parse(line);
        const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(req, "op"));
        if (op && !strcmp(op, "hello"))
            fake_hello(req);
        else if (op && !strcmp(op, "cell")) /* the prebuild echoes the threads asked */
            printf("{\"op\":\"cell\",\"reference\":\"cudnn.eng0\",\"plans\":%s,\"build_threads\":%d,"
                   "\"prebuilt\":3,\"prebuild_s\":0.25}\n", fake_plans,
                   (int)cJSON_GetNumberValue(cJSON_GetObjectItem(req, "build_threads")));
        else if (op && !strcmp(op, "plan")) {
            int engine = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(req, "plan"), "engine_id"));
            const cJSON *race = cJSON_GetObjectItem(req, "race_us");
            const cJSON *cap = cJSON_GetObjectItem(req, "metric_sample_s");
            if (race) /* what racing asked: the test reads it from the sweep's stderr */
                fprintf(stderr, "stand-in: engine %d race_us %g race_noise %g\n", engine,
                        cJSON_GetNumberValue(race), cJSON_GetNumberValue(cJSON_GetObjectItem(req, "race_noise")));
            fprintf(stderr, "stand-in: engine %d bursts %d", engine,
                    cJSON_GetArraySize(cJSON_GetObjectItem(req, "bursts")));
            if (cap) /* the cell's bursts are not fixed yet */
                fprintf(stderr, " metric_sample_s %g", cJSON_GetNumberValue(cap));
            fputc('\n', stderr);
            fake_result(engine);
        } else if (op && !strcmp(op, "rounds"))
            fake_rounds(req);
        fflush(stdout);
        cJSON_Delete(req);
    }
    return 0;
}

static char out[65536];
static bool file_contains(const char *path, const char *what);

/* The file at path into out (truncated), as `cat` would print it: 0, or 1
 * when it cannot be read. */
static int read_into_out(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = 0;
    if (!f)
        return 1;
    int bad = ferror(f);
    fclose(f);
    return bad ? 1 : 0;
}

/* argv (a gdtune that writes tables under DIR/SUB) into out, then both
 * gemm tables of DIR/t compared with DIR/SUB's by cmp: the first nonzero
 * status, or 0. */
static int run_and_compare(char *const argv[], const char *dir, const char *sub)
{
    int rc = gdt_test_spawn(argv, NULL, out, sizeof out);
    static const char *const names[] = {"gemm.tuning.json", "gemm.placement.json"};
    for (size_t i = 0; i < 2 && rc == 0; i++) {
        char a[700], b[700], diff[1024];
        snprintf(a, sizeof a, "%s/t/sm90/%s", dir, names[i]);
        snprintf(b, sizeof b, "%s/%s/sm90/%s", dir, sub, names[i]);
        char *cmp[] = {"cmp", a, b, NULL};
        rc = gdt_test_spawn(cmp, NULL, diff, sizeof diff);
        if (rc != 0)
            fprintf(stderr, "%s", diff);
    }
    return rc;
}

static int sweep(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s sweep %s", GDTUNE_EXE, args);
    int rc = gdt_test_run(cmd, out, sizeof out);
    return rc;
}

static void test_usage(void)
{
    static const struct { const char *args; int rc; const char *msg; } cases[] = {
        {"--help", 0, "usage: gdtune sweep FAMILY [options]"},
        {"", 2, "missing FAMILY"},
        {"conv", 2, "conv"},
        {"gemm sdpa", 2, "one FAMILY only, got 'gemm' and 'sdpa'"},
        {"gemm --bogus", 2, "unknown option '--bogus'"},
        {"gemm --bursts 4,1", 2, "--bursts: bad value \"4,1\""},
        {"gemm --bursts", 2, "--bursts needs a value"},
        {"gemm --shard 3/2", 2, "--shard: bad value \"3/2\""},
        {"gemm --target-rel=2", 2, "--target-rel: bad value \"2\""},
        {"gemm --compile-only", 2, "--compile-only needs --arch smXY"},
        {"gemm --resume /tmp/x --out /tmp/y", 2, "drop --out /tmp/y"},
        {"gemm --resume /tmp/x --quick", 2, "--resume /tmp/x measures with the settings its journal recorded"},
        {"gemm --spec /nonexistent/spec.json", 2, "--spec: "},
        {"gemm --spec " GDT_TEST_DATA "/sweeps/bad_tied.json", 2,
         "bad_tied.json: /grid/0/n,k/1: expected an array of 2 values"},
        {"gemm --resume /nonexistent/run", 2, "/nonexistent/run: expected a run directory"},
        {"gemm --rounds 1", 2, "--rounds: bad value \"1\": expected 0 (off) or 2 to 100"},
        {"gemm --rounds 101", 2, "--rounds: bad value \"101\""},
        {"gemm --resume /tmp/x --rounds 3", 2, "--exhaustive, --cupti, --rounds and --tuning-config"},
        {"gemm --prior /tmp/p --no-prior", 2, "--prior /tmp/p and --no-prior contradict each other"},
        {"gemm --resume /tmp/x --prior /tmp/p", 2,
         "--resume /tmp/x orders plans by the prior its journal header recorded: drop --prior"},
        {"gemm --resume /tmp/x --no-prior", 2, "drop --no-prior"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = sweep(cases[i].args);
        if (rc != cases[i].rc)
            fprintf(stderr, "gdtune sweep %s:\n%s\n", cases[i].args, out);
        CHECK_INT(rc, ==, cases[i].rc);
        CHECK_CONTAINS(out, cases[i].msg);
    }
}

static bool gpu_present(void)
{
    char *argv[] = {"nvidia-smi", "-L", NULL}, ignored[1024];
    return gdt_test_spawn(argv, NULL, ignored, sizeof ignored) == 0;
}

static void test_no_device(void)
{
    if (gpu_present()) {
        fprintf(stderr, "test_cli_sweep: a GPU is present: the no-device message is not checked\n");
        return;
    }
    char dir[] = "/tmp/gdt_cli_sweep_XXXXXX", args[1024], run[600];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s --tables-dir %s/t",
             GDT_TEST_DATA, run, dir);
    CHECK_INT(sweep(args), ==, 1);
    CHECK_CONTAINS(out, "gdtune sweep: no CUDA device found: measuring needs an NVIDIA GPU with its "
                        "driver; `--compile-only` checks every candidate row for --arch without one");
    CHECK(access(run, F_OK) != 0); /* nothing written without a device */
    snprintf(args, sizeof args, "sdpa --quick --out %s", run);
    CHECK_INT(sweep(args), ==, 1);
    CHECK_CONTAINS(out, "no CUDA device found");
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

/* `gdtune worker` answers every request with one JSON line, refuses what
 * it cannot do without dying, and quits on request. */
static void test_worker_protocol(void)
{
    static const char requests[] =
        "garbage\n{\"op\":\"frob\"}\n{\"op\":\"cell\",\"family\":\"gemm\",\"problem\":\"m=64\"}"
        "\n{\"op\":\"plan\",\"plan\":{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{}}}\n{\"op\":\"hello\"}\n"
        "{\"op\":\"quit\"}\n{\"op\":\"hello\"}\n";
    char dir[] = "/tmp/gdt_cli_worker_XXXXXX", in[600], replies[600], ignored[4096];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(in, sizeof in, "%s/requests", dir);
    snprintf(replies, sizeof replies, "%s/replies", dir);
    FILE *f = fopen(in, "w");
    CHECK(f != NULL && fputs(requests, f) >= 0 && fclose(f) == 0);
    /* stdout alone: stderr is not part of the protocol */
    char *argv[] = {GDTUNE_EXE, "worker", NULL};
    CHECK_INT(gdt_test_spawn_to(argv, in, replies, ignored, sizeof ignored), ==, 0);
    CHECK_INT(read_into_out(replies), ==, 0);
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
    CHECK_CONTAINS(out, "{\"op\":\"error\",\"status\":\"BAD_INPUT\",\"error\":\"worker: request is not "
                        "a JSON object with \\\"op\\\": garbage\"}\n");
    CHECK_CONTAINS(out, "worker: unknown op \\\"frob\\\"");
    CHECK_CONTAINS(out, "\"error\":\"worker: no device (hello first)\",\"fatal\":false}");
    CHECK_CONTAINS(out, "\"disposition\":\"failed\",\"error\":\"worker: plan before cell\"");
    CHECK_CONTAINS(out, "{\"op\":\"hello\",\"device\":");
    int lines = 0;
    for (const char *p = out; (p = strchr(p, '\n')); p++)
        lines++;
    CHECK_INT(lines, ==, 5); /* nothing after quit */
    if (!gpu_present())
        CHECK_CONTAINS(out, "{\"op\":\"hello\",\"device\":null,\"error\":");
}

static void test_compile_only(void)
{
    CHECK_INT(sweep("gemm --arch sm90 --compile-only --spec " GDT_TEST_DATA "/sweeps/tiny_gemm.json"),
              ==, 0);
    CHECK_CONTAINS(out, "gdtune sweep gemm --compile-only: sm90, 2 cells");
    CHECK_CONTAINS(out, " 0 failed;");
    CHECK_CONTAINS(out, "distinct compiles");
    CHECK_INT(sweep("sdpa --arch sm90 --compile-only --spec " GDT_TEST_DATA "/sweeps/tiny_sdpa.json"),
              ==, 0);
    CHECK_CONTAINS(out, " 0 failed;");
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);
}

/* ------------------------------------------- the run loop, stand-in worker */

typedef struct tally {
    int results[8][8], attempts[8][8], gpu[8], resumes, rounds;
    int verified, failed, incorrect;
    char errors[4096];
} tally;

static void read_journal(const char *dir, tally *t, int from_line)
{
    char path[PATH_MAX];
    gdt_journal_lines l;
    gdt_error e = {0};
    memset(t, 0, sizeof *t);
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    for (int i = from_line; i < l.n; i++) {
        cJSON *r = cJSON_Parse(l.line[i]);
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(r, "type"));
        int c = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(r, "cell")) & 7;
        int p = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(r, "plan")) & 7;
        const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(r, "disposition"));
        if (type && !strcmp(type, "attempt"))
            t->attempts[c][p]++;
        if (type && !strcmp(type, "resume"))
            t->resumes++;
        if (type && !strcmp(type, "rounds"))
            t->rounds++;
        if (type && !strcmp(type, "result")) {
            t->results[c][p]++;
            t->gpu[(int)cJSON_GetNumberValue(cJSON_GetObjectItem(r, "gpu")) & 7]++;
            t->verified += !strcmp(d, "verified");
            t->incorrect += !strcmp(d, "incorrect");
            t->failed += !strcmp(d, "failed");
            size_t n = strlen(t->errors);
            snprintf(t->errors + n, sizeof t->errors - n, "%s\n",
                     cJSON_GetStringValue(cJSON_GetObjectItem(r, "error")));
        }
        cJSON_Delete(r);
    }
    gdt_journal_lines_free(&l);
}

/* Line count of the journal up to and including the first result record. */
static int cut_after_first_result(const char *dir)
{
    char path[PATH_MAX], *buf = NULL;
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    FILE *f = fopen(path, "r");
    size_t cap = 0, keep = 0;
    int lines = 0;
    ssize_t n;
    while (f && (n = getline(&buf, &cap, f)) > 0) {
        keep += (size_t)n;
        lines++;
        if (strstr(buf, "\"type\":\"result\""))
            break;
    }
    if (f)
        fclose(f);
    free(buf);
    CHECK_INT(truncate(path, (off_t)keep), ==, 0);
    f = fopen(path, "a");
    if (f) {
        fputs("{\"type\":\"attempt\",\"cell\":0,\"pl", f); /* torn */
        fclose(f);
    }
    return lines;
}

/* Overwrites the first 16 hex digits of one digest of the run header in
 * place (same length). */
static void set_digest(char *line, const char *key, char c)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":\"", key);
    char *d = strstr(line, k);
    CHECK(d != NULL);
    if (d)
        memset(d + strlen(k), c, 16);
}

/* The journal's header with the digests of another build and other
 * candidate rows (source digest ffff..., candidates digest eeee...); with
 * keep_rows the rows the header records stay (and no longer match their
 * digest), else they are dropped, as in a journal from before the header
 * kept them. */
static void other_build(const char *dir, bool keep_rows)
{
    char path[PATH_MAX];
    static char text[1 << 20];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    set_digest(text, "source_digest", 'f');
    set_digest(text, "candidates_digest", 'e');
    char *rows = strstr(text, ",\"candidates\":\""), *end = rows ? rows + 15 : NULL;
    while (end && *end && !(*end == '"' && end[-1] != '\\'))
        end++;
    CHECK(end && *end == '"');
    if (!keep_rows && end && *end)
        memmove(rows, end + 1, strlen(end + 1) + 1);
    f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* --resume of run refused (exit 2, saying both texts), then `tables emit`
 * of it into DIR/te2, its output left in out: exit emit_rc. */
static void resume_refused_then_emit(const char *run, const char *dir, const char *says, const char *says2,
                                     int emit_rc)
{
    char args[2048];
    snprintf(args, sizeof args, "gemm --resume %s --tables-dir %s/t", run, dir);
    CHECK_INT(sweep(args), ==, 2);
    CHECK_CONTAINS(out, says);
    CHECK_CONTAINS(out, says2);
    snprintf(args, sizeof args, "%s tables emit %s --tables-dir %s/te2", GDTUNE_EXE, run, dir);
    CHECK_INT(gdt_test_run(args, out, sizeof out), ==, emit_rc);
}

/* Another build's journal: resume refuses it, emission still reads it and
 * keeps its digests, and `gdtune plans` says the rows differ.  Its
 * candidates digest beside the rows it does not digest: both refuse it
 * (issue 34 F6). */
static void check_other_build(const char *run, const char *dir)
{
    char args[2048];
    other_build(run, true);
    resume_refused_then_emit(run, dir, "journal.jsonl:1: /candidates_digest: expected \"",
                             "(the digest of the candidate rows the header records), got \"eeeeeeeeeeeeeeee", 2);
    CHECK_CONTAINS(out, "gdtune tables emit: ");
    CHECK_CONTAINS(out, "/candidates_digest: expected");
    other_build(run, false);
    resume_refused_then_emit(run, dir, ":1: the run was measured by gdtune source ffffffffffffffff, this gdtune is ",
                             "start a new run, or write the tables of its complete cells with `gdtune tables emit", 0);
    CHECK_CONTAINS(out, "wrote ");
    /* ... and the tables carry the journal's digests, not this binary's. */
    snprintf(args, sizeof args, "%s/te2/sm90/gemm.tuning.json", dir);
    CHECK_INT(read_into_out(args), ==, 0);
    CHECK_CONTAINS(out, "\"source_digest\": \"ffffffffffffffff");
    CHECK_CONTAINS(out, "\"candidates_digest\": \"eeeeeeeeeeeeeeee");
    /* `gdtune plans` says when tables were measured with other candidate rows. */
    snprintf(args, sizeof args, "%s plans gemm --shape m=256,n=512,k=256 --arch sm90 --tables %s/te2", GDTUNE_EXE, dir);
    CHECK_INT(gdt_test_run(args, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "(measured with candidate rows eeeeeeeeeeee, planned with ");
    snprintf(args, sizeof args, "%s plans gemm --shape m=256,n=512,k=256 --arch sm90 --tables %s/t", GDTUNE_EXE, dir);
    CHECK_INT(gdt_test_run(args, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "tables: ");
    CHECK(strstr(out, "measured with candidate rows") == NULL);
}

/* The spec sets no build_threads: the parent asks the default, and each
 * cell's plans record journals the worker's prebuild. */
static void check_prebuild_journaled(const char *run)
{
    char path[700], want[128];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), n = cpus - 1 < 16 ? cpus - 1 : 16;
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK_INT(read_into_out(path), ==, 0);
    snprintf(want, sizeof want, "\"build_threads\":%ld,\"prebuilt\":3,\"prebuild_s\":0.25}", n < 0 ? 0 : n);
    CHECK_CONTAINS(out, want);
}

/* The worker unset; the last output shown on a failure, the folder kept
 * for it, else removed. */
static void end_run(const char *dir)
{
    unsetenv("GDTUNE_WORKER_EXE");
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);
    if (!gdt_test_failures)
        CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

static void test_run_loop(const char *self)
{
    char dir[] = "/tmp/gdt_cli_loop_XXXXXX", run[600], args[2048], path[700];
    CHECK(mkdtemp(dir) != NULL);
    setenv("GDTUNE_WORKER_EXE", self, 1);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s --tables-dir %s/t "
             "--deadline 2 --arch sm80", GDT_TEST_DATA, run, dir);
    CHECK_INT(sweep(args), ==, 2);
    CHECK_CONTAINS(out, "--arch sm80 names sm80, but the device is sm90 (Stand-in GPU)");
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s --tables-dir %s/t "
             "--deadline 2 --arch sm90", GDT_TEST_DATA, run, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    CHECK_CONTAINS(out, "gdtune sweep: 2 plans incorrect (journal and tables written): exit 4");
    tally t;
    read_journal(run, &t, 0);
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 6; p++) {
            CHECK_INT(t.results[c][p], ==, 1);
            CHECK_INT(t.attempts[c][p], ==, 1);
        }
    CHECK_INT(t.verified, ==, 4);
    CHECK_INT(t.incorrect, ==, 2);
    CHECK_INT(t.failed, ==, 6);
    CHECK_CONTAINS(t.errors, "worker died: signal 11 (Segmentation fault)");
    CHECK_CONTAINS(t.errors, "deadline exceeded after 2 s");
    CHECK_CONTAINS(t.errors, "cudaErrorIllegalAddress");
    /* first, then after each loss: plans run in untimed order, and the last
     * cell's last plan (cudnn.eng2, fatal) needs no worker after it */
    CHECK_CONTAINS(out, "worker started 6 times");
    snprintf(path, sizeof path, "%s/t/sm90/gemm.tuning.json", dir);
    CHECK(access(path, F_OK) == 0);
    snprintf(path, sizeof path, "%s/raw.h5", run);
    CHECK(access(path, F_OK) == 0);
    check_prebuild_journaled(run);
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);

    /* Killed after its first result, with a torn record: resume runs every
     * other plan once and the first never again.  Its plan list respelled
     * as journals before 2026-12-06 wrote it ({"name", "knobs": [[type,
     * value]]}): resume and emission read that spelling too. */
    int keep = cut_after_first_result(run);
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK_INT(gdt_test_journal_respell(path, true), ==, 6);
    snprintf(args, sizeof args, "%s tables emit %s --tables-dir %s/te", GDTUNE_EXE, run, dir);
    CHECK_INT(gdt_test_run(args, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "m=256,n=512,k=256,dtype=bf16: 1 of 6 plans have a result: cell left out");
    CHECK_CONTAINS(out, "gemm: no cell has a verified plan: no table written");
    snprintf(args, sizeof args, "gemm --resume %s --tables-dir %s/t --deadline 2", run, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    CHECK_CONTAINS(out, "cut a torn last record");
    read_journal(run, &t, keep);
    CHECK_INT(t.resumes, ==, 1);
    CHECK_INT(t.attempts[0][0], ==, 0);
    CHECK_INT(t.results[0][0], ==, 0);
    for (int c = 0; c < 2; c++)
        for (int p = c == 0; p < 6; p++)
            CHECK_INT(t.results[c][p], ==, 1);
    read_journal(run, &t, 0);
    CHECK_INT(t.verified + t.incorrect + t.failed, ==, 12);
    /* The journal alone gives back the tables the sweep wrote, byte for byte. */
    snprintf(path, sizeof path, "%s/te", dir);
    char *emit[] = {GDTUNE_EXE, "tables", "emit", run, "--tables-dir", path, NULL};
    CHECK_INT(run_and_compare(emit, dir, "te"), ==, 0);
    CHECK_CONTAINS(out, "wrote ");
    snprintf(args, sizeof args, "sdpa --resume %s", run);
    CHECK_INT(sweep(args), ==, 2);
    CHECK_CONTAINS(out, "the run sweeps \"gemm\", not \"sdpa\"");
    check_other_build(run, dir);

    /* --shard 1/2 keeps the second cell only, and the header remembers it. */
    char shard[700];
    snprintf(shard, sizeof shard, "%s/shard", dir);
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s --tables-dir %s/t2 "
             "--deadline 1 --shard 1/2", GDT_TEST_DATA, shard, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    CHECK_CONTAINS(out, "(sm90): 1 cells, run directory");
    CHECK_CONTAINS(out, "gemm m=512,n=512,k=256,dtype=bf16: cudnn.eng0: verified");
    CHECK(strstr(out, "m=256,") == NULL);

    /* The other shard, then `gdtune merge`: the same tables as the unsharded
     * run, byte for byte; a cell measured twice is refused. */
    char shard0[700];
    snprintf(shard0, sizeof shard0, "%s/shard0", dir);
    snprintf(args, sizeof args, "gemm --spec %s/sweeps/tiny_gemm.json --out %s --tables-dir %s/t3 "
             "--deadline 1 --shard 0/2", GDT_TEST_DATA, shard0, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    snprintf(path, sizeof path, "%s/tm", dir);
    char *merge[] = {GDTUNE_EXE, "merge", shard0, shard, "--tables-dir", path, NULL};
    CHECK_INT(run_and_compare(merge, dir, "tm"), ==, 0);
    CHECK_CONTAINS(out, "gemm.{tuning,placement}.json (2 cells)");
    snprintf(args, sizeof args, "%s merge %s %s --tables-dir %s/tm", GDTUNE_EXE, shard, shard, dir);
    CHECK_INT(gdt_test_run(args, out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "is measured in both");
    snprintf(args, sizeof args, "%s merge --tables-dir %s/tm", GDTUNE_EXE, dir);
    CHECK_INT(gdt_test_run(args, out, sizeof out), ==, 2);
    CHECK_CONTAINS(out, "gdtune merge: no RUNDIR given");
    snprintf(args, sizeof args, "%s report %s", GDTUNE_EXE, run);
    CHECK_INT(gdt_test_run(args, out, sizeof out), ==, 0);
    snprintf(path, sizeof path, "%s/report/summary.md", run);
    CHECK(access(path, F_OK) == 0);
    /* What went wrong is impossible to miss: a banner with the counts, and
     * each incorrect or failed plan by name. */
    CHECK(file_contains(path, "> **2 plans INCORRECT, 6 FAILED**"));
    CHECK(file_contains(path, "- cell 0 `cudnn.eng1`: **incorrect**: C: relative L2 error 0.5"));
    CHECK(file_contains(path, "`gemm.test_fault`: **failed**: worker died: signal 11"));
    end_run(dir);
}

/* DIR/spec.json: GEMM cells of (n, k) nk ("256,256"), one per m of ms
 * ("256,512"), with top-level settings extra ("" or ",\"key\":value..."). */
static void write_spec(char *spec, size_t n, const char *dir, const char *ms, const char *nk, const char *extra)
{
    snprintf(spec, n, "%s/spec.json", dir);
    FILE *f = fopen(spec, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "{\"schema\":\"gdtune.sweep/1\",\"families\":[\"gemm\"],"
                "\"grid\":[{\"m\":[%s],\"n,k\":[[%s]]}]%s}", ms, nk, extra);
        fclose(f);
    }
}

/* A sweep test's folder (dir, a mkdtemp template) with its spec (M values
 * ms at (n, k) nk, more settings extra), the stand-in worker this
 * executable is. */
static void start_run_nk(char *dir, char *spec, size_t n, const char *self, const char *ms, const char *nk,
                         const char *extra)
{
    CHECK(mkdtemp(dir) != NULL);
    write_spec(spec, n, dir, ms, nk, extra);
    setenv("GDTUNE_WORKER_EXE", self, 1);
}

/* The same at n = k = 256. */
static void start_run(char *dir, char *spec, size_t n, const char *self, const char *ms, const char *extra)
{
    start_run_nk(dir, spec, n, self, ms, "256,256", extra);
}

/* One worker per GPU of the first GPU's model, cells spread across them. */
static void test_gpus(const char *self)
{
    char dir[] = "/tmp/gdt_cli_gpus_XXXXXX", spec[600], args[2048], run[600];
    start_run(dir, spec, sizeof spec, self, "256,512,1024", "");
    setenv("GDT_FAKE_GPUS", "3", 1);
    setenv("GDT_FAKE_ODD", "2", 1);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(args, sizeof args, "gemm --spec %s --out %s --tables-dir %s/t --deadline 1", spec, run, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    CHECK_CONTAINS(out, "GPU 2 left out: another model than GPU 0");
    CHECK_CONTAINS(out, "(sm90), GPUs: 2: 3 cells");
    tally t;
    read_journal(run, &t, 0);
    for (int c = 0; c < 3; c++)
        for (int p = 0; p < 6; p++)
            CHECK_INT(t.results[c][p], ==, 1);
    CHECK(t.gpu[0] >= 6);
    CHECK(t.gpu[1] >= 6);
    CHECK_INT(t.gpu[0] + t.gpu[1], ==, 18);
    /* --gpus 1: one worker, whatever the machine has. */
    snprintf(args, sizeof args, "gemm --spec %s --out %s/one --tables-dir %s/t --deadline 1 --gpus 1",
             spec, dir, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    CHECK(strstr(out, "GPUs:") == NULL);
    unsetenv("GDT_FAKE_GPUS");
    unsetenv("GDT_FAKE_ODD");
    end_run(dir);
}

static bool file_contains(const char *path, const char *what)
{
    static char buf[1 << 20];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return strstr(buf, what) != NULL;
}

/* Racing: plans go in untimed order; no plan has a bar while fewer than
 * three of the cell's are measured in full (it may be one of the top
 * three), nor the first of each engine kind (it may be its kind's best).
 * Here eng1 is incorrect and eng2 fails, so only two verify and nothing is
 * raced; with every plan verifying (GDT_FAKE_ALL_OK: eng0 10 us, eng1 12,
 * ours 8), eng2 comes after three and is raced against the slower of the
 * third best and cuDNN's best (eng1's 12 us); --exhaustive sends no bar;
 * the header records which. */
static void test_racing(const char *self)
{
    char dir[] = "/tmp/gdt_cli_race_XXXXXX", spec[600], args[2048], run[600], journal[700];
    start_run(dir, spec, sizeof spec, self, "256", "");
    snprintf(run, sizeof run, "%s/raced", dir);
    snprintf(args, sizeof args, "gemm --spec %s --out %s --tables-dir %s/t --deadline 1", spec, run, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    CHECK(strstr(out, "race_us") == NULL);
    CHECK(strstr(out, "stand-in: rounds") == NULL); /* off by default */
    snprintf(journal, sizeof journal, "%s/journal.jsonl", run);
    CHECK(file_contains(journal, "\"race\":true}"));
    setenv("GDT_FAKE_ALL_OK", "1", 1);
    snprintf(run, sizeof run, "%s/all", dir);
    snprintf(args, sizeof args, "gemm --spec %s --out %s --tables-dir %s/t --deadline 1", spec, run, dir);
    CHECK_INT(sweep(args), ==, 0); /* nothing incorrect; the fault and hang engines still fail */
    unsetenv("GDT_FAKE_ALL_OK");
    CHECK(strstr(out, "stand-in: engine 0 race_us") == NULL);
    CHECK(strstr(out, "stand-in: engine 1 race_us") == NULL);     /* one measured before it */
    CHECK(strstr(out, "stand-in: engine 20000 race_us") == NULL); /* the first generated plan */
    CHECK_CONTAINS(out, "stand-in: engine 2 race_us 12 race_noise 0.002");
    snprintf(run, sizeof run, "%s/exhaustive", dir);
    snprintf(args, sizeof args, "gemm --spec %s --out %s --tables-dir %s/t --deadline 1 --exhaustive", spec,
             run, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    CHECK(strstr(out, "race_us") == NULL);
    snprintf(journal, sizeof journal, "%s/journal.jsonl", run);
    CHECK(file_contains(journal, "\"race\":false}"));
    unsetenv("GDTUNE_WORKER_EXE");
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);
    CHECK_INT(gdt_test_remove_tree(dir), ==, 0);
}

/* The spec's noise_floor: the stand-in measures 0.2% noise; the tables
 * give every plan at least the floor, the journal keeps what was measured.
 * Ours (8 us) against cuDNN's eng0 (10 us) is a LEAD at the measured
 * noise, within 20% + 20% of it: the tables and summary.md both say TRAIL. */
static void test_noise_floor(const char *self)
{
    char dir[] = "/tmp/gdt_cli_floor_XXXXXX", spec[600], args[2048], path[700];
    start_run(dir, spec, sizeof spec, self, "256", ",\"noise_floor\":0.2");
    snprintf(args, sizeof args, "gemm --spec %s --out %s/run --tables-dir %s/t --deadline 1", spec, dir,
             dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    snprintf(path, sizeof path, "%s/t/sm90/gemm.tuning.json", dir);
    CHECK(file_contains(path, "\"noise\": 0.2"));
    CHECK(!file_contains(path, "\"noise\": 0.002"));
    snprintf(path, sizeof path, "%s/t/sm90/gemm.placement.json", dir);
    CHECK(file_contains(path, "\"decision\": \"TRAIL\""));
    snprintf(path, sizeof path, "%s/run/journal.jsonl", dir);
    CHECK(file_contains(path, "\"noise\":0.002"));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s report %s/run", GDTUNE_EXE, dir);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    snprintf(path, sizeof path, "%s/run/report/summary.md", dir);
    CHECK(file_contains(path, "| TRAIL, within noise |"));
    CHECK(!file_contains(path, "**LEAD**"));
    end_run(dir);
}

/* The first plan of the tables' first cell (ranking order) into name. */
static void first_entry(const char *tuning, char *name, size_t n)
{
    static const char at[] = "{\"plan\": \"";
    CHECK_INT(read_into_out(tuning), ==, 0);
    const char *p = strstr(out, "\"ranking\": [");
    p = p ? strstr(p, at) : NULL;
    p = p ? p + strlen(at) : "";
    snprintf(name, n, "%.*s", (int)strcspn(p, "\""), p);
}

/* Drops the journal's last record, as a sweep killed before writing it
 * leaves it; the lines kept. */
static int drop_last_record(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK_INT(read_into_out(path), ==, 0);
    size_t n = strlen(out), cut = n > 1 ? n - 1 : 0;
    int lines = 0;
    while (cut > 0 && out[cut - 1] != '\n')
        cut--;
    for (size_t i = 0; i < cut; i++)
        lines += out[i] == '\n';
    CHECK_INT(truncate(path, (off_t)cut), ==, 0);
    return lines;
}

/* --rounds: once the cell's plans all have a result, its plans measured in
 * full (ours at 8 us, then eng0 at 10) go to the worker together, fastest
 * first, at the cell's largest burst: the largest its first plan measured
 * in full measured (the stand-in's results have bursts 1 and 4 of the
 * spec's 1, 4, 16 and 64).  The spec's metric_sample_s goes with every plan
 * until then (eng0, the first, verified; then all four bursts are asked
 * no more but the two); the journal keeps the record, the tables
 * rank by it (the stand-in's rounds reverse the two); a resume after a
 * kill before the record runs only the rounds; rounds the worker refuses
 * are journaled with the reason and change nothing in the tables. */
static void test_rounds(const char *self)
{
    char dir[] = "/tmp/gdt_cli_rounds_XXXXXX", spec[600], args[2048], run[600], path[700], first[128];
    start_run(dir, spec, sizeof spec, self, "256", ",\"metric_sample_s\":0.025");
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(args, sizeof args, "gemm --spec %s --out %s --tables-dir %s/t --deadline 1 --rounds 3",
             spec, run, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    CHECK_CONTAINS(out, "stand-in: engine 0 bursts 4 metric_sample_s 0.025\n");
    CHECK_CONTAINS(out, "stand-in: engine 1 bursts 2\n");
    CHECK_CONTAINS(out, "stand-in: rounds 3 bursts 4 plans 20000 0\n");
    CHECK_CONTAINS(out, "gdtune sweep: gemm m=256,n=256,k=256: 3 rounds: gemm.nvrtc[TILE_M=128] 11.00 "
                        "us, cudnn.eng0 9.00 us\n");
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK(file_contains(path, "\"rounds\":3,\"race\":true}"));
    CHECK(file_contains(path, "{\"type\":\"rounds\",\"cell\":0,\"family\":\"gemm\",\"shape\":"));
    CHECK(file_contains(path, "\"plans\":[5,0],\"rounds\":3,\"error\":\"\",\"time_us\":[11,9],"
                              "\"noise\":[0.003,0.003],\"ratios\":[1,0.818182],\"round_us\":[[11,11,11],"
                              "[9,9,9]],\"measure_s\":0.5,\"gpu\":0}"));
    snprintf(path, sizeof path, "%s/t/sm90/gemm.tuning.json", dir);
    first_entry(path, first, sizeof first);
    CHECK_STR(first, "cudnn.eng0");

    int keep = drop_last_record(run);
    snprintf(args, sizeof args, "gemm --resume %s --tables-dir %s/t2 --deadline 1", run, dir);
    CHECK_INT(sweep(args), ==, 4); /* the journal's cudnn.eng1 is incorrect */
    CHECK_CONTAINS(out, "stand-in: rounds 3 bursts 4 plans 20000 0\n"); /* from the journal's results */
    tally t;
    read_journal(run, &t, keep);
    CHECK_INT(t.resumes, ==, 1);
    CHECK_INT(t.rounds, ==, 1);
    for (int p = 0; p < 6; p++)
        CHECK_INT(t.attempts[0][p] + t.results[0][p], ==, 0);
    snprintf(path, sizeof path, "%s/t2/sm90/gemm.tuning.json", dir);
    first_entry(path, first, sizeof first);
    CHECK_STR(first, "cudnn.eng0");

    setenv("GDT_FAKE_ROUNDS_FAIL", "1", 1);
    snprintf(args, sizeof args, "gemm --spec %s --out %s/refused --tables-dir %s/t3 --deadline 1 "
             "--rounds 2", spec, dir, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    CHECK_CONTAINS(out, ": 2 rounds: not measured: stand-in: rounds refused\n");
    snprintf(path, sizeof path, "%s/refused/journal.jsonl", dir);
    CHECK(file_contains(path, "\"plans\":[5,0],\"rounds\":2,\"error\":\"stand-in: rounds refused\","
                              "\"gpu\":0}"));
    snprintf(path, sizeof path, "%s/t3/sm90/gemm.tuning.json", dir);
    first_entry(path, first, sizeof first);
    CHECK_STR(first, "gemm.nvrtc[TILE_M=128]");
    unsetenv("GDT_FAKE_ROUNDS_FAIL");
    end_run(dir);
}

/* The names of the journal's attempts from line from on, each followed by
 * ';', into names. */
static void attempt_names(const char *dir, int from, char *names, size_t n)
{
    char path[PATH_MAX];
    gdt_journal_lines l;
    gdt_error e = {0};
    names[0] = 0;
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    for (int i = from; i < l.n; i++) {
        cJSON *r = cJSON_Parse(l.line[i]);
        size_t k = strlen(names);
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "type")), "attempt"))
            snprintf(names + k, n - k, "%s;", cJSON_GetStringValue(cJSON_GetObjectItem(r, "name")));
        cJSON_Delete(r);
    }
    gdt_journal_lines_free(&l);
}

/* Cuts the journal after its first line containing what; the lines kept. */
static int keep_through(const char *dir, const char *what)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK_INT(read_into_out(path), ==, 0);
    const char *at = strstr(out, what), *end = at ? strchr(at, '\n') : NULL;
    int lines = 0;
    for (const char *p = out; end && p <= end; p++)
        lines += *p == '\n';
    CHECK(end != NULL);
    CHECK_INT(truncate(path, end ? (off_t)(end + 1 - out) : 0), ==, 0);
    return lines;
}

static const char untimed_names[] = "cudnn.eng0;cudnn.eng1;gemm.test_fault;gemm.test_hang;"
                                    "gemm.nvrtc[TILE_M=128];cudnn.eng2;";
/* The stand-in's tables rank ours (8 us) before cudnn.eng0 (10 us). */
static const char prior_names[] = "gemm.nvrtc[TILE_M=128];cudnn.eng0;cudnn.eng1;gemm.test_fault;"
                                  "gemm.test_hang;cudnn.eng2;";

/* Runs `gdtune sweep gemm --spec SPEC --out DIR/run --deadline 1 ARGS`,
 * expecting exit 4 (cudnn.eng1 is incorrect), and checks the attempts'
 * order and that the journal holds what. */
static void prior_run(const char *dir, const char *spec, const char *run, const char *args,
                      const char *order, const char *what)
{
    char cmd[2048], path[PATH_MAX], names[1024];
    snprintf(cmd, sizeof cmd, "gemm --spec %s --out %s/%s --deadline 1 %s", spec, dir, run, args);
    CHECK_INT(sweep(cmd), ==, 4);
    snprintf(path, sizeof path, "%s/%s", dir, run);
    attempt_names(path, 0, names, sizeof names);
    CHECK_STR(names, order);
    snprintf(path, sizeof path, "%s/%s/journal.jsonl", dir, run);
    CHECK(file_contains(path, what));
    if (gdt_test_failures)
        fprintf(stderr, "gdtune sweep %s:\n%s\n", cmd, out);
}

/* A copy of DIR/t's gemm tables in DIR/sub, the tuning file's text with
 * from replaced by to (NULL: as it is) and extra appended. */
static void copy_tables(const char *dir, const char *sub, const char *from, const char *to,
                        const char *extra)
{
    static const char *const names[] = {"gemm.placement.json", "gemm.tuning.json"};
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/sm90", dir, sub);
    char *mk[] = {"mkdir", "-p", path, NULL}, ignored[256];
    CHECK_INT(gdt_test_spawn(mk, NULL, ignored, sizeof ignored), ==, 0);
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/t/sm90/%s", dir, names[i]);
        CHECK_INT(read_into_out(path), ==, 0);
        char *at = i && from ? strstr(out, from) : NULL;
        snprintf(path, sizeof path, "%s/%s/sm90/%s", dir, sub, names[i]);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL && (!i || !from || at));
        if (!f)
            continue;
        if (at)
            fprintf(f, "%.*s%s%s", (int)(at - out), out, to, at + strlen(from));
        else
            fputs(out, f);
        if (i && extra)
            fputs(extra, f);
        fclose(f);
    }
}

/* --prior: no table is untimed order, noted in the header; the tables
 * directory is the default prior, and its ranking (ours first) orders the
 * cell, the first cuDNN plan unraced (the first of its kind), the next too
 * (two measured in full before it); --no-prior is untimed order and null; a malformed table is a warning naming it, and the sweep
 * goes on in untimed order; --resume keeps the header's prior, whatever
 * --tables-dir, and leaves out a table changed since. */
static void test_prior(const char *self)
{
    char dir[] = "/tmp/gdt_cli_prior_XXXXXX", spec[600], args[2048], want[2048], path[700];
    start_run(dir, spec, sizeof spec, self, "256", "");
    snprintf(args, sizeof args, "--tables-dir %s/t", dir);
    snprintf(want, sizeof want, "\"prior\":{\"dir\":\"%s/t\",\"tables\":[{\"family\":\"gemm\","
             "\"path\":\"%s/t/sm90/gemm.tuning.json\",\"note\":\"no table\"}]},\"argv\":[", dir, dir);
    prior_run(dir, spec, "none", args, untimed_names, want);
    CHECK_CONTAINS(out, "gdtune sweep: prior order from ");
    CHECK_CONTAINS(out, "/t: gemm no table\n");

    snprintf(want, sizeof want, "\"prior\":{\"dir\":\"%s/t\",\"tables\":[{\"family\":\"gemm\","
             "\"path\":\"%s/t/sm90/gemm.tuning.json\",\"sha256\":\"", dir, dir);
    prior_run(dir, spec, "default", args, prior_names, want);
    CHECK_CONTAINS(out, "/t: gemm sha256 ");
    CHECK(strstr(out, "stand-in: engine 20000 race_us") == NULL); /* first: no bar */
    CHECK(strstr(out, "stand-in: engine 0 race_us") == NULL);     /* the first cuDNN plan: none */
    CHECK(strstr(out, "stand-in: engine 1 race_us") == NULL); /* two measured before it: no bar */

    snprintf(args, sizeof args, "--tables-dir %s/t --no-prior", dir);
    prior_run(dir, spec, "off", args, untimed_names, "\"prior\":null,\"argv\":[");
    CHECK_CONTAINS(out, "gdtune sweep: no prior order: untimed order\n");

    copy_tables(dir, "bad", "\"gdtune.tuning/1\"", "\"gdtune.tuning/9\"", NULL);
    snprintf(args, sizeof args, "--tables-dir %s/t2 --prior %s/bad", dir, dir);
    prior_run(dir, spec, "bad", args, untimed_names, "\"note\":\"refused: ");
    snprintf(want, sizeof want, "gdtune sweep: warning: prior %s/bad/sm90/gemm.tuning.json refused: "
             "%s/bad/sm90/gemm.tuning.json: /schema: expected \"gdtune.tuning/1\", got "
             "\"gdtune.tuning/9\": another version of gdtune wrote it (the layout differs); emit the tables "
             "again from the journal they come from (gdtune tables emit RUNDIR): the sweep goes on without it",
             dir, dir);
    CHECK_CONTAINS(out, want);

    /* Killed before its first attempt, resumed with another --tables-dir:
     * the header's prior orders what is left. */
    copy_tables(dir, "p", NULL, NULL, NULL);
    snprintf(args, sizeof args, "--tables-dir %s/t3 --prior %s/p", dir, dir);
    prior_run(dir, spec, "resumed", args, prior_names, "\"sha256\":\"");
    snprintf(path, sizeof path, "%s/resumed", dir);
    int keep = keep_through(path, "\"type\":\"plans\"");
    snprintf(args, sizeof args, "gemm --resume %s --tables-dir %s/t4 --deadline 1", path, dir);
    CHECK_INT(sweep(args), ==, 4);
    attempt_names(path, keep, want, sizeof want);
    CHECK_STR(want, prior_names);

    /* The same, with the prior table changed since: left out, said. */
    keep = keep_through(path, "\"type\":\"plans\"");
    copy_tables(dir, "p", NULL, NULL, "\n");
    CHECK_INT(sweep(args), ==, 4);
    attempt_names(path, keep, want, sizeof want);
    CHECK_STR(want, untimed_names);
    CHECK_CONTAINS(out, "/p/sm90/gemm.tuning.json changed since the run started (sha256 ");
    end_run(dir);
}

/* The backend's mode-A heuristic first (cudnn.eng0: tag A, untimed 0) is
 * measured in full wherever the order puts it.  With every plan verifying
 * and eng0 at 13 us, the first sweep's tables rank ours (8), eng2 (11),
 * eng1 (12), eng0; a sweep with them as its prior meets eng0 after three
 * plans measured in full, where racing would give it a bar (12 us). */
static void test_heuristic_head(const char *self)
{
    char dir[] = "/tmp/gdt_cli_head_XXXXXX", spec[600], args[2048], path[700], names[1024];
    start_run(dir, spec, sizeof spec, self, "256", "");
    setenv("GDT_FAKE_ALL_OK", "1", 1);
    setenv("GDT_FAKE_ENG0_US", "13", 1);
    snprintf(args, sizeof args, "gemm --spec %s --out %s/first --tables-dir %s/t --deadline 1 --no-prior",
             spec, dir, dir);
    CHECK_INT(sweep(args), ==, 0);
    snprintf(args, sizeof args, "gemm --spec %s --out %s/second --tables-dir %s/t2 --prior %s/t --deadline 1",
             spec, dir, dir, dir);
    CHECK_INT(sweep(args), ==, 0);
    unsetenv("GDT_FAKE_ALL_OK");
    unsetenv("GDT_FAKE_ENG0_US");
    snprintf(path, sizeof path, "%s/second", dir);
    attempt_names(path, 0, names, sizeof names);
    CHECK_STR(names, "gemm.nvrtc[TILE_M=128];cudnn.eng2;cudnn.eng1;cudnn.eng0;gemm.test_fault;gemm.test_hang;");
    CHECK(strstr(out, "stand-in: engine 0 race_us") == NULL);
    if (gdt_test_failures)
        fprintf(stderr, "%s\n", out);
    end_run(dir);
}

/* `gdtune sweep ARGS...` started, not waited for: its output into the
 * file log; its pid. */
static pid_t sweep_async(const char *run, const char *tables, const char *log)
{
    extern char **environ;
    char *argv[] = {GDTUNE_EXE, "sweep", "gemm", "--resume", (char *)run, "--tables-dir",
                    (char *)tables, "--deadline", "1", NULL};
    posix_spawn_file_actions_t fa;
    pid_t pid = -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    CHECK_INT(posix_spawn(&pid, GDTUNE_EXE, &fa, NULL, argv, environ), ==, 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

/* Two sweeps on one run directory (issue 34 F3): while a resumed sweep
 * runs (held at its worker's hello by a FIFO), a second resume and a new
 * sweep with --out the same folder are refused with exit 2, naming the
 * holder's pid; the first then finishes and its journal has every plan's
 * result exactly once. */
static void test_one_sweep_per_run(const char *self)
{
    char dir[] = "/tmp/gdt_cli_lock_XXXXXX", spec[600], args[2048], run[600], gate[700], log[700];
    char lock[700], want[64];
    start_run(dir, spec, sizeof spec, self, "256,512", "");
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(args, sizeof args, "gemm --spec %s --out %s --tables-dir %s/t --deadline 1", spec, run, dir);
    CHECK_INT(sweep(args), ==, 4); /* cudnn.eng1 is incorrect */
    snprintf(lock, sizeof lock, "%s/gdtune.lock", run);
    struct stat st;
    CHECK(lstat(lock, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    int keep = cut_after_first_result(run);
    snprintf(gate, sizeof gate, "%s/gate", dir);
    snprintf(log, sizeof log, "%s/first.log", dir);
    CHECK_INT(mkfifo(gate, 0600), ==, 0);
    setenv("GDT_FAKE_HELLO_GATE", gate, 1);
    char tables[700];
    snprintf(tables, sizeof tables, "%s/t", dir);
    pid_t first = sweep_async(run, tables, log);
    unsetenv("GDT_FAKE_HELLO_GATE");
    int g = open(gate, O_WRONLY); /* returns once the first sweep's worker is at its hello */
    CHECK(g >= 0);
    snprintf(want, sizeof want, "gdtune sweep pid %ld, host ", (long)first);
    snprintf(args, sizeof args, "gemm --resume %s --tables-dir %s/t --deadline 1", run, dir);
    CHECK_INT(sweep(args), ==, 2);
    CHECK_CONTAINS(out, "is in use: ");
    CHECK_CONTAINS(out, want);
    CHECK_CONTAINS(out, "two sweeps appending to one journal would ruin it: wait for it to end");
    snprintf(args, sizeof args, "gemm --spec %s --out %s --tables-dir %s/t --deadline 1", spec, run, dir);
    CHECK_INT(sweep(args), ==, 2);
    CHECK_CONTAINS(out, want);
    close(g);
    int status = 0;
    CHECK_INT(waitpid(first, &status, 0), ==, first);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4);
    tally t;
    read_journal(run, &t, keep);
    CHECK_INT(t.resumes, ==, 1);
    read_journal(run, &t, 0);
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 6; p++)
            CHECK_INT(t.results[c][p], ==, 1);
    snprintf(args, sizeof args, "%s tables emit %s --tables-dir %s/te", GDTUNE_EXE, run, dir);
    CHECK_INT(gdt_test_run(args, out, sizeof out), ==, 0);
    /* the lock is released with its holder: a resume now goes ahead */
    snprintf(args, sizeof args, "gemm --resume %s --tables-dir %s/t --deadline 1", run, dir);
    CHECK_INT(sweep(args), ==, 4);
    if (gdt_test_failures)
        read_into_out(log);
    end_run(dir);
}

static int journal_lines(const char *dir)
{
    char path[PATH_MAX];
    gdt_journal_lines l;
    gdt_error e = {0};
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK_INT(gdt_journal_read(path, &l, &e), ==, GDT_STATUS_OK);
    int n = l.n;
    gdt_journal_lines_free(&l);
    return n;
}

/* `gdtune VERB RUN ARGS` (ARGS: "" or more after the run directory): its
 * exit status, its output into out. */
static int verb_on(const char *verb, const char *run, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s %s %s", GDTUNE_EXE, verb, run, args);
    return gdt_test_run(cmd, out, sizeof out);
}

/* The clock outlier of a sweep: ours measured at 1200 MHz (13 us) against
 * the cell's 1500, then measured again at 1500 (8 us).  Both results are in
 * the journal, the second marked; the tables, `tables emit`, `report` and
 * `compare` take the second (ours first, 8 us, where the first series would
 * rank it last behind eng0's 10 us). */
static void check_outlier_run(const char *run, const char *dir)
{
    char path[700], first[128], args[1024];
    tally t;
    read_journal(run, &t, 0);
    for (int p = 0; p < 6; p++)
        CHECK_INT(t.results[0][p], ==, p == 5 ? 2 : 1);
    snprintf(path, sizeof path, "%s/journal.jsonl", run);
    CHECK(file_contains(path, "\"time_us\":13,"));
    CHECK(file_contains(path, "\"name\":\"gemm.nvrtc[TILE_M=128]\",\"gpu\":0,\"clock_outlier\":"
                              "{\"first_mhz\":1200,\"cell_mhz\":1500,\"limit\":0.9,\"counts\":true}}"));
    snprintf(path, sizeof path, "%s/t/sm90/gemm.tuning.json", dir);
    first_entry(path, first, sizeof first);
    CHECK_STR(first, "gemm.nvrtc[TILE_M=128]");
    CHECK(file_contains(path, "\"time_us\": 8,"));
    CHECK(!file_contains(path, "\"time_us\": 13,"));
    snprintf(args, sizeof args, "%s/emitted", dir);
    char *emit[] = {GDTUNE_EXE, "tables", "emit", (char *)run, "--tables-dir", args, NULL};
    CHECK_INT(run_and_compare(emit, dir, "emitted"), ==, 0);
    CHECK_INT(verb_on("report", run, ""), ==, 0);
    CHECK_INT(verb_on("compare", run, ""), ==, 0);
    CHECK_CONTAINS(out, "  generated: gemm.nvrtc[TILE_M=128]\n    8.000 us, ");
}

/* --rounds in a compute-bound cell (m = n = k = 4096) takes its plans by
 * the tables' figures, each metric series at the cell's clock: with every
 * plan verifying (eng0 10 us, eng1 12, ours 8, at 1500 MHz), eng2, raced
 * out late at 10.5 us and 1400 MHz (GDT_FAKE_LATE), is 9.8 us at the
 * cell's clock, second: it joins ours and eng0 in the rounds, and eng1 stays
 * out.  By the plans measured in full alone the rounds would take ours, eng0
 * and eng1, and eng2's place in the tables, ahead of eng0, would rest on its
 * own series alone. */
static void test_rounds_late(const char *self)
{
    char dir[] = "/tmp/gdt_cli_rounds_late_XXXXXX", spec[600], args[2048];
    start_run_nk(dir, spec, sizeof spec, self, "4096", "4096,4096", "");
    setenv("GDT_FAKE_ALL_OK", "1", 1);
    setenv("GDT_FAKE_LATE", "1", 1);
    snprintf(args, sizeof args, "gemm --spec %s --out %s/run --tables-dir %s/t --deadline 1 --rounds 2",
             spec, dir, dir);
    CHECK_INT(sweep(args), ==, 0);
    CHECK_CONTAINS(out, "stand-in: rounds 2 bursts 4 plans 20000 2 0\n");
    /* Rounds 4 us slower all round (15, 15, 13 us): their order stands, at
     * the level of their plans' own figures, so eng1 (12 us, outside them,
     * slower than the three in its own series) stays behind eng0. */
    setenv("GDT_FAKE_ROUNDS_PLUS", "4", 1);
    snprintf(args, sizeof args, "gemm --spec %s --out %s/hot --tables-dir %s/t2 --deadline 1 --rounds 2",
             spec, dir, dir);
    CHECK_INT(sweep(args), ==, 0);
    char path[700], first[128];
    snprintf(path, sizeof path, "%s/t2/sm90/gemm.tuning.json", dir);
    first_entry(path, first, sizeof first);
    CHECK_STR(first, "cudnn.eng0");
    unsetenv("GDT_FAKE_ROUNDS_PLUS");
    unsetenv("GDT_FAKE_ALL_OK");
    unsetenv("GDT_FAKE_LATE");
    end_run(dir);
}

/* A plan whose series ran at 0.8 of its cell's clock is measured again,
 * after the cell's last plan and without racing against its own first
 * series; a resume after a kill before the re-measure's result measures it
 * again, and a resume of the whole journal measures nothing. */
static void test_clock_outlier(const char *self)
{
    char dir[] = "/tmp/gdt_cli_clock_XXXXXX", spec[600], args[2048], run[600], mark[700];
    start_run(dir, spec, sizeof spec, self, "256", "");
    setenv("GDT_FAKE_ALL_OK", "1", 1);
    snprintf(mark, sizeof mark, "%s/slow-once", dir);
    setenv("GDT_FAKE_CLOCK_MARK", mark, 1);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(args, sizeof args, "gemm --spec %s --out %s --tables-dir %s/t --deadline 1", spec, run, dir);
    CHECK_INT(sweep(args), ==, 0);
    CHECK_CONTAINS(out, "gdtune sweep: gemm m=256,n=256,k=256: gemm.nvrtc[TILE_M=128] re-measured, its "
                        "first series at 1200 MHz under 0.90 of the cell's 1500 MHz; again 8.00 us at "
                        "1500 MHz: the re-measure counts\n");
    CHECK_CONTAINS(out, "stand-in: engine 2 race_us 13 "); /* ours' first series: a looser bar */
    CHECK(strstr(out, "stand-in: engine 20000 race_us") == NULL); /* its kind has nothing else */
    check_outlier_run(run, dir);

    int keep = drop_last_record(run);
    snprintf(args, sizeof args, "gemm --resume %s --tables-dir %s/t --deadline 1", run, dir);
    CHECK_INT(sweep(args), ==, 0);
    CHECK_CONTAINS(out, "gemm.nvrtc[TILE_M=128] re-measured");
    tally t;
    read_journal(run, &t, keep);
    CHECK_INT(t.attempts[0][5], ==, 1);
    CHECK_INT(t.results[0][5], ==, 1);
    check_outlier_run(run, dir);

    keep = journal_lines(run);
    CHECK_INT(sweep(args), ==, 0);
    CHECK(strstr(out, "re-measured") == NULL);
    read_journal(run, &t, keep);
    for (int p = 0; p < 6; p++)
        CHECK_INT(t.attempts[0][p] + t.results[0][p], ==, 0);
    unsetenv("GDT_FAKE_ALL_OK");
    unsetenv("GDT_FAKE_CLOCK_MARK");
    end_run(dir);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "worker"))
        return fake_worker();
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    if (access(GDTUNE_EXE, X_OK) != 0) {
        fprintf(stderr, "test_cli_sweep: %s is not built\n", GDTUNE_EXE);
        return 1;
    }
    test_usage();
    test_no_device();
    test_worker_protocol();
    test_compile_only();
    test_run_loop(self);
    test_gpus(self);
    test_racing(self);
    test_noise_floor(self);
    test_heuristic_head(self);
    test_rounds(self);
    test_rounds_late(self);
    test_prior(self);
    test_one_sweep_per_run(self);
    test_clock_outlier(self);
    return gdt_test_result("test_cli_sweep");
}
