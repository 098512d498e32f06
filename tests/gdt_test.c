#include <sys/wait.h>

#include "gdt_test.h"

int gdt_test_failures = 0;

int gdt_test_result(const char *name)
{
    if (gdt_test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, gdt_test_failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

int gdt_test_run(const char *cmd, char *out, size_t nout)
{
    char full[8192];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t got = fread(out, 1, nout ? nout - 1 : 0, p);
    if (nout)
        out[got] = 0;
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *gdt_test_exe(void)
{
    const char *e = getenv("GDTUNE_EXE");
#ifdef GDTUNE_EXE
    return e && *e ? e : GDTUNE_EXE;
#else
    return e && *e ? e : "gdtune";
#endif
}
