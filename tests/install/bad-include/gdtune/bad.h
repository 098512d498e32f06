/* What test_public_headers must refuse (test_public_headers_refuses in
 * tests/CMakeLists.txt): the engine interface put back in an installed
 * header, a handle's body and a vtable. */
#ifndef GDTUNE_BAD_H
#define GDTUNE_BAD_H

#include <stddef.h>

typedef struct gdt_engine_slot {
    int slot;
} gdt_engine_slot;

typedef struct gdt_engine_ops {
    size_t (*workspace_size)(const void *compiled);
} gdt_engine_ops;

#endif
