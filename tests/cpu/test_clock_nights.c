/* Three GEMM nights of one build on one H100 (runs/sm90/nightly-20261207-h100):
 * on the device, with each series' own time, `tables diff` of night 1's
 * tables against night 2's found 12 cells beyond noise and against night
 * 3's 13, and the rounds held one change each, in the two m16384 cells
 * below (docs/results/2026-12-07.md, "The fourteenth session").  Emitted
 * here with each plan at its cell's clock (docs/method.md, "Time at the
 * cell's clock"), those two cells are within noise and at most a fifth of
 * the 25 cells are beyond it; the same diffs with the series' own times
 * fail both. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_test.h"
#include "gdt_util.h"

static char root[256];
static char out[1 << 20];

#define NIGHTS GDT_SOURCE_DIR "/runs/sm90/nightly-20261207-h100/"

/* Night n's journal emitted into ROOT/tables-n. */
static void emit_night(int n)
{
    char journal[400], name[16];
    snprintf(journal, sizeof journal, NIGHTS "gemm-night%d.journal.jsonl.gz", n);
    snprintf(name, sizeof name, "%d", n);
    CHECK_INT(gdt_test_emit_kept(journal, root, name, out, sizeof out), ==, 0);
}

/* `tables diff` of night 1 against night n: the cells beyond noise, and
 * whether the cell key is one of them. */
static int beyond_noise(int n, const char *key, bool *key_beyond)
{
    char old[300], new[300];
    snprintf(old, sizeof old, "%s/tables-1", root);
    snprintf(new, sizeof new, "%s/tables-%d", root, n);
    char *argv[] = {(char *)gdt_test_exe(), "tables", "diff", old, new, "--family", "gemm", "--format", "json", NULL};
    int rc = gdt_test_spawn(argv, NULL, out, sizeof out);
    CHECK(rc == 0 || rc == 3); /* 3: a change beyond noise */
    cJSON *doc = cJSON_Parse(strchr(out, '{') ? strchr(out, '{') : out);
    const cJSON *cells = cJSON_GetObjectItem(doc, "cells"), *c;
    CHECK(cJSON_IsArray(cells));
    int beyond = 0, seen = 0;
    *key_beyond = false;
    cJSON_ArrayForEach(c, cells)
    {
        const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(c, "status"));
        const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(c, "key"));
        bool b = st && !strcmp(st, "beyond_noise");
        beyond += b;
        if (k && !strcmp(k, key)) seen = 1, *key_beyond = b;
    }
    CHECK_INT(seen, ==, 1);
    cJSON_Delete(doc);
    return beyond;
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/gdt_test_clock_nights.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    for (int n = 1; n <= 3; n++) emit_night(n);
    bool b2, b3;
    int n2 = beyond_noise(2, "gemm:b1,m16384,n4096,k4096,bf16,a=row,b=row", &b2);
    int n3 = beyond_noise(3, "gemm:b1,m16384,n4096,k14336,bf16,a=row,b=row", &b3);
    fprintf(stderr, "cells beyond noise: night 2 %d, night 3 %d of 25\n", n2, n3);
    CHECK(!b2 && !b3);
    CHECK_INT(n2, <=, 5);
    CHECK_INT(n3, <=, 5);
    if (!gdt_test_failures && gdt_test_remove_tree(root) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_clock_nights");
}
