/* Every value that reaches the compiler changes the compiled-kernel cache
 * key, one at a time: each column of each NVRTC template's row schema (every
 * domain value against the first), each -D define the template emits (the
 * row's and the problem's: layout, dtype, causal, head dim), each NVRTC
 * option (changed or dropped), the arch, the template's name and text and
 * each kernel header's text.  A key that left one out would let two plans
 * share one kernel: with -DBM dropped from the key material, the TILE_M
 * column and the BM define fail here. */
#include <stdlib.h>
#include <string.h>

#include "gdt_engines.h"
#include "gdt_rows.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "nvrtc/gdt_nvrtc.h"
#include "nvrtc/gdt_nvrtc_cache.h"

/* A problem for each row family that has an NVRTC template. */
static const struct {
    const char *rows;
    gdt_family family;
    const char *shape;
} problems[] = {
    {"contraction", GDT_FAMILY_GEMM, "m=512,n=512,k=512"},
    {"attention_fwd", GDT_FAMILY_SDPA_FWD, "b=2,h_q=8,h_kv=8,s=1024,d=64"},
    {"attention_bwd", GDT_FAMILY_SDPA_BWD, "b=2,h_q=8,h_kv=8,s=1024,d=64"},
};
#define NPROBLEMS ((int)(sizeof problems / sizeof problems[0]))

static void facts_for(gdt_family fam, const char *shape, gdt_facts *f)
{
    gdt_problem p;
    gdt_device_props d;
    gdt_error e = {0};
    CHECK_INT(gdt_problem_parse(fam, shape, &p, &e), ==, GDT_STATUS_OK);
    CHECK(gdt_arch_limits(90, &d));
    gdt_facts_analyze(&p, &d, f);
}

static void key_of(const gdt_nvrtc_template *t, const gdt_facts *f, const gdt_plan_id *p, int arch,
                   gdt_nvrtc_key *k)
{
    gdt_nvrtc_options o;
    gdt_error e = {0};
    memset(k, 0, sizeof *k);
    CHECK_INT(gdt__nvrtc_options(t, f, p, arch, &o, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt__nvrtc_key(t, &o, arch, k, &e), ==, GDT_STATUS_OK);
}

/* The row of each column's first domain value. */
static gdt_plan_id first_row(const gdt_row_family *rf)
{
    gdt_plan_id p = {0};
    for (int c = 0; c < rf->ncols; c++)
        gdt_plan_id_set_knob(&p, rf->cols[c].knob, rf->cols[c].domain[0]);
    return p;
}

/* Each column, each of its other domain values, all else as in the first
 * row: a key of its own. */
static void test_columns(const gdt_row_family *rf, const gdt_nvrtc_template *t, const gdt_facts *f)
{
    gdt_plan_id base = first_row(rf);
    gdt_nvrtc_key k0, k;
    key_of(t, f, &base, 90, &k0);
    for (int c = 0; c < rf->ncols; c++) {
        CHECK(rf->cols[c].ndomain >= 2); /* else the column could not be told apart */
        for (int j = 1; j < rf->cols[c].ndomain; j++) {
            gdt_plan_id p = base;
            gdt_plan_id_set_knob(&p, rf->cols[c].knob, rf->cols[c].domain[j]);
            key_of(t, f, &p, 90, &k);
            if (!strcmp(k.key, k0.key))
                fprintf(stderr, "%s: column %s=%lld has the key of %s=%lld\n", rf->name,
                        rf->cols[c].name, (long long)rf->cols[c].domain[j], rf->cols[c].name,
                        (long long)rf->cols[c].domain[0]);
            CHECK(strcmp(k.key, k0.key) != 0);
        }
    }
}

/* The template under test with define `bump` (an index) one higher. */
static const gdt_nvrtc_template *under;
static int bump = -1;
static int bumped(const gdt_facts *f, const gdt_plan_id *p, gdt_nvrtc_define *out, int max)
{
    int n = under->defines(f, p, out, max);
    if (bump >= 0 && bump < n)
        out[bump].value += 1;
    return n;
}

static void test_defines(const gdt_row_family *rf, const gdt_nvrtc_template *t, const gdt_facts *f)
{
    gdt_plan_id p = first_row(rf);
    gdt_nvrtc_template w = *t;
    gdt_nvrtc_define d[GDT_NVRTC_MAX_DEFINES];
    gdt_nvrtc_key k0, k;
    int n = t->defines(f, &p, d, GDT_NVRTC_MAX_DEFINES);
    under = t;
    w.defines = bumped;
    int required = 0; /* an optional column at its absent value binds no define */
    for (int c = 0; c < rf->ncols; c++)
        required += !rf->cols[c].optional;
    key_of(t, f, &p, 90, &k0);
    CHECK(n > required); /* the row's defines and the problem's */
    for (bump = 0; bump < n; bump++) {
        key_of(&w, f, &p, 90, &k);
        if (!strcmp(k.key, k0.key))
            fprintf(stderr, "%s: define %s=%lld has the key of %s=%lld\n", t->source, d[bump].name,
                    (long long)d[bump].value + 1, d[bump].name, (long long)d[bump].value);
        CHECK(strcmp(k.key, k0.key) != 0);
    }
    bump = -1;
}

/* Each option changed by a character, or dropped; the arch; the source's
 * name and text; each header's text. */
static void test_material(const gdt_nvrtc_template *t, const gdt_facts *f, const gdt_plan_id *p)
{
    const gdt_embedded *src = gdt_embedded_find(t->source), *hdr[GDT__NVRTC_MAX_KERNEL_HEADERS];
    gdt_nvrtc_options o, x;
    gdt_nvrtc_key k0, k;
    gdt_error e = {0};
    int nh = 0;
    CHECK_INT(gdt__nvrtc_kernel_headers(hdr, &nh, &e), ==, GDT_STATUS_OK);
    CHECK(src != NULL && nh >= 1);
    if (!src)
        return;
    CHECK_INT(gdt__nvrtc_options(t, f, p, 90, &o, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt__nvrtc_key_of(src, hdr, nh, &o, 90, &k0, &e), ==, GDT_STATUS_OK);
    key_of(t, f, p, 90, &k);
    CHECK_STR(k.key, k0.key); /* gdt__nvrtc_key is key_of over these very parts */
    for (int i = 0; i < o.n; i++) {
        x = o;
        strcat(x.opt[i], "0");
        CHECK_INT(gdt__nvrtc_key_of(src, hdr, nh, &x, 90, &k, &e), ==, GDT_STATUS_OK);
        if (!strcmp(k.key, k0.key))
            fprintf(stderr, "%s: option \"%s\" changed, key the same\n", t->source, o.opt[i]);
        CHECK(strcmp(k.key, k0.key) != 0);
        memmove(&x.opt[i], &o.opt[i + 1], sizeof o.opt[0] * (size_t)(o.n - i - 1));
        x.n = o.n - 1;
        CHECK_INT(gdt__nvrtc_key_of(src, hdr, nh, &x, 90, &k, &e), ==, GDT_STATUS_OK);
        CHECK(strcmp(k.key, k0.key) != 0);
    }
    CHECK_INT(gdt__nvrtc_key_of(src, hdr, nh, &o, 80, &k, &e), ==, GDT_STATUS_OK);
    CHECK(strcmp(k.key, k0.key) != 0); /* the arch, with the very same options */
    key_of(t, f, p, 100, &k);
    CHECK(strcmp(k.key, k0.key) != 0);

    char *text = malloc(src->len + 1);
    CHECK(text != NULL);
    if (!text)
        return;
    memcpy(text, src->data, src->len);
    text[src->len / 2] ^= 1;
    gdt_embedded changed = {src->name, text, src->len}, renamed = {"kernels/other.cuh", src->data, src->len};
    CHECK_INT(gdt__nvrtc_key_of(&changed, hdr, nh, &o, 90, &k, &e), ==, GDT_STATUS_OK);
    CHECK(strcmp(k.key, k0.key) != 0);
    CHECK_INT(gdt__nvrtc_key_of(&renamed, hdr, nh, &o, 90, &k, &e), ==, GDT_STATUS_OK);
    CHECK(strcmp(k.key, k0.key) != 0);
    free(text);
    for (int i = 0; i < nh; i++) {
        const gdt_embedded *h[GDT__NVRTC_MAX_KERNEL_HEADERS];
        memcpy(h, hdr, sizeof h);
        char *ht = malloc(hdr[i]->len + 1);
        CHECK(ht != NULL && hdr[i]->len > 0);
        if (!ht)
            continue;
        memcpy(ht, hdr[i]->data, hdr[i]->len);
        ht[0] ^= 1;
        gdt_embedded hc = {hdr[i]->name, ht, hdr[i]->len};
        h[i] = &hc;
        CHECK_INT(gdt__nvrtc_key_of(src, h, nh, &o, 90, &k, &e), ==, GDT_STATUS_OK);
        if (!strcmp(k.key, k0.key))
            fprintf(stderr, "header %s changed, key the same\n", hdr[i]->name);
        CHECK(strcmp(k.key, k0.key) != 0);
        free(ht);
    }
}

int main(void)
{
    int templates = 0;
    for (int i = 0; i < gdt_manifest_count(NULL); i++) {
        const gdt_nvrtc_template *t = gdt__nvrtc_template_of(gdt_manifest_slot(NULL, i));
        const gdt_row_family *rf = t ? t->rows : NULL;
        int at = -1;
        for (int j = 0; t && j < NPROBLEMS; j++)
            if (!strcmp(problems[j].rows, rf->name))
                at = j;
        if (!t)
            continue;
        templates++;
        if (at < 0)
            fprintf(stderr, "row family %s has a template but no problem here: add one\n", rf->name);
        CHECK(at >= 0);
        if (at < 0)
            continue;
        gdt_facts f;
        facts_for(problems[at].family, problems[at].shape, &f);
        test_columns(rf, t, &f);
        test_defines(rf, t, &f);
        gdt_plan_id p = first_row(rf);
        test_material(t, &f, &p);
    }
    CHECK_INT(templates, ==, NPROBLEMS);
    return gdt_test_result("test_cache_key");
}
