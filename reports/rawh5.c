/* raw.h5 from the journal: every sample per family/cell/plan and burst,
 * plus provenance, built in memory and published as one file (unique
 * temporary, fsync, rename). */
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_run.h"
#include "gdt_rawh5.h"
#include "gdt_rawh5_plans.h"
#include "gdt_util.h"
#include "gdtune/gdtune.h"

/* The layout's name, in the file's `layout` attribute (docs/formats.md: raw.h5):
 * strings are variable-length UTF-8, integers int64 (flags uint8 0/1),
 * measurements float64 with their unit in the name (_us, _s, _mhz) or in a
 * dataset's `units` attribute, NaN where nothing was measured. */
#define RAW_LAYOUT "gdtune.raw/4"

/* Attributes live in the object header (64 KiB at most): longer text, such
 * as a large spec or candidate table, becomes a scalar string dataset of
 * the same name. */
#define ATTR_TEXT_MAX 60000

static bool attr_str(hid_t obj, const char *name, const char *value)
{
    hid_t t = gdt__rawh5_utf8_type(), sp = H5Screate(H5S_SCALAR);
    bool big = strlen(value) > ATTR_TEXT_MAX;
    hid_t a = t < 0 || sp < 0 ? -1
              : big           ? H5Dcreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                              : H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = a >= 0 && (big ? H5Dwrite(a, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value)
                             : H5Awrite(a, t, &value)) >= 0;
    if (a >= 0)
        big ? H5Dclose(a) : H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    return ok;
}

static bool attr_typed(hid_t obj, const char *name, hid_t file_type, hid_t mem_type, const void *v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = sp < 0 ? -1 : H5Acreate2(obj, name, file_type, sp, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = a >= 0 && H5Awrite(a, mem_type, v) >= 0;
    if (a >= 0)
        H5Aclose(a);
    if (sp >= 0)
        H5Sclose(sp);
    return ok;
}

static bool attr_f64(hid_t obj, const char *name, double v)
{
    return attr_typed(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

static bool attr_i64(hid_t obj, const char *name, int64_t v)
{
    return attr_typed(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

static bool attr_flag(hid_t obj, const char *name, bool v)
{
    uint8_t x = v;
    return attr_typed(obj, name, H5T_STD_U8LE, H5T_NATIVE_UINT8, &x);
}

/* A float64 dataset from n numbers (none too; NaN where nothing was
 * measured), with its unit. */
static bool dataset(hid_t parent, const char *name, const double *v, int n, const char *units)
{
    hsize_t dims[1] = {(hsize_t)n};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(parent, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = d >= 0 && (n == 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) &&
              attr_str(d, "units", units);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(sp);
    return ok;
}

/* Opens a group, creating it when absent.  Tracking the links' creation
 * order makes it a group of the 1.8 format, whose few links sit in its
 * object header: a plan's or a burst's group costs no B-tree and heap of
 * its own (the committed GEMM sweep's raw.h5: 14.2 MB -> 11.2 MB), and
 * readers list the links in the order they were written. */
static hid_t group(hid_t parent, const char *name)
{
    if (H5Lexists(parent, name, H5P_DEFAULT) > 0)
        return H5Gopen2(parent, name, H5P_DEFAULT);
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    hid_t g = gcpl < 0 || H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED) < 0
                  ? -1
                  : H5Gcreate2(parent, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (gcpl >= 0 && H5Pclose(gcpl) < 0 && g >= 0) {
        H5Gclose(g);
        g = -1;
    }
    return g;
}

/* The header's device and run as file attributes ("" and 0 where the
 * journal left one out). */
static bool provenance(hid_t f, const gdt_run *r)
{
    const gdt_run_device *d = &r->dev;
    const struct {
        const char *name;
        int64_t v;
    } dev_int[] = {{"arch", d->arch}, {"sm_count", d->sm_count}, {"l2_bytes", d->l2_bytes},
                   {"sm_clock_khz", d->sm_clock_khz}, {"mem_clock_khz", d->mem_clock_khz},
                   {"driver_version", d->driver_version}, {"cuda_version", d->cuda_version},
                   {"cudnn_version", d->cudnn_version}, {"nvrtc_version", d->nvrtc_version}};
    const struct {
        const char *name, *v;
    } run_str[] = {{"gdtune_version", r->gdtune_version}, {"source_digest", r->source_digest},
                   {"started", r->started}, {"family", r->family}, {"spec_source", r->spec_source},
                   {"spec_digest", r->spec_digest}, {"spec", r->spec_text},
                   {"candidates_digest", r->candidates_digest},
                   {"candidates", r->candidates ? r->candidates : ""}};
    bool ok = attr_str(f, "layout", RAW_LAYOUT) && attr_str(f, "device_name", d->name) &&
              attr_str(f, "device_uuid", d->uuid);
    for (size_t i = 0; i < sizeof dev_int / sizeof *dev_int; i++)
        ok &= attr_i64(f, dev_int[i].name, dev_int[i].v);
    for (size_t i = 0; i < sizeof run_str / sizeof *run_str; i++)
        ok &= attr_str(f, run_str[i].name, run_str[i].v);
    return ok;
}

/* Identity: name, tag, engine, untimed position, and each knob as an
 * integer attribute knob_<NAME>. */
static bool plan_attrs(hid_t g, const gdt_run_plan *p)
{
    bool ok = attr_str(g, "name", p->name) && attr_str(g, "tag", p->tag) &&
              attr_i64(g, "engine_id", p->id.engine_id) && attr_flag(g, "backend", p->backend) &&
              attr_i64(g, "untimed_position", p->untimed);
    for (int k = 0; ok && k < p->id.nknobs; k++) {
        char name[64];
        const char *kn = gdt_knob_name(p->id.knobs[k].type);
        if (kn)
            snprintf(name, sizeof name, "knob_%s", kn);
        else
            snprintf(name, sizeof name, "knob_%d", (int)p->id.knobs[k].type);
        ok = attr_i64(g, name, p->id.knobs[k].value);
    }
    return ok;
}

/* verify_err: one relative L2 error per output, in the family's order. */
static bool verify_data(hid_t g, gdt_family fam, const gdt_run_result *res)
{
    gdt_operand_role roles[GDT_OPERAND_COUNT];
    int nout = gdt_family_outputs(fam, roles);
    char names[128] = "";
    for (int i = 0, at = 0; i < nout && at < (int)sizeof names; i++)
        at += snprintf(names + at, sizeof names - (size_t)at, "%s%s", i ? " " : "",
                       gdt_operand_name(roles[i]));
    hid_t d = -1;
    bool ok = dataset(g, "verify_err", res->verify_err, res->nerr, "relative L2 error") &&
              (d = H5Dopen2(g, "verify_err", H5P_DEFAULT)) >= 0 && attr_str(d, "operands", names);
    if (d >= 0)
        H5Dclose(d);
    return ok;
}

static bool burst_data(hid_t g, const gdt_run_burst *b)
{
    char name[64];
    snprintf(name, sizeof name, "burst_%d", b->burst);
    hid_t bg = group(g, name);
    bool ok = bg >= 0 && attr_i64(bg, "burst", b->burst) && attr_i64(bg, "n", b->ndevice) &&
              attr_i64(bg, "dropped", b->dropped) &&
              dataset(bg, "host_us", b->host_us, b->nhost, "us per call (host enqueue)") &&
              dataset(bg, "device_us", b->device_us, b->ndevice, "us per call (device, events)") &&
              dataset(bg, "total_us", b->total_us, b->ntotal, "us per call (wall, to drain)") &&
              (!b->clock_mhz || /* absent in older journals */
               dataset(bg, "clock_mhz", b->clock_mhz, b->nclock, "MHz (the SM clock the probe read after the sample)")) &&
              attr_f64(bg, "median_device_us", b->median_device_us) &&
              attr_f64(bg, "median_host_us", b->median_host_us) && attr_f64(bg, "rel_spread", b->rel_spread);
    if (bg >= 0)
        H5Gclose(bg);
    return ok;
}

/* A plan's result; a plan with none is disposition "not_run", NaN times
 * (the typed result's, gdt_run.h). */
static bool result_data(hid_t g, gdt_family fam, const gdt_run_result *res)
{
    bool run = res->journaled, verified = run && res->disposition == GDT_DISP_VERIFIED;
    bool ok = attr_str(g, "disposition", run ? gdt_disposition_name(res->disposition) : "not_run") &&
              attr_str(g, "error", run ? res->error : "") && attr_f64(g, "build_s", res->build_s) &&
              attr_f64(g, "time_us", verified ? res->time_us : NAN) &&
              attr_f64(g, "noise", verified ? res->noise : NAN) &&
              attr_flag(g, "converged", res->converged) && attr_flag(g, "raced_out", res->raced_out) &&
              attr_flag(g, "raced_late", res->raced_late) && attr_f64(g, "heat_s", res->heat_s) &&
              attr_f64(g, "heat_mhz", res->heat_mhz);
    if (ok && res->has_verify_err)
        ok = verify_data(g, fam, res);
    for (int i = 0; i < res->nbursts; i++)
        ok &= burst_data(g, &res->bursts[i]);
    if (res->cold_us)
        ok &= dataset(g, "cold_us", res->cold_us, res->ncold, "us per call (device, L2 flushed)");
    if (res->clocks.recorded) /* what the clock probe saw while this plan was measured */
        ok &= attr_f64(g, "sm_clock_rated_mhz", res->clocks.rated_mhz) &&
              attr_f64(g, "sm_clock_min_mhz", res->clocks.min_mhz) &&
              attr_f64(g, "sm_clock_max_mhz", res->clocks.max_mhz);
    return ok;
}

static bool plan_group(hid_t c, const gdt_run_cell *cell, int pi)
{
    char name[64];
    snprintf(name, sizeof name, "plan_%03d", pi);
    hid_t g = group(c, name);
    bool ok = g >= 0 && plan_attrs(g, &cell->plan[pi]) &&
              result_data(g, cell->spec->family, &cell->result[pi]);
    if (g >= 0)
        H5Gclose(g);
    return ok;
}

/* /<family>/cell_<NNN>: its attributes, the table of its plans and one
 * group per plan (with its samples). */
static bool cell_group(hid_t f, const gdt_run_cell *cell, int ci)
{
    char name[64], key[512];
    hid_t fam = group(f, gdt_family_name(cell->spec->family));
    snprintf(name, sizeof name, "cell_%03d", ci);
    hid_t c = fam >= 0 ? group(fam, name) : -1;
    gdt_problem_key(&cell->spec->problem, key, sizeof key);
    bool ok = c >= 0 && attr_str(c, "shape", cell->spec->shape) && attr_str(c, "key", key) &&
              attr_i64(c, "cell", ci) && (!cell->listed || attr_str(c, "reference", cell->reference)) &&
              gdt_rawh5_plans_write(c, cell);
    for (int pi = 0; ok && pi < cell->nplans; pi++)
        ok = plan_group(c, cell, pi);
    if (c >= 0)
        H5Gclose(c);
    if (fam >= 0)
        H5Gclose(fam);
    return ok;
}

/* Every cell the journal holds; *bad: the line of the one that failed. */
static bool write_run(hid_t f, const gdt_run *r, int *bad_line)
{
    if (!provenance(f, r)) {
        *bad_line = 1;
        return false;
    }
    for (int ci = 0; ci < r->ncells; ci++)
        if (r->cells[ci].journaled && !cell_group(f, &r->cells[ci], ci)) {
            *bad_line = r->cells[ci].line;
            return false;
        }
    return true;
}

/* 1 MiB steps: a sweep's raw.h5 is a few MiB, so few reallocations. */
#define CORE_INCREMENT ((size_t)1 << 20)

/* An HDF5 file that exists only in memory (core driver, no backing store):
 * HDF5 never opens a path, so nothing can be planted where it writes. */
static hid_t create_in_memory(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return -1;
    hid_t f = H5Pset_fapl_core(fapl, CORE_INCREMENT, 0) < 0
                  ? -1
                  : H5Fcreate("raw.h5 (in memory)", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    return f;
}

/* The file's bytes, for publishing through gdt_file_write_atomic. */
static gdt_status file_image(hid_t f, const char *path, void **buf, size_t *n, gdt_error *e)
{
    ssize_t size = H5Fflush(f, H5F_SCOPE_LOCAL) < 0 ? -1 : H5Fget_file_image(f, NULL, 0);
    if (size <= 0)
        return gdt_error_set(e, GDT_STATUS_HDF5, "%s: H5Fget_file_image failed", path);
    *buf = malloc((size_t)size);
    if (!*buf)
        return gdt_error_set(e, GDT_STATUS_NO_MEMORY, "%s: out of memory (%zd bytes)", path, size);
    if (H5Fget_file_image(f, *buf, (size_t)size) != size) {
        free(*buf);
        *buf = NULL;
        return gdt_error_set(e, GDT_STATUS_HDF5, "%s: H5Fget_file_image failed", path);
    }
    *n = (size_t)size;
    return GDT_STATUS_OK;
}

gdt_status gdt_rawh5_write(const gdt_run *r, const char *dir, gdt_error *e)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/raw.h5", dir);
    if (!getenv("GDTUNE_HDF5_DEBUG"))
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported here, with the place */
    hid_t f = create_in_memory();
    int bad = 0;
    void *image = NULL;
    size_t n = 0;
    gdt_status s = GDT_STATUS_OK;
    if (f < 0)
        s = gdt_error_set(e, GDT_STATUS_HDF5, "%s: H5Fcreate (in memory) failed", path);
    else if (!write_run(f, r, &bad))
        s = gdt_error_set(e, GDT_STATUS_HDF5, "%s: writing the cell of %s:%d failed", path, r->path,
                          bad);
    if (s == GDT_STATUS_OK)
        s = file_image(f, path, &image, &n, e);
    if (f >= 0 && H5Fclose(f) < 0 && s == GDT_STATUS_OK)
        s = gdt_error_set(e, GDT_STATUS_HDF5, "%s: H5Fclose failed", path);
    if (s == GDT_STATUS_OK)
        s = gdt_file_write_atomic(path, image, n, e);
    free(image);
    return s;
}

bool gdt_rawh5_after_sweep(const gdt_run *r, const char *dir)
{
    gdt_error e = {0};
    if (gdt_rawh5_write(r, dir, &e) == GDT_STATUS_OK)
        return true;
    fprintf(stderr, "gdtune sweep: raw.h5 not written: %s (the journal holds every sample; "
            "`gdtune report %s` retries)\n", e.msg, dir);
    return false;
}
