/* `gdtune list [FAMILY]`: what a user can name, read from the tables that
 * define it, never typed again here: the families and their --shape keys
 * with defaults (the family descriptors' key rows over the default
 * problem), the engines (the manifest's slots, each with its kind, side,
 * arch range and dtypes; an NVRTC slot with its row family's columns and
 * the knobs they bind) and every knob name.  One JSON document is built;
 * the text is printed from it. */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gdt_cli_options.h"
#include "gdt_engine_impl.h" /* the slots' capability rows: gdtune list prints them */
#include "gdt_family.h"
#include "gdt_rows.h"

#define VERB "gdtune list"

static const char usage_text[] =
    "usage: gdtune list [FAMILY] [--format text|json]\n"
    "\n"
    "The families (or FAMILY: gemm, sdpa_fwd, sdpa_bwd, sdpa), each with its --shape keys\n"
    "and their defaults (what `gdtune plans`, `bench` and `sweep --shape` read), its\n"
    "engines (name, kind: nvrtc, hand, cublaslt, test or the cudnn backend; side: ours,\n"
    "library or backend; arch range; dtypes; an NVRTC engine's candidate-row columns and\n"
    "the knobs they bind), then every knob name a plan's name may carry.  No GPU needed.\n";

typedef struct list_opts {
    const char *family;
    int format;
} list_opts;

static const char *const list_formats[] = {"text", "json", NULL};

static const gdt_cli_option options[] = {
    {"--format", NULL, GDT_CLI_CHOICE, offsetof(list_opts, format), .choices = list_formats,
     .def = "text", .metavar = "text|json", .help = "text for people; json: one document (gdtune.list/2)"},
};

static const gdt_cli_spec spec = {
    VERB, usage_text, "exit codes: 0 success, 1 failure while running, 2 bad usage or bad input\n",
    options, GDT_CLI_NOPTS(options)};

/* The engine kinds as `list` names them (the enum has no names of its own). */
static const char *const kind_names[] = {
    [GDT_ENGINE_CUDNN] = "cudnn", [GDT_ENGINE_NVRTC] = "nvrtc", [GDT_ENGINE_HAND] = "hand",
    [GDT_ENGINE_TEST] = "test",   [GDT_ENGINE_CUBLASLT] = "cublaslt",
};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == GDT_ENGINE_KIND_COUNT,
               "engine kind names and enum disagree");

static const char *const key_kind_names[] = {
    [GDT__KEY_DIM] = "size", [GDT__KEY_DTYPE] = "dtype", [GDT__KEY_CHOICE] = "choice",
    [GDT__KEY_MAJOR] = "major", [GDT__KEY_NUMBER] = "number",
};

/* ------------------------------------------------------------ shape keys */

static const void *at(const gdt_problem *p, size_t off)
{
    return (const char *)p + off;
}

/* A key's default as --shape would spell it, from the default problem. */
static void key_default(const gdt__shape_key *k, const gdt_problem *p, char *buf, size_t n)
{
    switch (k->kind) {
    case GDT__KEY_DIM: snprintf(buf, n, "%lld", (long long)*(const int64_t *)at(p, k->off[0])); break;
    case GDT__KEY_DTYPE: snprintf(buf, n, "%s", gdt_dtype_name(*(const gdt_dtype *)at(p, k->off[0]))); break;
    case GDT__KEY_CHOICE: snprintf(buf, n, "%s", k->names[*(const int *)at(p, k->off[0])]); break;
    /* the unit stride on the last axis is the first name (row) */
    case GDT__KEY_MAJOR: snprintf(buf, n, "%s", k->names[((const int64_t *)at(p, k->off[0]))[2] == 1 ? 0 : 1]); break;
    case GDT__KEY_NUMBER: snprintf(buf, n, "%.6g", *(const double *)at(p, k->off[0])); break;
    }
}

static cJSON *key_choices(const gdt__shape_key *k)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; k->kind == GDT__KEY_DTYPE && i < GDT_DTYPE_COUNT; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(gdt_dtype_name((gdt_dtype)i)));
    for (int i = 0; k->kind != GDT__KEY_DTYPE && i < k->nnames; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(k->names[i]));
    for (int i = 0; i < k->naliases; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(k->aliases[i].name));
    return a;
}

static cJSON *keys_json(gdt_family f)
{
    const gdt_family_desc *d = gdt__family_desc(f);
    gdt_problem p;
    cJSON *a = cJSON_CreateArray();
    gdt_problem_default(f, &p);
    for (int i = 0; i < d->nkeys; i++) {
        char def[64];
        cJSON *k = cJSON_CreateObject();
        key_default(&d->keys[i], &p, def, sizeof def);
        cJSON_AddStringToObject(k, "name", d->keys[i].name);
        cJSON_AddStringToObject(k, "kind", key_kind_names[d->keys[i].kind]);
        cJSON_AddStringToObject(k, "default", def);
        cJSON_AddItemToObject(k, "choices", key_choices(&d->keys[i]));
        cJSON_AddItemToArray(a, k);
    }
    return a;
}

/* ------------------------------------------------------------ engines */

static cJSON *columns_json(const char *row_family)
{
    const gdt_row_family *rf = row_family ? gdt__row_family_find(row_family) : NULL;
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; rf && i < rf->ncols; i++) {
        cJSON *c = cJSON_CreateObject();
        const char *knob = gdt_knob_name(rf->cols[i].knob);
        cJSON_AddStringToObject(c, "column", rf->cols[i].name);
        cJSON_AddItemToObject(c, "knob", knob ? cJSON_CreateString(knob) : cJSON_CreateNull());
        cJSON_AddItemToArray(a, c);
    }
    return a;
}

static cJSON *engine_json(const char *name, double id, gdt_engine_kind kind, const gdt_capability *cap,
                          bool opt_in, const char *row_family)
{
    cJSON *o = cJSON_CreateObject(), *dt = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "engine_id", id);
    cJSON_AddStringToObject(o, "kind", kind_names[kind]);
    cJSON_AddStringToObject(o, "side", gdt_plan_side_label(gdt_engine_kind_side(kind)));
    cJSON_AddItemToObject(o, "sm_lo", cap ? cJSON_CreateNumber(cap->sm_lo) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "sm_hi", cap ? cJSON_CreateNumber(cap->sm_hi) : cJSON_CreateNull());
    for (int t = 0; cap && t < GDT_DTYPE_COUNT; t++)
        if (cap->dtypes & (1u << t)) cJSON_AddItemToArray(dt, cJSON_CreateString(gdt_dtype_name((gdt_dtype)t)));
    cJSON_AddItemToObject(o, "dtypes", dt);
    cJSON_AddBoolToObject(o, "opt_in", opt_in);
    cJSON_AddItemToObject(o, "row_family", row_family ? cJSON_CreateString(row_family) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "columns", columns_json(row_family));
    return o;
}

/* The manifest's slots of f, then the backend (engine ids below
 * GDT_ENGINE_ID_BACKEND_END, the plans cuDNN's heuristics and knob
 * enumeration give on the device). */
static cJSON *engines_json(gdt_family f)
{
    const gdt_manifest *m = gdt_manifest_default();
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < m->nslots; i++) {
        const gdt_engine_slot *s = &m->slots[i];
        if (s->family == f)
            cJSON_AddItemToArray(a, engine_json(s->name, (double)gdt_engine_id(f, s->slot), s->kind, &s->cap,
                                                s->opt_in, gdt_engine_slot_row_family(s)));
    }
    cJSON_AddItemToArray(a, engine_json("cudnn.eng<N>", 0, GDT_ENGINE_CUDNN, NULL, false, NULL));
    return a;
}

/* ------------------------------------------------------------ document */

static cJSON *family_json(gdt_family f)
{
    cJSON *o = cJSON_CreateObject();
    gdt_problem p;
    char key[256];
    gdt_problem_default(f, &p);
    gdt_problem_key(&p, key, sizeof key);
    cJSON_AddStringToObject(o, "family", gdt_family_name(f));
    cJSON_AddStringToObject(o, "default_key", key);
    cJSON_AddItemToObject(o, "shape_keys", keys_json(f));
    cJSON_AddItemToObject(o, "engines", engines_json(f));
    return o;
}

/* Every knob type with a name: the backend's, then gdtune's band. */
static cJSON *knobs_json(void)
{
    cJSON *a = cJSON_CreateArray();
    for (int t = 0; t < GDT_KNOB_GDT_END; t = t + 1 == GDT_KNOB_BACKEND_COUNT ? GDT_KNOB_BAND : t + 1) {
        const char *n = gdt_knob_name(t);
        cJSON *k = n ? cJSON_CreateObject() : NULL;
        if (!k) continue;
        cJSON_AddStringToObject(k, "name", n);
        cJSON_AddNumberToObject(k, "type", t);
        cJSON_AddItemToArray(a, k);
    }
    return a;
}

static cJSON *list_doc(unsigned mask)
{
    cJSON *doc = cJSON_CreateObject(), *fams = cJSON_CreateArray();
    cJSON_AddStringToObject(doc, "schema", "gdtune.list/2");
    for (int f = 0; f < GDT_FAMILY_COUNT; f++)
        if (mask & (1u << f)) cJSON_AddItemToArray(fams, family_json((gdt_family)f));
    cJSON_AddItemToObject(doc, "families", fams);
    cJSON_AddItemToObject(doc, "knobs", knobs_json());
    return doc;
}

/* ------------------------------------------------------------ text */

static const char *s_of(const cJSON *o, const char *k)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));
    return s ? s : "-";
}

static void print_keys(const cJSON *fam)
{
    const cJSON *k, *c;
    printf("  shape keys (--shape k=v,...; default in brackets):\n");
    cJSON_ArrayForEach(k, cJSON_GetObjectItem(fam, "shape_keys")) {
        printf("    %-7s %-7s [%s]", s_of(k, "name"), s_of(k, "kind"), s_of(k, "default"));
        int i = 0;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(k, "choices"))
            printf("%s%s", i++ ? "|" : "  ", c->valuestring);
        printf("\n");
    }
}

static void print_engine(const cJSON *en)
{
    const cJSON *lo = cJSON_GetObjectItem(en, "sm_lo"), *hi = cJSON_GetObjectItem(en, "sm_hi"), *x;
    char arch[32] = "any";
    if (cJSON_IsNumber(lo) && (lo->valueint > 0 || hi->valueint < 999))
        snprintf(arch, sizeof arch, lo->valueint == hi->valueint ? "sm%d" : "sm%d-sm%d", lo->valueint,
                 hi->valueint);
    printf("    %-15s %-8s %-8s %-11s", s_of(en, "name"), s_of(en, "kind"), s_of(en, "side"), arch);
    int i = 0;
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(en, "dtypes")) printf("%s%s", i++ ? "," : " ", x->valuestring);
    if (cJSON_IsTrue(cJSON_GetObjectItem(en, "opt_in"))) printf("  opt-in (GDTUNE_ENABLE_OPT_IN=1)");
    if (cJSON_IsString(cJSON_GetObjectItem(en, "row_family"))) {
        printf("\n      rows %s:", s_of(en, "row_family"));
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(en, "columns"))
            printf(" %s->%s", s_of(x, "column"), s_of(x, "knob"));
    }
    printf("\n");
}

static void print_text(const cJSON *doc)
{
    const cJSON *fam, *x;
    cJSON_ArrayForEach(fam, cJSON_GetObjectItem(doc, "families")) {
        printf("%s  (default %s)\n", s_of(fam, "family"), s_of(fam, "default_key"));
        print_keys(fam);
        printf("  engines (name, kind, side, arch, dtypes):\n");
        cJSON_ArrayForEach(x, cJSON_GetObjectItem(fam, "engines")) print_engine(x);
        printf("\n");
    }
    printf("knobs (in plan names, engine[KNOB=value, ...]):\n ");
    cJSON_ArrayForEach(x, cJSON_GetObjectItem(doc, "knobs")) printf(" %s", s_of(x, "name"));
    printf("\n");
}

int gdt_cli_list(int argc, char **argv)
{
    list_opts o = {0};
    gdt_error e = {0};
    unsigned mask = (1u << GDT_FAMILY_COUNT) - 1;
    int npos, rc = gdt_cli_parse(&spec, argc, argv, &o, &o.family, 1, &npos);
    if (rc >= 0)
        return rc;
    if (o.family && gdt_family_parse_set(o.family, &mask, &e) != GDT_STATUS_OK)
        return gdt_cli_usage_error(VERB, "%s", e.msg);
    cJSON *doc = list_doc(mask);
    if (o.format == GDT_CLI_FORMAT_JSON)
        return gdt_cli_json_emit(VERB, doc);
    if (!doc)
        return fprintf(stderr, VERB ": out of memory\n"), 1;
    print_text(doc);
    cJSON_Delete(doc);
    return 0;
}
