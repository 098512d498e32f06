/* STUB: replaced by its owner. */
#include <stdio.h>
#include "cli.h"
int gdt_cli_report(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "gdtune: not implemented yet\n"); return 1; }
