/* The command a reader runs to measure a result again: `gdtune bench
 * FAMILY --shape SHAPE --plan NAME`, each word quoted for a POSIX shell
 * where it needs it (a plan name has spaces and brackets).  `compare`
 * prints it for each side's best plan. */
#ifndef GDT_CLI_REPRODUCE_H
#define GDT_CLI_REPRODUCE_H

#include <stdbool.h>
#include <stddef.h>

/* The command into buf; false (buf empty) when it does not fit in n. */
bool gdt_cli_reproduce(char *buf, size_t n, const char *family, const char *shape, const char *plan);

/* words[0..nwords) as one command line, each word quoted as above (`report`
 * prints a journal header's argv so); false (buf empty) when it does not
 * fit in n. */
bool gdt_cli_command_line(char *buf, size_t n, const char *const *words, int nwords);

#endif
