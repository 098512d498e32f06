/* The manifest table and engine ids: arithmetic ids that decode with
 * nothing registered, the reserved band, slot lookup, the slot handle's
 * functions against the table (gdt_engine_impl.h), and what a slot is
 * offered for (arch range, dtype, head dim, opt-in). */
#include <stdlib.h>

#include "gdt_engines.h"
#include "gdt_rows.h"
#include "nvrtc/gdt_nvrtc.h"
#include "gdt_test.h"
#include "gdtune/gdtune.h"

static void test_ids(void)
{
    CHECK_INT(gdt_engine_id(GDT_FAMILY_GEMM, 0), ==, 20000);
    CHECK_INT(gdt_engine_id(GDT_FAMILY_SDPA_FWD, 0), ==, 20100);
    CHECK_INT(gdt_engine_id(GDT_FAMILY_SDPA_BWD, 7), ==, 20207);
    bool backend;
    gdt_family f;
    int slot;
    gdt_error e;
    CHECK_INT(gdt_engine_id_decode(0, &backend, &f, &slot, &e), ==, 0);
    CHECK(backend);
    CHECK_INT(gdt_engine_id_decode(9999, &backend, &f, &slot, &e), ==, 0);
    CHECK(backend);
    CHECK_INT(gdt_engine_id_decode(20191, &backend, &f, &slot, &e), ==, 0);
    CHECK(!backend);
    CHECK_INT(f, ==, GDT_FAMILY_SDPA_FWD);
    CHECK_INT(slot, ==, 91);
    for (int fam = 0; fam < GDT_FAMILY_COUNT; fam++)
        for (int s = 0; s < GDT_FAMILY_BLOCK; s += 33) {
            CHECK_INT(gdt_engine_id_decode(gdt_engine_id((gdt_family)fam, s), &backend, &f, &slot, &e), ==, 0);
            CHECK(!backend);
            CHECK_INT(f, ==, fam);
            CHECK_INT(slot, ==, s);
        }
    CHECK_INT(gdt_engine_id_decode(10000, &backend, &f, &slot, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "engine id 10000: in the reserved band [10000, 20000)");
    CHECK_INT(gdt_engine_id_decode(19999, &backend, &f, &slot, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "engine id 19999: in the reserved band");
    CHECK_INT(gdt_engine_id_decode(20300, &backend, &f, &slot, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_STR(e.msg, "engine id 20300: outside every family block (backend [0, 10000), gdtune [20000, 20300))");
    CHECK_INT(gdt_engine_id_decode(-1, &backend, &f, &slot, &e), ==, GDT_STATUS_BAD_INPUT);
    CHECK_CONTAINS(e.msg, "engine id -1: outside every family block");
}

static void test_table(void)
{
    const gdt_manifest *m = gdt_manifest_default();
    CHECK(m != NULL && m->nslots >= 5);
    CHECK(!m->enable_opt_in);
    int nvrtc[GDT_FAMILY_COUNT] = {0};
    for (int i = 0; i < m->nslots; i++) {
        const gdt_engine_slot *s = &m->slots[i];
        int64_t id = gdt_engine_id(s->family, s->slot);
        CHECK(s->name && s->ops);
        CHECK(s->slot >= 0 && s->slot < GDT_FAMILY_BLOCK);
        CHECK(gdt_manifest_find(m, id) == s);
        CHECK(gdt_manifest_find_name(m, s->name) == s);
        /* The name starts with its family: "gemm.nvrtc". */
        const char *fam = gdt_family_name(s->family);
        CHECK(!strncmp(s->name, fam, strlen(fam)) && s->name[strlen(fam)] == '.');
        CHECK(s->cap.sm_lo <= s->cap.sm_hi);
        if (s->kind == GDT_ENGINE_NVRTC) {
            nvrtc[s->family]++;
            CHECK(s->tmpl && gdt__row_family_find(gdt_engine_slot_row_family(s)) == s->tmpl->rows);
            CHECK(s->ops == &gdt__nvrtc_ops);
            CHECK(!s->opt_in);
        }
        if (s->kind == GDT_ENGINE_TEST) CHECK(s->opt_in && !s->tmpl);
        for (int j = 0; j < i; j++) {
            CHECK(strcmp(s->name, m->slots[j].name) != 0);
            CHECK(gdt_engine_id(m->slots[j].family, m->slots[j].slot) != id);
        }
    }
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) CHECK_INT(nvrtc[f], ==, 1);
    const gdt_engine_slot *s = gdt_manifest_find_name(NULL, "gemm.nvrtc");
    CHECK(s && s->family == GDT_FAMILY_GEMM && s->slot == 0 && s->tmpl == &gdt__tmpl_gemm && !strcmp(gdt_engine_slot_row_family(s), "contraction"));
    CHECK(s && s->cap.sm_lo == 80 && s->cap.sm_hi == 129);
    s = gdt_manifest_find_name(NULL, "gemm.test_fault");
    CHECK(s && s->slot == 90 && s->ops == &gdt__test_fault_ops);
    s = gdt_manifest_find_name(NULL, "gemm.test_hang");
    CHECK(s && s->slot == 91 && s->ops == &gdt__test_hang_ops);
    s = gdt_manifest_find_name(NULL, "sdpa_fwd.nvrtc");
    CHECK(s && s->tmpl == &gdt__tmpl_attn_fwd && s->tmpl->rows == &gdt__rows_attention_fwd && s->cap.head_dim_lo == 16 &&
          s->cap.head_dim_hi == 256 && s->cap.head_dim_multiple == 16);
    s = gdt_manifest_find_name(NULL, "sdpa_bwd.nvrtc");
    CHECK(s && s->tmpl == &gdt__tmpl_attn_bwd && !strcmp(gdt_engine_slot_row_family(s), "attention_bwd"));
    CHECK(gdt_manifest_find(NULL, 20001) == NULL);
    CHECK(gdt_manifest_find(NULL, 5) == NULL);
    CHECK(gdt_manifest_find_name(NULL, "gemm") == NULL);
    CHECK(gdt_manifest_find_name(NULL, NULL) == NULL);
}

/* What the public functions say of each slot is what the table holds. */
static void test_handles(void)
{
    const gdt_manifest *m = gdt_manifest_default();
    CHECK_INT(gdt_manifest_count(m), ==, m->nslots);
    CHECK_INT(gdt_manifest_count(NULL), ==, m->nslots);
    for (int i = 0; i < m->nslots; i++) {
        const gdt_engine_slot *s = gdt_manifest_slot(m, i);
        CHECK(s == &m->slots[i] && gdt_manifest_slot(NULL, i) == s);
        CHECK(gdt_engine_slot_name(s) == s->name);
        CHECK_INT(gdt_engine_slot_family(s), ==, s->family);
        CHECK_INT(gdt_engine_slot_kind(s), ==, s->kind);
        CHECK_INT(gdt_engine_slot_id(s), ==, gdt_engine_id(s->family, s->slot));
        CHECK(gdt_manifest_find(m, gdt_engine_slot_id(s)) == s);
        CHECK(gdt_engine_slot_row_family(s) == (s->tmpl ? s->tmpl->rows->name : NULL));
    }
    CHECK(gdt_manifest_slot(m, -1) == NULL);
    CHECK(gdt_manifest_slot(m, m->nslots) == NULL);
    CHECK(gdt_engine_slot_name(NULL) == NULL && gdt_engine_slot_row_family(NULL) == NULL);
    CHECK_INT(gdt_engine_slot_family(NULL), ==, GDT_FAMILY_COUNT);
    CHECK_INT(gdt_engine_slot_kind(NULL), ==, GDT_ENGINE_KIND_COUNT);
    CHECK_INT(gdt_engine_slot_id(NULL), ==, -1);
    const gdt_engine_slot *s = gdt_manifest_find_name(NULL, "gemm.nvrtc");
    CHECK(s && !strcmp(gdt_engine_slot_row_family(s), "contraction"));
    CHECK_INT(gdt_engine_slot_id(s), ==, 20000);
}

static void facts(gdt_family fam, const char *shape, int arch, gdt_facts *f)
{
    gdt_problem p;
    gdt_error e;
    gdt_device_props dev;
    CHECK_INT(gdt_problem_parse(fam, shape, &p, &e), ==, 0);
    memset(&dev, 0, sizeof dev);
    gdt_arch_limits(arch, &dev);
    dev.arch = arch;
    gdt_facts_analyze(&p, &dev, f);
}

static void offered(const char *slot, gdt_family fam, const char *shape, int arch, bool opt_in,
                    const char *why_want)
{
    gdt_manifest m = *gdt_manifest_default();
    m.enable_opt_in = opt_in;
    const gdt_engine_slot *s = gdt_manifest_find_name(&m, slot);
    gdt_facts f;
    char why[256] = "unchanged";
    facts(fam, shape, arch, &f);
    bool ok = gdt_slot_offered(&m, s, &f, why, sizeof why);
    CHECK_INT(ok, ==, why_want == NULL);
    if (why_want) CHECK_STR(why, why_want);
    else CHECK_STR(why, "");
}

static void test_offered(void)
{
    unsetenv("GDTUNE_ENABLE_OPT_IN");
    offered("gemm.nvrtc", GDT_FAMILY_GEMM, NULL, 90, false, NULL);
    offered("gemm.nvrtc", GDT_FAMILY_GEMM, NULL, 80, false, NULL);
    offered("gemm.nvrtc", GDT_FAMILY_GEMM, NULL, 129, false, NULL);
    offered("gemm.nvrtc", GDT_FAMILY_GEMM, NULL, 75, false, "gemm.nvrtc: sm75 outside sm80..sm129");
    offered("gemm.nvrtc", GDT_FAMILY_GEMM, NULL, 130, false, "gemm.nvrtc: sm130 outside sm80..sm129");
    offered("gemm.test_fault", GDT_FAMILY_GEMM, NULL, 90, false,
            "gemm.test_fault is opt-in (set GDTUNE_ENABLE_OPT_IN=1)");
    offered("gemm.test_fault", GDT_FAMILY_GEMM, NULL, 90, true, NULL);
    offered("gemm.test_hang", GDT_FAMILY_GEMM, NULL, 75, true, NULL); /* any arch */
    offered("sdpa_fwd.nvrtc", GDT_FAMILY_SDPA_FWD, "d=64", 90, false, NULL);
    offered("sdpa_fwd.nvrtc", GDT_FAMILY_SDPA_FWD, "d=256", 90, false, NULL);
    offered("sdpa_fwd.nvrtc", GDT_FAMILY_SDPA_FWD, "d=8", 90, false,
            "sdpa_fwd.nvrtc: head dim 8 outside 16..256 (multiple of 16)");
    offered("sdpa_bwd.nvrtc", GDT_FAMILY_SDPA_BWD, "d=72", 90, false,
            "sdpa_bwd.nvrtc: head dim 72 outside 16..256 (multiple of 16)");
    offered("sdpa_bwd.nvrtc", GDT_FAMILY_SDPA_BWD, "d=272", 90, false,
            "sdpa_bwd.nvrtc: head dim 272 outside 16..256 (multiple of 16)");
    offered("sdpa_bwd.nvrtc", GDT_FAMILY_SDPA_FWD, NULL, 90, false, "sdpa_bwd.nvrtc serves sdpa_bwd, not sdpa_fwd");

    /* The environment enables opt-in slots too; only "1" counts. */
    setenv("GDTUNE_ENABLE_OPT_IN", "1", 1);
    offered("gemm.test_fault", GDT_FAMILY_GEMM, NULL, 90, false, NULL);
    setenv("GDTUNE_ENABLE_OPT_IN", "yes", 1);
    offered("gemm.test_fault", GDT_FAMILY_GEMM, NULL, 90, false,
            "gemm.test_fault is opt-in (set GDTUNE_ENABLE_OPT_IN=1)");
    unsetenv("GDTUNE_ENABLE_OPT_IN");

    /* fp32 is not served: built by hand, since parse refuses it. */
    gdt_facts f;
    facts(GDT_FAMILY_GEMM, NULL, 90, &f);
    f.dtype = GDT_DTYPE_FP32;
    char why[256];
    CHECK(!gdt_slot_offered(NULL, gdt_manifest_find_name(NULL, "gemm.nvrtc"), &f, why, sizeof why));
    CHECK_STR(why, "gemm.nvrtc: dtype fp32 not served");
    CHECK(!gdt_slot_offered(NULL, gdt_manifest_find_name(NULL, "gemm.nvrtc"), &f, NULL, 0));
}

int main(void)
{
    test_ids();
    test_table();
    test_handles();
    test_offered();
    return gdt_test_result("test_manifest");
}
