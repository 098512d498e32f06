/* Writing gnuplot scripts safely and running gnuplot without a shell.
 * Private to reports/.  Nothing from the journal enters a script as code:
 * strings go in through gdt_gnuplot_quote, numbers as data files, and a
 * script names its files relative to the folder gnuplot runs in. */
#ifndef GDT_GNUPLOT_H
#define GDT_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "gdtune/gdtune.h"

/* Writes text into buf as one single-quoted gnuplot string, quotes included:
 * ' is doubled (gnuplot's only escape in single quotes, where backquotes and
 * @ macros are not expanded); control characters and DEL become '?'.  Text
 * that does not fit is cut at a character boundary (never inside a '' pair
 * or a UTF-8 sequence) and the closing quote is kept.  Needs n >= 3 (buf is
 * "" otherwise).  Returns false when text was cut or n is too small. */
bool gdt_gnuplot_quote(char *buf, size_t n, const char *text);

/* Finds gnuplot in $PATH without a shell (an empty entry is skipped, not
 * read as the current folder); the path found, made absolute, goes to out.
 * False when there is none. */
bool gdt_gnuplot_find(char *out, size_t n);

/* Runs `gnuplot SCRIPT_NAME` with dir as its working directory, stdin from
 * /dev/null and its stdout sent to stderr, and waits.  NOT_SUPPORTED when
 * gnuplot is not in $PATH; IO naming dir/script_name and gnuplot's exit
 * status or signal when it fails. */
gdt_status gdt_gnuplot_run(const char *dir, const char *script_name, gdt_error *e);

#endif
