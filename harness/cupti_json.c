/* A traced burst as the worker's reply and the journal carry it, and as
 * `compare --format json` shows it (gdt_cupti.h): one writer of its keys,
 * in their order. */
#include <cjson/cJSON.h>

#include "gdt_cupti.h"

/* The traced burst's main kernel: its name and launch shape. */
static cJSON *kernel_json(const gdt_cupti_kernel *k)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", k->name);
    cJSON_AddItemToObject(o, "grid", cJSON_CreateIntArray(k->grid, 3));
    cJSON_AddItemToObject(o, "block", cJSON_CreateIntArray(k->block, 3));
    cJSON_AddItemToObject(o, "cluster", cJSON_CreateIntArray(k->cluster, 3));
    cJSON_AddNumberToObject(o, "registers", k->registers);
    cJSON_AddNumberToObject(o, "smem", k->smem);
    cJSON_AddNumberToObject(o, "share", k->share);
    return o;
}

cJSON *gdt_cupti_json(int burst, const gdt_cupti_burst *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "burst", burst);
    cJSON_AddNumberToObject(o, "kernels", c->kernels);
    cJSON_AddNumberToObject(o, "kernel_us", c->kernel_us);
    cJSON_AddNumberToObject(o, "event_us", c->event_us);
    cJSON_AddNumberToObject(o, "gap_us", c->gap_us);
    cJSON_AddNumberToObject(o, "span_us", c->span_us);
    if (c->main.name[0])
        cJSON_AddItemToObject(o, "kernel", kernel_json(&c->main));
    return o;
}
