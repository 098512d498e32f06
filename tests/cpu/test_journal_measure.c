/* The journal fields racing, contenders and --cupti add, on the committed
 * racing GEMM journal: options.cupti, a result's race_burst and cupti
 * object (with its main kernel's name and launch shape) load where present (the journal without them loads as before) and
 * are refused, naming the path, when malformed; gdt_sweep_top_converged
 * counts the converged plans among a cell's three fastest verified ones. */
#include <stdlib.h>
#include <string.h>

#include "gdt_run.h"
#include "gdt_sweep.h"
#include "gdt_test.h"

#define JOURNAL_GZ GDT_TEST_DATA "/journals/gemm-20261201T1337Z.journal.jsonl.gz"
#define MAX_TEXT (16u << 20)

static char *original;

/* original with the first `from` replaced by `to` (malloc'd). */
static char *edited(const char *from, const char *to)
{
    const char *at = strstr(original, from);
    CHECK(at != NULL);
    if (!at)
        return NULL;
    size_t n = strlen(original), head = (size_t)(at - original);
    char *s = malloc(n + strlen(to) + 1);
    memcpy(s, original, head);
    strcpy(s + head, to);
    strcat(s, at + strlen(from));
    return s;
}

/* Every occurrence of from replaced by to (malloc'd). */
static char *replaced_all(const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), n = 0;
    for (const char *p = original; (p = strstr(p, from)) != NULL; p += nf)
        n++;
    char *s = malloc(strlen(original) + n * nt + 1), *o = s;
    const char *p = original, *q;
    while ((q = strstr(p, from)) != NULL) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, nt);
        o += nt;
        p = q + nf;
    }
    strcpy(o, p);
    return s;
}

static gdt_status parse(const char *text, gdt_run **r, gdt_error *e)
{
    return gdt_run_parse(text, strlen(text), "journal.jsonl", r, e);
}

/* The first result with `fields` written before its raced_out: loads when
 * want is NULL, else is refused with a message containing want. */
static void check_result_fields(const char *fields, const char *want)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    char *to = malloc(strlen(fields) + sizeof "\"raced_out\":");
    strcpy(to, fields);
    strcat(to, "\"raced_out\":");
    char *s = edited("\"raced_out\":", to);
    CHECK_INT(parse(s, &r, &e), ==, want ? GDT_STATUS_BAD_INPUT : GDT_STATUS_OK);
    if (want)
        CHECK_CONTAINS(e.msg, want);
    gdt_run_destroy(r);
    free(s);
    free(to);
}

static void test_new_fields(void)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    CHECK_INT(parse(original, &r, &e), ==, GDT_STATUS_OK);
    CHECK(r && !r->options.cupti);
    gdt_run_destroy(r);
    char *s = edited("\"race\":true}", "\"cupti\":true,\"race\":true}");
    CHECK_INT(parse(s, &r, &e), ==, GDT_STATUS_OK);
    CHECK(r && r->options.cupti);
    gdt_run_destroy(r);
    free(s);
    check_result_fields("\"race_burst\":16,\"cupti\":{\"burst\":64,\"kernels\":2,\"kernel_us\":10,"
                        "\"event_us\":11.5,\"gap_us\":1.5,\"span_us\":10.8},", NULL);
    check_result_fields("\"cupti\":{\"burst\":64,\"kernels\":\"two\",\"kernel_us\":10,"
                        "\"event_us\":11,\"gap_us\":1,\"span_us\":10},",
                        "/cupti/kernels: expected a number, got");
    check_result_fields("\"race_burst\":0,", "/race_burst: expected a value in [1, 4096], got number 0");
    check_result_fields("\"heat_s\":0.2,\"heat_mhz\":1694,", NULL);
    /* A heat-up runs whole bursts: heat_s passes heat_seconds (at most 2) by up to one. */
    check_result_fields("\"heat_s\":2.018,\"heat_mhz\":1694,", NULL);
    check_result_fields("\"heat_s\":-1,", "/heat_s: expected a value in [0, 86400], got number -1");
    static const char kernel[] =
        "\"cupti\":{\"burst\":64,\"kernels\":1,\"kernel_us\":10,\"event_us\":11,\"gap_us\":1,"
        "\"span_us\":10,\"kernel\":{\"name\":\"sm90_xmma_gemm_tilesize128x256x64\",\"grid\":[132,1,1],"
        "\"block\":[384,1,1],\"cluster\":[2,1,1],\"registers\":168,\"smem\":230480,\"share\":%s}},";
    char buf[512];
    snprintf(buf, sizeof buf, kernel, "1");
    check_result_fields(buf, NULL);
    snprintf(buf, sizeof buf, kernel, "1.5");
    check_result_fields(buf, "/cupti/kernel/share: expected a value in [0, 1], got number 1.5");
    check_result_fields("\"cupti\":{\"burst\":64,\"kernels\":1,\"kernel_us\":10,\"event_us\":11,"
                        "\"gap_us\":1,\"span_us\":10,\"kernel\":{\"grid\":[1,1,1]}},",
                        "/cupti/kernel/name: expected a string, got nothing (missing required field)");
    check_result_fields("\"cupti\":{\"burst\":64},",
                        "/cupti/kernels: expected a number, got nothing (missing required field)");
}

/* The count by brute force: the three smallest verified times, ties by
 * plan index. */
static int top3_by_hand(const gdt_run_cell *c, int *conv)
{
    int pick[3], n = 0;
    *conv = 0;
    for (; n < 3; n++) {
        int b = -1;
        for (int pi = 0; pi < c->nplans; pi++) {
            bool taken = false;
            for (int k = 0; k < n; k++)
                taken = taken || pick[k] == pi;
            if (c->result[pi].journaled && c->result[pi].disposition == GDT_DISP_VERIFIED && !taken &&
                (b < 0 || c->result[pi].time_us < c->result[b].time_us))
                b = pi;
        }
        if (b < 0)
            break;
        pick[n] = b;
        *conv += c->result[b].converged;
    }
    return n;
}

static void check_top3(const char *text, int want)
{
    gdt_run *r = NULL;
    gdt_error e = {0};
    CHECK_INT(parse(text, &r, &e), ==, GDT_STATUS_OK);
    for (int ci = 0; r && ci < r->ncells; ci++) {
        int conv = -1, hand = -1, n = gdt_sweep_top_converged(&r->cells[ci], 3, &conv);
        CHECK_INT(n, ==, 3); /* every cell of that sweep verified more than three plans */
        CHECK_INT(n, ==, top3_by_hand(&r->cells[ci], &hand));
        CHECK_INT(conv, ==, hand);
        if (want >= 0)
            CHECK_INT(conv, ==, want);
    }
    gdt_run_destroy(r);
}

static void test_top_converged(void)
{
    check_top3(original, -1);
    char *s = replaced_all("\"converged\":false", "\"converged\":true");
    check_top3(s, 3);
    free(s);
    s = replaced_all("\"converged\":true", "\"converged\":false");
    check_top3(s, 0);
    free(s);
}

int main(void)
{
    char *argv[] = {"gunzip", "-c", JOURNAL_GZ, NULL};
    original = malloc(MAX_TEXT);
    CHECK_INT(gdt_test_spawn(argv, NULL, original, MAX_TEXT), ==, 0);
    CHECK(strlen(original) > 100000);
    test_new_fields();
    test_top_converged();
    free(original);
    return gdt_test_result("test_journal_measure");
}
