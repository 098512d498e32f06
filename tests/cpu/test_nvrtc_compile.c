/* NVRTC runs on the CPU: every default contraction row that survives the
 * row rules compiles for sm80, sm90 and sm100 (compile-only builds through
 * the engine); a broken template define fails with the compiler's log; the
 * compiled-kernel cache hits, re-checks its entries and prunes stale
 * environments; check_support judges a replayed plan by the row rules. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_engines.h"
#include "gdt_rows.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "nvrtc/gdt_nvrtc.h"
#include "nvrtc/gdt_gemm.h"
#include "nvrtc/gdt_nvrtc_cache.h"

static const gdt_engine_slot *gemm_slot(void)
{
    const gdt_engine_slot *s = gdt_manifest_find_name(gdt_manifest_default(), "gemm.nvrtc");
    CHECK(s != NULL);
    return s;
}

static void facts_for(const char *shape, int arch, gdt_facts *f)
{
    gdt_test_facts(GDT_FAMILY_GEMM, shape, arch, f);
}

static gdt_status build_only(const gdt_facts *f, const gdt_plan_id *id, const char *cache,
                             gdt_build_info *info, gdt_error *e)
{
    const gdt_engine_slot *s = gemm_slot();
    gdt_build_opts o = {f->device, true, cache};
    gdt_compiled *c = NULL;
    gdt_status st = s->ops->build(s, f, id, &o, &c, info, e);
    CHECK(c == NULL);
    return st;
}

/* Compiles every surviving row; returns how many compiled with MMA=1. */
static int compile_rows(const char *shape, int arch, int *compiled)
{
    gdt_row_table *t = NULL;
    gdt_candidate *c = NULL;
    gdt_error e = {0};
    gdt_facts f;
    int n = 0, wgmma = 0;
    facts_for(shape, arch, &f);
    CHECK_INT(gdt_rows_load_default(&t, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_candidates_materialize(t, gemm_slot(), &f, &c, &n, &e), ==, GDT_STATUS_OK);
    for (int i = 0; i < n; i++) {
        bool mma1 = gdt_plan_id_knob(&c[i].id, GDT_KNOB_MMA, 0) == 1;
        if (c[i].rejected) {
            if (c[i].requested[7] == 1 && arch != 90)
                CHECK_CONTAINS(c[i].reason, "sm_90a");
            continue;
        }
        if (c[i].duplicate_of_earlier)
            continue;
        gdt_build_info info;
        gdt_status st = build_only(&f, &c[i].id, NULL, &info, &e);
        if (st != GDT_STATUS_OK)
            fprintf(stderr, "sm%d %s row %d: %s\n", arch, shape, i, e.msg);
        CHECK_INT(st, ==, GDT_STATUS_OK);
        CHECK(info.compile_seconds > 0 && !info.cache_hit);
        (*compiled)++;
        wgmma += mma1;
    }
    free(c);
    gdt_rows_destroy(t);
    return wgmma;
}

static void test_default_rows(void)
{
    int n80 = 0, n90 = 0, n100 = 0, odd = 0;
    CHECK_INT(compile_rows("m=4096,n=4096,k=4096", 80, &n80), ==, 0);
    CHECK(compile_rows("m=4096,n=4096,k=4096", 90, &n90) >= 1);
    CHECK_INT(compile_rows("m=4096,n=4096,k=4096,dtype=fp16,b=col", 100, &n100), ==, 0);
    /* Odd extents and column-major A take the element-wise load path: no
     * wgmma row survives (A is not 16-byte aligned along M). */
    CHECK_INT(compile_rows("batch=3,m=130,n=72,k=200,a=col", 90, &odd), ==, 0);
    CHECK(n80 >= 1 && n90 > n80 && n100 >= 1 && odd >= 1);
    printf("compiled rows: sm80 %d, sm90 %d, sm100 %d, sm90 odd shape %d\n", n80, n90, n100, odd);
}

static gdt_plan_id gemm_plan(const int64_t *row)
{
    gdt_plan_id id = {.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, gemm_slot()->slot)};
    for (int i = 0; i < gdt__row_family_required(&gdt__rows_contraction); i++)
        gdt_plan_id_set_knob(&id, gdt__rows_contraction.cols[i].knob, row[i]);
    return id;
}

/* A template whose defines lose BM: the compile fails, the log says why. */
static int no_bm(const gdt_facts *f, const gdt_plan_id *p, gdt_nvrtc_define *out, int max)
{
    int n = gdt__tmpl_gemm.defines(f, p, out, max), k = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(out[i].name, "BM"))
            out[k++] = out[i];
    return k;
}

static int bad_name(const gdt_facts *f, const gdt_plan_id *p, gdt_nvrtc_define *out, int max)
{
    int n = gdt__tmpl_gemm.defines(f, p, out, max);
    out[0].name = "B M";
    return n;
}

static void test_broken_define(void)
{
    static const int64_t row[] = {128, 128, 32, 2, 2, 4, 8, 0};
    gdt_facts f;
    gdt_error e = {0};
    gdt_build_info info = {0};
    void *cubin = NULL;
    size_t len = 0;
    gdt_plan_id id = gemm_plan(row);
    gdt_nvrtc_template t = gdt__tmpl_gemm;
    facts_for("m=256,n=256,k=256", 80, &f);
    t.defines = no_bm;
    CHECK_INT(gdt_nvrtc_compile(&t, &f, &id, 80, &cubin, &len, &info, &e), ==, GDT_STATUS_NVRTC);
    CHECK(cubin == NULL);
    CHECK_CONTAINS(e.msg, "kernels/gemm.cuh for sm_80");
    CHECK_CONTAINS(e.msg, "compile failed");
    CHECK_CONTAINS(e.msg, "identifier \"BM\" is undefined");
    CHECK_CONTAINS(info.log, "BM");
    t.defines = bad_name;
    CHECK_INT(gdt_nvrtc_compile(&t, &f, &id, 80, &cubin, &len, &info, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "define 0 name \"B M\" is not an identifier");
}

static void test_check_support(void)
{
    static const int64_t wg[] = {128, 256, 64, 8, 1, 4, 8, 1};
    static const int64_t wide[] = {256, 256, 32, 1, 1, 3, 8, 0};
    const gdt_engine_slot *s = gemm_slot();
    gdt_facts f;
    gdt_error e = {0};
    gdt_plan_id id = gemm_plan(wg);
    facts_for("m=4096,n=4096,k=4096", 80, &f);
    CHECK_INT(s->ops->check_support(s, &f, &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "MMA=1 (wgmma) needs sm_90a, target is sm80");
    facts_for("m=4096,n=4096,k=4096", 90, &f);
    CHECK_INT(s->ops->check_support(s, &f, &id, &e), ==, GDT_STATUS_OK);
    facts_for("m=4100,n=4096,k=4096,a=col", 90, &f);
    CHECK_INT(s->ops->check_support(s, &f, &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "operand A is not");
    id = gemm_plan(wide);
    facts_for("m=4096,n=4096,k=4096", 90, &f);
    CHECK_INT(s->ops->check_support(s, &f, &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "accumulators per thread exceed 128");
    gdt_plan_id bare = {.engine_id = id.engine_id};
    gdt_plan_id_set_knob(&bare, GDT_KNOB_TILE_M, 128);
    CHECK_INT(s->ops->check_support(s, &f, &bare, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "lacks knob TILE_N (column BN)");
}

static char *entry_file(const char *root, gdt_nvrtc_key *k, const gdt_facts *f,
                        const gdt_plan_id *id)
{
    gdt_nvrtc_options o;
    gdt_error e = {0};
    static char path[4096];
    CHECK_INT(gdt__nvrtc_options(&gdt__tmpl_gemm, f, id, 90, &o, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt__nvrtc_key(&gdt__tmpl_gemm, &o, 90, k, &e), ==, GDT_STATUS_OK);
    snprintf(path, sizeof path, "%s/%s/%s.cubin", root, k->env, k->key);
    return path;
}

static gdt_status cached(const char *root, const gdt_facts *f, const gdt_plan_id *id,
                         gdt_build_info *info, void **cubin, size_t *len)
{
    gdt_error e = {0};
    memset(info, 0, sizeof *info);
    gdt_status st = gdt__nvrtc_compile_cached(&gdt__tmpl_gemm, f, id, 90, root, cubin, len, info, &e);
    if (st != GDT_STATUS_OK)
        fprintf(stderr, "cached compile: %s\n", e.msg);
    return st;
}

static void test_cache(void)
{
    static const int64_t row[] = {128, 128, 64, 4, 1, 4, 8, 1};
    char root[] = "/tmp/gdt_nvrtc_cacheXXXXXX", stale[512], junk[600], marker[600];
    gdt_facts f;
    gdt_build_info info;
    gdt_nvrtc_key k, k2;
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    struct stat st;
    CHECK(mkdtemp(root) != NULL);
    /* A stale environment of 2 MiB, marked as gdtune marks the ones it makes,
     * against a 1 MiB cap: the first write prunes it, never the current one. */
    snprintf(stale, sizeof stale, "%s/0123456789abcdef", root);
    snprintf(junk, sizeof junk, "%s/%064d.cubin", stale, 0);
    snprintf(marker, sizeof marker, "%s/gdtune-env", stale);
    CHECK(mkdir(stale, 0755) == 0);
    CHECK_INT(gdt_file_write_atomic(marker, "GDTUNE-CACHE-ENV 1\n", 19, NULL), ==, GDT_STATUS_OK);
    char *big = calloc(1, 2 << 20);
    CHECK_INT(gdt_file_write_atomic(junk, big, 2 << 20, NULL), ==, GDT_STATUS_OK);
    free(big);
    setenv("GDTUNE_CACHE_MAX_MB", "1", 1);

    gdt_plan_id id = gemm_plan(row);
    facts_for("m=512,n=512,k=512", 90, &f);
    char *path = entry_file(root, &k, &f, &id);
    CHECK_STR(k.arch, "sm_90a");
    CHECK_INT(cached(root, &f, &id, &info, &a, &na), ==, GDT_STATUS_OK);
    CHECK(!info.cache_hit && info.compile_seconds > 0);
    CHECK(stat(path, &st) == 0);
    CHECK(stat(stale, &st) != 0); /* pruned */
    CHECK_INT(cached(root, &f, &id, &info, &b, &nb), ==, GDT_STATUS_OK);
    CHECK(info.cache_hit);
    CHECK(na == nb && a && b && memcmp(a, b, na) == 0);
    free(b);
    /* A damaged entry is a miss (recompiled and rewritten), never an error. */
    CHECK(gdt_test_flip_byte(path, 1));
    CHECK(!gdt__cache_get(root, &k, GDT_CACHE_CUBIN, &b, &nb));
    CHECK_INT(cached(root, &f, &id, &info, &b, &nb), ==, GDT_STATUS_OK);
    CHECK(!info.cache_hit);
    free(b);
    CHECK_INT(cached(root, &f, &id, &info, &b, &nb), ==, GDT_STATUS_OK);
    CHECK(info.cache_hit && nb == na);
    free(b);
    /* Another layout is another key; the same plan and layout, the same. */
    facts_for("m=512,n=512,k=512,b=col", 90, &f);
    entry_file(root, &k2, &f, &id);
    CHECK(strcmp(k.key, k2.key) != 0);
    CHECK_STR(k.env, k2.env);
    facts_for("m=1024,n=2048,k=512", 90, &f);
    entry_file(root, &k2, &f, &id);
    CHECK_STR(k.key, k2.key);
    free(a);
    CHECK(gdt_test_remove_tree(root) == 0);
}

static void test_cache_root(void)
{
    char buf[512];
    unsetenv("GDTUNE_DISABLE_CACHE");
    setenv("GDTUNE_CACHE_DIR", "/x/cache", 1);
    CHECK_STR(gdt_nvrtc_cache_root(buf, sizeof buf), "/x/cache");
    unsetenv("GDTUNE_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/x/xdg", 1);
    CHECK_STR(gdt_nvrtc_cache_root(buf, sizeof buf), "/x/xdg/gdtune");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/x/home", 1);
    CHECK_STR(gdt_nvrtc_cache_root(buf, sizeof buf), "/x/home/.cache/gdtune");
    setenv("GDTUNE_DISABLE_CACHE", "1", 1);
    CHECK(gdt_nvrtc_cache_root(buf, sizeof buf) == NULL);
}

static void test_args(void)
{
    gdt_nvrtc_args a = {0};
    char c = 1;
    double d = 2;
    unsigned char big[600] = {0};
    CHECK(gdt_nvrtc_arg(&a, &c, 1));
    CHECK(gdt_nvrtc_arg(&a, &d, sizeof d));
    CHECK_INT((unsigned char *)a.args[1] - a.bytes, ==, 8); /* aligned to its size */
    CHECK(*(double *)a.args[1] == 2);
    CHECK(!gdt_nvrtc_arg(&a, big, sizeof big));
    CHECK_INT(a.nargs, ==, 2);
}

static void check_layout(const char *shape, int ak, int bk, int av, int bv, int cv)
{
    gdt_facts f;
    gdt_gemm_layout l;
    facts_for(shape, 90, &f);
    gdt__gemm_layout(&f, &l);
    if (l.a_kmajor != ak || l.b_kmajor != bk || l.a_vec != av || l.b_vec != bv || l.c_vec2 != cv)
        fprintf(stderr, "%s: layout %d %d %d %d %d\n", shape, l.a_kmajor, l.b_kmajor, l.a_vec,
                l.b_vec, l.c_vec2);
    CHECK_INT(l.a_kmajor, ==, ak);
    CHECK_INT(l.b_kmajor, ==, bk);
    CHECK_INT(l.a_vec, ==, av);
    CHECK_INT(l.b_vec, ==, bv);
    CHECK_INT(l.c_vec2, ==, cv);
}

static int64_t define_of(const gdt_facts *f, const gdt_plan_id *id, const char *name)
{
    gdt_nvrtc_define d[GDT_NVRTC_MAX_DEFINES];
    int n = gdt__tmpl_gemm.defines(f, id, d, GDT_NVRTC_MAX_DEFINES);
    for (int i = 0; i < n; i++)
        if (!strcmp(d[i].name, name))
            return d[i].value;
    return -1;
}

/* The layout flags the kernel is compiled with, and the launch it gets. */
static void test_layout_and_launch(void)
{
    static const int64_t wg[] = {128, 128, 64, 4, 1, 4, 8, 1};
    static const int64_t ms[] = {128, 128, 32, 2, 2, 4, 8, 0};
    /*                                        A_K B_K A_V B_V C_V2 */
    check_layout("m=130,n=72,k=200", 1, 0, 1, 1, 1);
    check_layout("m=130,n=72,k=200,a=col", 0, 0, 0, 1, 1);
    check_layout("m=128,n=71,k=64,b=col", 1, 1, 1, 1, 0);
    check_layout("m=128,n=72,k=65,b=col", 1, 1, 0, 0, 1);
    check_layout("batch=3,m=64,n=96,k=80,a=col", 0, 0, 1, 1, 1);
    gdt_facts f;
    gdt_nvrtc_launch l;
    gdt_plan_id id = gemm_plan(wg);
    facts_for("m=4096,n=4096,k=4096", 90, &f);
    gdt__tmpl_gemm.launch(&f, &id, 0, &l);
    CHECK_INT(l.grid[0], ==, 32 * 32);
    CHECK_INT(l.grid[1], ==, 1);
    CHECK_INT(l.block[0], ==, 128);
    CHECK_INT(l.smem_bytes, ==, 4 * (128 + 128) * 64 * 2 + 1024);
    CHECK_INT(define_of(&f, &id, "MMA"), ==, 1);
    CHECK_INT(define_of(&f, &id, "B_KMAJOR"), ==, 0);
    id = gemm_plan(ms);
    facts_for("batch=3,m=130,n=72,k=200", 90, &f);
    gdt__tmpl_gemm.launch(&f, &id, 0, &l);
    CHECK_INT(l.grid[0], ==, 2 * 1);
    CHECK_INT(l.grid[1], ==, 3);
    CHECK_INT(l.block[0], ==, 128);
    /* A [128][32+8] and B [32][128+8] per stage, bf16. */
    CHECK_INT(l.smem_bytes, ==, 4 * (128 * 40 + 32 * 136) * 2);
    CHECK_INT(define_of(&f, &id, "BK"), ==, 32);
    CHECK_INT(define_of(&f, &id, "GDT_FP16"), ==, 0);
}

int main(void)
{
    test_layout_and_launch();
    test_args();
    test_broken_define();
    test_check_support();
    test_cache();
    test_cache_root();
    test_default_rows();
    return gdt_test_result("test_nvrtc_compile");
}
