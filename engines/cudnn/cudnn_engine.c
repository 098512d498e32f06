/* STUB: replaced by its owner. */
#include "gdt_engines.h"
const gdt_engine_ops gdt__cudnn_ops = {0};
const gdt_backend *gdt_cudnn_backend(void) { return NULL; }
gdt_status gdt_cudnn_enumerate(const gdt_facts *f, int cap, gdt_plan_entry **out, int *n, gdt_error *e)
{ (void)f; (void)cap; *out = NULL; *n = 0; return gdt_error_set(e, GDT_STATUS_NOT_SUPPORTED, "not implemented"); }
int gdt_cudnn_runtime_version(void) { return 0; }
