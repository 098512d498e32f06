/* Candidate rows: the strict JSON layer, every loader diagnostic with its
 * message text, the --tuning-config override, projection edges, bind,
 * deduplication, digest, and the table printed back as a rows file. */
#include <math.h>

#include "gdt_json.h"
#include "gdt_rows.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/candidates.h"

#define DATA GDT_TEST_DATA "/candidates/"

/* ------------------------------------------------------------ JSON layer */

static gdt_status parse(const char *text, gdt_error *e)
{
    cJSON *root = NULL;
    gdt_status st = gdt_json_parse(text, strlen(text), "t.json", &root, e);
    CHECK(st ? root == NULL : root != NULL);
    cJSON_Delete(root);
    return st;
}

static void test_json_parse(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"{\"a\": 1, \"a\": 2}", "t.json: /: duplicate key: /a and /a (members 0 and 1)"},
        {"{\"x\": {\"Rows\": 1, \"rows\": 2}}", "t.json: /x: two keys equal ignoring case: /x/Rows and /x/rows"},
        {"[1, 1e400]", "t.json: /1: expected a finite number"},
        {"[1, -1e400]", "t.json: /1: expected a finite number"},
        {"[1, 2", "t.json: truncated JSON: input ends inside an unclosed array or object"},
        {"{\"a\": \"abc", "t.json: truncated JSON: input ends inside a string"},
        {"[1, ]", "t.json: malformed JSON at offset 4 (line 1, column 5)"},
        {"[1]\n  x", "t.json: unexpected text after the JSON value at offset 6 (line 2, column 3)"},
        {"", "t.json: empty input"},
        {"  \n ", "t.json: empty input"},
        {"{\"a/b~\": {\"k\": 1, \"k\": 2}}", "/a~1b~0/k and /a~1b~0/k"},
    };
    gdt_error e;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(parse(bad[i].text, &e), ==, GDT_STATUS_BAD_INPUT);
        CHECK_CONTAINS(e.msg, bad[i].want);
    }
    CHECK_INT(parse("{\"a\": [1, {\"b\": -0}], \"A2\": null}", &e), ==, GDT_STATUS_OK);

    char nul[] = "[1, 2]";
    nul[3] = '\0';
    cJSON *root;
    CHECK_INT(gdt_json_parse(nul, 6, "t.json", &root, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "t.json: NUL byte at offset 3");
}

static char *nested(int depth)
{
    char *s = malloc((size_t)depth * 2 + 1);
    for (int i = 0; i < depth; i++) s[i] = '[', s[depth + i] = ']';
    s[2 * depth] = '\0';
    return s;
}

static void test_json_depth(void)
{
    gdt_error e;
    char *ok = nested(GDT_JSON_MAX_DEPTH), *deep = nested(GDT_JSON_MAX_DEPTH + 1), *huge = nested(100000);
    CHECK_INT(parse(ok, &e), ==, GDT_STATUS_OK);
    CHECK_INT(parse(deep, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "t.json: nesting deeper than 64 levels at offset 64");
    CHECK_INT(parse(huge, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "nesting deeper than 64 levels");
    free(ok), free(deep), free(huge);
}

static void test_json_readers(void)
{
    const char *text = "{\"i\": 12, \"f\": 1.5, \"s\": \"x\", \"b\": true, \"big\": 9007199254740993,"
                       " \"edge\": 9007199254740991, \"limit\": -9007199254740992, \"neg\": -0, \"n\": null}";
    cJSON *r;
    gdt_error e;
    CHECK_INT(gdt_json_parse(text, strlen(text), "r.json", &r, &e), ==, GDT_STATUS_OK);
    int64_t i;
    double d;
    const char *s;
    bool b;
    CHECK_INT(gdt_json_int(gdt_json_get(r, "i"), "r.json", "/i", &i, &e), ==, 0);
    CHECK_INT(i, ==, 12);
    CHECK_INT(gdt_json_int(gdt_json_get(r, "edge"), "r.json", "/edge", &i, &e), ==, 0);
    CHECK_INT(i, ==, 9007199254740991LL);
    CHECK_INT(gdt_json_int(gdt_json_get(r, "limit"), "r.json", "/limit", &i, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "r.json: /limit: expected an integer of magnitude below 2^53, got number -9007199254740992");
    CHECK_INT(gdt_json_int(gdt_json_get(r, "neg"), "r.json", "/neg", &i, &e), ==, 0);
    CHECK_INT(i, ==, 0);
    CHECK_INT(gdt_json_int(gdt_json_get(r, "f"), "r.json", "/f", &i, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "r.json: /f: expected an integer, got number 1.5");
    CHECK_INT(gdt_json_int(gdt_json_get(r, "big"), "r.json", "/big", &i, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "r.json: /big: expected an integer of magnitude below 2^53");
    CHECK_INT(gdt_json_int(gdt_json_get(r, "s"), "r.json", "/s", &i, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "r.json: /s: expected an integer, got string \"x\"");
    CHECK_INT(gdt_json_number(gdt_json_get(r, "f"), "r.json", "/f", &d, &e), ==, 0);
    CHECK(d == 1.5);
    CHECK_INT(gdt_json_string(gdt_json_get(r, "s"), "r.json", "/s", &s, &e), ==, 0);
    CHECK_STR(s, "x");
    CHECK_INT(gdt_json_bool(gdt_json_get(r, "b"), "r.json", "/b", &b, &e), ==, 0);
    CHECK(b);
    CHECK_INT(gdt_json_bool(gdt_json_get(r, "i"), "r.json", "/i", &b, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "r.json: /i: expected a boolean, got number 12");
    CHECK_INT(gdt_json_string(gdt_json_get(r, "n"), "r.json", "/n", &s, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "r.json: /n: expected a string, got null");

    const cJSON *v;
    CHECK_INT(gdt_json_require(r, "nope", "r.json", "/", &v, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "r.json: /: missing required field \"nope\"");
    CHECK_INT(gdt_json_require(r, "I", "r.json", "", &v, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_INT(gdt_json_require(r, "i", "r.json", "", &v, &e), ==, GDT_STATUS_OK);
    CHECK(v == gdt_json_get(r, "i"));
    static const char *const allowed[] = {"i", "f", "s", "b", "big", "edge", "limit", "neg"};
    CHECK_INT(gdt_json_check_keys(r, allowed, 8, "r.json", "/t", &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "r.json: /t/n: unknown field \"n\" (expected one of: i, f, s, b, big, edge, limit, neg)");
    CHECK_STR(gdt_json_type_name(gdt_json_get(r, "b")), "boolean");
    CHECK_STR(gdt_json_type_name(NULL), "missing");
    cJSON_Delete(r);
}

/* ------------------------------------------------------------ diagnostics */

static void test_diagnostics(void)
{
    static const struct {
        const char *file, *want;
    } cases[] = {
        {"columns.json", "columns.json: /nvrtc/contraction/3: expected 8 to 16 columns (from PIPE on optional), got 7"},
        {"type_string.json", "type_string.json: /nvrtc/contraction/1/1: expected an integer, got string \"128\" (column BN)"},
        {"type_float.json", "type_float.json: /nvrtc/attention_fwd/1/1: expected an integer, got number 64.5 (column BLOCK_N)"},
        {"bool_range.json", "bool_range.json: /nvrtc/contraction/0/7: column MMA: expected a boolean (0 or 1), got 2"},
        {"nonpositive.json", "nonpositive.json: /nvrtc/attention_bwd/1/1: column BLOCK_N: expected a positive integer, got 0"},
        {"negative.json", "negative.json: /nvrtc/attention_bwd/0/2: column WARPS: expected a positive integer, got -8"},
        {"huge_int.json", "huge_int.json: /nvrtc/attention_fwd/0/3: expected an integer of magnitude below 2^53"},
        {"duplicate_row.json", "duplicate_row.json: /nvrtc/contraction/3: duplicate row (same as /nvrtc/contraction/0)"},
        {"empty_family.json", "empty_family.json: /nvrtc/contraction: empty family: expected at least one row of 8 to 16 columns (from PIPE on optional), got 0"},
        {"empty_namespace.json", "empty_namespace.json: /nvrtc: empty table: expected at least one structural family (contraction, attention_fwd, attention_bwd)"},
        {"empty_root.json", "empty_root.json: /: empty table: expected the provider namespace \"nvrtc\""},
        {"unknown_namespace.json", "unknown_namespace.json: /triton: unknown namespace \"triton\" (expected \"nvrtc\")"},
        {"unknown_family.json", "unknown_family.json: /nvrtc/contraction_narrow: unknown structural family \"contraction_narrow\" (expected one of: contraction, attention_fwd, attention_bwd)"},
        {"row_not_array.json", "row_not_array.json: /nvrtc/attention_fwd/1: expected a row (array of 7 integers), got object"},
        {"family_not_array.json", "family_not_array.json: /nvrtc/attention_fwd: expected an array of rows, got object"},
        {"root_array.json", "root_array.json: /: expected an object keyed by provider namespace (\"nvrtc\"), got array of 1"},
        {"truncated.json", "truncated.json: truncated JSON: input ends inside an unclosed array or object"},
        {"duplicate_key.json", "duplicate_key.json: /nvrtc: duplicate key: /nvrtc/attention_fwd and /nvrtc/attention_fwd (members 0 and 1)"},
        {"case_key.json", "case_key.json: /: two keys equal ignoring case: /nvrtc and /NVRTC"},
        {"nonfinite.json", "nonfinite.json: /nvrtc/attention_fwd/0/3: expected a finite number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024];
        gdt_row_table *t = (gdt_row_table *)&path; /* must be reset to NULL on failure */
        gdt_error e;
        snprintf(path, sizeof path, "%s%s", DATA, cases[i].file);
        gdt_status st = gdt_rows_load_file(path, &t, &e);
        CHECK_INT(st, ==, GDT_STATUS_BAD_INPUT);
        if (!st) gdt_rows_destroy(t);
        CHECK_INT(e.status, ==, GDT_STATUS_BAD_INPUT);
        CHECK(t == NULL);
        CHECK_CONTAINS(e.msg, cases[i].want);
        CHECK_CONTAINS(e.msg, path); /* the whole path, as given */
    }
}

static void test_unreadable(void)
{
    gdt_row_table *t;
    gdt_error e;
    CHECK_INT(gdt_rows_load_file(DATA "no_such_file.json", &t, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, DATA "no_such_file.json: cannot open: No such file or directory");
    CHECK_INT(gdt_rows_load_file(DATA, &t, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, DATA ": cannot read: a directory, not a regular file");
}

static void test_default_table(void)
{
    gdt_row_table *t;
    gdt_error e;
    CHECK_INT(gdt_rows_load_default(&t, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_rows_count(t, "contraction"), >=, 8);
    CHECK_INT(gdt_rows_count(t, "attention_fwd"), >=, 4);
    CHECK_INT(gdt_rows_count(t, "attention_bwd"), >=, 4);
    CHECK_INT(gdt_rows_count(t, "nope"), ==, 0);
    /* The embedded copy is the file in the tree. */
    char *text;
    size_t len;
    CHECK_INT(gdt_file_read(GDT_SOURCE_DIR "/tables/candidates/nvrtc.json", &text, &len, &e), ==, 0);
    const gdt_embedded *emb = gdt_embedded_find("tables/candidates/nvrtc.json");
    CHECK(emb && emb->len == len && !memcmp(emb->data, text, len));
    free(text);
    gdt_rows_destroy(t);
    gdt_rows_destroy(NULL);

    /* Diagnostics of text loads name the path given for messages. */
    const char *bad = "{\"nvrtc\": {\"attention_fwd\": [[1, 2, 3]]}}";
    CHECK_INT(gdt_rows_load_text(bad, strlen(bad), "tables/candidates/nvrtc.json", &t, &e), ==,
              GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "tables/candidates/nvrtc.json: /nvrtc/attention_fwd/0: expected 5 to 7 columns (from PIPE on optional), got 3");
}

/* The format page names every column and knob of every schema. */
static void test_readme(void)
{
    char *text;
    size_t len;
    gdt_error e;
    CHECK_INT(gdt_file_read(GDT_SOURCE_DIR "/tables/candidates/README.md", &text, &len, &e), ==, 0);
    if (!text) return;
    for (int i = 0; i < gdt__row_family_count(); i++) {
        const gdt_row_family *rf = gdt__row_family_at(i);
        char want[128];
        snprintf(want, sizeof want, "### `%s`", rf->name);
        CHECK_CONTAINS(text, want);
        for (int c = 0; c < rf->ncols; c++) {
            snprintf(want, sizeof want, "| %d | `%s` |", c, rf->cols[c].name);
            CHECK_CONTAINS(text, want);
            snprintf(want, sizeof want, "`%s`", gdt_knob_name(rf->cols[c].knob));
            CHECK_CONTAINS(text, want);
        }
    }
    free(text);
}

static void test_registry(void)
{
    CHECK_INT(gdt__row_family_count(), ==, 3);
    for (int i = 0; i < gdt__row_family_count(); i++) {
        const gdt_row_family *rf = gdt__row_family_at(i);
        CHECK(rf && gdt__row_family_find(rf->name) == rf);
        CHECK_INT(rf->ncols, <=, GDT_MAX_COLUMNS);
        for (int c = 0; c < rf->ncols; c++) {
            CHECK(gdt_knob_name(rf->cols[c].knob) != NULL);
            CHECK_INT(rf->cols[c].ndomain, >, 0);
            for (int k = 1; k < rf->cols[c].ndomain; k++) /* ascending: projection relies on it */
                CHECK_INT(rf->cols[c].domain[k - 1], <, rf->cols[c].domain[k]);
        }
    }
    CHECK(gdt__row_family_find("contraction") == &gdt__rows_contraction);
    CHECK(gdt__row_family_find("nope") == NULL);
    CHECK(gdt__row_family_at(3) == NULL);
    CHECK(gdt__row_family_at(-1) == NULL);
}

/* -------------------------------------------------------------- override */

static void test_override(void)
{
    gdt_row_table *t;
    gdt_error e;
    char before[65], after[65];
    CHECK_INT(gdt_rows_load_default(&t, &e), ==, 0);
    int contraction = gdt_rows_count(t, "contraction"), bwd = gdt_rows_count(t, "attention_bwd");
    gdt_rows_digest(t, before);
    CHECK_INT(gdt_rows_override(t, DATA "override_attention.json", &e), ==, 0);
    CHECK_INT(gdt_rows_count(t, "attention_fwd"), ==, 2); /* replaced as a group */
    CHECK_INT(gdt_rows_count(t, "contraction"), ==, contraction); /* omitted: defaults kept */
    CHECK_INT(gdt_rows_count(t, "attention_bwd"), ==, bwd);
    gdt_rows_digest(t, after);
    CHECK(strcmp(before, after) != 0);

    /* All-or-nothing: a bad override leaves the table as it was. */
    CHECK_INT(gdt_rows_override(t, DATA "columns.json", &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "columns.json: /nvrtc/contraction/3: expected 8 to 16 columns (from PIPE on optional), got 7");
    CHECK_INT(gdt_rows_override(t, DATA "missing.json", &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "missing.json: cannot open: No such file or directory");
    gdt_rows_digest(t, before);
    CHECK_STR(before, after);
    CHECK_INT(gdt_rows_count(t, "contraction"), ==, contraction);
    gdt_rows_destroy(t);
}

static void test_digest(void)
{
    gdt_row_table *a, *b;
    gdt_error e;
    char da[65], db[65];
    CHECK_INT(gdt_rows_load_file(DATA "override_attention.json", &a, &e), ==, 0);
    CHECK_INT(gdt_rows_load_file(DATA "whitespace_a.json", &b, &e), ==, 0);
    gdt_rows_digest(a, da);
    gdt_rows_digest(b, db);
    CHECK_STR(da, db); /* canonical content, not bytes */
    CHECK_INT((int)strlen(da), ==, 64);
    gdt_rows_destroy(a);
    gdt_rows_destroy(b);
    const char *t1 = "{\"nvrtc\": {\"attention_fwd\": [[64, 32, 4, 1, 0], [64, 64, 4, 2, 0]]}}";
    CHECK_INT(gdt_rows_load_text(t1, strlen(t1), "t1", &a, &e), ==, 0);
    gdt_rows_digest(a, db);
    CHECK(strcmp(da, db) != 0); /* row order is content */
    gdt_rows_destroy(a);
}

/* gdt_rows_print: a table printed loads back to the same rows; the text
 * is a rows file as the committed ones are written, each row in its
 * shortest form. */
static void check_round_trip(gdt_row_table *t)
{
    gdt_row_table *back = NULL;
    gdt_error e = {0};
    char *text = NULL, want[65], got[65] = "";
    gdt_rows_digest(t, want);
    CHECK_INT(gdt_rows_print(t, &text, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_rows_load_text(text, strlen(text), "printed", &back, &e), ==, GDT_STATUS_OK);
    if (back)
        gdt_rows_digest(back, got);
    CHECK_STR(got, want);
    for (int i = 0; back && i < gdt__row_family_count(); i++)
        CHECK_INT(gdt_rows_count(back, gdt__row_family_at(i)->name), ==,
                  gdt_rows_count(t, gdt__row_family_at(i)->name));
    gdt_rows_destroy(back);
    free(text);
}

static void test_print(void)
{
    gdt_row_table *t;
    gdt_error e;
    char *text = NULL, *file = NULL;
    size_t n;
    CHECK_INT(gdt_rows_load_file(DATA "whitespace_a.json", &t, &e), ==, 0);
    CHECK_INT(gdt_rows_print(t, &text, &e), ==, 0);
    CHECK_INT(gdt_file_read(DATA "override_attention.json", &file, &n, &e), ==, 0);
    CHECK_STR(text, file);
    free(text), free(file), gdt_rows_destroy(t);
    const char *pipe1 = "{\"nvrtc\": {\"contraction\": [[128,128,64,8,1,4,8,1,1,1,2,0,0,0,0]]}}";
    CHECK_INT(gdt_rows_load_text(pipe1, strlen(pipe1), "pipe1", &t, &e), ==, 0);
    CHECK_INT(gdt_rows_print(t, &text, &e), ==, 0);
    CHECK_STR(text, "{\n  \"nvrtc\": {\n    \"contraction\": [\n      [128, 128, 64, 8, 1, 4, 8, 1, 1]\n    ]\n  }\n}\n");
    free(text), gdt_rows_destroy(t);
    CHECK_INT(gdt_rows_load_default(&t, &e), ==, 0);
    check_round_trip(t);
    CHECK_INT(gdt_rows_override(t, DATA "staged_s37.json", &e), ==, 0); /* what sweep --tuning-config keeps */
    check_round_trip(t);
    gdt_rows_destroy(t);
}

/* ----------------------------------------------------------- materialize */

static gdt_candidate *materialize(const char *text, gdt_family fam, const char *shape,
                                  int arch, int *n)
{
    gdt_row_table *t;
    gdt_error e;
    gdt_problem p;
    gdt_device_props dev;
    gdt_facts f;
    gdt_candidate *c = NULL;
    *n = -1;
    if (gdt_rows_load_text(text, strlen(text), "rows.json", &t, &e)) {
        fprintf(stderr, "load: %s\n", e.msg);
        CHECK(0);
        return NULL;
    }
    CHECK_INT(gdt_problem_parse(fam, shape, &p, &e), ==, 0);
    CHECK(gdt_arch_limits(arch, &dev));
    gdt_facts_analyze(&p, &dev, &f);
    const gdt_engine_slot *slot = gdt_manifest_find(NULL, gdt_engine_id(fam, 0));
    CHECK(slot != NULL);
    CHECK_INT(gdt_candidates_materialize(t, slot, &f, &c, n, &e), ==, 0);
    gdt_rows_destroy(t);
    return c;
}

static void test_projection(void)
{
    /* BM: 8 is below the domain minimum (16); 100 lies between 64 and 128;
     * 1000 is above the domain maximum (256). */
    const char *rows = "{\"nvrtc\": {\"contraction\": ["
                       "[8, 64, 32, 1, 2, 3, 8, 0],"
                       "[100, 64, 32, 2, 2, 3, 8, 0],"
                       "[1000, 64, 48, 2, 2, 3, 8, 0]]}}";
    int n;
    gdt_candidate *c = materialize(rows, GDT_FAMILY_GEMM, NULL, 90, &n);
    CHECK_INT(n, ==, 3);
    if (n == 3) {
        CHECK_INT(c[0].requested[0], ==, 8);
        CHECK_INT(c[0].bound[0], ==, 16);
        CHECK_INT(c[1].requested[0], ==, 100);
        CHECK_INT(c[1].bound[0], ==, 64);
        CHECK_INT(c[2].bound[0], ==, 256);
        CHECK_INT(c[2].requested[2], ==, 48);
        CHECK_INT(c[2].bound[2], ==, 32);
        CHECK_INT(c[1].ncols, ==, 16); /* 8 written, PIPE..EPILOGUE optional */
        CHECK(!c[1].rejected);
        /* The plan records the bound values under the columns' knobs. */
        CHECK_INT(gdt_plan_id_knob(&c[1].id, GDT_KNOB_TILE_M, -1), ==, 64);
        CHECK_INT(gdt_plan_id_knob(&c[1].id, GDT_KNOB_TILEK, -1), ==, 32);
        CHECK_INT(gdt_plan_id_knob(&c[1].id, GDT_KNOB_GROUP_M, -1), ==, 8);
        CHECK_INT(c[1].id.engine_id, ==, gdt_engine_id(GDT_FAMILY_GEMM, 0));
        CHECK_INT(c[1].id.nknobs, ==, 8);
    }
    free(c);
}

static void test_projection_capped(void)
{
    /* m = 50: requests cap at 64 (next power of two at or above 50); k = 20
     * caps BK at 32 -> domain 32; n = 65 caps at 128. */
    const char *rows = "{\"nvrtc\": {\"contraction\": [[128, 256, 64, 2, 2, 3, 8, 0]]}}";
    int n;
    gdt_candidate *c = materialize(rows, GDT_FAMILY_GEMM, "m=50,n=65,k=20", 90, &n);
    CHECK_INT(n, ==, 1);
    if (n == 1) {
        CHECK_INT(c[0].bound[0], ==, 64);
        CHECK_INT(c[0].bound[1], ==, 128);
        CHECK_INT(c[0].bound[2], ==, 32);
        CHECK_INT(c[0].requested[0], ==, 128);
        CHECK_INT(c[0].requested[1], ==, 256);
    }
    free(c);
    /* Exactly a power of two: no cap below the extent. */
    c = materialize(rows, GDT_FAMILY_GEMM, "m=128,n=256,k=64", 90, &n);
    if (n == 1) {
        CHECK_INT(c[0].bound[0], ==, 128);
        CHECK_INT(c[0].bound[1], ==, 256);
        CHECK_INT(c[0].bound[2], ==, 64);
    }
    free(c);
}

static void test_dedupe(void)
{
    /* Rows 1 and 3 project onto row 0's plan; row 2 is distinct. */
    const char *rows = "{\"nvrtc\": {\"contraction\": ["
                       "[64, 64, 32, 2, 2, 3, 8, 0],"
                       "[100, 64, 32, 2, 2, 3, 8, 0],"
                       "[128, 64, 32, 2, 2, 3, 8, 0],"
                       "[64, 64, 33, 2, 2, 3, 8, 0]]}}";
    int n;
    gdt_candidate *c = materialize(rows, GDT_FAMILY_GEMM, NULL, 90, &n);
    CHECK_INT(n, ==, 4); /* rows never multiply, never vanish */
    if (n == 4) {
        CHECK(!c[0].duplicate_of_earlier && !c[0].rejected);
        CHECK(c[1].duplicate_of_earlier);
        CHECK_INT(c[1].dup_of, ==, 0);
        CHECK_CONTAINS(c[1].reason, "row 0");
        CHECK(!c[2].duplicate_of_earlier);
        CHECK(c[3].duplicate_of_earlier);
        CHECK_INT(c[3].dup_of, ==, 0);
        CHECK(gdt_plan_id_equal(&c[0].id, &c[1].id));
        for (int i = 0; i < 4; i++) CHECK_INT(c[i].row_index, ==, i);
    }
    free(c);
    /* A small problem makes distinct rows identical: m = 64 caps BM. */
    c = materialize(rows, GDT_FAMILY_GEMM, "m=64", 90, &n);
    if (n == 4) {
        CHECK(c[2].duplicate_of_earlier);
        CHECK_INT(c[2].dup_of, ==, 0);
        CHECK_INT(c[2].requested[0], ==, 128);
        CHECK_INT(c[2].bound[0], ==, 64);
    }
    free(c);
}

static void test_rejection(void)
{
    /* 8x8 warps = 2048 threads: over every arch's limit; the row stays in
     * the list as rejected with its reason. */
    const char *rows = "{\"nvrtc\": {\"contraction\": [[128, 128, 32, 8, 8, 3, 8, 0],"
                       "[128, 128, 32, 2, 2, 3, 8, 0]]}}";
    int n;
    gdt_candidate *c = materialize(rows, GDT_FAMILY_GEMM, NULL, 80, &n);
    CHECK_INT(n, ==, 2);
    if (n == 2) {
        CHECK(c[0].rejected);
        CHECK_CONTAINS(c[0].reason, "2048 threads exceeds 1024");
        CHECK(!c[1].rejected);
        CHECK_INT(c[0].requested[3], ==, 8);
    }
    free(c);
}

static void test_head_dim_fixed(void)
{
    /* The head dim is fixed by the problem: never a column, never projected;
     * the same rows bind the same plans for d = 64 and d = 128. */
    const char *rows = "{\"nvrtc\": {\"attention_fwd\": [[64, 64, 4, 2, 0], [64, 64, 4, 1, 0]]}}";
    int n64, n128;
    gdt_candidate *a = materialize(rows, GDT_FAMILY_SDPA_FWD, "d=64,s=512", 90, &n64);
    gdt_candidate *b = materialize(rows, GDT_FAMILY_SDPA_FWD, "d=128,s=512", 90, &n128);
    CHECK_INT(n64, ==, 2);
    CHECK_INT(n128, ==, 2);
    for (int i = 0; i < 2 && n64 == 2 && n128 == 2; i++) {
        CHECK(!a[i].rejected && !b[i].rejected);
        CHECK(gdt_plan_id_equal(&a[i].id, &b[i].id));
        CHECK_INT(a[i].ncols, ==, 7); /* the optional PIPE and CLUSTER_SHAPE too, at their absent 0 and 2 */
    }
    free(a);
    free(b);
    /* s_q = 16 caps BLOCK_M at 16; s_kv = 40 caps BLOCK_N at 64 -> 64. */
    gdt_candidate *c = materialize(rows, GDT_FAMILY_SDPA_FWD, "s_q=16,s_kv=40,causal=none", 90, &n64);
    if (n64 == 2) {
        CHECK_INT(c[0].bound[0], ==, 16);
        CHECK_INT(c[0].bound[1], ==, 64);
    }
    free(c);
}

static void test_no_rows(void)
{
    gdt_row_table *t;
    gdt_error e;
    gdt_problem p;
    gdt_facts f;
    gdt_device_props dev;
    const char *text = "{\"nvrtc\": {\"attention_fwd\": [[64, 64, 4, 2, 0]]}}";
    CHECK_INT(gdt_rows_load_text(text, strlen(text), "x", &t, &e), ==, 0);
    gdt_problem_default(GDT_FAMILY_GEMM, &p);
    gdt_arch_limits(90, &dev);
    gdt_facts_analyze(&p, &dev, &f);
    gdt_candidate *c = (gdt_candidate *)&e;
    int n = -1;
    /* A family the table does not hold, and a slot without rows: no plans. */
    CHECK_INT(gdt_candidates_materialize(t, gdt_manifest_find_name(NULL, "gemm.nvrtc"), &f, &c, &n, &e), ==, 0);
    CHECK_INT(n, ==, 0);
    CHECK(c == NULL);
    CHECK_INT(gdt_candidates_materialize(t, gdt_manifest_find_name(NULL, "gemm.test_fault"), &f, &c, &n, &e), ==, 0);
    CHECK_INT(n, ==, 0);
    /* An arch without limits is refused, naming it. */
    dev.arch = 75;
    dev.smem_per_block = 0;
    gdt_facts_analyze(&p, &dev, &f);
    gdt_rows_destroy(t);
    CHECK_INT(gdt_rows_load_default(&t, &e), ==, 0);
    CHECK_INT(gdt_candidates_materialize(t, gdt_manifest_find_name(NULL, "gemm.nvrtc"), &f, &c, &n, &e),
              ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "no resource limits for sm75");
    gdt_rows_destroy(t);
}

int main(void)
{
    test_json_parse();
    test_json_depth();
    test_json_readers();
    test_diagnostics();
    test_unreadable();
    test_default_table();
    test_registry();
    test_readme();
    test_override();
    test_digest();
    test_print();
    test_projection();
    test_projection_capped();
    test_dedupe();
    test_rejection();
    test_head_dim_fixed();
    test_no_rows();
    return gdt_test_result("test_candidates");
}
