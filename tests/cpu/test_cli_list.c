/* `gdtune list` (issue 36 item 8): the families, their shape keys with
 * defaults, their engines and the knob names, as text and as JSON, each
 * read from the tables that define them: every slot of the manifest
 * appears with its kind and side, every knob name gdt_knob_name gives, and
 * each key's default is what the family's parser makes of no shape. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "gdt_engine_impl.h"
#include "gdt_test.h"
#include "gdtune/gdtune.h"

static char out[1 << 17];

static int list(const char *a0, const char *a1, const char *a2)
{
    char *av[] = {(char *)GDTUNE_EXE, "list", (char *)a0, (char *)a1, (char *)a2, NULL};
    return gdt_test_spawn(av, NULL, out, sizeof out);
}

static void test_text(void)
{
    CHECK_INT(list(NULL, NULL, NULL), ==, 0);
    CHECK_CONTAINS(out, "gemm  (default gemm:b1,m4096,n4096,k4096,bf16,a=row,b=row)");
    CHECK_CONTAINS(out, "    m       size    [4096]\n");
    CHECK_CONTAINS(out, "    a       major   [row]  row|col\n");
    CHECK_CONTAINS(out, "    causal  choice  [top_left]  none|top_left|bottom_right|0|1\n");
    CHECK_CONTAINS(out, "    gemm.nvrtc      nvrtc    ours     sm80-sm129  bf16,fp16\n"
                        "      rows contraction: BM->TILE_M BN->TILE_N");
    CHECK_CONTAINS(out, "    gemm.cublaslt   cublaslt library  sm80-sm129");
    CHECK_CONTAINS(out, "    gemm.hand       hand     ours     sm90 ");
    CHECK_CONTAINS(out, "opt-in (GDTUNE_ENABLE_OPT_IN=1)");
    CHECK_CONTAINS(out, "    cudnn.eng<N>    cudnn    backend  any");
    CHECK_CONTAINS(out, "knobs (in plan names, engine[KNOB=value, ...]):\n  SPLIT_K SWIZZLE");
    CHECK_INT(list("sdpa", NULL, NULL), ==, 0);
    CHECK(strstr(out, "gemm.nvrtc") == NULL);
    CHECK_CONTAINS(out, "sdpa_bwd.nvrtc");
    CHECK_INT(list("conv", NULL, NULL), ==, 2);
    CHECK_CONTAINS(out, "gdtune list: unknown family \"conv\" (expected gemm, sdpa_fwd, sdpa_bwd or sdpa)");
    CHECK_INT(list("--format=csv", NULL, NULL), ==, 2);
    CHECK_CONTAINS(out, "--format: bad value \"csv\"");
}

/* The engine named in the document, NULL when absent. */
static const cJSON *engine_in(const cJSON *doc, const char *name)
{
    const cJSON *fam, *en;
    cJSON_ArrayForEach(fam, cJSON_GetObjectItem(doc, "families"))
        cJSON_ArrayForEach(en, cJSON_GetObjectItem(fam, "engines"))
            if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(en, "name")), name)) return en;
    return NULL;
}

static void test_json(void)
{
    CHECK_INT(list("--format", "json", NULL), ==, 0);
    cJSON *doc = cJSON_Parse(out);
    CHECK(doc != NULL);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "schema")), "gdtune.list/2");
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "families")), ==, GDT_FAMILY_COUNT);
    const gdt_manifest *m = gdt_manifest_default();
    for (int i = 0; i < m->nslots; i++) {
        const cJSON *en = engine_in(doc, m->slots[i].name);
        CHECK(en != NULL);
        const char *side = gdt_plan_side_label(gdt_engine_kind_side(m->slots[i].kind));
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(en, "side")), side);
        CHECK_INT((long long)cJSON_GetNumberValue(cJSON_GetObjectItem(en, "engine_id")), ==,
                  (long long)gdt_engine_id(m->slots[i].family, m->slots[i].slot));
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(en, "opt_in")) == m->slots[i].opt_in);
    }
    int nknobs = 0;
    for (int t = 0; t < GDT_KNOB_GDT_END; t++)
        nknobs += gdt_knob_name(t) != NULL;
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "knobs")), ==, nknobs);
    /* every key's default, given back as a shape, is the default problem */
    const cJSON *fam, *k;
    cJSON_ArrayForEach(fam, cJSON_GetObjectItem(doc, "families")) {
        gdt_family f;
        gdt_problem p;
        char shape[1024] = "", key[256];
        CHECK_INT(gdt_family_parse(cJSON_GetStringValue(cJSON_GetObjectItem(fam, "family")), &f, NULL), ==, GDT_STATUS_OK);
        cJSON_ArrayForEach(k, cJSON_GetObjectItem(fam, "shape_keys")) {
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(k, "name"));
            /* scale follows d (printed to 6 digits); h and s set two fields each */
            if (!strcmp(name, "scale") || !strcmp(name, "h") || !strcmp(name, "s")) continue;
            size_t used = strlen(shape);
            snprintf(shape + used, sizeof shape - used, "%s%s=%s", used ? "," : "", name,
                     cJSON_GetStringValue(cJSON_GetObjectItem(k, "default")));
        }
        CHECK_INT(gdt_problem_parse(f, shape, &p, NULL), ==, GDT_STATUS_OK);
        gdt_problem_key(&p, key, sizeof key);
        CHECK_STR(key, cJSON_GetStringValue(cJSON_GetObjectItem(fam, "default_key")));
    }
    cJSON_Delete(doc);
}

int main(void)
{
    test_text();
    test_json();
    return gdt_test_result("test_cli_list");
}
