/* gdtune: the command line.  One table of verbs; each verb owns its
 * options and its --help.  Only main exits. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gdt_cli_options.h"
#include "gdt_util.h"
#include "gdtune/gdtune.h"

typedef struct verb {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    bool hidden;
} verb;

static const verb verbs[] = {
    {"list", gdt_cli_list, "print the families, their shape keys and defaults, their engines and the knob names", false},
    {"candidates", gdt_cli_candidates, "print the candidate plans a family's rows bind, and each rejected row with its reason", false},
    {"plans", gdt_cli_plans, "print the ranked plan list libgdtune would try for a shape", false},
    {"tables", gdt_cli_tables, "validate tables (tables check FILE...), write them from journals (tables emit RUNDIR...), or compare two sets (tables diff OLD NEW)", false},
    {"sweep", gdt_cli_sweep, "verify and measure every plan of a family on the GPU and emit tables", false},
    {"bench", gdt_cli_bench, "print host enqueue and device time per call of single plans across bursts", false},
    {"autotune", gdt_cli_autotune, "measure the first few plans of a shape's list on the GPU and keep the fastest (autotune at first use)", false},
    {"merge", gdt_cli_merge, "write one set of tables from the journals of several runs (shards of one sweep)", false},
    {"compare", gdt_cli_compare, "generated against handwritten plans: per cell from run directories, or an A/B on the GPU", false},
    {"nightly", gdt_cli_nightly, "one night on a GPU machine: sweep, diff against the committed tables, report, exit with the diff's status", false},
    {"report", gdt_cli_report, "build raw.h5, plots and a markdown summary from a run directory", false},
    {"worker", gdt_cli_worker, "internal: the process that owns the GPU during a sweep", true},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: gdtune VERB [options]   (gdtune VERB --help for each)\n\n"
                 "gdtune %s: an autotuning benchmark harness and tuning-table generator\n"
                 "for GEMM and SDPA kernels on NVIDIA GPUs.\n\nverbs:\n",
            GDT_VERSION_STRING);
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!verbs[i].hidden)
            fprintf(out, "  %-11s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(out, "\n  -V, --version  the version and the source digest\n"
                 "\nexit codes: 0 success, 1 failure while running, 2 bad usage or bad input\n");
}

/* gdtune's own options, before any verb. */
typedef struct main_opts {
    bool version;
} main_opts;

static const gdt_cli_option options[] = {
    {"--version", "-V", GDT_CLI_FLAG, offsetof(main_opts, version),
     .help = "the version and the digest of the sources it was built from"},
};

static int own_options(int argc, char **argv)
{
    main_opts o = {0};
    const gdt_cli_spec spec = {"gdtune", "usage: gdtune VERB [options]   (gdtune VERB --help for each)\n"
                                         "       gdtune --version\n",
                               NULL, options, GDT_CLI_NOPTS(options)};
    const char *pos;
    int npos, rc = gdt_cli_parse(&spec, argc, argv, &o, &pos, 0, &npos);
    if (rc >= 0)
        return rc;
    printf("gdtune %s\nsource digest %s\n", GDT_VERSION_STRING, gdt__source_digest);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (argv[1][0] == '-')
        return own_options(argc, argv);
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(argv[1], verbs[i].name))
            return verbs[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gdtune: unknown verb '%s' (expected one of:", argv[1]);
    for (size_t i = 0, n = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!verbs[i].hidden)
            fprintf(stderr, "%s %s", n++ ? "," : "", verbs[i].name);
    fprintf(stderr, ")\n");
    return 2;
}
