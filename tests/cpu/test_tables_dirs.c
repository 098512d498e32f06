/* Which folders hold tables (issue 34 F9, F13): arch names as the loader
 * writes them (sm90; sm090 is no arch), `gdtune tables diff` reading only
 * the sm<arch> folders dispatch reads and refusing (exit 2, naming the
 * folder) one spelled otherwise beside them and more than it holds; the
 * search path passing over a place whose tables are refused, with a
 * warning, to the next, and giving its absolute path; a sweep's prior
 * recorded by its absolute path; the places searched, in order, and
 * `gdtune plans` naming each when none holds tables (issue 36). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "gdt_prior.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/tables.h"

#define COMMITTED GDT_SOURCE_DIR "/tables/sm90"

static char tmp[] = "/tmp/gdt_test_tables_dirs_XXXXXX";
static char out[1 << 16];

static void mkdirs(const char *fmt, const char *a)
{
    char path[PATH_MAX];
    gdt_error e = {0};
    snprintf(path, sizeof path, fmt, tmp, a);
    CHECK_INT(gdt_mkdirs(path, &e), ==, GDT_STATUS_OK);
}

/* TMP/<dir>/ gets the committed gemm pair; the tuning file's text with
 * from replaced by to (from NULL: as committed). */
static void put_gemm(const char *dir, const char *from, const char *to)
{
    static const char *const kinds[] = {"placement", "tuning"};
    for (int k = 0; k < 2; k++) {
        char src[PATH_MAX], dst[PATH_MAX], *text = NULL;
        size_t len = 0;
        gdt_error e = {0};
        snprintf(src, sizeof src, COMMITTED "/gemm.%s.json", kinds[k]);
        snprintf(dst, sizeof dst, "%s/%s/gemm.%s.json", tmp, dir, kinds[k]);
        mkdirs("%s/%s", dir);
        CHECK_INT(gdt_file_read(src, &text, &len, &e), ==, GDT_STATUS_OK);
        char *at = text && k && from ? strstr(text, from) : NULL;
        if (at) {
            memcpy(at, to, strlen(to)); /* same length */
            CHECK_INT(strlen(to), ==, strlen(from));
        }
        if (text) CHECK_INT(gdt_file_write_atomic(dst, text, len, &e), ==, GDT_STATUS_OK);
        free(text);
    }
}

static int diff(const char *old, const char *new)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s tables diff %s/%s %s/%s --family gemm", GDTUNE_EXE, tmp, old, tmp, new);
    return gdt_test_run(cmd, out, sizeof out);
}

static void test_arch_names(void)
{
    static const struct {
        const char *name;
        int kind, arch;
    } cases[] = {{"sm90", 1, 90}, {"sm100", 1, 100}, {"sm80", 1, 80}, {"sm090", -1, 0}, {"sm_90", -1, 0},
                 {"sm90a", -1, 0}, {"sm100f", -1, 0}, {"sm9", -1, 0}, {"sm0", -1, 0}, {"sm1000", -1, 0},
                 {"smoke", 0, 0}, {"sm90-old", 0, 0}, {"runs", 0, 0}, {"sm", 0, 0}, {"README.md", 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int arch = 0, kind = gdt_arch_dir_kind(cases[i].name, &arch);
        if (kind != cases[i].kind) fprintf(stderr, "%s: kind %d\n", cases[i].name, kind);
        CHECK_INT(kind, ==, cases[i].kind);
        if (kind == 1) CHECK_INT(arch, ==, cases[i].arch);
    }
    int arch = 0;
    gdt_error e = {0};
    CHECK_INT(gdt_arch_parse("sm090", &arch, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_CONTAINS(e.msg, "arch \"sm090\": expected smXY");
    CHECK_INT(gdt_arch_parse("sm_090", &arch, &e), ==, GDT_STATUS_BAD_USAGE);
    CHECK_INT(gdt_arch_parse("sm_90", &arch, &e), ==, GDT_STATUS_OK); /* --arch keeps its spellings */
    CHECK_INT(arch, ==, 90);
}

/* OLD/sm090 beside OLD/sm90: the diff read both as sm90 (and compared the
 * first it found) while dispatch reads OLD/sm90 alone. */
static void test_diff_folders(void)
{
    put_gemm("new/sm90", NULL, NULL);
    put_gemm("same/sm90", NULL, NULL);
    mkdirs("%s/%s", "same/smoke"); /* no arch's name: not a tables folder */
    CHECK_INT(diff("same", "new"), ==, 0);
    CHECK_CONTAINS(out, "gemm sm90: identical");

    static const char *const others[] = {"sm090", "sm_90", "sm90a"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        char old[64], dir[96], want[PATH_MAX];
        snprintf(old, sizeof old, "old%zu", i);
        snprintf(dir, sizeof dir, "%s/sm90", old);
        put_gemm(dir, NULL, NULL);
        snprintf(dir, sizeof dir, "%s/%s", old, others[i]);
        put_gemm(dir, NULL, NULL);
        CHECK_INT(diff(old, "new"), ==, 2);
        snprintf(want, sizeof want, "tables diff: %s/%s/%s: expected a folder named sm<major*10+minor> "
                 "(like sm90), as the tables loader reads them, got \"%s\": dispatch never reads it",
                 tmp, old, others[i], others[i]);
        CHECK_CONTAINS(out, want);
    }
    /* a file of such a name is no folder: not refused */
    char path[PATH_MAX];
    gdt_error e = {0};
    snprintf(path, sizeof path, "%s/same/sm_90", tmp);
    CHECK_INT(gdt_file_write_atomic(path, "x", 1, &e), ==, GDT_STATUS_OK);
    CHECK_INT(diff("same", "new"), ==, 0);

    /* 64 folders fit; the 65th is refused, not skipped in readdir order */
    put_gemm("many/sm90", NULL, NULL);
    for (int a = 10; a < 73; a++) {
        char name[16];
        snprintf(name, sizeof name, "many/sm%d", a);
        mkdirs("%s/%s", name);
    }
    CHECK_INT(diff("many", "new"), ==, 0);
    mkdirs("%s/%s", "many/sm73");
    CHECK_INT(diff("many", "new"), ==, 2);
    snprintf(path, sizeof path, "tables diff: %s/many: expected at most 64 sm<arch> folders, got more", tmp);
    CHECK_CONTAINS(out, path);
}

static char warned[4096];
static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    snprintf(warned, sizeof warned, "%s", msg);
}

/* GDTUNE_TABLES_PATH=broken:good (relative, from TMP): broken is passed
 * over with the loader's message, good is found by its absolute path. */
static void test_search_path(void)
{
    char cwd[PATH_MAX], dir[PATH_MAX], want[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    put_gemm("broken/sm90", "\"gdtune.tuning/1\"", "\"gdtune.tuning/9\"");
    put_gemm("good/sm90", NULL, NULL);
    CHECK_INT(chdir(tmp), ==, 0);
    setenv("GDTUNE_TABLES_PATH", "missing:broken:good", 1);
    gdt_tables *t = NULL;
    gdt_tables_search how = {.warn = warn, .out = &t};
    CHECK(gdt_tables_search_path(GDT_FAMILY_GEMM, 90, &how, dir, sizeof dir));
    CHECK(t != NULL);
    CHECK_INT(gdt_tables_ncells(t), >, 0);
    gdt_tables_destroy(t);
    snprintf(want, sizeof want, "%s/good", tmp);
    CHECK_STR(dir, want);
    CHECK_CONTAINS(warned, "broken/sm90/gemm.tuning.json: /schema: expected \"gdtune.tuning/1\", got "
                           "\"gdtune.tuning/9\"");
    CHECK(gdt_tables_find(GDT_FAMILY_GEMM, 90, dir, sizeof dir));
    CHECK_STR(dir, want);
    setenv("GDTUNE_TABLES_PATH", "broken", 1);
    CHECK(!gdt_tables_find(GDT_FAMILY_GEMM, 90, dir, sizeof dir) || strcmp(dir, want) != 0);

    /* `gdtune plans` says so and plans from the next place */
    setenv("GDTUNE_TABLES_PATH", "broken:good", 1);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s plans gemm --shape m=4096,n=4096,k=4096", GDTUNE_EXE);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "gdtune plans: warning: tables passed over (the search goes on): broken/sm90/"
                        "gemm.tuning.json: /schema: expected \"gdtune.tuning/1\"");
    snprintf(want, sizeof want, "tables: %s/good/sm90/gemm.{placement,tuning}.json", tmp);
    CHECK_CONTAINS(out, want);
    CHECK_CONTAINS(out, "measured rank");
    unsetenv("GDTUNE_TABLES_PATH");

    /* a prior named relative is recorded absolute */
    gdt_prior *p = NULL;
    gdt_error e = {0};
    CHECK_INT(gdt_prior_load("good", 1u << GDT_FAMILY_GEMM, 90, &p, &e), ==, GDT_STATUS_OK);
    cJSON *j = gdt_prior_json(p);
    snprintf(want, sizeof want, "%s/good", tmp);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "dir")), want);
    cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "tables"), 0);
    snprintf(want, sizeof want, "%s/good/sm90/gemm.tuning.json", tmp);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(first, "path")), want);
    cJSON_Delete(j);
    gdt_prior_destroy(p);
    CHECK_INT(chdir(cwd), ==, 0);
}

typedef struct places {
    char text[8192];
    int stop_at, count;
} places;

static bool collect(void *ctx, const char *dir, const char *origin)
{
    places *p = ctx;
    size_t used = strlen(p->text);
    snprintf(p->text + used, sizeof p->text - used, "%s (%s)\n", dir, origin);
    return ++p->count == p->stop_at;
}

/* The places in order: GDTUNE_TABLES_PATH's (an empty entry is none),
 * ./tables, then beside the executable (this test links libgdtune.a, so
 * there is no library place); an each returning true stops the walk.
 * With no place holding tables, `gdtune plans` names each place and what
 * it lacks on stderr, and says the order is untimed (exit 0). */
static void test_search_places(void)
{
    char cwd[PATH_MAX], exe[PATH_MAX], want[3 * PATH_MAX], empty[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(realpath("/proc/self/exe", exe) != NULL);
    setenv("GDTUNE_TABLES_PATH", "a::b", 1);
    places p = {.stop_at = 0};
    CHECK(!gdt_tables_search_places(collect, &p));
    *strrchr(exe, '/') = 0;
    char *up = strrchr(exe, '/');
    CHECK(up != NULL);
    if (up) *up = 0;
    snprintf(want, sizeof want, "a (GDTUNE_TABLES_PATH)\nb (GDTUNE_TABLES_PATH)\ntables (the working "
             "folder's ./tables)\n%s/share/gdtune/tables (beside the executable %s/", exe, exe);
    CHECK_CONTAINS(p.text, want);
    CHECK_INT(p.count, ==, 4);
    CHECK(!strstr(p.text, "beside libgdtune"));
    places two = {.stop_at = 2};
    CHECK(gdt_tables_search_places(collect, &two));
    CHECK_STR(two.text, "a (GDTUNE_TABLES_PATH)\nb (GDTUNE_TABLES_PATH)\n");

    snprintf(empty, sizeof empty, "%s/empty", tmp);
    mkdirs("%s/%s", "empty");
    CHECK_INT(chdir(empty), ==, 0);
    setenv("GDTUNE_TABLES_PATH", "missing:../good:../broken", 1);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s plans gemm --arch sm90", GDTUNE_EXE);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0); /* good holds sm90 */
    CHECK(!strstr(out, "in any place searched"));
    snprintf(cmd, sizeof cmd, "%s plans gemm --arch sm80", GDTUNE_EXE);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "tables: none found (untimed order; the places searched are on stderr)");
    CHECK_CONTAINS(out, "gdtune plans: warning: no gemm tables for sm80 in any place searched, so the order "
                        "below is untimed (name the folder with --tables or GDTUNE_TABLES_PATH); the places, "
                        "in order:\n");
    snprintf(want, sizeof want, "\n  %s/missing (GDTUNE_TABLES_PATH): absent\n  %s/good (GDTUNE_TABLES_PATH): "
             "holds no sm80/gemm.placement.json\n", empty, tmp);
    CHECK_CONTAINS(out, want);
    snprintf(want, sizeof want, "\n  %s/tables (the working folder's ./tables): absent\n", empty);
    CHECK_CONTAINS(out, want);
    CHECK_CONTAINS(out, " (beside the executable ");
    /* a place whose tables are refused: the loader's warning, then the place */
    snprintf(cmd, sizeof cmd, "%s plans gemm --arch sm90", GDTUNE_EXE);
    setenv("GDTUNE_TABLES_PATH", "../broken", 1);
    CHECK_INT(gdt_test_run(cmd, out, sizeof out), ==, 0);
    snprintf(want, sizeof want, "\n  %s/broken (GDTUNE_TABLES_PATH): its tables were refused (see the warning "
             "above)\n", tmp);
    CHECK_CONTAINS(out, want);
    CHECK_CONTAINS(out, "gdtune plans: warning: tables passed over (the search goes on): ../broken/sm90/");
    unsetenv("GDTUNE_TABLES_PATH");
    CHECK_INT(chdir(cwd), ==, 0);
}

int main(void)
{
    CHECK(mkdtemp(tmp) != NULL);
    test_arch_names();
    test_diff_folders();
    test_search_path();
    test_search_places();
    if (!gdt_test_failures) CHECK_INT(gdt_test_remove_tree(tmp), ==, 0);
    else fprintf(stderr, "last output:\n%s\n", out);
    return gdt_test_result("test_tables_dirs");
}
