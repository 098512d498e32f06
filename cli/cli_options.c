/* The one option parser every verb calls (gdt_cli_options.h). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_cli_options.h"
#include "gdt_json.h"
#include "gdt_util.h"

const char *const gdt_cli_formats[] = {"text", "json", "csv", NULL};
const char *const gdt_cli_summary_formats[] = {"text", "json", NULL};

int gdt_cli_usage_error(const char *verb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", verb);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see %s --help)\n", verb);
    va_end(ap);
    return 2;
}

/* ------------------------------------------------------------ values */

/* strtod and strtol skip leading blanks and take a '+'; a value on the
 * command line is the number alone ("1, 2" is not two sizes). */
static bool starts_number(const char *s)
{
    return (s[0] >= '0' && s[0] <= '9') || s[0] == '.' || s[0] == '-';
}

static bool parse_int(const char *s, double lo, double hi, long long *out, char *why, size_t nwhy)
{
    char *end = NULL;
    errno = 0;
    long long v = starts_number(s) ? strtoll(s, &end, 10) : 0;
    if (!starts_number(s) || errno || end == s || *end || v < (long long)lo || v > (long long)hi)
        return snprintf(why, nwhy, "expected an integer in %lld..%lld", (long long)lo, (long long)hi),
               false;
    *out = v;
    return true;
}

static bool parse_double(const char *s, double lo, double hi, double *out, char *why, size_t nwhy)
{
    char *end = NULL;
    errno = 0;
    double v = starts_number(s) ? strtod(s, &end) : 0;
    if (!starts_number(s) || errno || end == s || *end || !(v >= lo && v <= hi))
        return snprintf(why, nwhy, "expected a number in [%g, %g]", lo, hi), false;
    *out = v;
    return true;
}

/* Comma-separated increasing sizes: each item judged alone, named by its
 * position. */
static bool parse_list(const gdt_cli_option *o, const char *s, int *items, int *n, char *why,
                       size_t nwhy)
{
    int count = 0;
    for (int k = 1;; k++) {
        const char *comma = strchr(s, ',');
        int len = comma ? (int)(comma - s) : (int)strlen(s);
        char item[32], range[64];
        long long v = 0;
        snprintf(item, sizeof item, "%.*s", len, s);
        if (len == 0)
            snprintf(why, nwhy, "item %d is empty", k);
        else if (count == o->max)
            snprintf(why, nwhy, "item %d is one size too many", k);
        else if (len >= (int)sizeof item || !parse_int(item, o->lo, o->hi, &v, range, sizeof range))
            snprintf(why, nwhy, "item %d \"%.*s\" is not a size in %g..%g", k, len, s, o->lo, o->hi);
        else if (count && v <= items[count - 1])
            snprintf(why, nwhy, "item %d \"%s\" is not above the size before it", k, item);
        else {
            items[count++] = (int)v;
            if (comma) {
                s = comma + 1;
                continue;
            }
            *n = count;
            return true;
        }
        size_t used = strlen(why);
        snprintf(why + used, nwhy - used, " (expected comma-separated increasing sizes in %g..%g, "
                 "at most %d)", o->lo, o->hi, o->max);
        return false;
    }
}

static bool parse_choice(const gdt_cli_option *o, const char *v, int *out, char *why, size_t nwhy)
{
    size_t w = (size_t)snprintf(why, nwhy, "expected one of");
    for (int i = 0; o->choices[i]; i++) {
        if (!strcmp(v, o->choices[i]))
            return *out = i, true;
        if (w < nwhy)
            w += (size_t)snprintf(why + w, nwhy - w, "%s %s", i ? "," : "", o->choices[i]);
    }
    return false;
}

/* The item of list[0..len) whose key (the text before '=') is key[0..klen),
 * or NULL. */
static const char *find_key(const char *list, size_t len, const char *key, size_t klen)
{
    for (const char *p = list; p < list + len;) {
        size_t n = strcspn(p, ","), kn = strcspn(p, "=,");
        if (kn == klen && !strncmp(p, key, klen))
            return p;
        p += n + 1;
    }
    return NULL;
}

/* A repeated --shape adds its keys; a key an earlier one gave with another
 * value is refused rather than silently replaced. */
static bool merge_keyvals(char *buf, size_t size, const char *v, char *why, size_t nwhy)
{
    size_t before = strlen(buf);
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ","), kn = strcspn(p, "=,");
        const char *old = find_key(buf, before, p, kn);
        size_t on = old ? strcspn(old, ",") : 0;
        if (old && (on != n || strncmp(old, p, n)))
            return snprintf(why, nwhy, "key \"%.*s\" given twice, as \"%.*s\" and \"%.*s\" (expected each "
                            "key once, or with the same value)", (int)kn, p, (int)on, old, (int)n, p),
                   false;
        size_t used = strlen(buf);
        if (!old && snprintf(buf + used, size - used, "%s%.*s", used ? "," : "", (int)n, p) >=
                        (int)(size - used))
            return snprintf(why, nwhy, "expected at most %zu characters of k=v,... in all",
                            size - 1), false;
        p += n + (p[n] == ',');
    }
    return true;
}

/* The folder "/" spelled lexically: every component empty, "." or "..". */
static bool names_root(const char *d)
{
    if (d[0] != '/')
        return false;
    for (const char *p = d; *p;) {
        size_t n = strcspn(p, "/");
        if (n && strncmp(p, ".", n) && strncmp(p, "..", n > 2 ? n : 2))
            return false;
        p += n + (p[n] == '/');
    }
    return true;
}

bool gdt_cli_dir_check(const char *dir, char *why, size_t nwhy)
{
    char real[PATH_MAX];
    if (!*dir)
        return snprintf(why, nwhy, "expected a folder, got an empty path"), false;
    if (names_root(dir) || (realpath(dir, real) && !strcmp(real, "/")))
        return snprintf(why, nwhy, "expected a folder below the root folder, got \"%s\" (the root)", dir),
               false;
    return true;
}

/* Stores one value; false with why filled when it is refused. */
static bool take_value(const gdt_cli_option *o, void *opts, const char *v, char *why, size_t nwhy)
{
    char *field = (char *)opts + o->off;
    long long i;
    switch (o->kind) {
    case GDT_CLI_FLAG:
        return *(bool *)field = true, true;
    case GDT_CLI_INT:
        return parse_int(v, o->lo, o->hi, &i, why, nwhy) && (*(int *)field = (int)i, true);
    case GDT_CLI_INT64:
        return parse_int(v, o->lo, o->hi, (long long *)field, why, nwhy);
    case GDT_CLI_DOUBLE:
        return parse_double(v, o->lo, o->hi, (double *)field, why, nwhy);
    case GDT_CLI_STRING:
        return *(const char **)field = v, true;
    case GDT_CLI_DIR:
        return gdt_cli_dir_check(v, why, nwhy) && (*(const char **)field = v, true);
    case GDT_CLI_LIST:
        return parse_list(o, v, (int *)field, (int *)((char *)opts + o->aux), why, nwhy);
    case GDT_CLI_CHOICE:
        return parse_choice(o, v, (int *)field, why, nwhy);
    case GDT_CLI_KEYVALS:
        return merge_keyvals(field, o->aux, v, why, nwhy);
    case GDT_CLI_CUSTOM:
        return o->parse(opts, v, why, nwhy);
    }
    return false;
}

/* ------------------------------------------------------------ argv */

static const gdt_cli_option *find_option(const gdt_cli_spec *s, const char *a, size_t len)
{
    for (int k = 0; k < s->nopts; k++) {
        const char *n = s->opts[k].name, *al = s->opts[k].alias;
        if ((strlen(n) == len && !strncmp(a, n, len)) ||
            (al && strlen(al) == len && !strncmp(a, al, len)))
            return &s->opts[k];
    }
    return NULL;
}

/* One option at argv[*i] (its value may be the next argument); 0 when
 * taken, else 2 after the message. */
static int take_option(const gdt_cli_spec *s, int argc, char **argv, int *i, void *opts)
{
    const char *a = argv[*i], *eq = strchr(a, '=');
    int len = eq ? (int)(eq - a) : (int)strlen(a);
    const gdt_cli_option *o = find_option(s, a, (size_t)len);
    char why[512] = "";
    if (!o)
        return gdt_cli_usage_error(s->verb, "unknown option '%s'", a);
    if (o->kind == GDT_CLI_FLAG && eq)
        return gdt_cli_usage_error(s->verb, "%.*s takes no value, got \"%s\"", len, a, eq + 1);
    const char *v = o->kind == GDT_CLI_FLAG ? "" : eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!v)
        return gdt_cli_usage_error(s->verb, "%s needs a value (expected %s)", a, o->metavar);
    if (take_value(o, opts, v, why, sizeof why))
        return 0;
    return gdt_cli_usage_error(s->verb, "%.*s: bad value \"%s\": %s", len, a, v, why);
}

/* A default in the table is text a user could have typed: it goes through
 * the same parser, so that it cannot be out of its own range unnoticed. */
static int apply_defaults(const gdt_cli_spec *s, void *opts)
{
    for (int k = 0; k < s->nopts; k++) {
        char why[512];
        if (s->opts[k].def && !take_value(&s->opts[k], opts, s->opts[k].def, why, sizeof why)) {
            fprintf(stderr, "%s: internal: default of %s '%s': %s\n", s->verb, s->opts[k].name,
                    s->opts[k].def, why);
            return 2;
        }
    }
    return 0;
}

/* --help or -h where an option may stand: the argument after an option
 * that takes a value ("--out -h") is that value, not a request for help. */
static bool help_asked(const gdt_cli_spec *s, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return true;
        const gdt_cli_option *o = a[0] == '-' && !strchr(a, '=') ? find_option(s, a, strlen(a)) : NULL;
        if (o && o->kind != GDT_CLI_FLAG)
            i++;
    }
    return false;
}

int gdt_cli_parse(const gdt_cli_spec *s, int argc, char **argv, void *opts, const char **pos,
                  int maxpos, int *npos)
{
    *npos = 0;
    if (help_asked(s, argc, argv))
        return gdt_cli_help(s, stdout), 0;
    if (apply_defaults(s, opts))
        return 2;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            if (take_option(s, argc, argv, &i, opts))
                return 2;
        } else if (*npos < maxpos) {
            pos[(*npos)++] = argv[i];
        } else {
            return gdt_cli_usage_error(s->verb, "unexpected argument '%s'", argv[i]);
        }
    }
    return -1;
}

/* ------------------------------------------------------------ --help */

void gdt_cli_help(const gdt_cli_spec *s, FILE *out)
{
    fputs(s->usage, out);
    if (s->nopts)
        fprintf(out, "\noptions:\n");
    for (int k = 0; k < s->nopts; k++) {
        const gdt_cli_option *o = &s->opts[k];
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->metavar && o->kind != GDT_CLI_FLAG ? " " : "",
                 o->kind != GDT_CLI_FLAG && o->metavar ? o->metavar : "");
        fprintf(out, "  %-22s ", left);
        for (const char *h = o->help; *h;) {
            size_t n = strcspn(h, "\n");
            fprintf(out, "%.*s\n", (int)n, h);
            h += n + (h[n] == '\n');
            if (*h)
                fprintf(out, "  %-22s ", "");
        }
        if (o->alias)
            fprintf(out, "  %-22s (also %s)\n", "", o->alias);
    }
    fprintf(out, "  %-22s this text\n", "--help");
    if (s->footer)
        fprintf(out, "\n%s", s->footer);
}

/* ------------------------------------------------------------ --format json */

void gdt_cli_json_add_text(cJSON *o, const char *key, const char *s)
{
    if (s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

cJSON *gdt_cli_json_read(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    cJSON *doc = NULL;
    gdt_error e = {0};
    if (gdt_file_read(path, &text, &len, &e) == GDT_STATUS_OK)
        gdt_json_parse(text, len, path, &doc, &e);
    free(text);
    return doc;
}

int gdt_cli_json_emit(const char *verb, struct cJSON *doc)
{
    char *text = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (!text)
        return fprintf(stderr, "%s: out of memory building the JSON document\n", verb), 1;
    printf("%s\n", text);
    free(text);
    return 0;
}
