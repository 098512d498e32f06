/* The committed tables are what `gdtune tables emit` writes from the
 * committed journals, byte for byte: every runs/sm90/tables journal
 * emitted into a scratch folder, scored on the validation sweeps of
 * runs/sm90/validation (--validation), gives exactly the files of tables/sm90,
 * no more and no fewer, so the figures tables/README.md cites from them
 * are the ones this release's fit computes.  The model's choices weigh the
 * validation sweep: by the fit's criterion (firsts slower than the
 * heuristic's, then log geo-mean + log worst of both modes, over the
 * leave-one-cell-out and the validation figures) each committed model
 * does at least as well as the one emitted without --validation, and
 * sdpa_fwd's strictly better (gemm's, since the placement ratio has its own
 * ridge, is the same choice either way). */
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gdt_test.h"
#include "gdt_util.h"

static char root[256];
static char out[1 << 14];

static char val_gemm[300], val_sdpa[300];

/* A gzipped journal unpacked as DIR/journal.jsonl. */
static void unpack(const char *journal, const char *dir)
{
    char path[400];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    CHECK_INT(mkdir(dir, 0700), ==, 0);
    CHECK_INT(gdt_test_gunzip_to(journal, path), ==, 0);
}

static void emit_journal(const char *journal, int i)
{
    char run[300], tdir[300], bare[300];
    snprintf(run, sizeof run, "%s/run%d", root, i);
    snprintf(tdir, sizeof tdir, "%s/tables", root);
    snprintf(bare, sizeof bare, "%s/bare", root);
    unpack(journal, run);
    char *argv[] = {(char *)gdt_test_exe(), "tables", "emit", run, "--tables-dir", tdir,
                    "--validation", val_gemm, "--validation", val_sdpa, NULL};
    int rc = gdt_test_spawn(argv, NULL, out, sizeof out);
    if (rc != 0) fprintf(stderr, "tables emit %s: exit %d: %s\n", journal, rc, out);
    CHECK_INT(rc, ==, 0);
    char *plain[] = {(char *)gdt_test_exe(), "tables", "emit", run, "--tables-dir", bare, NULL};
    CHECK_INT(gdt_test_spawn(plain, NULL, out, sizeof out), ==, 0);
}

/* The fit's criterion of the figures `tables check` prints for a
 * placement table (validation: NULL, those recorded at emit): *slower the
 * firsts slower than the heuristic's, the sum of the logs of the four
 * geo-means and four worsts. */
static double criterion(const char *placement, const char *validation, int *slower)
{
    static char got[1 << 14];
    char *argv[] = {(char *)gdt_test_exe(), "tables", "check", (char *)placement, "--validation",
                    (char *)validation, NULL};
    if (!validation) argv[4] = NULL; /* the figures recorded at emit */
    CHECK_INT(gdt_test_spawn(argv, NULL, got, sizeof got), ==, 0);
    double score = 0, g, w;
    int nfig = 0, nslow = 0, k;
    *slower = 0;
    for (const char *at = strstr(got, "geomean "); at; at = strstr(at + 1, "geomean "))
        if (sscanf(at, "geomean %lf, worst %lf", &g, &w) == 2) score += log(g) + log(w), nfig++;
    for (const char *at = strstr(got, "beyond noise: "); at; at = strstr(at + 1, "beyond noise: "))
        if (sscanf(at, "beyond noise: %d of", &k) == 1) *slower += k, nslow++;
    CHECK_INT(nfig, ==, 4);
    CHECK_INT(nslow, ==, 2);
    return score;
}

/* Each family's committed model against the one chosen without the
 * validation sweep (emitted beside it into bare/). */
static void check_choice(const char *family, const char *validation, bool strict)
{
    char committed[600], bare[600];
    int s0, s1;
    snprintf(committed, sizeof committed, "%s/tables/sm90/%s.placement.json", GDT_SOURCE_DIR, family);
    snprintf(bare, sizeof bare, "%s/bare/sm90/%s.placement.json", root, family);
    double with = criterion(committed, NULL, &s1), without = criterion(bare, validation, &s0);
    bool ok = s1 < s0 || (s1 == s0 && with <= without + 1e-3);
    if (!ok || (strict && !(s1 < s0 || with < without - 1e-3)))
        fprintf(stderr, "%s: chosen with the validation sweep %d / %.4f, without %d / %.4f\n", family, s1, with,
                s0, without);
    CHECK(ok);
    if (strict) CHECK(s1 < s0 || with < without - 1e-3);
}

/* The committed file NAME (under tables/sm90) and the emitted one, equal. */
static void check_same(const char *name)
{
    char committed[600], emitted[600];
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    gdt_error e;
    snprintf(committed, sizeof committed, "%s/tables/sm90/%s", GDT_SOURCE_DIR, name);
    snprintf(emitted, sizeof emitted, "%s/tables/sm90/%s", root, name);
    CHECK_INT(gdt_file_read(committed, &a, &na, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_file_read(emitted, &b, &nb, &e), ==, GDT_STATUS_OK);
    bool same = a && b && na == nb && !memcmp(a, b, na);
    if (!same) fprintf(stderr, "%s: the emit of runs/sm90/tables differs (re-emit it, tables/README.md)\n", committed);
    CHECK(same);
    free(a);
    free(b);
}

/* The names of the JSON files in DIR/sm90. */
static size_t tables_in(const char *dir, glob_t *g)
{
    char pat[600];
    snprintf(pat, sizeof pat, "%s/tables/sm90/*.json", dir);
    return glob(pat, 0, NULL, g) == 0 ? g->gl_pathc : 0;
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/gdt_test_tables_reproduce.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    glob_t runs = {0}, committed = {0}, emitted = {0};
    snprintf(val_gemm, sizeof val_gemm, "%s/val-gemm", root);
    snprintf(val_sdpa, sizeof val_sdpa, "%s/val-sdpa", root);
    unpack(GDT_SOURCE_DIR "/runs/sm90/validation/gemm-validation.journal.jsonl.gz", val_gemm);
    unpack(GDT_SOURCE_DIR "/runs/sm90/validation/sdpa-validation.journal.jsonl.gz", val_sdpa);
    const char *journals = GDT_SOURCE_DIR "/runs/sm90/tables/*.journal.jsonl.gz";
    int found = glob(journals, 0, NULL, &runs);
    if (found) fprintf(stderr, "no committed journal matches %s (runs/README.md)\n", journals);
    CHECK_INT(found, ==, 0);
    for (size_t i = 0; !found && i < runs.gl_pathc; i++) emit_journal(runs.gl_pathv[i], (int)i);
    size_t nc = tables_in(GDT_SOURCE_DIR, &committed), ne = tables_in(root, &emitted);
    CHECK(nc >= 2);
    CHECK_INT(ne, ==, nc);
    for (size_t i = 0; i < nc; i++) check_same(strrchr(committed.gl_pathv[i], '/') + 1);
    check_choice("gemm", val_gemm, false);
    check_choice("sdpa_fwd", val_sdpa, true);
    check_choice("sdpa_bwd", val_sdpa, false);
    globfree(&runs);
    globfree(&committed);
    globfree(&emitted);
    if (!gdt_test_failures && gdt_test_remove_tree(root) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_tables_reproduce");
}
