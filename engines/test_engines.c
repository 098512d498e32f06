/* STUB: replaced by its owner. */
#include "gdt_engines.h"
const gdt_engine_ops gdt__test_fault_ops = {0};
const gdt_engine_ops gdt__test_hang_ops = {0};
