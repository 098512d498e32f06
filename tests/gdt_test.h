/* Test assertions that print both values (libuv's test/task.h style).  A
 * test is one executable; main returns 0 on success, 1 on failure, 77 when
 * skipped (no device). */
#ifndef GDT_TEST_H
#define GDT_TEST_H

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdtune/gdtune.h"

extern int gdt_test_failures;

#define GDT_TEST_SKIP 77

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            gdt_test_failures++;                                                    \
        }                                                                           \
    } while (0)

#define CHECK_INT(a, op, b)                                                         \
    do {                                                                            \
        long long gdt_a_ = (long long)(a), gdt_b_ = (long long)(b);                 \
        if (!(gdt_a_ op gdt_b_)) {                                                  \
            fprintf(stderr, "%s:%d: CHECK_INT(%s %s %s) failed: %lld vs %lld\n",    \
                    __FILE__, __LINE__, #a, #op, #b, gdt_a_, gdt_b_);               \
            gdt_test_failures++;                                                    \
        }                                                                           \
    } while (0)

#define CHECK_STR(a, b)                                                             \
    do {                                                                            \
        const char *gdt_a_ = (a), *gdt_b_ = (b);                                    \
        if (!gdt_a_ || !gdt_b_ || strcmp(gdt_a_, gdt_b_) != 0) {                    \
            fprintf(stderr, "%s:%d: CHECK_STR(%s, %s) failed:\n  got  \"%s\"\n  want \"%s\"\n", \
                    __FILE__, __LINE__, #a, #b, gdt_a_ ? gdt_a_ : "(null)",         \
                    gdt_b_ ? gdt_b_ : "(null)");                                    \
            gdt_test_failures++;                                                    \
        }                                                                           \
    } while (0)

/* |a - b| <= tol, printing both values. */
#define CHECK_NEAR(a, b, tol)                                                              \
    do {                                                                                   \
        double x_ = (a), y_ = (b);                                                         \
        if (!(fabs(x_ - y_) <= (tol))) {                                                   \
            fprintf(stderr, "%s:%d: CHECK_NEAR(%s, %s) failed: %.17g vs %.17g\n", __FILE__, \
                    __LINE__, #a, #b, x_, y_);                                             \
            gdt_test_failures++;                                                           \
        }                                                                                  \
    } while (0)

/* The message contains the fragment. */
#define CHECK_CONTAINS(hay, needle)                                                 \
    do {                                                                            \
        const char *gdt_h_ = (hay), *gdt_n_ = (needle);                             \
        if (!gdt_h_ || !strstr(gdt_h_, gdt_n_)) {                                   \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,    \
                    __LINE__, gdt_h_ ? gdt_h_ : "(null)", gdt_n_);                  \
            gdt_test_failures++;                                                    \
        }                                                                           \
    } while (0)

/* The facts of a problem of `family` given as shape keys ("m=128,n=4096")
 * on the per-arch table's device of `arch` (90: sm90); a bad shape or arch
 * fails the test. */
void gdt_test_facts(gdt_family family, const char *shape, int arch, gdt_facts *f);

/* Returns the process exit code for the test's result. */
int gdt_test_result(const char *name);

/* The gdtune binary under test: $GDTUNE_EXE, else the one CMake built. */
const char *gdt_test_exe(void);

/* Whether a GPU test prints its timing figures (never asserted): only when
 * GDT_TEST_FIGURES is 1, so that `ctest -L gpu` checks and the device call's
 * `figures` step (.ci/device-run) times. */
bool gdt_test_figures(void);

/* Runs a shell command, captures stdout+stderr into out (truncated), returns
 * the exit status (or -1). */
int gdt_test_run(const char *cmd, char *out, size_t nout);

/* Runs argv (argv[0] looked up in PATH) without a shell, stdin from the file
 * `in` (NULL: inherited), captures stdout+stderr into out (truncated),
 * returns the exit status (-1 when it could not run or died by a signal).
 * For arguments no shell may see: crafted names, quotes, semicolons. */
int gdt_test_spawn(char *const argv[], const char *in, char *out, size_t nout);

/* Removes a test's scratch tree (`rm -rf DIR` through gdt_test_spawn);
 * returns rm's exit status. */
int gdt_test_remove_tree(const char *dir);

/* Flips the bits of one byte of a file (not through a link), at the fraction
 * where of its size (1: the last byte); false when it could not. */
bool gdt_test_flip_byte(const char *path, double where);

/* Whether PROG is an executable in a folder of $PATH; asks no shell. */
static inline bool gdt_test_have(const char *prog)
{
    const char *path = getenv("PATH");
    char cand[4096];
    while (path && *path) {
        size_t n = strcspn(path, ":");
        /* an empty entry is the current folder, as for execvp */
        snprintf(cand, sizeof cand, "%.*s/%s", (int)(n ? n : 1), n ? path : ".", prog);
        if (access(cand, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

/* gdt_test_spawn with stdout written to the file `to` (created or
 * truncated) instead of captured; stderr alone goes to out.  For a tool
 * whose output is data (gunzip -c), or whose stdout is checked apart from
 * its stderr. */
int gdt_test_spawn_to(char *const argv[], const char *in, const char *to, char *out, size_t nout);

/* A stand-in worker's hello with GDT_FAKE_ROWS_LOG set (a path): appends
 * a line to that file, the digest of the candidate rows the request's
 * "rows" carries (loaded as the real worker loads them), "unloadable", or
 * "absent" (the defaults).  Nothing without the variable. */
struct cJSON;
void gdt_test_log_hello_rows(const struct cJSON *req);

/* A synthetic journal's plan object for the plan named name (its engine id
 * and knobs parsed from the name; a name that does not parse fails the
 * test): plan, engine_id, knobs, backend, tag, untimed.  The caller owns
 * it. */
struct cJSON *gdt_test_plan_json(const char *name, const char *tag, int untimed);

/* A synthetic result's burst object: burst calls, and host_us, device_us
 * and total_us each the n samples x.  The caller owns it. */
struct cJSON *gdt_test_burst_json(int burst, const double *x, int n);

/* A synthetic GEMM sweep's journal opened in dir (created) with its run
 * header written: the spec, arch 90, one GPU "GPU-synthetic", a device
 * object {name: device, arch: 90, sm_count: 132}, `started` and the
 * options given.  NULL (the test failed) when either step fails; close
 * it with gdt_journal_close. */
struct gdt_journal;
struct gdt_sweep_spec;
struct gdt_run_options;
struct gdt_journal *gdt_test_journal_begin(const char *dir, const struct gdt_sweep_spec *spec,
                                           const char *device, const char *started,
                                           const struct gdt_run_options *options);

/* Rewrites the plans records of the journal at path with every plan's
 * identity in the older spelling ({"engine_id", "knobs": [[type, value]],
 * "name"}, old) or the current one (gdt_plan_json.h), the other members
 * and records as they were (a line that does not parse, a torn last one,
 * is kept).  Returns the plans respelled, -1 on an I/O error. */
int gdt_test_journal_respell(const char *path, bool old);

/* A stand-in worker on stdin/stdout: one device ("Stand-in GPU", sm90),
 * one verified cuDNN plan per cell at 10 us with the given noise; a request
 * of another op gets an error reply when refuse_others, none otherwise.
 * Returns 0 at end of input. */
int gdt_test_one_plan_worker(double noise, bool refuse_others);

/* A kept journal (a .jsonl.gz under runs/) unpacked as
 * ROOT/run-NAME/journal.jsonl and its tables emitted into ROOT/tables-NAME
 * by `gdtune tables emit`, the verb's output in out; returns its exit
 * status (-1: the run folder or the unpack failed). */
int gdt_test_emit_kept(const char *journal_gz, const char *root, const char *name, char *out, size_t nout);

/* `gunzip -c SRC > DST` without a shell; returns gunzip's exit status. */
static inline int gdt_test_gunzip_to(const char *src, const char *dst)
{
    char *argv[] = {"gunzip", "-c", (char *)src, NULL};
    char err[1024];
    int rc = gdt_test_spawn_to(argv, NULL, dst, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "gunzip -c %s: exit %d: %s\n", src, rc, err);
    return rc;
}

#endif
