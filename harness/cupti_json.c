/* A traced burst as the worker's reply and the journal carry it, and as
 * `compare --format json` shows it (gdt_cupti.h): one writer of its keys,
 * in their order. */
#include <cjson/cJSON.h>

#include "gdt_cupti.h"
#include "gdt_json_rows.h"

/* The main kernel's resources and its share of the burst's kernel time. */
static const gdt_json_row kernel_rows[] = {
    GDT_JSON_FIELD(gdt_cupti_kernel, registers),
    GDT_JSON_FIELD(gdt_cupti_kernel, smem),
    GDT_JSON_FIELD(gdt_cupti_kernel, share),
};

/* The burst's figures, per call. */
static const gdt_json_row burst_rows[] = {
    GDT_JSON_FIELD(gdt_cupti_burst, kernels),
    GDT_JSON_FIELD(gdt_cupti_burst, kernel_us),
    GDT_JSON_FIELD(gdt_cupti_burst, event_us),
    GDT_JSON_FIELD(gdt_cupti_burst, gap_us),
    GDT_JSON_FIELD(gdt_cupti_burst, span_us),
};

/* The traced burst's main kernel: its name and launch shape. */
static cJSON *kernel_json(const gdt_cupti_kernel *k)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", k->name);
    cJSON_AddItemToObject(o, "grid", cJSON_CreateIntArray(k->grid, 3));
    cJSON_AddItemToObject(o, "block", cJSON_CreateIntArray(k->block, 3));
    cJSON_AddItemToObject(o, "cluster", cJSON_CreateIntArray(k->cluster, 3));
    gdt_json_rows_add(o, k, kernel_rows, GDT_JSON_ROWS_N(kernel_rows));
    return o;
}

cJSON *gdt_cupti_json(int burst, const gdt_cupti_burst *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "burst", burst);
    gdt_json_rows_add(o, c, burst_rows, GDT_JSON_ROWS_N(burst_rows));
    if (c->main.name[0])
        cJSON_AddItemToObject(o, "kernel", kernel_json(&c->main));
    return o;
}
