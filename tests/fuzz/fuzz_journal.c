/* libFuzzer target: the journal (gdt_run_parse, harness/gdt_run.h), the
 * one strict reader of RUNDIR/journal.jsonl behind resume, `tables emit`,
 * merge, report and raw.h5.  A journal it accepts must add up: the
 * complete records and the torn tail fit in the input, every result
 * belongs to a listed plan, and the disposition counts sum to the results. */
#include <stdio.h>
#include <stdlib.h>

#include "gdt_fuzz.h"
#include "gdt_run.h"

#define NAME "fuzz/journal.jsonl"

static void check_run(const gdt_run *r, size_t size)
{
    int sum = 0, results = 0;
    for (int d = 0; d < GDT_DISP_COUNT; d++) sum += r->counts[d];
    for (int i = 0; i < r->ncells; i++) {
        const gdt_run_cell *c = &r->cells[i];
        if (c->nresults < 0 || c->nresults > c->nplans) goto bad;
        results += c->nresults;
    }
    if (r->tail.good_bytes + r->tail.torn_bytes > size || sum != r->results || results != r->results) goto bad;
    return;
bad:
    fprintf(stderr, "fuzz_journal: accepted a run that does not add up: %zu+%zu bytes of %zu, "
            "%d results, counts sum %d, cells' results %d\n",
            r->tail.good_bytes, r->tail.torn_bytes, size, r->results, sum, results);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gdt_run *r = NULL;
    gdt_error e;
    gdt_error_clear(&e);
    gdt_status s = gdt_run_parse((const char *)data, size, NAME, &r, &e);
    gdt_fuzz_outcome(s, &e, NAME);
    if (s == GDT_STATUS_OK) check_run(r, size);
    gdt_run_destroy(r);
    return 0;
}
