/* gdt_md_code (gdt_markdown.h). */
#include <stdlib.h>
#include <string.h>

#include "gdt_markdown.h"
#include "gdt_util.h"

static int longest_backticks(const char *s)
{
    int best = 0, run = 0;
    for (; *s; s++) {
        run = *s == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

static void fence(FILE *f, int n)
{
    for (int i = 0; i < n; i++)
        fputc('`', f);
}

void gdt_md_code(FILE *f, const char *text)
{
    const char *raw = text ? text : "";
    /* control characters as the terminal shows them (\n, \x1b, ...): a
     * line break would end the row, an escape sequence reach the reader's
     * terminal through cat */
    size_t cap = strlen(raw) * 6 + 4;
    char *esc = malloc(cap);
    const char *s = esc ? gdt_text_escape(raw, esc, cap) : "";
    size_t len = strlen(s);
    int n = longest_backticks(s) + 1;
    /* A span that starts or ends with a backtick needs the space, which
     * CommonMark strips again. */
    const char *pad = len && (s[0] == '`' || s[len - 1] == '`') ? " " : "";
    fence(f, n);
    fputs(pad, f);
    for (; *s; s++)
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
    fputs(pad, f);
    fence(f, n);
    free(esc);
}
