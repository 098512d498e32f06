/* libFuzzer target: --shape (gdt_problem_parse), the same text for every
 * family.  A shape it accepts must also validate, yield its key and a
 * finite, positive flop count (parse refuses dims whose products overflow). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = gdt_fuzz_text(data, size);
    for (int f = 0; f < GDT_FAMILY_COUNT; f++) {
        gdt_problem p;
        gdt_error e;
        gdt_error_clear(&e);
        gdt_status s = gdt_problem_parse((gdt_family)f, spec, &p, &e);
        gdt_fuzz_outcome(s, &e, NULL);
        if (s != GDT_STATUS_OK) continue;
        char key[512];
        double flops = gdt_problem_flops(&p);
        if (gdt_problem_validate(&p, &e) != GDT_STATUS_OK || gdt_problem_key(&p, key, sizeof key) <= 0 ||
            !(flops > 0 && flops < 1e300)) {
            fprintf(stderr, "fuzz_shape: \"%s\" parsed as %s but: %s, flops %g\n", spec,
                    gdt_family_name((gdt_family)f), e.msg, flops);
            abort();
        }
    }
    free(spec);
    return 0;
}
