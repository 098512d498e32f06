/* Replays committed regression inputs through a fuzz target's
 * LLVMFuzzerTestOneInput, built with the normal compiler against the
 * ASan/UBSan library (tests/CMakeLists.txt): a crash, a leak (LeakSanitizer
 * at exit) or undefined behaviour fails the test, and so does a file that
 * cannot be read (the list comes from configure time) and an input named
 * refuse-* that some loader accepted. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "gdt_fuzz.h"
#include "gdt_util.h"

#define GUARD 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
    char *data = NULL;
    size_t n = 0;
    gdt_error e;
    gdt_error_clear(&e);
    if (gdt_file_read(path, &data, &n, &e) != GDT_STATUS_OK) {
        fprintf(stderr, "replay: %s\n", e.msg);
        return 1;
    }
    /* The input followed by guard bytes that are not NUL (a reader that looks
     * for a NUL, like printf's "%.16s", goes on into them) and poisoned: any
     * read past the length is an ASan error, whatever the heap held there. */
    uint8_t *buf = malloc(n + GUARD);
    if (!buf) return fprintf(stderr, "replay: %s: out of memory\n", path), 1;
    memcpy(buf, data, n);
    memset(buf + n, 'x', GUARD);
    free(data);
    ASAN_POISON_MEMORY_REGION(buf + n, GUARD);
    gdt_fuzz_accepted = 0;
    gdt_fuzz_refusal[0] = '\0';
    LLVMFuzzerTestOneInput(buf, n);
    ASAN_UNPOISON_MEMORY_REGION(buf + n, GUARD);
    free(buf);
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    if (!strncmp(basename(copy), "refuse-", 7) && gdt_fuzz_accepted) {
        fprintf(stderr, "replay: %s: expected every loader to refuse it, %d accepted\n", path,
                gdt_fuzz_accepted);
        return 1;
    }
    printf("replay: %s: %zu bytes ok (%d accepted%s%s)\n", path, n, gdt_fuzz_accepted,
           gdt_fuzz_refusal[0] ? "; refused: " : "", gdt_fuzz_refusal);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...  (no regression inputs given)\n", argv[0]);
        return 2;
    }
    int failed = 0;
    for (int i = 1; i < argc; i++) failed += replay(argv[i]);
    printf("replay: %d of %d inputs failed\n", failed, argc - 1);
    return failed ? 1 : 0;
}
