/* The command line's options as data (Redis src/config.c static_configs[]
 * style): each verb has one table of options (name, kind, where it is
 * stored, range or choices, default, help) and calls gdt_cli_parse, which
 * reads --opt VALUE and --opt=VALUE, refuses an unknown option, a missing
 * value or a value out of range with one message shape:
 *
 *   gdtune sweep: --gpus: bad value ' 2': expected an integer in 1..16 (see gdtune sweep --help)
 *
 * and prints --help from the same table.  A setting shared by several verbs
 * is defined once below (GDT_CLI_OPT_*), with the ranges of gdt_sweep.h. */
#ifndef GDT_CLI_OPTIONS_H
#define GDT_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gdt_measure.h"
#include "gdt_sweep.h"

typedef enum gdt_cli_kind {
    GDT_CLI_FLAG,   /* bool; takes no value */
    GDT_CLI_INT,    /* int in lo..hi */
    GDT_CLI_INT64,  /* long long in lo..hi */
    GDT_CLI_DOUBLE, /* double in [lo, hi] */
    GDT_CLI_STRING, /* const char *: the argument itself; repeated, the last wins */
    GDT_CLI_DIR,    /* const char *: a folder gdtune reads or writes; refused when
                       empty or the root folder (gdt_cli_dir_check) */
    GDT_CLI_LIST,   /* int[max], count (int) at aux: increasing items in lo..hi */
    GDT_CLI_CHOICE, /* int: the index of the value in choices (NULL-terminated) */
    GDT_CLI_KEYVALS,/* char[aux]: "k=v,..."; repeats merge, a key given twice with
                       two values is refused */
    GDT_CLI_CUSTOM, /* parse(opts, value, why): a value only the verb can judge */
} gdt_cli_kind;

typedef struct gdt_cli_option {
    const char *name;  /* "--bursts" */
    const char *alias; /* another accepted spelling, NULL if none */
    gdt_cli_kind kind;
    size_t off;        /* the field in the verb's options struct */
    size_t aux;        /* LIST: the count's offset; KEYVALS: the buffer's size */
    double lo, hi;     /* INT, INT64, DOUBLE, LIST items */
    int max;           /* LIST: at most this many items */
    const char *const *choices;
    bool (*parse)(void *opts, const char *value, char *why, size_t nwhy);
    const char *def;   /* the default as command-line text, parsed like a value
                          before the arguments; NULL: the verb's code sets it */
    const char *metavar, *help; /* help: "\n" starts an indented line */
} gdt_cli_option;

typedef struct gdt_cli_spec {
    const char *verb;   /* "gdtune sweep": the prefix of every message */
    const char *usage;  /* --help before the options */
    const char *footer; /* --help after them */
    const gdt_cli_option *opts;
    int nopts;
} gdt_cli_spec;

#define GDT_CLI_NOPTS(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* Applies the defaults, then reads argv[1..argc-1] into opts: options by
 * the table, the rest into pos (at most maxpos; one more is "unexpected
 * argument"), *npos their count.  --help or -h where an option may stand
 * prints the help (as the value of an option, "--out -h", it is the value).
 * Returns -1 to go on, 0 after the help, 2 after a usage message. */
int gdt_cli_parse(const gdt_cli_spec *s, int argc, char **argv, void *opts, const char **pos,
                  int maxpos, int *npos);

/* A folder named on the command line: empty, or "/" however spelled
 * ("//", "/.", "/tmp/..", a relative path that resolves to it), is
 * refused with why filled (a verb would write runs/ or sm90/ at the top of
 * the filesystem).  Every folder option (GDT_CLI_DIR) goes through it. */
bool gdt_cli_dir_check(const char *dir, char *why, size_t nwhy);

/* Prints the help: usage, "options:" from the table, footer. */
void gdt_cli_help(const gdt_cli_spec *s, FILE *out);

/* "VERB: <message> (see VERB --help)" on stderr; returns 2. */
int gdt_cli_usage_error(const char *verb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* --format text|json|csv: the CHOICE index. */
enum { GDT_CLI_FORMAT_TEXT, GDT_CLI_FORMAT_JSON, GDT_CLI_FORMAT_CSV };
extern const char *const gdt_cli_formats[];
/* --format text|json of a verb whose json is one summary document: the
 * same indices, csv refused. */
extern const char *const gdt_cli_summary_formats[];

struct cJSON;
/* Prints doc (NULL: it could not be built) as the one document on stdout
 * and deletes it; returns the exit code (1: out of memory). */
int gdt_cli_json_emit(const char *verb, struct cJSON *doc);
/* o's key as the string s, JSON null when s is NULL. */
void gdt_cli_json_add_text(struct cJSON *o, const char *key, const char *s);
/* The JSON document at path, NULL when it does not read or parse. */
struct cJSON *gdt_cli_json_read(const char *path);

/* ----------------------------------------- settings shared by verbs */

#define GDT__CLI_STR(x) #x
#define GDT__CLI_XSTR(x) GDT__CLI_STR(x)

/* help_ is a string literal that follows the shared text (the default). */
#define GDT_CLI_OPT_BURSTS(T, field, count, help_)                                              \
    {.name = "--bursts", .kind = GDT_CLI_LIST, .off = offsetof(T, field),                       \
     .aux = offsetof(T, count), .lo = 1, .hi = GDT_BURST_MAX, .max = GDT_MAX_BURSTS,           \
     .metavar = "LIST", .help = "burst sizes, increasing, in 1.." GDT__CLI_XSTR(GDT_BURST_MAX)  \
     ", at most " GDT__CLI_XSTR(GDT_MAX_BURSTS) help_}
#define GDT_CLI_OPT_TARGET_REL(T, field, alias_, help_)                                         \
    {.name = "--target-rel", .alias = alias_, .kind = GDT_CLI_DOUBLE, .off = offsetof(T, field), \
     .lo = GDT_TARGET_REL_MIN, .hi = GDT_TARGET_REL_MAX, .metavar = "X", .help = help_}
#define GDT_CLI_OPT_PLAN_SECONDS(T, field, alias_, help_)                                       \
    {.name = "--max-plan-seconds", .alias = alias_, .kind = GDT_CLI_DOUBLE,                     \
     .off = offsetof(T, field), .lo = GDT_PLAN_SECONDS_MIN, .hi = GDT_PLAN_SECONDS_MAX,         \
     .metavar = "S", .help = help_}
/* The measurement settings of a verb that measures through T's
 * gdt_measure_opts `mo` (bench, compare's A/B): --bursts, and
 * --max-plan-seconds and --target-rel under their short aliases
 * --max-seconds and --target, each help text followed by its default. */
#define GDT_CLI_OPTS_MEASURE(T, bursts_help, seconds_help, target_help)                        \
    GDT_CLI_OPT_BURSTS(T, mo.bursts, mo.nbursts, bursts_help),                                \
    GDT_CLI_OPT_PLAN_SECONDS(T, mo.max_seconds, "--max-seconds",                              \
                             seconds_help " (default " GDT_DEFAULT_TEXT(GDT_PLAN_SECONDS_DEFAULT) ")"), \
    GDT_CLI_OPT_TARGET_REL(T, mo.target_rel, "--target",                                      \
                           target_help " (default " GDT_DEFAULT_TEXT(GDT_TARGET_REL_DEFAULT) ")")
#define GDT_CLI_OPT_DEADLINE(T, field, help_)                                                   \
    {.name = "--deadline", .kind = GDT_CLI_DOUBLE, .off = offsetof(T, field),                   \
     .lo = GDT_DEADLINE_MIN, .hi = GDT_DEADLINE_MAX, .metavar = "S", .help = help_}
#define GDT_CLI_OPT_TABLES_DIR(T, field, help_)                                                 \
    {.name = "--tables-dir", .kind = GDT_CLI_DIR, .off = offsetof(T, field), .metavar = "DIR",    \
     .help = help_}
#define GDT_CLI_OPT_GPUS(T, field, help_)                                                       \
    {.name = "--gpus", .kind = GDT_CLI_INT, .off = offsetof(T, field), .lo = 1,                 \
     .hi = GDT_GPUS_MAX, .metavar = "N", .help = help_}
#define GDT_CLI_OPT_SHAPE(T, field, help_)                                                      \
    {.name = "--shape", .kind = GDT_CLI_KEYVALS, .off = offsetof(T, field),                     \
     .aux = sizeof(((T *)0)->field), .metavar = "k=v,...", .help = help_}
#define GDT_CLI_OPT_SUMMARY_FORMAT(T, field, help_)                                             \
    {.name = "--format", .kind = GDT_CLI_CHOICE, .off = offsetof(T, field),                     \
     .choices = gdt_cli_summary_formats, .def = "text", .metavar = "text|json", .help = help_}
#define GDT_CLI_OPT_FORMAT(T, field)                                                            \
    {.name = "--format", .kind = GDT_CLI_CHOICE, .off = offsetof(T, field),                     \
     .choices = gdt_cli_formats, .def = "text", .metavar = "text|json|csv",                     \
     .help = "text for people; json: one document on stdout; csv: its rows as one\n"          \
             "table (docs/commands.md)"}

#endif
