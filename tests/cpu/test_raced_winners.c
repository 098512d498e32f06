/* `tables emit` says in how many cells the fastest plan, by the figure the
 * tables take, was raced out: its place then rests on one series at the
 * cell's clock (docs/racing.md, "Rounds").  The H100 base sweeps of
 * runs/sm90/s35-20261207-h100: in 5 of the 25 GEMM cells (a nightly against
 * those tables held one such winner 7% slower in its rounds), in none of
 * the 48 SDPA cells, which get no such line. */
#include <stdio.h>
#include <string.h>

#include "gdt_test.h"
#include "gdt_util.h"

#define RUNS GDT_SOURCE_DIR "/runs/sm90/s35-20261207-h100/"

static char root[256];
static char out[1 << 16];

/* The family's journal emitted into ROOT/tables-FAMILY; its output in out. */
static void emit(const char *family)
{
    char journal[400];
    snprintf(journal, sizeof journal, RUNS "%s.journal.jsonl.gz", family);
    CHECK_INT(gdt_test_emit_kept(journal, root, family, out, sizeof out), ==, 0);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/gdt_test_raced_winners.XXXXXX");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    emit("gemm");
    CHECK_CONTAINS(out, "gdtune tables emit: gemm: in 5 of 25 cells the fastest plan was raced out: its "
                        "place rests on one series at the cell's clock");
    emit("sdpa");
    CHECK(strstr(out, "raced out") == NULL);
    CHECK_CONTAINS(out, "wrote");
    if (!gdt_test_failures && gdt_test_remove_tree(root) != 0) fprintf(stderr, "could not remove %s\n", root);
    return gdt_test_result("test_raced_winners");
}
