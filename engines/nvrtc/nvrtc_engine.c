/* STUB: replaced by its owner. */
#include "gdt_engines.h"
const gdt_engine_ops gdt__nvrtc_ops = {0};
