/* The command line that measures one plan of one cell again, and any
 * command line as a shell reads it (gdt_cli_reproduce.h). */
#include <stdio.h>
#include <string.h>

#include "gdt_cli_reproduce.h"

/* Appends text to buf at *at; false when it does not fit. */
static bool put(char *buf, size_t n, size_t *at, const char *text)
{
    size_t len = strlen(text);
    if (*at + len >= n) return false;
    memcpy(buf + *at, text, len + 1);
    *at += len;
    return true;
}

/* Appends word to buf as one POSIX shell word: bare when every character
 * is one no shell treats specially, else in single quotes, a ' written as
 * '\''.  false when it does not fit. */
static bool append_word(char *buf, size_t n, size_t *at, const char *word)
{
    static const char bare[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-=,.:/+@%";
    bool quote = !*word || strspn(word, bare) != strlen(word), ok = !*at || put(buf, n, at, " ");
    ok = ok && (!quote || put(buf, n, at, "'"));
    for (const char *c = word; ok && *c; c++) {
        char one[2] = {*c, '\0'};
        ok = put(buf, n, at, *c == '\'' ? "'\\''" : one);
    }
    return ok && (!quote || put(buf, n, at, "'"));
}

bool gdt_cli_command_line(char *buf, size_t n, const char *const *words, int nwords)
{
    size_t at = 0;
    bool ok = n > 0;
    if (ok) buf[0] = '\0';
    for (int i = 0; ok && i < nwords; i++)
        ok = append_word(buf, n, &at, words[i]);
    if (!ok && n) buf[0] = '\0';
    return ok;
}

bool gdt_cli_reproduce(char *buf, size_t n, const char *family, const char *shape, const char *plan)
{
    const char *words[] = {"gdtune", "bench", family, "--shape", shape, "--plan", plan};
    return gdt_cli_command_line(buf, n, words, (int)(sizeof words / sizeof *words));
}
