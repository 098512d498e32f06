/* Every JSON loader over a corpus of malformed inputs, under
 * -fsanitize=address,undefined (tests/CMakeLists.txt): the candidate-row
 * loader, `tables check`, the tables pair loader and the shape parser.  Each
 * malformed input must come back as a non-OK status with a message; none may
 * crash, leak or read out of bounds.  The corpus is built here, in code, from
 * valid inputs the writers produce: nesting 10^5 deep, 1e400, -0, integers
 * above 2^53, duplicate keys, keys differing only in case, wrong types, every
 * truncation, NUL bytes, dims whose product overflows, and seeded byte
 * mutations (which may happen to stay valid: those only must not crash). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdt_journal.h"
#include "gdt_sweep.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/candidates.h"
#include "gdtune/tables.h"

static char root[256];
static int inputs;

/* ------------------------------------------------------------- plumbing */

typedef struct text {
    char *p;
    size_t n;
} text;

static text dup_text(const char *s, size_t n)
{
    text t = {malloc(n + 1), n};
    memcpy(t.p, s, n);
    t.p[n] = '\0';
    return t;
}

/* First occurrence of `from` replaced by `to`; NULL-text when absent. */
static text replace(const text *t, const char *from, const char *to)
{
    char *hit = strstr(t->p, from);
    if (!hit) {
        fprintf(stderr, "corpus base lacks \"%s\"\n", from);
        gdt_test_failures++;
        return dup_text(t->p, t->n);
    }
    size_t head = (size_t)(hit - t->p), nf = strlen(from), nt = strlen(to);
    text r = {malloc(t->n - nf + nt + 1), t->n - nf + nt};
    memcpy(r.p, t->p, head);
    memcpy(r.p + head, to, nt);
    memcpy(r.p + head + nt, hit + nf, t->n - head - nf);
    r.p[r.n] = '\0';
    return r;
}

/* Plain write (no fsync): thousands of corpus files. */
static void put(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n) {
        perror(path);
        gdt_test_failures++;
    }
    if (f) fclose(f);
}

static void expect_refused(gdt_status s, const gdt_error *e, const char *what, const char *data, size_t n)
{
    inputs++;
    if (s != GDT_STATUS_OK && e->msg[0]) return;
    fprintf(stderr, "%s accepted (or no message) a malformed input of %zu bytes: status %s: %.200s\n",
            what, n, gdt_status_name(s), data);
    gdt_test_failures++;
}

/* ------------------------------------------------------------- loaders */

static void rows_refuse(const char *data, size_t n)
{
    gdt_row_table *t = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status s = gdt_rows_load_text(data, n, "corpus/nvrtc.json", &t, &e);
    expect_refused(s, &e, "gdt_rows_load_text", data, n);
    gdt_rows_destroy(t);
}

static void sweep_refuse(const char *data, size_t n)
{
    gdt_sweep_spec *s = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status st = gdt_sweep_spec_parse(data, n, "corpus/sweep.json", false, &s, &e);
    expect_refused(st, &e, "gdt_sweep_spec_parse", data, n);
    gdt_sweep_spec_destroy(s);
}

/* --tuning-config reads a file and must leave the table untouched when it
 * refuses. */
static void override_refuse(const char *data, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/override.json", root);
    put(path, data, n);
    gdt_row_table *t = NULL;
    gdt_error e;
    if (gdt_rows_load_default(&t, &e) != GDT_STATUS_OK) {
        fprintf(stderr, "default rows: %s\n", e.msg);
        gdt_test_failures++;
        return;
    }
    int before = gdt_rows_count(t, "contraction");
    gdt_error_clear(&e);
    gdt_status st = gdt_rows_override(t, path, &e);
    expect_refused(st, &e, "gdt_rows_override", data, n);
    CHECK_INT(gdt_rows_count(t, "contraction"), ==, before);
    gdt_rows_destroy(t);
}

/* Journals: a record that does not parse before the last is refused; a
 * torn last record is ignored.  Neither may crash. */
static void journal_survive(const char *data, size_t n, bool must_refuse)
{
    char path[512];
    snprintf(path, sizeof path, "%s/journal.jsonl", root);
    put(path, data, n);
    gdt_journal_lines l;
    memset(&l, 0, sizeof l);
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status st = gdt_journal_read(path, &l, &e);
    if (must_refuse) expect_refused(st, &e, "gdt_journal_read", data, n);
    else if (st != GDT_STATUS_OK && !e.msg[0]) gdt_test_failures++, fprintf(stderr, "journal: no message\n");
    if (st == GDT_STATUS_OK) gdt_journal_lines_free(&l);
    inputs += !must_refuse;
}

static gdt_status check_file(const char *data, size_t n, gdt_error *e)
{
    char path[512];
    snprintf(path, sizeof path, "%s/check.json", root);
    put(path, data, n);
    gdt_error_clear(e);
    return gdt_table_check_file(path, e);
}

static text good_tuning, good_placement;

/* The pair loader with one file of the pair malformed. */
static gdt_status pair_load(const char *data, size_t n, bool tuning, gdt_error *e)
{
    char dir[512], tp[600], pp[600];
    snprintf(dir, sizeof dir, "%s/pair/sm90", root);
    snprintf(tp, sizeof tp, "%s/gemm.tuning.json", dir);
    snprintf(pp, sizeof pp, "%s/gemm.placement.json", dir);
    put(tp, tuning ? data : good_tuning.p, tuning ? n : good_tuning.n);
    put(pp, tuning ? good_placement.p : data, tuning ? good_placement.n : n);
    char top[512];
    snprintf(top, sizeof top, "%s/pair", root);
    gdt_tables *t = NULL;
    gdt_error_clear(e);
    gdt_status s = gdt_tables_load(top, GDT_FAMILY_GEMM, 90, &t, e);
    gdt_tables_destroy(t);
    return s;
}

/* A malformed table goes through both the single-file check and the pair
 * loader. */
static void table_refuse(const char *data, size_t n, bool tuning)
{
    gdt_error e;
    gdt_status s = check_file(data, n, &e);
    expect_refused(s, &e, "gdt_table_check_file", data, n);
    s = pair_load(data, n, tuning, &e);
    expect_refused(s, &e, "gdt_tables_load", data, n);
}

static void table_survive(const char *data, size_t n, bool tuning)
{
    gdt_error e;
    gdt_status s = check_file(data, n, &e);
    if (s != GDT_STATUS_OK && !e.msg[0]) gdt_test_failures++, fprintf(stderr, "no message\n");
    s = pair_load(data, n, tuning, &e);
    if (s != GDT_STATUS_OK && !e.msg[0]) gdt_test_failures++, fprintf(stderr, "no message\n");
    inputs++;
}

/* --------------------------------------------------------- valid bases */

static void make_tables(void)
{
    gdt_measured_plan p[2] = {{.id = {.engine_id = 7, .nknobs = 1, .knobs = {{GDT_KNOB_KERNEL_CFG, 2}}},
                               .is_backend = true, .mode = GDT_MODE_A, .untimed_position = 0,
                               .time_us = 120, .noise = 0.01, .host_us = 5, .samples = 20},
                              {.id = {.engine_id = gdt_engine_id(GDT_FAMILY_GEMM, 0), .nknobs = 2,
                                      .knobs = {{GDT_KNOB_TILE_M, 128}, {GDT_KNOB_TILE_N, 64}}},
                               .mode = GDT_MODE_A, .untimed_position = 1, .time_us = 100,
                               .noise = 0.01, .host_us = 4, .samples = 20}};
    gdt_measured_cell c = {.plans = p, .nplans = 2};
    gdt_error e;
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "m=512,n=256,k=128", &c.problem, &e), ==, GDT_STATUS_OK);
    gdt_provenance prov = {.arch = 90, .cudnn_version = 91900};
    snprintf(prov.device_name, sizeof prov.device_name, "corpus");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/good/sm90", root);
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_GEMM, &prov, &c, 1, &e), ==, GDT_STATUS_OK);
    char *d;
    size_t n;
    snprintf(path, sizeof path, "%s/gemm.tuning.json", dir);
    CHECK_INT(gdt_file_read(path, &d, &n, &e), ==, GDT_STATUS_OK);
    good_tuning = (text){d, n};
    snprintf(path, sizeof path, "%s/gemm.placement.json", dir);
    CHECK_INT(gdt_file_read(path, &d, &n, &e), ==, GDT_STATUS_OK);
    good_placement = (text){d, n};
}

/* ------------------------------------------------------------ the corpus */

static text deep(size_t levels, const char *open, const char *close)
{
    size_t no = strlen(open), nc = strlen(close);
    text t = {malloc(levels * (no + nc) + 1), levels * (no + nc)};
    for (size_t i = 0; i < levels; i++) memcpy(t.p + i * no, open, no);
    for (size_t i = 0; i < levels; i++) memcpy(t.p + levels * no + i * nc, close, nc);
    t.p[t.n] = '\0';
    return t;
}

static void each_loader_refuses(const char *data, size_t n)
{
    rows_refuse(data, n);
    override_refuse(data, n);
    sweep_refuse(data, n);
    table_refuse(data, n, true);
    table_refuse(data, n, false);
}

static void corpus_generic(void)
{
    text d1 = deep(100000, "[", "]"), d2 = deep(100000, "{\"a\":", "}"), d3 = deep(100000, "[", "");
    each_loader_refuses(d1.p, d1.n);
    each_loader_refuses(d2.p, d2.n);
    each_loader_refuses(d3.p, d3.n);
    free(d1.p), free(d2.p), free(d3.p);
    const char *const docs[] = {"", " ", "1e400", "-0", "9007199254740993", "null", "[]", "\"x\"",
                                "{", "}", "{\"nvrtc\": 1e400}", "{\"a\": 1, \"a\": 2}",
                                "{\"Nvrtc\": {}, \"nvrtc\": {}}", "\xff\xfe", "{\"nvrtc\": {}} x"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) each_loader_refuses(docs[i], strlen(docs[i]));
    const char nul[] = "{\"nvrtc\"\0: {}}";
    each_loader_refuses(nul, sizeof nul - 1);
}

static void corpus_rows(void)
{
    const gdt_embedded *d = gdt_embedded_find("tables/candidates/nvrtc.json");
    CHECK(d != NULL);
    if (!d) return;
    text base = dup_text(d->data, d->len);
    const char *const edits[][2] = {
        {"[128, 128, 64, 2, 2, 3, 8, 0]", "[1e400, 128, 64, 2, 2, 3, 8, 0]"},
        {"[128, 128, 64, 2, 2, 3, 8, 0]", "[-0, 128, 64, 2, 2, 3, 8, 0]"},
        {"[128, 128, 64, 2, 2, 3, 8, 0]", "[9007199254740993, 128, 64, 2, 2, 3, 8, 0]"},
        {"[128, 128, 64, 2, 2, 3, 8, 0]", "[128, 128, 64, 2, 2, 3, 8, 0.5]"},
        {"[128, 128, 64, 2, 2, 3, 8, 0]", "[\"128\", 128, 64, 2, 2, 3, 8, 0]"},
        {"[128, 128, 64, 2, 2, 3, 8, 0]", "{\"BM\": 128}"},
        {"[128, 128, 64, 2, 2, 3, 8, 0]", "[128, 128, 64, 2, 2, 3, 8]"},
        {"[128, 128, 64, 2, 2, 3, 8, 0]", "[128, 128, 64, 2, 2, 3, 8, 2]"},
        {"\"contraction\"", "\"Contraction\": [], \"contraction\""},
        {"\"contraction\"", "\"attention_fwd\": [[64, 64, 4, 2, 0]], \"contraction\""},
        {"\"contraction\"", "\"no_such_family\""},
        {"\"nvrtc\"", "\"triton\""},
        {"\"contraction\": [", "\"contraction\": [[128, 128, 64, 2, 2, 3, 8, 0], "},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        text t = replace(&base, edits[i][0], edits[i][1]);
        rows_refuse(t.p, t.n);
        free(t.p);
    }
    size_t end = base.n;
    while (end > 0 && strchr(" \t\r\n", base.p[end - 1])) end--;
    for (size_t n = 0; n < end; n++) rows_refuse(base.p, n); /* every truncation */
    text nul = dup_text(base.p, base.n);
    nul.p[base.n / 2] = '\0';
    rows_refuse(nul.p, nul.n);
    free(nul.p);
    free(base.p);
}

static void corpus_tables(bool tuning)
{
    const text *base = tuning ? &good_tuning : &good_placement;
    const char *const common[][2] = {
        {"\"schema\"", "\"Schema\": \"x\", \"schema\""},
        {"\"arch\": 90", "\"arch\": 90, \"arch\": 90"},
        {"\"arch\": 90", "\"arch\": 9007199254740993"},
        {"\"arch\": 90", "\"arch\": -0"},
        {"\"arch\": 90", "\"arch\": 1e400"},
        {"\"arch\": 90", "\"arch\": \"90\""},
        {"\"device_name\": \"corpus\"", "\"device_name\": 7"},
        {"\"provenance\": {", "\"provenance\": {\"extra\": 1, "},
        {"\"m\": 512", "\"m\": -0"},
        {"\"m\": 512", "\"m\": 1e400"},
        {"\"m\": 512", "\"m\": 9007199254740993"},
        {"\"batch\": 1, \"m\": 512, \"n\": 256, \"k\": 128",
         "\"batch\": 2147483647, \"m\": 2147483647, \"n\": 2147483647, \"k\": 2147483647"},
        {"\"a_stride\": [", "\"a_stride\": [1, "},
        {"\"dtype\": \"bf16\"", "\"dtype\": \"bf17\""},
        {"\"cells\": [", "\"cells\": [1, "},
        {"\"cells\": [", "\"cells\": {\"x\": "},
        {"\"facts\": {\"flops\": ", "\"facts\": {\"flops\": 1e400, \"x\": "},
        {"\"key\": \"gemm:", "\"key\": \"GEMM:"},
    };
    const char *const tuning_edits[][2] = {
        {"\"backend_pos\": 2", "\"backend_pos\": 3"},
        {"\"backend_pos\": 2", "\"backend_pos\": -0.5"},
        {"\"time_us\": 100", "\"time_us\": -0"},
        {"\"engine_id\": 7,", "\"engine_id\": 9007199254740993,"},
        {"\"engine_id\": 7,", "\"engine_id\": 7, \"Engine_id\": 7,"},
        {"\"knobs\": {\"KERNEL_CFG\": 2}", "\"knobs\": {\"KERNEL_CFG\": 2, \"KERNEL_CFG\": 3}"},
        {"\"knobs\": {\"KERNEL_CFG\": 2}", "\"knobs\": [2]"},
        {"\"is_backend\": true", "\"is_backend\": 1"},
        {"\"ranking\": [", "\"ranking\": [null, "},
        {"\"evidence\": {", "\"evidence\": {\"winner\": 5, "},
    };
    const char *const placement_edits[][2] = {
        {"\"decision\": \"LEAD\"", "\"decision\": \"lead\""},
        {"\"ratio\": 0.833333", "\"ratio\": -0"},
        {"\"ratio\": 0.833333", "\"ratio\": null"},
        {"\"metric\": \"flops\"", "\"metric\": \"q_tiles128\""},
        {"\"lo\": null", "\"lo\": 1e400"},
        {"\"cells\": [\"gemm:", "\"cells\": [\"gemm:nothing\", \"gemm:"},
        {"\"group\": {", "\"group\": {\"d\": 64, "},
    };
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) {
        text t = replace(base, common[i][0], common[i][1]);
        table_refuse(t.p, t.n, tuning);
        free(t.p);
    }
    size_t ne = tuning ? sizeof tuning_edits / sizeof tuning_edits[0]
                       : sizeof placement_edits / sizeof placement_edits[0];
    for (size_t i = 0; i < ne; i++) {
        const char *const *ed = tuning ? tuning_edits[i] : placement_edits[i];
        text t = replace(base, ed[0], ed[1]);
        table_refuse(t.p, t.n, tuning);
        free(t.p);
    }
    size_t end = base->n;
    while (end > 0 && strchr(" \t\r\n", base->p[end - 1])) end--;
    for (size_t n = 0; n < end; n++) {
        gdt_error e;
        gdt_status s = check_file(base->p, n, &e); /* every truncation */
        expect_refused(s, &e, "gdt_table_check_file (truncated)", base->p, n);
    }
    text nul = dup_text(base->p, base->n);
    nul.p[base->n / 3] = '\0';
    table_refuse(nul.p, nul.n, tuning);
    free(nul.p);
}

static void corpus_sweeps(void)
{
    const gdt_embedded *d = gdt_embedded_find("sweeps/gemm.json");
    CHECK(d != NULL);
    if (!d) return;
    text base = dup_text(d->data, d->len);
    const char *const edits[][2] = {
        {"\"m\": [128", "\"m\": [1e400"},
        {"\"m\": [128", "\"m\": [-0"},
        {"\"m\": [128", "\"m\": [9007199254740993"},
        {"\"m\": [128", "\"m\": [2147483647], \"batch\": [2147483647], \"x\": [128"},
        {"\"m\": [128", "\"m\": [], \"M\": [128"},
        {"\"schema\"", "\"schema\": \"gdtune.sweep/1\", \"schema\""},
        {"\"schema\"", "\"Schema\": 1, \"schema\""},
        {"\"bursts\": [", "\"bursts\": \"x\", \"b\": ["},
        {"\"bursts\": [", "\"nonsense\": 1, \"bursts\": ["},
        {"\"grid\": [", "\"grid\": [1, "},
        {"gdtune.sweep/1", "gdtune.sweep/2"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        text t = replace(&base, edits[i][0], edits[i][1]);
        sweep_refuse(t.p, t.n);
        free(t.p);
    }
    size_t end = base.n;
    while (end > 0 && strchr(" \t\r\n", base.p[end - 1])) end--;
    for (size_t n = 0; n < end; n++) sweep_refuse(base.p, n); /* every truncation */
    text nul = dup_text(base.p, base.n);
    nul.p[base.n / 2] = '\0';
    sweep_refuse(nul.p, nul.n);
    free(nul.p);
    free(base.p);
}

static void corpus_journals(void)
{
    static const char *const bad[] = {
        "{\"a\": 1}\nnot json\n{\"b\": 2}\n",
        "[1, 2]\n{\"b\": 2}\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) journal_survive(bad[i], strlen(bad[i]), true);
    /* The journal reads what gdtune itself wrote: it is not held to the
     * tables' strictness (1e400, duplicate keys, a NUL inside a record are
     * read, not refused), only to not crashing. */
    static const char *const odd[] = {"{\"a\": 1e400}\n{\"b\": 2}\n", "{\"a\": 1, \"a\": 2}\n{\"b\": 2}\n"};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) journal_survive(odd[i], strlen(odd[i]), false);
    text d = deep(100000, "[", "]");
    char *two = malloc(d.n + 16);
    memcpy(two, d.p, d.n);
    memcpy(two + d.n, "\n{\"b\": 2}\n", 11);
    journal_survive(two, d.n + 11, true);
    free(two);
    free(d.p);
    const char nul[] = "{\"a\": 1}\n{\"a\0\": 1}\n{\"b\": 2}\n";
    journal_survive(nul, sizeof nul - 1, false);
    const char torn[] = "{\"a\": 1}\n{\"b\": 2}\n{\"c\": ";
    for (size_t n = 0; n <= sizeof torn - 1; n++) journal_survive(torn, n, false);
}

/* Seeded byte mutations: whatever they produce must not crash. */
static void corpus_mutations(const text *base, bool tuning, unsigned seed, int count)
{
    static const char bytes[] = "{}[]\",:0-9e.+ \\\x01\x7f\xff";
    for (int i = 0; i < count; i++) {
        text t = dup_text(base->p, base->n);
        for (int k = 0; k < 1 + i % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % t.n;
            t.p[at] = bytes[(seed >> 20) % (sizeof bytes - 1)];
        }
        table_survive(t.p, t.n, tuning);
        free(t.p);
    }
}

static void corpus_shapes(void)
{
    static const struct { gdt_family f; const char *spec; } bad[] = {
        {GDT_FAMILY_GEMM, "m=2147483647,n=2147483647,k=2147483647,batch=2147483647"},
        {GDT_FAMILY_GEMM, "m=9223372036854775807"},
        {GDT_FAMILY_GEMM, "m=99999999999999999999999"},
        {GDT_FAMILY_GEMM, "m=-0"},
        {GDT_FAMILY_GEMM, "m=0"},
        {GDT_FAMILY_GEMM, "m=-5"},
        {GDT_FAMILY_GEMM, "m=1e400"},
        {GDT_FAMILY_GEMM, "m=12x"},
        {GDT_FAMILY_GEMM, "m="},
        {GDT_FAMILY_GEMM, "=5"},
        {GDT_FAMILY_GEMM, "m=5,m=6"},
        {GDT_FAMILY_GEMM, "M=5"},
        {GDT_FAMILY_GEMM, "m=5,,n=4"},
        {GDT_FAMILY_GEMM, "dtype=fp64"},
        {GDT_FAMILY_SDPA_FWD, "b=2147483647,h_q=2147483647,s_q=2147483647,d=2147483647"},
        {GDT_FAMILY_SDPA_FWD, "h_q=3,h_kv=2"},
        {GDT_FAMILY_SDPA_BWD, "scale=1e400"},
        {GDT_FAMILY_SDPA_BWD, "scale=-0"},
        {GDT_FAMILY_SDPA_BWD, "s_q=9007199254740993"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gdt_problem p;
        gdt_error e;
        gdt_error_clear(&e);
        gdt_status s = gdt_problem_parse(bad[i].f, bad[i].spec, &p, &e);
        expect_refused(s, &e, "gdt_problem_parse", bad[i].spec, strlen(bad[i].spec));
    }
    text long_spec = deep(100000, "m=1,", "");
    gdt_problem p;
    gdt_error e;
    gdt_error_clear(&e);
    expect_refused(gdt_problem_parse(GDT_FAMILY_GEMM, long_spec.p, &p, &e), &e, "gdt_problem_parse",
                   "m=1,m=1,...", 11);
    free(long_spec.p);
}

int main(void)
{
    /* Thousands of small files: a memory file system when there is one. */
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/gdt_asan_corpus.XXXXXX", tmp && *tmp ? tmp : "/dev/shm");
    if (!mkdtemp(root)) {
        snprintf(root, sizeof root, "/tmp/gdt_asan_corpus.XXXXXX");
        if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    }
    char dir[600];
    snprintf(dir, sizeof dir, "%s/pair/sm90", root);
    gdt_error e;
    CHECK_INT(gdt_mkdirs(dir, &e), ==, GDT_STATUS_OK);
    make_tables();
    if (!good_tuning.p || !good_placement.p) return gdt_test_result("asan_json_corpus");
    corpus_generic();
    corpus_rows();
    corpus_sweeps();
    corpus_journals();
    corpus_tables(true);
    corpus_tables(false);
    corpus_mutations(&good_tuning, true, 1u, 300);
    corpus_mutations(&good_placement, false, 2u, 300);
    corpus_shapes();
    printf("asan_json_corpus: %d inputs\n", inputs);
    free(good_tuning.p);
    free(good_placement.p);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("asan_json_corpus");
}
