/* Text from journals and tables (plan names, cell keys, error messages)
 * inside the markdown the reports write.  Private to reports/. */
#ifndef GDT_MARKDOWN_H
#define GDT_MARKDOWN_H

#include <stdio.h>

/* Writes text as one inline code span that is safe in a table cell: the
 * fence is one backtick longer than the longest run of backticks in the
 * text (padded with a space where the text starts or ends with one), a |
 * is written \| (it would end the cell even inside the span) and each
 * control character as gdt_text_escape writes it (\n, \x1b, ...: a line
 * break would end the row, an escape sequence reach a terminal). */
void gdt_md_code(FILE *f, const char *text);

#endif
