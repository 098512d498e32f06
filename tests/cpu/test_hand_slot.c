/* The hand engine's GEMM slot without a device: its id, kind and capability
 * in the manifest, opt-in, offered on sm90 and declined elsewhere with the
 * reason, listed by `gdtune plans` on sm90 only, its fixed configuration replayed
 * by name, check_support's reasons for what TMA cannot describe, and its
 * cubin embedded in the library. */
#include "gdt_engines.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "gdtune/gdtune.h"
#include "hand/gdt_hand.h"

static const gdt_engine_slot *hand_slot(void)
{
    return gdt_manifest_find_name(gdt_manifest_default(), "gemm.hand");
}

static void facts_for(const char *shape, int arch, gdt_facts *f)
{
    gdt_test_facts(GDT_FAMILY_GEMM, shape, arch, f);
}

static void test_slot(void)
{
    const gdt_engine_slot *s = hand_slot();
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK_INT(gdt_engine_id(s->family, s->slot), ==, 20010);
    CHECK(gdt_manifest_find(NULL, 20010) == s);
    CHECK_INT(s->kind, ==, GDT_ENGINE_HAND);
    CHECK(s->tmpl == NULL);
    CHECK_INT(s->cap.sm_lo, ==, 90);
    CHECK_INT(s->cap.sm_hi, ==, 90);
    CHECK_INT(s->cap.dtypes, ==, (1u << GDT_DTYPE_BF16) | (1u << GDT_DTYPE_FP16));
    CHECK(!s->opt_in); /* offered: test_hand verified it on the H200 */
    CHECK(s->ops == &gdt__hand_gemm_ops);
}

static void test_offered(void)
{
    gdt_manifest m = *gdt_manifest_default();
    gdt_facts f;
    char why[256];
    facts_for("m=4096,n=4096,k=4096", 90, &f);
    CHECK(gdt_slot_offered(&m, hand_slot(), &f, why, sizeof why));
    facts_for("m=4096,n=4096,k=4096", 100, &f);
    CHECK(!gdt_slot_offered(&m, hand_slot(), &f, why, sizeof why));
    CHECK_STR(why, "gemm.hand: sm100 outside sm90..sm90");
    facts_for("m=64,n=64,k=64", 90, &f);
    f.dtype = GDT_DTYPE_FP32; /* no GEMM shape parses to it: the facts alone */
    CHECK(!gdt_slot_offered(&m, hand_slot(), &f, why, sizeof why));
    CHECK_STR(why, "gemm.hand: dtype fp32 not served");
}

static int plans_output(const char *arch, char *out, size_t n)
{
    char *argv[] = {(char *)gdt_test_exe(), "plans", "gemm", "--shape", "m=4096,n=4096,k=4096",
                    "--arch", (char *)arch, "--tables", GDT_SOURCE_DIR "/tables", NULL};
    return gdt_test_spawn(argv, NULL, out, n);
}

/* Listed on sm90, never on sm100. */
static void test_plans(void)
{
    static char out[1 << 16];
    CHECK_INT(plans_output("sm90", out, sizeof out), ==, 0);
    CHECK_CONTAINS(out, "gemm.hand");
    CHECK_INT(plans_output("sm100", out, sizeof out), ==, 0);
    CHECK(strstr(out, "gemm.hand") == NULL);
    CHECK_CONTAINS(out, "gemm.nvrtc");
}

static gdt_status check(const char *shape, int arch, const gdt_plan_id *id, gdt_error *e)
{
    gdt_facts f;
    facts_for(shape, arch, &f);
    return hand_slot()->ops->check_support(hand_slot(), &f, id, e);
}

/* The printed name parses back to the first configuration; both it and
 * the knobless name the planner proposes are accepted, another knob set
 * is declined naming the fixed ones (test_hand_configs: all of them). */
static void test_replay(void)
{
    gdt_plan_id fixed, parsed, bare = {.engine_id = 20010};
    char name[256];
    gdt_error e = {0};
    gdt__hand_gemm_plan(20010, &fixed);
    gdt_plan_id_format(&fixed, name, sizeof name);
    CHECK_STR(name, "gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]");
    CHECK_INT(gdt_plan_id_parse(name, &parsed, &e), ==, GDT_STATUS_OK);
    CHECK(gdt_plan_id_equal(&parsed, &fixed));
    CHECK_INT(check("m=4096,n=4096,k=4096", 90, &parsed, &e), ==, GDT_STATUS_OK);
    CHECK_INT(check("m=4096,n=4096,k=4096", 90, &bare, &e), ==, GDT_STATUS_OK);
    CHECK_INT(gdt_plan_id_parse("gemm.hand[STAGES=3, TILE_M=128, TILE_N=256]", &parsed, &e), ==,
              GDT_STATUS_OK);
    CHECK_INT(check("m=4096,n=4096,k=4096", 90, &parsed, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "gemm.hand: plan gemm.hand[STAGES=3, TILE_M=128, TILE_N=256]: not one of "
                          "the kernel's fixed configurations (gemm.hand[GROUP_M=8, STAGES=4, "
                          "TILEK=64, TILE_M=128, TILE_N=256], ");
}

/* Everything TMA cannot describe or the cubin cannot run is declined with
 * the reason; tails, batches and every row/col combination are accepted. */
static void test_support(void)
{
    static const char *const ok[] = {
        "m=200,n=328,k=136", "batch=3,m=72,n=264,k=40,a=col", "m=136,n=8,k=8,b=col",
        "m=264,n=200,k=72,a=col,b=col,dtype=fp16", "m=1,n=8,k=8",
    };
    gdt_plan_id id = {.engine_id = 20010};
    gdt_error e = {0};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CHECK_INT(check(ok[i], 90, &id, &e), ==, GDT_STATUS_OK);
        if (e.msg[0])
            fprintf(stderr, "%s: %s\n", ok[i], e.msg);
        gdt_error_clear(&e);
    }
    CHECK_INT(check("m=64,n=64,k=7", 90, &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_STR(e.msg, "gemm.hand: operand A: leading stride of 14 bytes is not a multiple of 16 "
                     "below 2^40, as TMA needs");
    CHECK_INT(check("m=64,n=100,k=64", 90, &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "operand B: leading stride of 200 bytes");
    CHECK_INT(check("m=60,n=64,k=64,a=col", 90, &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_CONTAINS(e.msg, "operand A: leading stride of 120 bytes");
    CHECK_INT(check("m=64,n=64,k=64", 100, &id, &e), ==, GDT_STATUS_NOT_SUPPORTED);
    CHECK_STR(e.msg, "gemm.hand: sm100: the cubin is built for sm_90a only");
    gdt_facts f;
    facts_for("m=64,n=64,k=64", 90, &f);
    f.dtype = GDT_DTYPE_FP32;
    CHECK_INT(hand_slot()->ops->check_support(hand_slot(), &f, &id, &e), ==,
              GDT_STATUS_NOT_SUPPORTED);
    CHECK_STR(e.msg, "gemm.hand: dtype fp32: bf16 and fp16 only");
}

/* Compile-only on another arch is declined, not built for the wrong target. */
static void test_compile_only(void)
{
    gdt_facts f;
    gdt_plan_id id = {.engine_id = 20010};
    gdt_compiled *c = (gdt_compiled *)&id;
    gdt_error e = {0};
    gdt_build_opts o = {.compile_only = true};
    facts_for("m=64,n=64,k=64", 100, &f);
    CHECK(gdt_arch_limits(100, &o.device));
    CHECK_INT(hand_slot()->ops->build(hand_slot(), &f, &id, &o, &c, NULL, &e), ==,
              GDT_STATUS_NOT_SUPPORTED);
    CHECK(c == NULL);
    CHECK_CONTAINS(e.msg, "sm100: the cubin is built for sm_90a only");
}

static void test_cubin(void)
{
    const gdt_embedded *x = gdt_embedded_find(GDT_HAND_GEMM_CUBIN);
    CHECK(x != NULL);
    if (!x)
        return;
    CHECK(x->len > 1024);
    CHECK(x->len > 4 && !memcmp(x->data, "\177ELF", 4)); /* a cubin is an ELF image */
    CHECK(memmem(x->data, x->len, "gdt_hand_gemm_bf16_kk", 21) != NULL);
    CHECK(memmem(x->data, x->len, "gdt_hand_gemm_fp16_mm", 21) != NULL);
    /* the splits summed in a cluster (configuration 11), first and last layout */
    CHECK(memmem(x->data, x->len, "gdt_hand_gemm_n64_splitk_dsmem_s8_bf16_kk", 41) != NULL);
    CHECK(memmem(x->data, x->len, "gdt_hand_gemm_n64_splitk_dsmem_s8_fp16_mm", 41) != NULL);
    /* the two twins of default rows (configurations 12 and 13) */
    CHECK(memmem(x->data, x->len, "gdt_hand_gemm_s3_bf16_kk", 24) != NULL);
    CHECK(memmem(x->data, x->len, "gdt_hand_gemm_n64_s8_fp16_mm", 28) != NULL);
}

int main(void)
{
    test_slot();
    test_offered();
    test_plans();
    test_replay();
    test_support();
    test_compile_only();
    test_cubin();
    return gdt_test_result("test_hand_slot");
}
