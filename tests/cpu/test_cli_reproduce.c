/* The command `compare` prints to measure a plan again, and the journal
 * header's argv `report` prints (cli/gdt_cli_reproduce.h): each word quoted
 * only where a shell needs it, and a POSIX shell reading the line back gets
 * exactly the words. */
#include <stdio.h>
#include <string.h>

#include "gdt_cli_reproduce.h"
#include "gdt_test.h"

static char out[4096];

/* The words sh makes of command, each as [word] on a line of out. */
static int shell_words(const char *command)
{
    char script[2048];
    snprintf(script, sizeof script, "printf '[%%s]\\n' %s", command);
    char *argv[] = {"sh", "-c", script, NULL};
    return gdt_test_spawn(argv, NULL, out, sizeof out);
}

static void test_round_trip(void)
{
    static const char *const plans[] = {
        "cudnn.eng0",
        "gemm.hand[GROUP_M=8, STAGES=4, TILEK=64, TILE_M=128, TILE_N=256]",
        "odd'name[$HOME `x` \"q\"; rm]",
    };
    for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
        char cmd[1024], want[2048];
        CHECK(gdt_cli_reproduce(cmd, sizeof cmd, "gemm", "m=128,n=4096,k=4096,dtype=bf16", plans[i]));
        CHECK_INT(shell_words(cmd), ==, 0);
        snprintf(want, sizeof want, "[gdtune]\n[bench]\n[gemm]\n[--shape]\n[m=128,n=4096,k=4096,dtype=bf16]\n"
                                    "[--plan]\n[%s]\n", plans[i]);
        CHECK_STR(out, want);
    }
    char cmd[256];
    CHECK(gdt_cli_reproduce(cmd, sizeof cmd, "gemm", "m=128", "cudnn.eng0"));
    CHECK_STR(cmd, "gdtune bench gemm --shape m=128 --plan cudnn.eng0"); /* bare where it can be */
    CHECK(gdt_cli_reproduce(cmd, sizeof cmd, "gemm", "m=128", "a b"));
    CHECK_STR(cmd, "gdtune bench gemm --shape m=128 --plan 'a b'");
}

/* Any argv (a journal header's, in report's summary.md) reads back as its
 * words. */
static void test_command_line(void)
{
    static const char *const words[] = {"gdtune", "sweep", "gemm", "--out", "runs/a b", "--spec", "it's.json", ""};
    char cmd[256];
    CHECK(gdt_cli_command_line(cmd, sizeof cmd, words, 8));
    CHECK_STR(cmd, "gdtune sweep gemm --out 'runs/a b' --spec 'it'\\''s.json' ''");
    CHECK_INT(shell_words(cmd), ==, 0);
    CHECK_STR(out, "[gdtune]\n[sweep]\n[gemm]\n[--out]\n[runs/a b]\n[--spec]\n[it's.json]\n[]\n");
}

static void test_too_long(void)
{
    char cmd[40] = "x";
    CHECK(!gdt_cli_reproduce(cmd, sizeof cmd, "gemm", "m=128,n=4096,k=4096", "cudnn.eng0"));
    CHECK_STR(cmd, "");
    CHECK(!gdt_cli_reproduce(cmd, 0, "gemm", "m=1", "p"));
}

int main(void)
{
    test_round_trip();
    test_too_long();
    test_command_line();
    return gdt_test_result("test_cli_reproduce");
}
