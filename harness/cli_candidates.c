/* gdtune candidates FAMILY [--tuning-config FILE] [--shape k=v,...] [--arch smXY]
 *
 * Shows what the candidate rows bind for one problem: for each offered NVRTC
 * slot of the family, every row as a plan (with the values actually bound),
 * a duplicate of an earlier row, or a rejection with its reason. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gdt_rows.h"
#include "gdtune/candidates.h"

#define VERB "gdtune candidates"
#define DEFAULT_ROWS "tables/candidates/nvrtc.json"

typedef struct opts {
    const char *family, *tuning_config, *shape, *arch;
} opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: " VERB " FAMILY [--tuning-config FILE] [--shape k=v,...] [--arch smXY]\n\n"
            "Prints, for each offered NVRTC engine slot of FAMILY, every candidate row as the\n"
            "plan it binds (with the values actually bound, and what was requested where\n"
            "projection changed a value), each duplicate with the row it duplicates, and each\n"
            "rejected row with its reason; then the counts.\n\n"
            "  FAMILY                gemm, sdpa_fwd, sdpa_bwd, or sdpa (both SDPA families)\n"
            "  --tuning-config FILE  override rows: each structural family FILE names replaces\n"
            "                        the default rows of that family (tables/candidates/nvrtc.json)\n"
            "  --shape k=v,...       problem over the family's defaults\n"
            "                        gemm: batch, m, n, k, dtype=bf16|fp16, a=row|col, b=row|col\n"
            "                          (default batch=1,m=4096,n=4096,k=4096,dtype=bf16,a=row,b=row)\n"
            "                        sdpa: b, h, h_q, h_kv, s, s_q, s_kv, d, dtype=bf16|fp16,\n"
            "                          causal=0|1|none|top_left|bottom_right, layout=bhsd|bshd, scale\n"
            "                          (default b=4,h=32,s=4096,d=128,bf16,causal=top_left,bshd)\n"
            "  --arch smXY           target architecture for the resource rules (default sm90;\n"
            "                        known: sm80, sm86, sm87, sm89, sm90, sm100, sm120)\n"
            "  --help                this text\n\n"
            "exit codes: 0 success, 1 failure while running, 2 bad usage or bad input\n");
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, VERB ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see " VERB " --help)\n");
    return 2;
}

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, opts *o)
{
    static const struct {
        const char *flag;
        size_t off;
    } flags[] = {{"--tuning-config", offsetof(opts, tuning_config)},
                 {"--shape", offsetof(opts, shape)},
                 {"--arch", offsetof(opts, arch)}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 0;
        if (a[0] != '-' || !a[1]) {
            if (o->family) return bad_usage("unexpected argument '%s'", a);
            o->family = a;
            continue;
        }
        size_t k = 0, nf = sizeof flags / sizeof flags[0];
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        while (k < nf && (strlen(flags[k].flag) != len || strncmp(a, flags[k].flag, len))) k++;
        if (k == nf) return bad_usage("unknown option '%s'", a);
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) return bad_usage("option '%s' needs a value", a);
        *(const char **)((char *)o + flags[k].off) = v;
    }
    if (!o->family) return bad_usage("%s", "missing FAMILY (gemm, sdpa_fwd, sdpa_bwd or sdpa)");
    return -1;
}

static void print_values(const gdt_row_family *rf, const gdt_candidate *c, bool requested_only)
{
    printf("%20s", requested_only ? "requested" : "bound");
    for (int k = 0; k < c->ncols; k++) {
        if (requested_only) {
            printf(" %s=%lld", rf->cols[k].name, (long long)c->requested[k]);
            continue;
        }
        printf(" %s=%lld", rf->cols[k].name, (long long)c->bound[k]);
        if (c->bound[k] != c->requested[k]) printf(" (requested %lld)", (long long)c->requested[k]);
    }
    printf("\n");
}

static void print_slot(const gdt_row_family *rf, const gdt_engine_slot *s, const gdt_candidate *c,
                       int n)
{
    int plans = 0, dups = 0, rejected = 0;
    for (int i = 0; i < n; i++) {
        char name[1024];
        if (c[i].rejected) {
            rejected++;
            printf("  row %-3d rejected   %s\n", c[i].row_index, c[i].reason);
            print_values(rf, &c[i], true);
            continue;
        }
        gdt_plan_id_format(&c[i].id, name, sizeof name);
        if (c[i].duplicate_of_earlier) {
            dups++;
            printf("  row %-3d duplicate  of row %d: %s\n", c[i].row_index, c[i].dup_of, name);
        } else {
            plans++;
            printf("  row %-3d plan       %s\n", c[i].row_index, name);
        }
        print_values(rf, &c[i], false);
    }
    printf("%s: %d rows: %d plans, %d duplicates, %d rejected\n", s->name, n, plans, dups, rejected);
}

/* Where a family's rows came from: the override replaces named families only. */
static const char *rows_source(const opts *o, const char *row_family)
{
    gdt_row_table *ov;
    if (!o->tuning_config || gdt_rows_load_file(o->tuning_config, &ov, NULL)) return DEFAULT_ROWS;
    bool named = gdt_rows_count(ov, row_family) > 0;
    gdt_rows_destroy(ov);
    return named ? o->tuning_config : DEFAULT_ROWS;
}

static int run_slot(const gdt_row_table *t, const gdt_engine_slot *s, const gdt_facts *f,
                    const opts *o)
{
    char why[256];
    if (!gdt_slot_offered(gdt_manifest_default(), s, f, why, sizeof why)) {
        printf("%s: not offered: %s\n", s->name, why);
        return 0;
    }
    const gdt_row_family *rf = gdt__row_family_find(s->row_family);
    gdt_candidate *c;
    int n;
    gdt_error e;
    gdt_status st = gdt_candidates_materialize(t, s, f, &c, &n, &e);
    if (st) {
        fprintf(stderr, VERB ": %s\n", e.msg);
        return gdt_status_exit_code(st);
    }
    printf("%s: row family %s, %d rows from %s\n", s->name, s->row_family, n,
           rows_source(o, s->row_family));
    if (rf) print_slot(rf, s, c, n);
    free(c);
    return 0;
}

static int run_family(const gdt_row_table *t, gdt_family fam, const opts *o, int arch)
{
    gdt_problem p;
    gdt_error e;
    gdt_status st = gdt_problem_parse(fam, o->shape, &p, &e);
    if (st) return fprintf(stderr, VERB ": %s\n", e.msg), gdt_status_exit_code(st);
    gdt_device_props dev;
    gdt_arch_limits(arch, &dev);
    gdt_facts f;
    gdt_facts_analyze(&p, &dev, &f);
    char key[512];
    gdt_problem_key(&p, key, sizeof key);
    printf("%s on sm%d\n", key, arch);
    const gdt_manifest *m = gdt_manifest_default();
    int rc = 0;
    for (int i = 0; i < m->nslots && !rc; i++)
        if (m->slots[i].family == fam && m->slots[i].kind == GDT_ENGINE_NVRTC)
            rc = run_slot(t, &m->slots[i], &f, o);
    return rc;
}

static int load_rows(const opts *o, gdt_row_table **t)
{
    gdt_error e;
    gdt_status st = gdt_rows_load_default(t, &e);
    if (!st && o->tuning_config) st = gdt_rows_override(*t, o->tuning_config, &e);
    if (!st) return 0;
    fprintf(stderr, VERB ": %s\n", e.msg);
    gdt_rows_destroy(*t);
    *t = NULL;
    return gdt_status_exit_code(st);
}

int gdt_cli_candidates(int argc, char **argv)
{
    opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    unsigned mask;
    int arch = 90;
    gdt_error e;
    if (gdt_family_parse_set(o.family, &mask, &e)) return bad_usage("%s", e.msg);
    if (o.arch && gdt_arch_parse(o.arch, &arch, &e)) return bad_usage("%s", e.msg);
    if (!gdt_arch_limits(arch, NULL))
        return bad_usage("%s: no per-arch limits (known: sm80, sm86, sm87, sm89, sm90, sm100, sm120)",
                         o.arch);
    gdt_row_table *t;
    if ((rc = load_rows(&o, &t))) return rc;
    for (int f = 0; f < GDT_FAMILY_COUNT && !rc; f++)
        if (mask & (1u << f)) rc = run_family(t, (gdt_family)f, &o, arch);
    gdt_rows_destroy(t);
    return rc;
}
