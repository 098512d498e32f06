/* The verbs' argument checks, each as a spawned gdtune (no shell): a bad
 * argument exits 2 with a message naming the option, the offending item and
 * what was expected, before any device is asked and before anything is
 * measured.  Sweep lists refuse empty and padded items; an unusable tables
 * directory is refused up front (the run loop against a stand-in worker,
 * this executable run as `test_cli_args worker`, proves nothing is
 * measured); `bench --plan` is judged without a device; `gdtune worker`
 * refuses arguments, and refuses plan and cell requests whose fields lie
 * outside the ranges the command line takes. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_test.h"

static char out[65536];

/* ------------------------------------------------------------ helpers */

/* gdtune with up to 12 arguments (NULL-terminated), stdin from `in`. */
static int gdtune(const char *in, const char *const *args)
{
    char *argv[16] = {(char *)gdt_test_exe()};
    for (int i = 0; args[i] && i < 14; i++)
        argv[i + 1] = (char *)args[i];
    return gdt_test_spawn(argv, in, out, sizeof out);
}

typedef struct expect {
    const char *args[12];
    int rc;
    const char *msg;
} expect;

static void check_cases(const expect *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = gdtune(NULL, c[i].args);
        if (rc != c[i].rc || !strstr(out, c[i].msg)) {
            fprintf(stderr, "gdtune");
            for (int k = 0; c[i].args[k]; k++)
                fprintf(stderr, " '%s'", c[i].args[k]);
            fprintf(stderr, ":\n%s\n", out);
        }
        CHECK_INT(rc, ==, c[i].rc);
        CHECK_CONTAINS(out, c[i].msg);
        CHECK(strstr(out, "no CUDA device") == NULL); /* judged before any device */
    }
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *x; d && (x = readdir(d));)
        n += strcmp(x->d_name, ".") && strcmp(x->d_name, "..");
    if (d)
        closedir(d);
    return d ? n : -1;
}

/* A directory this process cannot create files in: a 0555 one, unless we
 * are root (who writes there anyway); then sysfs, which takes no files. */
static const char *unwritable_dir(const char *scratch, char *buf, size_t n)
{
    static const char *const fallbacks[] = {"/sys", "/proc"};
    char probe[PATH_MAX + 64];
    snprintf(buf, n, "%s/ro", scratch);
    CHECK_INT(mkdir(buf, 0555), ==, 0);
    for (size_t i = 0; i <= sizeof fallbacks / sizeof *fallbacks; i++) {
        const char *d = i ? fallbacks[i - 1] : buf;
        snprintf(probe, sizeof probe, "%s/.test_cli_args_%ld", d, (long)getpid());
        int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
        if (fd < 0)
            return d;
        close(fd);
        unlink(probe);
    }
    CHECK(!"no unwritable directory found for the --tables-dir check");
    return buf;
}

/* ------------------------------------------------------------- sweep */

/* Every list item is a size: empty or padded items are refused, naming the
 * option, the item and what was expected.  --spec names a file that does
 * not exist, so that a list wrongly taken stops there, not on a GPU. */
static void test_sweep_lists(void)
{
    static const expect cases[] = {
        {{"sweep", "gemm", "--bursts", "1,,2", "--spec", "/nonexistent.json", NULL}, 2,
         "--bursts: bad value \"1,,2\": item 2 is empty (expected comma-separated increasing sizes "
         "in 1..4096, at most 8)"},
        {{"sweep", "gemm", "--bursts", "1,2,", "--spec", "/nonexistent.json", NULL}, 2,
         "--bursts: bad value \"1,2,\": item 3 is empty (expected"},
        {{"sweep", "gemm", "--bursts", ",1", "--spec", "/nonexistent.json", NULL}, 2,
         "--bursts: bad value \",1\": item 1 is empty (expected"},
        {{"sweep", "gemm", "--bursts", "1, 2", "--spec", "/nonexistent.json", NULL}, 2,
         "--bursts: bad value \"1, 2\": item 2 \" 2\" is not a size in 1..4096 (expected"},
        {{"sweep", "gemm", "--bursts", "1,2,3,4,5,6,7,8,9", "--spec", "/nonexistent.json", NULL}, 2,
         "item 9 is one size too many"},
        {{"sweep", "gemm", "--shard", " 1/2", "--spec", "/nonexistent.json", NULL}, 2,
         "--shard: bad value \" 1/2\": expected I/N with 0 <= I < N <= 100000"},
        {{"sweep", "gemm", "--shard", "0/100001", "--spec", "/nonexistent.json", NULL}, 2,
         "--shard: bad value \"0/100001\""},
        {{"sweep", "gemm", "--gpus", " 2", "--spec", "/nonexistent.json", NULL}, 2,
         "--gpus: bad value \" 2\": expected an integer in 1..16"},
        {{"sweep", "gemm", "--deadline", "0.5", "--spec", "/nonexistent.json", NULL}, 2,
         "--deadline: bad value \"0.5\": expected a number in [1, 86400]"},
    };
    check_cases(cases, sizeof cases / sizeof *cases);
}

/* --tables-dir and --out that cannot be used are bad usage (2), found
 * before the sweep starts (--spec names no file, so that a sweep wrongly
 * started stops there); a missing tables directory is created and the
 * probe leaves nothing in it. */
static void test_sweep_dirs(const char *scratch)
{
    char file[PATH_MAX], fresh[PATH_MAX], under[PATH_MAX];
    snprintf(file, sizeof file, "%s/a_file", scratch);
    snprintf(fresh, sizeof fresh, "%s/fresh/tables", scratch);
    snprintf(under, sizeof under, "%s/a_file/sub", scratch);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    char msg_file[PATH_MAX + 64], msg_under[PATH_MAX + 64], msg_out[PATH_MAX + 64];
    snprintf(msg_file, sizeof msg_file, "--tables-dir %s: Not a directory", file);
    snprintf(msg_under, sizeof msg_under, "--tables-dir %s: Not a directory", under);
    snprintf(msg_out, sizeof msg_out, "--out %s: Not a directory", file);
    const expect cases[] = {
        {{"sweep", "gemm", "--tables-dir", file, "--spec", "/nonexistent.json", NULL}, 2, msg_file},
        {{"sweep", "gemm", "--tables-dir", under, "--spec", "/nonexistent.json", NULL}, 2, msg_under},
        {{"sweep", "gemm", "--out", file, "--tables-dir", fresh, "--spec", "/nonexistent.json", NULL}, 2,
         msg_out},
        {{"merge", "/nonexistent/run", "--tables-dir", file, NULL}, 2, msg_file},
        {{"tables", "emit", "/nonexistent/run", "--tables-dir", file, NULL}, 2, msg_file},
        {{"tables", "emit", "/nonexistent/run", "--tables-dir", NULL}, 2,
         "gdtune tables emit: --tables-dir needs a value"},
        /* Created when missing, then the spec is refused: the probe's file is gone. */
        {{"sweep", "gemm", "--tables-dir", fresh, "--spec", "/nonexistent.json", NULL}, 2,
         "--spec: /nonexistent.json"},
    };
    check_cases(cases, sizeof cases / sizeof *cases);
    CHECK_INT(entries(fresh), ==, 0);
}

/* A tables directory the sweep cannot write: refused before the worker
 * measures anything (no result in the journal, or no journal). */
static void test_sweep_unwritable(const char *self, const char *scratch)
{
    char ro[PATH_MAX], run[PATH_MAX], journal[PATH_MAX + 16], msg[PATH_MAX + 64];
    const char *dir = unwritable_dir(scratch, ro, sizeof ro);
    snprintf(run, sizeof run, "%s/run", scratch);
    snprintf(journal, sizeof journal, "%s/journal.jsonl", run);
    snprintf(msg, sizeof msg, "gdtune sweep: --tables-dir %s: cannot write there: ", dir);
    setenv("GDTUNE_WORKER_EXE", self, 1);
    const char *args[] = {"sweep", "gemm", "--spec", GDT_TEST_DATA "/sweeps/one_gemm.json", "--out", run,
                          "--tables-dir", dir, "--deadline", "5", NULL};
    int rc = gdtune(NULL, args);
    unsetenv("GDTUNE_WORKER_EXE");
    if (rc != 2)
        fprintf(stderr, "sweep --tables-dir %s:\n%s\n", dir, out);
    CHECK_INT(rc, ==, 2);
    CHECK_CONTAINS(out, msg);
    CHECK_CONTAINS(out, "(expected a writable directory)");
    char *text = NULL;
    size_t cap = 0;
    FILE *j = fopen(journal, "r");
    bool result = false;
    while (j && getline(&text, &cap, j) > 0)
        result |= strstr(text, "\"type\":\"result\"") != NULL;
    if (j)
        fclose(j);
    free(text);
    CHECK(!result);
}

/* ------------------------------------------------------ bench, plans */

static void test_bench_plans(void)
{
    static const expect cases[] = {
        {{"bench", "gemm", "--plan", "gemm.nvrtc[TILE_M=99999999999]", NULL}, 2,
         "--plan: plan name \"gemm.nvrtc[TILE_M=99999999999]\": knob TILE_M=99999999999: expected "
         "one of 16, 32, 64, 128, 256"},
        {{"bench", "gemm", "--plan", "gemm.nvrtc[KERNEL_CFG=3]", NULL}, 2,
         "knob KERNEL_CFG is not a column of the contraction rows (expected one of TILE_M, TILE_N"},
        {{"bench", "gemm", "--plan", "sdpa_fwd.nvrtc[TILE_M=64]", NULL}, 2,
         "sdpa_fwd.nvrtc is an engine of sdpa_fwd, not of gemm"},
        {{"bench", "gemm", "--plan", "engine29999", NULL}, 2, "no engine has id 29999"},
        {{"bench", "gemm", "--bursts", "1, 2", NULL}, 2,
         "--bursts: bad value \"1, 2\": item 2 \" 2\" is not a size in 1..4096 (expected comma-separated "
         "increasing sizes in 1..4096, at most 8)"},
        {{"bench", "gemm", "--bursts", "1,,2", NULL}, 2, "--bursts: bad value \"1,,2\": item 2 is empty"},
        {{"bench", "gemm", "--seed", "1.5", NULL}, 2,
         "--seed: bad value \"1.5\": expected an integer in 1..1000000000000000"},
        {{"bench", "gemm", "--max-seconds", " 1", NULL}, 2,
         "--max-seconds: bad value \" 1\": expected a number in [0.01, 3600]"},
        {{"plans", "gemm", "--tables", GDT_TEST_DATA "/sweeps/one_gemm.json", NULL}, 2,
         "--tables " GDT_TEST_DATA "/sweeps/one_gemm.json: Not a directory"},
    };
    check_cases(cases, sizeof cases / sizeof *cases);
}

/* ------------------------------------------------------------ worker */

static void test_worker_args(void)
{
    static const expect cases[] = {
        {{"worker", "--bogus", NULL}, 2, "gdtune worker: unexpected argument '--bogus' (it takes none)\n"
                                         "usage: gdtune worker"},
    };
    check_cases(cases, sizeof cases / sizeof *cases);
}

/* Each bad request is answered with the error reply (nothing measured, no
 * "plan before cell" disposition), and the worker goes on. */
static void test_worker_requests(const char *scratch)
{
    static const char requests[] =
        "{\"op\":\"hello\"}\n"
        "{\"op\":\"plan\",\"plan\":{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{}},\"bursts\":[0,-4]}\n"
        "{\"op\":\"plan\",\"plan\":{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{}},\"bursts\":[1e12]}\n"
        "{\"op\":\"plan\",\"plan\":{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{}},\"bursts\":[4,1]}\n"
        "{\"op\":\"plan\",\"plan\":{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{}},\"target_rel\":99}\n"
        "{\"op\":\"plan\",\"plan\":{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{}},\"max_seconds\":-1}\n"
        "{\"op\":\"plan\",\"plan\":{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{}},\"bursts\":[]}\n"
        "{\"op\":\"plan\",\"plan\":{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{}},\"metric_sample_s\":11}\n"
        "{\"op\":\"cell\",\"family\":\"gemm\",\"problem\":\"m=64\",\"knob_cap\":1e12}\n"
        "{\"op\":\"cell\",\"family\":\"gemm\",\"problem\":\"m=64\",\"build_threads\":65}\n"
        "{\"op\":\"cell\",\"family\":\"gemm\",\"problem\":\"m=64\",\"build_threads\":\"8\"}\n"
        "{\"op\":\"plan\",\"plan\":{\"plan\":\"cudnn.eng0\",\"engine_id\":0,\"knobs\":{}},\"target_rell\":0.005}\n"
        "{\"op\":\"quit\"}\n";
    static const char *const replies[] = {
        "{\"op\":\"error\",\"status\":\"BAD_INPUT\",\"error\":\"worker request: /bursts/0: expected "
        "increasing burst sizes in 1..4096, got 0\"}\n",
        "{\"op\":\"error\",\"status\":\"BAD_INPUT\",\"error\":\"worker request: /bursts/0: expected "
        "increasing burst sizes in 1..4096, got 1000000000000\"}\n",
        "\"error\":\"worker request: /bursts/1: expected increasing burst sizes in 1..4096, got 1\"}\n",
        "\"error\":\"worker request: /target_rel: expected a number in [1e-05, 0.5], got 99\"}\n",
        "\"error\":\"worker request: /max_seconds: expected a number in [0.01, 3600], got -1\"}\n",
        "\"error\":\"worker request: /bursts: expected an array of 1 to 8 burst sizes, got array of 0\"}\n",
        "\"error\":\"worker request: /metric_sample_s: expected a number in [0, 10], got 11\"}\n",
        "\"error\":\"worker request: /knob_cap: expected an integer in [0, 1000], got 1000000000000\"",
        "\"error\":\"worker request: /build_threads: expected an integer in [0, 64], got 65\"",
        "\"error\":\"worker request: /build_threads: expected an integer, got string",
        "\"error\":\"worker request: /target_rell: unknown field \\\"target_rell\\\"\"}\n",
    };
    char in[PATH_MAX];
    snprintf(in, sizeof in, "%s/requests.jsonl", scratch);
    int fd = open(in, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    CHECK(fd >= 0 && write(fd, requests, sizeof requests - 1) == (ssize_t)(sizeof requests - 1));
    if (fd >= 0)
        close(fd);
    const char *args[] = {"worker", NULL};
    CHECK_INT(gdtune(in, args), ==, 0);
    for (size_t i = 0; i < sizeof replies / sizeof *replies; i++)
        CHECK_CONTAINS(out, replies[i]);
    CHECK(strstr(out, "plan before cell") == NULL);
    CHECK(strstr(out, "\"disposition\"") == NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "worker"))
        return gdt_test_one_plan_worker(0.01, false);
    char self[PATH_MAX], scratch[] = "/tmp/gdt_cli_args_XXXXXX";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    if (access(gdt_test_exe(), X_OK) != 0 || !mkdtemp(scratch)) {
        fprintf(stderr, "test_cli_args: %s is not built, or no scratch directory\n", gdt_test_exe());
        return 1;
    }
    test_sweep_lists();
    test_sweep_dirs(scratch);
    test_sweep_unwritable(self, scratch);
    test_bench_plans();
    test_worker_args();
    test_worker_requests(scratch);
    CHECK_INT(gdt_test_remove_tree(scratch), ==, 0);
    return gdt_test_result("test_cli_args");
}
