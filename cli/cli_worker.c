/* `gdtune worker` (internal): the process that owns the GPU during a sweep.
 * `gdtune sweep` starts it (harness/worker_proto.c); the work is
 * gdt_worker_serve (harness/worker.c).  The verb only refuses arguments. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gdt_worker.h"

int gdt_cli_worker(int argc, char **argv)
{
    static const char usage[] = "usage: gdtune worker\n\nInternal: the process that owns the GPU "
                                "during a sweep.\n`gdtune sweep` starts it and talks JSON lines "
                                "over its stdin and stdout.\n";
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return fputs(usage, stdout), 0;
    if (argc > 1) {
        fprintf(stderr, "gdtune worker: unexpected argument '%s' (it takes none)\n%s", argv[1], usage);
        return 2;
    }
    return gdt_worker_serve();
}
