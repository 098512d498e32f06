/* Names on their way to a terminal or markdown (issue 34 F10): the one
 * terminal escaping (ESC, BEL, line breaks, DEL and C1 controls written as
 * text, cut to fit), the markdown table cell built on it, and the journal
 * reader refusing a device or plan name with a control character, or a
 * plan name other than what its engine_id and knobs print as, naming the
 * line and JSON path. */
#include <stdlib.h>
#include <string.h>

#include "gdt_markdown.h"
#include "gdt_run.h"
#include "gdt_test.h"
#include "gdt_util.h"

#define JOURNAL_GZ GDT_TEST_DATA "/journals/gemm-20261129T1704Z.journal.jsonl.gz"
#define MAX_TEXT (8u << 20)

static void test_escape(void)
{
    char buf[256];
    CHECK_STR(gdt_text_escape("NVIDIA H200", buf, sizeof buf), "NVIDIA H200");
    CHECK_STR(gdt_text_escape("a\x1b[31mb\ac\nd\re\tf\x7fg", buf, sizeof buf),
              "a\\x1b[31mb\\x07c\\nd\\re\\tf\\x7fg");
    /* C1 controls in UTF-8 (U+009B is CSI), not other two-byte characters */
    CHECK_STR(gdt_text_escape("x\xc2\x9b" "2Jy \xc3\xa9 \xc2\xa0", buf, sizeof buf), "x\\u009b2Jy \xc3\xa9 \xc2\xa0");
    CHECK_STR(gdt_text_escape(NULL, buf, sizeof buf), "");
    CHECK_INT(gdt_text_control_find("abc"), ==, -1);
    CHECK_INT(gdt_text_control_find("ab\x1b"), ==, 2);
    CHECK_INT(gdt_text_control_find("a\xc2\x85"), ==, 1);
    CHECK_INT(gdt_text_control_at("|"), ==, 0);
    /* cut to fit, with "...", never a half escape */
    char small[12];
    CHECK_STR(gdt_text_escape("0123456789abcdef", small, sizeof small), "01234567...");
    CHECK_STR(gdt_text_escape("\x1b\x1b\x1b\x1b", small, sizeof small), "\\x1b\\x1b...");
    CHECK_STR(gdt_text_escape("0123456789a", small, sizeof small), "0123456789a");
}

static void test_markdown(void)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    gdt_md_code(f, "H200\x1b]0;owned\a|x\n| row |");
    fclose(f);
    CHECK_STR(buf, "`H200\\x1b]0;owned\\x07\\|x\\n\\| row \\|`");
    CHECK(gdt_text_control_find(buf) < 0);
    free(buf);
}

static char *journal;

/* The committed journal with the first `from` replaced by `to`, parsed:
 * the reader's message ("" when it loads). */
static const char *parse_edited(const char *from, const char *to, char *msg, size_t nmsg)
{
    const char *at = strstr(journal, from);
    CHECK(at != NULL);
    if (!at) return "";
    size_t head = (size_t)(at - journal), len = strlen(journal) - strlen(from) + strlen(to);
    char *text = malloc(len + 1);
    memcpy(text, journal, head);
    memcpy(text + head, to, strlen(to));
    strcpy(text + head + strlen(to), at + strlen(from));
    gdt_run *r = NULL;
    gdt_error e = {0};
    gdt_status s = gdt_run_parse(text, len, "journal.jsonl", &r, &e);
    snprintf(msg, nmsg, "%s", s == GDT_STATUS_OK ? "" : e.msg);
    if (s != GDT_STATUS_OK) CHECK_INT(s, ==, GDT_STATUS_BAD_INPUT);
    gdt_run_destroy(r);
    free(text);
    return msg;
}

#define PLAN0 "gemm.nvrtc[GROUP_M=8, MMA=0, STAGES=4, TILEK=32, TILE_M=128, TILE_N=128, WARPS_M=2, WARPS_N=2]"

static void test_journal(void)
{
    char *argv[] = {"gunzip", "-c", JOURNAL_GZ, NULL}, msg[2048];
    journal = malloc(MAX_TEXT);
    CHECK_INT(gdt_test_spawn(argv, NULL, journal, MAX_TEXT), ==, 0);
    CHECK_STR(parse_edited("\"name\":\"NVIDIA H200\"", "\"name\":\"NVIDIA H200\"", msg, sizeof msg), "");
    CHECK_CONTAINS(parse_edited("\"name\":\"NVIDIA H200\"", "\"name\":\"NVIDIA\\u001b[2JH200\"", msg, sizeof msg),
                   "journal.jsonl:1: /device/name: expected a name without control characters, got "
                   "\"NVIDIA\\x1b[2JH200\" (a control character at byte 6)");
    CHECK_CONTAINS(parse_edited("\"name\":\"" PLAN0 "\"", "\"name\":\"" PLAN0 "\\u0007\"", msg, sizeof msg),
                   "journal.jsonl:3: /plans/0/name: expected a name without control characters, got \"" PLAN0
                   "\\x07\" (a control character at byte 94)");
    CHECK_CONTAINS(parse_edited("\"name\":\"" PLAN0 "\"", "\"name\":\"gemm.nvrtc[TILE_M=64]\"", msg, sizeof msg),
                   "journal.jsonl:3: /plans/0/name: expected \"" PLAN0 "\" (what engine_id and knobs print as), "
                   "got \"gemm.nvrtc[TILE_M=64]\"");
    CHECK_CONTAINS(parse_edited("\"key\":\"gemm:b1,m128,", "\"key\":\"gemm:b1\\n,m128,", msg, sizeof msg),
                   "journal.jsonl:2: /key: expected a name without control characters");
    /* what a message echoes of a key or a value is escaped too */
    CHECK_CONTAINS(parse_edited("{\"type\":\"cell\",\"cell\":0,", "{\"type\":\"cell\",\"x\\u001b[2J\":1,\"cell\":0,",
                                msg, sizeof msg),
                   "journal.jsonl:2: /x\\x1b[2J: unknown field \"x\\x1b[2J\"");
    CHECK(gdt_text_control_find(msg) < 0);
    CHECK_CONTAINS(parse_edited("{\"type\":\"cell\",\"cell\":0,", "{\"type\":\"cell\",\"cell\":\"\\u0007\",",
                                msg, sizeof msg),
                   "journal.jsonl:2: /cell: expected an integer, got string \"\\x07\"");
    free(journal);
}

int main(void)
{
    test_escape();
    test_markdown();
    test_journal();
    return gdt_test_result("test_text_escape");
}
