/* raw.h5 from the journal: every sample per family/cell/plan and burst,
 * plus provenance, built in memory and published as one file (unique
 * temporary, fsync, rename). */
#include <cjson/cJSON.h>
#include <hdf5.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdt_run.h"
#include "gdt_json.h"
#include "gdt_rawh5.h"
#include "gdt_util.h"

/* Attributes live in the object header (64 KiB at most): longer text, such
 * as a large spec or candidate table, becomes a scalar string dataset of
 * the same name. */
#define ATTR_TEXT_MAX 60000

static bool attr_str(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(value) + 1);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    hid_t sp = H5Screate(H5S_SCALAR);
    bool big = strlen(value) > ATTR_TEXT_MAX;
    hid_t a = big ? H5Dcreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                  : H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = a >= 0 && (big ? H5Dwrite(a, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, value)
                             : H5Awrite(a, t, value)) >= 0;
    if (a >= 0)
        big ? H5Dclose(a) : H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    return ok;
}

static bool attr_num(hid_t obj, const char *name, double value)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, &value) >= 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    return ok;
}

/* A float64 dataset from a JSON array of numbers (empty arrays too). */
static bool dataset(hid_t parent, const char *name, const cJSON *arr)
{
    int n = cJSON_GetArraySize(arr);
    double *v = malloc(sizeof *v * (size_t)(n + 1));
    if (!v)
        return false;
    for (int i = 0; i < n; i++)
        v[i] = cJSON_GetArrayItem(arr, i)->valuedouble;
    hsize_t dims[1] = {(hsize_t)n};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(parent, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bool ok = d >= 0 && (n == 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(sp);
    free(v);
    return ok;
}

/* Opens a group, creating it when absent. */
static hid_t group(hid_t parent, const char *name)
{
    if (H5Lexists(parent, name, H5P_DEFAULT) > 0)
        return H5Gopen2(parent, name, H5P_DEFAULT);
    return H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

static bool provenance(hid_t f, const cJSON *h)
{
    const cJSON *d = cJSON_GetObjectItem(h, "device");
    static const char *const dev_str[] = {"name", "uuid"};
    static const char *const dev_num[] = {"arch", "sm_count", "l2_bytes", "sm_clock_khz",
                                          "mem_clock_khz", "driver_version", "cuda_version",
                                          "cudnn_version", "nvrtc_version"};
    static const char *const run_str[] = {"gdtune_version", "source_digest", "started", "family",
                                          "spec_source", "spec_digest", "spec", "candidates_digest",
                                          "candidates"};
    bool ok = true;
    char name[64];
    for (size_t i = 0; i < sizeof dev_str / sizeof *dev_str; i++)
        ok &= attr_str(f, (snprintf(name, sizeof name, "device_%s", dev_str[i]), name), gdt_json_str_or(d, dev_str[i], ""));
    for (size_t i = 0; i < sizeof dev_num / sizeof *dev_num; i++)
        ok &= attr_num(f, dev_num[i], gdt_json_num_or(d, dev_num[i], 0));
    for (size_t i = 0; i < sizeof run_str / sizeof *run_str; i++)
        ok &= attr_str(f, run_str[i], gdt_json_str_or(h, run_str[i], ""));
    return ok;
}

static bool plan_attrs(hid_t g, const gdt_run_plan *p)
{
    return attr_str(g, "name", p->name) && attr_str(g, "tag", p->tag) &&
           attr_num(g, "engine_id", (double)p->id.engine_id) && attr_num(g, "backend", p->backend) &&
           attr_num(g, "untimed_position", p->untimed);
}

static bool result_data(hid_t g, const cJSON *res)
{
    bool ok = attr_str(g, "disposition", gdt_json_str_or(res, "disposition", "")) &&
              attr_str(g, "error", gdt_json_str_or(res, "error", "")) &&
              attr_num(g, "build_s", gdt_json_num_or(res, "build_s", 0)) &&
              attr_num(g, "time_us", gdt_json_num_or(res, "time_us", 0)) &&
              attr_num(g, "noise", gdt_json_num_or(res, "noise", 0));
    const cJSON *b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItem(res, "bursts"))
    {
        char name[64];
        snprintf(name, sizeof name, "burst_%d", (int)gdt_json_num_or(b, "burst", 0));
        hid_t bg = group(g, name);
        ok &= bg >= 0 && dataset(bg, "host_us", cJSON_GetObjectItem(b, "host_us")) &&
              dataset(bg, "device_us", cJSON_GetObjectItem(b, "device_us")) &&
              dataset(bg, "total_us", cJSON_GetObjectItem(b, "total_us")) &&
              attr_num(bg, "median_device_us", gdt_json_num_or(b, "median_device_us", 0)) &&
              attr_num(bg, "median_host_us", gdt_json_num_or(b, "median_host_us", 0)) &&
              attr_num(bg, "rel_spread", gdt_json_num_or(b, "rel_spread", 0));
        if (bg >= 0)
            H5Gclose(bg);
    }
    if (cJSON_GetObjectItem(res, "cold_us"))
        ok &= dataset(g, "cold_us", cJSON_GetObjectItem(res, "cold_us"));
    const cJSON *clk = cJSON_GetObjectItem(res, "clocks");
    if (clk) /* what the clock probe saw while this plan was measured */
        ok &= attr_num(g, "sm_clock_rated_mhz", gdt_json_num_or(clk, "rated_mhz", 0)) &&
              attr_num(g, "sm_clock_min_mhz", gdt_json_num_or(clk, "min_mhz", 0)) &&
              attr_num(g, "sm_clock_max_mhz", gdt_json_num_or(clk, "max_mhz", 0));
    return ok;
}

static bool plan_group(hid_t c, const gdt_run_cell *cell, int pi)
{
    char name[64];
    snprintf(name, sizeof name, "plan_%03d", pi);
    hid_t g = group(c, name);
    bool ok = g >= 0 && plan_attrs(g, &cell->plan[pi]) &&
              (!cell->result[pi].rec || result_data(g, cell->result[pi].rec));
    if (g >= 0)
        H5Gclose(g);
    return ok;
}

/* /<family>/cell_<NNN>: its attributes and one group per plan. */
static bool cell_group(hid_t f, const gdt_run_cell *cell, int ci)
{
    char name[64], key[512];
    hid_t fam = group(f, gdt_family_name(cell->spec->family));
    snprintf(name, sizeof name, "cell_%03d", ci);
    hid_t c = fam >= 0 ? group(fam, name) : -1;
    gdt_problem_key(&cell->spec->problem, key, sizeof key);
    bool ok = c >= 0 && attr_str(c, "shape", cell->spec->shape) && attr_str(c, "key", key) &&
              (!cell->plans || attr_str(c, "reference", cell->reference));
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
    if (!provenance(f, r->header)) {
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

void gdt_rawh5_after_sweep(const gdt_run *r, const char *dir)
{
    gdt_error e = {0};
    if (gdt_rawh5_write(r, dir, &e) != GDT_STATUS_OK)
        fprintf(stderr, "gdtune sweep: raw.h5 not written: %s (the journal holds every sample; "
                "`gdtune report %s` retries)\n", e.msg, dir);
}
