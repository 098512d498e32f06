/* --shard auto: the shard from the scheduler's environment (gdt_sweep.h).
 * Each scheduler is one row of variables; a row applies when its index
 * variable is set.  A count that two variables (or --shards) give
 * differently is refused rather than guessed.  A SLURM array index is the
 * shard itself: the resubmission of one index (`sbatch --array=3`) runs as
 * an array of one, whose MIN, MAX and COUNT say nothing of the sweep's
 * shards, so that with --shards N it runs shard 3/N and without is
 * refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_sweep.h"

typedef struct shard_vars {
    const char *scheduler;
    const char *index;
    const char *count; /* NULL: the count comes from --shards or GDTUNE_SHARDS */
    const char *min;   /* NULL: none; else the index is the shard (a SLURM array) */
    const char *max;   /* NULL: none; else the count is MAX - MIN + 1 */
} shard_vars;

static const shard_vars schedulers[] = {
    {"SLURM job array", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
     "SLURM_ARRAY_TASK_MAX"},
    {"Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", NULL, NULL, NULL},
    {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL, NULL},
    {"MPI (PMI)", "PMI_RANK", "PMI_SIZE", NULL, NULL},
};
#define NSCHEDULERS ((int)(sizeof schedulers / sizeof *schedulers))

#define EXPECTED "SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT or " \
                 "_MAX, JOB_COMPLETION_INDEX with --shards N or GDTUNE_SHARDS, "              \
                 "OMPI_COMM_WORLD_RANK with _SIZE, or PMI_RANK with PMI_SIZE"

/* A variable's value: *set false when it is unset or empty; a value that is
 * not a non-negative integer is refused, naming it. */
static gdt_status env_count(gdt_env_fn env, const char *name, long *v, bool *set, gdt_error *e)
{
    const char *s = name ? env(name) : NULL;
    char *end = NULL;
    *set = s && *s;
    if (!*set)
        return GDT_STATUS_OK;
    errno = 0;
    *v = s[0] >= '0' && s[0] <= '9' ? strtol(s, &end, 10) : -1;
    if (*v < 0 || errno || *end || *v > 1000000000L)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s=\"%.64s\": expected a "
                             "non-negative integer", name, s);
    return GDT_STATUS_OK;
}

static void note(char *src, size_t n, const char *name, long v)
{
    size_t used = strlen(src);
    snprintf(src + used, n - used, " %s=%ld", name, v);
}

/* The count --shards or GDTUNE_SHARDS gives (0: neither), and its text. */
static gdt_status explicit_count(gdt_env_fn env, int shards, long *n, char *from, size_t nfrom,
                                 gdt_error *e)
{
    long v = 0;
    bool set = false;
    gdt_status s = env_count(env, "GDTUNE_SHARDS", &v, &set, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (set && (v < 1 || v > GDT_SHARDS_MAX))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: GDTUNE_SHARDS=%ld: expected "
                             "a shard count in 1..%d", v, GDT_SHARDS_MAX);
    if (set && shards && v != shards)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: --shards %d but "
                             "GDTUNE_SHARDS=%ld: give the count once", shards, v);
    *n = shards ? shards : set ? v : 0;
    if (shards)
        snprintf(from, nfrom, "--shards %d", shards);
    else if (set)
        snprintf(from, nfrom, "GDTUNE_SHARDS=%ld", v);
    return GDT_STATUS_OK;
}

/* The count a row's own variables give (0: none), MIN through MAX and
 * COUNT agreeing when strict; *hi: MAX (-1: unset). */
static gdt_status row_count(const shard_vars *r, gdt_env_fn env, long lo, bool strict, long *n,
                            long *hi, char *src, size_t nsrc, gdt_error *e)
{
    long count = 0;
    bool has_count = false, has_hi = false;
    gdt_status s = env_count(env, r->count, &count, &has_count, e);
    if (s == GDT_STATUS_OK)
        s = env_count(env, r->max, hi, &has_hi, e);
    if (s != GDT_STATUS_OK)
        return s;
    if (has_hi)
        note(src, nsrc, r->max, *hi);
    else
        *hi = -1;
    if (has_count)
        note(src, nsrc, r->count, count);
    if (strict && has_hi && has_count && *hi - lo + 1 != count)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s=%ld but %s..%s spans %ld "
                             "indices (%s): a stepped or listed array cannot number the shards; "
                             "submit --array=0-%ld, or give --shards N", r->count, count, r->min,
                             r->max, *hi - lo + 1, src, count - 1);
    *n = has_count ? count : has_hi ? *hi - lo + 1 : 0;
    return GDT_STATUS_OK;
}

/* A SLURM array's count when no --shards gives it: only an array that is
 * the whole sweep (--array=0-<N-1>, N > 1) says it.  An array of one is
 * what a resubmitted index looks like (sbatch --array=3: MIN = MAX = 3,
 * COUNT = 1), and an array from MIN > 0 may be one too: taking its count
 * would run the whole sweep as shard 0/1. */
static gdt_status array_count(long lo, long count, const char *src, gdt_error *e)
{
    if (lo != 0)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s: an array that does not "
                             "start at index 0 (a resubmitted index, or --array=1-N) does not say "
                             "the sweep's shard count: give --shards N (the array index is the "
                             "shard)", src);
    if (count == 1)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s: an array of one task "
                             "(what a resubmitted index looks like) does not say the sweep's shard "
                             "count: give --shards N (1 for a sweep of one shard)", src);
    return GDT_STATUS_OK;
}

/* The count from --shards or GDTUNE_SHARDS (want), and a SLURM array
 * naming an index past it: indices 0..N-1 or 1..N (index N is shard 0),
 * never both 0 and N (shard 0 twice). */
static gdt_status want_count(const shard_vars *r, long count, long lo, long hi, long want,
                             const char *want_from, const char *src, gdt_error *e)
{
    if (r->min && (hi > want || (lo == 0 && hi == want)))
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s: %s=%ld is past the last "
                             "shard of %s (the array index is the shard, N standing for shard 0 in "
                             "a 1-based array: submit --array=0-%ld or --array=1-%ld, or some of "
                             "those indices)", src, r->max, hi, want_from, want - 1, want);
    if (!r->min && count && count != want)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s gives %ld shards (%s) but "
                             "%s: give --shard I/N", r->scheduler, count, src, want_from);
    return GDT_STATUS_OK;
}

/* One scheduler's shard; its index variable is set.  A SLURM array's index
 * is the shard itself (arrays numbered from 0, as submit.sh submits them,
 * or from 1: with --shards N, index N is shard 0), so that a resubmitted
 * index with --shards N runs the shard it ran before. */
static gdt_status resolve(const shard_vars *r, gdt_env_fn env, long want, const char *want_from,
                          int *i, int *n, char *src, size_t nsrc, gdt_error *e)
{
    long idx = 0, lo = 0, count = 0, hi = -1;
    bool set = false, has_lo = !r->min;
    gdt_status s = env_count(env, r->index, &idx, &set, e);
    if (s == GDT_STATUS_OK && r->min)
        s = env_count(env, r->min, &lo, &has_lo, e);
    if (s != GDT_STATUS_OK)
        return s;
    snprintf(src, nsrc, "%s: %s=%ld", r->scheduler, r->index, idx);
    if (!has_lo)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s=%ld without %s (expected "
                             EXPECTED ")", r->index, idx, r->min);
    if (r->min)
        note(src, nsrc, r->min, lo);
    /* With a count given, MIN..MAX and COUNT need not agree: the array may
     * be some of the shards (the resubmitted ones). */
    if ((s = row_count(r, env, lo, !want, &count, &hi, src, nsrc, e)) != GDT_STATUS_OK)
        return s;
    if (want) {
        if ((s = want_count(r, count, lo, hi, want, want_from, src, e)) != GDT_STATUS_OK)
            return s;
        size_t used = strlen(src);
        if (!count || r->min) /* the count used is the one given */
            snprintf(src + used, nsrc - used, " %s", want_from);
        count = want;
        if (r->min && idx == want) { /* --array=1-N: the last index is shard 0 */
            idx = 0;
            used = strlen(src);
            snprintf(src + used, nsrc - used, " (index %ld of a 1-based array is shard 0)", want);
        }
    } else if (!count) {
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s without a shard count "
                             "(expected %s%s)", src, r->count ? r->count : "--shards N or GDTUNE_SHARDS",
                             r->count ? " or --shards N" : "");
    } else if (r->min && (s = array_count(lo, count, src, e)) != GDT_STATUS_OK) {
        return s;
    }
    if (count > GDT_SHARDS_MAX || idx >= count)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s: expected a shard index "
                             "0 <= I < N <= %d, got %ld of %ld", src, GDT_SHARDS_MAX, idx, count);
    *i = (int)idx;
    *n = (int)count;
    return GDT_STATUS_OK;
}

gdt_status gdt_sweep_shard_auto(gdt_env_fn env, int shards, int *i, int *n, char *source,
                                size_t nsource, gdt_error *e)
{
    char from[64] = "", src[GDT_SHARD_SOURCE_MAX], first[GDT_SHARD_SOURCE_MAX] = "";
    long want = 0;
    int found = 0;
    gdt_status s = explicit_count(env, shards, &want, from, sizeof from, e);
    for (int k = 0; k < NSCHEDULERS && s == GDT_STATUS_OK; k++) {
        const char *v = env(schedulers[k].index);
        int ki = 0, kn = 0;
        if (!v || !*v)
            continue;
        if ((s = resolve(&schedulers[k], env, want, from, &ki, &kn, src, sizeof src, e)) != GDT_STATUS_OK)
            break;
        if (found++ && (ki != *i || kn != *n))
            return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: %s is shard %d/%d but %s "
                                 "is shard %d/%d: give --shard I/N", first, *i, *n, src, ki, kn);
        if (found == 1) {
            *i = ki;
            *n = kn;
            snprintf(first, sizeof first, "%s", src);
        }
    }
    if (s == GDT_STATUS_OK && !found)
        return gdt_error_set(e, GDT_STATUS_BAD_USAGE, "--shard auto: no scheduler's shard "
                             "variables are set (expected " EXPECTED ")");
    if (s == GDT_STATUS_OK)
        snprintf(source, nsource, "%s", first);
    return s;
}
