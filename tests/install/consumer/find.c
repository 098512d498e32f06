/* A program that names no folder: libgdtune finds the tables itself
 * (gdt_tables_search_path), from its own place or the executable's.
 * Prints "found DIR (N cells)" and exits 0, or prints each place searched,
 * "searched DIR (ORIGIN)", and exits 1.  test_install builds it with
 * pkg-config, against libgdtune.so and libgdtune.a. */
#include <stdio.h>

#include <gdtune/tables.h>

static bool searched(void *ctx, const char *dir, const char *origin)
{
    (void)ctx;
    printf("searched %s (%s)\n", dir, origin);
    return false;
}

int main(void)
{
    char dir[4096];
    gdt_tables *t = NULL;
    gdt_tables_search how = {.out = &t};
    if (!gdt_tables_search_path(GDT_FAMILY_GEMM, 90, &how, dir, sizeof dir)) {
        gdt_tables_search_places(searched, NULL);
        return 1;
    }
    printf("found %s (%d cells)\n", dir, gdt_tables_ncells(t));
    gdt_tables_destroy(t);
    return 0;
}
