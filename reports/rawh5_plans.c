/* The per-cell table of plans of raw.h5 (gdt_rawh5_plans.h).  The columns
 * are one table (name, offset, type) that builds both the in-memory and
 * the file's compound type, so a column is declared once. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_figure_style.h"
#include "gdt_rawh5_plans.h"
#include "gdt_util.h"

/* The columns, X(field, type), in the order a DataFrame shows them
 * (docs/formats.md, "The plans table"): they declare both the row's fields
 * and the table's columns, so the struct's order is the columns' order and
 * H5Tpack, which lays the file's columns out by offset, keeps it. */
#define PLAN_COLS(X)                                                                               \
    X(plan, STR) X(name, STR) X(kind, STR) X(side, STR) X(tag, STR) X(engine_id, I64)              \
    X(disposition, STR) X(time_us, F64) X(noise, F64) X(samples, I64) X(burst, I64)               \
    X(bursts, I64) X(host_us, F64) X(clock_mhz, F64) X(sm_clock_min_mhz, F64)                      \
    X(sm_clock_max_mhz, F64) X(converged, U8) X(raced_out, U8) X(raced_late, U8) X(build_s, F64)  \
    X(heat_s, F64) X(heat_mhz, F64) X(verify_err_max, F64) X(untimed_position, I64)               \
    X(backend, U8) X(error, STR)

/* Each column type's C type: strings variable-length, flags 0/1. */
typedef const char *col_STR;
typedef int64_t col_I64;
typedef double col_F64;
typedef uint8_t col_U8;

typedef struct plan_row {
#define FIELD(field, type) col_##type field;
    PLAN_COLS(FIELD)
#undef FIELD
    char group[16]; /* the plan's own name, plan_NNN, which `plan` points at */
} plan_row;

typedef enum col_type { COL_STR, COL_I64, COL_F64, COL_U8 } col_type;

typedef struct col {
    const char *name;
    size_t offset;
    col_type type;
} col;

static const col cols[] = {
#define COL(field, type) {#field, offsetof(plan_row, field), COL_##type},
    PLAN_COLS(COL)
#undef COL
};

/* The median of n numbers (NaN ones left out); NaN when there are none. */
static double median(const double *x, int cap)
{
    int n = 0;
    double *v = cap > 0 ? malloc(sizeof *v * (size_t)cap) : NULL, m = NAN;
    if (!v)
        return NAN;
    for (int i = 0; i < cap; i++)
        if (!isnan(x[i]))
            v[n++] = x[i];
    if (n)
        m = gdt_median_inplace(v, n);
    free(v);
    return m;
}

/* The largest of verify_err's numbers; NaN when none (or absent). */
static double max_of(const double *x, int n)
{
    double m = NAN;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i]))
            m = isnan(m) ? x[i] : fmax(m, x[i]);
    return m;
}

/* The measurement columns from the typed result (not journaled: not run). */
static void result_columns(plan_row *w, const gdt_run_result *r)
{
    const gdt_run_burst *last = r->nbursts ? &r->bursts[r->nbursts - 1] : NULL;
    bool verified = r->journaled && r->disposition == GDT_DISP_VERIFIED;
    w->disposition = r->journaled ? gdt_disposition_name(r->disposition) : "not_run";
    w->error = r->journaled && r->error ? r->error : "";
    w->time_us = verified ? r->time_us : NAN;
    w->noise = verified ? r->noise : NAN;
    w->bursts = r->nbursts;
    w->burst = last ? last->burst : 0;
    w->samples = last ? last->ndevice : 0;
    w->host_us = r->host_us > 0 ? r->host_us : NAN;
    w->clock_mhz = last && last->clock_mhz ? median(last->clock_mhz, last->nclock) : NAN;
    w->sm_clock_min_mhz = r->clocks.min_mhz;
    w->sm_clock_max_mhz = r->clocks.max_mhz;
    w->converged = r->converged, w->raced_out = r->raced_out, w->raced_late = r->raced_late;
    w->build_s = r->build_s;
    w->heat_s = r->heat_s;
    w->heat_mhz = r->heat_mhz;
    w->verify_err_max = max_of(r->verify_err, r->nerr);
}

static void fill_row(plan_row *w, const gdt_run_cell *c, int i)
{
    const gdt_run_plan *p = &c->plan[i];
    snprintf(w->group, sizeof w->group, "plan_%03d", i);
    w->plan = w->group;
    w->name = p->name;
    w->kind = gdt_kind_style_of(gdt_cell_plan_kind(c, i))->name;
    w->side = gdt_plan_side_label(gdt_engine_side(NULL, p->id.engine_id));
    w->tag = p->tag ? p->tag : "";
    w->engine_id = p->id.engine_id;
    w->untimed_position = p->untimed;
    w->backend = p->backend;
    result_columns(w, &c->result[i]);
}

/* The compound type, in memory (native) or packed for the file; -1 on failure. */
static hid_t row_type(hid_t str, bool packed)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(plan_row));
    bool ok = t >= 0;
    for (size_t k = 0; ok && k < sizeof cols / sizeof cols[0]; k++) {
        hid_t m = cols[k].type == COL_STR   ? str
                  : cols[k].type == COL_I64 ? (packed ? H5T_STD_I64LE : H5T_NATIVE_INT64)
                  : cols[k].type == COL_F64 ? (packed ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE)
                                            : (packed ? H5T_STD_U8LE : H5T_NATIVE_UINT8);
        ok = H5Tinsert(t, cols[k].name, cols[k].offset, m) >= 0;
    }
    if (ok && packed)
        ok = H5Tpack(t) >= 0;
    if (!ok && t >= 0)
        H5Tclose(t), t = -1;
    return t;
}

static bool write_rows(hid_t g, const plan_row *rows, int n)
{
    hid_t str = gdt__rawh5_utf8_type();
    hid_t mem = str >= 0 ? row_type(str, false) : -1, file = str >= 0 ? row_type(str, true) : -1;
    hsize_t dims[1] = {(hsize_t)n};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t d = mem < 0 || file < 0 || sp < 0 ? -1 : H5Dcreate2(g, "plans", file, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = d >= 0 && (n == 0 || H5Dwrite(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
    ok &= (d < 0 || H5Dclose(d) >= 0) & (sp < 0 || H5Sclose(sp) >= 0);
    ok &= (file < 0 || H5Tclose(file) >= 0) & (mem < 0 || H5Tclose(mem) >= 0) & (str < 0 || H5Tclose(str) >= 0);
    return ok;
}

bool gdt_rawh5_plans_write(hid_t g, const gdt_run_cell *c)
{
    plan_row *rows = calloc((size_t)c->nplans + 1, sizeof *rows);
    if (!rows)
        return false;
    for (int i = 0; i < c->nplans; i++)
        fill_row(&rows[i], c, i);
    bool ok = write_rows(g, rows, c->nplans);
    free(rows);
    return ok;
}
