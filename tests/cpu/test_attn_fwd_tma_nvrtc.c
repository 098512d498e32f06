/* The Hopper attention forward's one source (kernels/gdt_attn_fwd_sm90.cuh)
 * through NVRTC on the CPU: kernels/attn_fwd.cuh with PIPE=1 at each of
 * sdpa_fwd.hand's entries' dtype and head dim compiles for sm_90a through
 * the project's NVRTC path (gdt_nvrtc_compile, every kernels/gdt_*.cuh as
 * a header), and its kernel is the nvcc-built hand cubin's entry byte for
 * byte (the .text of gdt_attn_fwd against .text.gdt_hand_attn_fwd_*).  No
 * candidate row binds PIPE for attention yet, so the test binds the
 * template's defines itself. */
#include <stdlib.h>
#include <string.h>

#include "elf_support.h"
#include "gdt_engines.h"
#include "gdt_test.h"
#include "gdt_util.h"
#include "hand/gdt_hand.h"
#include "nvrtc/gdt_nvrtc.h"

/* sdpa_fwd.hand's entries (kernels/hand/attn_fwd_sm90.cu). */
typedef struct hand_entry {
    const char *dtype;
    int fp16, d;
} hand_entry;

static const hand_entry ENTRIES[] = {
    {"bf16", 0, 64},
    {"bf16", 0, 128},
    {"fp16", 1, 64},
    {"fp16", 1, 128},
};

/* The entry the template's defines bind now (gdt_nvrtc_template.defines
 * takes no context of its own). */
static const hand_entry *bound;

static int pipe_defines(const gdt_facts *f, const gdt_plan_id *p, gdt_nvrtc_define *out, int max)
{
    (void)f, (void)p;
    if (max < 3)
        return 0;
    out[0] = (gdt_nvrtc_define){"PIPE", 1};
    out[1] = (gdt_nvrtc_define){"GDT_FP16", bound->fp16};
    out[2] = (gdt_nvrtc_define){"HEAD_DIM", bound->d};
    return 3;
}

/* kernels/attn_fwd.cuh as the attention forward's template, with PIPE=1
 * and the entry's dtype and head dim as its defines. */
static gdt_nvrtc_template pipe_template(void)
{
    gdt_nvrtc_template t = gdt__tmpl_attn_fwd;
    t.defines = pipe_defines;
    return t;
}

/* The NVRTC build of the entry e against the hand cubin's; the plan is
 * sdpa_fwd.hand's (MMA=2 asks for sm_90a). */
static void check_entry(const hand_entry *e, const gdt_embedded *hand)
{
    const gdt_engine_slot *s = gdt_manifest_find_name(gdt_manifest_default(), "sdpa_fwd.hand");
    gdt_nvrtc_template t = pipe_template();
    gdt_facts f = {0};
    gdt_plan_id p;
    gdt_error err = {0};
    char entry[128];
    void *cubin = NULL;
    size_t len = 0, na = 0, nb = 0;
    CHECK(s != NULL);
    if (!s)
        return;
    gdt__hand_attn_plan(gdt_engine_id(GDT_FAMILY_SDPA_FWD, s->slot), &p);
    bound = e;
    gdt_status st = gdt_nvrtc_compile(&t, &f, &p, 90, &cubin, &len, NULL, &err);
    if (st != GDT_STATUS_OK)
        fprintf(stderr, "PIPE=1 %s d%d: %s\n", e->dtype, e->d, err.msg);
    CHECK_INT(st, ==, GDT_STATUS_OK);
    snprintf(entry, sizeof entry, ".text.gdt_hand_attn_fwd_%s_d%d", e->dtype, e->d);
    const unsigned char *a = cubin ? elf_section(cubin, len, ".text.gdt_attn_fwd", &na) : NULL;
    const unsigned char *b = elf_section(hand->data, hand->len, entry, &nb);
    CHECK(a != NULL && b != NULL);
    bool same = a && b && na == nb && !memcmp(a, b, na);
    if (a && b && !same)
        fprintf(stderr, "PIPE=1 %s d%d: .text.gdt_attn_fwd (%zu bytes) differs from %s (%zu bytes)\n",
                e->dtype, e->d, na, entry, nb);
    CHECK(same);
    free(cubin);
}

int main(void)
{
    const gdt_embedded *hand = gdt_embedded_find(GDT_HAND_ATTN_CUBIN);
    CHECK(hand != NULL);
    for (size_t i = 0; hand && i < sizeof ENTRIES / sizeof ENTRIES[0]; i++)
        check_entry(&ENTRIES[i], hand);
    return gdt_test_result("test_attn_fwd_tma_nvrtc");
}
