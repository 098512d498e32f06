/* Family descriptors: each family has one, consistent with the public
 * functions that answer through it: its name, its --shape keys, its default
 * problem, its operands, the tables' problem and facts objects (a cell
 * written and loaded again is found under its key, an enum without a name
 * is refused), and gdt_problem_dtype. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdt_family.h"
#include "gdt_test.h"
#include "gdtune/tables.h"

static char root[256];

/* The default's own value of a key, spelled as --shape takes it. */
static void default_value(const gdt_problem *p, const gdt__shape_key *k, char *buf, size_t n)
{
    const char *at = (const char *)p + k->off[0];
    switch (k->kind) {
    case GDT__KEY_DIM: snprintf(buf, n, "%" PRId64, *(const int64_t *)at); break;
    case GDT__KEY_DTYPE: snprintf(buf, n, "%s", gdt_dtype_name(*(const gdt_dtype *)at)); break;
    case GDT__KEY_CHOICE: snprintf(buf, n, "%s", k->names[*(const int *)at]); break;
    case GDT__KEY_MAJOR: snprintf(buf, n, "%s", k->names[((const int64_t *)at)[2] != 1]); break;
    case GDT__KEY_NUMBER: snprintf(buf, n, "%.17g", *(const double *)at); break;
    }
}

static void test_descriptors(void)
{
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) {
        const gdt_family_desc *d = gdt__family_desc((gdt_family)f);
        CHECK(d != NULL);
        if (!d) continue;
        CHECK_STR(d->name, gdt_family_name((gdt_family)f));
        CHECK(d->defaults && d->keys && d->set_strides && d->validate && d->key && d->flops);
        CHECK(d->geometry && d->facts && d->group && d->metric && d->metric_name);
        CHECK_INT(d->nkeys, <=, GDT__KEYS_MAX);
        CHECK_INT(d->nproblem_fields, <=, GDT__FIELDS_MAX);
        CHECK_INT(d->nfacts_fields, <=, GDT__FIELDS_MAX);
        CHECK_INT(d->ngroup_fields, <=, GDT__GROUP_MAX);
        CHECK_INT(d->ngroup_fields, >, 0);
        for (int i = 0; i < d->nkeys; i++)
            CHECK_INT(d->keys[i].nnames + d->keys[i].naliases, <=, GDT__KEY_CHOICES_MAX);
    }
    CHECK(gdt__family_desc(GDT_FAMILY_COUNT) == NULL);
    CHECK(gdt__family_desc((gdt_family)-1) == NULL);
}

/* Every key the table lists parses with the default's own value, leaving
 * the default problem; the refusal of an unknown key lists them all. */
static void test_keys(void)
{
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) {
        const gdt_family_desc *d = gdt__family_desc((gdt_family)f);
        gdt_problem def, p;
        gdt_error e;
        char want[256], got[256], spec[128], v[64];
        gdt_problem_default((gdt_family)f, &def);
        CHECK_INT(gdt_problem_validate(&def, &e), ==, GDT_STATUS_OK);
        gdt_problem_key(&def, want, sizeof want);
        for (int i = 0; i < d->nkeys; i++) {
            default_value(&def, &d->keys[i], v, sizeof v);
            snprintf(spec, sizeof spec, "%s=%s", d->keys[i].name, v);
            gdt_status st = gdt_problem_parse((gdt_family)f, spec, &p, &e);
            CHECK_INT(st, ==, GDT_STATUS_OK);
            if (st) fprintf(stderr, "  %s: %s: %s\n", d->name, spec, e.msg);
            gdt_problem_key(&p, got, sizeof got);
            CHECK_STR(got, want);
        }
        CHECK_INT(gdt_problem_parse((gdt_family)f, "nosuch=1", &p, &e), ==, GDT_STATUS_BAD_INPUT);
        for (int i = 0; i < d->nkeys; i++) CHECK_CONTAINS(e.msg, d->keys[i].name);
    }
}

static void test_operands(void)
{
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) {
        const gdt_family_desc *d = gdt__family_desc((gdt_family)f);
        gdt_operand_role roles[GDT_OPERAND_COUNT];
        int nout = -1, n = gdt_family_operands((gdt_family)f, roles, &nout);
        gdt_problem p;
        gdt_problem_default((gdt_family)f, &p);
        CHECK_INT(n, ==, d->noperands);
        CHECK_INT(nout, ==, d->noutputs);
        CHECK_INT(n, <=, GDT__OPERANDS_MAX);
        CHECK_INT(nout, >, 0);
        gdt_operand_role outs[GDT_OPERAND_COUNT];
        CHECK_INT(gdt_family_outputs((gdt_family)f, outs), ==, nout);
        for (int i = 0; i < nout && i < n; i++) /* the trailing roles, in order */
            CHECK_INT(outs[i], ==, roles[n - nout + i]);
        unsigned bound = 0;
        for (int i = 0; i < n && i < d->noperands; i++) {
            int64_t dims[4], strides[4];
            CHECK_INT(roles[i], ==, d->operands[i]);
            CHECK_INT(gdt__operand_geometry(&p, roles[i], dims, strides), >, 0);
            CHECK_INT(gdt_operand_bytes(&p, roles[i]), >, 0);
            bound |= 1u << roles[i];
        }
        for (int r = 0; r < GDT_OPERAND_COUNT; r++) {
            int64_t dims[4], strides[4];
            if (bound & (1u << r)) continue;
            CHECK_INT(gdt__operand_geometry(&p, (gdt_operand_role)r, dims, strides), ==, 0);
            CHECK_INT(gdt_operand_bytes(&p, (gdt_operand_role)r), ==, 0);
        }
    }
}

static void test_problem_dtype(void)
{
    gdt_problem p;
    gdt_error e;
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) {
        gdt_problem_default((gdt_family)f, &p);
        CHECK_INT(gdt_problem_dtype(&p), ==, GDT_DTYPE_BF16);
        CHECK_INT(gdt_problem_parse((gdt_family)f, "dtype=fp16", &p, &e), ==, GDT_STATUS_OK);
        CHECK_INT(gdt_problem_dtype(&p), ==, GDT_DTYPE_FP16);
        CHECK_INT(gdt_operand_dtype(&p, GDT_OPERAND_STATS), ==, GDT_DTYPE_FP32);
    }
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_GEMM, "m=64", &p, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_operand_dtype(&p, GDT_OPERAND_A), ==, GDT_DTYPE_BF16);
    p.family = GDT_FAMILY_COUNT;
    CHECK_INT(gdt_problem_dtype(&p), ==, GDT_DTYPE_COUNT);
}

static void provenance(gdt_provenance *v)
{
    memset(v, 0, sizeof *v);
    snprintf(v->device_name, sizeof v->device_name, "NVIDIA H200");
    v->arch = 90;
    snprintf(v->gdtune_version, sizeof v->gdtune_version, "%s", GDT_VERSION_STRING);
    snprintf(v->source_digest, sizeof v->source_digest, "%064d", 1);
    snprintf(v->sweep_digest, sizeof v->sweep_digest, "%064d", 2);
    snprintf(v->candidates_digest, sizeof v->candidates_digest, "%064d", 3);
}

/* Written by the tables' writer and read back by their loader (which
 * re-derives each key and the facts from the problem object), every cell is
 * found again under its own key. */
static void round_trip(gdt_family f, const char *const specs[2])
{
    gdt_measured_plan plans[2] = {
        {.id = {.engine_id = 7}, .is_backend = true, .mode = GDT_MODE_A, .untimed_position = 0,
         .time_us = 20, .noise = 0.01, .host_us = 3, .samples = 10},
        {.id = {.engine_id = gdt_engine_id(f, 0)}, .untimed_position = 1, .time_us = 10,
         .noise = 0.01, .host_us = 3, .samples = 10},
    };
    gdt_measured_cell cells[2];
    gdt_provenance prov;
    gdt_error e;
    char dir[512], file[600];
    provenance(&prov);
    for (int i = 0; i < 2; i++) {
        cells[i] = (gdt_measured_cell){.plans = plans, .nplans = 2};
        CHECK_INT(gdt_problem_parse(f, specs[i], &cells[i].problem, &e), ==, GDT_STATUS_OK);
    }
    snprintf(dir, sizeof dir, "%s/sm90", root);
    gdt_status st = gdt_tables_write(dir, f, &prov, cells, 2, &e);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    if (st) return (void)fprintf(stderr, "  %s: %s\n", gdt_family_name(f), e.msg);
    gdt_tables *t = NULL;
    st = gdt_tables_load(root, f, 90, &t, &e);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    if (st) fprintf(stderr, "  %s: %s\n", gdt_family_name(f), e.msg);
    gdt_device_props dev;
    gdt_arch_limits(90, &dev);
    for (int i = 0; t && i < 2; i++) {
        gdt_facts facts;
        gdt_cell_decision cd;
        gdt_facts_analyze(&cells[i].problem, &dev, &facts);
        CHECK(gdt_tables_lookup(t, &facts, &cd) && cd.measured && cd.lead);
    }
    gdt_tables_destroy(t);
    for (int k = 0; k < 2; k++) {
        snprintf(file, sizeof file, "%s/%s.%s.json", dir, gdt_family_name(f), k ? "placement" : "tuning");
        CHECK_INT(gdt_table_check_file(file, &e), ==, GDT_STATUS_OK);
        CHECK_INT(unlink(file), ==, 0);
    }
}

static void test_tables_round_trip(void)
{
    static const char *const gemm[2] = {"", "m=256,n=128,k=64,a=col,dtype=fp16"};
    static const char *const sdpa[2] = {"", "b=1,h_q=8,h_kv=2,s_q=64,s_kv=128,causal=bottom_right,"
                                            "layout=bhsd,scale=0.5"};
    round_trip(GDT_FAMILY_GEMM, gemm);
    round_trip(GDT_FAMILY_SDPA_FWD, sdpa);
    round_trip(GDT_FAMILY_SDPA_BWD, sdpa);
}

/* Validate does not judge enums; the writer, which prints them by name, does. */
static void test_writer_refuses_unnamed(void)
{
    gdt_measured_plan plan = {.id = {.engine_id = 7}, .is_backend = true, .time_us = 20, .noise = 0.01,
                              .host_us = 3, .samples = 10};
    gdt_measured_cell c = {.plans = &plan, .nplans = 1};
    gdt_provenance prov;
    gdt_error e;
    char dir[512];
    provenance(&prov);
    snprintf(dir, sizeof dir, "%s/sm90", root);
    CHECK_INT(gdt_problem_parse(GDT_FAMILY_SDPA_FWD, "s=128", &c.problem, &e), ==, GDT_STATUS_OK);
    c.problem.u.sdpa.layout = (gdt_layout)5;
    CHECK_INT(gdt_tables_write(dir, GDT_FAMILY_SDPA_FWD, &prov, &c, 1, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "tables writer: sdpa_fwd cell: layout 5 outside the enum (expected 0 to 1)");
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/gdt_test_family.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    test_descriptors();
    test_keys();
    test_operands();
    test_problem_dtype();
    test_tables_round_trip();
    test_writer_refuses_unnamed();
    char dir[300];
    snprintf(dir, sizeof dir, "%s/sm90", root);
    rmdir(dir);
    rmdir(root);
    return gdt_test_result("test_family");
}
