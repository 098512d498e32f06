/* The planted slowdown's spec and arithmetic (gdt_plant.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_plant.h"

#define BAD(e, ...) gdt_error_set(e, GDT_STATUS_BAD_USAGE, __VA_ARGS__)

/* s[0..n) without blanks at either end, into buf. */
static void trimmed(const char *s, size_t n, char *buf, size_t nbuf)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    snprintf(buf, nbuf, "%.*s", (int)(n < nbuf ? n : nbuf - 1), s);
}

static gdt_status parse_fraction(const char *entry, const char *v, double *f, gdt_error *e)
{
    char *end = NULL;
    double x = strtod(v, &end);
    if (!*v || *end || !(x > 0 && x <= GDT_PLANT_FRACTION_MAX))
        return BAD(e, "entry \"%s\": expected a fraction in (0, %g] after the last '=', got \"%s\"",
                   entry, GDT_PLANT_FRACTION_MAX, v);
    *f = x;
    return GDT_STATUS_OK;
}

/* One "PLAN=F" entry into slot p->n. */
static gdt_status parse_entry(const char *entry, gdt_plant *p, gdt_error *e)
{
    char name[GDT_PLANT_TEXT], frac[64];
    const char *eq = strrchr(entry, '=');
    gdt_error pe = {0};
    if (!eq)
        return BAD(e, "entry \"%s\": expected PLAN=FRACTION", entry);
    trimmed(entry, (size_t)(eq - entry), name, sizeof name);
    trimmed(eq + 1, strlen(eq + 1), frac, sizeof frac);
    if (p->n == GDT_PLANT_MAX)
        return BAD(e, "entry \"%s\": at most %d plans", entry, GDT_PLANT_MAX);
    if (!name[0] || gdt_plan_id_parse(name, &p->id[p->n], &pe) != GDT_STATUS_OK)
        return BAD(e, "entry \"%s\": expected a plan name as `gdtune plans` prints it before the "
                   "last '=', got \"%s\"%s%s", entry, name, pe.msg[0] ? ": " : "", pe.msg);
    gdt_plan_id_normalize(&p->id[p->n]);
    for (int i = 0; i < p->n; i++)
        if (gdt_plan_id_equal(&p->id[i], &p->id[p->n]))
            return BAD(e, "entry \"%s\": plan %s is named twice", entry, name);
    gdt_status s = parse_fraction(entry, frac, &p->fraction[p->n], e);
    if (s == GDT_STATUS_OK)
        p->n++;
    return s;
}

gdt_status gdt_plant_parse(const char *text, gdt_plant *out, gdt_error *e)
{
    memset(out, 0, sizeof *out);
    const char *s = text ? text : "";
    char entry[GDT_PLANT_TEXT];
    for (;;) {
        const char *semi = strchr(s, ';');
        size_t n = semi ? (size_t)(semi - s) : strlen(s);
        trimmed(s, n, entry, sizeof entry);
        if (!entry[0])
            return BAD(e, "\"%s\": expected PLAN=FRACTION[;PLAN=FRACTION]..., got an empty entry",
                       text ? text : "");
        gdt_status st = parse_entry(entry, out, e);
        if (st != GDT_STATUS_OK || !semi)
            return st;
        s = semi + 1;
    }
}

gdt_status gdt_plant_from_env(gdt_plant *out, bool *ignored, gdt_error *e)
{
    const char *v = getenv(GDT_PLANT_ENV), *opt = getenv(GDT_PLANT_GATE_ENV);
    memset(out, 0, sizeof *out);
    *ignored = false;
    if (!v || !*v)
        return GDT_STATUS_OK;
    if (!opt || strcmp(opt, "1") != 0) {
        *ignored = true;
        return GDT_STATUS_OK;
    }
    gdt_error pe = {0};
    gdt_status s = gdt_plant_parse(v, out, &pe);
    return s == GDT_STATUS_OK ? s : gdt_error_set(e, s, GDT_PLANT_ENV ": %s", pe.msg);
}

double gdt_plant_fraction(const gdt_plant *p, const gdt_plan_id *id)
{
    gdt_plan_id x = *id;
    gdt_plan_id_normalize(&x);
    for (int i = 0; p && i < p->n; i++)
        if (gdt_plan_id_equal(&p->id[i], &x))
            return p->fraction[i];
    return 0;
}

void gdt_plant_format(const gdt_plant *p, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; p && i < p->n && at < n; i++) {
        char name[340];
        gdt_plan_id_format(&p->id[i], name, sizeof name);
        int w = snprintf(buf + at, n - at, "%s%s=%g", i ? ";" : "", name, p->fraction[i]);
        at += w > 0 ? (size_t)w : 0;
    }
}

gdt_status gdt_plant_announce(const char *who, const char *note, gdt_plant *out, char *text, size_t n,
                              gdt_error *e)
{
    bool ignored = false;
    gdt_status s = gdt_plant_from_env(out, &ignored, e);
    text[0] = '\0';
    if (s == GDT_STATUS_OK)
        gdt_plant_format(out, text, n);
    if (ignored)
        fprintf(stderr, "%s: " GDT_PLANT_ENV " ignored: it takes " GDT_PLANT_GATE_ENV "=1\n", who);
    if (text[0])
        fprintf(stderr, "%s: planted slowdown %s (opt-in%s)\n", who, text, note);
    return s;
}

long long gdt_plant_spin_cycles(double fraction, double plain_us, double launch_us, double mhz)
{
    double want_us = fraction * plain_us - launch_us; /* what the spin's cycles must add */
    if (!(fraction > 0) || !(mhz > 0) || !(want_us > 0))
        return 0;
    return llround(want_us * mhz);
}

double gdt_plant_launch_us(double plain_us, double first_us, long long first_cycles, double mhz, double alone_us)
{
    double beyond = first_us - plain_us - (mhz > 0 ? (double)first_cycles / mhz : 0);
    return fmin(fmax(0, beyond), fmax(0, alone_us));
}
