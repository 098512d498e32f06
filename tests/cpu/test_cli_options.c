/* The one option parser (cli/cli_options.c): in process, each kind
 * stores what it should and refuses what it should; spawned, every verb
 * answers with the same message shape, bench's --bursts and --target have
 * the sweep's ranges (4096, [1e-5, 0.5]) and say so in --help, a repeated
 * --shape merges distinct keys and refuses one key with two values, and
 * `gdtune -V` / `--version` print the version and the source digest. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gdt_cli_options.h"
#include "gdt_test.h"
#include "gdt_util.h"

static char out[1 << 17];

/* ------------------------------------------------------- in process */

typedef struct toy {
    bool flag;
    int n, bursts[GDT_MAX_BURSTS], nbursts, format;
    long long big;
    double x;
    const char *s;
    char shape[32];
} toy;

static const gdt_cli_option toy_options[] = {
    {"--flag", NULL, GDT_CLI_FLAG, offsetof(toy, flag), .help = "a flag"},
    {"--n", "-n", GDT_CLI_INT, offsetof(toy, n), .lo = 1, .hi = 16, .def = "3", .metavar = "N", .help = "n"},
    {"--big", NULL, GDT_CLI_INT64, offsetof(toy, big), .lo = 1, .hi = 1e15, .metavar = "N", .help = "big"},
    {"--x", NULL, GDT_CLI_DOUBLE, offsetof(toy, x), .lo = 0.5, .hi = 2, .metavar = "X", .help = "x"},
    {"--s", NULL, GDT_CLI_STRING, offsetof(toy, s), .metavar = "S", .help = "s"},
    GDT_CLI_OPT_BURSTS(toy, bursts, nbursts, ""),
    GDT_CLI_OPT_SHAPE(toy, shape, "shape"),
    GDT_CLI_OPT_FORMAT(toy, format),
};
static const gdt_cli_spec toy_spec = {"toy", "usage: toy\n", NULL, toy_options, GDT_CLI_NOPTS(toy_options)};

/* Parses a NULL-terminated argument list; returns gdt_cli_parse's code. */
static int parse(toy *t, const char **pos, int *npos, const char *const *args)
{
    char *argv[16] = {"toy"};
    int argc = 1;
    while (args[argc - 1] && argc < 15)
        argv[argc] = (char *)args[argc - 1], argc++;
    memset(t, 0, sizeof *t);
    return gdt_cli_parse(&toy_spec, argc, argv, t, pos, 1, npos);
}

static void test_kinds(void)
{
    toy t;
    const char *pos = NULL;
    int npos;
    const char *ok[] = {"--flag", "-n", "16", "--big=1000000000000000", "--x", "0.5", "--s", "-v",
                        "--bursts", "1,8,4096", "--format=json", "FILE", NULL};
    CHECK_INT(parse(&t, &pos, &npos, ok), ==, -1);
    CHECK(t.flag);
    CHECK_INT(t.n, ==, 16);
    CHECK_INT(t.big, ==, 1000000000000000LL);
    CHECK_NEAR(t.x, 0.5, 0);
    CHECK_STR(t.s, "-v"); /* a value may start with '-' */
    CHECK_INT(t.nbursts, ==, 3);
    CHECK_INT(t.bursts[2], ==, 4096);
    CHECK_INT(t.format, ==, GDT_CLI_FORMAT_JSON);
    CHECK_INT(npos, ==, 1);
    CHECK_STR(pos, "FILE");

    const char *none[] = {NULL};
    CHECK_INT(parse(&t, &pos, &npos, none), ==, -1);
    CHECK_INT(t.n, ==, 3);                       /* the table's default */
    CHECK_INT(t.format, ==, GDT_CLI_FORMAT_TEXT);
    CHECK_INT(npos, ==, 0);

    static const char *const bad[][5] = {
        {"-n", "17"}, {"-n", " 2"}, {"-n", "2x"}, {"--big", "0"}, {"--x", "2.5"}, {"--x", "nan"},
        {"--bursts", "4097"}, {"--bursts", "4,1"}, {"--bursts", "1,,2"}, {"--bursts", "1,2,3,4,5,6,7,8,9"},
        {"--format", "xml"}, {"--flag=1"}, {"--s"}, {"--nope"}, {"A", "B"}, {"--shape", "m=1", "--shape", "m=2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = parse(&t, &pos, &npos, bad[i]);
        if (rc != 2)
            fprintf(stderr, "toy %s %s: accepted\n", bad[i][0], bad[i][1] ? bad[i][1] : "");
        CHECK_INT(rc, ==, 2);
    }
}

static void test_keyvals(void)
{
    toy t;
    const char *pos;
    int npos;
    const char *merge[] = {"--shape", "m=1,n=2", "--shape=k=3", "--shape", "m=1", NULL};
    CHECK_INT(parse(&t, &pos, &npos, merge), ==, -1);
    CHECK_STR(t.shape, "m=1,n=2,k=3");
    const char *clash[] = {"--shape", "m=1,n=2", "--shape", "n=20", NULL};
    CHECK_INT(parse(&t, &pos, &npos, clash), ==, 2);
    const char *prefix[] = {"--shape", "m=1", "--shape", "mm=1", NULL}; /* keys compare whole */
    CHECK_INT(parse(&t, &pos, &npos, prefix), ==, -1);
    CHECK_STR(t.shape, "m=1,mm=1");
    const char *full[] = {"--shape", "m=1234567890", "--shape", "n=1234567890", "--shape", "k=1234567890", NULL};
    CHECK_INT(parse(&t, &pos, &npos, full), ==, 2); /* 32 bytes: refused, not cut */
}

/* ------------------------------------------------------------ spawned */

static int gdtune(const char *const *args)
{
    char *argv[16] = {(char *)gdt_test_exe()};
    for (int i = 0; args[i] && i < 14; i++)
        argv[i + 1] = (char *)args[i];
    return gdt_test_spawn(argv, NULL, out, sizeof out);
}

typedef struct expect {
    const char *args[10];
    int rc;
    const char *msg;
} expect;

static void check_cases(const expect *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = gdtune(c[i].args);
        if (rc != c[i].rc || !strstr(out, c[i].msg)) {
            fprintf(stderr, "gdtune");
            for (int k = 0; c[i].args[k]; k++)
                fprintf(stderr, " '%s'", c[i].args[k]);
            fprintf(stderr, " -> %d:\n%s\n", rc, out);
        }
        CHECK_INT(rc, ==, c[i].rc);
        CHECK_CONTAINS(out, c[i].msg);
    }
}

#define BURSTS_EMPTY "--bursts: bad value \"1,,2\": item 2 is empty (expected comma-separated increasing " \
                     "sizes in 1..4096, at most 8)"

static void test_one_range(void)
{
    static const expect cases[] = {
        /* bench took up to 100000 before; now the sweep's limit. */
        {{"bench", "gemm", "--bursts", "8192", NULL}, 2,
         "gdtune bench: --bursts: bad value \"8192\": item 1 \"8192\" is not a size in 1..4096"},
        {{"bench", "gemm", "--bursts", "4,1", NULL}, 2, "item 2 \"1\" is not above the size before it"},
        {{"bench", "gemm", "--bursts", "1,,2", NULL}, 2, "gdtune bench: " BURSTS_EMPTY},
        {{"sweep", "gemm", "--bursts", "1,,2", NULL}, 2, "gdtune sweep: " BURSTS_EMPTY},
        {{"bench", "gemm", "--target", "0.9", NULL}, 2,
         "gdtune bench: --target: bad value \"0.9\": expected a number in [1e-05, 0.5]"},
        {{"sweep", "gemm", "--target-rel", "0.9", NULL}, 2,
         "gdtune sweep: --target-rel: bad value \"0.9\": expected a number in [1e-05, 0.5]"},
        {{"bench", "gemm", "--max-plan-seconds", "0", NULL}, 2,
         "gdtune bench: --max-plan-seconds: bad value \"0\": expected a number in [0.01, 3600]"},
        {{"bench", "--help", NULL}, 0, "--bursts LIST          burst sizes, increasing, in 1..4096, at most 8"},
        {{"sweep", "--help", NULL}, 0, "--bursts LIST          burst sizes, increasing, in 1..4096, at most 8"},
    };
    check_cases(cases, sizeof cases / sizeof *cases);
}

static void test_one_message(void)
{
    static const expect cases[] = {
#define UNKNOWN(verb) "gdtune " verb ": unknown option '--bogus' (see gdtune " verb " --help)"
        {{"candidates", "gemm", "--bogus", NULL}, 2, UNKNOWN("candidates")},
        {{"plans", "gemm", "--bogus", NULL}, 2, UNKNOWN("plans")},
        {{"sweep", "gemm", "--bogus", NULL}, 2, UNKNOWN("sweep")},
        {{"bench", "gemm", "--bogus", NULL}, 2, UNKNOWN("bench")},
        {{"report", "/nonexistent/run", "--bogus", NULL}, 2, UNKNOWN("report")},
#undef UNKNOWN
        {{"tables", "check", "--bogus", NULL}, 2, "gdtune tables check: unknown option '--bogus'"},
        {{"merge", "run", "--bogus", NULL}, 2, "gdtune merge: unknown option '--bogus'"},
        {{"--bogus", NULL}, 2, "gdtune: unknown option '--bogus' (see gdtune --help)"},
        {{"sweep", "gemm", "--quick=1", NULL}, 2, "gdtune sweep: --quick takes no value, got \"1\""},
        {{"plans", "gemm", "--format", "xml", NULL}, 2,
         "gdtune plans: --format: bad value \"xml\": expected one of text, json"},
        {{"report", "--format", NULL}, 2, "gdtune report: --format needs a value (expected text|json|csv)"},
        {{"report", "a", "b", NULL}, 2, "gdtune report: unexpected argument 'b'"},
    };
    check_cases(cases, sizeof cases / sizeof *cases);
}

static void test_repeated_shape(void)
{
    static const expect cases[] = {
        {{"candidates", "gemm", "--shape", "m=48", "--shape", "m=64", NULL}, 2,
         "gdtune candidates: --shape: bad value \"m=64\": key \"m\" given twice, as \"m=48\" and \"m=64\" "
         "(expected each key once, or with the same value)"},
        {{"plans", "gemm", "--shape", "m=48,n=64", "--shape", "n=128", NULL}, 2,
         "key \"n\" given twice, as \"n=64\" and \"n=128\""},
        {{"bench", "gemm", "--shape", "k=32", "--shape=k=64", NULL}, 2, "key \"k\" given twice"},
        {{"candidates", "gemm", "--shape", "m=48", "--shape", "n=64,k=32", "--shape", "m=48", NULL}, 0,
         "gemm:b1,m48,n64,k32,bf16,a=row,b=row on sm90"},
        {{"plans", "gemm", "--shape", "m=48", "--shape", "n=64", "--tables", GDT_TEST_DATA "/no-such-tables", NULL}, 0,
         "gemm:b1,m48,n64,k4096,bf16,a=row,b=row on sm"},
    };
    check_cases(cases, sizeof cases / sizeof *cases);
}

/* A folder option refuses "" and the root however spelled, in every verb
 * (issue 34 F4: `nightly --root ''` wrote /runs, /staging, ...). */
static void test_folders(void)
{
    static const char *const bad[] = {"", "/", "//", "/.", "/tmp/..", "/./../"};
    static const char *const good[] = {"tables", "/tmp", "./x", "/tmp/a..b", "..."};
    char why[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bool ok = gdt_cli_dir_check(bad[i], why, sizeof why);
        if (ok) fprintf(stderr, "folder \"%s\": accepted\n", bad[i]);
        CHECK(!ok);
    }
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        bool ok = gdt_cli_dir_check(good[i], why, sizeof why);
        if (!ok) fprintf(stderr, "folder \"%s\": %s\n", good[i], why);
        CHECK(ok);
    }
    static const expect cases[] = {
        {{"nightly", "--root", "", NULL}, 2,
         "gdtune nightly: --root: bad value \"\": expected a folder, got an empty path"},
        {{"nightly", "--tables=", "--update", NULL}, 2, "gdtune nightly: --tables: bad value \"\""},
        {{"nightly", "--root", "/", NULL}, 2,
         "--root: bad value \"/\": expected a folder below the root folder, got \"/\" (the root)"},
        {{"sweep", "gemm", "--out", "", NULL}, 2, "gdtune sweep: --out: bad value \"\""},
        {{"sweep", "gemm", "--resume", "//", NULL}, 2, "gdtune sweep: --resume: bad value \"//\""},
        {{"sweep", "gemm", "--tables-dir", "/.", NULL}, 2, "gdtune sweep: --tables-dir: bad value \"/.\""},
        {{"sweep", "gemm", "--prior", "", NULL}, 2, "gdtune sweep: --prior: bad value \"\""},
        {{"tables", "emit", "run", "--tables-dir", "", NULL}, 2, "gdtune tables emit: --tables-dir: bad value"},
        {{"merge", "run", "--tables-dir", "/", NULL}, 2, "gdtune merge: --tables-dir: bad value \"/\""},
        {{"plans", "gemm", "--tables", "", NULL}, 2, "gdtune plans: --tables: bad value \"\""},
    };
    check_cases(cases, sizeof cases / sizeof *cases);
}

/* -h or --help as an option's value is that value, not a request for help
 * (issue 34 F13); where an option may stand it still is. */
static void test_help_as_value(void)
{
    toy t;
    const char *pos = NULL;
    int npos;
    const char *value[] = {"--s", "-h", NULL}, *value2[] = {"--s", "--help", "FILE", NULL};
    CHECK_INT(parse(&t, &pos, &npos, value), ==, -1);
    CHECK_STR(t.s, "-h");
    CHECK_INT(parse(&t, &pos, &npos, value2), ==, -1);
    CHECK_STR(t.s, "--help");
    CHECK_STR(pos, "FILE");
    const char *help[] = {"--s=x", "-h", NULL}, *after_flag[] = {"--flag", "--help", NULL};
    CHECK_INT(parse(&t, &pos, &npos, help), ==, 0);
    CHECK_INT(parse(&t, &pos, &npos, after_flag), ==, 0);
    static const expect cases[] = {
        {{"sweep", "gemm", "--out", "-h", "--bogus", NULL}, 2, "gdtune sweep: unknown option '--bogus'"},
        {{"nightly", "--root", "--help", "--bogus", NULL}, 2, "gdtune nightly: unknown option '--bogus'"},
        {{"sweep", "--help", NULL}, 0, "usage: gdtune sweep FAMILY"},
    };
    check_cases(cases, sizeof cases / sizeof *cases);
}

/* `tables --help` names only sub-commands that exist (issue 34 F13). */
static void test_tables_help(void)
{
    const char *help[] = {"tables", "--help", NULL}, *merge[] = {"tables", "merge", "run", NULL};
    CHECK_INT(gdtune(help), ==, 0);
    CHECK(strstr(out, "gdtune tables merge") == NULL);
    CHECK(strstr(out, "emit (and merge") == NULL);
    CHECK_CONTAINS(out, "top-level verb\n`gdtune merge RUNDIR...");
    CHECK_INT(gdtune(merge), ==, 2);
    CHECK_CONTAINS(out, "unknown sub-command 'merge' (expected: check, emit or diff)");
}

static void test_version(void)
{
    char want[256];
    snprintf(want, sizeof want, "gdtune %s\nsource digest %s\n", GDT_VERSION_STRING, gdt__source_digest);
    CHECK_INT(strlen(gdt__source_digest), ==, 64);
    const char *v[] = {"-V", NULL}, *version[] = {"--version", NULL}, *extra[] = {"--version", "x", NULL};
    CHECK_INT(gdtune(v), ==, 0);
    CHECK_STR(out, want);
    CHECK_INT(gdtune(version), ==, 0);
    CHECK_STR(out, want);
    CHECK_INT(gdtune(extra), ==, 2);
    CHECK_CONTAINS(out, "gdtune: unexpected argument 'x'");
}

int main(void)
{
    test_kinds();
    test_keyvals();
    test_one_range();
    test_one_message();
    test_repeated_shape();
    test_version();
    test_folders();
    test_help_as_value();
    test_tables_help();
    return gdt_test_result("test_cli_options");
}
