/* libFuzzer target: the candidate-row loader (gdt_rows_load_text, the
 * parser of tables/candidates/nvrtc.json and of --tuning-config files).  A
 * table it accepts is also applied as a --tuning-config override onto the
 * default rows (gdt_rows_override reads a file: the group swap is the only
 * code that differs) and digested. */
#include <stdlib.h>

#include "gdt_fuzz.h"
#include "gdtune/candidates.h"

#define NAME "fuzz/nvrtc.json"

static void override_default(const uint8_t *data, size_t size)
{
    gdt_row_table *t = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    if (gdt_rows_load_default(&t, &e) != GDT_STATUS_OK) abort(); /* the embedded table is valid */
    const char *path = gdt_fuzz_file("override.json", data, size);
    gdt_error_clear(&e);
    gdt_fuzz_outcome(gdt_rows_override(t, path, &e), &e, path);
    char digest[65];
    gdt_rows_digest(t, digest);
    gdt_rows_destroy(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gdt_row_table *t = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status s = gdt_rows_load_text((const char *)data, size, NAME, &t, &e);
    gdt_fuzz_outcome(s, &e, NAME);
    if (s == GDT_STATUS_OK) {
        char digest[65];
        gdt_rows_digest(t, digest);
        override_default(data, size);
    }
    gdt_rows_destroy(t);
    return 0;
}
