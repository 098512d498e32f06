/* libFuzzer target: the sweep spec (gdt_sweep_spec_parse, sweeps/NAME.json
 * and --spec files), read both as the full grid and as --quick. */
#include "gdt_fuzz.h"
#include "gdt_sweep.h"

#define NAME "fuzz/sweep.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int quick = 0; quick < 2; quick++) {
        gdt_sweep_spec *s = NULL;
        gdt_error e;
        gdt_error_clear(&e);
        gdt_fuzz_outcome(gdt_sweep_spec_parse((const char *)data, size, NAME, quick, &s, &e), &e, NAME);
        gdt_sweep_spec_destroy(s);
    }
    return 0;
}
