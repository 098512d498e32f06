/* The places the tables are looked for when the caller names no folder,
 * in order: each folder of $GDTUNE_TABLES_PATH, ./tables (a checkout or a
 * build run from its root), then the installed data folder as seen from
 * the code that runs: beside the shared libgdtune (dladdr), then beside
 * the executable (/proc/self/exe).  A program linked with libgdtune.a --
 * gdtune itself is one -- has no library path of its own: its executable's
 * place is the one that can hold the data.
 *
 * No absolute path is compiled in: the build gives the relative path from
 * the install's lib/ and bin/ to share/gdtune (GNUInstallDirs), so that an
 * install under any --prefix, or a prefix copied elsewhere whole, finds its
 * own data and never another install's. */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gdtune/tables.h"

#ifndef GDT_LIB_TO_DATA
#define GDT_LIB_TO_DATA "../share/gdtune"
#endif
#ifndef GDT_BIN_TO_DATA
#define GDT_BIN_TO_DATA "../share/gdtune"
#endif

enum { PLACE_MAX = 4096, ORIGIN_MAX = PLACE_MAX + 64 };

/* Something of libgdtune's own, for dladdr to say which object holds it. */
static const char anchor = 0;

/* Appends the component comp (len bytes) to the folder dir, taking ".."
 * and "." lexically: dir is a real path, so no link is crossed backwards. */
static bool append(char *dir, size_t n, const char *comp, size_t len)
{
    if (len == 0 || (len == 1 && comp[0] == '.')) return true;
    if (len == 2 && !strncmp(comp, "..", 2)) {
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        return true;
    }
    size_t used = strlen(dir);
    if (used + 1 + len >= n) return false;
    dir[used] = '/';
    memcpy(dir + used + 1, comp, len);
    dir[used + 1 + len] = 0;
    return true;
}

/* <the folder of file>/<rel>/tables, file's folder resolved to its real
 * path first.  false when file cannot be resolved or the result does not
 * fit in n bytes. */
static bool beside(const char *file, const char *rel, char *out, size_t n)
{
    char real[PATH_MAX];
    if (!realpath(file, real) || strlen(real) >= n) return false;
    char *slash = strrchr(real, '/');
    if (!slash) return false;
    *slash = 0;
    memcpy(out, real, strlen(real) + 1);
    for (const char *r = rel; *r;) {
        size_t len = strcspn(r, "/");
        if (!append(out, n, r, len)) return false;
        r += len;
        r += *r == '/';
    }
    return append(out, n, "tables", 6) && out[0];
}

/* The shared libgdtune's file, or false when libgdtune is linked into the
 * executable (its link map entry is the main program's, named ""). */
static bool library_file(char *path, size_t n)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1(&anchor, &info, (void **)&map, RTLD_DL_LINKMAP) || !map || !map->l_name ||
        !map->l_name[0] || !info.dli_fname || strlen(info.dli_fname) >= n)
        return false;
    memcpy(path, info.dli_fname, strlen(info.dli_fname) + 1);
    return true;
}

static bool executable_file(char *path, size_t n)
{
    ssize_t k = readlink("/proc/self/exe", path, n - 1);
    if (k <= 0 || (size_t)k >= n - 1) return false;
    path[k] = 0;
    return true;
}

/* The installed places: beside the library, then beside the executable
 * unless that is the same folder. */
static bool installed_places(gdt_tables_place_fn each, void *ctx)
{
    char file[PATH_MAX], lib[PLACE_MAX] = "", exe[PLACE_MAX], origin[ORIGIN_MAX];
    if (library_file(file, sizeof file) && beside(file, GDT_LIB_TO_DATA, lib, sizeof lib)) {
        snprintf(origin, sizeof origin, "beside libgdtune %s", file);
        if (each(ctx, lib, origin)) return true;
    }
    if (executable_file(file, sizeof file) && beside(file, GDT_BIN_TO_DATA, exe, sizeof exe) &&
        strcmp(exe, lib) != 0) {
        snprintf(origin, sizeof origin, "beside the executable %s", file);
        if (each(ctx, exe, origin)) return true;
    }
    return false;
}

bool gdt_tables_search_places(gdt_tables_place_fn each, void *ctx)
{
    char dir[PLACE_MAX];
    const char *path = getenv("GDTUNE_TABLES_PATH");
    for (const char *p = path; p && *p; p += *p == ':') {
        size_t len = strcspn(p, ":");
        /* an empty entry is no place; one longer than any path cannot be one */
        if (len > 0 && len < sizeof dir) {
            memcpy(dir, p, len);
            dir[len] = 0;
            if (each(ctx, dir, "GDTUNE_TABLES_PATH")) return true;
        }
        p += len;
    }
    if (each(ctx, "tables", "the working folder's ./tables")) return true;
    return installed_places(each, ctx);
}
